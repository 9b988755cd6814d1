/* SPDX-License-Identifier: MIT */
/*
 * JSON strings (RFC 8259) from bytes a client sent, which may be anything:
 * the result is always valid JSON in valid UTF-8, whatever the input.
 */
#ifndef HTTP_JSON_H
#define HTTP_JSON_H

#include "compat.h"

/* The most one unit of input (a byte or a UTF-8 sequence) becomes. */
#define HTTP_JSON_ESCAPE_MAX 6 /* "\u00XX", "\ufffd" */

/*
 * The escaped form of the unit at s[0..n) (n > 0) into out; sets *used to
 * the bytes of s it stands for.  '"' and '\' are escaped, control
 * characters and DEL as \b \f \n \r \t or \u00XX, U+2028 and U+2029 as
 * \u2028 and \u2029 (JavaScript's line terminators), valid UTF-8 is kept,
 * and each ill-formed sequence (its maximal subpart) becomes \ufffd.
 * Returns the length written.
 */
size_t http_json_escape_unit(const char *s, size_t n, size_t *used,
			     char out[HTTP_JSON_ESCAPE_MAX]);

/*
 * The inside of a JSON string (no quotes) for s[0..n) into out, at most
 * cap bytes (cap >= 3): a longer escaped form is cut between two units and
 * ends in "...".  Returns the length written.
 */
size_t http_json_escape(const char *s, size_t n, char *out, size_t cap);

#endif /* HTTP_JSON_H */
