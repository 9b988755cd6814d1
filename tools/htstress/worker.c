// SPDX-License-Identifier: MIT
/*
 * The worker loop; see worker.h.  Per request on a kept-alive connection
 * the cost is one recv() that usually holds the whole response, one send()
 * of the prebuilt request and a share of an epoll_wait(); nothing is
 * allocated after start-up.
 */
#include "worker.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "clock.h"
#include "response.h"

#define RECV_BUFFER_SIZE (256 * 1024)
#define MAX_EVENTS 256
#define SWEEP_INTERVAL_NS (100 * UINT64_C(1000000))

enum conn_state {
	CONN_FINISHED, /* no more requests to issue */
	CONN_RESTART, /* failed; to be replaced from the loop */
	CONN_SENDING, /* connecting, or the request not yet all sent */
	CONN_RECEIVING,
};

struct hts_conn {
	int fd;
	uint8_t state;
	bool connecting; /* a new connection, not yet known to be up */
	bool peer_closed; /* the server's end of file was seen */
	uint32_t sent; /* bytes of the request sent */
	uint64_t received; /* bytes of the response received */
	uint64_t sent_ns; /* when the request was sent: latency starts */
	uint64_t deadline_ns;
	struct hts_response response;
};

int hts_worker_init(struct hts_worker *w, struct hts_run *run,
		    unsigned int nconns, char *err, size_t errlen)
{
	memset(w, 0, sizeof(*w));
	w->run = run;
	w->nconns = nconns;
	w->bufsize = RECV_BUFFER_SIZE;
	hts_stats_init(&w->stats);
	w->epfd = epoll_create1(EPOLL_CLOEXEC);
	w->conns = calloc(nconns, sizeof(*w->conns));
	w->buf = malloc(w->bufsize);
	if (w->epfd < 0 || !w->conns || !w->buf) {
		snprintf(err, errlen, "cannot set up a worker: %s",
			 w->epfd < 0 ? strerror(errno) : "out of memory");
		hts_worker_destroy(w);
		return -1;
	}
	for (unsigned int i = 0; i < nconns; i++)
		w->conns[i].fd = -1;
	return 0;
}

void hts_worker_destroy(struct hts_worker *w)
{
	if (w->epfd >= 0)
		close(w->epfd);
	w->epfd = -1;
	free(w->conns);
	free(w->buf);
	w->conns = NULL;
	w->buf = NULL;
}

/* Hands out one of the run's requests; false when they are all out. */
static bool claim_request(struct hts_run *run)
{
	if (!run->requests)
		return true;
	return __atomic_fetch_add(&run->issued, 1, __ATOMIC_RELAXED) <
	       run->requests;
}

static void conn_close(struct hts_conn *c)
{
	if (c->fd >= 0)
		close(c->fd); /* also leaves the epoll set */
	c->fd = -1;
	c->peer_closed = false;
}

/* The request failed without a response: replace the connection. */
static void conn_fail(struct hts_worker *w, struct hts_conn *c,
		      const char *what, int err)
{
	hts_stats_error(&w->stats, what, err);
	conn_close(c);
	c->state = CONN_RESTART;
	w->restarts++;
}

static void conn_malformed(struct hts_worker *w, struct hts_conn *c,
			   const char *why)
{
	hts_stats_malformed(&w->stats, why);
	conn_close(c);
	c->state = CONN_RESTART;
	w->restarts++;
}

static int conn_open(struct hts_worker *w, struct hts_conn *c)
{
	const struct hts_target *t = &w->run->target;
	struct epoll_event ev;
	int one = 1;

	c->fd = socket(t->addr.ss_family,
		       SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (c->fd < 0)
		return -errno;
	/* A new connection sends one segment: Nagle cannot delay it. */
	if (w->run->keep_alive)
		setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (w->run->source.addrlen) {
		/* The port is chosen at connect, per destination: bind()
		 * alone would take one from a single range for every socket. */
		setsockopt(c->fd, IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT, &one,
			   sizeof(one));
		if (bind(c->fd, (const struct sockaddr *)&w->run->source.addr,
			 w->run->source.addrlen)) {
			int err = errno;

			conn_close(c);
			return -err;
		}
	}
	if (connect(c->fd, (const struct sockaddr *)&t->addr, t->addrlen) &&
	    errno != EINPROGRESS) {
		int err = errno;

		conn_close(c);
		return -err;
	}
	/* Both directions once, edge-triggered: no epoll_ctl per request. */
	ev.events = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET;
	ev.data.ptr = c;
	if (epoll_ctl(w->epfd, EPOLL_CTL_ADD, c->fd, &ev)) {
		int err = errno;

		conn_close(c);
		return -err;
	}
	return 0;
}

/*
 * Sends what is left of the request.  Sending right after a non-blocking
 * connect is fine: until the connection is up send() says EAGAIN, and the
 * EPOLLOUT edge of the finished connect brings us back.
 */
static void conn_send(struct hts_worker *w, struct hts_conn *c, uint64_t now)
{
	const struct hts_run *run = w->run;

	while (c->sent < run->request_len) {
		ssize_t n = send(c->fd, run->request + c->sent,
				 run->request_len - c->sent, MSG_NOSIGNAL);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN)
				conn_fail(w, c,
					  c->connecting ? "connect" : "send",
					  errno);
			return;
		}
		c->connecting = false;
		if (c->sent == 0)
			c->sent_ns = now ? now : hts_now_ns();
		c->sent += (uint32_t)n;
	}
	c->state = CONN_RECEIVING;
}

/*
 * Issues the next request on c, on its open connection or on a new one.
 * now is the current time when the caller has it, else 0.
 */
static void conn_start(struct hts_worker *w, struct hts_conn *c, uint64_t now)
{
	if (!claim_request(w->run)) {
		conn_close(c);
		c->state = CONN_FINISHED;
		w->active--;
		return;
	}
	if (!now)
		now = hts_now_ns();
	hts_response_init(&c->response);
	c->sent = 0;
	c->received = 0;
	c->deadline_ns = now + w->run->timeout_ns;
	c->state = CONN_SENDING;
	if (c->fd < 0) {
		int err = conn_open(w, c);

		if (err) {
			conn_fail(w, c, "connect", -err);
			return;
		}
		c->connecting = true;
		/* The connect took time: the clock is read again on send. */
		now = 0;
	}
	conn_send(w, c, now);
}

/* A response was read to its end. */
static void conn_complete(struct hts_worker *w, struct hts_conn *c)
{
	uint64_t now = hts_now_ns();

	hts_stats_response(&w->stats, c->response.status,
			   (now - c->sent_ns) / 1000);
	/*
	 * A server may close an idle connection at any time: one we saw
	 * closing is not reused, though the response did not say so.
	 */
	if (!w->run->keep_alive || !hts_response_keep_alive(&c->response) ||
	    c->peer_closed)
		conn_close(c);
	conn_start(w, c, now);
}

static void conn_eof(struct hts_worker *w, struct hts_conn *c)
{
	if (c->received == 0) {
		conn_fail(w, c, "connection closed without a response", 0);
		return;
	}
	if (hts_response_eof(&c->response) == HTS_PARSE_DONE) {
		conn_close(c);
		conn_complete(w, c);
	} else {
		conn_malformed(w, c, c->response.error);
	}
}

/*
 * Reads and checks what has arrived.  A read shorter than the buffer
 * drained the socket of data, and later data raises a new edge; but an end
 * of file that came before this edge was reported (hangup) raises none, so
 * then we read on until recv() says EAGAIN or end of file.
 */
static void conn_receive(struct hts_worker *w, struct hts_conn *c, bool hangup)
{
	c->peer_closed = hangup;
	for (;;) {
		ssize_t n = recv(c->fd, w->buf, w->bufsize, 0);
		enum hts_parse_result res;
		size_t used;

		if (n == 0) {
			conn_eof(w, c);
			return;
		}
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN)
				conn_fail(w, c, "recv", errno);
			return;
		}
		hts_stats_add(&w->stats.bytes, (uint64_t)n);
		c->received += (uint64_t)n;
		res = hts_response_parse(&c->response, w->buf, (size_t)n,
					 &used);
		if (res == HTS_PARSE_ERROR) {
			conn_malformed(w, c, c->response.error);
			return;
		}
		if (res == HTS_PARSE_DONE) {
			/* We never pipeline: nothing may follow a response. */
			if (used < (size_t)n)
				conn_malformed(
					w, c,
					"bytes after the end of the response");
			else
				conn_complete(w, c);
			return;
		}
		if ((size_t)n < w->bufsize && !hangup)
			return;
	}
}

static void conn_event(struct hts_worker *w, struct hts_conn *c,
		       uint32_t events)
{
	if (c->state == CONN_SENDING) {
		conn_send(w, c, 0);
		/*
		 * Data, an end of file or an error that came with this edge
		 * is read now: the edge will not come again.
		 */
		if (c->state != CONN_RECEIVING)
			return;
	}
	/* A late EPOLLOUT edge of the connect alone has nothing to read. */
	if (c->state == CONN_RECEIVING &&
	    (events & (EPOLLIN | EPOLLRDHUP | EPOLLERR | EPOLLHUP)))
		conn_receive(w, c, events & (EPOLLRDHUP | EPOLLERR | EPOLLHUP));
}

/* Replaces failed connections, at most once per loop iteration. */
static void restart_failed(struct hts_worker *w)
{
	unsigned int pending = w->restarts;

	w->restarts = 0;
	for (unsigned int i = 0; i < w->nconns && pending; i++) {
		struct hts_conn *c = &w->conns[i];

		if (c->state == CONN_RESTART) {
			pending--;
			conn_start(w, c, 0);
		}
	}
}

static void expire_late(struct hts_worker *w, uint64_t now)
{
	for (unsigned int i = 0; i < w->nconns; i++) {
		struct hts_conn *c = &w->conns[i];

		if ((c->state == CONN_SENDING || c->state == CONN_RECEIVING) &&
		    now >= c->deadline_ns)
			conn_fail(w, c, "no response before the timeout", 0);
	}
}

static int wait_ms(const struct hts_worker *w, uint64_t now)
{
	uint64_t ns = SWEEP_INTERVAL_NS;

	if (w->restarts)
		return 0;
	if (w->run->end_ns && w->run->end_ns - now < ns)
		ns = w->run->end_ns - now;
	return (int)((ns + 999999) / 1000000);
}

static bool run_over(const struct hts_worker *w, uint64_t now)
{
	if (!w->active || __atomic_load_n(&w->run->stop, __ATOMIC_RELAXED))
		return true;
	return w->run->end_ns && now >= w->run->end_ns;
}

void *hts_worker_main(void *worker)
{
	struct hts_worker *w = worker;
	struct epoll_event events[MAX_EVENTS];
	uint64_t now = hts_now_ns(), next_sweep = now + SWEEP_INTERVAL_NS;

	w->active = w->nconns;
	for (unsigned int i = 0; i < w->nconns; i++)
		conn_start(w, &w->conns[i], 0);
	while (!run_over(w, now)) {
		int n = epoll_wait(w->epfd, events, MAX_EVENTS,
				   wait_ms(w, now));

		if (n < 0 && errno != EINTR) {
			perror("htstress: epoll_wait");
			break;
		}
		for (int i = 0; i < n; i++)
			conn_event(w, events[i].data.ptr, events[i].events);
		if (w->restarts)
			restart_failed(w);
		now = hts_now_ns();
		if (now >= next_sweep) {
			expire_late(w, now);
			next_sweep = now + SWEEP_INTERVAL_NS;
		}
	}
	/* A timed run leaves its last requests unanswered and uncounted. */
	for (unsigned int i = 0; i < w->nconns; i++)
		conn_close(&w->conns[i]);
	w->end_ns = hts_now_ns();
	return NULL;
}
