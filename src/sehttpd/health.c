// SPDX-License-Identifier: MIT
#include "health.h"

#include <stdio.h>

#include "respond.h"

int health_respond(struct exchange *rc)
{
	static const char nocache[] = "Cache-Control: no-store\r\n";
	struct http_response_head h;
	bool draining = atomic_load_explicit(&rc->worker->server->draining,
					     memory_order_relaxed);

	if (draining)
		rc->keep_alive = false; /* the checker's connection too */
	respond_head_init(rc, &h, draining ? 503 : 200);
	h.content_type = "text/plain";
	h.extra = nocache;
	h.extra_len = sizeof(nocache) - 1;
	return draining ? respond_with_body(rc, &h, "draining\n", 9) :
			  respond_with_body(rc, &h, "ok\n", 3);
}

void health_begin_drain(struct server *s)
{
	atomic_store_explicit(&s->draining, true, memory_order_relaxed);
	fprintf(s->notices, "sehttpd: draining, health checks fail for %u ms\n",
		s->health_grace_ms);
	fflush(s->notices);
}
