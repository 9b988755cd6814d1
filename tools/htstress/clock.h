/* SPDX-License-Identifier: MIT */
/* The monotonic clock, in nanoseconds. */
#ifndef HTSTRESS_CLOCK_H
#define HTSTRESS_CLOCK_H

#include <stdint.h>
#include <time.h>

#define HTS_NS_PER_SEC UINT64_C(1000000000)

static inline uint64_t hts_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * HTS_NS_PER_SEC + (uint64_t)ts.tv_nsec;
}

#endif /* HTSTRESS_CLOCK_H */
