/* SPDX-License-Identifier: MIT */
/* Number and date formatting without a C library. */
#ifndef HTTP_FORMAT_H
#define HTTP_FORMAT_H

#include "compat.h"

#define HTTP_U64_DIGITS 20
#define HTTP_DATE_LEN 29 /* "Sun, 06 Nov 1994 08:49:37 GMT" */
#define HTTP_LISTING_TIME_LEN 16 /* "1994-11-06 08:49" */
#define HTTP_RFC3339_LEN 20 /* "1994-11-06T08:49:37Z" */

/* Writes v in decimal (no NUL); returns the number of digits. */
size_t http_format_u64(char *out, uint64_t v);
/*
 * Writes a byte count for people (no NUL): "512 B", "1.2 KiB", "34 MiB",
 * one decimal below 10 units, rounded to nearest; returns its length, at
 * most HTTP_SIZE_LEN.
 */
#define HTTP_SIZE_LEN 8 /* "1023 KiB" */
size_t http_format_size(char *out, uint64_t v);
/* Writes v in lower-case hexadecimal (no NUL); returns the number of digits. */
size_t http_format_hex(char *out, uint64_t v);

struct http_tm {
	int64_t year;
	int month; /* 1-12 */
	int day; /* 1-31 */
	int hour, min, sec;
	int wday; /* 0 = Sunday */
};

/* Seconds since the Unix epoch (may be negative) to UTC calendar time. */
void http_time_to_tm(int64_t t, struct http_tm *tm);

/* IMF-fixdate (RFC 9110 5.6.7); out gets exactly HTTP_DATE_LEN bytes. */
void http_format_date(char *out, int64_t t);
/* "YYYY-MM-DD HH:MM" in UTC, for listings; HTTP_LISTING_TIME_LEN bytes. */
void http_format_listing_time(char *out, int64_t t);
/* RFC 3339 in UTC, for JSON listings; HTTP_RFC3339_LEN bytes (a year
 * outside 0000-9999 clamped to them, so the syntax always holds). */
void http_format_rfc3339(char *out, int64_t t);

#endif /* HTTP_FORMAT_H */
