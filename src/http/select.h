/* SPDX-License-Identifier: MIT */
/*
 * Choosing what a response sends of a representation: the preconditions in
 * the order of RFC 9110 13.2.2, then If-Range and Range, and the header lines
 * that describe the choice.  Both servers answer files and listings with it.
 */
#ifndef HTTP_SELECT_H
#define HTTP_SELECT_H

#include "compat.h"
#include "parser.h"
#include "response.h"

/* What a server knows of one representation. */
struct http_representation {
	const char *etag; /* a strong tag, quotes included; NULL: none */
	size_t etag_len;
	int64_t last_modified; /* seconds; HTTP_NO_TIME: none */
	uint64_t size;
	bool ranges; /* byte ranges are served (Accept-Ranges: bytes) */
	bool varies; /* other codings exist (Vary: Accept-Encoding) */
	bool varies_by_type; /* other media types exist (Vary: Accept) */
	const char *coding; /* the Content-Encoding; NULL: identity */
};

/* What to answer. */
struct http_selection {
	int status; /* 200, 206, 304, 412 or 416 */
	uint64_t first; /* for 200 and 206: the bytes [first, first + len) */
	uint64_t len;
};

/*
 * Evaluates If-Match (412), If-Unmodified-Since without If-Match (412),
 * If-None-Match (304 for GET and HEAD, else 412), If-Modified-Since without
 * If-None-Match (304), then If-Range and Range (206 or 416) when rep->ranges.
 * Validators a representation does not have make their conditions ignored,
 * except "*", which any representation matches.
 */
void http_select(const char *buf, const struct http_request *req,
		 const struct http_representation *rep,
		 struct http_selection *sel);

/* True when the selection sends no bytes of the representation. */
static inline bool http_selection_bodyless(const struct http_selection *sel)
{
	return sel->status != 200 && sel->status != 206;
}

/*
 * ETag, Last-Modified (clamped to date, the response's Date: RFC 9110
 * 8.8.2.1), Accept-Ranges, Vary, Content-Encoding (only when the
 * representation is sent) and Content-Range (206 and 416): the header lines
 * of the answer, each ending in CRLF.  Returns their length, or 0 when cap
 * is too small (HTTP_SELECT_HEADERS_MAX always suffices).
 */
#define HTTP_SELECT_HEADERS_MAX 320
size_t http_select_headers(char *out, size_t cap,
			   const struct http_representation *rep,
			   const struct http_selection *sel, int64_t date);

#endif /* HTTP_SELECT_H */
