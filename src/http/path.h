/* SPDX-License-Identifier: MIT */
/* Request path decoding and normalisation (RFC 3986 sections 2.1, 5.2.4). */
#ifndef HTTP_PATH_H
#define HTTP_PATH_H

#include "compat.h"

/*
 * Percent-decodes the raw path once, then resolves "." and ".." segments and
 * collapses repeated slashes.  The result starts with '/', keeps a trailing
 * slash when the raw path had one (or ended in a dot segment), and is not
 * NUL-terminated by this function.  out needs room for len + 1 bytes.
 *
 * Returns the result's length, or -1 for a path that must be refused with
 * 400: a malformed escape, a NUL (encoded or not), or ".." climbing above
 * the root.
 */
int http_path_normalize(const char *raw, size_t len, char *out, size_t cap);

/*
 * Whether path (len bytes), given to the server to match requests by, is
 * a path that the decoded, normalised path of a request can be or begin
 * with: from '/', without "//", "." or ".." segments, control characters,
 * or what decoding leaves none of in practice ('%' escapes, a '?' query
 * or '#' fragment).  Any other could never match, and a rule made of it
 * would do nothing while looking as if it did.
 */
bool http_path_matchable(const char *path, size_t len);
/* What http_path_matchable() asks for, for an error message. */
#define HTTP_PATH_MATCHABLE_RULE                                         \
	"a path as requests' are once decoded: from '/', without '//', " \
	"'.' or '..' segments, '%' escapes, '?', '#' or control characters"

/*
 * Builds a path from another without editing it: the first len bytes of
 * base, then the string tail ("index.html" beneath a directory, ".gz"
 * beside a file), NUL-terminated in out.  Returns the result's length, or
 * -1 (out unchanged) when it needs more than cap bytes with the NUL.
 */
int http_path_join(char *out, size_t cap, const char *base, size_t len,
		   const char *tail);

#endif /* HTTP_PATH_H */
