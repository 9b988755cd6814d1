/* SPDX-License-Identifier: MIT */
/* Status lines, response heads and the small HTML error pages. */
#ifndef HTTP_RESPONSE_H
#define HTTP_RESPONSE_H

#include "compat.h"

#define HTTP_NO_LENGTH (-1)
#define HTTP_NO_TIME INT64_MIN

/*
 * Header lines an operator adds to responses (sehttpd --header, --cors):
 * lines, preformatted "Name: value\r\n" and validated at start-up, go on
 * responses whose path starts with prefix (prefix_len 0: every path), for
 * statuses below 400 only unless always.
 */
struct http_header_rule {
	const char *prefix;
	size_t prefix_len;
	const char *lines;
	size_t lines_len;
	bool always;
	/* A Cache-Control line: left out where the head says private. */
	bool cache_control;
};

struct http_response_head {
	int status;
	uint8_t version_minor; /* of the request: 1.0 needs keep-alive said */
	bool keep_alive;
	bool chunked;
	bool allow_get_head; /* "Allow: GET, HEAD", for 405 */
	bool allow_options; /* with allow_get_head: ", OPTIONS" too */
	/* Behind a password: "Cache-Control: private", so that no shared
	 * cache keeps it for clients without one. */
	bool cache_private;
	const char *server; /* product token */
	const char *date; /* HTTP_DATE_LEN bytes, formatted once a second */
	const char *content_type; /* NULL: none */
	int64_t content_length; /* HTTP_NO_LENGTH: none */
	int64_t last_modified; /* HTTP_NO_TIME: none */
	const char *location; /* with location_len; NULL: none */
	size_t location_len;
	const char *extra; /* preformatted header lines ending in CRLF */
	size_t extra_len;
	const struct http_header_rule *rules; /* nrules of them, or NULL */
	size_t nrules;
	const char *path; /* the request's decoded path, for rule prefixes */
	size_t path_len;
};

const char *http_status_reason(int status);

/*
 * Writes the status line and header section, including the final empty
 * line, into buf; returns its length, or 0 when cap is too small.
 */
size_t http_response_head_build(char *buf, size_t cap,
				const struct http_response_head *h);

/*
 * The status that answers a failed lookup or open, from a positive errno
 * value: 404 for what is not there, 403 for what may not be read (symlinks
 * or ".." leading out of the root included, and sockets or devices, which
 * open() refuses), 503 when out of resources.
 */
int http_status_for_errno(int err);

/*
 * True when a response with this status must end the connection: after a
 * malformed, unsupported or timed-out request the framing of what follows
 * cannot be trusted, and after a server error neither can the server.
 */
static inline bool http_status_closes(int status)
{
	return status == 400 || status == 408 || status == 414 ||
	       status == 431 || status >= 500;
}

/* The HTML body of an error response (constant; never NULL). */
const char *http_error_body(int status, size_t *len);

#endif /* HTTP_RESPONSE_H */
