/* SPDX-License-Identifier: MIT */
/*
 * Counters for --metrics.  Each worker owns a struct worker_stats that only
 * its thread writes, so the request path takes no shared lock and no
 * locked instruction; the scraper reads every worker's with relaxed loads
 * and sums them.
 */
#ifndef SEHTTPD_STATS_H
#define SEHTTPD_STATS_H

#include <stdbool.h>
#include <stdint.h>

#include "http/parser.h"

/* Request durations' buckets: upper bounds in microseconds, 100 us to
 * 10 s as Prometheus's defaults go; one more counts what is beyond. */
#define STATS_DURATION_BUCKETS 16
extern const uint64_t stats_duration_bounds_us[STATS_DURATION_BUCKETS];

/* Methods counted apart; the rest are "other". */
enum stats_method {
	STATS_GET,
	STATS_HEAD,
	STATS_OPTIONS,
	STATS_OTHER,
	STATS_METHODS,
};

struct worker_stats {
	uint64_t responses[5]; /* by status class: [0] 1xx ... [4] 5xx */
	uint64_t body_bytes; /* response bodies written */
	uint64_t accepted; /* connections accepted */
	uint64_t refused; /* closed at once: --max-connections reached */
	uint64_t cache_hits; /* answered from a fresh cache entry */
	uint64_t cache_misses; /* looked up and not found, or stale */
	uint64_t cache_compressed_hits; /* of the hits: a compressed variant */
	uint64_t log_dropped; /* access-log lines that could not be written */
	uint64_t proxy_refused; /* connections without a valid PROXY header */
	uint64_t listing_builds; /* listings built (each shared by all) */
	uint64_t tls_handshakes; /* completed */
	uint64_t tls_handshake_failures; /* junk, wrong versions, resets */
	uint64_t tls_resumed; /* of the handshakes: a session resumed */
	uint64_t tls_ktls; /* of the handshakes: the kernel encrypts */
	uint64_t http2_conns; /* connections that spoke HTTP/2 */
	uint64_t http2_requests; /* streams answered */
	uint64_t http2_resets; /* streams cut: a window never opened, errors */
	/* Requests timed (server.h's timing): by method and status class,
	 * and how long they took, each in its bucket (not cumulative). */
	uint64_t requests[STATS_METHODS][5];
	uint64_t durations[STATS_DURATION_BUCKETS + 1];
	uint64_t duration_us_sum;
	/* Gauges, published by the worker once per loop iteration. */
	uint64_t open_conns;
	uint64_t idle_conns; /* open, with no request in progress */
	uint64_t cache_entries;
	uint64_t cache_bytes;
};

/* Adds n to a counter of the calling worker's own stats. */
static inline void stats_add(uint64_t *counter, uint64_t n)
{
	__atomic_store_n(counter, *counter + n, __ATOMIC_RELAXED);
}

static inline void stats_set(uint64_t *gauge, uint64_t v)
{
	__atomic_store_n(gauge, v, __ATOMIC_RELAXED);
}

/* Counts a response of the given status carrying body_bytes of body. */
void stats_count_response(struct worker_stats *st, int status,
			  uint64_t body_bytes);

/* The bucket of a duration: the first whose bound it does not exceed. */
unsigned stats_duration_bucket(uint64_t us);

/* Counts a request (req NULL: none could be parsed) answered with status
 * after duration_us. */
void stats_count_request(struct worker_stats *st,
			 const struct http_request *req, int status,
			 uint64_t duration_us);

#endif /* SEHTTPD_STATS_H */
