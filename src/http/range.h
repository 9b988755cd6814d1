/* SPDX-License-Identifier: MIT */
/* The Range request header, for one byte range (RFC 9110 section 14). */
#ifndef HTTP_RANGE_H
#define HTTP_RANGE_H

#include "compat.h"

enum http_range_result {
	HTTP_RANGE_NONE, /* absent, malformed or several ranges: send all */
	HTTP_RANGE_OK, /* send [first, last] with 206 */
	HTTP_RANGE_UNSATISFIABLE, /* 416 */
};

/*
 * Interprets a Range value against a representation of size bytes.  Forms:
 * "bytes=a-b", "bytes=a-", "bytes=-n"; a last position past the end is
 * clamped, however many digits it has.  Several ranges are answered with
 * the whole representation.
 */
enum http_range_result http_parse_range(const char *v, size_t len,
					uint64_t size, uint64_t *first,
					uint64_t *last);

/* "bytes a-b/size" or, with first > last, "bytes * /size" (no space). */
size_t http_format_content_range(char *out, uint64_t first, uint64_t last,
				 uint64_t size);
#define HTTP_CONTENT_RANGE_MAX 72

#endif /* HTTP_RANGE_H */
