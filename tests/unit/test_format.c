// SPDX-License-Identifier: MIT
/* Numbers and dates, checked against the C library's own formatting. */
#include "harness.h"

#include <inttypes.h>
#include <time.h>

#include "http/format.h"

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rng(void)
{
	/* xorshift64*: deterministic, so a failure can be replayed. */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 2685821657736338717ull;
}

TEST(u64_decimal)
{
	static const uint64_t fixed[] = { 0,
					  1,
					  9,
					  10,
					  99,
					  100,
					  4294967295ull,
					  4294967296ull,
					  9999999999999999999ull,
					  10000000000000000000ull,
					  UINT64_MAX };

	for (size_t i = 0; i < ARRAY_SIZE(fixed) + 20000; i++) {
		uint64_t v = i < ARRAY_SIZE(fixed) ? fixed[i] :
						     rng() >> (rng() % 64);
		char got[HTTP_U64_DIGITS + 1], want[32];
		size_t n;

		memset(got, '#', sizeof(got));
		n = http_format_u64(got, v);
		snprintf(want, sizeof(want), "%" PRIu64, v);
		CHECK_EQ_MEM(got, n, want);
		CHECK(n <= HTTP_U64_DIGITS);
		CHECK_EQ_INT(got[n], '#'); /* no NUL, nothing beyond */
	}
}

TEST(u64_hex)
{
	static const uint64_t fixed[] = { 0,	    1,		15,
					  16,	    255,	256,
					  0xabcdef, UINT64_MAX, 1ull << 63 };

	for (size_t i = 0; i < ARRAY_SIZE(fixed) + 20000; i++) {
		uint64_t v = i < ARRAY_SIZE(fixed) ? fixed[i] :
						     rng() >> (rng() % 64);
		char got[17], want[32];
		size_t n;

		memset(got, '#', sizeof(got));
		n = http_format_hex(got, v);
		snprintf(want, sizeof(want), "%" PRIx64, v);
		CHECK_EQ_MEM(got, n, want);
		CHECK(n <= 16);
		CHECK_EQ_INT(got[n], '#');
	}
}

static void date_of(char out[HTTP_DATE_LEN + 1], int64_t t)
{
	memset(out, '#', HTTP_DATE_LEN + 1);
	http_format_date(out, t);
	out[HTTP_DATE_LEN] = '\0';
}

TEST(known_dates)
{
	char d[HTTP_DATE_LEN + 1];

	date_of(d, 784111777);
	CHECK_EQ_STR(d, "Sun, 06 Nov 1994 08:49:37 GMT");
	date_of(d, 0);
	CHECK_EQ_STR(d, "Thu, 01 Jan 1970 00:00:00 GMT");
	date_of(d, -1);
	CHECK_EQ_STR(d, "Wed, 31 Dec 1969 23:59:59 GMT");
	date_of(d, 951782400);
	CHECK_EQ_STR(d, "Tue, 29 Feb 2000 00:00:00 GMT");
	date_of(d, 4107542399);
	CHECK_EQ_STR(d, "Sun, 28 Feb 2100 23:59:59 GMT");
	date_of(d, 4107542400);
	CHECK_EQ_STR(d, "Mon, 01 Mar 2100 00:00:00 GMT");
	date_of(d, 253402300799);
	CHECK_EQ_STR(d, "Fri, 31 Dec 9999 23:59:59 GMT");
	date_of(d, -62135596800);
	CHECK_EQ_STR(d, "Mon, 01 Jan 0001 00:00:00 GMT");
	date_of(d, 2147483648);
	CHECK_EQ_STR(d, "Tue, 19 Jan 2038 03:14:08 GMT");
}

TEST(rfc3339_times)
{
	char d[HTTP_RFC3339_LEN + 1];

	d[HTTP_RFC3339_LEN] = '\0';
	http_format_rfc3339(d, 1795598060);
	CHECK_EQ_STR(d, "2026-11-25T09:14:20Z");
	http_format_rfc3339(d, 0);
	CHECK_EQ_STR(d, "1970-01-01T00:00:00Z");
	http_format_rfc3339(d, -1);
	CHECK_EQ_STR(d, "1969-12-31T23:59:59Z");
	http_format_rfc3339(d, 951782400);
	CHECK_EQ_STR(d, "2000-02-29T00:00:00Z");
	http_format_rfc3339(d, 253402300799);
	CHECK_EQ_STR(d, "9999-12-31T23:59:59Z");
	/* Clamped, but still the syntax RFC 3339 asks for. */
	http_format_rfc3339(d, INT64_MAX);
	CHECK_EQ_INT(d[4], '-');
	CHECK_EQ_INT(d[10], 'T');
	CHECK_EQ_INT(d[19], 'Z');
	CHECK(!memcmp(d, "9999-", 5));
	http_format_rfc3339(d, INT64_MIN);
	CHECK(!memcmp(d, "0000-", 5));
}

/* Compares the calendar, the date and the listing time for one t. */
static bool check_time(int64_t t)
{
	time_t tt = (time_t)t;
	struct tm g;
	struct http_tm h;
	char got[HTTP_DATE_LEN + 1], want[64];
	char lgot[HTTP_LISTING_TIME_LEN + 1], lwant[64];
	char rgot[HTTP_RFC3339_LEN + 1], rwant[64];
	bool ok = true;

	if (!gmtime_r(&tt, &g))
		return true; /* beyond what the C library represents */
	http_time_to_tm(t, &h);
	if (h.year != (int64_t)g.tm_year + 1900 || h.month != g.tm_mon + 1 ||
	    h.day != g.tm_mday || h.hour != g.tm_hour || h.min != g.tm_min ||
	    h.sec != g.tm_sec || h.wday != g.tm_wday) {
		fprintf(stderr,
			"  t=%" PRId64 ": %" PRId64 "-%d-%d %d:%d:%d wday %d, "
			"want %lld-%d-%d %d:%d:%d wday %d\n",
			t, h.year, h.month, h.day, h.hour, h.min, h.sec, h.wday,
			(long long)g.tm_year + 1900, g.tm_mon + 1, g.tm_mday,
			g.tm_hour, g.tm_min, g.tm_sec, g.tm_wday);
		ok = false;
	}
	if (h.year < 1000 || h.year > 9999)
		return ok; /* strftime does not pad %Y to four digits */
	date_of(got, t);
	strftime(want, sizeof(want), "%a, %d %b %Y %H:%M:%S GMT", &g);
	if (strcmp(got, want)) {
		fprintf(stderr, "  t=%" PRId64 ": \"%s\", want \"%s\"\n", t,
			got, want);
		ok = false;
	}
	memset(lgot, '#', sizeof(lgot));
	http_format_listing_time(lgot, t);
	if (lgot[HTTP_LISTING_TIME_LEN] != '#')
		ok = false;
	lgot[HTTP_LISTING_TIME_LEN] = '\0';
	strftime(lwant, sizeof(lwant), "%Y-%m-%d %H:%M", &g);
	if (strcmp(lgot, lwant)) {
		fprintf(stderr, "  t=%" PRId64 ": \"%s\", want \"%s\"\n", t,
			lgot, lwant);
		ok = false;
	}
	memset(rgot, '#', sizeof(rgot));
	http_format_rfc3339(rgot, t);
	if (rgot[HTTP_RFC3339_LEN] != '#')
		ok = false;
	rgot[HTTP_RFC3339_LEN] = '\0';
	strftime(rwant, sizeof(rwant), "%Y-%m-%dT%H:%M:%SZ", &g);
	if (strcmp(rgot, rwant)) {
		fprintf(stderr, "  t=%" PRId64 ": \"%s\", want \"%s\"\n", t,
			rgot, rwant);
		ok = false;
	}
	return ok;
}

TEST(dates_match_gmtime_and_strftime)
{
	int bad = 0;

	/* Around the epoch and every boundary of a day, second by second. */
	for (int64_t t = -200000; t <= 200000 && bad < 5; t += 7)
		bad += !check_time(t);
	/* Random times from year 1 to 9999, before and after 1970. */
	for (int i = 0; i < 200000 && bad < 5; i++) {
		int64_t span = 253402300799ll + 62135596800ll;
		int64_t t = (int64_t)(rng() % (uint64_t)span) - 62135596800ll;

		bad += !check_time(t);
	}
	/* Far into the future and past, where only the calendar is kept. */
	for (int i = 0; i < 100000 && bad < 5; i++) {
		int64_t t = (int64_t)(rng() >> 20) - (1ll << 43);

		bad += !check_time(t);
	}
	/* Midnights, leap days and year ends of 1600-2500. */
	for (int64_t y = 1600; y <= 2500 && bad < 5; y++) {
		struct tm m = { .tm_year = (int)(y - 1900),
				.tm_mon = 1,
				.tm_mday = 29 };
		int64_t t = (int64_t)timegm(&m);

		bad += !check_time(t) + !check_time(t - 1) +
		       !check_time(t + 86399);
	}
	CHECK_EQ_INT(bad, 0);
}

TEST(extreme_times_stay_in_bounds)
{
	static const int64_t extreme[] = { INT64_MIN,	      INT64_MIN + 1,
					   INT64_MIN + 86399, INT64_MAX,
					   INT64_MAX - 1,     -62135596801ll,
					   253402300800ll };

	for (size_t i = 0; i < ARRAY_SIZE(extreme); i++) {
		char d[HTTP_DATE_LEN + 8], l[HTTP_LISTING_TIME_LEN + 8];
		struct http_tm tm;

		http_time_to_tm(extreme[i], &tm);
		CHECK(tm.month >= 1 && tm.month <= 12);
		CHECK(tm.day >= 1 && tm.day <= 31);
		CHECK(tm.hour >= 0 && tm.hour < 24);
		CHECK(tm.min >= 0 && tm.min < 60);
		CHECK(tm.sec >= 0 && tm.sec < 60);
		CHECK(tm.wday >= 0 && tm.wday < 7);
		memset(d, '#', sizeof(d));
		http_format_date(d, extreme[i]);
		CHECK_EQ_INT(d[HTTP_DATE_LEN], '#');
		CHECK(!memcmp(d + HTTP_DATE_LEN - 4, " GMT", 4));
		for (int k = 12; k < 16; k++)
			CHECK(d[k] >= '0' && d[k] <= '9');
		memset(l, '#', sizeof(l));
		http_format_listing_time(l, extreme[i]);
		CHECK_EQ_INT(l[HTTP_LISTING_TIME_LEN], '#');
		for (int k = 0; k < 4; k++)
			CHECK(l[k] >= '0' && l[k] <= '9');
		memset(l, '#', sizeof(l));
		http_format_rfc3339(l, extreme[i]);
		CHECK_EQ_INT(l[HTTP_RFC3339_LEN], '#');
		for (int k = 0; k < 4; k++)
			CHECK(l[k] >= '0' && l[k] <= '9');
	}
}

TEST(sizes_for_people)
{
	static const struct {
		uint64_t v;
		const char *want;
	} cases[] = {
		{ 0, "0 B" },
		{ 1, "1 B" },
		{ 1023, "1023 B" },
		{ 1024, "1.0 KiB" },
		{ 1229, "1.2 KiB" },
		{ 1996, "1.9 KiB" },
		{ 2047, "2.0 KiB" },
		{ 10188, "9.9 KiB" },
		{ 10189, "10 KiB" },
		{ 10240, "10 KiB" },
		{ 10751, "10 KiB" },
		{ 10752, "11 KiB" },
		{ 1048063, "1023 KiB" },
		{ 1048064, "1.0 MiB" },
		{ 3565158, "3.4 MiB" },
		{ 1073741824, "1.0 GiB" },
		{ 1099511627776ull, "1.0 TiB" },
		{ 1125899906842624ull, "1.0 PiB" },
		{ 1152921504606846976ull, "1.0 EiB" },
		{ UINT64_MAX, "16 EiB" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		char out[HTTP_SIZE_LEN + 1];
		size_t n = http_format_size(out, cases[i].v);

		CHECK(n <= HTTP_SIZE_LEN);
		out[n] = '\0';
		CHECK_EQ_STR(out, cases[i].want);
	}
}
