// SPDX-License-Identifier: MIT
#include "respond_coded.h"

#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "compress_stream.h"
#include "conn_io.h"
#include "coro.h"
#include "http/conditional.h"
#include "http/layout.h"
#include "http/select.h"
#include "respond.h"
#include "respond_file.h"
#include "server.h"

bool respond_coded_allowed(const struct exchange *rc, uint64_t size)
{
	return !rc->http2 && size >= RESPOND_CODED_MIN &&
	       size <= RESPOND_CODED_MAX && !exchange_range_requested(rc) &&
	       rc->worker->coded_streams < RESPOND_CODED_STREAMS_MAX;
}

enum http_coding respond_coded_choice(const struct exchange *rc, uint64_t size,
				      bool compressible)
{
	if (!compressible || !respond_coded_allowed(rc, size))
		return HTTP_CODING_IDENTITY;
	return http_request_coding(rc->buf, rc->req, COMPRESS_STREAM_CODINGS,
				   0);
}

static void free_stream(void *arg)
{
	compress_stream_free(arg);
}

static void release_stream_slot(void *arg)
{
	struct worker *w = arg;

	w->coded_streams--;
}

static void free_arg(void *arg)
{
	free(arg);
}

/* A copy of the compressed body, while it stays within its bound. */
struct coded_copy {
	char *data; /* NULL: none kept (not asked for, or too large) */
	size_t len;
	/* The representation it is for, marked keeping until the copy is
	 * kept, found too large, or given up. */
	struct cache_rep *rep;
};

/* Let go: a copy given up (the response cut short) may be tried again. */
static void free_copy(void *arg)
{
	struct coded_copy *k = arg;

	if (k->rep)
		k->rep->keeping = false;
	free(k->data);
	free(k);
}

static void copy_append(struct coded_copy *k, const void *out, size_t len)
{
	if (!k->data)
		return;
	if (k->len + len > RESPOND_CODED_KEEP_MAX) {
		/* Too large for good: rep stays marked, no one copies it. */
		free(k->data);
		k->data = NULL;
		k->rep = NULL;
		return;
	}
	memcpy(k->data + k->len, out, len);
	k->len += len;
}

/* Sends out[0..len) as the next piece of the body (chunked: a chunk). */
static int send_piece(struct exchange *rc, const void *out, size_t len,
		      bool chunked, bool last)
{
	struct iovec iov[HTTP_LAYOUT_PIECES];
	struct http_layout l;

	http_layout_piece(&l, out, len, chunked, last);
	for (unsigned int i = 0; i < l.n; i++)
		iov[i] = (struct iovec){ (void *)l.piece[i].base,
					 l.piece[i].len };
	rc->body_bytes += len;
	return l.n ? exchange_writev(rc, iov, (int)l.n, !last) : 0;
}

/*
 * Reads fd's size bytes in steps, compressing each and sending what comes
 * out through out (out_cap bytes).  A file that shrank under us ends the
 * response short, unterminated: the client sees it cut, never padded.
 */
static int send_compressed(struct exchange *rc, struct compress_stream *s,
			   int fd, uint64_t size, char *in, char *out,
			   size_t out_cap, bool chunked, struct coded_copy *k)
{
	uint64_t off = 0;
	int ended = 0;

	while (!ended) {
		size_t want = size - off < RESPOND_CODED_STEP ?
				      (size_t)(size - off) :
				      RESPOND_CODED_STEP;
		ssize_t got = want ? pread(fd, in, want, (off_t)off) : 0;
		size_t at = 0;
		bool finish;

		if (got != (ssize_t)want)
			return -1;
		off += want;
		finish = off == size;
		do {
			size_t used, made = out_cap;

			ended = compress_stream_step(s, in + at, want - at,
						     &used, out, &made, finish);
			if (ended < 0)
				return -1;
			at += used;
			copy_append(k, out, made);
			if (made && send_piece(rc, out, made, chunked, false))
				return -1;
		} while (!ended && (at < want || finish));
		/* Others on this thread get a turn between steps. */
		if (!ended && conn_yield_turn(rc->conn))
			return -1;
	}
	return send_piece(rc, NULL, 0, chunked, true);
}

/* Keeps k's copy in e when the file is still what st says. */
static void keep_copy(struct exchange *rc, struct cache_entry *e,
		      enum http_coding coding, int fd, const struct stat *st,
		      struct coded_copy *k, const struct http_representation *r)
{
	struct stat now;

	if (!k->data || fstat(fd, &now) || now.st_size != st->st_size ||
	    now.st_mtim.tv_sec != st->st_mtim.tv_sec ||
	    now.st_mtim.tv_nsec != st->st_mtim.tv_nsec)
		return;
	content_cache_attach_coded(rc->worker->cache, e, coding, k->data,
				   k->len, r->etag, r->etag_len);
	k->data = NULL; /* taken */
	k->rep = NULL;
}

int respond_file_coded(struct exchange *rc, int fd, const struct stat *st,
		       const char *content_type, enum http_coding coding,
		       struct cache_entry *e)
{
	const struct http_file_id f = respond_file_id(st);
	struct coded_copy *k;
	char extra[HTTP_SELECT_HEADERS_MAX];
	char etag[HTTP_ETAG_MAX];
	struct http_response_head h;
	struct http_representation r;
	struct http_selection sel;
	struct compress_stream *s;
	bool chunked = rc->req->version_minor >= 1;
	size_t hlen;
	char *in;

	/* Ranges are answered from the identity bytes. */
	http_file_representation(&f, coding, true, etag, &r);
	r.weak = true;
	http_select(rc->buf, rc->req, &r, &sel);
	/* HTTP/1.0 has no chunks: the end of the body is the close. */
	if (!chunked && !http_selection_bodyless(&sel))
		rc->keep_alive = false;
	respond_head_init(rc, &h, sel.status);
	http_select_head(&h, content_type, extra, &r, &sel,
			 rc->worker->date.second);
	if (http_selection_bodyless(&sel))
		return respond_bodyless(rc, &h);
	h.content_length = HTTP_NO_LENGTH;
	h.chunked = chunked;
	hlen = http_response_head_build(rc->scratch, EXCHANGE_SCRATCH, &h);
	if (hlen == 0)
		return -1;
	rc->status = sel.status;
	if (rc->head_only)
		return exchange_write(rc, rc->scratch, hlen, false);
	s = compress_stream_new(coding);
	if (!s || coro_defer(rc->conn->coro, free_stream, s)) {
		compress_stream_free(s);
		return respond_status(rc, 503, NULL, 0);
	}
	if (coro_defer(rc->conn->coro, release_stream_slot, rc->worker))
		return respond_status(rc, 503, NULL, 0);
	rc->worker->coded_streams++;
	in = malloc(RESPOND_CODED_STEP);
	if (!in || coro_defer(rc->conn->coro, free_arg, in)) {
		free(in);
		return respond_status(rc, 503, NULL, 0);
	}
	k = calloc(1, sizeof(*k));
	if (!k || coro_defer(rc->conn->coro, free_copy, k)) {
		free(k);
		return respond_status(rc, 503, NULL, 0);
	}
	/* One response at a time makes the copy, and none once it was too
	 * large: so a crowd of first requests costs no crowd of copies. */
	if (e && !e->rep[coding].keeping) {
		k->data = malloc(RESPOND_CODED_KEEP_MAX);
		if (k->data) {
			k->rep = &e->rep[coding];
			k->rep->keeping = true;
		}
	}
	if (exchange_write(rc, rc->scratch, hlen, true))
		return -1;
	/* The head has left: scratch takes the compressed pieces. */
	if (send_compressed(rc, s, fd, (uint64_t)st->st_size, in, rc->scratch,
			    EXCHANGE_SCRATCH, chunked, k))
		return -1;
	if (e)
		keep_copy(rc, e, coding, fd, st, k, &r);
	return 0;
}
