// SPDX-License-Identifier: MIT
#include "date_cache.h"

#include <stdio.h>

static void format_clf(char *out, time_t t)
{
	static const char months[12][4] = { "Jan", "Feb", "Mar", "Apr",
					    "May", "Jun", "Jul", "Aug",
					    "Sep", "Oct", "Nov", "Dec" };
	struct http_tm tm;

	http_time_to_tm(t, &tm);
	snprintf(out, CLF_TIME_LEN + 1, "[%02d/%s/%04d:%02d:%02d:%02d +0000]",
		 tm.day, months[tm.month - 1], (int)tm.year, tm.hour, tm.min,
		 tm.sec);
}

static void format_iso(char *out, time_t t)
{
	struct http_tm tm;

	http_time_to_tm(t, &tm);
	snprintf(out, ISO_TIME_LEN + 1, "%04d-%02d-%02dT%02d:%02d:%02dZ",
		 (int)tm.year, tm.month, tm.day, tm.hour, tm.min, tm.sec);
}

void date_cache_update(struct date_cache *d)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME_COARSE, &ts);
	if (ts.tv_sec == d->second && d->http[0])
		return;
	d->second = ts.tv_sec;
	http_format_date(d->http, ts.tv_sec);
	d->http[HTTP_DATE_LEN] = '\0';
	format_clf(d->clf, ts.tv_sec);
	format_iso(d->iso, ts.tv_sec);
}
