// SPDX-License-Identifier: MIT
/*
 * sehttpd: serve a directory over HTTP/1.x and HTTP/2, in the clear or over
 * TLS.  The main thread sets up (sehttpd_open), starts one worker per
 * thread, then only waits for signals: SIGUSR1 or SIGHUP reopen the access
 * log (SIGHUP also reloads the TLS certificates and the password files),
 * SIGINT or SIGTERM ask the workers to drain and stop (sehttpd_run);
 * sehttpd_close releases what it took.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <malloc.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "auth.h"
#include "auth_checkers.h"
#include "clock_ms.h"
#include "health.h"
#include "http/site.h"
#include "listen_set.h"
#include "listener.h"
#include "log_writer.h"
#include "metrics.h"
#include "mime_map.h"
#include "options.h"
#include "privileges.h"
#include "server.h"
#include "socket_activation.h"
#include "tls.h"
#include "beneath.h"
#include "vhosts.h"

#define EXIT_USAGE 2
#define MAX_FDS_CAP (1u << 22)
/* At exit, how long a log that does not keep up may hold the server. */
#define LOG_DRAIN_MS 1000
/* Blocks this large or larger are mapped apart, and unmapped when freed. */
#define MAIN_MMAP_THRESHOLD (256 * 1024)

/* Static: a writer left blocked at exit still reaches its buffers. */
static struct log_writer access_log_writer;

/* What main owns while it serves: sehttpd_close releases all of it. */
struct sehttpd {
	const struct options *opt;
	struct server server;
	struct mime_map *mime; /* server.mime, ours to free */
	struct site site; /* server.site once built */
	struct vhosts vhosts; /* --vhost's names and directories */
	/* ROOT, then each --vhost's DIR: server.roots */
	struct beneath_root *roots;
	unsigned nroots;
	char **root_paths; /* server.root_paths */
	atomic_ulong *root_announced; /* server.root_announced */
	int passed; /* listening sockets systemd passed */
	struct listen_set listen; /* each worker's listeners */
	struct metrics_server *metrics;
	char metrics_where[LISTEN_ADDR_STRLEN];
	char real_root[PATH_MAX]; /* ROOT as the listening line shows it */
	sigset_t signals; /* those only the main thread takes */
	struct tls tls; /* server.tls points here with --tls-cert */
	struct auth auth; /* server.auth points here with --auth-file */
	bool checking; /* the auth checkers run */
};

/* Prints err, a reason without the program's name; returns status. */
static int report(const char *err, int status)
{
	fprintf(stderr, "sehttpd: %s\n", err);
	return status;
}

/*
 * Why dir cannot be served (errno err), on one line: ROOT named by its
 * path, a --vhost's DIR by the whole argument; user: the serving user's
 * rights were lacking.
 */
static void cannot_serve(const char *dir, const char *vhost, const char *user,
			 int err)
{
	if (vhost)
		fprintf(stderr, "sehttpd: cannot serve --vhost %s", vhost);
	else
		fprintf(stderr, "sehttpd: cannot serve '%s'", dir);
	if (user)
		fprintf(stderr, " as user %s: %s (see --user)\n", user,
			strerror(err));
	else
		fprintf(stderr, ": %s\n", strerror(err));
}

/* ROOT, or the DIR of the --vhost argument vhost, as an O_PATH descriptor. */
static int open_root(struct beneath_root *r, const char *dir, const char *vhost)
{
	struct stat st;

	r->fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (r->fd < 0 || fstat(r->fd, &st)) {
		cannot_serve(dir, vhost, NULL, errno);
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

/* The site's rules; its pages must exist beneath every root. */
static int open_site(struct sehttpd *d)
{
	const struct options *opt = d->opt;
	char err[512];

	beneath_follow_symlinks(opt->follow_symlinks);
	for (unsigned i = 0; i < d->nroots; i++) {
		if (beneath_locate(&d->roots[i])) {
			fprintf(stderr, "sehttpd: cannot find %s's path: %s\n",
				i ? d->vhosts.dirs[i - 1] : "ROOT",
				strerror(errno));
			return -1;
		}
	}
	if (site_build(&d->site, &opt->site, open_page, &d->roots[0].fd, err,
		       sizeof(err))) {
		fprintf(stderr, "sehttpd: %s\n", err);
		return -1;
	}
	for (unsigned i = 1; i < d->nroots; i++) {
		if (site_check_pages(&d->site, open_page, &d->roots[i].fd, err,
				     sizeof(err))) {
			fprintf(stderr, "sehttpd: --vhost %s: %s\n",
				d->vhosts.args[i - 1], err);
			return -1;
		}
	}
	d->server.site = &d->site;
	return 0;
}

/*
 * Readable and searchable, checked the way requests will open it: after
 * the switch to the serving user, with that user's rights.
 */
static int probe_root(const struct beneath_root *r, const char *dir,
		      const char *vhost, bool dropped, const char *user)
{
	int probe = open_beneath(r->fd, "", O_RDONLY | O_DIRECTORY);

	if (probe < 0) {
		if (errno == ENOSYS)
			fprintf(stderr, "sehttpd: this kernel lacks openat2 "
					"(Linux 5.6 or later is needed)\n");
		else
			cannot_serve(dir, vhost,
				     errno == EACCES && dropped ? user : NULL,
				     errno);
		return -1;
	}
	close(probe);
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

/* Whether fd is the file standard output is (/dev/stdout, say). */
static bool is_stdout(int fd)
{
	struct stat a, b;

	return !fstat(fd, &a) && !fstat(STDOUT_FILENO, &b) &&
	       a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

static int open_access_log(struct server *s, const char *path, const char *user)
{
	bool created;

	if (!path)
		return 0;
	s->access_log = true;
	if (!strcmp(path, "-")) {
		s->access_log_fd = STDOUT_FILENO;
		s->notices = stderr;
		return 0;
	}
	created = access(path, F_OK) != 0;
	s->access_log_fd = open_log_file(path, 0);
	if (s->access_log_fd < 0)
		return -1;
	privileges_hand_over(s->access_log_fd, created, path, user);
	if (is_stdout(s->access_log_fd))
		s->notices = stderr;
	return 0;
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
 * worker's epoll, eventfd and copies of the roots, room for the files the
 * content caches keep open (worker.c takes a half of it for those) and the
 * HTTP/2 streams' pool (stream_fds_max).  A connection takes two: its
 * socket and the file it sends, its own with the cache off, over HTTP/2
 * its first stream's duplicate, or a cached one that a new version of the
 * file put out of the cache while it was sent.
 */
static unsigned connection_limit(const struct server *s)
{
	int lowest = fcntl(0, F_DUPFD_CLOEXEC, 0);
	unsigned reserve, files = s->max_fds / 8 > 16 ? s->max_fds / 8 : 16;

	if (lowest >= 0)
		close(lowest);
	reserve = (lowest > 0 ? (unsigned)lowest : 3) +
		  (3 + s->nvhosts) * s->nworkers + files + s->stream_fds_max;
	return s->max_fds > reserve + 3 ? (s->max_fds - reserve) / 2 : 1;
}

/* --max-connections, lowered to what the descriptors allow. */
static unsigned max_connections(const struct sehttpd *d)
{
	unsigned most = connection_limit(&d->server);
	unsigned want = d->opt->max_connections;

	if (!want)
		return most;
	if (want > most) {
		fprintf(stderr,
			"sehttpd: --max-connections %u: %u descriptors "
			"(ulimit -n) leave room for %u connections; "
			"serving at most %u\n",
			want, d->server.max_fds, most, most);
		return most;
	}
	return want;
}

/*
 * Starts the workers in turn; returns how many are running.  Each worker
 * set up takes its row of listeners (worker_destroy closes them), whose
 * descriptors become -1 in the set.
 */
static unsigned start_workers(struct server *s, struct listen_set *set)
{
	unsigned i;

	for (i = 0; i < s->nworkers; i++) {
		struct worker *w = &s->workers[i];
		struct listener *row = listen_set_row(set, i);
		int failed = worker_init(w, s, row, set->per_worker);

		for (unsigned j = 0; j < set->per_worker; j++)
			row[j].fd = -1;
		if (failed) {
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
	if (i < s->nworkers)
		worker_destroy(&s->workers[i]);
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
			/* None given: a second signal came in the grace. */
			if (drain_ms)
				fprintf(stderr,
					"sehttpd: responses still in flight "
					"after the drain timeout are cut "
					"off\n");
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

/* A step of sehttpd_open: 0, or the exit status once it said why. */
typedef int open_step(struct sehttpd *d);

/* path, made absolute from the working directory, in a new string. */
static char *absolute_path(const char *path)
{
	char cwd[PATH_MAX], *out;

	if (path[0] == '/')
		return strdup(path);
	if (!getcwd(cwd, sizeof(cwd)) || asprintf(&out, "%s/%s", cwd, path) < 0)
		return NULL;
	return out;
}

/*
 * The paths the roots were opened by, for the threads to look up again (a
 * link swapped to a new release), and what was announced of each.
 */
static int keep_root_paths(struct sehttpd *d)
{
	struct stat st;

	d->root_paths = calloc(d->nroots, sizeof(*d->root_paths));
	d->root_announced = calloc(d->nroots, sizeof(*d->root_announced));
	if (!d->root_paths || !d->root_announced)
		return report("out of memory", -1);
	for (unsigned i = 0; i < d->nroots; i++) {
		d->root_paths[i] =
			absolute_path(i ? d->vhosts.dirs[i - 1] : d->opt->root);
		if (!d->root_paths[i])
			return report("cannot make ROOT's path absolute", -1);
		if (fstat(d->roots[i].fd, &st) == 0)
			atomic_init(&d->root_announced[i],
				    (unsigned long)st.st_ino);
	}
	d->server.root_paths = (const char *const *)d->root_paths;
	d->server.root_announced = d->root_announced;
	return 0;
}

/* ROOT, then each --vhost's DIR; -1 once it said why. */
static int open_roots(struct sehttpd *d)
{
	const struct options *opt = d->opt;
	char err[256];

	if (vhosts_read(&d->vhosts, opt->vhosts, opt->nvhosts, err,
			sizeof(err)))
		return report(err, -1);
	d->roots = calloc(1 + d->vhosts.n, sizeof(*d->roots));
	if (!d->roots)
		return report("out of memory", -1);
	for (unsigned i = 0; i <= d->vhosts.n; i++)
		d->roots[i].fd = -1;
	d->nroots = 1 + d->vhosts.n;
	d->server.roots = d->roots;
	d->server.vhosts = d->vhosts.names;
	d->server.nvhosts = d->vhosts.n;
	if (open_root(&d->roots[0], opt->root, NULL))
		return -1;
	for (unsigned i = 0; i < d->vhosts.n; i++) {
		if (open_root(&d->roots[i + 1], d->vhosts.dirs[i],
			      d->vhosts.args[i]))
			return -1;
	}
	return keep_root_paths(d);
}

/* systemd's sockets, the MIME types, ROOT, the access log: bad is usage. */
static int open_inputs(struct sehttpd *d)
{
	const struct options *opt = d->opt;
	char err[256];

	d->passed = socket_activation_fds(err, sizeof(err));
	if (d->passed < 0)
		return report(err, EXIT_USAGE);
	d->mime = mime_map_build(opt->mime_types, opt->mime, opt->mime_count,
				 opt->default_type, err, sizeof(err));
	if (!d->mime)
		return report(err, EXIT_USAGE);
	d->server.mime = d->mime;
	if (open_roots(d) ||
	    open_access_log(&d->server, opt->access_log, opt->user))
		return EXIT_USAGE;
	return 0;
}

/*
 * --tls-cert, --tls-key: read now, before the switch to --user, as keys
 * are usually readable by root alone.
 */
static int open_tls(struct sehttpd *d)
{
	const struct options *opt = d->opt;
	char err[512];

	if (!opt->tls_npairs)
		return 0;
	if (tls_open(&d->tls, opt->tls_pairs, opt->tls_npairs, err,
		     sizeof(err)))
		return report(err, EXIT_USAGE);
	d->server.tls = &d->tls;
	return 0;
}

/*
 * Warns of each --auth-file a client could download: beneath ROOT or a
 * --vhost's DIR under a name that is not hidden.  A warning: it may be
 * meant, and the same path may lie under a --auth-file of its own.
 */
static void warn_served_auth_files(const struct sehttpd *d)
{
	const struct options *opt = d->opt;

	for (unsigned i = 0; i < d->auth.nrules; i++) {
		const char *path = d->auth.rules[i].path;
		char *file = realpath(path, NULL);

		for (unsigned j = 0; file && j <= d->vhosts.n; j++) {
			const char *dir = j ? d->vhosts.dirs[j - 1] : opt->root;
			char *real = realpath(dir, NULL);
			size_t n = real && strcmp(real, "/") ? strlen(real) : 0;
			const char *rest = file + n;

			if (real && !strncmp(file, real, n) && *rest == '/' &&
			    (opt->site.dotfiles ||
			     !http_path_hidden(rest, strlen(rest))))
				fprintf(stderr,
					"sehttpd: warning: --auth-file %s lies "
					"beneath %s and is served as %s: keep it "
					"outside, or give it a name starting "
					"with '.'\n",
					path, dir, rest);
			free(real);
		}
		free(file);
	}
}

/*
 * --auth-file: read now, before the switch to --user, as the TLS keys are;
 * a SIGHUP reads them again as that user.
 */
static int open_auth(struct sehttpd *d)
{
	const struct options *opt = d->opt;
	char err[512];

	if (!opt->auth_nfiles)
		return 0;
	if (auth_open(&d->auth, opt->auth_files, opt->auth_nfiles,
		      opt->auth_realm, err, sizeof(err))) {
		auth_close(&d->auth);
		return report(err, EXIT_USAGE);
	}
	d->server.auth = &d->auth;
	warn_served_auth_files(d);
	return 0;
}

/*
 * Only the main thread takes these signals, blocked before any other
 * thread starts so that none inherits them unblocked (until then, as
 * while opening a FIFO as the log, they stop it as by default).
 * Writes to closed sockets fail with EPIPE, not SIGPIPE.
 */
static int block_signals(struct sehttpd *d)
{
	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&d->signals);
	sigaddset(&d->signals, SIGINT);
	sigaddset(&d->signals, SIGTERM);
	sigaddset(&d->signals, SIGHUP);
	sigaddset(&d->signals, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &d->signals, NULL);
	return 0;
}

/* The access log's own thread, which takes its descriptor over. */
static int start_log_writer(struct sehttpd *d)
{
	struct server *s = &d->server;

	if (!s->access_log)
		return 0;
	if (log_writer_start(&access_log_writer, s->access_log_fd)) {
		perror("sehttpd: access log writer");
		return 1;
	}
	s->log_writer = &access_log_writer;
	s->access_log_fd = -1; /* the writer's now */
	return 0;
}

/* The server's settings, and its tables sized for them. */
static int size_server(struct sehttpd *d)
{
	const struct options *opt = d->opt;
	struct server *s = &d->server;
	unsigned passed = (unsigned)d->passed;

	s->timeout_ms = opt->timeout_ms;
	s->min_rate = opt->min_rate;
	s->log_json = opt->log_json;
	s->timing = opt->log_json || opt->metrics;
	s->compress = opt->compress;
	s->proxy_protocol = opt->proxy_protocol;
	s->health_path = opt->health;
	s->health_len = opt->health ? (uint32_t)strlen(opt->health) : 0;
	s->health_grace_ms = opt->health_grace_ms;
	/* Every passed socket gets a thread at least. */
	s->nworkers = opt->threads > passed ? opt->threads : passed;
	/* Each thread owns a share: hits never wait for another thread. */
	s->cache_bytes = (size_t)opt->cache_mib * 1024 * 1024 / s->nworkers;
	s->max_fds = fd_capacity();
	s->stream_fds_max = s->max_fds / 8;
	s->conns = calloc(s->max_fds, sizeof(*s->conns));
	s->workers = calloc(s->nworkers, sizeof(*s->workers));
	if (!s->conns || !s->workers) {
		fprintf(stderr, "sehttpd: out of memory\n");
		return 1;
	}
	return 0;
}

/* The workers' listeners, then the metrics one (--metrics). */
static int open_listeners(struct sehttpd *d)
{
	const char *metrics = d->opt->metrics;
	struct listen_addr a;
	uint16_t port;
	char err[256];

	if (listen_set_open(&d->listen, d->opt, (unsigned)d->passed,
			    d->server.nworkers, err, sizeof(err)))
		return report(err, EXIT_USAGE);
	d->server.https_port = d->listen.https_port;
	if (!metrics)
		return 0;
	if (metrics_addr_parse(metrics, &a, err, sizeof(err)))
		return report(err, EXIT_USAGE);
	d->metrics = metrics_open(&d->server, &a, d->metrics_where,
				  sizeof(d->metrics_where), err, sizeof(err));
	if (d->metrics)
		return 0;
	/* "In use" by this server itself says more as that. */
	port = listen_addr_port(&a);
	if (port && listen_set_has_tcp_port(&d->listen, port))
		snprintf(err, sizeof(err),
			 "--metrics %s: port %u is where this server serves "
			 "its site; the metrics need a port of their own",
			 metrics, (unsigned)port);
	return report(err, EXIT_USAGE);
}

/*
 * Bound: root is no longer needed for anything.  ROOT and the site's pages
 * are checked after the switch, as requests will open them.
 */
static int serve_as_user(struct sehttpd *d)
{
	const struct options *opt = d->opt;
	bool was_root = geteuid() == 0;
	char err[256];

	bool dropped = was_root && strcmp(opt->user, "root");

	if (privileges_drop(opt->user, opt->user_given, err, sizeof(err)))
		return report(err, EXIT_USAGE);
	for (unsigned i = 0; i < d->nroots; i++) {
		if (probe_root(&d->roots[i],
			       i ? d->vhosts.dirs[i - 1] : opt->root,
			       i ? d->vhosts.args[i - 1] : NULL, dropped,
			       opt->user))
			return EXIT_USAGE;
	}
	if (!realpath(opt->root, d->real_root))
		snprintf(d->real_root, sizeof(d->real_root), "%s", opt->root);
	return open_site(d) ? EXIT_USAGE : 0;
}

/* The threads that check passwords: as many as workers, up to a few. */
static int start_auth_checkers(struct sehttpd *d)
{
	unsigned n = d->server.nworkers;

	if (!d->server.auth)
		return 0;
	d->checking = true;
	if (auth_checkers_start(n < AUTH_CHECKERS_MAX ? n :
							AUTH_CHECKERS_MAX)) {
		fprintf(stderr, "sehttpd: cannot start the password "
				"checkers\n");
		return 1;
	}
	return 0;
}

/* Lets the access log's thread write what it holds, within LOG_DRAIN_MS. */
static void stop_log_writer(struct server *s)
{
	uint64_t dropped;

	if (!s->log_writer)
		return;
	dropped = log_writer_stop(s->log_writer, LOG_DRAIN_MS);
	if (dropped)
		fprintf(stderr,
			"sehttpd: %" PRIu64 " access log lines dropped "
			"(the log did not keep up)\n",
			dropped);
}

/* Releases what sehttpd_open took, however far it got. */
static void sehttpd_close(struct sehttpd *d)
{
	struct server *s = &d->server;

	metrics_stop(d->metrics);
	if (d->checking)
		auth_checkers_stop();
	listen_set_close(&d->listen);
	free(s->workers);
	free(s->conns);
	mime_map_free(d->mime);
	for (unsigned i = 0; i < d->nroots; i++) {
		beneath_root_close(&d->roots[i]);
		if (d->root_paths)
			free(d->root_paths[i]);
	}
	free(d->roots);
	free(d->root_paths);
	free(d->root_announced);
	/* Not taken over: the log writer did not start. */
	if (s->access_log_fd > STDOUT_FILENO)
		close(s->access_log_fd);
	site_free(&d->site);
	if (s->tls)
		tls_close(s->tls);
	if (s->auth)
		auth_close(s->auth);
	stop_log_writer(s);
}

/*
 * Takes everything serving needs, in this order; returns 0, or the exit
 * status once it said why and released what it took.
 */
static int sehttpd_open(struct sehttpd *d, const struct options *opt)
{
	static open_step *const steps[] = {
		open_inputs,	open_tls,	  open_auth,
		block_signals,	start_log_writer, size_server,
		open_listeners, serve_as_user,	  start_auth_checkers,
	};

	memset(d, 0, sizeof(*d));
	d->opt = opt;
	d->server.access_log_fd = -1;
	d->server.notices = stdout;
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		int status = steps[i](d);

		if (status) {
			sehttpd_close(d);
			return status;
		}
	}
	return 0;
}

/* "https://..." for "http://..." with TLS. */
static void url_of(const struct sehttpd *d, const struct listen_addr *a,
		   char *where, size_t len)
{
	listen_addr_url(a, where, len);
	if (d->server.tls && !strncmp(where, "http://", 7))
		memmove(where + 5, where + 4, strlen(where + 4) + 1),
			where[4] = 's';
}

/* A line per address it listens on, then the metrics thread's. */
static void announce(struct sehttpd *d)
{
	struct server *s = &d->server;
	char where[LISTEN_URL_STRLEN];

	url_of(d, &d->listen.addrs[0], where, sizeof(where));
	fprintf(s->notices,
		"sehttpd: listening on %s (root %s, %u thread%s%s)\n", where,
		d->real_root, s->nworkers, s->nworkers == 1 ? "" : "s",
		d->passed > 1 ? ", and on further passed sockets" :
		d->passed     ? ", a passed socket" :
				"");
	for (unsigned i = 1; i < d->listen.naddrs; i++) {
		url_of(d, &d->listen.addrs[i], where, sizeof(where));
		fprintf(s->notices, "sehttpd: listening on %s\n", where);
	}
	for (unsigned i = 0; i < d->listen.nredirects; i++) {
		listen_addr_url(&d->listen.redirects[i], where, sizeof(where));
		fprintf(s->notices,
			"sehttpd: listening on %s (redirects to https, port %u)\n",
			where, d->listen.https_port);
	}
	if (d->metrics && metrics_start(d->metrics))
		fprintf(stderr, "sehttpd: cannot start the metrics thread\n");
	else if (d->metrics)
		fprintf(s->notices, "sehttpd: metrics on http://%s/metrics\n",
			d->metrics_where);
	fflush(s->notices);
}

/*
 * Serves until SIGINT or SIGTERM, reopening the access log at SIGUSR1 or
 * SIGHUP (which also reloads the TLS certificates and the password files);
 * with --health, then fails health checks for the grace.  True when a
 * second stop signal came meanwhile: no drain then.
 */
static bool serve_until_stop(struct sehttpd *d)
{
	for (;;) {
		int sig = wait_for_signal(&d->signals);

		if (sig == SIGINT || sig == SIGTERM)
			break;
		reopen_access_log(&d->server, d->opt->access_log);
		if (sig == SIGHUP && d->server.tls)
			tls_reload(d->server.tls);
		if (sig == SIGHUP && d->server.auth)
			auth_reload(d->server.auth);
	}
	if (!d->server.health_len)
		return false;
	health_begin_drain(&d->server);
	return wait_stop_signal(&d->signals, d->server.health_grace_ms);
}

/* Starts the workers, serves, and stops them: 0 after a stop signal. */
static int sehttpd_run(struct sehttpd *d)
{
	struct server *s = &d->server;
	unsigned running;
	bool stop_now = false;
	int status = 1; /* not every thread started */

	s->max_conns = max_connections(d);
	running = start_workers(s, &d->listen);
	if (running == s->nworkers) {
		/* Each thread has copies of its own, which follow the paths:
		 * these would hold a tree swapped away open. */
		for (unsigned i = 0; i < d->nroots; i++) {
			close(d->roots[i].fd);
			d->roots[i].fd = -1;
		}
		announce(d);
		stop_now = serve_until_stop(d);
		status = 0;
	}
	if (stop_now)
		fprintf(stderr, "sehttpd: second signal: stopping now\n");
	drain_workers(s, running, &d->signals, stop_now ? 0 : d->opt->drain_ms);
	for (unsigned i = 0; i < running; i++)
		pthread_join(s->workers[i].thread, NULL);
	/* Before the workers' inboxes go: no checker posts to them then. */
	if (d->checking) {
		auth_checkers_stop();
		d->checking = false;
	}
	for (unsigned i = 0; i < running; i++)
		worker_destroy(&s->workers[i]);
	return status;
}

int main(int argc, char **argv)
{
	struct options opt;
	struct sehttpd d;
	int status;

	/*
	 * Blocks of 256 KiB and more (a zstd coder's tables: 13 MiB at level
	 * 9; brotli's) are mapped for each response and unmapped after it.
	 * glibc would otherwise raise this threshold to the largest block
	 * freed, and from then on keep such tables in the heap of each thread
	 * that coded twice: memory never given back.
	 */
	mallopt(M_MMAP_THRESHOLD, MAIN_MMAP_THRESHOLD);
	switch (options_parse(&opt, argc, argv)) {
	case OPTIONS_EXIT_OK:
		return 0;
	case OPTIONS_EXIT_USAGE:
		return EXIT_USAGE;
	case OPTIONS_RUN:
		break;
	}
	status = sehttpd_open(&d, &opt);
	if (status)
		return status;
	status = sehttpd_run(&d);
	sehttpd_close(&d);
	return status;
}
