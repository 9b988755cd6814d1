/* SPDX-License-Identifier: MIT */
/*
 * Latency histogram with log-linear buckets, after HdrHistogram: values
 * below 2 * HTS_HIST_SUB are exact, and each power-of-two range above is
 * cut into HTS_HIST_SUB equal buckets, so any recorded value is known to
 * within 1 / HTS_HIST_SUB of itself.  Recording is a few instructions and
 * never allocates; two histograms merge by adding their counts.
 */
#ifndef HTSTRESS_HISTOGRAM_H
#define HTSTRESS_HISTOGRAM_H

#include <stdint.h>

#define HTS_HIST_SUB_BITS 7
#define HTS_HIST_SUB (1u << (HTS_HIST_SUB_BITS - 1)) /* 64: 1.6 % */
/* Values from 2^HTS_HIST_MAX_BITS up are recorded as the largest one. */
#define HTS_HIST_MAX_BITS 40
#define HTS_HIST_BUCKETS \
	((HTS_HIST_MAX_BITS - HTS_HIST_SUB_BITS + 2) * HTS_HIST_SUB)

struct hts_histogram {
	uint64_t count;
	uint64_t max;
	uint64_t min;
	uint64_t sum;
	uint64_t buckets[HTS_HIST_BUCKETS];
};

void hts_histogram_init(struct hts_histogram *h);
void hts_histogram_record(struct hts_histogram *h, uint64_t value);
void hts_histogram_merge(struct hts_histogram *into,
			 const struct hts_histogram *from);

/*
 * The value below which the given percent (0-100) of the recorded values
 * fall: the highest value of the bucket holding it, never above the
 * largest value recorded.  0 when nothing was recorded.
 */
uint64_t hts_histogram_percentile(const struct hts_histogram *h,
				  double percent);

/* Bucket arithmetic, exposed for the tests. */
unsigned int hts_histogram_index(uint64_t value);
uint64_t hts_histogram_bucket_high(unsigned int index);

#endif /* HTSTRESS_HISTOGRAM_H */
