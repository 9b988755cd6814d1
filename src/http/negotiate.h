/* SPDX-License-Identifier: MIT */
/* Choosing a content coding from Accept-Encoding (RFC 9110 12.5.3). */
#ifndef HTTP_NEGOTIATE_H
#define HTTP_NEGOTIATE_H

#include "compat.h"

enum http_coding {
	HTTP_CODING_IDENTITY,
	HTTP_CODING_GZIP,
	HTTP_CODING_DEFLATE, /* the zlib format (RFC 1950), as HTTP means it */
};

/* Bits for the codings a server can produce for a response. */
#define HTTP_CODING_BIT(c) (1u << (c))

/*
 * The coding to use for a response, given the request's Accept-Encoding
 * value (NULL when absent) and the codings available.  gzip is preferred,
 * deflate used when only it is acceptable; q=0 refuses a coding, "*" stands
 * for codings not listed.  Falls back to identity.
 */
enum http_coding http_choose_coding(const char *accept, size_t len,
				    unsigned available);

/* Its Content-Encoding value: "gzip", "deflate", or NULL for identity. */
const char *http_coding_name(enum http_coding c);

#endif /* HTTP_NEGOTIATE_H */
