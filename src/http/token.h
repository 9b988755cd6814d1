/* SPDX-License-Identifier: MIT */
/*
 * Byte-level tokenising shared by the units that read header values
 * (RFC 9110 section 5.6): case folding, optional whitespace and tchar.
 */
#ifndef HTTP_TOKEN_H
#define HTTP_TOKEN_H

#include "compat.h"

static inline char http_tolower(char c)
{
	return (c >= 'A' && c <= 'Z') ? (char)(c | 0x20) : c;
}

/* ALPHA and DIGIT (RFC 5234 B.1), whatever the locale. */
static inline bool http_is_alpha(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static inline bool http_is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* Optional whitespace (RFC 9110 5.6.3). */
static inline bool http_is_ows(char c)
{
	return c == ' ' || c == '\t';
}

/* A tchar, one byte of a token (RFC 9110 5.6.2). */
static inline bool http_is_tchar(char c)
{
	if ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
	    (c >= 'A' && c <= 'Z'))
		return true;
	return c != '\0' && memchr("!#$%&'*+-.^_`|~", c, 15) != NULL;
}

/* Case-insensitive comparison of n bytes; b must already be lower case. */
static inline bool http_eq_lower(const char *a, const char *b, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (http_tolower(a[i]) != b[i])
			return false;
	}
	return true;
}

#endif /* HTTP_TOKEN_H */
