// SPDX-License-Identifier: MIT
/*
 * The life of a connection between two idle periods: read and parse request
 * heads (incrementally, so any split of the bytes works), answer each in
 * order, skip request bodies, and return as soon as no further request is
 * pending so that the coroutine, its stack and buffers go back to the pool.
 */
#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include "authorize.h"
#include "clock_ms.h"
#include "conn_io.h"
#include "conn_tls.h"
#include "coro.h"
#include "health.h"
#include "http/basic_auth.h"
#include "http/body.h"
#include "http/proxy.h"
#include "conn.h"
#include "h2.h"
#include "respond.h"
#include "server.h"
#include "serve.h"

static int http1_writev(struct exchange *rc, struct iovec *iov, int iovcnt,
			bool more)
{
	return conn_writev(rc->conn, iov, iovcnt, more);
}

static int http1_sendfile(struct exchange *rc, int fd, off_t offset,
			  uint64_t len)
{
	return conn_sendfile(rc->conn, fd, offset, len);
}

/* HTTP/1.1 frames nothing: the bytes go as they are. */
static const struct exchange_writer http1_writer = {
	.writev = http1_writev,
	.sendfile = http1_sendfile,
};

struct read_buffer {
	char *data;
	size_t start; /* first unconsumed byte */
	size_t end; /* one past the last byte read */
};

enum read_result {
	READ_OK,
	READ_IDLE, /* nothing pending and nothing more on the socket */
	READ_CLOSED, /* end of stream, error or timeout */
};

/*
 * Gets more bytes after rb->end.  With nothing pending it only tries, never
 * waits: an idle connection must give its coroutine back.
 */
static enum read_result fill(struct conn *c, struct read_buffer *rb, bool fresh)
{
	bool pending = rb->end > rb->start;
	ssize_t n;

	if (!pending) {
		rb->start = rb->end = 0;
		/* The last read drained the socket: the next byte wakes us. */
		if (!fresh && !c->maybe_more)
			return READ_IDLE;
		n = conn_try_read(c, rb->data, HTTP_CONN_READ_BUF);
		if (n < 0 && errno == EAGAIN)
			return READ_IDLE;
	} else {
		if (rb->end == HTTP_CONN_READ_BUF) {
			memmove(rb->data, rb->data + rb->start,
				rb->end - rb->start);
			rb->end -= rb->start;
			rb->start = 0;
		}
		n = conn_read(c, rb->data + rb->end,
			      HTTP_CONN_READ_BUF - rb->end);
	}
	if (n <= 0)
		return READ_CLOSED;
	rb->end += (size_t)n;
	return READ_OK;
}

/*
 * Skips a request body: Content-Length bytes, or a chunked body, within the
 * transfer deadline (conn_io.h).  Returns 0 once it ended, -1 when the
 * connection is gone or must close (a body too slow to skip sets
 * c->timed_out), or 1 for malformed chunked framing.
 */
static int skip_body(struct conn *c, struct read_buffer *rb,
		     const struct http_request *req)
{
	struct http_body_skipper b;
	unsigned int reads = 0;
	ssize_t n;

	if (http_body_none(req))
		return 0;
	http_body_skip_init(&b, req);
	conn_transfer_begin(c);
	for (;;) {
		size_t used;
		int r = http_body_skip(&b, rb->data + rb->start,
				       rb->end - rb->start, &used);

		rb->start += used;
		if (r == HTTP_BODY_DONE)
			return 0;
		if (r == HTTP_BODY_ERROR)
			return 1;
		rb->start = rb->end = 0;
		/* A client streaming a body as fast as it can must not
		 * keep the thread from its other connections. */
		if (++reads % CONN_BODY_TURN_READS == 0 && conn_yield_turn(c))
			return -1;
		n = conn_read_body(c, rb->data, HTTP_CONN_READ_BUF);
		if (n <= 0)
			return -1;
		rb->end = (size_t)n;
	}
}

void conn_log_request(struct exchange *rc)
{
	struct worker *w = rc->worker;
	struct server *s = w->server;
	char user[HTTP_BASIC_MAX];
	struct access_log_record r = {
		.peer = &rc->conn->peer,
		.reqbuf = rc->buf,
		.req = rc->req,
		.http2 = rc->http2,
		.status = rc->status,
		.body_bytes = rc->body_bytes,
		.duration_us = rc->start_us ? clock_us() - rc->start_us : 0,
	};

	stats_count_response(&w->stats, rc->status, rc->body_bytes);
	if (s->timing)
		stats_count_request(&w->stats, rc->req, rc->status,
				    r.duration_us);
	if (!s->access_log)
		return;
	r.user_len = authorize_user(rc, user);
	r.user = r.user_len ? user : NULL;
	if (s->log_json)
		access_log_append_json(&w->log, s->log_writer, w->date.iso, &r);
	else
		access_log_append(&w->log, s->log_writer, w->date.clf, &r);
}

/* When a request's time starts: once its head is whole (or refused). */
static uint64_t request_start(const struct worker *w)
{
	return w->server->timing ? clock_us() : 0;
}

/*
 * The body bytes of a response cut short: what the connection sent for it,
 * less its head, which every responder builds at the start of scratch.
 */
static uint64_t body_bytes_sent(const struct exchange *rc, uint64_t sent)
{
	const char *end = memmem(rc->scratch, EXCHANGE_SCRATCH, "\r\n\r\n", 4);
	uint64_t head = end ? (uint64_t)(end + 4 - rc->scratch) : 0;

	return sent > head ? sent - head : 0;
}

/*
 * Answers a head the parser refused; the connection closes after it.  The
 * log shows its request line when that was whole, as nginx's does.
 */
static void reject(struct conn *c, struct read_buffer *rb, int status,
		   const struct http_parser *p, const struct http_request *req)
{
	struct exchange rc = {
		.conn = c,
		.worker = c->worker,
		.out = &http1_writer,
		.buf = rb->data + rb->start,
		.scratch = rb->data + HTTP_CONN_READ_BUF,
		.start_us = request_start(c->worker),
		.head_only =
			http_method_name_is_head(rb->data + rb->start, req),
	};

	if (respond_status(&rc, status, NULL, 0) == 0) {
		/* Not before: the answer to a refused head is the same for
		 * all. */
		rc.req = p->request_line ? req : NULL;
		conn_log_request(&rc);
		conn_linger(c, rb->data, HTTP_CONN_READ_BUF);
	}
	c->close_after = true;
}

/* Best effort: a client cut off mid-request learns why, if it listens. */
static void send_timeout(struct conn *c, struct read_buffer *rb)
{
	struct exchange rc = {
		.conn = c,
		.worker = c->worker,
		.out = &http1_writer,
		.buf = rb->data + rb->start,
		.status = 408,
		.start_us = request_start(c->worker),
	};
	/* Room for any head: --cors and --header lines too. */
	char *head = rb->data + HTTP_CONN_READ_BUF;
	struct http_response_head h;
	size_t n;

	/* A head as every other's (Date, Server), with no body. */
	respond_head_init(&rc, &h, 408);
	h.keep_alive = false;
	h.content_length = 0;
	n = http_response_head_build(head, EXCHANGE_SCRATCH, &h);
	if (n)
		conn_send_now(c, head, n);
	conn_log_request(&rc);
}

/*
 * Reads the PROXY header a balancer sends before the first request and
 * takes the client's address from it.  Returns 0 once it is consumed, 1
 * when nothing has arrived yet (the connection idles until something does,
 * within the request-head timeout of the accept), -1 when the connection
 * must close without an answer: no valid header, or none in time.
 */
static int read_proxy_header(struct conn *c, struct read_buffer *rb,
			     bool *fresh)
{
	struct proxy_parser p;
	struct proxy_header h;
	int r = PROXY_PARSE_AGAIN;

	proxy_parser_init(&p);
	for (;;) {
		enum read_result res;

		if (rb->end > rb->start) {
			r = proxy_parse(&p, &h, rb->data + rb->start,
					rb->end - rb->start);
			if (r != PROXY_PARSE_AGAIN)
				break;
		}
		res = fill(c, rb, *fresh);
		*fresh = false;
		if (res == READ_IDLE)
			return 1;
		if (res == READ_CLOSED) {
			/* Silence is no PROXY problem; part of a header is. */
			if (rb->end > rb->start)
				stats_add(&c->worker->stats.proxy_refused, 1);
			return -1;
		}
	}
	if (r < 0) {
		stats_add(&c->worker->stats.proxy_refused, 1);
		return -1;
	}
	rb->start += (size_t)r;
	c->proxy_pending = false;
	/* LOCAL (a balancer's own check), UNKNOWN: the real peer stays. */
	if (h.family == PROXY_AF_INET) {
		c->peer.family = AF_INET;
		memcpy(c->peer.addr, h.src_addr, 4);
	} else if (h.family == PROXY_AF_INET6) {
		c->peer.family = AF_INET6;
		memcpy(c->peer.addr, h.src_addr, 16);
	}
	return 0;
}

void http_conn_serve(struct coro *coro, void *data)
{
	struct conn *c = data;
	struct worker *w = c->worker;
	struct read_buffer rb = { .data = coro_extra(coro) };
	bool fresh = true;
	unsigned served = 0;

	if (c->h2) {
		/* An HTTP/2 connection woken from idle. */
		h2_conn_serve(c, NULL, 0);
		return;
	}
	if (c->ending) {
		conn_linger(c, rb.data, HTTP_CONN_READ_BUF);
		return;
	}
	if (c->ssl && !c->tls_ready) {
		int r = conn_tls_handshake(c);

		if (r) {
			c->close_after = r < 0;
			return;
		}
		if (conn_tls_alpn_h2(c)) {
			h2_conn_serve(c, NULL, 0);
			return;
		}
	}
	if (unlikely(c->proxy_pending)) {
		int r = read_proxy_header(c, &rb, &fresh);

		if (r) {
			c->close_after = r < 0;
			return;
		}
	}
	for (;;) {
		struct exchange rc;
		struct http_request req;
		struct http_parser p;
		unsigned defer_mark;
		uint64_t sent;
		int r = HTTP_PARSE_AGAIN;

		http_parser_init(&p);
		for (;;) {
			enum read_result res;

			if (rb.end > rb.start) {
				r = http_parse_request(&p, &req,
						       rb.data + rb.start,
						       rb.end - rb.start);
				if (r != HTTP_PARSE_AGAIN)
					break;
			}
			res = fill(c, &rb, fresh);
			fresh = false;
			if (res == READ_IDLE)
				return;
			if (res == READ_CLOSED) {
				/* Empty lines alone are no request cut off. */
				if (c->timed_out && rb.end > rb.start &&
				    http_parse_begun(&p))
					send_timeout(c, &rb);
				c->close_after = true;
				return;
			}
		}
		if (r < 0 && !c->spoke_http1 && !c->ssl &&
		    h2_is_preface(rb.data + rb.start, rb.end - rb.start)) {
			/* Prior knowledge: the preface is HTTP/2's first word
			 * in cleartext; over TLS, ALPN alone says h2. */
			h2_conn_serve(c, rb.data + rb.start, rb.end - rb.start);
			return;
		}
		if (r < 0) {
			reject(c, &rb, -r, &p, &req);
			return;
		}
		c->spoke_http1 = true;

		exchange_begin(&rc, c, w, &http1_writer, NULL,
			       rb.data + rb.start, &req,
			       rb.data + HTTP_CONN_READ_BUF);
		rc.keep_alive = req.keep_alive && !w->stopping;
		rc.start_us = request_start(w);
		/*
		 * The body is read (skipped) after the reply on a connection
		 * that stays open: a client holding it back for 100-continue
		 * must be told to send it first.
		 */
		conn_transfer_begin(c);
		if (rc.keep_alive && http_body_expects_continue(rc.buf, &req) &&
		    conn_write(c, HTTP_CONTINUE_RESPONSE,
			       sizeof(HTTP_CONTINUE_RESPONSE) - 1, false)) {
			c->close_after = true;
			return;
		}
		sent = c->bytes_sent;
		defer_mark = coro_defer_mark(coro);
		if (health_is_target(w->server, &rc))
			r = health_respond(&rc);
		else if (c->redirect)
			r = respond_https_redirect(&rc);
		else
			r = serve_request(&rc);
		coro_defer_run_to(coro, defer_mark);
		if (r) {
			/* Cut short (client gone, write stall): logged with
			 * what it got, once a status was chosen. */
			if (rc.status) {
				rc.body_bytes = body_bytes_sent(
					&rc, c->bytes_sent - sent);
				conn_log_request(&rc);
			}
			c->close_after = true;
			return;
		}
		conn_log_request(&rc);
		rb.start += req.head_len;
		/* A client that never sends the body is closed by the
		 * timeout. */
		if (!rc.keep_alive) {
			if (http_close_lingers(&req, rb.end > rb.start ||
							     c->maybe_more))
				conn_linger(c, rb.data, HTTP_CONN_READ_BUF);
			c->close_after = true;
			return;
		}
		r = skip_body(c, &rb, &req);
		if (r) {
			/* Too slow, or its framing is malformed: the response
			 * is out and the client may still be sending, so
			 * linger, lest the close reset the response's tail
			 * (unless the drain is over). */
			if ((r > 0 || c->timed_out) &&
			    !atomic_load(&w->force_stop)) {
				c->timed_out = false;
				conn_linger(c, rb.data, HTTP_CONN_READ_BUF);
			}
			c->close_after = true;
			return;
		}
		timer_wheel_add(&w->wheel, &c->timer,
				w->now_ms + w->server->timeout_ms);
		/* A client pipelining thousands of requests takes turns with
		 * the thread's other connections. */
		if (++served % CONN_PIPELINE_TURN == 0 && conn_yield_turn(c)) {
			c->close_after = true;
			return;
		}
	}
}
