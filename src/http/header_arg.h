/* SPDX-License-Identifier: MIT */
/*
 * An operator's header line, "[/prefix/:]Name: value": sehttpd's --header
 * and khttpd's headers= (struct http_header_rule once formatted).
 */
#ifndef HTTP_HEADER_ARG_H
#define HTTP_HEADER_ARG_H

#include "compat.h"
#include "response.h"

struct http_header_arg {
	const char *prefix; /* "" when the line is for every path */
	const char *name;
	const char *value; /* without its surrounding whitespace */
	size_t prefix_len, name_len, value_len;
	/* HTTP_HEADER_ARG_MANAGED and _CORS: the header, as it is spelt */
	const char *managed;
};

enum http_header_arg_error {
	HTTP_HEADER_ARG_OK,
	HTTP_HEADER_ARG_NO_HEADER,
	HTTP_HEADER_ARG_BAD_PREFIX,
	HTTP_HEADER_ARG_NO_COLON,
	HTTP_HEADER_ARG_EMPTY_NAME,
	HTTP_HEADER_ARG_BAD_NAME,
	HTTP_HEADER_ARG_BAD_VALUE,
	/* the server writes it itself (framing, metadata, validators) */
	HTTP_HEADER_ARG_MANAGED,
	/* the CORS answer writes it (with --cors or cors=) */
	HTTP_HEADER_ARG_CORS,
};

/* Splits arg without copying; the error says what is wrong. */
enum http_header_arg_error http_header_arg_split(const char *arg,
						 struct http_header_arg *h);

/* HTTP_HEADER_ARG_CORS when h names a header the CORS answer sets. */
enum http_header_arg_error
http_header_arg_check_cors(struct http_header_arg *h);

/* What is wrong, in a few words ("empty header name"). */
const char *http_header_arg_error_text(enum http_header_arg_error e);

/*
 * Fills r with h's rule, its line "Name: value\r\n" written at out (the
 * length of h's arg and 3 bytes more at most); returns the line's length.
 */
size_t http_header_rule_from_arg(struct http_header_rule *r, char *out,
				 const struct http_header_arg *h);

/* What the CORS lines take beyond the origin's length. */
#define HTTP_HEADER_CORS_EXTRA 45

/*
 * Fills r with the rule of a CORS origin ('*' or one origin, checked by
 * http_site_cors_origin_check()): Access-Control-Allow-Origin, and for one
 * origin "Vary: Origin" (caches must not share the answer), on every
 * response, errors too, so that scripts can read why.  The lines are
 * written at out; returns their length.
 */
size_t http_header_rule_cors(struct http_header_rule *r, char *out,
			     const char *origin);

#endif /* HTTP_HEADER_ARG_H */
