// SPDX-License-Identifier: MIT
/* Resolving the target; see resolve.h. */
#include "resolve.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define PROBE_TIMEOUT_MS 1000

static bool accepts_connections(const struct addrinfo *ai)
{
	struct pollfd pfd;
	int fd, soerr = 0;
	socklen_t len = sizeof(soerr);
	bool ok = false;

	fd = socket(ai->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
		    0);
	if (fd < 0)
		return false;
	if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0) {
		ok = true;
	} else if (errno == EINPROGRESS) {
		pfd.fd = fd;
		pfd.events = POLLOUT;
		if (poll(&pfd, 1, PROBE_TIMEOUT_MS) == 1 &&
		    getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &len) == 0)
			ok = soerr == 0;
	}
	close(fd);
	return ok;
}

int hts_resolve(const struct hts_url *url, struct hts_target *target, char *err,
		size_t errlen)
{
	struct addrinfo hints, *res, *pick;
	int rc;

	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_NUMERICSERV;
	if (url->ipv6_literal)
		hints.ai_flags |= AI_NUMERICHOST;
	rc = getaddrinfo(url->host, url->port, &hints, &res);
	if (rc) {
		snprintf(err, errlen, "cannot resolve '%s': %s", url->host,
			 gai_strerror(rc));
		return -1;
	}
	pick = res;
	if (res->ai_next) {
		for (struct addrinfo *ai = res; ai; ai = ai->ai_next) {
			if (accepts_connections(ai)) {
				pick = ai;
				break;
			}
		}
	}
	memcpy(&target->addr, pick->ai_addr, pick->ai_addrlen);
	target->addrlen = pick->ai_addrlen;
	freeaddrinfo(res);
	return 0;
}

int hts_source_parse(const char *s, struct hts_target *source, char *err,
		     size_t errlen)
{
	struct sockaddr_in *in4 = (struct sockaddr_in *)&source->addr;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&source->addr;
	char text[INET6_ADDRSTRLEN + 2];
	size_t n = strlen(s);

	memset(source, 0, sizeof(*source));
	if (n >= 2 && s[0] == '[' && s[n - 1] == ']' && n - 2 < sizeof(text)) {
		memcpy(text, s + 1, n - 2);
		text[n - 2] = '\0';
		if (inet_pton(AF_INET6, text, &in6->sin6_addr) == 1)
			goto v6;
	} else if (inet_pton(AF_INET, s, &in4->sin_addr) == 1) {
		in4->sin_family = AF_INET;
		source->addrlen = sizeof(*in4);
		return 0;
	} else if (inet_pton(AF_INET6, s, &in6->sin6_addr) == 1) {
		goto v6;
	}
	snprintf(err, errlen,
		 "bad --source '%.64s': need a numeric IPv4 or IPv6 address",
		 s);
	return -1;
v6:
	in6->sin6_family = AF_INET6;
	source->addrlen = sizeof(*in6);
	return 0;
}
