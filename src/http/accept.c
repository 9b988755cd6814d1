// SPDX-License-Identifier: MIT
/*
 * Accept is read strictly in what it takes: an element that is not a
 * well-formed media range, with well-formed parameters and q-value, counts
 * as absent, so that junk never chooses a type; the caller's default
 * stands instead.
 */
#include "accept.h"
#include "parser.h"
#include "token.h"

/* How specifically a media range names a type: higher wins. */
enum range_match {
	RANGE_NO_MATCH,
	RANGE_ANY_TYPE, /* '*' for both */
	RANGE_ANY_SUBTYPE, /* the top-level type with a '*' subtype */
	RANGE_EXACT,
};

static size_t token_len(const char *s, size_t n)
{
	size_t i = 0;

	while (i < n && http_is_tchar(s[i]))
		i++;
	return i;
}

/* A quoted-string's length, quotes included; 0 when it does not close. */
static size_t quoted_len(const char *s, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		if (s[i] == '\\')
			i++;
		else if (s[i] == '"')
			return i + 1;
	}
	return 0;
}

/*
 * A qvalue (RFC 9110 12.4.2): "0" ["." 0*3DIGIT] or "1" ["." 0*3"0"], in
 * thousandths; -1 when malformed.
 */
static int parse_qvalue(const char *s, size_t n)
{
	int q, scale = 100;

	if (n == 0 || (s[0] != '0' && s[0] != '1'))
		return -1;
	q = (s[0] - '0') * 1000;
	if (n == 1)
		return q;
	if (s[1] != '.' || n > 5)
		return -1;
	for (size_t i = 2; i < n; i++, scale /= 10) {
		if (!http_is_digit(s[i]))
			return -1;
		q += (s[i] - '0') * scale;
	}
	return q > 1000 ? -1 : q;
}

/*
 * The parameters after a media range, s[0..n): sets *q from the first one
 * named q (1000 without one); false when they are malformed.
 */
static bool parse_params(const char *s, size_t n, int *q)
{
	bool have_q = false;
	size_t i = 0;

	*q = 1000;
	while (i < n) {
		size_t name, at, value;

		while (i < n && http_is_ows(s[i]))
			i++;
		if (i == n)
			break;
		if (s[i++] != ';')
			return false;
		while (i < n && http_is_ows(s[i]))
			i++;
		name = token_len(s + i, n - i);
		if (name == 0)
			continue; /* an empty parameter: "a/b;;q=1" */
		at = i + name + 1; /* the value */
		if (at >= n || s[at - 1] != '=')
			return false;
		value = s[at] == '"' ? quoted_len(s + at, n - at) :
				       token_len(s + at, n - at);
		if (value == 0)
			return false;
		if (!have_q && name == 1 && http_tolower(s[i]) == 'q') {
			*q = parse_qvalue(s + at, value);
			if (*q < 0)
				return false;
			have_q = true;
		}
		i = at + value;
	}
	return true;
}

/*
 * How the element s[0..n) of an Accept list matches type, whose top-level
 * type is its first top_len bytes, and its weight (*q).
 */
static enum range_match match_range(const char *s, size_t n, const char *type,
				    size_t top_len, int *q)
{
	size_t top = token_len(s, n), sub, end;
	enum range_match m;

	if (top == 0 || top == n || s[top] != '/')
		return RANGE_NO_MATCH;
	sub = token_len(s + top + 1, n - top - 1);
	if (sub == 0)
		return RANGE_NO_MATCH;
	end = top + 1 + sub;
	/* A '*' type with a subtype other than '*' names nothing: malformed. */
	if (top == 1 && s[0] == '*')
		m = sub == 1 && s[2] == '*' ? RANGE_ANY_TYPE : RANGE_NO_MATCH;
	else if (sub == 1 && s[top + 1] == '*')
		m = top == top_len && http_eq_lower(s, type, top) ?
			    RANGE_ANY_SUBTYPE :
			    RANGE_NO_MATCH;
	else
		m = end == strlen(type) && http_eq_lower(s, type, end) ?
			    RANGE_EXACT :
			    RANGE_NO_MATCH;
	if (m == RANGE_NO_MATCH || !parse_params(s + end, n - end, q))
		return RANGE_NO_MATCH;
	return m;
}

int http_accept_weight(const char *accept, size_t len, const char *type)
{
	const char *slash = strchr(type, '/');
	size_t top_len = slash ? (size_t)(slash - type) : strlen(type);
	enum range_match best = RANGE_NO_MATCH;
	size_t pos = 0, start, end;
	int best_q = 0;

	if (!accept)
		return 0;
	while (http_list_next(accept, len, &pos, &start, &end)) {
		int q;
		enum range_match m = match_range(accept + start, end - start,
						 type, top_len, &q);

		if (m > best ||
		    (m == best && m != RANGE_NO_MATCH && q > best_q)) {
			best = m;
			best_q = q;
		}
	}
	return best_q;
}

bool http_accept_prefers(const char *accept, size_t len, const char *type,
			 const char *other)
{
	int w = http_accept_weight(accept, len, type);

	return w > 0 && w > http_accept_weight(accept, len, other);
}
