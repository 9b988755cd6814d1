// SPDX-License-Identifier: MIT
/*
 * sehttpd: serve a directory over HTTP/1.1.  The main thread sets up, starts
 * one worker per thread, then only waits for signals: SIGUSR1 or SIGHUP
 * reopen the access log, SIGINT or SIGTERM ask the workers to drain and stop.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "clock_ms.h"
#include "health.h"
#include "listener.h"
#include "log_writer.h"
#include "metrics.h"
#include "mime_map.h"
#include "options.h"
#include "privileges.h"
#include "server.h"
#include "socket_activation.h"
#include "beneath.h"

#define EXIT_USAGE 2
#define MAX_FDS_CAP (1u << 22)
/* At exit, how long a log that does not keep up may hold the server. */
#define LOG_DRAIN_MS 1000

/* Static: a writer left blocked at exit still reaches its buffers. */
static struct log_writer access_log_writer;

static int open_root(struct server *s, const char *root)
{
	struct stat st;

	s->root_fd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (s->root_fd < 0 || fstat(s->root_fd, &st)) {
		fprintf(stderr, "sehttpd: cannot serve '%s': %s\n", root,
			strerror(errno));
		return -1;
	}
	return 0;
}

/* A site page (--error-page, --spa) as requests will open it. */
static int open_page(void *ctx, const char *path, uint64_t *size)
{
	int fd = open_beneath(*(int *)ctx, path, O_RDONLY | O_NONBLOCK);
	struct stat st;
	int ret = -1;

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) == 0) {
		ret = S_ISREG(st.st_mode) ? 0 : -1;
		errno = S_ISDIR(st.st_mode) ? EISDIR : EINVAL;
		*size = (uint64_t)st.st_size;
	}
	close(fd);
	return ret;
}

static int open_site(struct server *s, struct site *site,
		     const struct options *opt)
{
	char err[512];

	if (beneath_init(s->root_fd, opt->follow_symlinks)) {
		fprintf(stderr, "sehttpd: cannot find ROOT's path: %s\n",
			strerror(errno));
		return -1;
	}
	if (site_build(site, &opt->site, open_page, &s->root_fd, err,
		       sizeof(err))) {
		fprintf(stderr, "sehttpd: %s\n", err);
		return -1;
	}
	s->site = site;
	return 0;
}

/*
 * Readable and searchable, checked the way requests will open it: after
 * the switch to the serving user, with that user's rights.
 */
static int probe_root(struct server *s, const char *root, bool dropped,
		      const char *user, char *real, size_t real_len)
{
	int probe = open_beneath(s->root_fd, "", O_RDONLY | O_DIRECTORY);

	if (probe < 0) {
		if (errno == ENOSYS)
			fprintf(stderr, "sehttpd: this kernel lacks openat2 "
					"(Linux 5.6 or later is needed)\n");
		else if (errno == EACCES && dropped)
			fprintf(stderr,
				"sehttpd: cannot serve '%s' as user %s: %s "
				"(see --user)\n",
				root, user, strerror(errno));
		else
			fprintf(stderr, "sehttpd: cannot serve '%s': %s\n",
				root, strerror(errno));
		return -1;
	}
	close(probe);
	if (!realpath(root, real))
		snprintf(real, real_len, "%s", root);
	return 0;
}

/* extra: O_NONBLOCK not to wait for a FIFO's reader (then cleared). */
static int open_log_file(const char *path, int extra)
{
	int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | extra,
		      0644);

	if (fd < 0)
		fprintf(stderr, "sehttpd: cannot open access log '%s': %s\n",
			path, strerror(errno));
	else if (extra)
		fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~extra);
	return fd;
}

static int open_access_log(struct server *s, const char *path)
{
	if (!path)
		return 0;
	s->access_log = true;
	if (!strcmp(path, "-")) {
		s->access_log_fd = STDOUT_FILENO;
		return 0;
	}
	s->access_log_fd = open_log_file(path, 0);
	return s->access_log_fd < 0 ? -1 : 0;
}

/*
 * SIGUSR1 or SIGHUP: after logrotate has renamed the log, lines go to a new
 * file at the same path.  If it cannot be opened, they go on to the old one.
 * Never waits: the signals that stop the server are blocked meanwhile.
 */
static void reopen_access_log(struct server *s, const char *path)
{
	int fd;

	if (!s->log_writer || !strcmp(path, "-"))
		return;
	fd = open_log_file(path, O_NONBLOCK);
	if (fd >= 0)
		log_writer_reopen(s->log_writer, fd);
}

/* Raises the descriptor limit to its maximum; sizes the connection table. */
static unsigned fd_capacity(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl))
		return 1024;
	if (rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
		getrlimit(RLIMIT_NOFILE, &rl);
	}
	return rl.rlim_cur > MAX_FDS_CAP ? MAX_FDS_CAP : (unsigned)rl.rlim_cur;
}

/*
 * Descriptors beyond those of the connections: what is open now, each
 * worker's epoll and eventfd, and room for the files requests open and the
 * content caches keep open (worker.c takes a half of it for those).
 */
static unsigned connection_limit(const struct server *s)
{
	int lowest = fcntl(0, F_DUPFD_CLOEXEC, 0);
	unsigned reserve, files = s->max_fds / 8 > 16 ? s->max_fds / 8 : 16;

	if (lowest >= 0)
		close(lowest);
	reserve = (lowest > 0 ? (unsigned)lowest : 3) + 2 * s->nworkers + files;
	return s->max_fds > reserve + 1 ? s->max_fds - reserve : 1;
}

/*
 * Starts the workers in turn; returns how many are running.  One that
 * fails has closed its listener: its listen_fds entry becomes -1.
 */
static unsigned start_workers(struct server *s, int *listen_fds)
{
	unsigned i;

	for (i = 0; i < s->nworkers; i++) {
		struct worker *w = &s->workers[i];

		if (worker_init(w, s, listen_fds[i])) {
			fprintf(stderr,
				"sehttpd: cannot set up thread %u: %s\n", i,
				strerror(errno));
			break;
		}
		if (pthread_create(&w->thread, NULL, worker_run, w)) {
			fprintf(stderr, "sehttpd: cannot start thread %u\n", i);
			break;
		}
	}
	if (i < s->nworkers) {
		worker_destroy(&s->workers[i]);
		listen_fds[i] = -1;
	}
	return i;
}

static int wait_for_signal(const sigset_t *set)
{
	int sig;

	while (sigwait(set, &sig))
		;
	return sig;
}

/*
 * Waits up to ms for SIGINT or SIGTERM among set (other signals of the set
 * are taken and ignored meanwhile); true when one came.
 */
static bool wait_stop_signal(const sigset_t *set, uint64_t ms)
{
	uint64_t end = clock_ms() + ms, now;

	while ((now = clock_ms()) < end) {
		uint64_t left = end - now;
		struct timespec ts = { .tv_sec = (time_t)(left / 1000),
				       .tv_nsec =
					       (long)(left % 1000) * 1000000 };
		int sig = sigtimedwait(set, NULL, &ts);

		if (sig == SIGINT || sig == SIGTERM)
			return true;
		if (sig < 0 && errno != EINTR && errno != EAGAIN)
			return false;
	}
	return false;
}

static bool workers_finished(struct server *s, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		if (!atomic_load(&s->workers[i].finished))
			return false;
	}
	return true;
}

/*
 * Asks the n running workers to stop accepting and let in-flight responses
 * finish, for at most drain_ms: then, or at a second SIGINT or SIGTERM, what
 * is left is cut off.  Polled: the main thread has nothing else to do.
 */
static void drain_workers(struct server *s, unsigned n, const sigset_t *stop,
			  uint32_t drain_ms)
{
	uint64_t deadline = clock_ms() + drain_ms;

	for (unsigned i = 0; i < n; i++)
		worker_request_stop(&s->workers[i]);
	while (!workers_finished(s, n)) {
		uint64_t now = clock_ms();

		if (now >= deadline) {
			fprintf(stderr,
				"sehttpd: responses still in flight "
				"after the drain timeout are cut off\n");
			break;
		}
		/* Short waits: the workers finishing is not a signal. */
		if (wait_stop_signal(
			    stop, deadline - now < 50 ? deadline - now : 50)) {
			fprintf(stderr,
				"sehttpd: second signal: stopping now\n");
			break;
		}
	}
	for (unsigned i = 0; i < n; i++)
		worker_force_stop(&s->workers[i]);
}

int main(int argc, char **argv)
{
	struct options opt;
	struct server s = { .root_fd = -1, .access_log_fd = -1 };
	struct site site = { 0 };
	struct listen_addr addr;
	char real_root[PATH_MAX], where[LISTEN_URL_STRLEN], err[256];
	int *listen_fds = NULL;
	unsigned started;
	sigset_t signals;
	bool listening = false; /* listen_fds are open and ours to close */
	struct metrics_server *metrics = NULL;
	struct mime_map *mime;
	char metrics_where[LISTEN_ADDR_STRLEN];
	bool stop_now = false; /* a second stop signal came during the grace */
	bool was_root;
	int passed, ret = 1;

	switch (options_parse(&opt, argc, argv)) {
	case OPTIONS_EXIT_OK:
		return 0;
	case OPTIONS_EXIT_USAGE:
		return EXIT_USAGE;
	case OPTIONS_RUN:
		break;
	}
	passed = socket_activation_fds(err, sizeof(err));
	if (passed < 0) {
		fprintf(stderr, "sehttpd: %s\n", err);
		return EXIT_USAGE;
	}
	mime = mime_map_build(opt.mime_types, opt.mime, opt.mime_count,
			      opt.default_type, err, sizeof(err));
	if (!mime) {
		fprintf(stderr, "sehttpd: %s\n", err);
		return EXIT_USAGE;
	}
	s.mime = mime;
	if (open_root(&s, opt.root) || open_access_log(&s, opt.access_log)) {
		mime_map_free(mime);
		if (s.root_fd >= 0)
			close(s.root_fd);
		site_free(&site);
		return EXIT_USAGE;
	}
	/*
	 * Only the main thread takes these signals, blocked before any other
	 * thread starts so that none inherits them unblocked (until then, as
	 * while opening a FIFO as the log, they stop it as by default).
	 * Writes to closed sockets fail with EPIPE, not SIGPIPE.
	 */
	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&signals);
	sigaddset(&signals, SIGINT);
	sigaddset(&signals, SIGTERM);
	sigaddset(&signals, SIGHUP);
	sigaddset(&signals, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &signals, NULL);
	if (s.access_log) {
		if (log_writer_start(&access_log_writer, s.access_log_fd)) {
			perror("sehttpd: access log writer");
			if (s.access_log_fd > STDOUT_FILENO)
				close(s.access_log_fd);
			close(s.root_fd);
			mime_map_free(mime);
			return 1;
		}
		s.log_writer = &access_log_writer;
		s.access_log_fd = -1; /* the writer's now */
	}
	s.timeout_ms = opt.timeout_ms;
	s.compress = opt.compress;
	s.proxy_protocol = opt.proxy_protocol;
	s.health_path = opt.health;
	s.health_len = opt.health ? (uint32_t)strlen(opt.health) : 0;
	s.health_grace_ms = opt.health_grace_ms;
	/* Every passed socket gets a thread at least. */
	s.nworkers = opt.threads > (unsigned)passed ? opt.threads :
						      (unsigned)passed;
	/* Each thread owns a share: hits never wait for another thread. */
	s.cache_bytes = (size_t)opt.cache_mib * 1024 * 1024 / s.nworkers;
	s.max_fds = fd_capacity();
	s.conns = calloc(s.max_fds, sizeof(*s.conns));
	s.workers = calloc(s.nworkers, sizeof(*s.workers));
	listen_fds = calloc(s.nworkers, sizeof(*listen_fds));
	if (!s.conns || !s.workers || !listen_fds) {
		fprintf(stderr, "sehttpd: out of memory\n");
		goto out;
	}

	if (passed ? listeners_adopt(passed, s.nworkers, listen_fds, &addr, err,
				     sizeof(err)) :
		     listen_addr_resolve(&addr, opt.bind_addr, opt.port, err,
					 sizeof(err)) ||
			     listeners_open(&addr, s.nworkers, listen_fds, err,
					    sizeof(err))) {
		fprintf(stderr, "sehttpd: %s\n", err);
		ret = EXIT_USAGE;
		goto out;
	}
	listening = true;
	if (opt.metrics) {
		metrics = metrics_open(&s, opt.metrics, metrics_where,
				       sizeof(metrics_where), err, sizeof(err));
		if (!metrics) {
			fprintf(stderr, "sehttpd: %s\n", err);
			ret = EXIT_USAGE;
			goto out;
		}
	}
	/* Bound: root is no longer needed for anything. */
	was_root = geteuid() == 0;
	if (privileges_drop(opt.user, opt.user_given, err, sizeof(err))) {
		fprintf(stderr, "sehttpd: %s\n", err);
		ret = EXIT_USAGE;
		goto out;
	}
	/* Site pages too are checked as requests will open them. */
	if (probe_root(&s, opt.root, was_root && strcmp(opt.user, "root"),
		       opt.user, real_root, sizeof(real_root)) ||
	    open_site(&s, &site, &opt)) {
		ret = EXIT_USAGE;
		goto out;
	}

	s.max_conns = connection_limit(&s);
	started = start_workers(&s, listen_fds);
	if (started == s.nworkers) {
		listen_addr_url(&addr, where, sizeof(where));
		printf("sehttpd: listening on %s (root %s, %u thread%s%s)\n",
		       where, real_root, s.nworkers, s.nworkers == 1 ? "" : "s",
		       passed > 1 ? ", and on further passed sockets" :
		       passed	  ? ", a passed socket" :
				    "");
		if (metrics && metrics_start(metrics))
			fprintf(stderr, "sehttpd: cannot start the metrics "
					"thread\n");
		else if (metrics)
			printf("sehttpd: metrics on http://%s/metrics\n",
			       metrics_where);
		fflush(stdout);
		for (;;) {
			int sig = wait_for_signal(&signals);

			if (sig == SIGINT || sig == SIGTERM)
				break;
			reopen_access_log(&s, opt.access_log);
		}
		if (s.health_len) {
			health_begin_drain(&s);
			stop_now =
				wait_stop_signal(&signals, s.health_grace_ms);
		}
		ret = 0;
	}
	drain_workers(&s, started, &signals, stop_now ? 0 : opt.drain_ms);
	for (unsigned i = 0; i < started; i++) {
		pthread_join(s.workers[i].thread, NULL);
		worker_destroy(&s.workers[i]);
	}
	/* Listeners of threads that never started. */
	for (unsigned i = started; i < s.nworkers; i++) {
		if (listen_fds[i] >= 0)
			close(listen_fds[i]);
	}
	listening = false;
out:
	metrics_stop(metrics);
	if (listening)
		for (unsigned i = 0; i < s.nworkers; i++)
			close(listen_fds[i]);
	free(listen_fds);
	free(s.workers);
	free(s.conns);
	mime_map_free(mime);
	close(s.root_fd);
	site_free(&site);
	if (s.log_writer) {
		uint64_t dropped = log_writer_stop(s.log_writer, LOG_DRAIN_MS);

		if (dropped)
			fprintf(stderr,
				"sehttpd: %" PRIu64 " access log lines dropped "
				"(the log did not keep up)\n",
				dropped);
	}
	return ret;
}
