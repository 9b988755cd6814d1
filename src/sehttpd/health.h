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
#include "http/route.h"
#include "server.h"

/*
 * True when the request is for the health path: its decoded, normalised
 * path (http_route(), into rc->path), whatever the query or the target's
 * form, as nginx's "location =" matches.  With --health off, health_len is
 * 0 and the normal request path pays one comparison.
 */
static inline bool health_is_target(const struct server *s, struct exchange *rc)
{
	if (likely(!s->health_len) ||
	    (rc->req->method != HTTP_GET && rc->req->method != HTTP_HEAD))
		return false;
	rc->path_len = http_route(rc->buf, rc->req, rc->path);
	return rc->path_len == (int)s->health_len &&
	       !memcmp(rc->path, s->health_path, s->health_len);
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
