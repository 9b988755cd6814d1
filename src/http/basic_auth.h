/* SPDX-License-Identifier: MIT */
/*
 * The credentials of an Authorization header in the Basic scheme
 * (RFC 7617): base64 of "user-id:password", decoded and split, refusing
 * anything else a client might send there.
 */
#ifndef HTTP_BASIC_AUTH_H
#define HTTP_BASIC_AUTH_H

#include "compat.h"

/* The most bytes of decoded "user-id:password" taken; more is refused. */
#define HTTP_BASIC_MAX 1024
/* The most base64 bytes that can decode to HTTP_BASIC_MAX. */
#define HTTP_BASIC_ENCODED_MAX ((HTTP_BASIC_MAX + 2) / 3 * 4)

struct http_basic_credentials {
	const char *user; /* into the caller's buffer, not NUL-terminated */
	size_t user_len;
	const char *password;
	size_t password_len;
};

/*
 * Decodes base64 (RFC 4648 section 4, '=' padding optional) from in[0..n)
 * into out; returns the decoded length, or -1 when in is not base64 or
 * its bytes do not fit in cap.
 */
int http_base64_decode(const char *in, size_t n, char *out, size_t cap);

/*
 * Reads an Authorization field value (whitespace-trimmed, as the parser
 * keeps it): "Basic" (any case), spaces, base64 of "user-id:password".
 * The decoded bytes go to out (HTTP_BASIC_MAX bytes), which c then points
 * into.  Returns 0, or -1 for anything else: another scheme, no
 * credentials, bad base64, no colon, an empty user-id, control characters
 * (RFC 7617 section 2), or more than HTTP_BASIC_MAX bytes.
 */
int http_basic_parse(const char *value, size_t len, char *out,
		     struct http_basic_credentials *c);

#endif /* HTTP_BASIC_AUTH_H */
