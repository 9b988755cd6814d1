/* SPDX-License-Identifier: MIT */
/* Resolving the URL's host once, before the run. */
#ifndef HTSTRESS_RESOLVE_H
#define HTSTRESS_RESOLVE_H

#include <stddef.h>
#include <sys/socket.h>

#include "url.h"

struct hts_target {
	struct sockaddr_storage addr;
	socklen_t addrlen;
};

/*
 * Resolves url's host and port with getaddrinfo().  When the name has
 * several addresses (localhost: ::1 and 127.0.0.1), the first that accepts
 * a connection is kept, or the first one if none does.  Returns 0, or -1
 * with a reason in err.
 */
int hts_resolve(const struct hts_url *url, struct hts_target *target, char *err,
		size_t errlen);

/*
 * Parses the numeric IPv4 or IPv6 address (brackets optional) that --source
 * binds the sockets to, with port 0.  Returns 0, or -1 with a reason in err.
 */
int hts_source_parse(const char *s, struct hts_target *source, char *err,
		     size_t errlen);

#endif /* HTSTRESS_RESOLVE_H */
