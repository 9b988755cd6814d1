// SPDX-License-Identifier: MIT
#include "stats.h"

void stats_count_response(struct worker_stats *st, int status,
			  uint64_t body_bytes)
{
	if (status >= 100 && status <= 599)
		stats_add(&st->responses[status / 100 - 1], 1);
	stats_add(&st->body_bytes, body_bytes);
}
