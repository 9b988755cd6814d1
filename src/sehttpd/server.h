/* SPDX-License-Identifier: MIT */
/*
 * The shapes shared by the event layer: the server (configuration, read-only
 * once threads start), one worker per thread, and one conn per accepted
 * socket, kept in a table indexed by file descriptor.  An entry belongs to
 * the worker that accepted its descriptor until that worker closes it; no
 * other thread reads or writes it meanwhile.
 */
#ifndef SEHTTPD_SERVER_H
#define SEHTTPD_SERVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <sys/socket.h>

#include "access_log.h"
#include "auth_checkers.h"
#include "date_cache.h"
#include "h2_stream.h"
#include "list.h"
#include "listener.h"
#include "stats.h"
#include "timer_wheel.h"
#include "worker_roots.h"

struct auth;
struct auth_cache;
struct coro;
struct coro_pool;
struct content_cache;
struct compressor;
struct mime_map;
struct site;
struct ssl_st;
struct tls;
struct h2_conn;
struct beneath_root;
struct http_vhost;

/* A coroutine yields this instead of epoll events to run again soon. */
#define CONN_YIELD_TURN 0
/*
 * ... or this to wait for another thread's result (an auth check), which
 * the worker's inbox reports: a bit epoll never reports for a socket.
 */
#define CONN_WAIT_WAKE (1 << 28)

/* A worker's listeners at most: each -b address and its --http-redirect. */
#define WORKER_LISTENERS_MAX (2 * LISTEN_ADDRS_MAX)

struct server {
	/* Where requests are served from: roots[0] is ROOT, roots[i + 1] the
	 * DIR of vhosts[i] (--vhost); a root's index is in its cache keys.
	 * Closed once each thread has its own (worker.roots). */
	const struct beneath_root *roots;
	/* The paths they were opened by, made absolute: each thread looks
	 * them up again (worker_roots.h). */
	const char *const *root_paths;
	/* Per root, the directory last announced on notices (its inode): a
	 * swap is told once, whichever thread sees it first. */
	atomic_ulong *root_announced;
	const struct http_vhost *vhosts;
	unsigned nvhosts;
	uint32_t timeout_ms;
	uint32_t min_rate; /* bytes/s a transfer must average; 0: any */
	bool compress;
	size_t cache_bytes; /* per thread */
	bool access_log;
	bool log_json; /* --log-format json */
	/* Requests are timed (JSON log, metrics): two clock readings each. */
	bool timing;
	int access_log_fd; /* until the log writer takes it over */
	/* Where "listening on..." and the like go: stdout, unless the access
	 * log does (a pipe to jq must get log lines only). */
	FILE *notices;
	struct log_writer *log_writer;
	unsigned nworkers;
	struct worker *workers;
	struct conn *conns; /* indexed by fd */
	unsigned max_fds;
	/* Beyond max_conns open connections a new one is closed at once:
	 * --max-connections, at most what descriptors allow with a reserve
	 * left for opening files. */
	unsigned max_conns;
	atomic_uint open_conns;
	/*
	 * Descriptors HTTP/2 streams hold beyond one per connection (a
	 * stream answered from a file keeps a duplicate until its last
	 * frame): a few connections of 16 shut windows each took them all,
	 * and everyone else waited for accept or got 503.
	 */
	unsigned stream_fds_max;
	atomic_uint stream_fds;
	/* When a refusal was last reported (ms, clock_ms); 0: never. */
	_Atomic uint64_t refusal_reported_ms;
	bool proxy_protocol; /* a PROXY header precedes the first request */
	const char *health_path; /* --health; health_len 0 when off */
	uint32_t health_len;
	uint32_t health_grace_ms;
	atomic_bool draining; /* stopping soon: health checks fail */
	const struct site *site; /* headers, index names, error pages... */
	const struct mime_map *mime; /* NULL: the core's table */
	struct tls *tls; /* NULL: cleartext; else every connection is TLS */
	/* --http-redirect: cleartext requests get a 308 to https:// and
	 * this port (0: the scheme's default, 443). */
	uint16_t https_port;
	struct auth *auth; /* --auth-file; NULL: every path is public */
};

struct worker {
	struct server *server;
	pthread_t thread;
	int epoll_fd;
	/* Where it accepts; a closed one (once stopping) has fd -1. */
	struct listener listeners[WORKER_LISTENERS_MAX];
	unsigned nlisteners;
	int stop_fd; /* eventfd: the main thread asks for shutdown */
	atomic_bool force_stop; /* ... and then to cut off what is left */
	atomic_bool finished; /* worker_run has returned */
	bool stopping;
	bool accept_paused;
	uint64_t now_ms;
	/* epoll_wait's returns so far (1 while the first one's events are
	 * handled): a request that arrives after a change to a file is read
	 * after a later one (respond_file.c). */
	uint64_t polls;
	unsigned active; /* open connections */
	struct list_head conns; /* this thread's open connections */
	/* Connections that yielded a turn: run again after the next poll. */
	struct list_head turns;
	struct timer_wheel wheel;
	struct timer accept_timer; /* resumes accepting after EMFILE */
	struct timer pool_timer; /* trims the coroutine pool after a burst */
	struct timer roots_timer; /* looks the roots up again */
	struct coro_pool *pool;
	struct content_cache *cache;
	struct worker_roots roots; /* this thread's, of server->roots */
	struct compressor *compressor;
	/* Bodies being compressed as they are sent (respond_coded.c). */
	unsigned coded_streams;
	struct h2_stream_pool h2_streams; /* HTTP/2 streams for reuse */
	struct date_cache date;
	struct access_log_buffer log;
	struct worker_stats stats; /* written by this thread only */
	/* With --auth-file: checks coming back, and those that passed. */
	struct auth_inbox auth_inbox;
	struct auth_cache *auth_cache;
};

struct conn {
	int fd;
	bool open;
	bool timed_out; /* the timer fired while the coroutine waited */
	bool close_after; /* the coroutine decided to close */
	bool maybe_more; /* the last read filled the buffer: read again */
	bool turn; /* on worker->turns, to run again after the next poll */
	bool registered; /* in the worker's epoll set */
	uint32_t wait_events; /* what the suspended coroutine waits for */
	struct worker *worker;
	struct coro *coro; /* NULL while idle between requests */
	struct list_head link; /* in worker->conns */
	struct list_head turn_link; /* in worker->turns while turn */
	struct timer timer;
	struct client_addr peer; /* for the access log */
	uint64_t bytes_sent; /* so far, for the access log */
	/*
	 * The transfer under way, a response or a request body skipped, for
	 * its deadline (conn_io.h): when it began and last made progress,
	 * bytes_sent when it began and at the last look, and its bytes so
	 * far (acknowledged by the client, or skipped).
	 */
	uint64_t xfer_start_ms;
	uint64_t xfer_last_ms;
	uint64_t xfer_base;
	uint64_t xfer_sent;
	uint64_t xfer_bytes;
	bool proxy_pending; /* its PROXY header has yet to be read */
	bool redirect; /* on --http-redirect's port: 308 to https:// */
	bool tcp; /* a TCP connection (not a Unix socket's): TCP options */
	/* TLS (conn_tls.h): the session, the bytes in the stage, and how
	 * it went: handshake done, a fatal error, kTLS for sending. */
	struct ssl_st *ssl;
	size_t tls_staged;
	bool tls_ready;
	bool tls_failed;
	bool tls_ktls;
	bool tls_plain_head; /* plain HTTP to the TLS port, and a HEAD */
	/* HTTP/2 (h2.h): its session, kept while the connection idles. */
	struct h2_conn *h2;
	bool spoke_http1; /* answered an HTTP/1 request: no preface now */
	/* Woken only to end: GOAWAY (HTTP/2), then lingering (conn_io.h). */
	bool ending;
};

/*
 * Sets w up, taking the listeners of ls[0..n) whose fd is not -1 (closed
 * by worker_destroy() from then on, even when it fails).
 */
int worker_init(struct worker *w, struct server *s, const struct listener *ls,
		unsigned n);
void *worker_run(void *arg);
/* Asks the worker to stop accepting and drain; safe from another thread. */
void worker_request_stop(struct worker *w);
/* Then to cut off the responses still in flight; also safe. */
void worker_force_stop(struct worker *w);
void worker_destroy(struct worker *w);

/* The coroutine body serving one connection (conn.c). */
void http_conn_serve(struct coro *coro, void *data);

#endif /* SEHTTPD_SERVER_H */
