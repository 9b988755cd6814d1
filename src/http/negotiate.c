// SPDX-License-Identifier: MIT
#include "negotiate.h"
#include "parser.h"
#include "token.h"

/* q-values in thousandths by enum http_coding; -1 when not mentioned. */
struct coding_q {
	int q[HTTP_CODING_COUNT];
	int star;
	int identity;
};

/* The codings' names as Accept-Encoding lists them. */
static const struct {
	const char *name;
	size_t len;
	enum http_coding coding;
} coding_names[] = {
	{ "gzip", 4, HTTP_CODING_GZIP },
	{ "deflate", 7, HTTP_CODING_DEFLATE },
	{ "br", 2, HTTP_CODING_BR },
	{ "zstd", 4, HTTP_CODING_ZSTD },
};

/* Ties go to the first: the usual order of output sizes, smallest first. */
static const enum http_coding by_size[] = {
	HTTP_CODING_BR,
	HTTP_CODING_ZSTD,
	HTTP_CODING_GZIP,
	HTTP_CODING_DEFLATE,
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

	for (int c = 0; c < HTTP_CODING_COUNT; c++)
		q->q[c] = -1;
	q->star = -1;
	q->identity = -1;
	while (http_list_next(s, len, &pos, &start, &end)) {
		size_t tok_end = start, n;
		int weight = 1000;

		while (tok_end < end && s[tok_end] != ';' &&
		       !http_is_ows(s[tok_end]))
			tok_end++;
		/* Parameters: only q matters, and another after it leaves
		 * it as it was ("gzip;q=0;x=1" is still refused). */
		for (size_t i = tok_end; i < end; i++) {
			if (s[i] != ';')
				continue;
			while (i + 1 < end && http_is_ows(s[i + 1]))
				i++;
			if (i + 2 < end && http_tolower(s[i + 1]) == 'q' &&
			    s[i + 2] == '=')
				weight = parse_q(s + i + 1, end - i - 1);
		}
		n = tok_end - start;
		for (size_t i = 0; i < ARRAY_SIZE(coding_names); i++) {
			if (n == coding_names[i].len &&
			    http_eq_lower(s + start, coding_names[i].name, n))
				q->q[coding_names[i].coding] = weight;
		}
		if (n == 6 && http_eq_lower(s + start, "x-gzip", 6) &&
		    q->q[HTTP_CODING_GZIP] < 0)
			q->q[HTTP_CODING_GZIP] = weight;
		else if (n == 1 && s[start] == '*')
			q->star = weight;
		else if (n == 8 && http_eq_lower(s + start, "identity", 8))
			q->identity = weight;
	}
}

enum http_coding http_choose_coding_favouring(const char *accept, size_t len,
					      unsigned available,
					      unsigned favoured)
{
	enum http_coding best = HTTP_CODING_IDENTITY;
	int best_q = 0;
	bool best_favoured = false;
	struct coding_q q;
	int identity_q;

	if (!accept)
		return HTTP_CODING_IDENTITY;
	parse_accept(accept, len, &q);
	/* Unranked (-1) when neither names it: then any coding wins. */
	identity_q = q.identity >= 0 ? q.identity : q.star;
	for (size_t i = 0; i < ARRAY_SIZE(by_size); i++) {
		enum http_coding c = by_size[i];
		int w = q.q[c] >= 0 ? q.q[c] : q.star;
		bool fav = favoured & HTTP_CODING_BIT(c);

		if (!(available & HTTP_CODING_BIT(c)) || w <= 0)
			continue;
		if (w > best_q || (w == best_q && fav && !best_favoured)) {
			best = c;
			best_q = w;
			best_favoured = fav;
		}
	}
	/* Ranked strictly above every coding it would have: as it is. */
	if (identity_q > best_q)
		return HTTP_CODING_IDENTITY;
	return best;
}

enum http_coding http_choose_coding(const char *accept, size_t len,
				    unsigned available)
{
	return http_choose_coding_favouring(accept, len, available, 0);
}

enum http_coding http_request_coding(const char *buf,
				     const struct http_request *req,
				     unsigned available, unsigned favoured)
{
	char tmp[HTTP_LIST_JOIN_MAX];
	const char *accept;
	size_t len;

	if (!http_has_header(req, HTTP_H_ACCEPT_ENCODING))
		return HTTP_CODING_IDENTITY;
	/* Accept-Encoding on several lines is one list (RFC 9110 5.3). */
	len = http_header_list(buf, req, HTTP_H_ACCEPT_ENCODING, tmp,
			       sizeof(tmp), &accept);
	return http_choose_coding_favouring(accept, len, available, favoured);
}

const char *http_coding_name(enum http_coding c)
{
	switch (c) {
	case HTTP_CODING_GZIP:
		return "gzip";
	case HTTP_CODING_DEFLATE:
		return "deflate";
	case HTTP_CODING_BR:
		return "br";
	case HTTP_CODING_ZSTD:
		return "zstd";
	default:
		return NULL;
	}
}

const char *http_coding_etag_suffix(enum http_coding c)
{
	static const char *const suffix[HTTP_CODING_COUNT] = {
		[HTTP_CODING_IDENTITY] = "",  [HTTP_CODING_GZIP] = "gz",
		[HTTP_CODING_DEFLATE] = "df", [HTTP_CODING_BR] = "br",
		[HTTP_CODING_ZSTD] = "zst",
	};

	return suffix[c];
}
