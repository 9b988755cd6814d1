/* SPDX-License-Identifier: MIT */
/* Syntax of the Host header field. */
#ifndef HTTP_HOST_H
#define HTTP_HOST_H

#include "compat.h"

/*
 * True when s[0..n) is uri-host [ ":" port ]: an IP-literal in brackets
 * (IPv6 or IPvFuture), an IPv4 address or a reg-name (unreserved,
 * sub-delims, pct-encoded), then optional port digits; or empty
 * (RFC 9112 3.2, RFC 3986 3.2.2).
 */
bool http_host_valid(const char *s, size_t n);

#endif /* HTTP_HOST_H */
