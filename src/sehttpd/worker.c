// SPDX-License-Identifier: MIT
/*
 * One event loop per thread: its own listeners (an SO_REUSEPORT socket per
 * TCP address, a share of each Unix socket), epoll instance, timing wheel
 * and coroutine pool.  Sockets are registered once, edge-
 * triggered for both directions; an event resumes a connection's coroutine
 * only when it is what the coroutine waits for, so no epoll_ctl is needed
 * per request.  A connection is registered only once it outlives its first
 * turn: one answered and closed at once never costs an epoll_ctl.  An idle
 * connection has no coroutine: one is taken from the pool when a request
 * starts arriving and returned when the reply is sent.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include "auth_cache.h"
#include "clock_ms.h"
#include "compress.h"
#include "cache.h"
#include "coro.h"
#include "conn.h"
#include "conn_io.h"
#include "conn_tls.h"
#include "h2.h"
#include "server.h"
#include "tcp_congestion.h"
#include "tls.h"

#define MAX_EVENTS 256
#define CORO_STACK_SIZE (128 * 1024)
#define CORO_POOL_KEEP 64
/*
 * Blocks a quiet thread keeps; those beyond, unused for a whole
 * CORO_TRIM_MS, are unmapped (with the stack and buffer pages a burst
 * touched, up to 64 blocks of some 200 KiB each).
 */
#define CORO_POOL_QUIET 8
#define CORO_TRIM_MS 10000
#define ACCEPT_PAUSE_MS 100
/* Connections refused over --max-connections: told at most once a minute. */
#define REFUSAL_REPORT_MS 60000
/* On a drain, how long a connection not yet answered may take to ask. */
#define DRAIN_FIRST_REQUEST_MS 1000
/* The descriptors cached files may keep open, as a part of all: half of
 * what connection_limit() leaves for files. */
#define CACHE_FDS_PART 16

/*
 * An event's data: a descriptor (a connection's, the stop eventfd), or
 * this bit and the index of a listener in worker->listeners.
 */
#define LISTENER_EVENT (1ull << 32)

static int watch(struct worker *w, int fd)
{
	struct epoll_event ev = { .events = EPOLLIN | EPOLLET };

	ev.data.u64 = (uint64_t)fd;
	return epoll_ctl(w->epoll_fd, EPOLL_CTL_ADD, fd, &ev);
}

/*
 * Edge-triggered, as every socket here: accept until EAGAIN.  A socket
 * several workers share (a Unix socket, which SO_REUSEPORT does not
 * spread) wakes one waiting worker per connection (EPOLLEXCLUSIVE), not
 * all of them to race for it; a worker busy meanwhile still finds it
 * ready.  Accepting on one thread and handing connections over would
 * cost a queue and a wakeup per connection instead.
 */
static int watch_listener(struct worker *w, unsigned i)
{
	const struct listener *l = &w->listeners[i];
	struct epoll_event ev = {
		.events = EPOLLIN | EPOLLET | (l->shared ? EPOLLEXCLUSIVE : 0),
	};

	ev.data.u64 = LISTENER_EVENT | i;
	return epoll_ctl(w->epoll_fd, EPOLL_CTL_ADD, l->fd, &ev);
}

int worker_init(struct worker *w, struct server *s, const struct listener *ls,
		unsigned n)
{
	size_t extra = HTTP_CONN_EXTRA + (s->tls ? CONN_TLS_STAGE : 0);

	memset(w, 0, sizeof(*w));
	w->auth_inbox.fd = -1;
	w->server = s;
	for (unsigned i = 0; i < n; i++) {
		if (ls[i].fd >= 0 && w->nlisteners < WORKER_LISTENERS_MAX)
			w->listeners[w->nlisteners++] = ls[i];
		else if (ls[i].fd >= 0)
			close(ls[i].fd);
	}
	w->now_ms = clock_ms();
	timer_wheel_init(&w->wheel, w->now_ms);
	timer_init(&w->accept_timer);
	timer_init(&w->pool_timer);
	timer_init(&w->roots_timer);
	INIT_LIST_HEAD(&w->conns);
	INIT_LIST_HEAD(&w->turns);
	h2_stream_pool_init(&w->h2_streams);
	date_cache_update(&w->date);

	w->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
	w->stop_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	w->pool = coro_pool_new(CORO_STACK_SIZE, extra, CORO_POOL_KEEP);
	w->cache = content_cache_new(s->cache_bytes);
	if (w->cache)
		content_cache_set_fd_limit(
			w->cache, s->max_fds / CACHE_FDS_PART / s->nworkers);
	w->compressor = s->compress ? compressor_new() : NULL;
	if (w->epoll_fd < 0 || w->stop_fd < 0 || !w->pool || !w->cache ||
	    (s->compress && !w->compressor) || worker_roots_init(&w->roots, s))
		return -1;
	timer_wheel_add(&w->wheel, &w->roots_timer,
			w->now_ms + WORKER_ROOT_CHECK_MS);
	for (unsigned i = 0; i < w->nlisteners; i++) {
		if (watch_listener(w, i))
			return -1;
	}
	if (s->auth &&
	    (auth_inbox_init(&w->auth_inbox) || watch(w, w->auth_inbox.fd) ||
	     !(w->auth_cache = auth_cache_new())))
		return -1;
	return watch(w, w->stop_fd);
}

void worker_destroy(struct worker *w)
{
	h2_stream_pool_drain(&w->h2_streams);
	auth_inbox_destroy(&w->auth_inbox);
	auth_cache_free(w->auth_cache);
	content_cache_free(w->cache);
	worker_roots_free(&w->roots);
	compressor_free(w->compressor);
	if (w->pool)
		coro_pool_free(w->pool);
	if (w->epoll_fd >= 0)
		close(w->epoll_fd);
	if (w->stop_fd >= 0)
		close(w->stop_fd);
	for (unsigned i = 0; i < w->nlisteners; i++) {
		if (w->listeners[i].fd >= 0)
			close(w->listeners[i].fd);
	}
}

void worker_request_stop(struct worker *w)
{
	uint64_t one = 1;

	if (write(w->stop_fd, &one, sizeof(one)) < 0)
		perror("sehttpd: eventfd");
}

void worker_force_stop(struct worker *w)
{
	atomic_store(&w->force_stop, true);
	worker_request_stop(w); /* every write is a new edge */
}

static void conn_list_add(struct worker *w, struct conn *c)
{
	list_add(&c->link, &w->conns);
	INIT_LIST_HEAD(&c->turn_link);
	c->turn = false;
	w->active++;
}

static void conn_list_del(struct worker *w, struct conn *c)
{
	list_del(&c->link);
	w->active--;
}

/* While more blocks are kept than a quiet thread needs, trims are due. */
static void pool_trim_arm(struct worker *w)
{
	if (!timer_pending(&w->pool_timer) &&
	    coro_pool_free_count(w->pool) > CORO_POOL_QUIET)
		timer_wheel_add(&w->wheel, &w->pool_timer,
				w->now_ms + CORO_TRIM_MS);
}

static void coro_done(struct worker *w, struct conn *c)
{
	coro_release(c->coro);
	c->coro = NULL;
	pool_trim_arm(w);
}

static void conn_close(struct worker *w, struct conn *c)
{
	int fd = c->fd;

	if (c->coro)
		coro_done(w, c);
	timer_wheel_del(&w->wheel, &c->timer);
	list_del_init(&c->turn_link);
	conn_list_del(w, c);
	atomic_fetch_sub_explicit(&w->server->open_conns, 1,
				  memory_order_relaxed);
	c->open = false;
	if (c->h2)
		h2_conn_end(c);
	if (c->ssl)
		conn_tls_end(c);
	/*
	 * Last: once the descriptor is closed another thread may accept a
	 * connection with the same number and take over this table entry.
	 */
	close(fd); /* also drops it from the epoll set */
}

/*
 * Adds c to the epoll set before it first waits.  Edge-triggered, yet
 * nothing is missed: adding reports the readiness the socket has already.
 */
static int conn_register(struct worker *w, struct conn *c)
{
	struct epoll_event ev = { .events = EPOLLIN | EPOLLOUT | EPOLLET };

	if (c->registered)
		return 0;
	ev.data.u64 = (uint64_t)c->fd;
	if (epoll_ctl(w->epoll_fd, EPOLL_CTL_ADD, c->fd, &ev))
		return -1;
	c->registered = true;
	return 0;
}

/* After the next poll (which does not wait), not in this pass. */
static void conn_take_turn(struct worker *w, struct conn *c)
{
	c->turn = true;
	list_add_tail(&c->turn_link, &w->turns);
}

static void conn_start(struct worker *w, struct conn *c);

/*
 * Closes an idle connection that has answered something (drain, timeout).
 * While the client has not acknowledged all it was sent, it may still be
 * sending (HTTP/2 WINDOW_UPDATEs as it reads, a pipelined request), and
 * those bytes reaching a closed socket draw a reset that throws the rest
 * away: such a connection is woken to end gracefully instead.
 */
static void conn_end_idle(struct worker *w, struct conn *c)
{
	if (!c->ending && conn_needs_linger(c)) {
		c->ending = true;
		conn_start(w, c);
		return;
	}
	conn_close(w, c);
}

/*
 * An idle connection in the drain, at its start or when its coroutine
 * finishes.  One not yet answered may have its first request on the way,
 * which a client does not send again (as it does the next one on a kept
 * connection): it has DRAIN_FIRST_REQUEST_MS for it to arrive, even when
 * it went idle between a TLS handshake's steps or after its PROXY header.
 */
static void conn_idle_in_drain(struct worker *w, struct conn *c)
{
	if (c->spoke_http1 || c->h2) {
		conn_end_idle(w, c);
		return;
	}
	timer_wheel_del(&w->wheel, &c->timer);
	timer_wheel_add(&w->wheel, &c->timer,
			w->now_ms + DRAIN_FIRST_REQUEST_MS);
}

static void conn_resume(struct worker *w, struct conn *c)
{
	int r = coro_resume(c->coro);

	if (r == CORO_FINISHED) {
		coro_done(w, c);
		if (c->close_after || conn_register(w, c))
			conn_close(w, c);
		else if (w->stopping)
			conn_idle_in_drain(w, c);
		else if (!timer_pending(&c->timer)) /* idle needs a deadline */
			timer_wheel_add(&w->wheel, &c->timer,
					w->now_ms + w->server->timeout_ms);
		return;
	}
	c->wait_events = (uint32_t)r;
	if (conn_register(w, c)) {
		/* Its pending I/O fails; it unwinds and closes. */
		c->timed_out = true;
		conn_take_turn(w, c);
		return;
	}
	if (r == CONN_YIELD_TURN)
		conn_take_turn(w, c);
}

/* The connections that yielded, each once, in the order they did. */
static void run_turns(struct worker *w)
{
	struct list_head ready;

	/* Those that yield again now wait for the next pass. */
	INIT_LIST_HEAD(&ready);
	list_splice_init(&w->turns, &ready);
	while (!list_empty(&ready)) {
		struct conn *c =
			list_first_entry(&ready, struct conn, turn_link);

		list_del_init(&c->turn_link);
		c->turn = false;
		conn_resume(w, c);
	}
}

static void conn_start(struct worker *w, struct conn *c)
{
	c->coro = coro_new(w->pool, http_conn_serve, c);
	if (!c->coro) {
		conn_close(w, c); /* out of memory: shed this client only */
		return;
	}
	c->timed_out = false;
	c->close_after = false;
	conn_resume(w, c);
}

static void on_conn_timer(struct worker *w, struct conn *c)
{
	if (c->turn) {
		/* A deadline passed while it waits for its turn. */
		c->timed_out = true;
	} else if (c->coro) {
		c->timed_out = true; /* its pending I/O fails; it unwinds */
		conn_resume(w, c);
	} else if (c->spoke_http1 || c->h2) {
		conn_end_idle(w, c);
	} else {
		conn_close(w, c);
	}
}

/*
 * Out of the epoll set while paused, not modified to wait for nothing:
 * EPOLLEXCLUSIVE registrations cannot be modified.  Adding one back
 * reports a backlog that waited meanwhile.
 */
static void set_accepting(struct worker *w, bool on)
{
	if (on == !w->accept_paused)
		return;
	for (unsigned i = 0; i < w->nlisteners; i++) {
		if (w->listeners[i].fd < 0)
			continue;
		if (on)
			watch_listener(w, i);
		else
			epoll_ctl(w->epoll_fd, EPOLL_CTL_DEL,
				  w->listeners[i].fd, NULL);
	}
	w->accept_paused = !on;
}

static void pause_accepting(struct worker *w)
{
	set_accepting(w, false);
	timer_wheel_add(&w->wheel, &w->accept_timer,
			w->now_ms + ACCEPT_PAUSE_MS);
}

/* A new connection's socket: TLS on the TLS listener, none on the other. */
static int conn_transport(struct worker *w, struct conn *c,
			  const struct listener *l)
{
	struct server *s = w->server;

	c->redirect = l->redirect;
	c->tcp = l->tcp;
	if (!s->tls || l->redirect)
		return 0;
	c->ssl = tls_session_new(s->tls, c->fd);
	return c->ssl ? 0 : -1;
}

/* A refusal, counted; the first of a minute is also told on stderr. */
static void refuse_connection(struct worker *w, int fd)
{
	struct server *s = w->server;
	uint64_t last = atomic_load_explicit(&s->refusal_reported_ms,
					     memory_order_relaxed);

	/*
	 * Counted and told before the close: the client that sees it may
	 * scrape the metrics or read the log at once.
	 */
	stats_add(&w->stats.refused, 1);
	if ((!last || w->now_ms - last >= REFUSAL_REPORT_MS) &&
	    atomic_compare_exchange_strong(&s->refusal_reported_ms, &last,
					   w->now_ms ?: 1))
		fprintf(stderr,
			"sehttpd: %u connections open (--max-connections): "
			"new ones are closed at once\n",
			s->max_conns);
	close(fd);
}

static void accept_all(struct worker *w, const struct listener *l)
{
	struct server *s = w->server;

	while (!w->stopping) {
		struct sockaddr_storage ss;
		socklen_t sl = sizeof(ss);
		struct conn *c;
		int fd;

		fd = accept4(l->fd, (struct sockaddr *)&ss, &sl,
			     SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			if (errno == EMFILE || errno == ENFILE ||
			    errno == ENOBUFS || errno == ENOMEM) {
				/*
				 * Out of descriptors: leave the clients in
				 * the backlog and look again shortly, rather
				 * than spin on a listener that stays ready.
				 */
				pause_accepting(w);
			}
			return;
		}
		if ((unsigned)fd >= s->max_fds) {
			close(fd);
			continue;
		}
		if (atomic_load_explicit(&s->open_conns,
					 memory_order_relaxed) >=
		    s->max_conns) {
			refuse_connection(w, fd);
			continue;
		}
		if (tcp_congestion_per_peer(&l->congestion))
			tcp_congestion_accepted(fd, (struct sockaddr *)&ss,
						&l->congestion);
		c = &s->conns[fd];
		*c = (struct conn){ .fd = fd, .open = true, .worker = w };
		if (conn_transport(w, c, l)) {
			c->open = false;
			close(fd); /* out of memory: shed this client only */
			continue;
		}
		timer_init(&c->timer);
		if (s->access_log)
			client_addr_set(&c->peer, (struct sockaddr *)&ss);
		c->proxy_pending = s->proxy_protocol;
		conn_list_add(w, c);
		stats_add(&w->stats.accepted, 1);
		atomic_fetch_add_explicit(&s->open_conns, 1,
					  memory_order_relaxed);
		timer_wheel_add(&w->wheel, &c->timer,
				w->now_ms + s->timeout_ms);
		/* The request has usually arrived with the handshake. */
		conn_start(w, c);
	}
}

static void begin_stop(struct worker *w)
{
	struct conn *c, *next;

	w->stopping = true;
	for (unsigned i = 0; i < w->nlisteners; i++) {
		struct listener *l = &w->listeners[i];

		if (l->fd < 0)
			continue;
		/* A duplicate's registration outlives its close: remove it. */
		epoll_ctl(w->epoll_fd, EPOLL_CTL_DEL, l->fd, NULL);
		close(l->fd);
		l->fd = -1;
	}
	timer_wheel_del(&w->wheel, &w->accept_timer);
	/* Idle connections end now; busy ones finish their reply first. */
	list_for_each_entry_safe(c, next, &w->conns, link) {
		if (!c->coro)
			conn_idle_in_drain(w, c);
	}
	/*
	 * Every busy connection has its own timer, which a reply that keeps
	 * making progress keeps pushing back, and which cuts off one that
	 * stalls; the main thread bounds the whole drain (cut_off_all).
	 */
}

static void force_close_all(struct worker *w)
{
	while (!list_empty(&w->conns))
		conn_close(w, list_first_entry(&w->conns, struct conn, link));
}

/*
 * The drain is over: each busy connection fails its pending I/O as on a
 * timeout, so that it unwinds and logs what it sent, then closes.
 */
static void cut_off_all(struct worker *w)
{
	struct conn *c, *next;

	list_for_each_entry_safe(c, next, &w->conns, link) {
		if (c->coro) {
			c->timed_out = true;
			c->turn = false;
			list_del_init(&c->turn_link);
			conn_resume(w, c);
		}
	}
	force_close_all(w); /* any that did not finish */
}

/*
 * Checks back from the checkers: each waiting coroutine goes on; a check
 * whose request gave up (its connection closed meanwhile) is freed.
 */
static void auth_checks_back(struct worker *w)
{
	struct auth_check *job = auth_inbox_take(&w->auth_inbox), *next;

	for (; job; job = next) {
		struct conn *c = job->waiter;

		next = job->next;
		job->done = true;
		if (!c)
			auth_check_free(job);
		else if (c->coro && c->wait_events == CONN_WAIT_WAKE &&
			 !c->turn)
			conn_resume(w, c);
	}
}

static void handle_event(struct worker *w, const struct epoll_event *ev)
{
	struct server *s = w->server;
	int fd = (int)ev->data.u64;
	struct conn *c;

	if (ev->data.u64 & LISTENER_EVENT) {
		uint32_t i = (uint32_t)ev->data.u64;

		/* Closed by begin_stop() earlier in this batch: nothing. */
		if (i < w->nlisteners && w->listeners[i].fd >= 0)
			accept_all(w, &w->listeners[i]);
		return;
	}
	if (fd == w->auth_inbox.fd) {
		auth_checks_back(w);
		return;
	}
	if (fd == w->stop_fd) {
		if (!w->stopping)
			begin_stop(w);
		if (atomic_load(&w->force_stop))
			cut_off_all(w);
		return;
	}
	c = &s->conns[fd];
	if (!c->open)
		return;
	if (c->coro) {
		/*
		 * Bytes that arrive while the coroutine writes raise no
		 * further edge: remember to read before going idle.
		 */
		if (ev->events & (EPOLLIN | EPOLLERR | EPOLLHUP))
			c->maybe_more = true;
		/* A coroutine waiting its turn is resumed by the timer. */
		if (c->wait_events &&
		    (ev->events & (c->wait_events | EPOLLERR | EPOLLHUP)))
			conn_resume(w, c);
	} else if (ev->events & (EPOLLIN | EPOLLERR | EPOLLHUP)) {
		conn_start(w, c);
	}
}

static void expire_timers(struct worker *w)
{
	struct timer *t;

	while ((t = timer_wheel_expire(&w->wheel, w->now_ms))) {
		if (t == &w->accept_timer) {
			/* Re-arming reports a waiting backlog. */
			set_accepting(w, true);
			continue;
		}
		if (t == &w->roots_timer) {
			worker_roots_check(w);
			timer_wheel_add(&w->wheel, &w->roots_timer,
					w->now_ms + WORKER_ROOT_CHECK_MS);
			continue;
		}
		if (t == &w->pool_timer) {
			coro_pool_trim(w->pool, CORO_POOL_QUIET);
			pool_trim_arm(w);
			continue;
		}
		on_conn_timer(w, container_of(t, struct conn, timer));
	}
}

/* The gauges --metrics reads, as of the end of this loop iteration. */
static void publish_gauges(struct worker *w)
{
	unsigned busy =
		coro_pool_mapped_count(w->pool) - coro_pool_free_count(w->pool);
	size_t entries, bytes;

	content_cache_usage(w->cache, &entries, &bytes);
	stats_set(&w->stats.open_conns, w->active);
	stats_set(&w->stats.idle_conns,
		  w->active > busy ? w->active - busy : 0);
	stats_set(&w->stats.cache_entries, entries);
	stats_set(&w->stats.cache_bytes, bytes);
}

void *worker_run(void *arg)
{
	struct worker *w = arg;
	struct server *s = w->server;
	struct epoll_event events[MAX_EVENTS];

	for (;;) {
		int timeout = timer_wheel_next_timeout(&w->wheel, w->now_ms);
		int n;

		/* Descriptors the cache holds are looked at while idle too. */
		if (content_cache_expire_fds(w->cache, w->now_ms) &&
		    (timeout < 0 || timeout > CACHE_FD_IDLE_MS))
			timeout = CACHE_FD_IDLE_MS;

		if (w->stopping && w->active == 0)
			break;
		if (!list_empty(&w->turns))
			timeout = 0;
		n = epoll_wait(w->epoll_fd, events, MAX_EVENTS, timeout);
		if (n < 0 && errno != EINTR) {
			perror("sehttpd: epoll_wait");
			break;
		}
		w->now_ms = clock_ms();
		w->polls++;
		date_cache_update(&w->date);
		for (int i = 0; i < n; i++)
			handle_event(w, &events[i]);
		expire_timers(w);
		run_turns(w);
		if (w->log.len) {
			access_log_flush(&w->log, s->log_writer);
			stats_set(&w->stats.log_dropped, w->log.dropped);
		}
		publish_gauges(w);
	}
	force_close_all(w); /* only left after an epoll failure */
	if (w->log.len)
		access_log_flush(&w->log, s->log_writer);
	atomic_store(&w->finished, true);
	return NULL;
}
