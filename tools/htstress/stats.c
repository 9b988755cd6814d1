// SPDX-License-Identifier: MIT
/* Counting outcomes; see stats.h. */
#include "stats.h"

#include <string.h>

void hts_stats_init(struct hts_stats *s)
{
	memset(s, 0, sizeof(*s));
	hts_histogram_init(&s->latency_us);
}

void hts_stats_merge(struct hts_stats *into, const struct hts_stats *from)
{
	into->good += from->good;
	into->bad_4xx += from->bad_4xx;
	into->bad_5xx += from->bad_5xx;
	into->bad_other += from->bad_other;
	into->errors += from->errors;
	into->bytes += from->bytes;
	if (!into->first_bad)
		into->first_bad = from->first_bad;
	if (!into->first_error) {
		into->first_error = from->first_error;
		into->first_error_errno = from->first_error_errno;
	}
	hts_histogram_merge(&into->latency_us, &from->latency_us);
}

void hts_stats_response(struct hts_stats *s, int status, uint64_t latency_us)
{
	if (status >= 200 && status < 400) {
		hts_stats_add(&s->good, 1);
	} else if (status >= 400 && status < 500) {
		hts_stats_add(&s->bad_4xx, 1);
	} else if (status >= 500 && status < 600) {
		hts_stats_add(&s->bad_5xx, 1);
	} else {
		hts_stats_malformed(s, "status code out of range");
		return;
	}
	hts_histogram_record(&s->latency_us, latency_us);
}

void hts_stats_malformed(struct hts_stats *s, const char *why)
{
	hts_stats_add(&s->bad_other, 1);
	if (!s->first_bad)
		s->first_bad = why;
}

void hts_stats_error(struct hts_stats *s, const char *what, int err)
{
	hts_stats_add(&s->errors, 1);
	if (!s->first_error) {
		s->first_error = what;
		s->first_error_errno = err;
	}
}

uint64_t hts_stats_failed(const struct hts_stats *s)
{
	return hts_stats_read(&s->bad_4xx) + hts_stats_read(&s->bad_5xx) +
	       hts_stats_read(&s->bad_other) + hts_stats_read(&s->errors);
}

uint64_t hts_stats_requests(const struct hts_stats *s)
{
	return hts_stats_read(&s->good) + hts_stats_failed(s);
}
