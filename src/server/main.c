// SPDX-License-Identifier: MIT
/*
 * sehttpd: serve a directory over HTTP/1.1.  The main thread sets up, starts
 * one worker per thread, then only waits for SIGINT or SIGTERM to ask the
 * workers to drain and stop.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "health.h"
#include "listener.h"
#include "metrics.h"
#include "options.h"
#include "privileges.h"
#include "server.h"
#include "socket_activation.h"
#include "static_file.h"

#define EXIT_USAGE 2
#define MAX_FDS_CAP (1u << 22)

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

/*
 * Readable and searchable, checked the way requests will open it: after
 * the switch to the serving user, with that user's rights.
 */
static int probe_root(struct server *s, const char *root, char *real,
		      size_t real_len)
{
	int probe = open_beneath(s->root_fd, "", O_RDONLY | O_DIRECTORY);

	if (probe < 0) {
		if (errno == ENOSYS)
			fprintf(stderr, "sehttpd: this kernel lacks openat2 "
					"(Linux 5.6 or later is needed)\n");
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

static int open_access_log(struct server *s, const char *path)
{
	if (!path)
		return 0;
	s->access_log = true;
	if (!strcmp(path, "-")) {
		s->access_log_fd = STDOUT_FILENO;
		return 0;
	}
	s->access_log_fd =
		open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (s->access_log_fd < 0) {
		fprintf(stderr, "sehttpd: cannot open access log '%s': %s\n",
			path, strerror(errno));
		return -1;
	}
	return 0;
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
 * worker's epoll and eventfd, and room for the files requests open.
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

/* Starts the workers in turn; returns how many are running. */
static unsigned start_workers(struct server *s, int *listen_fds)
{
	unsigned i;

	for (i = 0; i < s->nworkers; i++) {
		struct worker *w = &s->workers[i];

		if (worker_init(w, s, listen_fds[i])) {
			fprintf(stderr,
				"sehttpd: cannot set up thread %u: %s\n", i,
				strerror(errno));
			worker_destroy(w);
			i++; /* its listener is closed */
			break;
		}
		if (pthread_create(&w->thread, NULL, worker_run, w)) {
			fprintf(stderr, "sehttpd: cannot start thread %u\n", i);
			worker_destroy(w);
			i++;
			break;
		}
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

int main(int argc, char **argv)
{
	struct options opt;
	struct server s = { .root_fd = -1, .access_log_fd = -1 };
	struct listen_addr addr;
	char real_root[PATH_MAX], where[LISTEN_ADDR_STRLEN], err[256];
	int *listen_fds = NULL;
	unsigned started;
	sigset_t stop_signals;
	bool listening = false; /* listen_fds are open and ours to close */
	struct metrics_server *metrics = NULL;
	char metrics_where[LISTEN_ADDR_STRLEN];
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
	if (open_root(&s, opt.root) || open_access_log(&s, opt.access_log)) {
		if (s.root_fd >= 0)
			close(s.root_fd);
		return EXIT_USAGE;
	}
	s.timeout_ms = opt.timeout_ms;
	s.listing = opt.listing;
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
	if (privileges_drop(opt.user, opt.user_given, err, sizeof(err))) {
		fprintf(stderr, "sehttpd: %s\n", err);
		ret = EXIT_USAGE;
		goto out;
	}
	if (probe_root(&s, opt.root, real_root, sizeof(real_root))) {
		ret = EXIT_USAGE;
		goto out;
	}

	/* Only the main thread takes the stop signals; workers never see
	 * them.  Writes to closed sockets fail with EPIPE, not SIGPIPE. */
	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&stop_signals);
	sigaddset(&stop_signals, SIGINT);
	sigaddset(&stop_signals, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &stop_signals, NULL);

	s.max_conns = connection_limit(&s);
	started = start_workers(&s, listen_fds);
	if (started == s.nworkers) {
		listen_addr_format(&addr, where, sizeof(where));
		printf("sehttpd: listening on http://%s/ (root %s, %u thread%s%s)\n",
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
		wait_for_signal(&stop_signals);
		health_drain(&s, &stop_signals);
		ret = 0;
	}
	for (unsigned i = 0; i < started; i++)
		worker_request_stop(&s.workers[i]);
	for (unsigned i = 0; i < started; i++) {
		pthread_join(s.workers[i].thread, NULL);
		worker_destroy(&s.workers[i]);
	}
	/* Listeners of threads that never started. */
	for (unsigned i = started; i < s.nworkers; i++)
		close(listen_fds[i]);
	listening = false;
out:
	metrics_stop(metrics);
	if (listening)
		for (unsigned i = 0; i < s.nworkers; i++)
			close(listen_fds[i]);
	free(listen_fds);
	free(s.workers);
	free(s.conns);
	close(s.root_fd);
	if (s.access_log_fd > STDOUT_FILENO)
		close(s.access_log_fd);
	return ret;
}
