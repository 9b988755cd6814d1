/* SPDX-License-Identifier: MIT */
/*
 * Parsing of the target URL: http://host[:port][/path][?query][#fragment]
 * where host is a name, an IPv4 address or a bracketed IPv6 address.
 */
#ifndef HTSTRESS_URL_H
#define HTSTRESS_URL_H

#include <stdbool.h>
#include <stddef.h>

/* Longer URLs are refused; the path goes into every request line. */
#define HTS_URL_MAX 8192
#define HTS_HOST_MAX 255

struct hts_url {
	char host[HTS_HOST_MAX + 1]; /* without the brackets of an IPv6 address */
	char port[6]; /* decimal, for getaddrinfo */
	unsigned short port_num;
	bool ipv6_literal;
	/* "host[:port]" as it goes into the Host header (brackets kept). */
	char authority[HTS_HOST_MAX + 10];
	char path[HTS_URL_MAX + 2]; /* origin-form request target, from "/" */
};

/*
 * Fills *url from the string s.  Returns 0, or -1 with a one-line reason
 * in err (at most errlen bytes) when s is not an http URL this tool accepts.
 */
int hts_url_parse(const char *s, struct hts_url *url, char *err, size_t errlen);

#endif /* HTSTRESS_URL_H */
