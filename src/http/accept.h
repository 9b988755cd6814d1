/* SPDX-License-Identifier: MIT */
/* Choosing between media types from Accept (RFC 9110 12.5.1). */
#ifndef HTTP_ACCEPT_H
#define HTTP_ACCEPT_H

#include "compat.h"

/*
 * The weight, in thousandths, that an Accept value (len bytes) gives the
 * media type type ("application/json", lower case): the q-value of the
 * most specific range that matches it (the type itself, then its top-level
 * type with a '*' subtype, then '*' for both), the highest of several
 * equally specific ones; 0 when none matches.  Parameters other than q are
 * ignored; an element whose range or q-value is malformed counts as absent.
 */
int http_accept_weight(const char *accept, size_t len, const char *type);

/*
 * Whether the Accept value prefers type to other: gives it a weight above
 * 0 and above other's.  So a '*' range alone, or both at the same
 * weight, prefer neither.
 */
bool http_accept_prefers(const char *accept, size_t len, const char *type,
			 const char *other);

#endif /* HTTP_ACCEPT_H */
