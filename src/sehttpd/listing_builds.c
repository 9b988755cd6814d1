// SPDX-License-Identifier: MIT
#include "listing_builds.h"

#include <stdlib.h>
#include <string.h>

#include "conn_io.h"

struct listing_build {
	struct listing_build *next;
	const char *key; /* the builder's, valid until finished */
	size_t len;
	bool done;
	struct cache_entry *entry; /* once done, referenced while waited for */
	unsigned refs; /* the builder's and one per waiter */
};

/* This thread's builds in progress: few at once, so a list. */
static __thread struct listing_build *builds;

static void build_put(struct listing_build *b)
{
	if (--b->refs)
		return;
	if (b->entry)
		content_cache_put(b->entry);
	free(b);
}

struct cache_entry *listing_build_wait(struct exchange *rc, const char *key,
				       size_t len, bool *timed_out)
{
	struct listing_build *b = builds;
	struct cache_entry *e;

	*timed_out = false;
	while (b && (b->len != len || memcmp(b->key, key, len)))
		b = b->next;
	if (!b)
		return NULL;
	b->refs++;
	/* Bounded by this connection's deadline: yield fails past it. */
	while (!b->done && !*timed_out)
		*timed_out = conn_yield_turn(rc->conn) != 0;
	e = b->done ? b->entry : NULL;
	if (e)
		e->refs++;
	build_put(b);
	return e;
}

struct listing_build *listing_build_start(const char *key, size_t len)
{
	struct listing_build *b = calloc(1, sizeof(*b));

	if (!b)
		return NULL;
	b->key = key;
	b->len = len;
	b->refs = 1;
	b->next = builds;
	builds = b;
	return b;
}

void listing_build_finish(struct listing_build *b, struct cache_entry *e)
{
	struct listing_build **p = &builds;

	if (!b)
		return;
	while (*p != b)
		p = &(*p)->next;
	*p = b->next;
	b->done = true;
	b->key = NULL;
	/* Held for the waiters, who take their own references as they wake:
	 * the builder's may be gone by then. */
	if (e && b->refs > 1) {
		e->refs++;
		b->entry = e;
	}
	build_put(b);
}
