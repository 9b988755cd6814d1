// SPDX-License-Identifier: MIT
#include <time.h>

#include "harness.h"
#include "http/conditional.h"
#include "http/format.h"

/* When the tests read dates: Sun, 29 Nov 2026 00:00:00 GMT. */
#define NOW 1795910400

static int64_t parse_date(const char *s)
{
	int64_t t = -1;

	if (http_parse_date(s, strlen(s), NOW, &t))
		return -1;
	return t;
}

TEST(etag_format)
{
	char a[HTTP_ETAG_MAX], b[HTTP_ETAG_MAX];
	size_t n, m;

	n = http_format_etag(a, 0x1234, 100, 5000000000LL, "");
	CHECK_EQ_MEM(a, n, "\"1234-64-12a05f200\"");
	m = http_format_etag(b, 0x1234, 100, 5000000000LL, "gz");
	CHECK_EQ_MEM(b, m, "\"1234-64-12a05f200-gz\"");
	/* The longest possible tag fits. */
	n = http_format_etag(a, UINT64_MAX, UINT64_MAX, INT64_MAX, "df");
	CHECK(n <= HTTP_ETAG_MAX);
}

TEST(etag_time_after_2262)
{
	/* 2400-01-01 and 2400-01-02: no overflow (the san build checks),
	 * and two far-future dates still give two tags. */
	int64_t a = http_etag_time(13569465600LL, 0);
	int64_t b = http_etag_time(13569552000LL, 0);

	CHECK(a != b);
	CHECK((uint64_t)b - (uint64_t)a == 86400000000000ULL);
	/* Ordinary dates keep the tags they had. */
	CHECK((uint64_t)http_etag_time(1700000000, 5) ==
	      1700000000000000005ULL);
}

static bool list_matches(const char *list, const char *tag)
{
	return http_etag_list_matches(list, strlen(list), tag, strlen(tag));
}

TEST(etag_list)
{
	const char *tag = "\"abc\"";

	CHECK(list_matches("\"abc\"", tag));
	CHECK(list_matches("*", tag));
	CHECK(list_matches("\"x\", \"abc\"", tag));
	CHECK(list_matches("W/\"abc\"", tag));
	CHECK(!list_matches("\"abcd\"", tag));
	CHECK(!list_matches("abc", tag));
	CHECK(!list_matches("", tag));
	CHECK(!list_matches("W/", tag));
	CHECK(!list_matches(",,,", tag));
}

TEST(dates_in_three_formats)
{
	int64_t t = 784111777; /* Sun, 06 Nov 1994 08:49:37 GMT */

	CHECK_EQ_INT(parse_date("Sun, 06 Nov 1994 08:49:37 GMT"), t);
	CHECK_EQ_INT(parse_date("Sunday, 06-Nov-94 08:49:37 GMT"), t);
	CHECK_EQ_INT(parse_date("Sun Nov  6 08:49:37 1994"), t);
	CHECK_EQ_INT(parse_date("Thu, 01 Jan 1970 00:00:00 GMT"), 0);
	CHECK_EQ_INT(parse_date("Sat, 01 Jan 2000 00:00:00 GMT"), 946684800);
	CHECK_EQ_INT(parse_date("Saturday, 01-Jan-00 00:00:00 GMT"), 946684800);
}

/*
 * RFC 850's two-digit year is in the century of the time it is read at,
 * unless that is more than 50 years ahead (RFC 9110 5.6.7).  Before, 70
 * to 99 were always 19xx: in 2026, "01-Jan-74" was 1974, not 2074.
 */
TEST(two_digit_years_as_at_now)
{
	static const char y74[] = "Monday, 01-Jan-74 00:00:00 GMT";
	static const char y77[] = "Friday, 01-Jan-77 00:00:00 GMT";
	int64_t t;

	CHECK_EQ_INT(parse_date(y74), 3281990400); /* 2074 */
	CHECK_EQ_INT(parse_date(y77), 220924800); /* 1977 */
	CHECK_EQ_INT(parse_date("Thursday, 01-Jan-70 00:00:00 GMT"),
		     3155760000); /* 2070 */
	/* Read in 1994: 74 was then 20 years back. */
	CHECK(!http_parse_date(y74, sizeof(y74) - 1, 784111777, &t));
	CHECK_EQ_INT(t, 126230400);
	/* Read in 2199: "00" is 2200, a year ahead, not 2100. */
	CHECK(!http_parse_date("Saturday, 01-Jan-00 00:00:00 GMT", 32,
			       7226582400, &t));
	CHECK_EQ_INT(t, 7258118400);
}

TEST(bad_dates)
{
	static const char *const bad[] = {
		"",
		"yesterday",
		"Sun, 06 Nov 1994 08:49:37 UTC",
		"Sun, 06 Xyz 1994 08:49:37 GMT",
		"Sun, 32 Nov 1994 08:49:37 GMT",
		"Sun, 06 Nov 1994 25:49:37 GMT",
		"Sun, 6 Nov 1994 08:49:37 GMT",
		"Sun Nov  6 08:49:37 94",
		"Sunday, 06-Nov-1994 08:49:37 GMT",
		"Sun, 06 Nov 1994 08:49:37 GMT ",
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (parse_date(bad[i]) != -1) {
			fprintf(stderr, "  accepted '%s'\n", bad[i]);
			CHECK(0);
		}
	}
}

TEST(impossible_dates_and_day_names)
{
	static const char *const bad[] = {
		"Thu, 31 Feb 2099 00:00:00 GMT",
		"Tue, 30 Feb 2024 00:00:00 GMT",
		"Sun, 29 Feb 2023 00:00:00 GMT",
		"Mon, 29 Feb 2100 00:00:00 GMT", /* not a leap year */
		"Thu, 31 Apr 2021 00:00:00 GMT",
		"Sat, 31 Jun 2021 00:00:00 GMT",
		"Fri, 31 Sep 2021 00:00:00 GMT",
		"Wed, 31 Nov 2021 00:00:00 GMT",
		"Sun, 00 Nov 1994 08:49:37 GMT",
		"Saturday, 31-Jun-21 00:00:00 GMT",
		"Sun Feb 30 08:49:37 2020",
		"Xyz, 06 Nov 1994 08:49:37 GMT",
		"sun, 06 Nov 1994 08:49:37 GMT",
		"Sun,,06 Nov 1994 08:49:37 GMT",
		"Sunny, 06-Nov-94 08:49:37 GMT",
		"Sun, 06-Nov-94 08:49:37 GMT",
		"Xyz Nov  6 08:49:37 1994",
	};
	static const char *const good[] = {
		"Tue, 29 Feb 2000 00:00:00 GMT", /* divisible by 400 */
		"Thu, 29 Feb 2024 00:00:00 GMT",
		"Sat, 31 Dec 2022 23:59:59 GMT",
		"Thursday, 29-Feb-24 00:00:00 GMT",
		"Thu Feb 29 00:00:00 2024",
		"Wed Apr 30 00:00:00 2025",
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (parse_date(bad[i]) != -1) {
			fprintf(stderr, "  accepted '%s'\n", bad[i]);
			CHECK(0);
		}
	}
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		if (parse_date(good[i]) == -1) {
			fprintf(stderr, "  refused '%s'\n", good[i]);
			CHECK(0);
		}
	}
}

TEST(valid_edges_of_months)
{
	CHECK_EQ_INT(parse_date("Tue, 29 Feb 2000 00:00:00 GMT"), 951782400);
	CHECK_EQ_INT(parse_date("Thu, 29 Feb 2024 00:00:00 GMT"), 1709164800);
	CHECK_EQ_INT(parse_date("Thursday, 29-Feb-24 00:00:00 GMT"),
		     1709164800);
	CHECK_EQ_INT(parse_date("Thu Feb 29 00:00:00 2024"), 1709164800);
	CHECK_EQ_INT(parse_date("Sat, 31 Dec 2022 23:59:59 GMT"), 1672531199);
}

TEST(format_then_parse_round_trips)
{
	char buf[HTTP_DATE_LEN];
	uint64_t x = 88172645463325252ULL;

	for (int i = 0; i < 2000; i++) {
		int64_t t;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		t = (int64_t)(x % 8000000000ULL); /* 1970 to about 2223 */
		http_format_date(buf, t);
		if (http_parse_date(buf, sizeof(buf), NOW, &t) ||
		    t != (int64_t)(x % 8000000000ULL)) {
			fprintf(stderr, "  %.*s\n", HTTP_DATE_LEN, buf);
			CHECK(0);
			break;
		}
	}
}

/* A request head with extra header lines, parsed for the checks below. */
static char head_buf[1024];
static struct http_request req;

static int make_request(const char *lines)
{
	struct http_parser p;

	snprintf(head_buf, sizeof(head_buf),
		 "GET /a HTTP/1.1\r\nHost: x\r\n%s\r\n", lines);
	http_parser_init(&p);
	return http_parse_request(&p, &req, head_buf, strlen(head_buf));
}

TEST(if_range)
{
	const char *etag = "\"e1\"";
	int64_t mtime = 784111777;

	CHECK(make_request("") > 0);
	CHECK(http_if_range_allows(head_buf, &req, etag, 4, mtime, NOW));
	CHECK(make_request("If-Range: \"e1\"\r\n") > 0);
	CHECK(http_if_range_allows(head_buf, &req, etag, 4, mtime, NOW));
	CHECK(make_request("If-Range: \"e2\"\r\n") > 0);
	CHECK(!http_if_range_allows(head_buf, &req, etag, 4, mtime, NOW));
	/* Weak tags never match for If-Range. */
	CHECK(make_request("If-Range: W/\"e1\"\r\n") > 0);
	CHECK(!http_if_range_allows(head_buf, &req, etag, 4, mtime, NOW));
	CHECK(make_request("If-Range: Sun, 06 Nov 1994 08:49:37 GMT\r\n") > 0);
	CHECK(http_if_range_allows(head_buf, &req, etag, 4, mtime, NOW));
	CHECK(!http_if_range_allows(head_buf, &req, etag, 4, mtime + 1, NOW));
	CHECK(make_request("If-Range: junk\r\n") > 0);
	CHECK(!http_if_range_allows(head_buf, &req, etag, 4, mtime, NOW));
	/* A Wednesday's date starts with 'W' but is no weak tag. */
	CHECK(make_request("If-Range: Wed, 09 Nov 1994 08:49:37 GMT\r\n") > 0);
	CHECK(http_if_range_allows(head_buf, &req, etag, 4, mtime + 3 * 86400,
				   NOW));
	CHECK(!http_if_range_allows(head_buf, &req, etag, 4, mtime, NOW));
}
