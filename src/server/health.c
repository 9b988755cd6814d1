// SPDX-License-Identifier: MIT
#include "health.h"

#include <errno.h>
#include <stdio.h>
#include <time.h>

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

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

bool health_drain(struct server *s, const sigset_t *signals)
{
	uint64_t end, now;

	if (!s->health_len)
		return false;
	atomic_store_explicit(&s->draining, true, memory_order_relaxed);
	printf("sehttpd: draining, health checks fail for %u ms\n",
	       s->health_grace_ms);
	fflush(stdout);
	end = now_ms() + s->health_grace_ms;
	while ((now = now_ms()) < end) {
		uint64_t left = end - now;
		struct timespec ts = { .tv_sec = (time_t)(left / 1000),
				       .tv_nsec =
					       (long)(left % 1000) * 1000000 };

		int sig = sigtimedwait(signals, NULL, &ts);

		if (sig == SIGINT || sig == SIGTERM)
			return true; /* a second stop signal: stop now */
		if (sig < 0 && errno != EINTR && errno != EAGAIN)
			return false;
	}
	return false;
}
