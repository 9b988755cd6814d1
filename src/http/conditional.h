/* SPDX-License-Identifier: MIT */
/* Validators and conditional requests (RFC 9110 sections 8.8 and 13). */
#ifndef HTTP_CONDITIONAL_H
#define HTTP_CONDITIONAL_H

#include "compat.h"
#include "parser.h"

/* '"' + 3 * 16 hex digits + 2 dashes + a 3-byte variant suffix + '"' */
#define HTTP_ETAG_MAX 64

/*
 * A strong entity tag from a file's identity: inode, size and modification
 * time in nanoseconds, plus a suffix naming the content coding ("" for
 * identity, "gz", "df", "br", "zst"), so each representation has its own
 * tag.
 * Returns its length (quotes included).
 */
size_t http_format_etag(char *out, uint64_t ino, uint64_t size,
			int64_t mtime_ns, const char *variant);

/*
 * The modification time an ETag carries, in nanoseconds modulo 2^64:
 * computed unsigned, so a file dated after 2262 (tar keeps such dates)
 * neither overflows nor collapses onto one value.  Exact for 1970-2554 and
 * different for any two times less than 584 years apart, which is all a
 * validator needs; earlier files keep the tags they had.
 */
static inline int64_t http_etag_time(int64_t sec, long nsec)
{
	uint64_t ns = (uint64_t)sec * 1000000000u + (uint64_t)nsec;

	return (int64_t)ns; /* http_format_etag prints it unsigned */
}

/* If-None-Match: "*" or a list containing etag (weak comparison). */
bool http_etag_list_matches(const char *list, size_t len, const char *etag,
			    size_t etag_len);

/*
 * Parses IMF-fixdate, RFC 850 and asctime dates; returns 0 or -1, also for
 * a day name that is none or a day the month does not have.  now (seconds)
 * places RFC 850's two-digit year: the year ending so within 50 years of
 * now, the one before when more than 50 years ahead (RFC 9110 5.6.7).
 */
int http_parse_date(const char *s, size_t len, int64_t now, int64_t *t);

/*
 * If-Range: true when a Range header may be honoured, i.e. If-Range is
 * absent, or is exactly the (strong) etag, or a date equal to
 * last_modified (read as at now).
 */
bool http_if_range_allows(const char *buf, const struct http_request *req,
			  const char *etag, size_t etag_len,
			  int64_t last_modified, int64_t now);

#endif /* HTTP_CONDITIONAL_H */
