/* SPDX-License-Identifier: MIT */
/* The modification time a file's ETag carries (http_format_etag). */
#ifndef SERVER_FILE_ETAG_H
#define SERVER_FILE_ETAG_H

#include <stdint.h>
#include <time.h>

/*
 * The time in nanoseconds, modulo 2^64: computed unsigned, so a file dated
 * after 2262 (tar keeps such dates) does not overflow.  Exact for any time
 * in 1970-2554 and different for any two times less than 584 years apart,
 * which is all a validator needs; files before 2262 keep the tags they had.
 */
static inline int64_t file_etag_time(const struct timespec *t)
{
	uint64_t ns = (uint64_t)t->tv_sec * UINT64_C(1000000000) +
		      (uint64_t)t->tv_nsec;

	return (int64_t)ns; /* http_format_etag prints it unsigned */
}

#endif /* SERVER_FILE_ETAG_H */
