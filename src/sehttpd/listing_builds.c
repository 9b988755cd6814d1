// SPDX-License-Identifier: MIT
#include "listing_builds.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "cache.h"
#include "conn_io.h"
#include "listing.h"

/* Every thread's builds that a request may still share: few, so a list. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct listing_build *builds;

static bool shareable(const struct listing_build *b, unsigned root,
		      const char *key, size_t len, uint64_t now_ms)
{
	return b->root == root && b->key_len == len &&
	       !memcmp(b->key, key, len) &&
	       (!b->done || (b->body && now_ms < b->built_ms + CACHE_CHECK_MS));
}

struct listing_build *listing_build_get(unsigned root, const char *key,
					size_t len, uint64_t now_ms,
					bool *builder)
{
	struct listing_build *b;

	pthread_mutex_lock(&lock);
	for (b = builds; b && !shareable(b, root, key, len, now_ms);
	     b = b->next)
		;
	*builder = !b;
	if (b) {
		b->refs++;
	} else {
		b = calloc(1, sizeof(*b) + len);
		if (b) {
			b->root = root;
			b->key = (char *)(b + 1);
			memcpy(b->key, key, len);
			b->key_len = len;
			b->refs = 1;
			b->next = builds;
			builds = b;
		}
	}
	pthread_mutex_unlock(&lock);
	return b;
}

static bool build_done(struct listing_build *b)
{
	bool done;

	pthread_mutex_lock(&lock);
	done = b->done;
	pthread_mutex_unlock(&lock);
	return done;
}

int listing_build_wait(struct exchange *rc, struct listing_build *b)
{
	/* Bounded by this connection's deadline: a turn fails past it. */
	while (!build_done(b)) {
		if (conn_yield_turn(rc->conn))
			return -1;
	}
	return 0;
}

void listing_build_finish(struct listing_build *b, char *body, size_t len,
			  int err, uint64_t now_ms)
{
	pthread_mutex_lock(&lock);
	b->body = body;
	b->len = len;
	b->errno_of_build = err;
	b->built_ms = now_ms;
	b->done = true;
	pthread_mutex_unlock(&lock);
}

void listing_build_put(void *arg)
{
	struct listing_build *b = arg, **p;
	bool last;

	pthread_mutex_lock(&lock);
	last = --b->refs == 0;
	if (last) {
		for (p = &builds; *p != b; p = &(*p)->next)
			;
		*p = b->next;
	}
	pthread_mutex_unlock(&lock);
	if (last) {
		listing_body_free(b->body, b->len);
		free(b);
	}
}
