// SPDX-License-Identifier: MIT
#include "layout.h"

static void add(struct http_layout *l, const void *base, size_t len)
{
	if (len)
		l->piece[l->n++] = (struct http_piece){ base, len };
}

/* data as a chunk; last: then the last-chunk, which an empty body is. */
static void add_chunked(struct http_layout *l, const void *data, size_t len,
			bool last)
{
	static const char tail[] = HTTP_CHUNK_END HTTP_LAST_CHUNK;

	if (len) {
		add(l, l->chunk_line, http_chunk_header(l->chunk_line, len));
		add(l, data, len);
		/* The chunk's CRLF, and the last-chunk with it when last. */
		add(l, tail, last ? sizeof(tail) - 1 : 2);
	} else if (last) {
		add(l, tail + 2, sizeof(tail) - 3);
	}
	l->body_len += len;
}

int http_layout_response(struct http_layout *l, char *buf, size_t cap,
			 struct http_response_head *h, const void *body,
			 size_t len, bool head_only)
{
	size_t hlen;

	if (!h->chunked)
		h->content_length = (int64_t)len;
	hlen = http_response_head_build(buf, cap, h);
	if (!hlen)
		return -1;
	l->n = 0;
	l->body_len = 0;
	add(l, buf, hlen);
	if (head_only)
		return 0;
	if (h->chunked) {
		add_chunked(l, body, len, true);
	} else {
		add(l, body, len);
		l->body_len = len;
	}
	return 0;
}

int http_layout_bodyless(struct http_layout *l, char *buf, size_t cap,
			 struct http_response_head *h, bool head_only)
{
	const char *page;
	size_t len;

	h->chunked = false;
	if (h->status == 304 || h->status == 204) {
		/* No Content-Length: it would be the representation's (304),
		 * and a 204 has none (RFC 9110 8.6). */
		h->content_type = NULL;
		h->content_length = HTTP_NO_LENGTH;
		len = http_response_head_build(buf, cap, h);
		l->n = 0;
		l->body_len = 0;
		add(l, buf, len);
		return len ? 0 : -1;
	}
	page = http_error_body(h->status, &len);
	h->content_type = "text/html; charset=utf-8";
	return http_layout_response(l, buf, cap, h, page, len, head_only);
}

void http_layout_piece(struct http_layout *l, const void *data, size_t len,
		       bool chunked, bool last)
{
	l->n = 0;
	l->body_len = 0;
	if (chunked) {
		add_chunked(l, data, len, last);
	} else {
		add(l, data, len);
		l->body_len = len;
	}
}
