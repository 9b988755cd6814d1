/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Counters of the content path's costly steps, read from /proc/khttpd:
 * what the tests check where only "did not compress" or "filled once"
 * would otherwise show, as time; and of connections accepted and refused.
 */
#ifndef KHTTPD_STATS_H
#define KHTTPD_STATS_H

#include <linux/atomic.h>

struct khttpd_stats {
	atomic_long_t fills; /* files read whole into a new cache entry */
	atomic_long_t fill_waits; /* misses that waited for another's fill */
	atomic_long_t compressions; /* bodies deflated */
	atomic_long_t streams; /* file responses sent as the socket drains */
	atomic_long_t page_bytes; /* of them: sent as page-cache pages */
	atomic_long_t read_bytes; /* of them: read (copied) into a buffer */
	atomic_long_t accepted; /* connections accepted */
	atomic_long_t refused; /* of them: closed at once, max_conns open */
	atomic_long_t lingers; /* closes that drained the client first */
	/* Now: bytes of entries gone from the cache that responses pin. */
	atomic_long_t held_bytes;
	/* 503s (built-in error pages for error_pages=): held_bytes at the
	 * cache's size */
	atomic_long_t held_refused;
};

extern struct khttpd_stats khttpd_stats;

static inline void khttpd_count(atomic_long_t *counter)
{
	atomic_long_inc(counter);
}

static inline void khttpd_count_add(atomic_long_t *counter, long n)
{
	atomic_long_add(n, counter);
}

/* Creates and removes /proc/khttpd. */
int khttpd_stats_init(void);
void khttpd_stats_exit(void);

#endif /* KHTTPD_STATS_H */
