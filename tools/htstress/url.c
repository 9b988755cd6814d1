// SPDX-License-Identifier: MIT
/* Parsing of the target URL; see url.h. */
#include "url.h"

#include <arpa/inet.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

static int fail(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return -1;
}

static bool is_host_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_';
}

/* Port digits in [p, end): 1 to 65535, decimal only. */
static int parse_port(const char *p, const char *end, struct hts_url *url)
{
	unsigned long v = 0;

	if (end - p > 5)
		return -1;
	for (; p < end; p++) {
		if (*p < '0' || *p > '9')
			return -1;
		v = v * 10 + (unsigned long)(*p - '0');
	}
	if (v < 1 || v > 65535)
		return -1;
	url->port_num = (unsigned short)v;
	return 0;
}

static int parse_host(const char *p, const char *end, struct hts_url *url,
		      char *err, size_t errlen)
{
	const char *host_end;
	size_t n;

	if (*p == '[') {
		const char *close = memchr(p, ']', (size_t)(end - p));
		struct in6_addr addr;

		if (!close)
			return fail(err, errlen, "unclosed '[' in URL");
		n = (size_t)(close - p - 1);
		if (n == 0 || n > HTS_HOST_MAX)
			return fail(err, errlen, "bad IPv6 address in URL");
		memcpy(url->host, p + 1, n);
		url->host[n] = '\0';
		if (inet_pton(AF_INET6, url->host, &addr) != 1)
			return fail(err, errlen, "bad IPv6 address in URL");
		url->ipv6_literal = true;
		host_end = close + 1;
		if (host_end < end && *host_end != ':')
			return fail(err, errlen,
				    "unexpected characters after ']' in URL");
	} else {
		host_end = memchr(p, ':', (size_t)(end - p));
		if (!host_end)
			host_end = end;
		n = (size_t)(host_end - p);
		if (n == 0)
			return fail(err, errlen, "missing host in URL");
		if (n > HTS_HOST_MAX)
			return fail(err, errlen, "host name too long in URL");
		for (size_t i = 0; i < n; i++)
			if (!is_host_char(p[i]))
				return fail(err, errlen,
					    "bad character in URL host");
		memcpy(url->host, p, n);
		url->host[n] = '\0';
	}

	url->port_num = 80;
	/* An empty port after ':' means the default (RFC 3986, 3.2.3). */
	if (host_end < end && end - host_end > 1 &&
	    parse_port(host_end + 1, end, url) < 0)
		return fail(err, errlen, "bad port in URL (must be 1-65535)");
	snprintf(url->port, sizeof(url->port), "%u", url->port_num);
	snprintf(url->authority, sizeof(url->authority), "%s%s%s%s%s",
		 url->ipv6_literal ? "[" : "", url->host,
		 url->ipv6_literal ? "]" : "", url->port_num == 80 ? "" : ":",
		 url->port_num == 80 ? "" : url->port);
	return 0;
}

static int parse_path(const char *p, struct hts_url *url, char *err,
		      size_t errlen)
{
	size_t n = strcspn(p, "#"), off = 0;

	if (*p != '/')
		url->path[off++] = '/';
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)p[i];

		/* Anything else must be percent-encoded by the user. */
		if (c <= ' ' || c >= 0x7f)
			return fail(
				err, errlen,
				"URL path has a space, control or non-ASCII byte");
	}
	memcpy(url->path + off, p, n);
	url->path[off + n] = '\0';
	return 0;
}

int hts_url_parse(const char *s, struct hts_url *url, char *err, size_t errlen)
{
	static const char scheme[] = "http://";
	const char *p, *end;
	size_t len;

	memset(url, 0, sizeof(*url));
	len = strnlen(s, HTS_URL_MAX + 1);
	if (len == 0)
		return fail(err, errlen, "empty URL");
	if (len > HTS_URL_MAX)
		return fail(err, errlen, "URL longer than %d bytes",
			    HTS_URL_MAX);
	if (strncasecmp(s, scheme, sizeof(scheme) - 1) != 0) {
		if (strncasecmp(s, "https://", 8) == 0)
			return fail(err, errlen,
				    "https is not supported, only http://");
		if (strstr(s, "://"))
			return fail(err, errlen,
				    "unsupported URL scheme, only http://");
		return fail(err, errlen, "URL must start with http://");
	}
	p = s + sizeof(scheme) - 1;
	end = p + strcspn(p, "/?#");
	if (memchr(p, '@', (size_t)(end - p)))
		return fail(err, errlen, "user:password@ in URL not supported");
	if (parse_host(p, end, url, err, errlen) < 0)
		return -1;
	return parse_path(end, url, err, errlen);
}
