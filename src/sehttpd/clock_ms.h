/* SPDX-License-Identifier: MIT */
/*
 * A cheap monotonic millisecond clock for timeouts.  The coarse clock is read
 * from the vDSO without a syscall and advances once a scheduler tick (1 to 10
 * ms), which is all a timeout needs.
 */
#ifndef SEHTTPD_CLOCK_MS_H
#define SEHTTPD_CLOCK_MS_H

#include <stdint.h>
#include <time.h>

static inline uint64_t clock_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

#endif /* SEHTTPD_CLOCK_MS_H */
