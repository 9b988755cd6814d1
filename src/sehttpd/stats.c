// SPDX-License-Identifier: MIT
#include "stats.h"

const uint64_t stats_duration_bounds_us[STATS_DURATION_BUCKETS] = {
	100,   250,    500,    1000,   2500,	5000,	 10000,	  25000,
	50000, 100000, 250000, 500000, 1000000, 2500000, 5000000, 10000000,
};

void stats_count_response(struct worker_stats *st, int status,
			  uint64_t body_bytes)
{
	stats_add(&st->body_bytes, body_bytes);
	/* The bytes before the response: see metrics_format(). */
	__atomic_thread_fence(__ATOMIC_RELEASE);
	if (status >= 100 && status <= 599)
		stats_add(&st->responses[status / 100 - 1], 1);
}

unsigned stats_duration_bucket(uint64_t us)
{
	unsigned i = 0;

	while (i < STATS_DURATION_BUCKETS && us > stats_duration_bounds_us[i])
		i++;
	return i;
}

static enum stats_method method_of(const struct http_request *req)
{
	switch (req ? req->method : HTTP_METHOD_UNKNOWN) {
	case HTTP_GET:
		return STATS_GET;
	case HTTP_HEAD:
		return STATS_HEAD;
	case HTTP_OPTIONS:
		return STATS_OPTIONS;
	default:
		return STATS_OTHER;
	}
}

void stats_count_request(struct worker_stats *st,
			 const struct http_request *req, int status,
			 uint64_t duration_us)
{
	if (status >= 100 && status <= 599)
		stats_add(&st->requests[method_of(req)][status / 100 - 1], 1);
	stats_add(&st->durations[stats_duration_bucket(duration_us)], 1);
	stats_add(&st->duration_us_sum, duration_us);
}
