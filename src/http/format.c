// SPDX-License-Identifier: MIT
#include "format.h"

static const char day_names[7][4] = { "Sun", "Mon", "Tue", "Wed",
				      "Thu", "Fri", "Sat" };
static const char month_names[12][4] = { "Jan", "Feb", "Mar", "Apr",
					 "May", "Jun", "Jul", "Aug",
					 "Sep", "Oct", "Nov", "Dec" };

size_t http_format_u64(char *out, uint64_t v)
{
	char tmp[HTTP_U64_DIGITS];
	size_t n = 0;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	for (size_t i = 0; i < n; i++)
		out[i] = tmp[n - 1 - i];
	return n;
}

size_t http_format_size(char *out, uint64_t v)
{
	static const char prefixes[] = "KMGTPE";
	size_t n;

	if (v < 1024) {
		n = http_format_u64(out, v);
		memcpy(out + n, " B", 2);
		return n + 2;
	}
	for (unsigned k = 1;; k++) {
		unsigned shift = 10 * k;
		uint64_t whole = v >> shift;
		uint64_t rem = v & (((uint64_t)1 << shift) - 1);
		uint64_t half = (uint64_t)1 << (shift - 1);
		/* rem < 2^60: rem * 10 cannot overflow */
		uint64_t tenths = whole * 10 + ((rem * 10 + half) >> shift);

		if (tenths < 100) {
			n = http_format_u64(out, tenths / 10);
			out[n++] = '.';
			out[n++] = (char)('0' + tenths % 10);
		} else {
			whole += rem >= half;
			if (whole >= 1024 && k < 6)
				continue;
			n = http_format_u64(out, whole);
		}
		out[n++] = ' ';
		out[n++] = prefixes[k - 1];
		memcpy(out + n, "iB", 2);
		return n + 2;
	}
}

size_t http_format_hex(char *out, uint64_t v)
{
	static const char hex[] = "0123456789abcdef";
	char tmp[16];
	size_t n = 0;

	do {
		tmp[n++] = hex[v & 15];
		v >>= 4;
	} while (v);
	for (size_t i = 0; i < n; i++)
		out[i] = tmp[n - 1 - i];
	return n;
}

/* Floor division, for times before the epoch. */
static int64_t div_floor(int64_t a, int64_t b)
{
	return a / b - (a % b != 0 && (a < 0) != (b < 0));
}

void http_time_to_tm(int64_t t, struct http_tm *tm)
{
	/* Floored by hand: t - days * 86400 would overflow near INT64_MIN. */
	int64_t days = t / 86400, secs = t % 86400;
	int64_t z, era, doe, yoe, doy, mp;

	if (secs < 0) {
		secs += 86400;
		days--;
	}
	/* Days to civil date: H. Hinnant's algorithm, era of 400 years. */
	z = days + 719468;
	era = div_floor(z, 146097);
	doe = z - era * 146097;
	yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	mp = (5 * doy + 2) / 153;

	tm->day = (int)(doy - (153 * mp + 2) / 5 + 1);
	tm->month = (int)(mp < 10 ? mp + 3 : mp - 9);
	tm->year = yoe + era * 400 + (tm->month <= 2);
	tm->hour = (int)(secs / 3600);
	tm->min = (int)(secs / 60 % 60);
	tm->sec = (int)(secs % 60);
	tm->wday = (int)((days % 7 + 11) % 7); /* 1970-01-01 was a Thursday */
}

static void two_digits(char *out, int v)
{
	out[0] = (char)('0' + v / 10);
	out[1] = (char)('0' + v % 10);
}

static void four_digits(char *out, int64_t year)
{
	int y = year < 0 ? 0 : year > 9999 ? 9999 : (int)year;

	two_digits(out, y / 100);
	two_digits(out + 2, y % 100);
}

void http_format_date(char *out, int64_t t)
{
	struct http_tm tm;

	http_time_to_tm(t, &tm);
	memcpy(out, day_names[tm.wday], 3);
	out[3] = ',';
	out[4] = ' ';
	two_digits(out + 5, tm.day);
	out[7] = ' ';
	memcpy(out + 8, month_names[tm.month - 1], 3);
	out[11] = ' ';
	four_digits(out + 12, tm.year);
	out[16] = ' ';
	two_digits(out + 17, tm.hour);
	out[19] = ':';
	two_digits(out + 20, tm.min);
	out[22] = ':';
	two_digits(out + 23, tm.sec);
	memcpy(out + 25, " GMT", 4);
}

/* "YYYY-MM-DD?hh:mm" (16 bytes), sep between the date and the time. */
static void put_date_minutes(char *out, const struct http_tm *tm, char sep)
{
	four_digits(out, tm->year);
	out[4] = '-';
	two_digits(out + 5, tm->month);
	out[7] = '-';
	two_digits(out + 8, tm->day);
	out[10] = sep;
	two_digits(out + 11, tm->hour);
	out[13] = ':';
	two_digits(out + 14, tm->min);
}

void http_format_listing_time(char *out, int64_t t)
{
	struct http_tm tm;

	http_time_to_tm(t, &tm);
	put_date_minutes(out, &tm, ' ');
}

void http_format_rfc3339(char *out, int64_t t)
{
	struct http_tm tm;

	http_time_to_tm(t, &tm);
	put_date_minutes(out, &tm, 'T');
	out[16] = ':';
	two_digits(out + 17, tm.sec);
	out[19] = 'Z';
}
