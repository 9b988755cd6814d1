/* SPDX-License-Identifier: MIT */
/*
 * What a worker counts.  Each worker owns its counters and is their only
 * writer; the main thread reads them while the run goes on for the
 * progress line, so the counters are stored and loaded atomically (relaxed:
 * plain moves on the usual machines).  The histogram is read only after
 * the workers have ended.
 */
#ifndef HTSTRESS_STATS_H
#define HTSTRESS_STATS_H

#include <stdint.h>

#include "histogram.h"

struct hts_stats {
	uint64_t good; /* 2xx and 3xx */
	uint64_t bad_4xx;
	uint64_t bad_5xx;
	uint64_t bad_other; /* malformed, cut short, or another status */
	uint64_t errors; /* connection failures, resets, timeouts */
	uint64_t bytes; /* everything received */
	/* The first of each kind of failure, for the report. */
	const char *first_bad;
	const char *first_error;
	int first_error_errno; /* 0 when first_error says it all */
	struct hts_histogram latency_us;
};

void hts_stats_init(struct hts_stats *s);
void hts_stats_merge(struct hts_stats *into, const struct hts_stats *from);

/* A response read to its end, the latency from request to last byte. */
void hts_stats_response(struct hts_stats *s, int status, uint64_t latency_us);
/* A response that broke the protocol. */
void hts_stats_malformed(struct hts_stats *s, const char *why);
/* A request that got no response: what failed, and errno or 0. */
void hts_stats_error(struct hts_stats *s, const char *what, int err);

static inline void hts_stats_add(uint64_t *counter, uint64_t n)
{
	__atomic_store_n(counter, *counter + n, __ATOMIC_RELAXED);
}

static inline uint64_t hts_stats_read(const uint64_t *counter)
{
	return __atomic_load_n(counter, __ATOMIC_RELAXED);
}

/* Requests completed one way or another; safe while the run goes on. */
uint64_t hts_stats_requests(const struct hts_stats *s);
uint64_t hts_stats_failed(const struct hts_stats *s);

#endif /* HTSTRESS_STATS_H */
