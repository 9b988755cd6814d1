/* SPDX-License-Identifier: MIT */
/*
 * Name-based virtual hosts: which of the configured names a request's host
 * is.  Names compare as DNS does, case-insensitively and without the
 * trailing dot of a fully qualified name; "*.example.com" stands for one
 * or more labels before example.com.  Only DNS names take part: an IP
 * literal, a percent-encoded or over-long host never matches a name, so
 * it is answered by the default site.
 */
#ifndef HTTP_VHOST_H
#define HTTP_VHOST_H

#include "compat.h"
#include "parser.h"

/* The longest DNS name, without its trailing dot (RFC 1035 2.3.4). */
#define HTTP_VHOST_NAME_MAX 253
/* The longest label. */
#define HTTP_VHOST_LABEL_MAX 63

/* A configured name, normalised (http_vhost_init()). */
struct http_vhost {
	const char *name; /* lower case, no trailing dot; "*." taken off */
	size_t len;
	bool wildcard; /* "*.name": one or more labels, then name */
};

/*
 * Normalises host[0..n) into out (HTTP_VHOST_NAME_MAX bytes): lower case,
 * one trailing dot dropped.  Returns its length, or 0 when it is not a DNS
 * name: labels of 1 to 63 letters, digits or '-', separated by single dots,
 * 253 bytes at most.
 */
size_t http_vhost_normalize(const char *host, size_t n, char *out);

/*
 * Reads a configured name, "name" or "*.name", into v, normalising it into
 * buf (HTTP_VHOST_NAME_MAX bytes, which v then points to).  False when it
 * is neither: "*" alone, a '*' elsewhere, or not a DNS name.
 */
bool http_vhost_init(struct http_vhost *v, const char *pattern, size_t n,
		     char *buf);

/*
 * Whether two configured names are the same, so that a request could
 * never tell which of them it meant.
 */
bool http_vhost_same(const struct http_vhost *a, const struct http_vhost *b);

/*
 * The index in v[0..n) of the name that serves host (normalised): the one
 * equal to it, else the wildcard with the longest name it ends in; -1 when
 * none does.  The order of v does not matter.
 */
int http_vhost_match(const struct http_vhost *v, size_t n, const char *host,
		     size_t len);

/*
 * The index in v[0..n) of the name that serves a parsed request: its host
 * (http_request_host(): the absolute-form target's authority, else Host)
 * without the port, normalised; -1 when none does or it names no host.
 */
int http_vhost_for_request(const struct http_vhost *v, size_t n,
			   const char *buf, const struct http_request *req);

#endif /* HTTP_VHOST_H */
