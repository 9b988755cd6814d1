/* SPDX-License-Identifier: MIT */
/*
 * A response laid out as the pieces of one gather write: the head, then a
 * body held in memory, framed as it is or as a chunk (chunk-size line, the
 * bytes, the CRLF that ends the chunk and, last, the last-chunk).  Each front
 * end only copies the pieces into its iovec or kvec and sends them.
 */
#ifndef HTTP_LAYOUT_H
#define HTTP_LAYOUT_H

#include "chunked.h"
#include "compat.h"
#include "response.h"

#define HTTP_LAYOUT_PIECES 4

struct http_piece {
	const void *base;
	size_t len;
};

struct http_layout {
	struct http_piece piece[HTTP_LAYOUT_PIECES];
	unsigned int n;
	uint64_t body_len; /* body bytes among the pieces, framing excluded */
	char chunk_line[HTTP_CHUNK_HEADER_MAX];
};

/*
 * Builds h's head into buf and lays out head and body (len bytes; none for
 * HEAD requests, head_only).  The body goes chunked when h->chunked, else
 * with a Content-Length of len.  Returns 0, or -1 when cap is too small.
 */
int http_layout_response(struct http_layout *l, char *buf, size_t cap,
			 struct http_response_head *h, const void *body,
			 size_t len, bool head_only);

/*
 * The answer that sends none of the representation (http_select's 304, 412
 * or 416, or a 204): a 304 or 204 is a head alone (RFC 9110 15.4.5), the
 * others carry their status page.  Returns 0, or -1 when cap is too small.
 */
int http_layout_bodyless(struct http_layout *l, char *buf, size_t cap,
			 struct http_response_head *h, bool head_only);

/*
 * Lays out (from empty) one more piece of a body whose head was sent
 * already: len bytes, when chunked as a chunk (none when len is 0) followed
 * when last by the last-chunk that ends the body.
 */
void http_layout_piece(struct http_layout *l, const void *data, size_t len,
		       bool chunked, bool last);

#endif /* HTTP_LAYOUT_H */
