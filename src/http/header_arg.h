/* SPDX-License-Identifier: MIT */
/*
 * An operator's header line, "[/prefix/:]Name: value": sehttpd's --header
 * and khttpd's headers= (struct http_header_rule once formatted).
 */
#ifndef HTTP_HEADER_ARG_H
#define HTTP_HEADER_ARG_H

#include "compat.h"

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

#endif /* HTTP_HEADER_ARG_H */
