// SPDX-License-Identifier: MIT
/* Unit tests of htstress's latency histogram (tools/htstress/histogram.c). */
#include "harness.h"

#include <stdint.h>

#include "../../tools/htstress/histogram.h"

static struct hts_histogram h, h2;

/* |got - want| within want / 64, the histogram's precision. */
static bool close_to(uint64_t got, uint64_t want)
{
	uint64_t diff = got > want ? got - want : want - got;

	return diff * HTS_HIST_SUB <= want;
}

TEST(empty)
{
	hts_histogram_init(&h);
	CHECK_EQ_INT(hts_histogram_percentile(&h, 50), 0);
	CHECK_EQ_INT(hts_histogram_percentile(&h, 100), 0);
	CHECK_EQ_INT(h.count, 0);
}

TEST(single_value)
{
	hts_histogram_init(&h);
	hts_histogram_record(&h, 1234);
	CHECK_EQ_INT(hts_histogram_percentile(&h, 0), 1234);
	CHECK_EQ_INT(hts_histogram_percentile(&h, 50), 1234);
	CHECK_EQ_INT(hts_histogram_percentile(&h, 99), 1234);
	CHECK_EQ_INT(hts_histogram_percentile(&h, 100), 1234);
	CHECK_EQ_INT(h.max, 1234);
	CHECK_EQ_INT(h.min, 1234);
}

TEST(small_values_are_exact)
{
	hts_histogram_init(&h);
	for (uint64_t v = 1; v <= 100; v++)
		hts_histogram_record(&h, v);
	CHECK_EQ_INT(hts_histogram_percentile(&h, 50), 50);
	CHECK_EQ_INT(hts_histogram_percentile(&h, 90), 90);
	CHECK_EQ_INT(hts_histogram_percentile(&h, 99), 99);
	CHECK_EQ_INT(hts_histogram_percentile(&h, 99.9), 100);
	CHECK_EQ_INT(hts_histogram_percentile(&h, 100), 100);
	CHECK_EQ_INT(h.count, 100);
	CHECK_EQ_INT(h.sum, 5050);
}

TEST(rank_rounding)
{
	/* 90 % of 10 values is the 9th, not the 10th. */
	hts_histogram_init(&h);
	for (uint64_t v = 1; v <= 10; v++)
		hts_histogram_record(&h, v * 10);
	CHECK_EQ_INT(hts_histogram_percentile(&h, 90), 90);
	CHECK_EQ_INT(hts_histogram_percentile(&h, 91), 100);
	CHECK_EQ_INT(hts_histogram_percentile(&h, 10), 10);
	CHECK_EQ_INT(hts_histogram_percentile(&h, 0), 10);
}

TEST(uniform_large_range)
{
	hts_histogram_init(&h);
	for (uint64_t v = 1; v <= 100000; v++)
		hts_histogram_record(&h, v);
	CHECK(close_to(hts_histogram_percentile(&h, 50), 50000));
	CHECK(close_to(hts_histogram_percentile(&h, 90), 90000));
	CHECK(close_to(hts_histogram_percentile(&h, 99), 99000));
	CHECK(hts_histogram_percentile(&h, 50) >= 50000);
	CHECK_EQ_INT(hts_histogram_percentile(&h, 100), 100000);
	CHECK_EQ_INT(h.max, 100000);
}

TEST(skewed_distribution)
{
	/* 98 fast requests, one slow, one very slow. */
	hts_histogram_init(&h);
	for (int i = 0; i < 98; i++)
		hts_histogram_record(&h, 50);
	hts_histogram_record(&h, 20000);
	hts_histogram_record(&h, 3000000);
	CHECK_EQ_INT(hts_histogram_percentile(&h, 50), 50);
	CHECK_EQ_INT(hts_histogram_percentile(&h, 90), 50);
	CHECK_EQ_INT(hts_histogram_percentile(&h, 98), 50);
	CHECK(close_to(hts_histogram_percentile(&h, 99), 20000));
	CHECK_EQ_INT(hts_histogram_percentile(&h, 99.5), 3000000);
	CHECK_EQ_INT(h.max, 3000000);
}

TEST(bucket_bounds)
{
	unsigned int last = 0;

	/* Every value lies in its bucket, which is at most 1/64 wide. */
	for (uint64_t v = 0; v < (UINT64_C(1) << 41); v = v * 5 / 4 + 1) {
		unsigned int i = hts_histogram_index(v);
		uint64_t high = hts_histogram_bucket_high(i);

		CHECK(i < HTS_HIST_BUCKETS);
		CHECK(i >= last);
		last = i;
		if (v < (UINT64_C(1) << HTS_HIST_MAX_BITS)) {
			CHECK(high >= v);
			CHECK((high - v) * HTS_HIST_SUB <= v);
			CHECK(i == 0 || hts_histogram_bucket_high(i - 1) < v);
		}
	}
	/* Consecutive buckets leave no gap. */
	for (unsigned int i = 1; i < HTS_HIST_BUCKETS; i++)
		CHECK_EQ_INT(hts_histogram_index(
				     hts_histogram_bucket_high(i - 1) + 1),
			     i);
}

TEST(huge_values_clamp)
{
	hts_histogram_init(&h);
	hts_histogram_record(&h, UINT64_MAX);
	hts_histogram_record(&h, 1);
	CHECK_EQ_INT(hts_histogram_index(UINT64_MAX), HTS_HIST_BUCKETS - 1);
	CHECK(hts_histogram_percentile(&h, 100) == UINT64_MAX);
	CHECK_EQ_INT(hts_histogram_percentile(&h, 50), 1);
	CHECK(hts_histogram_percentile(&h, 99) > (UINT64_C(1) << 39));
}

TEST(merge_equals_one_histogram)
{
	static struct hts_histogram all;

	hts_histogram_init(&h);
	hts_histogram_init(&h2);
	hts_histogram_init(&all);
	for (uint64_t v = 1; v < 5000; v += 3) {
		hts_histogram_record(v % 2 ? &h : &h2, v * 7);
		hts_histogram_record(&all, v * 7);
	}
	hts_histogram_merge(&h, &h2);
	CHECK_EQ_INT(h.count, all.count);
	CHECK_EQ_INT(h.sum, all.sum);
	CHECK_EQ_INT(h.max, all.max);
	CHECK_EQ_INT(h.min, all.min);
	CHECK(memcmp(h.buckets, all.buckets, sizeof(h.buckets)) == 0);
	for (double p = 0; p <= 100; p += 12.5)
		CHECK_EQ_INT(hts_histogram_percentile(&h, p),
			     hts_histogram_percentile(&all, p));
}
