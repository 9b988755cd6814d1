/* SPDX-License-Identifier: MIT */
/* The Date header and log timestamps, formatted once a second per thread. */
#ifndef SEHTTPD_DATE_CACHE_H
#define SEHTTPD_DATE_CACHE_H

#include <stdint.h>
#include <time.h>

#include "http/format.h"

#define CLF_TIME_LEN 28 /* "[10/Oct/2000:13:55:36 +0000]" */
#define ISO_TIME_LEN 20 /* "2000-10-10T13:55:36Z" (RFC 3339) */

struct date_cache {
	time_t second;
	char http[HTTP_DATE_LEN + 1];
	char clf[CLF_TIME_LEN + 1];
	char iso[ISO_TIME_LEN + 1];
};

/* Refreshes the strings when the wall-clock second has changed. */
void date_cache_update(struct date_cache *d);

#endif /* SEHTTPD_DATE_CACHE_H */
