// SPDX-License-Identifier: MIT
#include "respond_coded.h"

#include <errno.h>
#include <fcntl.h>
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
	return size >= RESPOND_CODED_MIN && size <= RESPOND_CODED_MAX &&
	       !exchange_range_requested(rc) &&
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

struct coded_body {
	struct worker *w; /* whose slot it holds */
	struct compress_stream *s;
	int fd;
	bool own_fd; /* a duplicate: an HTTP/2 stream outlives the request */
	struct stat st; /* the file when the response began */
	uint64_t off; /* read so far */
	char *in;
	size_t in_len, in_at; /* the step read, and what of it was taken */
	bool ended;
	/* The copy for the cache (NULL: none kept, not asked for or
	 * too large), and the representation it is for, marked keeping
	 * until the copy is kept, found too large, or given up. */
	struct cache_entry *e; /* held */
	struct cache_rep *rep;
	enum http_coding coding;
	char *copy;
	size_t copy_len;
	char etag[HTTP_ETAG_MAX];
	size_t etag_len;
};

void coded_body_free(struct coded_body *b)
{
	if (!b)
		return;
	/* A copy given up (the response cut short) may be tried again. */
	if (b->rep)
		b->rep->keeping = false;
	free(b->copy);
	if (b->e)
		content_cache_put(b->e);
	free(b->in);
	if (b->own_fd && b->fd >= 0)
		close(b->fd);
	compress_stream_free(b->s);
	b->w->coded_streams--;
	free(b);
}

/* NULL when out of memory or descriptors; dup: fd outlives the request. */
static struct coded_body *coded_body_new(struct worker *w, int fd, bool dup,
					 const struct stat *st,
					 enum http_coding coding,
					 struct cache_entry *e,
					 const struct http_representation *r)
{
	struct coded_body *b = calloc(1, sizeof(*b));

	if (!b)
		return NULL;
	b->w = w;
	w->coded_streams++;
	b->st = *st;
	b->coding = coding;
	b->own_fd = dup;
	b->fd = dup ? fcntl(fd, F_DUPFD_CLOEXEC, 0) : fd;
	b->s = compress_stream_new(coding);
	b->in = malloc(RESPOND_CODED_STEP);
	if (b->fd < 0 || !b->s || !b->in) {
		coded_body_free(b);
		return NULL;
	}
	/* One response at a time makes the copy, and none once it was too
	 * large: so a crowd of first requests costs no crowd of copies. */
	if (e && !e->rep[coding].keeping && r->etag_len <= sizeof(b->etag)) {
		b->copy = malloc(RESPOND_CODED_KEEP_MAX);
		if (b->copy) {
			content_cache_hold(e);
			b->e = e;
			b->rep = &e->rep[coding];
			b->rep->keeping = true;
			memcpy(b->etag, r->etag, r->etag_len);
			b->etag_len = r->etag_len;
		}
	}
	return b;
}

uint64_t coded_body_consumed(const struct coded_body *b)
{
	return b->off - (b->in_len - b->in_at);
}

static void copy_append(struct coded_body *b, const void *out, size_t len)
{
	if (!b->copy)
		return;
	if (b->copy_len + len > RESPOND_CODED_KEEP_MAX) {
		/* Too large for good: rep stays marked, no one copies it. */
		free(b->copy);
		b->copy = NULL;
		b->rep = NULL;
		return;
	}
	memcpy(b->copy + b->copy_len, out, len);
	b->copy_len += len;
}

/*
 * Whether the file is no longer what it was when the response began.  A
 * write sets the time before it copies, so a step read with new bytes in
 * it is seen here, after the read.
 */
static bool changed(const struct coded_body *b)
{
	struct stat now;

	return fstat(b->fd, &now) || now.st_size != b->st.st_size ||
	       now.st_mtim.tv_sec != b->st.st_mtim.tv_sec ||
	       now.st_mtim.tv_nsec != b->st.st_mtim.tv_nsec;
}

/* Keeps the copy in the cache when the file is still what it was. */
static void keep_copy(struct coded_body *b)
{
	if (!b->copy || changed(b))
		return;
	content_cache_attach_coded(b->w->cache, b->e, b->coding, b->copy,
				   b->copy_len, b->etag, b->etag_len);
	b->copy = NULL; /* taken */
	b->rep = NULL;
}

/*
 * Reads the file in steps of RESPOND_CODED_STEP.  A file that changed under
 * us (over HTTP/2, a shut window can hold the reads back for long) ends
 * the response short: the client sees it cut, never a mix of two versions
 * or padded.
 */
enum coded_body_state coded_body_next(struct coded_body *b, char *out,
				      size_t out_cap, size_t *made)
{
	uint64_t size = (uint64_t)b->st.st_size;

	*made = 0;
	while (!b->ended) {
		size_t used, n = out_cap - *made;
		int r;

		if (b->in_at == b->in_len && b->off < size) {
			size_t want = size - b->off < RESPOND_CODED_STEP ?
					      (size_t)(size - b->off) :
					      RESPOND_CODED_STEP;
			ssize_t got;

			do {
				got = pread(b->fd, b->in, want, (off_t)b->off);
			} while (got < 0 && errno == EINTR);
			if (got != (ssize_t)want || changed(b))
				return CODED_BODY_ERROR;
			b->off += want;
			b->in_len = want;
			b->in_at = 0;
		}
		r = compress_stream_step(b->s, b->in + b->in_at,
					 b->in_len - b->in_at, &used,
					 out + *made, &n, b->off == size);
		if (r < 0)
			return CODED_BODY_ERROR;
		b->in_at += used;
		copy_append(b, out + *made, n);
		*made += n;
		if (r == 1)
			b->ended = true;
		else if (*made == out_cap)
			return CODED_BODY_MORE;
		else if (b->in_at == b->in_len && b->off < size)
			return CODED_BODY_STEPPED;
	}
	keep_copy(b);
	return CODED_BODY_ENDED;
}

static void free_body(void *arg)
{
	coded_body_free(arg);
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

/* Pushes b's bytes through out (out_cap bytes), a turn between steps. */
static int send_compressed(struct exchange *rc, struct coded_body *b, char *out,
			   size_t out_cap, bool chunked)
{
	enum coded_body_state state;

	do {
		size_t made;

		state = coded_body_next(b, out, out_cap, &made);
		if (state == CODED_BODY_ERROR)
			return -1;
		if (made && send_piece(rc, out, made, chunked, false))
			return -1;
		/* Others on this thread get a turn between steps. */
		if (state == CODED_BODY_STEPPED && conn_yield_turn(rc->conn))
			return -1;
	} while (state != CODED_BODY_ENDED);
	return send_piece(rc, NULL, 0, chunked, true);
}

int respond_file_coded(struct exchange *rc, int fd, const struct stat *st,
		       const char *content_type, enum http_coding coding,
		       struct cache_entry *e)
{
	const struct http_file_id f = respond_file_id(st);
	char extra[HTTP_SELECT_HEADERS_MAX];
	char etag[HTTP_ETAG_MAX];
	struct http_response_head h;
	struct http_representation r;
	struct http_selection sel;
	struct coded_body *b;
	bool chunked = !rc->http2 && rc->req->version_minor >= 1;
	size_t hlen;

	/* Ranges are answered from the identity bytes. */
	http_file_representation(&f, coding, true, etag, &r);
	r.weak = true;
	http_select(rc->buf, rc->req, &r, rc->worker->date.second, &sel);
	/* HTTP/1.0 has no chunks: the end of the body is the close. */
	if (!chunked && !rc->http2 && !http_selection_bodyless(&sel))
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
	b = coded_body_new(rc->worker, fd, rc->out->coded != NULL, st, coding,
			   e, &r);
	if (!b)
		return respond_status(rc, 503, NULL, 0);
	if (rc->out->coded) {
		if (exchange_write(rc, rc->scratch, hlen, true)) {
			coded_body_free(b);
			return -1;
		}
		return rc->out->coded(rc, b);
	}
	if (coro_defer(rc->conn->coro, free_body, b)) {
		coded_body_free(b);
		return respond_status(rc, 503, NULL, 0);
	}
	if (exchange_write(rc, rc->scratch, hlen, true))
		return -1;
	/* The head has left: scratch takes the compressed pieces. */
	return send_compressed(rc, b, rc->scratch, EXCHANGE_SCRATCH, chunked);
}
