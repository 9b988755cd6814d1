// SPDX-License-Identifier: MIT
#include "range.h"
#include "format.h"
#include "token.h"

/*
 * Reads decimal digits; returns how many, 0 when none.  A value past
 * UINT64_MAX saturates: it lies beyond any representation all the same.
 */
static size_t read_u64(const char *s, size_t len, uint64_t *v)
{
	size_t i = 0;

	*v = 0;
	while (i < len && s[i] >= '0' && s[i] <= '9') {
		uint64_t d = (uint64_t)(s[i] - '0');

		*v = *v > (UINT64_MAX - d) / 10 ? UINT64_MAX : *v * 10 + d;
		i++;
	}
	return i;
}

enum http_range_result http_parse_range(const char *v, size_t len,
					uint64_t size, uint64_t *first,
					uint64_t *last)
{
	uint64_t a, b;
	size_t i = 6, n;
	bool suffix = false, open_end = false;

	if (len < 7 || !http_eq_lower(v, "bytes=", 6))
		return HTTP_RANGE_NONE;
	while (i < len && http_is_ows(v[i]))
		i++;
	if (i < len && v[i] == '-') {
		suffix = true;
		i++;
		n = read_u64(v + i, len - i, &b);
		if (n == 0)
			return HTTP_RANGE_NONE;
		i += n;
	} else {
		n = read_u64(v + i, len - i, &a);
		if (n == 0)
			return HTTP_RANGE_NONE;
		i += n;
		if (i >= len || v[i] != '-')
			return HTTP_RANGE_NONE;
		i++;
		n = read_u64(v + i, len - i, &b);
		open_end = n == 0;
		i += n;
		if (!open_end && b < a)
			return HTTP_RANGE_NONE; /* invalid: ignore the header */
	}
	while (i < len && http_is_ows(v[i]))
		i++;
	if (i < len)
		/* A comma: several ranges; anything else is malformed. */
		return HTTP_RANGE_NONE;

	if (suffix) {
		if (b == 0 || size == 0)
			return HTTP_RANGE_UNSATISFIABLE;
		*first = b >= size ? 0 : size - b;
		*last = size - 1;
		return HTTP_RANGE_OK;
	}
	if (a >= size)
		return HTTP_RANGE_UNSATISFIABLE;
	*first = a;
	*last = open_end || b >= size ? size - 1 : b;
	return HTTP_RANGE_OK;
}

size_t http_format_content_range(char *out, uint64_t first, uint64_t last,
				 uint64_t size)
{
	size_t n = 6;

	memcpy(out, "bytes ", 6);
	if (first > last) {
		out[n++] = '*';
	} else {
		n += http_format_u64(out + n, first);
		out[n++] = '-';
		n += http_format_u64(out + n, last);
	}
	out[n++] = '/';
	n += http_format_u64(out + n, size);
	return n;
}
