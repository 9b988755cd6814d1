// SPDX-License-Identifier: MIT
#include "file_response.h"

#include <stdio.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "conn_io.h"
#include "coro.h"
#include "file_etag.h"
#include "http/chunked.h"
#include "http/range.h"
#include "respond.h"
#include "server.h"

/* What to send of a representation of size bytes. */
struct selection {
	int status; /* 200, 206, 304 or 416 */
	uint64_t first, last; /* for 206 */
};

static bool range_requested(const struct request_ctx *rc)
{
	return http_has_header(rc->req, HTTP_H_RANGE);
}

static struct selection select_part(const struct request_ctx *rc,
				    const char *etag, size_t etag_len,
				    int64_t last_modified, uint64_t size)
{
	struct selection sel = { .status = 200 };
	struct http_span v = rc->req->header[HTTP_H_RANGE];

	if (http_check_preconditions(rc->buf, rc->req, etag, etag_len,
				     last_modified) ==
	    HTTP_PRECOND_NOT_MODIFIED) {
		sel.status = 304;
		return sel;
	}
	if (!range_requested(rc) ||
	    !http_if_range_allows(rc->buf, rc->req, etag, etag_len,
				  last_modified))
		return sel;
	switch (http_parse_range(rc->buf + v.off, v.len, size, &sel.first,
				 &sel.last)) {
	case HTTP_RANGE_OK:
		sel.status = 206;
		break;
	case HTTP_RANGE_UNSATISFIABLE:
		sel.status = 416;
		break;
	case HTTP_RANGE_NONE:
		break;
	}
	return sel;
}

/* Appends "Content-Range: ..." for 206 and 416 to the header lines. */
static size_t add_content_range(char *extra, size_t len, size_t cap,
				const struct selection *sel, uint64_t size)
{
	char value[HTTP_CONTENT_RANGE_MAX];
	size_t n;

	if (sel->status == 206)
		n = http_format_content_range(value, sel->first, sel->last,
					      size);
	else if (sel->status == 416)
		n = http_format_content_range(value, 1, 0, size);
	else
		return len;
	return len + (size_t)snprintf(extra + len, cap - len,
				      "Content-Range: %.*s\r\n", (int)n, value);
}

/* Sends a head-only answer (304), or a 416 with its error page. */
static int respond_without_body(struct request_ctx *rc,
				struct http_response_head *h)
{
	size_t n;

	if (h->status == 416) {
		const char *page = http_error_body(416, &n);

		h->content_type = "text/html; charset=utf-8";
		return respond_with_body(rc, h, page, n);
	}
	/* 304: no body and no Content-Length (RFC 9110 15.4.5). */
	h->content_type = NULL;
	n = http_response_head_build(rc->scratch, HTTP_CONN_SCRATCH, h);
	if (n == 0)
		return -1;
	rc->status = h->status;
	return conn_write(rc->conn, rc->scratch, n, false);
}

static void put_entry(void *arg)
{
	content_cache_put(arg);
}

int respond_from_entry(struct request_ctx *rc, struct cache_entry *e)
{
	struct worker *w = rc->worker;
	enum http_coding coding = HTTP_CODING_IDENTITY;
	const struct cache_rep *rep;
	struct http_response_head h;
	struct selection sel = { .status = 200 };
	char extra[CACHE_REP_HEADERS_MAX + 96];
	char chunk_head[HTTP_CHUNK_HEADER_MAX];
	static const char tail[] = HTTP_CHUNK_END HTTP_LAST_CHUNK;
	struct iovec iov[4];
	size_t hlen, extra_len;
	const char *body;
	uint64_t len;
	bool chunked;
	int n = 0;

	if (coro_defer(rc->conn->coro, put_entry, e)) {
		content_cache_put(e);
		return respond_status(rc, 503, NULL, 0);
	}
	if (e->compressible &&
	    http_has_header(rc->req, HTTP_H_ACCEPT_ENCODING) &&
	    !(e->kind == CACHE_FILE && range_requested(rc))) {
		char tmp[HTTP_LIST_JOIN_MAX];
		const char *accept;
		size_t accept_len = http_header_list(rc->buf, rc->req,
						     HTTP_H_ACCEPT_ENCODING,
						     tmp, sizeof(tmp), &accept);

		coding = http_choose_coding(
			accept, accept_len,
			HTTP_CODING_BIT(HTTP_CODING_GZIP) |
				HTTP_CODING_BIT(HTTP_CODING_DEFLATE));
	}
	rep = content_cache_rep(w->cache, e, coding, w->compressor);
	if (rep != &e->rep[HTTP_CODING_IDENTITY])
		stats_add(&w->stats.cache_compressed_hits, 1);
	if (e->kind == CACHE_FILE)
		sel = select_part(rc, rep->headers + rep->etag_off,
				  rep->etag_len, e->file.st_mtim.tv_sec,
				  rep->len);

	memcpy(extra, rep->headers, rep->headers_len);
	extra_len = add_content_range(extra, rep->headers_len, sizeof(extra),
				      &sel, rep->len);
	respond_head_init(rc, &h, sel.status);
	h.content_type = e->content_type;
	h.extra = extra;
	h.extra_len = extra_len;
	if (sel.status == 304 || sel.status == 416)
		return respond_without_body(rc, &h);

	body = rep->data;
	len = rep->len;
	if (sel.status == 206) {
		body += sel.first;
		len = sel.last - sel.first + 1;
	}
	/* Listings keep the chunked framing HTTP/1.1 clients get for them. */
	chunked = e->kind == CACHE_LISTING && rc->req->version_minor >= 1;
	h.chunked = chunked;
	h.content_length = chunked ? HTTP_NO_LENGTH : (int64_t)len;
	hlen = http_response_head_build(rc->scratch, HTTP_CONN_SCRATCH, &h);
	if (hlen == 0)
		return -1;
	rc->status = sel.status;
	iov[n++] = (struct iovec){ rc->scratch, hlen };
	if (!rc->head_only) {
		if (chunked && len) {
			iov[n++] = (struct iovec){
				chunk_head, http_chunk_header(chunk_head, len)
			};
		}
		if (len)
			iov[n++] = (struct iovec){ (void *)body, len };
		if (chunked)
			iov[n++] = len ? (struct iovec){ (void *)tail,
							 sizeof(tail) - 1 } :
					 (struct iovec){ (void *)(tail + 2),
							 sizeof(tail) - 3 };
		rc->body_bytes = len;
	}
	return conn_writev(rc->conn, iov, n, false);
}

int respond_from_file(struct request_ctx *rc, int fd, const struct stat *st,
		      const char *content_type)
{
	struct http_response_head h;
	char extra[HTTP_ETAG_MAX + 128], etag[HTTP_ETAG_MAX];
	uint64_t size = (uint64_t)st->st_size, len;
	size_t etag_len, extra_len, hlen;
	struct selection sel;

	etag_len = http_format_etag(etag, (uint64_t)st->st_ino, size,
				    file_etag_time(&st->st_mtim), "");
	sel = select_part(rc, etag, etag_len, st->st_mtim.tv_sec, size);
	extra_len = (size_t)snprintf(extra, sizeof(extra),
				     "ETag: %.*s\r\nAccept-Ranges: bytes\r\n",
				     (int)etag_len, etag);
	extra_len =
		add_content_range(extra, extra_len, sizeof(extra), &sel, size);
	respond_head_init(rc, &h, sel.status);
	h.content_type = content_type;
	h.last_modified = st->st_mtim.tv_sec;
	h.extra = extra;
	h.extra_len = extra_len;
	if (sel.status == 304 || sel.status == 416)
		return respond_without_body(rc, &h);
	if (sel.status != 206) {
		sel.first = 0;
		sel.last = size - 1;
	}
	len = size ? sel.last - sel.first + 1 : 0;
	h.content_length = (int64_t)len;
	hlen = http_response_head_build(rc->scratch, HTTP_CONN_SCRATCH, &h);
	if (hlen == 0)
		return -1;
	rc->status = sel.status;
	if (rc->head_only || len == 0)
		return conn_write(rc->conn, rc->scratch, hlen, false);
	if (len <= HTTP_CONN_SCRATCH - hlen) {
		/* Small: head and body leave in one write. */
		ssize_t got =
			pread(fd, rc->scratch + hlen, len, (off_t)sel.first);

		if (got != (ssize_t)len)
			return -1; /* changed under us; nothing was sent */
		rc->body_bytes = len;
		return conn_write(rc->conn, rc->scratch, hlen + len, false);
	}
	if (conn_write(rc->conn, rc->scratch, hlen, true) ||
	    conn_sendfile(rc->conn, fd, (off_t)sel.first, len))
		return -1;
	rc->body_bytes = len;
	return 0;
}
