/* SPDX-License-Identifier: MIT */
/* Escaping for the contexts the servers generate: HTML text, JSON strings
 * and URLs. */
#ifndef HTTP_ESCAPE_H
#define HTTP_ESCAPE_H

#include "compat.h"

/* Worst-case growth factors, for sizing buffers. */
#define HTTP_HTML_ESCAPE_MAX 6 /* "&quot;" */
#define HTTP_URL_ENCODE_MAX 3 /* "%XX" */

/* UTF-8 of U+FFFD, shown for bytes that are not UTF-8. */
#define HTTP_UTF8_REPLACEMENT "\xef\xbf\xbd"

/*
 * The length of the UTF-8 sequence at s[0..n) (n > 0), setting *valid; an
 * ill-formed one is its maximal subpart (Unicode 3.9, as browsers and
 * Python decode), at least 1 byte, to be shown as one U+FFFD.
 */
size_t http_utf8_sequence(const char *s, size_t n, bool *valid);

/* One byte's escaped form; returns its length. */
size_t http_html_escape_byte(char c, char out[HTTP_HTML_ESCAPE_MAX]);
size_t http_url_encode_byte(char c, char out[HTTP_URL_ENCODE_MAX],
			    bool keep_slash);

/*
 * Each writes the escaped form of s[0..n) into out (no NUL) and returns its
 * length, or 0 when it does not fit in cap (or n is 0).
 */
size_t http_html_escape(const char *s, size_t n, char *out, size_t cap);

/* Percent-encodes all but RFC 3986 unreserved bytes, and '/' if keep_slash. */
size_t http_url_encode(const char *s, size_t n, char *out, size_t cap,
		       bool keep_slash);

#endif /* HTTP_ESCAPE_H */
