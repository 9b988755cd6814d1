// SPDX-License-Identifier: MIT
#include "harness.h"
#include "http/range.h"

static enum http_range_result parse(const char *v, uint64_t size,
				    uint64_t *first, uint64_t *last)
{
	*first = *last = 12345;
	return http_parse_range(v, strlen(v), size, first, last);
}

TEST(single_ranges)
{
	uint64_t a, b;

	CHECK_EQ_INT(parse("bytes=0-9", 100, &a, &b), HTTP_RANGE_OK);
	CHECK(a == 0 && b == 9);
	CHECK_EQ_INT(parse("bytes=5-", 100, &a, &b), HTTP_RANGE_OK);
	CHECK(a == 5 && b == 99);
	CHECK_EQ_INT(parse("bytes=-5", 100, &a, &b), HTTP_RANGE_OK);
	CHECK(a == 95 && b == 99);
	CHECK_EQ_INT(parse("BYTES= 10-20 ", 100, &a, &b), HTTP_RANGE_OK);
	CHECK(a == 10 && b == 20);
	CHECK_EQ_INT(parse("bytes=99-99", 100, &a, &b), HTTP_RANGE_OK);
	CHECK(a == 99 && b == 99);
}

TEST(clamping)
{
	uint64_t a, b;

	CHECK_EQ_INT(parse("bytes=0-999999999", 100, &a, &b), HTTP_RANGE_OK);
	CHECK(a == 0 && b == 99);
	CHECK_EQ_INT(parse("bytes=-1000", 100, &a, &b), HTTP_RANGE_OK);
	CHECK(a == 0 && b == 99);
	/* Beyond 4 GiB. */
	CHECK_EQ_INT(parse("bytes=4294967396-", 4295032832ULL, &a, &b),
		     HTTP_RANGE_OK);
	CHECK(a == 4294967396ULL && b == 4295032831ULL);
}

TEST(numbers_past_64_bits)
{
	uint64_t a, b;

	CHECK_EQ_INT(parse("bytes=0-18446744073709551616", 100, &a, &b),
		     HTTP_RANGE_OK);
	CHECK(a == 0 && b == 99);
	CHECK_EQ_INT(parse("bytes=5-99999999999999999999999999999", 100, &a,
			   &b),
		     HTTP_RANGE_OK);
	CHECK(a == 5 && b == 99);
	CHECK_EQ_INT(parse("bytes=-99999999999999999999", 100, &a, &b),
		     HTTP_RANGE_OK);
	CHECK(a == 0 && b == 99);
	CHECK_EQ_INT(parse("bytes=99999999999999999999-", 100, &a, &b),
		     HTTP_RANGE_UNSATISFIABLE);
	CHECK_EQ_INT(parse("bytes=18446744073709551615-", 100, &a, &b),
		     HTTP_RANGE_UNSATISFIABLE);
	/* Leading zeros are only digits. */
	CHECK_EQ_INT(parse("bytes=000000000000000000000000005-"
			   "0000000000000000000000000000009",
			   100, &a, &b),
		     HTTP_RANGE_OK);
	CHECK(a == 5 && b == 9);
}

TEST(unsatisfiable)
{
	uint64_t a, b;

	CHECK_EQ_INT(parse("bytes=100-", 100, &a, &b),
		     HTTP_RANGE_UNSATISFIABLE);
	CHECK_EQ_INT(parse("bytes=100-105", 100, &a, &b),
		     HTTP_RANGE_UNSATISFIABLE);
	CHECK_EQ_INT(parse("bytes=-0", 100, &a, &b), HTTP_RANGE_UNSATISFIABLE);
	CHECK_EQ_INT(parse("bytes=0-0", 0, &a, &b), HTTP_RANGE_UNSATISFIABLE);
	CHECK_EQ_INT(parse("bytes=-5", 0, &a, &b), HTTP_RANGE_UNSATISFIABLE);
}

TEST(ignored)
{
	static const char *const bad[] = {
		"bytes=abc",  "bytes=5-1", "items=0-1",
		"bytes=",     "bytes=-",   "bytes=0-1,5-6",
		"bytes=1-2x", "bytes 0-1", "bytes=--1",
		"bytes=1--2", "",	   "bytes=99999999999999999999-1",
	};
	uint64_t a, b;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (parse(bad[i], 100, &a, &b) != HTTP_RANGE_NONE) {
			fprintf(stderr, "  '%s' not ignored\n", bad[i]);
			CHECK(0);
		}
	}
}

TEST(content_range_format)
{
	char out[HTTP_CONTENT_RANGE_MAX];
	size_t n;

	n = http_format_content_range(out, 0, 9, 100);
	CHECK_EQ_MEM(out, n, "bytes 0-9/100");
	n = http_format_content_range(out, 1, 0, 100);
	CHECK_EQ_MEM(out, n, "bytes */100");
	n = http_format_content_range(out, UINT64_MAX - 1, UINT64_MAX - 1,
				      UINT64_MAX);
	CHECK(n <= sizeof(out));
	CHECK_EQ_MEM(out, n,
		     "bytes 18446744073709551614-18446744073709551614/"
		     "18446744073709551615");
}
