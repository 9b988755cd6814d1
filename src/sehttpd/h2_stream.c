// SPDX-License-Identifier: MIT
#include "h2_stream.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "cache.h"
#include "conn_io.h"
#include "h2.h"
#include "respond_coded.h"
#include "server.h"

/* Bytes a stream's DATA may send before the thread's others get a turn. */
#define H2_TURN_BYTES (1u << 20)
/* Bodies this small are copied beside the frames, not written apart. */
#define H2_GATHER_MAX 4096
/* A coded body is made a frame's payload at a time (RFC 9113 4.2). */
#define H2_CODED_OUT 16384
/* Compressing input costs as much a byte as sending 16 bytes does: a turn
 * every RESPOND_CODED_STEP, as HTTP/1.1's compressed bodies give one. */
#define H2_CODED_WEIGHT (H2_TURN_BYTES / RESPOND_CODED_STEP)

/* Buffers larger than this are not kept for the next stream. */
#define H2_BUF_KEEP 4096

static void buf_trim(struct h2_buf *b)
{
	if (b->cap > H2_BUF_KEEP) {
		free(b->p);
		b->p = NULL;
		b->cap = 0;
	}
	b->len = 0;
}

static void stream_destroy(struct h2_stream *st)
{
	free(st->pseudo.p);
	free(st->fields.p);
	free(st->cookie.p);
	free(st->head.p);
	free(st->resp.p);
	free(st->copy.p);
	free(st);
}

void h2_stream_pool_init(struct h2_stream_pool *pool)
{
	INIT_LIST_HEAD(&pool->free);
	pool->count = 0;
}

void h2_stream_pool_drain(struct h2_stream_pool *pool)
{
	struct h2_stream *st, *next;

	if (!pool->free.next)
		return; /* a worker that was never set up */
	list_for_each_entry_safe(st, next, &pool->free, link)
		stream_destroy(st);
	h2_stream_pool_init(pool);
}

struct h2_stream *h2_stream_get(struct h2_stream_pool *pool, int32_t id)
{
	struct h2_stream *st;

	if (pool->count) {
		st = list_first_entry(&pool->free, struct h2_stream, link);
		list_del(&st->link);
		pool->count--;
	} else {
		st = calloc(1, sizeof(*st));
		if (!st)
			return NULL;
	}
	/* All but the kept buffers and the response fields, which nnv
	 * bounds, start afresh. */
	memset(st, 0, offsetof(struct h2_stream, pseudo));
	st->id = id;
	INIT_LIST_HEAD(&st->link);
	INIT_LIST_HEAD(&st->ready_link);
	return st;
}

void h2_stream_put(struct h2_stream_pool *pool, struct h2_stream *st)
{
	for (unsigned int i = 0; i < st->nseg; i++)
		if (st->seg[i].kind == H2_SEG_FILE)
			close(st->seg[i].fd);
	if (st->entry)
		content_cache_put(st->entry);
	coded_body_free(st->coded);
	free(st->coded_out);
	st->nseg = 0;
	st->entry = NULL;
	st->coded = NULL;
	st->coded_out = NULL;
	if (pool->count >= H2_POOL_KEEP) {
		stream_destroy(st);
		return;
	}
	buf_trim(&st->pseudo);
	buf_trim(&st->fields);
	buf_trim(&st->cookie);
	buf_trim(&st->head);
	buf_trim(&st->resp);
	buf_trim(&st->copy);
	list_add(&st->link, &pool->free);
	pool->count++;
}

static bool name_is(const uint8_t *name, size_t len, const char *lit)
{
	return len == strlen(lit) && memcmp(name, lit, len) == 0;
}

/* Room for len more bytes in b, which grows to at most max; false beyond
 * max or when out of memory. */
static bool buf_reserve(struct h2_buf *b, size_t len, size_t max)
{
	size_t want;
	char *p;

	if (b->len + len > max)
		return false;
	if (b->len + len <= b->cap)
		return true;
	want = b->cap ? b->cap : 512;
	while (want < b->len + len)
		want *= 2;
	p = realloc(b->p, want);
	if (!p)
		return false;
	b->p = p;
	b->cap = want;
	return true;
}

static void buf_put(struct h2_buf *b, const void *p, size_t len)
{
	memcpy(b->p + b->len, p, len);
	b->len += len;
}

static int set_pseudo(struct h2_stream *st, struct h2_span *span,
		      const uint8_t *value, size_t len)
{
	/* The request line's limit, as HTTP/1.1 has it. */
	if (len > HTTP_MAX_REQUEST_LINE) {
		st->refused = span == &st->path ? 414 : 431;
		return 0;
	}
	if (!buf_reserve(&st->pseudo, len, SIZE_MAX))
		return -1;
	*span = (struct h2_span){ (uint32_t)st->pseudo.len, (uint32_t)len,
				  true };
	buf_put(&st->pseudo, value, len);
	return 0;
}

int h2_stream_count_field(struct h2_stream *st, size_t namelen, size_t valuelen)
{
	/* Each field counts 32 more, as SETTINGS_MAX_HEADER_LIST_SIZE. */
	st->decoded += namelen + valuelen + 32;
	return st->decoded > H2_HEADER_LIST_MAX;
}

/* What one "cookie: ...\r\n" line of n bytes of cookies takes. */
static size_t cookie_line_len(size_t n)
{
	return n ? sizeof("cookie: \r\n") - 1 + n : 0;
}

/* The bytes the cookies take in the head. */
static size_t cookie_line(const struct h2_stream *st)
{
	return cookie_line_len(st->cookie.len);
}

/*
 * A cookie crumb: browsers send each cookie as a field of its own, which
 * are joined into one before the head goes where HTTP/1.1's would (RFC
 * 9113 8.2.3); as fields, a hundred cookies got a 431 that HTTP/1.1,
 * with one Cookie line, is not given.
 */
static int add_cookie(struct h2_stream *st, const uint8_t *value,
		      size_t valuelen)
{
	size_t more = st->cookie.len ? 2 + valuelen : valuelen;

	if (!st->cookie.len && st->nfields >= HTTP_MAX_HEADER_FIELDS) {
		st->refused = 431;
		return 0;
	}
	/* The line as it will be with this crumb. */
	if (st->fields.len + cookie_line_len(st->cookie.len + more) >
	    HTTP_MAX_HEADER_SECTION) {
		st->refused = 431;
		return 0;
	}
	if (!buf_reserve(&st->cookie, more, SIZE_MAX))
		return -1;
	if (st->cookie.len)
		buf_put(&st->cookie, "; ", 2);
	else
		st->nfields++;
	buf_put(&st->cookie, value, valuelen);
	return 0;
}

int h2_stream_add_field(struct h2_stream *st, const uint8_t *name,
			size_t namelen, const uint8_t *value, size_t valuelen)
{
	size_t line = namelen + 2 + valuelen + 2;

	if (h2_stream_count_field(st, namelen, valuelen))
		return 1;
	if (st->refused)
		return 0;
	if (namelen > 0 && name[0] == ':') {
		if (name_is(name, namelen, ":method"))
			return set_pseudo(st, &st->method, value, valuelen);
		if (name_is(name, namelen, ":path"))
			return set_pseudo(st, &st->path, value, valuelen);
		if (name_is(name, namelen, ":authority"))
			return set_pseudo(st, &st->authority, value, valuelen);
		return 0; /* :scheme: the connection knows its own */
	}
	/* :authority stands for Host (RFC 9113 8.3.1); a Host that names
	 * another makes the request malformed, as it SHOULD. */
	if (st->authority.set && name_is(name, namelen, "host")) {
		if (valuelen != st->authority.len ||
		    strncasecmp((const char *)value,
				st->pseudo.p + st->authority.off, valuelen))
			st->refused = 400;
		return 0;
	}
	if (name_is(name, namelen, "cookie") && valuelen)
		return add_cookie(st, value, valuelen);
	if (st->nfields >= HTTP_MAX_HEADER_FIELDS ||
	    st->fields.len + cookie_line(st) + line > HTTP_MAX_HEADER_SECTION) {
		st->refused = 431;
		return 0;
	}
	if (!buf_reserve(&st->fields, line, SIZE_MAX))
		return -1;
	buf_put(&st->fields, name, namelen);
	buf_put(&st->fields, ": ", 2);
	buf_put(&st->fields, value, valuelen);
	buf_put(&st->fields, "\r\n", 2);
	st->nfields++;
	return 0;
}

int h2_stream_parse(struct h2_stream *st)
{
	static const char version[] = " HTTP/1.1\r\n";
	const struct h2_span *target = st->path.set	 ? &st->path :
				       st->authority.set ? &st->authority :
							   NULL;
	struct http_parser p;
	struct h2_buf *h = &st->head;
	size_t len;
	int r;

	if (st->refused)
		return st->refused;
	if (!st->method.set || !target)
		return 400;
	len = st->method.len + 1 + target->len + sizeof(version) - 1 +
	      (st->authority.set ? 6 + st->authority.len + 2 : 0) +
	      st->fields.len + cookie_line(st) + 2;
	h->len = 0;
	if (!buf_reserve(h, len, SIZE_MAX))
		return 503;
	buf_put(h, st->pseudo.p + st->method.off, st->method.len);
	buf_put(h, " ", 1);
	buf_put(h, st->pseudo.p + target->off, target->len);
	buf_put(h, version, sizeof(version) - 1);
	if (st->authority.set) {
		buf_put(h, "host: ", 6);
		buf_put(h, st->pseudo.p + st->authority.off, st->authority.len);
		buf_put(h, "\r\n", 2);
	}
	if (st->fields.len)
		buf_put(h, st->fields.p, st->fields.len);
	if (st->cookie.len) {
		buf_put(h, "cookie: ", 8);
		buf_put(h, st->cookie.p, st->cookie.len);
		buf_put(h, "\r\n", 2);
	}
	buf_put(h, "\r\n", 2);

	http_parser_init(&p);
	r = http_parse_request(&p, &st->req, h->p, h->len);
	if (r < 0)
		return -r;
	return r == HTTP_PARSE_AGAIN ? 400 : 0;
}

/*
 * Fields a connection carries in HTTP/1.1 and HTTP/2 forbids (RFC 9113
 * 8.2.2), in any case: told apart by length first, since this runs for
 * every field of every response.
 */
static bool hop_by_hop(const char *name, size_t len)
{
	switch (len) {
	case 7:
		return !strncasecmp(name, "upgrade", len);
	case 10:
		return !strncasecmp(name, "connection", len) ||
		       !strncasecmp(name, "keep-alive", len);
	case 16:
		return !strncasecmp(name, "proxy-connection", len);
	case 17:
		return !strncasecmp(name, "transfer-encoding", len);
	}
	return false;
}

static void nv_set(nghttp2_nv *nv, char *name, size_t namelen, char *value,
		   size_t valuelen)
{
	*nv = (nghttp2_nv){
		.name = (uint8_t *)name,
		.value = (uint8_t *)value,
		.namelen = namelen,
		.valuelen = valuelen,
		.flags = NGHTTP2_NV_FLAG_NO_COPY_NAME |
			 NGHTTP2_NV_FLAG_NO_COPY_VALUE,
	};
}

/* p, moved from within the bytes at from to the same place in to. */
static uint8_t *moved(uint8_t *p, const char *from, char *to)
{
	return (uint8_t *)to + (p - (const uint8_t *)from);
}

/*
 * The response code's HTTP/1.1 head (status line, fields, empty line) at
 * the start of the len bytes at head, which may go on with body bytes, as
 * HTTP/2 fields in a copy the stream keeps until nghttp2 has sent them.
 * One pass over the lines finds both the fields and the head's end.
 * Returns the head's length, or -1 when it is not a whole head.
 */
static ssize_t take_head(struct h2_stream *st, const char *head, size_t len)
{
	static char status_name[] = ":status";
	const char *end = head + len;
	const char *p = memchr(head, '\n', len);
	size_t nnv = 1, head_len;
	char *copy;

	if (len < 16 || memcmp(head, "HTTP/1.", 7) != 0)
		return -1;
	for (;;) {
		const char *eol, *colon, *v;

		if (!p || ++p >= end)
			return -1;
		eol = memchr(p, '\n', (size_t)(end - p));
		if (!eol || eol == p || eol[-1] != '\r')
			return -1;
		if (eol - 1 == p)
			break; /* the empty line */
		colon = memchr(p, ':', (size_t)(eol - 1 - p));
		if (!colon)
			return -1;
		v = colon + 1;
		while (v < eol - 1 && (*v == ' ' || *v == '\t'))
			v++;
		if (!hop_by_hop(p, (size_t)(colon - p))) {
			if (nnv == H2_RESPONSE_FIELDS)
				return -1;
			nv_set(&st->nv[nnv++], (char *)p, (size_t)(colon - p),
			       (char *)v, (size_t)(eol - 1 - v));
		}
		p = eol;
	}
	head_len = (size_t)(p + 2 - head);
	st->resp.len = 0;
	if (!buf_reserve(&st->resp, head_len, SIZE_MAX))
		return -1;
	copy = st->resp.p;
	buf_put(&st->resp, head, head_len);
	nv_set(&st->nv[0], status_name, 7, copy + 9, 3);
	for (size_t i = 1; i < nnv; i++) {
		nghttp2_nv *nv = &st->nv[i];

		nv->name = moved(nv->name, head, copy);
		nv->value = moved(nv->value, head, copy);
		for (size_t k = 0; k < nv->namelen; k++)
			if (nv->name[k] >= 'A' && nv->name[k] <= 'Z')
				nv->name[k] =
					(uint8_t)(nv->name[k] - 'A' + 'a');
	}
	st->nnv = nnv;
	st->head_done = true;
	return (ssize_t)head_len;
}

static struct h2_segment *segment_add(struct h2_stream *st,
				      enum h2_segment_kind kind)
{
	struct h2_segment *s;

	if (st->nseg == H2_BODY_SEGMENTS)
		return NULL;
	s = &st->seg[st->nseg++];
	*s = (struct h2_segment){ .kind = kind, .fd = -1 };
	return s;
}

/* Body bytes in memory: held through the cache entry they are in, else
 * copied (error pages, small files read into scratch). */
static int take_body(struct exchange *rc, struct h2_stream *st, const char *p,
		     size_t len)
{
	struct h2_segment *s = st->nseg ? &st->seg[st->nseg - 1] : NULL;

	if (rc->body_entry) {
		if (!st->entry) {
			content_cache_hold(rc->body_entry);
			st->entry = rc->body_entry;
		}
		s = segment_add(st, H2_SEG_MEMORY);
		if (!s)
			return -1;
		s->data = p;
		s->len = len;
		return 0;
	}
	if (!s || s->kind != H2_SEG_COPY) {
		s = segment_add(st, H2_SEG_COPY);
		if (!s)
			return -1;
		s->off = st->copy.len;
	}
	if (!buf_reserve(&st->copy, len, SIZE_MAX))
		return -1;
	buf_put(&st->copy, p, len);
	s->len += len;
	return 0;
}

static int stream_writev(struct exchange *rc, struct iovec *iov, int iovcnt,
			 bool more)
{
	struct h2_stream *st = rc->out_ctx;

	(void)more;
	for (int i = 0; i < iovcnt && !st->failed; i++) {
		const char *p = iov[i].iov_base;
		size_t len = iov[i].iov_len;

		if (!st->head_done) {
			ssize_t n = take_head(st, p, len);

			if (n < 0) {
				st->failed = true;
				break;
			}
			len -= (size_t)n;
			p += n;
		}
		if (len && take_body(rc, st, p, len))
			st->failed = true;
	}
	if (st->failed) {
		errno = ENOMEM;
		return -1;
	}
	return 0;
}

/* A place in the pool for a descriptor beyond the connection's first. */
static bool take_fd_place(struct h2_stream *st)
{
	if (!st->fd_pool || st->pooled_fd)
		return true;
	if (atomic_fetch_add_explicit(st->fd_pool, 1, memory_order_relaxed) >=
	    st->fd_pool_max) {
		atomic_fetch_sub_explicit(st->fd_pool, 1, memory_order_relaxed);
		st->fd_refused = true;
		return false;
	}
	st->pooled_fd = true;
	return true;
}

static int stream_sendfile(struct exchange *rc, int fd, off_t offset,
			   uint64_t len)
{
	struct h2_stream *st = rc->out_ctx;
	struct h2_segment *s;
	int dup_fd;

	if (len == 0)
		return 0;
	if (!st->head_done || !take_fd_place(st) ||
	    !(s = segment_add(st, H2_SEG_FILE))) {
		st->failed = true;
		return -1;
	}
	/* The request's descriptor closes when the request is done; the
	 * frames go later, interleaved with other streams'. */
	dup_fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (dup_fd < 0) {
		st->nseg--;
		st->failed = true;
		return -1;
	}
	s->fd = dup_fd;
	s->off = (uint64_t)offset;
	s->len = len;
	return 0;
}

/* The body goes as nghttp2 asks for frames of it (read_body()). */
static int stream_coded(struct exchange *rc, struct coded_body *b)
{
	struct h2_stream *st = rc->out_ctx;
	struct h2_segment *s;

	if (!st->head_done || st->coded || !take_fd_place(st) ||
	    !(s = segment_add(st, H2_SEG_CODED))) {
		coded_body_free(b);
		st->failed = true;
		return -1;
	}
	st->coded_out = malloc(H2_CODED_OUT);
	if (!st->coded_out) {
		st->nseg--;
		coded_body_free(b);
		st->failed = true;
		return -1;
	}
	s->len = UINT64_MAX; /* unknown: it ends when the body does */
	st->coded = b;
	return 0;
}

const struct exchange_writer h2_stream_writer = {
	.writev = stream_writev,
	.sendfile = stream_sendfile,
	.coded = stream_coded,
};

static bool segment_sent(const struct h2_stream *st)
{
	if (st->seg[st->cur].kind == H2_SEG_CODED)
		return st->coded_ended && st->coded_at == st->coded_len;
	return st->cur_off == st->seg[st->cur].len;
}

/* Makes the coded body's next bytes once the last are sent: -1 when the
 * file shrank or could not be read. */
static int coded_fill(struct h2_stream *st)
{
	while (st->coded_at == st->coded_len && !st->coded_ended) {
		enum coded_body_state state;
		size_t made;

		state = coded_body_next(st->coded, st->coded_out, H2_CODED_OUT,
					&made);
		if (state == CODED_BODY_ERROR)
			return -1;
		st->coded_len = made;
		st->coded_at = 0;
		st->coded_ended = state == CODED_BODY_ENDED;
	}
	return 0;
}

/* nghttp2 asks for the next DATA payload: chosen here, written by
 * h2_stream_send_data() straight from where it is. */
static ssize_t read_body(nghttp2_session *session, int32_t stream_id,
			 uint8_t *buf, size_t length, uint32_t *flags,
			 nghttp2_data_source *source, void *user_data)
{
	struct h2_stream *st = source->ptr;
	uint64_t left;
	bool ends = true; /* the segment ends with what is left */

	(void)session;
	(void)stream_id;
	(void)buf;
	(void)user_data;
	while (st->cur < st->nseg && segment_sent(st)) {
		st->cur++;
		st->cur_off = 0;
	}
	if (st->cur == st->nseg) {
		*flags |= NGHTTP2_DATA_FLAG_EOF;
		st->body_ended = true;
		return 0;
	}
	if (st->seg[st->cur].kind == H2_SEG_CODED) {
		/* Reset, the connection goes on: cut, never padded. */
		if (coded_fill(st))
			return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE;
		left = st->coded_len - st->coded_at;
		ends = st->coded_ended;
	} else {
		left = st->seg[st->cur].len - st->cur_off;
	}
	st->frame_len = left < length ? left : length;
	*flags |= NGHTTP2_DATA_FLAG_NO_COPY;
	if (ends && st->frame_len == left && st->cur + 1 == st->nseg) {
		*flags |= NGHTTP2_DATA_FLAG_EOF;
		st->body_ended = true;
	}
	return (ssize_t)st->frame_len;
}

int h2_stream_submit(nghttp2_session *session, struct h2_stream *st)
{
	nghttp2_data_provider body = {
		.source.ptr = st,
		.read_callback = read_body,
	};

	return nghttp2_submit_response(session, st->id, st->nv, st->nnv,
				       st->nseg ? &body : NULL);
}

int h2_out_flush(struct h2_out *o, const void *body, size_t len, bool more)
{
	struct iovec iov[2] = { { o->buf, o->len }, { (void *)body, len } };
	int n = len ? 2 : 1;

	if (o->len == 0 && len == 0) {
		/* A body written apart with more said: push it now. */
		if (more || !o->held)
			return 0;
		o->held = false;
		return conn_push(o->c);
	}
	if (conn_writev(o->c, o->len ? iov : iov + 1, o->len ? n : 1, more))
		return -1;
	o->since_turn += o->len + len;
	o->len = 0;
	o->held = more;
	return 0;
}

int h2_out_append(struct h2_out *o, const void *p, size_t len)
{
	if (o->cap - o->len < len) {
		if (h2_out_flush(o, NULL, 0, true))
			return -1;
		if (len > o->cap)
			return h2_out_flush(o, p, len, true);
	}
	memcpy(o->buf + o->len, p, len);
	o->len += len;
	return 0;
}

/*
 * A file payload is read in beside its frame head (just appended), and
 * frames leave together, four to a write.  A DATA payload is at most
 * 16 KiB, HTTP/1.1's measured crossover below which sendfile does not
 * repay its separate write (FILE_SENDFILE_MIN): sending each frame's head
 * and then sendfile cost more on both ends (100 KiB files over h2c, 20,000
 * GETs: server 165 -> 146 ticks, h2load 2.4 -> 1.3 s, medians of three).
 * TLS without kTLS copies into records anyway.  Only kTLS, which
 * encrypts from the page cache, still sends frames with sendfile.
 */
static int read_beside(struct h2_out *o, int fd, uint64_t off, size_t len)
{
	ssize_t n;

	if (o->cap - o->len < len) {
		char head[H2_FRAME_HEAD_LEN];

		/* The head goes with its payload, not ahead of it. */
		o->len -= sizeof(head);
		memcpy(head, o->buf + o->len, sizeof(head));
		if (h2_out_flush(o, NULL, 0, true))
			return -1;
		memcpy(o->buf, head, sizeof(head));
		o->len = sizeof(head);
	}
	do {
		n = pread(fd, o->buf + o->len, len, (off_t)off);
	} while (n < 0 && errno == EINTR);
	if (n != (ssize_t)len) {
		/* Shrank under us: its head, still here, goes unsent. */
		o->len -= H2_FRAME_HEAD_LEN;
		return H2_STREAM_SHRANK;
	}
	o->len += len;
	o->since_turn += len;
	return 0;
}

int h2_stream_send_data(struct h2_out *o, struct h2_stream *st,
			const uint8_t *framehd, size_t length)
{
	struct h2_segment *s = &st->seg[st->cur];
	const char *p =
		s->kind == H2_SEG_MEMORY ? s->data + st->cur_off :
		s->kind == H2_SEG_COPY	 ? st->copy.p + s->off + st->cur_off :
		s->kind == H2_SEG_CODED	 ? st->coded_out + st->coded_at :
					   NULL;

	if (length != st->frame_len || st->cur_off + length > s->len)
		return -1;
	if (s->kind == H2_SEG_CODED) {
		uint64_t in = coded_body_consumed(st->coded);

		if (st->coded_at + length > st->coded_len)
			return -1;
		o->since_turn += (in - st->coded_in_seen) * H2_CODED_WEIGHT;
		st->coded_in_seen = in;
		st->coded_at += length;
	}
	/* A fast reader of a large body must not starve the thread. */
	if (o->since_turn >= H2_TURN_BYTES) {
		o->since_turn = 0;
		if (h2_out_flush(o, NULL, 0, false) || conn_yield_turn(o->c))
			return -1;
	}
	if (h2_out_append(o, framehd, H2_FRAME_HEAD_LEN))
		return -1;
	if (p && length <= H2_GATHER_MAX) {
		if (h2_out_append(o, p, length))
			return -1;
	} else if (p) {
		if (h2_out_flush(o, p, length, true))
			return -1;
	} else if (!o->c->tls_ktls && H2_FRAME_HEAD_LEN + length <= o->cap) {
		/* Copied: see read_beside(). */
		int r = read_beside(o, s->fd, s->off + st->cur_off, length);

		if (r)
			return r;
	} else {
		if (h2_out_flush(o, NULL, 0, true) ||
		    conn_sendfile(o->c, s->fd, (off_t)(s->off + st->cur_off),
				  length))
			return -1;
		o->held = false; /* sendfile pushes what it follows */
		o->since_turn += length;
	}
	st->cur_off += length;
	st->body_sent += length;
	return 0;
}
