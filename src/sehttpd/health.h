/* SPDX-License-Identifier: MIT */
/*
 * --health PATH: a URL for load balancers' checks.  It answers 200 while
 * the server runs and 503 once a stop signal has come, for a grace period
 * before the server stops accepting, so a balancer takes it out of
 * rotation before any connection to it could be refused.
 */
#ifndef SEHTTPD_HEALTH_H
#define SEHTTPD_HEALTH_H

#include <stdbool.h>
#include <string.h>

#include "exchange.h"
#include "server.h"

/*
 * True when the request is for the health path.  The length comes first:
 * with --health off it is 0 and no target is empty, so the normal request
 * path pays one comparison.
 */
static inline bool health_is_target(const struct server *s, const char *buf,
				    const struct http_request *req)
{
	return unlikely(req->target.len == s->health_len) &&
	       (req->method == HTTP_GET || req->method == HTTP_HEAD) &&
	       !memcmp(buf + req->target.off, s->health_path, s->health_len);
}

/* Answers the check: 200 "ok", or 503 "draining" (and close) once the
 * server is stopping.  Returns 0, or -1 when the connection broke. */
int health_respond(struct exchange *rc);

/*
 * Called on the first stop signal, with --health: from now on health checks
 * answer 503, while everything else is still served for the grace period
 * (the main thread waits it out).
 */
void health_begin_drain(struct server *s);

#endif /* SEHTTPD_HEALTH_H */
