// SPDX-License-Identifier: MIT
#include "route.h"
#include "escape.h"
#include "format.h"
#include "path.h"

int http_route(const char *buf, const struct http_request *req, char *path)
{
	int n;

	/* The server as a whole (RFC 9110 9.3.7): no path. */
	if (req->method == HTTP_OPTIONS && req->target.len == 1 &&
	    buf[req->target.off] == '*') {
		path[0] = '\0';
		return 0;
	}
	if (!http_method_allowed_on_static(req->method) &&
	    req->method != HTTP_OPTIONS)
		return -405;
	if (!req->target_ok)
		return -400;
	n = http_path_normalize(buf + req->path.off, req->path.len, path,
				HTTP_PATH_MAX - 1);
	if (n < 0)
		return -400;
	path[n] = '\0';
	return n;
}

/* Whether c may stand as it is in a URI's query (RFC 3986 3.4); '%' is
 * taken for the start of an escape the client sent. */
static bool query_byte(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') ||
	       (c && strchr("-._~!$&'()*+,;=:@/?%", c));
}

/*
 * Appends s[0..len) of the target, kept but as a valid URI: what a path or
 * query may not hold as it is (bytes past ASCII, quotes, braces) goes
 * percent-encoded.  Returns the new length of out, or 0 when cap is short.
 */
static size_t put_target_bytes(char *out, size_t cap, size_t n, const char *s,
			       size_t len)
{
	for (size_t i = 0; i < len; i++) {
		char e[HTTP_URL_ENCODE_MAX];
		size_t k = query_byte((unsigned char)s[i]) ?
				   (e[0] = s[i], 1) :
				   http_url_encode_byte(s[i], e, false);

		if (cap - n < k)
			return 0;
		memcpy(out + n, e, k);
		n += k;
	}
	return n;
}

size_t http_dir_redirect_location(char *out, size_t cap, const char *buf,
				  const struct http_request *req,
				  const char *path, size_t len)
{
	size_t n = http_url_encode(path, len, out, cap, true);

	if (n == 0 || cap - n < 1u + req->has_query)
		return 0;
	out[n++] = '/';
	if (!req->has_query)
		return n;
	out[n++] = '?';
	return put_target_bytes(out, cap, n, buf + req->query.off,
				req->query.len);
}

/* The host of a valid Host value, without its port. */
static size_t host_without_port(const char *h, size_t n)
{
	size_t i = n;

	if (n > 0 && h[0] == '[') {
		const char *end = memchr(h, ']', n);

		return end ? (size_t)(end - h) + 1 : n;
	}
	while (i > 0 && h[i - 1] >= '0' && h[i - 1] <= '9')
		i--;
	return i > 0 && h[i - 1] == ':' ? i - 1 : n;
}

size_t http_request_authority(const char *buf, const struct http_request *req,
			      const char **host)
{
	const char *t = buf + req->target.off;
	bool asterisk = req->target.len == 1 && t[0] == '*';

	*host = NULL;
	if (req->target.len && t[0] != '/' && !asterisk) {
		const char *slashes;

		if (!req->target_ok)
			return 0;
		slashes = memchr(t, '/', req->target.len);
		*host = slashes ? slashes + 2 : t;
		return (size_t)(buf + req->path.off - *host);
	}
	if (!http_has_header(req, HTTP_H_HOST))
		return 0;
	*host = buf + req->header[HTTP_H_HOST].off;
	return req->header[HTTP_H_HOST].len;
}

size_t http_request_host(const char *buf, const struct http_request *req,
			 const char **host)
{
	size_t n;

	*host = NULL;
	if (!req->target_ok)
		return 0;
	n = http_request_authority(buf, req, host);
	return n ? host_without_port(*host, n) : 0;
}

size_t http_https_location(char *out, size_t cap, const char *buf,
			   const struct http_request *req, uint16_t port)
{
	const char *host = NULL;
	size_t hlen, query = req->has_query ? 1 + (size_t)req->query.len : 0;
	size_t path = req->path.len ? req->path.len : 1;
	char digits[8];
	size_t plen = 0, n;

	hlen = http_request_host(buf, req, &host);
	if (hlen == 0)
		return 0;
	if (port != 0 && port != 443) {
		digits[0] = ':';
		plen = 1 + http_format_u64(digits + 1, port);
	}
	n = sizeof("https://") - 1 + hlen + plen + path + query;
	if (n > cap)
		return 0;
	memcpy(out, "https://", 8);
	n = 8;
	memcpy(out + n, host, hlen);
	n += hlen;
	memcpy(out + n, digits, plen);
	n += plen;
	/* The path and query as sent, but a valid URI (RFC 9110 10.2.2). */
	if (req->path.len)
		n = put_target_bytes(out, cap, n, buf + req->path.off,
				     req->path.len);
	else
		out[n++] = '/'; /* "http://h" and "http://h?q" mean "/" */
	if (n && req->has_query) {
		if (n == cap)
			return 0;
		out[n++] = '?';
		n = put_target_bytes(out, cap, n, buf + req->query.off,
				     req->query.len);
	}
	return n;
}
