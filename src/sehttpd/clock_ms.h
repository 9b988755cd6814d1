/* SPDX-License-Identifier: MIT */
/*
 * Monotonic clocks.  A cheap millisecond clock for timeouts.  The coarse clock is read
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

/*
 * A fine one, for how long a request took: read from the vDSO too, but
 * some tens of nanoseconds (65 ns measured on a busy VM's kvm-clock, the
 * coarse one 5 ns), so a request pays it only when something uses it
 * (server.h's timing).
 */
static inline uint64_t clock_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

#endif /* SEHTTPD_CLOCK_MS_H */
