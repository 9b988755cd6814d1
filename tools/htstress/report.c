// SPDX-License-Identifier: MIT
/* Printing results; see report.h. */
#include "report.h"

#include <inttypes.h>
#include <string.h>

static double per_second(uint64_t n, double seconds)
{
	return seconds > 0 ? (double)n / seconds : 0.0;
}

void hts_report_text(FILE *out, const struct hts_report *r)
{
	const struct hts_stats *s = r->stats;
	const struct hts_histogram *h = &s->latency_us;
	uint64_t requests = hts_stats_requests(s);
	uint64_t bad = s->bad_4xx + s->bad_5xx + s->bad_other;

	fprintf(out, "htstress %s: %u connection%s, %u thread%s, %s\n", r->url,
		r->connections, r->connections == 1 ? "" : "s", r->threads,
		r->threads == 1 ? "" : "s",
		r->keep_alive ? "keep-alive" : "a connection per request");
	fprintf(out, "  requests      %" PRIu64 " in %.3f s, %.1f requests/s\n",
		requests, r->seconds, per_second(requests, r->seconds));
	fprintf(out, "  good          %" PRIu64 " (2xx, 3xx)\n", s->good);
	fprintf(out,
		"  bad           %" PRIu64 " (4xx %" PRIu64 ", 5xx %" PRIu64
		", malformed %" PRIu64 ")\n",
		bad, s->bad_4xx, s->bad_5xx, s->bad_other);
	if (s->first_bad)
		fprintf(out, "                first malformed: %s\n",
			s->first_bad);
	fprintf(out, "  errors        %" PRIu64 "\n", s->errors);
	if (s->first_error)
		fprintf(out, "                first error: %s%s%s\n",
			s->first_error, s->first_error_errno ? ": " : "",
			s->first_error_errno ? strerror(s->first_error_errno) :
					       "");
	fprintf(out, "  received      %" PRIu64 " bytes, %.2f MB/s\n", s->bytes,
		per_second(s->bytes, r->seconds) / 1e6);
	fprintf(out,
		"  latency (us)  p50 %" PRIu64 ", p90 %" PRIu64 ", p99 %" PRIu64
		", max %" PRIu64 "\n",
		hts_histogram_percentile(h, 50),
		hts_histogram_percentile(h, 90),
		hts_histogram_percentile(h, 99), h->max);
}

void hts_report_json(FILE *out, const struct hts_report *r)
{
	const struct hts_stats *s = r->stats;
	const struct hts_histogram *h = &s->latency_us;
	uint64_t requests = hts_stats_requests(s);

	fprintf(out,
		"{\"requests\": %" PRIu64 ", \"good\": %" PRIu64
		", \"bad_4xx\": %" PRIu64 ", \"bad_5xx\": %" PRIu64
		", \"bad_other\": %" PRIu64 ", \"errors\": %" PRIu64
		", \"seconds\": %.6f, \"rps\": %.3f, \"bytes\": %" PRIu64
		", \"bytes_per_s\": %.3f, \"latency_us\": {\"p50\": %" PRIu64
		", \"p90\": %" PRIu64 ", \"p99\": %" PRIu64
		", \"max\": %" PRIu64 "}}\n",
		requests, s->good, s->bad_4xx, s->bad_5xx, s->bad_other,
		s->errors, r->seconds, per_second(requests, r->seconds),
		s->bytes, per_second(s->bytes, r->seconds),
		hts_histogram_percentile(h, 50),
		hts_histogram_percentile(h, 90),
		hts_histogram_percentile(h, 99), h->max);
}

void hts_report_progress(FILE *out, double elapsed, uint64_t requests,
			 uint64_t failed, double rate)
{
	fprintf(out,
		"htstress: %.0f s, %" PRIu64
		" requests, %.0f requests/s, %" PRIu64 " failed\n",
		elapsed, requests, rate, failed);
}
