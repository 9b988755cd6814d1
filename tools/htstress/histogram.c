// SPDX-License-Identifier: MIT
/* Log-linear latency histogram; see histogram.h. */
#include "histogram.h"

#include <string.h>

#define HIST_MAX_VALUE ((UINT64_C(1) << HTS_HIST_MAX_BITS) - 1)

void hts_histogram_init(struct hts_histogram *h)
{
	memset(h, 0, sizeof(*h));
	h->min = UINT64_MAX;
}

/*
 * Values below 2 * SUB index themselves.  Above, with the top bit at
 * position b, shift = b - (SUB_BITS - 1) keeps the SUB_BITS top bits
 * (value >> shift lies in [SUB, 2 * SUB)) and each shift owns SUB buckets.
 */
unsigned int hts_histogram_index(uint64_t value)
{
	unsigned int shift;

	if (value > HIST_MAX_VALUE)
		value = HIST_MAX_VALUE;
	if (value < 2 * HTS_HIST_SUB)
		return (unsigned int)value;
	shift = 63u - (unsigned int)__builtin_clzll(value) -
		(HTS_HIST_SUB_BITS - 1);
	return shift * HTS_HIST_SUB + (unsigned int)(value >> shift);
}

uint64_t hts_histogram_bucket_high(unsigned int index)
{
	unsigned int shift;
	uint64_t sub;

	if (index < 2 * HTS_HIST_SUB)
		return index;
	shift = index / HTS_HIST_SUB - 1;
	sub = index - shift * HTS_HIST_SUB;
	return ((sub + 1) << shift) - 1;
}

void hts_histogram_record(struct hts_histogram *h, uint64_t value)
{
	h->buckets[hts_histogram_index(value)]++;
	h->count++;
	h->sum += value;
	if (value > h->max)
		h->max = value;
	if (value < h->min)
		h->min = value;
}

void hts_histogram_merge(struct hts_histogram *into,
			 const struct hts_histogram *from)
{
	for (unsigned int i = 0; i < HTS_HIST_BUCKETS; i++)
		into->buckets[i] += from->buckets[i];
	into->count += from->count;
	into->sum += from->sum;
	if (from->max > into->max)
		into->max = from->max;
	if (from->min < into->min)
		into->min = from->min;
}

uint64_t hts_histogram_percentile(const struct hts_histogram *h, double percent)
{
	uint64_t rank, seen = 0;
	double exact;

	if (!h->count)
		return 0;
	if (percent >= 100.0)
		return h->max;
	if (percent < 0.0)
		percent = 0.0;
	/* The rank-th smallest value, counting from 1; 0.9 * 10 is 9. */
	exact = percent / 100.0 * (double)h->count;
	rank = (uint64_t)exact;
	if (exact - (double)rank > 1e-9)
		rank++;
	if (rank < 1)
		rank = 1;
	if (rank > h->count)
		rank = h->count;
	for (unsigned int i = 0; i < HTS_HIST_BUCKETS; i++) {
		seen += h->buckets[i];
		if (seen >= rank) {
			uint64_t v = hts_histogram_bucket_high(i);

			return v < h->max ? v : h->max;
		}
	}
	return h->max;
}
