// SPDX-License-Identifier: MIT
#include "conditional.h"
#include "format.h"
#include "token.h"

size_t http_format_etag(char *out, uint64_t ino, uint64_t size,
			int64_t mtime_ns, const char *variant)
{
	size_t n = 0, vlen = strlen(variant);

	out[n++] = '"';
	n += http_format_hex(out + n, ino);
	out[n++] = '-';
	n += http_format_hex(out + n, size);
	out[n++] = '-';
	n += http_format_hex(out + n, (uint64_t)mtime_ns);
	if (vlen && vlen <= 3) {
		out[n++] = '-';
		memcpy(out + n, variant, vlen);
		n += vlen;
	}
	out[n++] = '"';
	return n;
}

bool http_etag_list_matches(const char *list, size_t len, const char *etag,
			    size_t etag_len)
{
	size_t pos = 0, start, end;

	while (http_list_next(list, len, &pos, &start, &end)) {
		if (end - start == 1 && list[start] == '*')
			return true;
		/* Weak comparison: W/"x" matches "x". */
		if (end - start > 2 && list[start] == 'W' &&
		    list[start + 1] == '/')
			start += 2;
		if (end - start == etag_len &&
		    !memcmp(list + start, etag, etag_len))
			return true;
	}
	return false;
}

static int month_from_name(const char *s)
{
	static const char months[] = "janfebmaraprmayjunjulaugsepoctnovdec";
	char m[3] = { http_tolower(s[0]), http_tolower(s[1]),
		      http_tolower(s[2]) };

	for (int i = 0; i < 12; i++) {
		if (!memcmp(months + 3 * i, m, 3))
			return i + 1;
	}
	return -1;
}

/* The index of a three-letter day name (RFC 9110 day-name), or -1. */
static int day_from_name(const char *s)
{
	static const char days[] = "MonTueWedThuFriSatSun";

	for (int i = 0; i < 7; i++) {
		if (!memcmp(days + 3 * i, s, 3))
			return i;
	}
	return -1;
}

/* The index of an RFC 850 day-name-l ("Sunday"), or -1. */
static int long_day_from_name(const char *s, size_t n)
{
	static const char *const days[] = { "Monday",	"Tuesday", "Wednesday",
					    "Thursday", "Friday",  "Saturday",
					    "Sunday" };

	for (int i = 0; i < 7; i++) {
		if (strlen(days[i]) == n && !memcmp(days[i], s, n))
			return i;
	}
	return -1;
}

static int days_in_month(int year, int month)
{
	static const uint8_t days[12] = { 31, 28, 31, 30, 31, 30,
					  31, 31, 30, 31, 30, 31 };
	bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;

	return month == 2 && leap ? 29 : days[month - 1];
}

/* Reads exactly n digits at s. */
static int digits(const char *s, size_t n, int *v)
{
	*v = 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		*v = *v * 10 + (s[i] - '0');
	}
	return 0;
}

static int parse_clock(const char *s, int *h, int *m, int *sec)
{
	if (digits(s, 2, h) || s[2] != ':' || digits(s + 3, 2, m) ||
	    s[5] != ':' || digits(s + 6, 2, sec))
		return -1;
	return *h < 24 && *m < 60 && *sec < 61 ? 0 : -1;
}

/* Days since the epoch of a proleptic Gregorian date (H. Hinnant). */
static int64_t days_from_civil(int64_t y, int m, int d)
{
	int64_t era, yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

/* The proleptic Gregorian year of t, seconds since the epoch (Hinnant). */
static int64_t year_of(int64_t t)
{
	int64_t z = (t >= 0 ? t : t - 86399) / 86400 + 719468;
	int64_t era = (z >= 0 ? z : z - 146096) / 146097;
	int64_t doe = z - era * 146097;
	int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	int64_t mp = (5 * doy + 2) / 153;

	return yoe + era * 400 + (mp >= 10);
}

/*
 * RFC 850's two-digit year yy as at now: the year ending in yy within 50
 * years of now, the one before when more than 50 years ahead (RFC 9110
 * 5.6.7).
 */
static int64_t rfc850_year(int yy, int64_t now)
{
	int64_t this_year = year_of(now);
	int64_t y = this_year - this_year % 100 + yy;

	if (y > this_year + 50)
		return y - 100;
	return y <= this_year - 50 ? y + 100 : y;
}

int http_parse_date(const char *s, size_t len, int64_t now, int64_t *t)
{
	int day, month, year, h, m, sec;
	const char *comma = memchr(s, ',', len);

	if (comma && comma - s == 3 && len == HTTP_DATE_LEN) {
		/* Sun, 06 Nov 1994 08:49:37 GMT */
		if (day_from_name(s) < 0 || s[4] != ' ' ||
		    digits(s + 5, 2, &day) || s[7] != ' ' ||
		    (month = month_from_name(s + 8)) < 0 || s[11] != ' ' ||
		    digits(s + 12, 4, &year) || s[16] != ' ' ||
		    parse_clock(s + 17, &h, &m, &sec) ||
		    memcmp(s + 25, " GMT", 4))
			return -1;
	} else if (comma) {
		/* Sunday, 06-Nov-94 08:49:37 GMT */
		const char *p = comma + 1;
		size_t rest = len - (size_t)(p - s);

		if (long_day_from_name(s, (size_t)(comma - s)) < 0 ||
		    rest != 23 || p[0] != ' ' || digits(p + 1, 2, &day) ||
		    p[3] != '-' || (month = month_from_name(p + 4)) < 0 ||
		    p[7] != '-' || digits(p + 8, 2, &year) || p[10] != ' ' ||
		    parse_clock(p + 11, &h, &m, &sec) ||
		    memcmp(p + 19, " GMT", 4))
			return -1;
		year = (int)rfc850_year(year, now);
	} else {
		/* Sun Nov  6 08:49:37 1994 */
		if (len != 24 || day_from_name(s) < 0 || s[3] != ' ' ||
		    (month = month_from_name(s + 4)) < 0 || s[7] != ' ' ||
		    digits(s + 8 + (s[8] == ' '), 2 - (s[8] == ' '), &day) ||
		    s[10] != ' ' || parse_clock(s + 11, &h, &m, &sec) ||
		    s[19] != ' ' || digits(s + 20, 4, &year))
			return -1;
	}
	/* An impossible date (31 Feb) is no date: the field is ignored. */
	if (day < 1 || day > days_in_month(year, month))
		return -1;
	*t = days_from_civil(year, month, day) * 86400 + h * 3600 + m * 60 +
	     sec;
	return 0;
}

bool http_if_range_allows(const char *buf, const struct http_request *req,
			  const char *etag, size_t etag_len,
			  int64_t last_modified, int64_t now)
{
	struct http_span v = req->header[HTTP_H_IF_RANGE];
	const char *s = buf + v.off;
	int64_t t;

	if (!http_has_header(req, HTTP_H_IF_RANGE))
		return true;
	/* "W/" marks a weak tag; a bare 'W' starts a date (Wed, ...). */
	if ((v.len > 0 && s[0] == '"') ||
	    (v.len > 1 && s[0] == 'W' && s[1] == '/'))
		/* Strong comparison: a weak tag never matches. */
		return v.len == etag_len && !memcmp(s, etag, etag_len);
	return !http_parse_date(s, v.len, now, &t) && t == last_modified;
}
