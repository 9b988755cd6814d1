/* SPDX-License-Identifier: MIT */
/*
 * The listings being built on this thread, by cache key: a request for a
 * listing already being built waits for that build and answers with its
 * entry, so simultaneous requests make (and hold) one copy, not one each.
 */
#ifndef SEHTTPD_LISTING_BUILDS_H
#define SEHTTPD_LISTING_BUILDS_H

#include <stddef.h>

#include "cache.h"
#include "exchange.h"

struct listing_build;

/*
 * When a build of key[0..len) is in progress on this thread, waits for it
 * (giving the thread's other connections their turns) and returns its
 * entry with a reference for the caller; NULL when there is none, it
 * failed, or this connection timed out meanwhile (*timed_out set).
 */
struct cache_entry *listing_build_wait(struct exchange *rc, const char *key,
				       size_t len, bool *timed_out);

/* Records that this request builds key[0..len) (key must outlive it);
 * NULL when out of memory: the build then shares with no one. */
struct listing_build *listing_build_start(const char *key, size_t len);

/* Ends the build, handing e (NULL: it failed) to those waiting for it. */
void listing_build_finish(struct listing_build *b, struct cache_entry *e);

#endif /* SEHTTPD_LISTING_BUILDS_H */
