/* SPDX-License-Identifier: MIT */
/*
 * The listings being built or just built, by cache key, for every thread:
 * a request for a listing that another request is building waits for that
 * build, and every thread's cache entry for it points to the one body, so
 * simultaneous requests make (and hold) one copy, whichever thread they
 * land on.  A body is offered to new requests for CACHE_CHECK_MS after it
 * was built, as long as a thread's cache would keep it fresh.
 */
#ifndef SEHTTPD_LISTING_BUILDS_H
#define SEHTTPD_LISTING_BUILDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "exchange.h"

struct listing_build {
	/* Set once by the builder, before done; read-only after. */
	char *body; /* HTML or JSON; NULL: the build failed, with errno_of_build */
	size_t len;
	int errno_of_build;
	/* The rest is the registry's (listing_builds.c). */
	struct listing_build *next;
	unsigned root; /* the directory's number (server.roots) */
	char *key;
	size_t key_len;
	uint64_t built_ms;
	bool done;
	unsigned refs;
};

/*
 * The build of key[0..len) beneath root to share: one in progress or fresh (then
 * *builder is false), else a new one this request must build and finish
 * (*builder true).  Referenced for the caller; NULL when out of memory.
 */
struct listing_build *listing_build_get(unsigned root, const char *key,
					size_t len, uint64_t now_ms,
					bool *builder);

/* Waits, giving the thread's other connections their turns, until b is
 * done; -1 if this connection timed out meanwhile. */
int listing_build_wait(struct exchange *rc, struct listing_build *b);

/* The builder's: b's body (owned by b from now on) or its failure. */
void listing_build_finish(struct listing_build *b, char *body, size_t len,
			  int err, uint64_t now_ms);

/* Drops a reference: the last one frees b and its body. */
void listing_build_put(void *b);

#endif /* SEHTTPD_LISTING_BUILDS_H */
