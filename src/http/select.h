/* SPDX-License-Identifier: MIT */
/*
 * Choosing what a response sends of a representation: the preconditions in
 * the order of RFC 9110 13.2.2, then If-Range and Range, and the header lines
 * that describe the choice.  Both servers answer files and listings with it.
 */
#ifndef HTTP_SELECT_H
#define HTTP_SELECT_H

#include "compat.h"
#include "negotiate.h"
#include "parser.h"
#include "response.h"

/* What a server knows of one representation. */
struct http_representation {
	const char *etag; /* a tag, quotes included, no W/; NULL: none */
	size_t etag_len;
	/* etag is weak: sent as W/"...", it matches If-None-Match alone,
	 * never If-Match or If-Range, which compare strongly. */
	bool weak;
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
 * except "*", which any representation matches.  date is the response's
 * (seconds): a last_modified after it is taken as date, as the head says
 * (RFC 9110 8.8.2.1), and If-Range's date holds only for a modification
 * time surely a second or more before it (a strong validator, 8.8.2.2).
 */
void http_select(const char *buf, const struct http_request *req,
		 const struct http_representation *rep, int64_t date,
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

/*
 * Sets h's Content-Type and, written to extra (HTTP_SELECT_HEADERS_MAX
 * bytes), the header lines of the selection for rep.
 */
void http_select_head(struct http_response_head *h, const char *type,
		      char *extra, const struct http_representation *rep,
		      const struct http_selection *sel, int64_t date);

/* A file as it was found: what a representation sent from it says. */
struct http_file_id {
	uint64_t ino;
	uint64_t size;
	int64_t mtime_sec;
	long mtime_nsec;
};

/*
 * The representation of a file in coding, with byte ranges (of the file's
 * own bytes): its ETag, from the file's identity and the coding, is
 * written to etag (HTTP_ETAG_MAX bytes); varies: other codings exist.
 */
void http_file_representation(const struct http_file_id *f,
			      enum http_coding coding, bool varies, char *etag,
			      struct http_representation *rep);

/*
 * The representation of a file sent as it is, with byte ranges: the
 * resource itself (HTTP_CODING_IDENTITY), or a precompressed sibling
 * standing for it in coding; varies: the resource has other codings.  Its
 * ETag, from the file's identity, is written to etag (HTTP_ETAG_MAX
 * bytes).  Then what to answer of it, as http_select() says.
 */
void http_select_file(const char *buf, const struct http_request *req,
		      const struct http_file_id *f, enum http_coding coding,
		      bool varies, char *etag, int64_t date,
		      struct http_representation *rep,
		      struct http_selection *sel);

#endif /* HTTP_SELECT_H */
