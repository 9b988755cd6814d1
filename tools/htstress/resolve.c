// SPDX-License-Identifier: MIT
/* Resolving the target; see resolve.h. */
#include "resolve.h"

#include <errno.h>
#include <netdb.h>
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
