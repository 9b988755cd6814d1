// SPDX-License-Identifier: MIT
#include "negotiate.h"
#include "parser.h"
#include "token.h"

/* q-values in thousandths; -1 when a coding is not mentioned. */
struct coding_q {
	int gzip;
	int deflate;
	int star;
};

/* Parses "q=0.5" style weights; malformed ones count as 1 (lenient). */
static int parse_q(const char *s, size_t n)
{
	int q = 0, scale = 1000;
	size_t i = 2;

	if (n < 3 || http_tolower(s[0]) != 'q' || s[1] != '=')
		return 1000;
	if (s[i] == '1')
		return 1000;
	if (s[i] != '0')
		return 1000;
	i++;
	if (i < n && s[i] == '.') {
		for (i++; i < n && scale > 1 && s[i] >= '0' && s[i] <= '9';
		     i++) {
			scale /= 10;
			q += (s[i] - '0') * scale;
		}
	}
	return q;
}

static void parse_accept(const char *s, size_t len, struct coding_q *q)
{
	size_t pos = 0, start, end;

	q->gzip = q->deflate = q->star = -1;
	while (http_list_next(s, len, &pos, &start, &end)) {
		size_t tok_end = start, n;
		int weight = 1000;

		while (tok_end < end && s[tok_end] != ';' &&
		       !http_is_ows(s[tok_end]))
			tok_end++;
		/* Parameters: only q matters. */
		for (size_t i = tok_end; i < end; i++) {
			if (s[i] != ';')
				continue;
			while (i + 1 < end && http_is_ows(s[i + 1]))
				i++;
			weight = parse_q(s + i + 1, end - i - 1);
		}
		n = tok_end - start;
		if (n == 4 && http_eq_lower(s + start, "gzip", 4))
			q->gzip = weight;
		else if (n == 6 && http_eq_lower(s + start, "x-gzip", 6) &&
			 q->gzip < 0)
			q->gzip = weight;
		else if (n == 7 && http_eq_lower(s + start, "deflate", 7))
			q->deflate = weight;
		else if (n == 1 && s[start] == '*')
			q->star = weight;
	}
}

enum http_coding http_choose_coding(const char *accept, size_t len,
				    unsigned available)
{
	struct coding_q q;
	int gzip, deflate;

	if (!accept)
		return HTTP_CODING_IDENTITY;
	parse_accept(accept, len, &q);
	gzip = q.gzip >= 0 ? q.gzip : q.star;
	deflate = q.deflate >= 0 ? q.deflate : q.star;
	if (!(available & HTTP_CODING_BIT(HTTP_CODING_GZIP)))
		gzip = -1;
	if (!(available & HTTP_CODING_BIT(HTTP_CODING_DEFLATE)))
		deflate = -1;
	if (gzip > 0 && gzip >= deflate)
		return HTTP_CODING_GZIP;
	if (deflate > 0)
		return HTTP_CODING_DEFLATE;
	return HTTP_CODING_IDENTITY;
}

const char *http_coding_name(enum http_coding c)
{
	switch (c) {
	case HTTP_CODING_GZIP:
		return "gzip";
	case HTTP_CODING_DEFLATE:
		return "deflate";
	default:
		return NULL;
	}
}
