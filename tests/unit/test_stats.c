// SPDX-License-Identifier: MIT
/*
 * Request counts and durations: the bucket a duration falls in, the
 * method and class a request is counted under, and the histogram the
 * scrape sums from every worker's counters.
 */
#include "harness.h"

#include "sehttpd/metrics.h"
#include "sehttpd/server.h"
#include "sehttpd/stats.h"

TEST(duration_buckets)
{
	/* A bound belongs to its own bucket ("le": less or equal). */
	CHECK_EQ_INT(stats_duration_bucket(0), 0);
	CHECK_EQ_INT(stats_duration_bucket(100), 0);
	CHECK_EQ_INT(stats_duration_bucket(101), 1);
	CHECK_EQ_INT(stats_duration_bucket(250), 1);
	CHECK_EQ_INT(stats_duration_bucket(999), 3);
	CHECK_EQ_INT(stats_duration_bucket(1000000), 12);
	CHECK_EQ_INT(stats_duration_bucket(10000000), 15);
	CHECK_EQ_INT(stats_duration_bucket(10000001), 16);
	CHECK_EQ_INT(stats_duration_bucket(UINT64_MAX), 16);
	for (unsigned i = 1; i < STATS_DURATION_BUCKETS; i++)
		CHECK(stats_duration_bounds_us[i - 1] <
		      stats_duration_bounds_us[i]);
}

/* Counts a request "METHOD / HTTP/1.1" (NULL: none parsed). */
static void count(struct worker_stats *st, const char *method, int status,
		  uint64_t us)
{
	char head[64];
	struct http_parser p;
	struct http_request req;
	int n;

	if (!method) {
		stats_count_request(st, NULL, status, us);
		return;
	}
	n = snprintf(head, sizeof(head), "%s / HTTP/1.1\r\nHost: h\r\n\r\n",
		     method);
	http_parser_init(&p);
	CHECK_EQ_INT(http_parse_request(&p, &req, head, (size_t)n), n);
	stats_count_request(st, &req, status, us);
}

TEST(requests_by_method_and_class)
{
	struct worker_stats st = { 0 };

	count(&st, "GET", 200, 5);
	count(&st, "GET", 304, 5);
	count(&st, "HEAD", 404, 5);
	count(&st, "OPTIONS", 204, 5);
	count(&st, "POST", 405, 5);
	count(&st, "PATCH", 405, 5);
	count(&st, NULL, 400, 5);
	count(&st, "GET", 0, 5); /* no status: a duration only */
	CHECK_EQ_INT(st.requests[STATS_GET][1], 1);
	CHECK_EQ_INT(st.requests[STATS_GET][2], 1);
	CHECK_EQ_INT(st.requests[STATS_HEAD][3], 1);
	CHECK_EQ_INT(st.requests[STATS_OPTIONS][1], 1);
	CHECK_EQ_INT(st.requests[STATS_OTHER][3], 3);
	CHECK_EQ_INT(st.durations[0], 8);
	CHECK_EQ_INT(st.duration_us_sum, 40);
}

TEST(histogram_summed_over_workers)
{
	struct worker workers[2] = { 0 };
	struct server s = { .nworkers = 2, .workers = workers };
	static char buf[16384];
	size_t n;

	stats_count_request(&workers[0].stats, NULL, 200, 50);
	stats_count_request(&workers[1].stats, NULL, 200, 100);
	stats_count_request(&workers[1].stats, NULL, 200, 2000);
	stats_count_request(&workers[0].stats, NULL, 500, 20000000);
	n = metrics_format(&s, buf, sizeof(buf));
	CHECK(n > 0 && n < sizeof(buf));
	buf[n] = '\0';
	CHECK(strstr(buf,
		     "# TYPE sehttpd_request_duration_seconds "
		     "histogram\n"
		     "sehttpd_request_duration_seconds_bucket{le=\"0.0001\"}"
		     " 2\n"
		     "sehttpd_request_duration_seconds_bucket"
		     "{le=\"0.00025\"} 2\n") != NULL);
	CHECK(strstr(buf, "{le=\"0.001\"} 2\n"
			  "sehttpd_request_duration_seconds_bucket"
			  "{le=\"0.0025\"} 3\n") != NULL);
	CHECK(strstr(buf, "{le=\"1\"} 3\n") != NULL);
	CHECK(strstr(buf,
		     "{le=\"10\"} 3\n"
		     "sehttpd_request_duration_seconds_bucket"
		     "{le=\"+Inf\"} 4\n"
		     "sehttpd_request_duration_seconds_sum 20.002150\n"
		     "sehttpd_request_duration_seconds_count 4\n") != NULL);
	CHECK(strstr(buf, "sehttpd_requests_total{method=\"other\","
			  "class=\"2xx\"} 3\n") != NULL);
	CHECK(strstr(buf, "sehttpd_requests_total{method=\"other\","
			  "class=\"5xx\"} 1\n") != NULL);
	CHECK(strstr(buf, "sehttpd_requests_total{method=\"GET\","
			  "class=\"2xx\"} 0\n") != NULL);
	/* Too small a buffer: nothing half written. */
	CHECK_EQ_INT(metrics_format(&s, buf, 1000), 0);
}
