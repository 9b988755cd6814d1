// SPDX-License-Identifier: MIT
/*
 * An HTTP/2 connection: nghttp2 reads and writes the frames; this file
 * feeds it the socket's bytes, answers each stream once its request head
 * is whole, and holds the connection to its limits (stream deadlines, the
 * calm bucket, the drain).  It runs in the connection's coroutine, so a
 * write that waits for the socket suspends the whole session, as a TCP
 * connection would; a stream waiting for its own flow-control window does
 * not hold up the others, which nghttp2 goes on sending.
 */
#include "h2.h"

#include <errno.h>
#include <nghttp2/nghttp2.h>
#include <stdlib.h>
#include <string.h>

#include "clock_ms.h"
#include "conn.h"
#include "conn_io.h"
#include "coro.h"
#include "h2_stream.h"
#include "http/body.h"
#include "health.h"
#include "respond.h"
#include "serve.h"
#include "server.h"

static const char h2_preface[] = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

/*
 * Bytes fed to nghttp2 between turns given to the thread's other
 * connections: frames that ask for no answer (PRIORITY, unknown types)
 * would otherwise keep the loop reading, one connection holding the
 * thread for as long as it sends.
 */
#define H2_TURN_BYTES (64u << 10)

/* nghttp2's own rapid-reset guard stays behind ours, as a backstop. */
#define H2_NGHTTP2_RESET_BURST (4 * H2_CALM_BURST)
#define H2_NGHTTP2_RESET_RATE (2 * H2_CALM_PER_S)

struct h2_conn {
	nghttp2_session *session;
	struct conn *c;
	struct list_head streams; /* every stream with a struct h2_stream */
	struct list_head ready; /* requests complete, to be answered */
	struct h2_out out;
	uint64_t calm; /* the bucket, in thousandths of an event */
	uint64_t calm_ms; /* when it was last filled */
	bool goaway; /* the drain's GOAWAY is submitted */
	bool broken; /* the framing failed: close without a word */
	/*
	 * While streams are open the connection is a transfer, held to the
	 * minimum rate as an HTTP/1.1 response is: a stream's own deadline
	 * asks only for progress, which a window opened a byte at a time
	 * gives, for ever, to each of a hundred streams holding a file.
	 */
	uint64_t busy_start_ms, busy_last_ms;
	uint64_t busy_acked; /* conn_acked_bytes() when it began */
	/* Bytes of frames other than HEADERS and DATA sent (the answers to
	 * PINGs and SETTINGS), and when it began: not delivered content. */
	uint64_t ctl_sent, busy_ctl;
	/* conn_acked_bytes() at the last look: while the client takes what
	 * the socket holds, its streams are not stalled, whether or not
	 * there is room to write more of them. */
	uint64_t acked_seen;
	/* Where the last HEADERS or DATA frame ends in what was sent: the
	 * rest (answers to PINGs and SETTINGS) is no stream's progress. */
	uint64_t data_upto;
	/* When the last stream ended: the idle timeout runs from there, as
	 * HTTP/1.1's does from the last response, whatever frames (PING,
	 * SETTINGS, unknown types) trickle in meanwhile. */
	uint64_t idle_since_ms;
	unsigned int file_streams; /* answered from a file, not yet ended */
	/*
	 * Where the client's frames begin: libnghttp2 1.52 counts a
	 * CONTINUATION frame once for each piece its head came in, so heads
	 * cut by the reads (a byte at a time, small TLS records) passed its
	 * limit of 8 and ended the connection.  A head cut at the end of a
	 * read waits here until it is whole (feed()).
	 */
	uint64_t frame_left; /* bytes of the preface or frame under way */
	uint8_t head[H2_FRAME_HEAD_LEN];
	uint8_t head_len;
};

bool h2_is_preface(const char *buf, size_t len)
{
	size_t n = len < sizeof(h2_preface) - 1 ? len : sizeof(h2_preface) - 1;

	return n >= 3 && memcmp(buf, h2_preface, n) == 0;
}

/* Pays for one costly, useless event; false once the bucket is empty. */
static bool calm_spend(struct h2_conn *h)
{
	uint64_t now = h->c->worker->now_ms;

	h->calm += (now - h->calm_ms) * H2_CALM_PER_S;
	if (h->calm > (uint64_t)H2_CALM_BURST * 1000)
		h->calm = (uint64_t)H2_CALM_BURST * 1000;
	h->calm_ms = now;
	if (h->calm < 1000) {
		nghttp2_session_terminate_session(h->session,
						  NGHTTP2_ENHANCE_YOUR_CALM);
		return false;
	}
	h->calm -= 1000;
	return true;
}

/* The drain: no new streams; those open finish (nghttp2 keeps them). */
static void say_goaway(struct h2_conn *h)
{
	h->goaway = true;
	nghttp2_submit_goaway(
		h->session, NGHTTP2_FLAG_NONE,
		nghttp2_session_get_last_proc_stream_id(h->session),
		NGHTTP2_NO_ERROR, NULL, 0);
}

static struct h2_stream *stream_of(struct h2_conn *h, int32_t id)
{
	return nghttp2_session_get_stream_user_data(h->session, id);
}

static uint64_t stream_deadline(const struct h2_conn *h)
{
	const struct worker *w = h->c->worker;

	return w->now_ms + w->server->timeout_ms;
}

static int on_begin_headers(nghttp2_session *session,
			    const nghttp2_frame *frame, void *user_data)
{
	struct h2_conn *h = user_data;
	struct h2_stream *st;

	if (frame->hd.type != NGHTTP2_HEADERS ||
	    frame->headers.cat != NGHTTP2_HCAT_REQUEST)
		return 0;
	st = h2_stream_get(&h->c->worker->h2_streams, frame->hd.stream_id);
	if (!st)
		return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE;
	if (nghttp2_session_set_stream_user_data(session, st->id, st)) {
		h2_stream_put(&h->c->worker->h2_streams, st);
		return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE;
	}
	st->deadline_ms = stream_deadline(h);
	if (list_empty(&h->streams)) {
		h->busy_start_ms = h->busy_last_ms = h->c->worker->now_ms;
		h->busy_acked = conn_acked_bytes(h->c);
		h->busy_ctl = h->ctl_sent;
	}
	list_add_tail(&st->link, &h->streams);
	return 0;
}

static int on_header(nghttp2_session *session, const nghttp2_frame *frame,
		     const uint8_t *name, size_t namelen, const uint8_t *value,
		     size_t valuelen, uint8_t flags, void *user_data)
{
	struct h2_stream *st;
	int ret;

	(void)session;
	(void)flags;
	if (frame->hd.type != NGHTTP2_HEADERS)
		return 0;
	st = stream_of(user_data, frame->hd.stream_id);
	if (!st)
		return 0;
	/* Trailers: nothing here reads them, but they cost to decode. */
	if (frame->headers.cat != NGHTTP2_HCAT_REQUEST)
		ret = h2_stream_count_field(st, namelen, valuelen);
	else
		ret = h2_stream_add_field(st, name, namelen, value, valuelen);
	/* Reset: nghttp2 decodes the rest of the block without callbacks
	 * or checks, and a client that does it again and again is told to
	 * calm down. */
	if (ret > 0)
		calm_spend(user_data);
	return ret ? NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE : 0;
}

static int on_frame_recv(nghttp2_session *session, const nghttp2_frame *frame,
			 void *user_data)
{
	struct h2_conn *h = user_data;
	struct h2_stream *st;

	(void)session;
	switch (frame->hd.type) {
	case NGHTTP2_DATA:
		/* Empty and not ending anything: a flood's frame. */
		if (frame->hd.length == 0 &&
		    !(frame->hd.flags & NGHTTP2_FLAG_END_STREAM))
			calm_spend(h);
		/* A request body going on is its stream's progress. */
		st = stream_of(h, frame->hd.stream_id);
		if (st && frame->hd.length && st->deadline_ms != UINT64_MAX)
			st->deadline_ms = stream_deadline(h);
		return 0;
	case NGHTTP2_HEADERS:
		break;
	case NGHTTP2_RST_STREAM:
		calm_spend(h);
		return 0;
	default:
		return 0;
	}
	/*
	 * Answered once its head is whole, as HTTP/1.1 answers before a
	 * body it then skips: nothing here reads bodies, and nghttp2 takes
	 * the rest of one, opening windows as it goes, until the client
	 * ends it (or the stream's deadline resets it).  RST_STREAM
	 * NO_ERROR (RFC 9113 8.1) would end it sooner, but curl 7.88 then
	 * fails a large upload (exit 92) instead of showing the answer.
	 */
	st = stream_of(h, frame->hd.stream_id);
	if (st && frame->headers.cat == NGHTTP2_HCAT_REQUEST && !st->ready &&
	    !st->answered) {
		st->ready = true;
		list_add_tail(&st->ready_link, &h->ready);
	}
	return 0;
}

static int on_frame_send(nghttp2_session *session, const nghttp2_frame *frame,
			 void *user_data)
{
	struct h2_conn *h = user_data;

	(void)session;
	if (frame->hd.type == NGHTTP2_HEADERS ||
	    frame->hd.type == NGHTTP2_DATA) {
		struct h2_stream *st = stream_of(h, frame->hd.stream_id);

		/* Written, or gathered to be: its end in the byte stream. */
		h->data_upto = h->c->bytes_sent + h->c->tls_staged + h->out.len;
		if (st)
			st->sent_upto = h->data_upto;
		return 0;
	}
	h->ctl_sent += H2_FRAME_HEAD_LEN + frame->hd.length;
	if (frame->hd.type != NGHTTP2_RST_STREAM)
		return 0;
	stats_add(&h->c->worker->stats.http2_resets, 1);
	/*
	 * nghttp2 resets a stream for the client's error (a body past its
	 * Content-Length, a window overflowed), often after its request was
	 * answered: provoked as fast as the resets come back, that is the
	 * rapid reset again (MadeYouReset, CVE-2025-8671), with no
	 * RST_STREAM from the client to pay for it.  The codes we choose
	 * (CANCEL, REFUSED_STREAM, INTERNAL_ERROR) are paid where they are
	 * chosen, if at all.
	 */
	switch (frame->rst_stream.error_code) {
	case NGHTTP2_PROTOCOL_ERROR:
	case NGHTTP2_FLOW_CONTROL_ERROR:
	case NGHTTP2_STREAM_CLOSED:
	case NGHTTP2_FRAME_SIZE_ERROR:
		calm_spend(h);
		break;
	}
	return 0;
}

/* Logs what the stream's answer was and how much of its body left. */
static void stream_log(struct h2_conn *h, struct h2_stream *st)
{
	struct exchange rc = {
		.conn = h->c,
		.worker = h->c->worker,
		.buf = h2_stream_head(st),
		.req = h2_stream_head(st) && !st->refused ? &st->req : NULL,
		.http2 = true,
		.auth_rule = st->auth_rule,
		.status = st->status,
		.body_bytes = st->body_sent,
		.start_us = st->start_us,
	};

	if (st->answered)
		conn_log_request(&rc);
}

static void stream_drop(struct h2_conn *h, struct h2_stream *st)
{
	stream_log(h, st);
	list_del(&st->link);
	if (st->ready)
		list_del(&st->ready_link);
	if (st->holds_file)
		h->file_streams--;
	if (st->pooled_fd)
		atomic_fetch_sub_explicit(st->fd_pool, 1, memory_order_relaxed);
	h2_stream_put(&h->c->worker->h2_streams, st);
	if (list_empty(&h->streams))
		h->idle_since_ms = h->c->worker->now_ms;
}

static int on_stream_close(nghttp2_session *session, int32_t stream_id,
			   uint32_t error_code, void *user_data)
{
	struct h2_conn *h = user_data;
	struct h2_stream *st = stream_of(h, stream_id);

	(void)error_code;
	if (st) {
		nghttp2_session_set_stream_user_data(session, stream_id, NULL);
		stream_drop(h, st);
	}
	return 0;
}

static ssize_t on_send(nghttp2_session *session, const uint8_t *data,
		       size_t length, int flags, void *user_data)
{
	struct h2_conn *h = user_data;

	(void)session;
	(void)flags;
	if (h2_out_append(&h->out, data, length))
		return NGHTTP2_ERR_CALLBACK_FAILURE;
	return (ssize_t)length;
}

static int on_send_data(nghttp2_session *session, nghttp2_frame *frame,
			const uint8_t *framehd, size_t length,
			nghttp2_data_source *source, void *user_data)
{
	struct h2_conn *h = user_data;
	struct h2_stream *st = source->ptr;
	int r;

	(void)session;
	(void)frame;
	r = h2_stream_send_data(&h->out, st, framehd, length);
	if (r == H2_STREAM_SHRANK)
		return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE; /* reset */
	if (r)
		return NGHTTP2_ERR_CALLBACK_FAILURE;
	st->deadline_ms = stream_deadline(h);
	h->busy_last_ms = h->c->worker->now_ms;
	/* A drain began while a long body was going out: say so now. */
	if (h->c->worker->stopping && !h->goaway)
		say_goaway(h);
	return 0;
}

static nghttp2_session *session_new(struct h2_conn *h)
{
	nghttp2_settings_entry settings[] = {
		{ NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, H2_MAX_STREAMS },
		{ NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE,
		  HTTP_MAX_HEADER_SECTION },
	};
	nghttp2_session_callbacks *cb;
	nghttp2_session *session = NULL;
	nghttp2_option *opt;

	if (nghttp2_session_callbacks_new(&cb))
		return NULL;
	if (nghttp2_option_new(&opt)) {
		nghttp2_session_callbacks_del(cb);
		return NULL;
	}
	nghttp2_session_callbacks_set_on_begin_headers_callback(
		cb, on_begin_headers);
	nghttp2_session_callbacks_set_on_header_callback(cb, on_header);
	nghttp2_session_callbacks_set_on_frame_recv_callback(cb, on_frame_recv);
	nghttp2_session_callbacks_set_on_frame_send_callback(cb, on_frame_send);
	nghttp2_session_callbacks_set_on_stream_close_callback(cb,
							       on_stream_close);
	nghttp2_session_callbacks_set_send_callback(cb, on_send);
	nghttp2_session_callbacks_set_send_data_callback(cb, on_send_data);
	nghttp2_option_set_stream_reset_rate_limit(opt, H2_NGHTTP2_RESET_BURST,
						   H2_NGHTTP2_RESET_RATE);
	/* The HPACK table of our responses stays at 4 KiB, whatever size
	 * the client's SETTINGS allow it. */
	nghttp2_option_set_max_deflate_dynamic_table_size(opt, 4096);
	if (nghttp2_session_server_new2(&session, cb, h, opt) == 0 &&
	    nghttp2_submit_settings(session, NGHTTP2_FLAG_NONE, settings,
				    sizeof(settings) / sizeof(settings[0]))) {
		nghttp2_session_del(session);
		session = NULL;
	}
	nghttp2_option_del(opt);
	nghttp2_session_callbacks_del(cb);
	return session;
}

static struct h2_conn *h2_conn_new(struct conn *c)
{
	struct h2_conn *h = calloc(1, sizeof(*h));

	if (!h)
		return NULL;
	h->c = c;
	INIT_LIST_HEAD(&h->streams);
	INIT_LIST_HEAD(&h->ready);
	h->calm = (uint64_t)H2_CALM_BURST * 1000;
	h->calm_ms = c->worker->now_ms;
	h->idle_since_ms = c->worker->now_ms;
	h->frame_left = sizeof(h2_preface) - 1; /* the preface comes first */
	h->out.c = c;
	h->session = session_new(h);
	if (!h->session) {
		free(h);
		return NULL;
	}
	return h;
}

/* Answers one complete request with the code HTTP/1.1's go through. */
static void stream_answer(struct h2_conn *h, struct h2_stream *st)
{
	struct conn *c = h->c;
	struct worker *w = c->worker;
	struct exchange rc;
	unsigned int mark;
	int status = h2_stream_parse(st);
	int r;

	exchange_begin(&rc, c, w, &h2_stream_writer, st, h2_stream_head(st),
		       status ? NULL : &st->req,
		       (char *)coro_extra(c->coro) + HTTP_CONN_READ_BUF);
	rc.http2 = true;
	rc.start_us = w->server->timing ? clock_us() : 0;
	st->start_us = rc.start_us;
	if (status) {
		st->refused = status;
		rc.head_only = h2_stream_method_is_head(st);
	}

	/* The connection's first file stream is within its own share. */
	if (h->file_streams) {
		st->fd_pool = &w->server->stream_fds;
		st->fd_pool_max = w->server->stream_fds_max;
	}
	mark = coro_defer_mark(c->coro);
	if (status)
		r = respond_status(&rc, status, NULL, 0);
	else if (health_is_target(w->server, &rc))
		r = health_respond(&rc);
	else if (c->redirect)
		r = respond_https_redirect(&rc);
	else
		r = serve_request(&rc);
	coro_defer_run_to(c->coro, mark);
	st->status = rc.status;
	st->auth_rule = rc.auth_rule;
	st->deadline_ms = stream_deadline(h);
	if (r || st->failed || !st->head_done ||
	    h2_stream_submit(h->session, st)) {
		/* Out of descriptors for now: not processed, to be retried. */
		nghttp2_submit_rst_stream(h->session, NGHTTP2_FLAG_NONE, st->id,
					  st->fd_refused ?
						  NGHTTP2_REFUSED_STREAM :
						  NGHTTP2_INTERNAL_ERROR);
		return;
	}
	st->answered = true;
	stats_add(&w->stats.http2_requests, 1);
	for (unsigned int i = 0; i < st->nseg && !st->holds_file; i++)
		st->holds_file = st->seg[i].kind == H2_SEG_FILE ||
				 st->seg[i].kind == H2_SEG_CODED;
	if (st->holds_file)
		h->file_streams++;
}

/* Whether another request may be answered now (H2_FILE_STREAMS_MAX). */
static bool may_answer(const struct h2_conn *h)
{
	return !list_empty(&h->ready) && h->file_streams < H2_FILE_STREAMS_MAX;
}

/* The requests completed by the last bytes read, in the order they came. */
static int answer_ready(struct h2_conn *h)
{
	unsigned int served = 0;

	while (may_answer(h)) {
		struct h2_stream *st = list_first_entry(
			&h->ready, struct h2_stream, ready_link);

		list_del_init(&st->ready_link);
		st->ready = false;
		stream_answer(h, st);
		/* As HTTP/1.1's pipelining: the thread's others get turns. */
		if (++served % CONN_PIPELINE_TURN == 0 && conn_yield_turn(h->c))
			return -1;
	}
	return 0;
}

/* Sends all nghttp2 can send now: what waits for a window stays. */
static int send_all(struct h2_conn *h)
{
	if (nghttp2_session_send(h->session))
		return -1;
	return h2_out_flush(&h->out, NULL, 0, false);
}

/*
 * When the open streams' transfer, together, has gone on too slowly: a
 * timeout later than HTTP/1.1's rule, so that a stream stalled alone is
 * reset by its own deadline first and the others go on.
 */
static uint64_t busy_deadline(const struct h2_conn *h)
{
	const struct server *srv = h->c->worker->server;
	uint64_t delivered = h->acked_seen > h->busy_acked ?
				     h->acked_seen - h->busy_acked :
				     0;
	uint64_t ctl = h->ctl_sent - h->busy_ctl;

	/* The answers to a client's PINGs are no transfer: counted, 100 a
	 * second kept a hundred streams fed a byte at a time for ever. */
	delivered = delivered > ctl ? delivered - ctl : 0;

	return h->busy_start_ms + 2 * srv->timeout_ms +
	       http_transfer_extension_ms(h->busy_last_ms - h->busy_start_ms,
					  delivered, srv->min_rate);
}

/*
 * Whether what the client took since the last look (up to before then)
 * is progress for st: it is while st's own bytes were among those not yet
 * taken, or while other streams' were and st waits only for its turn at
 * the connection's window.  The answers to PINGs are no stream's
 * progress, nor others' bytes to a stream whose own window the client
 * keeps shut, nor anything to one whose answer is sent and whose request
 * never ends (its body's DATA is its progress): such streams held their
 * files for as long as PINGs came.
 */
static bool takes_progress(struct h2_conn *h, const struct h2_stream *st,
			   uint64_t before)
{
	if (before < st->sent_upto)
		return true;
	if (st->body_ended || !st->nseg || before >= h->data_upto)
		return false;
	return nghttp2_session_get_stream_remote_window_size(h->session,
							     st->id) > 0;
}

/*
 * Streams that made no progress by their deadline: a window the client
 * never opens, a request body that never ends.  Reset; the rest go on.
 * Returns how many were reset; *next: the earliest deadline left.
 */
static unsigned int reset_stalled(struct h2_conn *h, uint64_t *next)
{
	uint64_t now = h->c->worker->now_ms, acked = conn_acked_bytes(h->c);
	uint64_t timeout_ms = h->c->worker->server->timeout_ms;
	/* Never now: a next look that is due cuts the connection. */
	uint64_t look_ms = timeout_ms >= 4 ? timeout_ms / 4 : 1;
	uint64_t before = h->acked_seen;
	bool taken = acked != before;
	struct h2_stream *st;
	unsigned int n = 0;

	/* What the client took since the last look is every stream's
	 * progress: a slow reader's bytes may sit in the socket longer than
	 * the timeout, with nothing more to write meanwhile. */
	if (taken) {
		h->acked_seen = acked;
		h->busy_last_ms = now;
	}
	*next = busy_deadline(h);
	if (now + timeout_ms < *next)
		*next = now + timeout_ms;
	/*
	 * Acknowledgements come without an event, and one seen at a look is
	 * progress as of that look: the delayed ACK of a head, coming just
	 * after the look that sent it, gave a stream whose window the client
	 * never opens a second timeout.  While some are due, look again a
	 * quarter of a timeout on.
	 */
	if (acked < h->c->bytes_sent && now + look_ms < *next)
		*next = now + look_ms;
	list_for_each_entry(st, &h->streams, link) {
		/* Whole requests waiting for us (H2_FILE_STREAMS_MAX). */
		if (st->ready)
			continue;
		if (taken && st->answered && st->deadline_ms != UINT64_MAX &&
		    takes_progress(h, st, before))
			st->deadline_ms = stream_deadline(h);
		if (st->deadline_ms <= now) {
			nghttp2_submit_rst_stream(h->session, NGHTTP2_FLAG_NONE,
						  st->id, NGHTTP2_CANCEL);
			st->deadline_ms = UINT64_MAX;
			n++;
		} else if (st->deadline_ms < *next) {
			*next = st->deadline_ms;
		}
	}
	return n;
}

static int feed_session(struct h2_conn *h, const uint8_t *p, size_t len)
{
	ssize_t n = nghttp2_session_mem_recv(h->session, p, len);

	if (n < 0) {
		/* A flood, a client that is not HTTP/2: no further word. */
		h->broken = true;
		return -1;
	}
	return 0;
}

static uint64_t frame_payload_len(const uint8_t *head)
{
	return (uint64_t)head[0] << 16 | (uint64_t)head[1] << 8 | head[2];
}

/* Feeds buf to the session, holding back a frame head cut at its end. */
static int feed(struct h2_conn *h, const char *buf, size_t len)
{
	const uint8_t *p = (const uint8_t *)buf;
	size_t at = 0, from, end;

	if (h->head_len) {
		size_t take = H2_FRAME_HEAD_LEN - h->head_len;

		if (take > len)
			take = len;
		memcpy(h->head + h->head_len, p, take);
		h->head_len += take;
		at = take;
		if (h->head_len < H2_FRAME_HEAD_LEN)
			return 0;
		h->head_len = 0;
		h->frame_left = frame_payload_len(h->head);
		if (feed_session(h, h->head, H2_FRAME_HEAD_LEN))
			return -1;
	}
	from = at;
	while (at < len) {
		size_t n;

		if (!h->frame_left) {
			if (len - at < H2_FRAME_HEAD_LEN) {
				h->head_len = (uint8_t)(len - at);
				memcpy(h->head, p + at, h->head_len);
				break;
			}
			h->frame_left =
				H2_FRAME_HEAD_LEN + frame_payload_len(p + at);
		}
		n = h->frame_left < len - at ? (size_t)h->frame_left : len - at;
		h->frame_left -= n;
		at += n;
	}
	end = len - h->head_len;
	return end > from ? feed_session(h, p + from, end - from) : 0;
}

void h2_conn_serve(struct conn *c, const char *pending, size_t len)
{
	struct worker *w = c->worker;
	char *buf = coro_extra(c->coro);
	struct h2_conn *h = c->h2;
	size_t fed = 0; /* since the last turn given */

	if (!h) {
		h = h2_conn_new(c);
		if (!h) {
			c->close_after = true;
			return;
		}
		c->h2 = h;
		stats_add(&w->stats.http2_conns, 1);
	}
	/*
	 * Frames gather in the read buffer and scratch of whichever
	 * coroutine runs the session (64 KiB, several DATA frames): nghttp2
	 * has taken what was read and the answers are built before a send
	 * begins, and every send leaves the buffer empty, so an idle
	 * connection holds no output buffer.
	 */
	h->out = (struct h2_out){
		.c = c,
		.buf = buf,
		.cap = HTTP_CONN_READ_BUF + EXCHANGE_SCRATCH,
	};
	if (len && feed(h, pending, len))
		goto close;
	for (;;) {
		ssize_t n;

		/* A pass of work for the client: its deadline starts now. */
		conn_transfer_begin(c);
		if (answer_ready(h) || send_all(h))
			goto broken;
		/* Streams with files ended as they were sent: answer on. */
		if (may_answer(h))
			continue;
		if ((w->stopping || c->ending) && !h->goaway) {
			say_goaway(h);
			continue;
		}
		if (!nghttp2_session_want_read(h->session) &&
		    !nghttp2_session_want_write(h->session)) {
			/*
			 * GOAWAY said and the streams over.  While what was
			 * sent is not all acknowledged, what the client still
			 * sends (WINDOW_UPDATEs as it reads) must not reach a
			 * closed socket: that resets the connection and throws
			 * the rest away.
			 */
			if (conn_needs_linger(c))
				conn_linger(c, buf, HTTP_CONN_READ_BUF);
			goto close;
		}
		if (list_empty(&h->streams)) {
			/* Idle: the coroutine goes back to the pool. */
			n = conn_try_read(c, buf, HTTP_CONN_READ_BUF);
			if (n < 0 && errno == EAGAIN) {
				timer_wheel_add(&w->wheel, &c->timer,
						h->idle_since_ms +
							w->server->timeout_ms);
				return;
			}
		} else {
			uint64_t next;

			if (reset_stalled(h, &next))
				continue;
			if (next <= w->now_ms) {
				/* Too slow together, as an HTTP/1.1 response can
				 * be: cut off. */
				conn_cut(c);
				h->broken = true;
				goto close;
			}
			timer_wheel_add(&w->wheel, &c->timer, next);
			n = conn_read(c, buf, HTTP_CONN_READ_BUF);
			if (n < 0 && c->timed_out &&
			    !atomic_load(&w->force_stop)) {
				c->timed_out = false;
				continue;
			}
		}
		if (n <= 0 || feed(h, buf, (size_t)n))
			goto close;
		fed += (size_t)n;
		if (fed >= H2_TURN_BYTES) {
			fed = 0;
			/* A deadline that passed meanwhile is seen where it
			 * is waited for: the streams' above. */
			if (conn_yield_turn(c) && atomic_load(&w->force_stop))
				goto close;
			c->timed_out = false;
		}
	}
broken:
	h->broken = true;
close:
	c->close_after = true;
}

void h2_conn_end(struct conn *c)
{
	struct h2_conn *h = c->h2;
	struct h2_stream *st, *next;

	c->h2 = NULL;
	/* An idle connection closing (timeout, drain) says GOAWAY; what is
	 * queued then is control frames only, no DATA. */
	if (!h->broken && list_empty(&h->streams) &&
	    nghttp2_session_want_read(h->session)) {
		const uint8_t *data;
		ssize_t n;

		nghttp2_submit_goaway(
			h->session, NGHTTP2_FLAG_NONE,
			nghttp2_session_get_last_proc_stream_id(h->session),
			NGHTTP2_NO_ERROR, NULL, 0);
		n = nghttp2_session_mem_send(h->session, &data);
		if (n > 0)
			conn_send_now(c, data, (size_t)n);
	}
	list_for_each_entry_safe(st, next, &h->streams, link)
		stream_drop(h, st);
	nghttp2_session_del(h->session);
	free(h);
}
