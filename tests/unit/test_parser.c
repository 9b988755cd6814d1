// SPDX-License-Identifier: MIT
/*
 * The request-head parser: every accepted form, every refusal with its
 * status, the limits at and just past their edges, and the promise that the
 * verdict does not depend on how the bytes were split between calls.
 */
#include "harness.h"

#include "http/parser.h"

#define S(lit) lit, sizeof(lit) - 1

static int parse(const char *s, size_t n, struct http_request *req)
{
	struct http_parser p;

	http_parser_init(&p);
	memset(req, 0xa5, sizeof(*req)); /* the parser must clear it */
	return http_parse_request(&p, req, s, n);
}

static int parse_str(const char *s, struct http_request *req)
{
	return parse(s, strlen(s), req);
}

static int status_of(const char *s)
{
	struct http_request req;

	return parse_str(s, &req);
}

static bool span_is(const char *buf, struct http_span sp, const char *s)
{
	return sp.len == strlen(s) && !memcmp(buf + sp.off, s, sp.len);
}

#define CHECK_SPAN(buf, sp, s)                                          \
	do {                                                            \
		if (!span_is((buf), (sp), (s))) {                       \
			fprintf(stderr,                                 \
				"  %s:%d: span %s is \"%.*s\", "        \
				"expected \"%s\"\n",                    \
				__FILE__, __LINE__, #sp, (int)(sp).len, \
				(buf) + (sp).off, (s));                 \
			test_failures_in_case++;                        \
		}                                                       \
	} while (0)

static bool same_span(struct http_span a, struct http_span b)
{
	return a.off == b.off && a.len == b.len;
}

static bool same_request(const struct http_request *a,
			 const struct http_request *b)
{
	if (a->method != b->method || a->version_minor != b->version_minor ||
	    a->keep_alive != b->keep_alive || a->target_ok != b->target_ok ||
	    a->has_query != b->has_query ||
	    a->chunked_body != b->chunked_body ||
	    a->content_length != b->content_length ||
	    !same_span(a->method_name, b->method_name) ||
	    !same_span(a->target, b->target) || a->present != b->present ||
	    a->nfields != b->nfields || a->head_len != b->head_len)
		return false;
	if (a->target_ok && !same_span(a->path, b->path))
		return false;
	if (a->has_query && !same_span(a->query, b->query))
		return false;
	for (int id = 0; id < HTTP_H_COUNT; id++) {
		if (http_has_header(a, id) &&
		    !same_span(a->header[id], b->header[id]))
			return false;
	}
	return true;
}

/*
 * Feeds s in two calls, the first with `at` bytes, each from a fresh copy of
 * the buffer (the parser keeps offsets, never pointers).
 */
static int parse_split(const char *s, size_t n, size_t at,
		       struct http_request *req)
{
	struct http_parser p;
	char *first = malloc(at ? at : 1), *second = malloc(n ? n : 1);
	int r;

	memcpy(first, s, at);
	memcpy(second, s, n);
	http_parser_init(&p);
	memset(req, 0x5a, sizeof(*req));
	r = http_parse_request(&p, req, first, at);
	memset(first, 0, at); /* stale bytes must not matter */
	if (r == HTTP_PARSE_AGAIN)
		r = http_parse_request(&p, req, second, n);
	free(first);
	free(second);
	return r;
}

static int parse_bytewise(const char *s, size_t n, struct http_request *req)
{
	struct http_parser p;
	int r = HTTP_PARSE_AGAIN;

	http_parser_init(&p);
	for (size_t k = 0; k <= n && r == HTTP_PARSE_AGAIN; k++)
		r = http_parse_request(&p, req, s, k);
	return r;
}

/*
 * The one-shot result must equal the result of every two-call split (every
 * `stride`-th one, and all near the ends) and of byte-at-a-time delivery.
 */
static bool check_incremental(const char *s, size_t n, size_t stride)
{
	struct http_request one, inc;
	int r1 = parse(s, n, &one), r2;
	bool ok = true;

	for (size_t at = 0; at <= n; at++) {
		if (at > 64 && at + 64 < n && at % stride)
			continue;
		r2 = parse_split(s, n, at, &inc);
		if (r2 != r1 || (r1 > 0 && !same_request(&one, &inc))) {
			fprintf(stderr,
				"  split at %zu of %zu: %d, one-shot %d\n", at,
				n, r2, r1);
			ok = false;
			break;
		}
	}
	r2 = parse_bytewise(s, n, &inc);
	if (r2 != r1 || (r1 > 0 && !same_request(&one, &inc))) {
		fprintf(stderr, "  byte at a time: %d, one-shot %d\n", r2, r1);
		ok = false;
	}
	return ok;
}

/* A request line "GET /xxx HTTP/1.1" of exactly line_len bytes. */
static char *long_line_request(size_t line_len, const char *rest,
			       size_t *out_len)
{
	size_t rest_len = strlen(rest);
	size_t fill = line_len - strlen("GET / HTTP/1.1");
	char *s = malloc(line_len + rest_len + 1);

	memcpy(s, "GET /", 5);
	memset(s + 5, 'x', fill);
	memcpy(s + 5 + fill, " HTTP/1.1", 9);
	memcpy(s + line_len, rest, rest_len + 1);
	*out_len = line_len + rest_len;
	return s;
}

/*
 * "GET / HTTP/1.1\r\n", then fields so that the header section (everything
 * after the request line's CRLF, through the final empty line) is exactly
 * section_len bytes.
 */
static char *long_header_request(size_t section_len, size_t *out_len)
{
	static const char line[] = "GET / HTTP/1.1\r\n";
	static const char host[] = "Host: h\r\n";
	size_t pos, end;
	char *s = malloc(sizeof(line) + section_len + 1);

	memcpy(s, line, sizeof(line) - 1);
	pos = sizeof(line) - 1;
	memcpy(s + pos, host, sizeof(host) - 1);
	pos += sizeof(host) - 1;
	end = sizeof(line) - 1 + section_len - 2; /* before the final CRLF */
	/* Fields "X: vvv...\r\n" of at most 1000 bytes; the last one fits. */
	while (pos < end) {
		size_t left = end - pos, k = left > 1000 ? 1000 : left;

		if (left - k < 6 && left > 1000)
			k = left - 6; /* leave room for a minimal field */
		memcpy(s + pos, "X:", 2);
		memset(s + pos + 2, 'v', k - 4);
		memcpy(s + pos + k - 2, "\r\n", 2);
		pos += k;
	}
	memcpy(s + pos, "\r\n", 2);
	*out_len = pos + 2;
	return s;
}

TEST(simple_get)
{
	static const char s[] = "GET /index.html HTTP/1.1\r\nHost: example\r\n"
				"\r\n";
	struct http_request req;
	int r = parse(S(s), &req);

	CHECK_EQ_INT(r, sizeof(s) - 1);
	CHECK_EQ_INT(req.head_len, sizeof(s) - 1);
	CHECK_EQ_INT(req.method, HTTP_GET);
	CHECK_EQ_INT(req.version_minor, 1);
	CHECK(req.keep_alive);
	CHECK(req.target_ok);
	CHECK(!req.has_query);
	CHECK(!req.chunked_body);
	CHECK_EQ_INT(req.content_length, 0);
	CHECK_SPAN(s, req.method_name, "GET");
	CHECK_SPAN(s, req.target, "/index.html");
	CHECK_SPAN(s, req.path, "/index.html");
	CHECK(http_has_header(&req, HTTP_H_HOST));
	CHECK_SPAN(s, req.header[HTTP_H_HOST], "example");
	CHECK_EQ_INT(req.present, 1u << HTTP_H_HOST);
	CHECK_EQ_INT(req.nfields, 1);
	CHECK(http_span_ptr(s, req.target) == s + 4);
}

TEST(empty_and_partial_input_needs_more)
{
	struct http_request req;

	CHECK_EQ_INT(parse("", 0, &req), HTTP_PARSE_AGAIN);
	CHECK_EQ_INT(parse_str("GET / HTTP/1.1\r\nHost: x\r\n", &req),
		     HTTP_PARSE_AGAIN);
	CHECK_EQ_INT(parse_str("GET / HTTP/1.1\r\nHost: x\r\n\r", &req),
		     HTTP_PARSE_AGAIN);
	CHECK_EQ_INT(parse_str("\r\n\r\n", &req), HTTP_PARSE_AGAIN);
	CHECK_EQ_INT(parse_str("GE", &req), HTTP_PARSE_AGAIN);
}

TEST(every_method)
{
	static const struct {
		const char *name;
		enum http_method m;
	} methods[] = {
		{ "GET", HTTP_GET },	     { "HEAD", HTTP_HEAD },
		{ "POST", HTTP_POST },	     { "PUT", HTTP_PUT },
		{ "DELETE", HTTP_DELETE },   { "CONNECT", HTTP_CONNECT },
		{ "OPTIONS", HTTP_OPTIONS }, { "TRACE", HTTP_TRACE },
		{ "PATCH", HTTP_PATCH },
	};
	char s[128];
	struct http_request req;

	for (size_t i = 0; i < ARRAY_SIZE(methods); i++) {
		int n = snprintf(s, sizeof(s),
				 "%s / HTTP/1.1\r\nHost: h\r\n\r\n",
				 methods[i].name);

		CHECK_EQ_INT(parse(s, (size_t)n, &req), n);
		CHECK_EQ_INT(req.method, methods[i].m);
		CHECK_SPAN(s, req.method_name, methods[i].name);
		CHECK_EQ_INT(http_method_allowed_on_static(req.method),
			     methods[i].m == HTTP_GET ||
				     methods[i].m == HTTP_HEAD);
	}
	CHECK(!http_method_allowed_on_static(HTTP_METHOD_UNKNOWN));
}

TEST(unknown_and_lowercase_methods_501)
{
	CHECK_EQ_INT(status_of("FOO / HTTP/1.1\r\nHost: h\r\n\r\n"), -501);
	CHECK_EQ_INT(status_of("get / HTTP/1.1\r\nHost: h\r\n\r\n"), -501);
	CHECK_EQ_INT(status_of("Get / HTTP/1.1\r\nHost: h\r\n\r\n"), -501);
	CHECK_EQ_INT(status_of("GETS / HTTP/1.1\r\nHost: h\r\n\r\n"), -501);
	CHECK_EQ_INT(status_of("GE / HTTP/1.1\r\nHost: h\r\n\r\n"), -501);
	CHECK_EQ_INT(status_of("PRI * HTTP/1.1\r\nHost: h\r\n\r\n"), -501);
	/* Decided when the request line ends, before any header. */
	CHECK_EQ_INT(status_of("FOO / HTTP/1.1\r\n"), -501);
}

TEST(versions)
{
	struct http_request req;

	CHECK(parse_str("GET / HTTP/1.0\r\n\r\n", &req) > 0);
	CHECK_EQ_INT(req.version_minor, 0);
	CHECK(parse_str("GET / HTTP/1.1\r\nHost: h\r\n\r\n", &req) > 0);
	CHECK_EQ_INT(req.version_minor, 1);

	CHECK_EQ_INT(status_of("GET / HTTP/2.0\r\nHost: h\r\n\r\n"), -505);
	CHECK_EQ_INT(status_of("GET / HTTP/3.0\r\nHost: h\r\n\r\n"), -505);
	CHECK_EQ_INT(status_of("GET / HTTP/0.9\r\n\r\n"), -505);
	CHECK_EQ_INT(status_of("GET / HTTP/9.9\r\n"), -505);
	/* A later minor version of 1 is read as 1.1 (RFC 9110 2.5). */
	CHECK(parse_str("GET / HTTP/1.2\r\nHost: h\r\n\r\n", &req) > 0);
	CHECK_EQ_INT(req.version_minor, 1);
	CHECK(req.keep_alive);
	CHECK(parse_str("GET / HTTP/1.9\r\nHost: h\r\nConnection: close\r\n"
			"\r\n",
			&req) > 0);
	CHECK_EQ_INT(req.version_minor, 1);
	CHECK(!req.keep_alive);
	CHECK_EQ_INT(status_of("GET / HTTP/1.9\r\n\r\n"), -400); /* Host */

	CHECK_EQ_INT(status_of("GET / HTTP/1\r\nHost: h\r\n\r\n"), -400);
	CHECK_EQ_INT(status_of("GET / HTTP/1.1.1\r\nHost: h\r\n\r\n"), -400);
	CHECK_EQ_INT(status_of("GET / http/1.1\r\nHost: h\r\n\r\n"), -400);
	CHECK_EQ_INT(status_of("GET / HTTP/11\r\nHost: h\r\n\r\n"), -400);
	CHECK_EQ_INT(status_of("GET / HTTP/1.x\r\nHost: h\r\n\r\n"), -400);
	CHECK_EQ_INT(status_of("GET / HTTP/x.1\r\nHost: h\r\n\r\n"), -400);
	CHECK_EQ_INT(status_of("GET / HTTP-1.1\r\nHost: h\r\n\r\n"), -400);
	CHECK_EQ_INT(status_of("GET / HTTP/1.10\r\nHost: h\r\n\r\n"), -400);
	CHECK_EQ_INT(status_of("GET / XTTP/1.1\r\nHost: h\r\n\r\n"), -400);
	CHECK_EQ_INT(status_of("GET / \r\nHost: h\r\n\r\n"), -400);
	/* A malformed version is refused before an unknown method. */
	CHECK_EQ_INT(status_of("FOO / HTTP/1\r\n\r\n"), -400);
	/* A long run of version bytes is refused as soon as it is seen. */
	CHECK_EQ_INT(status_of("GET / HTTP/1.1111111"), -400);
}

TEST(origin_form_and_query)
{
	static const char s[] = "GET /a/b.txt?x=1&y=%20 HTTP/1.1\r\n"
				"Host: h\r\n\r\n";
	struct http_request req;

	CHECK(parse(S(s), &req) > 0);
	CHECK(req.target_ok);
	CHECK(req.has_query);
	CHECK_SPAN(s, req.target, "/a/b.txt?x=1&y=%20");
	CHECK_SPAN(s, req.path, "/a/b.txt");
	CHECK_SPAN(s, req.query, "x=1&y=%20");

	CHECK(parse_str("GET /a? HTTP/1.1\r\nHost: h\r\n\r\n", &req) > 0);
	CHECK(req.has_query);
	CHECK_EQ_INT(req.query.len, 0);
	CHECK_EQ_INT(req.path.len, 2);

	/* Only the first '?' splits; later ones belong to the query. */
	{
		static const char q[] = "GET /p??a?b HTTP/1.0\r\n\r\n";

		CHECK(parse(S(q), &req) > 0);
		CHECK_SPAN(q, req.path, "/p");
		CHECK_SPAN(q, req.query, "?a?b");
	}
	/* obs-text is allowed in a target; the path layer judges it. */
	{
		static const char u[] = "GET /\xc3\xbc\xff HTTP/1.0\r\n\r\n";

		CHECK(parse(S(u), &req) > 0);
		CHECK(req.target_ok);
		CHECK_SPAN(u, req.path, "/\xc3\xbc\xff");
	}
}

TEST(absolute_form)
{
	static const char s[] = "GET http://example.com:8080/a/b?q=1 HTTP/1.1"
				"\r\nHost: example.com:8080\r\n\r\n";
	struct http_request req;

	CHECK(parse(S(s), &req) > 0);
	CHECK(req.target_ok);
	CHECK_SPAN(s, req.path, "/a/b");
	CHECK(req.has_query);
	CHECK_SPAN(s, req.query, "q=1");

	{
		static const char t[] = "GET HTTPS://h/x HTTP/1.0\r\n\r\n";

		CHECK(parse(S(t), &req) > 0);
		CHECK(req.target_ok);
		CHECK_SPAN(t, req.path, "/x");
		CHECK(!req.has_query);
	}
	{
		/* No path at all: an empty path, which means "/". */
		static const char t[] = "GET http://h HTTP/1.0\r\n\r\n";

		CHECK(parse(S(t), &req) > 0);
		CHECK(req.target_ok);
		CHECK_EQ_INT(req.path.len, 0);
	}
	{
		static const char t[] = "GET http://[::1]:8/x HTTP/1.0\r\n\r\n";

		CHECK(parse(S(t), &req) > 0);
		CHECK(req.target_ok);
		CHECK_SPAN(t, req.path, "/x");
	}
	{
		static const char t[] = "GET http://h?k HTTP/1.0\r\n\r\n";

		CHECK(parse(S(t), &req) > 0);
		CHECK(req.target_ok);
		CHECK_EQ_INT(req.path.len, 0);
		CHECK(req.has_query);
		CHECK_SPAN(t, req.query, "k");
	}
	/* Forms that are not a path: parsed, but not target_ok. */
	{
		static const char *const bad[] = {
			"OPTIONS * HTTP/1.1\r\nHost: h\r\n\r\n",
			"CONNECT h:443 HTTP/1.1\r\nHost: h\r\n\r\n",
			"GET ftp://h/x HTTP/1.1\r\nHost: h\r\n\r\n",
			"GET http:/x HTTP/1.1\r\nHost: h\r\n\r\n",
			"GET http:// HTTP/1.1\r\nHost: h\r\n\r\n",
			"GET a/b HTTP/1.1\r\nHost: h\r\n\r\n",
			/* An authority that is no uri-host [:port]. */
			"GET http:///a HTTP/1.1\r\nHost: h\r\n\r\n",
			"GET http://u@h/a HTTP/1.1\r\nHost: h\r\n\r\n",
			"GET http://h:x/a HTTP/1.1\r\nHost: h\r\n\r\n",
			"GET http://[::1/a HTTP/1.1\r\nHost: h\r\n\r\n",
			"GET http://h\xff/a HTTP/1.1\r\nHost: h\r\n\r\n",
			"GET http://\"h\"/a HTTP/1.1\r\nHost: h\r\n\r\n",
		};

		for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
			CHECK(parse_str(bad[i], &req) > 0);
			if (req.target_ok)
				fprintf(stderr, "  target_ok for %s", bad[i]);
			CHECK(!req.target_ok);
		}
	}
}

TEST(fragment_in_target_400)
{
	static const char *const bad[] = {
		"GET /a#frag HTTP/1.1\r\nHost: h\r\n\r\n",
		"GET http://h/a#f HTTP/1.1\r\nHost: h\r\n\r\n",
		"GET /a?q#f HTTP/1.1\r\nHost: h\r\n\r\n",
		"GET /a?# HTTP/1.1\r\nHost: h\r\n\r\n",
		"GET # HTTP/1.1\r\nHost: h\r\n\r\n",
		"GET http://h#/a HTTP/1.1\r\nHost: h\r\n\r\n",
		"POST /a?x=#1 HTTP/1.1\r\nHost: h\r\n\r\n",
	};
	struct http_request req;

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		if (status_of(bad[i]) != -400)
			fprintf(stderr, "  not refused: %s", bad[i]);
		CHECK_EQ_INT(status_of(bad[i]), -400);
	}
	/* '#' stays a token character, and may be percent-encoded. */
	CHECK(parse_str("GET /a%23b?q=%23 HTTP/1.1\r\nHost: h\r\n"
			"X#: #\r\n\r\n",
			&req) > 0);
	CHECK(req.target_ok);
}

TEST(bare_lf_and_leading_empty_lines)
{
	static const char lf[] = "GET /x HTTP/1.1\nHost: h\nA: b\n\n";
	static const char mixed[] = "GET /x HTTP/1.1\nHost: h\r\nA: b\n\r\n";
	static const char lead[] =
		"\r\n\r\n\nGET /x HTTP/1.1\r\nHost: h\r\n\r\n";
	struct http_request req;

	CHECK_EQ_INT(parse(S(lf), &req), sizeof(lf) - 1);
	CHECK_SPAN(lf, req.header[HTTP_H_HOST], "h");
	CHECK_SPAN(lf, req.path, "/x");
	CHECK_EQ_INT(req.nfields, 2);
	CHECK_EQ_INT(parse(S(mixed), &req), sizeof(mixed) - 1);
	CHECK_EQ_INT(req.nfields, 2);
	CHECK_EQ_INT(parse(S(lead), &req), sizeof(lead) - 1);
	CHECK_SPAN(lead, req.method_name, "GET");
	CHECK_EQ_INT(req.method_name.off, 5);
	CHECK_SPAN(lead, req.path, "/x");
}

/* Empty lines before a request do not begin one; its first byte does. */
TEST(parse_begun_after_empty_lines)
{
	static const char lead[] = "\r\n\n\r\nG";
	struct http_request req;
	struct http_parser p;

	http_parser_init(&p);
	CHECK(!http_parse_begun(&p));
	for (size_t n = 1; n < sizeof(lead) - 1; n++) {
		CHECK_EQ_INT(http_parse_request(&p, &req, lead, n),
			     HTTP_PARSE_AGAIN);
		CHECK(!http_parse_begun(&p));
	}
	CHECK_EQ_INT(http_parse_request(&p, &req, S(lead)), HTTP_PARSE_AGAIN);
	CHECK(http_parse_begun(&p));
}

TEST(bare_cr_400)
{
	CHECK_EQ_INT(status_of("GET / HTTP/1.1\rHost: h\r\n\r\n"), -400);
	CHECK_EQ_INT(status_of("GET / HTTP/1.1\r\nHost: h\rX: y\r\n\r\n"),
		     -400);
	CHECK_EQ_INT(status_of("GET / HTTP/1.1\r\nHost: h\r\n\rX"), -400);
	CHECK_EQ_INT(status_of("GET / HTTP/1.1\r\nHost: a\rb\r\n\r\n"), -400);
	CHECK_EQ_INT(status_of("GET / HTTP/1.1\r\r\nHost: h\r\n\r\n"), -400);
	CHECK_EQ_INT(status_of("\rGET / HTTP/1.1\r\nHost: h\r\n\r\n"), -400);
	CHECK_EQ_INT(status_of("\r\rGET / HTTP/1.1\r\nHost: h\r\n\r\n"), -400);
	CHECK_EQ_INT(status_of("GET /\r HTTP/1.1\r\nHost: h\r\n\r\n"), -400);
}

TEST(header_value_trimming)
{
	static const char s[] = "GET / HTTP/1.1\r\n"
				"Host: \t example.com \t \r\n"
				"User-Agent:x y  z\r\n"
				"Referer:\r\n"
				"Range:    \r\n"
				"\r\n";
	struct http_request req;

	CHECK(parse(S(s), &req) > 0);
	CHECK_SPAN(s, req.header[HTTP_H_HOST], "example.com");
	CHECK_SPAN(s, req.header[HTTP_H_USER_AGENT], "x y  z");
	CHECK(http_has_header(&req, HTTP_H_REFERER));
	CHECK_EQ_INT(req.header[HTTP_H_REFERER].len, 0);
	CHECK(http_has_header(&req, HTTP_H_RANGE));
	CHECK_EQ_INT(req.header[HTTP_H_RANGE].len, 0);
	CHECK_EQ_INT(req.nfields, 4);
}

TEST(known_header_spans)
{
	static const struct {
		const char *name;
		enum http_header_id id;
	} known[] = {
		{ "hOST", HTTP_H_HOST },
		{ "Connection", HTTP_H_CONNECTION },
		{ "CONTENT-LENGTH", HTTP_H_CONTENT_LENGTH },
		{ "Accept-Encoding", HTTP_H_ACCEPT_ENCODING },
		{ "ACCEPT", HTTP_H_ACCEPT },
		{ "Range", HTTP_H_RANGE },
		{ "If-None-Match", HTTP_H_IF_NONE_MATCH },
		{ "If-Modified-Since", HTTP_H_IF_MODIFIED_SINCE },
		{ "if-range", HTTP_H_IF_RANGE },
		{ "User-Agent", HTTP_H_USER_AGENT },
		{ "Referer", HTTP_H_REFERER },
		{ "Origin", HTTP_H_ORIGIN },
		{ "Access-Control-Request-Method", HTTP_H_AC_REQUEST_METHOD },
		{ "access-control-request-headers", HTTP_H_AC_REQUEST_HEADERS },
		{ "Authorization", HTTP_H_AUTHORIZATION },
	};
	static const char *const values[] = {
		"h",
		"x-token",
		"12",
		"gzip, br",
		"application/json",
		"bytes=0-1",
		"\"e\"",
		"Sun, 06 Nov 1994 08:49:37 GMT",
		"\"r\"",
		"curl/8",
		"http://r/",
		"https://o.example",
		"GET",
		"x-a, x-b",
		"Basic YTpi",
	};
	char s[1024];
	size_t n = 0;
	struct http_request req;

	n += (size_t)snprintf(s + n, sizeof(s) - n,
			      "GET / HTTP/1.1\r\n"
			      "X-Other: 1\r\nHostX: no\r\nHos: no\r\n");
	for (size_t i = 0; i < ARRAY_SIZE(known); i++)
		n += (size_t)snprintf(s + n, sizeof(s) - n, "%s: %s\r\n",
				      known[i].name, values[i]);
	n += (size_t)snprintf(s + n, sizeof(s) - n, "\r\n");
	CHECK_EQ_INT(parse(s, n, &req), n);
	CHECK_EQ_INT(req.nfields, 3 + ARRAY_SIZE(known));
	for (size_t i = 0; i < ARRAY_SIZE(known); i++) {
		CHECK(http_has_header(&req, known[i].id));
		CHECK_SPAN(s, req.header[known[i].id], values[i]);
	}
	CHECK(!http_has_header(&req, HTTP_H_TRANSFER_ENCODING));
	CHECK_EQ_INT(req.content_length, 12);

	CHECK(parse_str("GET / HTTP/1.0\r\nX-Host: a\r\n\r\n", &req) > 0);
	CHECK_EQ_INT(req.present, 0);
	CHECK_EQ_INT(req.nfields, 1);
}

static int keep_alive_of(const char *s)
{
	struct http_request req;
	int r = parse_str(s, &req);

	if (r <= 0)
		return -1;
	return req.keep_alive;
}

TEST(connection_tokens)
{
	/* HTTP/1.1: persistent unless "close" is among the tokens. */
	CHECK_EQ_INT(keep_alive_of("GET / HTTP/1.1\r\nHost: h\r\n\r\n"), 1);
	CHECK_EQ_INT(keep_alive_of("GET / HTTP/1.1\r\nHost: h\r\n"
				   "Connection: close\r\n\r\n"),
		     0);
	CHECK_EQ_INT(keep_alive_of("GET / HTTP/1.1\r\nHost: h\r\n"
				   "Connection: Keep-Alive, CLOSE\r\n\r\n"),
		     0);
	CHECK_EQ_INT(keep_alive_of("GET / HTTP/1.1\r\nHost: h\r\n"
				   "Connection: upgrade,close\r\n\r\n"),
		     0);
	CHECK_EQ_INT(keep_alive_of("GET / HTTP/1.1\r\nHost: h\r\n"
				   "Connection: closed\r\n\r\n"),
		     1);
	CHECK_EQ_INT(keep_alive_of("GET / HTTP/1.1\r\nHost: h\r\n"
				   "Connection: keep-alive\r\n\r\n"),
		     1);
	/* A list may be split over several field lines. */
	CHECK_EQ_INT(keep_alive_of("GET / HTTP/1.1\r\nHost: h\r\n"
				   "Connection: close\r\n"
				   "Connection: te\r\n\r\n"),
		     0);
	/* HTTP/1.0: closes unless "keep-alive" is asked for. */
	CHECK_EQ_INT(keep_alive_of("GET / HTTP/1.0\r\n\r\n"), 0);
	CHECK_EQ_INT(keep_alive_of("GET / HTTP/1.0\r\n"
				   "Connection: keep-alive\r\n\r\n"),
		     1);
	CHECK_EQ_INT(keep_alive_of("GET / HTTP/1.0\r\n"
				   "connection: \tKeep-Alive \r\n\r\n"),
		     1);
	CHECK_EQ_INT(keep_alive_of("GET / HTTP/1.0\r\n"
				   "Connection: keep-alive, close\r\n\r\n"),
		     0);
	CHECK_EQ_INT(keep_alive_of("GET / HTTP/1.0\r\n"
				   "Connection: keep-alive-ish\r\n\r\n"),
		     0);
	CHECK_EQ_INT(keep_alive_of("GET / HTTP/1.0\r\n"
				   "Connection: keep-alive\r\n"
				   "Connection: foo\r\n\r\n"),
		     1);
	CHECK_EQ_INT(keep_alive_of("GET / HTTP/1.0\r\n"
				   "Connection: foo\r\n"
				   "Connection: keep-alive\r\n"
				   "Connection: close\r\n\r\n"),
		     0);
}

TEST(list_has_token)
{
	CHECK(http_list_has_token(S("close"), "close"));
	CHECK(http_list_has_token(S("CLOSE"), "close"));
	CHECK(http_list_has_token(S("a, b ,\tclose\t"), "close"));
	CHECK(http_list_has_token(S(",,, close ,,"), "close"));
	CHECK(http_list_has_token(S("a,b,c"), "b"));
	CHECK(!http_list_has_token(S(""), "close"));
	CHECK(!http_list_has_token(S(" , ,"), "close"));
	CHECK(!http_list_has_token(S("clos"), "close"));
	CHECK(!http_list_has_token(S("closer"), "close"));
	CHECK(!http_list_has_token(S("x close"), "close"));
	CHECK(!http_list_has_token(S("close x"), "close"));
	/* The length bounds the list: no reading past it. */
	CHECK(!http_list_has_token("clo"
				   "se",
				   3, "close"));
	CHECK(http_list_has_token("a,close,b", 7, "close"));
	CHECK(!http_list_has_token("a,close", 6, "close"));
}

TEST(content_length)
{
	struct http_request req;

	CHECK(parse_str("POST / HTTP/1.1\r\nHost: h\r\n"
			"Content-Length: 5\r\n\r\n",
			&req) > 0);
	CHECK_EQ_INT(req.content_length, 5);
	CHECK(http_has_header(&req, HTTP_H_CONTENT_LENGTH));
	CHECK(!req.chunked_body);
	CHECK(parse_str("POST / HTTP/1.1\r\nHost: h\r\n"
			"Content-Length:  0042 \r\n\r\n",
			&req) > 0);
	CHECK_EQ_INT(req.content_length, 42);
	CHECK(parse_str("POST / HTTP/1.1\r\nHost: h\r\n"
			"Content-Length: 7\r\ncontent-length: 7\r\n\r\n",
			&req) > 0);
	CHECK_EQ_INT(req.content_length, 7);
	CHECK(parse_str("POST / HTTP/1.1\r\nHost: h\r\n"
			"Content-Length: 9999999999999999999\r\n\r\n",
			&req) > 0);
	CHECK(req.content_length == 9999999999999999999ull);
	/* Only significant digits count (1*DIGIT allows leading zeros). */
	CHECK(parse_str("POST / HTTP/1.1\r\nHost: h\r\n"
			"Content-Length: 000000000000000000000000005\r\n\r\n",
			&req) > 0);
	CHECK_EQ_INT(req.content_length, 5);
	CHECK(parse_str("POST / HTTP/1.1\r\nHost: h\r\n"
			"Content-Length: 00000000000000000000000000\r\n\r\n",
			&req) > 0);
	CHECK_EQ_INT(req.content_length, 0);
	CHECK(parse_str("POST / HTTP/1.1\r\nHost: h\r\n"
			"Content-Length: 09999999999999999999\r\n\r\n",
			&req) > 0);
	CHECK(req.content_length == 9999999999999999999ull);

	static const char *const bad[] = {
		"010000000000000000000",
		"abc",
		"-1",
		"+1",
		"1 2",
		"1,1",
		"",
		"0x10",
		"1.0",
		"99999999999999999999",
		"18446744073709551616",
		"123456789012345678901234567890",
	};
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		char s[256];

		snprintf(s, sizeof(s),
			 "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: %s\r\n"
			 "\r\n",
			 bad[i]);
		if (status_of(s) != -400)
			fprintf(stderr, "  Content-Length: \"%s\"\n", bad[i]);
		CHECK_EQ_INT(status_of(s), -400);
	}
	CHECK_EQ_INT(status_of(
			     "POST / HTTP/1.1\r\nHost: h\r\n"
			     "Content-Length: 5\r\nContent-Length: 6\r\n\r\n"),
		     -400);
	CHECK_EQ_INT(status_of("POST / HTTP/1.1\r\nHost: h\r\n"
			       "Content-Length: 5\r\nContent-Length: 05\r\n"
			       "Content-Length: 0\r\n\r\n"),
		     -400);
}

TEST(transfer_encoding)
{
	struct http_request req;

	CHECK(parse_str("POST / HTTP/1.1\r\nHost: h\r\n"
			"Transfer-Encoding: chunked\r\n\r\n",
			&req) > 0);
	CHECK(req.chunked_body);
	CHECK(http_has_header(&req, HTTP_H_TRANSFER_ENCODING));
	CHECK(parse_str("POST / HTTP/1.1\r\nHost: h\r\n"
			"Transfer-Encoding: , Chunked \r\n\r\n",
			&req) > 0);
	CHECK(req.chunked_body);

	CHECK_EQ_INT(status_of("POST / HTTP/1.1\r\nHost: h\r\n"
			       "Transfer-Encoding: gzip\r\n\r\n"),
		     -400);
	CHECK_EQ_INT(status_of("POST / HTTP/1.1\r\nHost: h\r\n"
			       "Transfer-Encoding: chunked, gzip\r\n\r\n"),
		     -400);
	CHECK_EQ_INT(status_of("POST / HTTP/1.1\r\nHost: h\r\n"
			       "Transfer-Encoding: xchunked\r\n\r\n"),
		     -400);
	CHECK_EQ_INT(status_of("POST / HTTP/1.1\r\nHost: h\r\n"
			       "Transfer-Encoding:\r\n\r\n"),
		     -400);
	/* Both framings at once: a smuggling vector, refused either way. */
	CHECK_EQ_INT(status_of("POST / HTTP/1.1\r\nHost: h\r\n"
			       "Content-Length: 3\r\n"
			       "Transfer-Encoding: chunked\r\n\r\n"),
		     -400);
	CHECK_EQ_INT(status_of("POST / HTTP/1.1\r\nHost: h\r\n"
			       "Transfer-Encoding: chunked\r\n"
			       "Content-Length: 3\r\n\r\n"),
		     -400);
}

TEST(transfer_codings_other_than_chunked_501)
{
	/* RFC 9112 6.1: a coding the server does not implement. */
	CHECK_EQ_INT(status_of("POST / HTTP/1.1\r\nHost: h\r\n"
			       "Transfer-Encoding: gzip, chunked\r\n\r\n"),
		     -501);
	CHECK_EQ_INT(status_of("POST / HTTP/1.1\r\nHost: h\r\n"
			       "Transfer-Encoding: gzip ,\tChunked \r\n\r\n"),
		     -501);
	/* Lines with the same name are one list. */
	CHECK_EQ_INT(status_of("POST / HTTP/1.1\r\nHost: h\r\n"
			       "Transfer-Encoding: gzip\r\n"
			       "Transfer-Encoding: chunked\r\n\r\n"),
		     -501);
	CHECK_EQ_INT(status_of("POST / HTTP/1.1\r\nHost: h\r\n"
			       "Transfer-Encoding: chunked\r\n"
			       "Transfer-Encoding: gzip\r\n\r\n"),
		     -400);
}

TEST(chunked_applied_twice_400)
{
	CHECK_EQ_INT(status_of("POST / HTTP/1.1\r\nHost: h\r\n"
			       "Transfer-Encoding: chunked, chunked\r\n\r\n"),
		     -400);
	CHECK_EQ_INT(status_of("POST / HTTP/1.1\r\nHost: h\r\n"
			       "Transfer-Encoding: chunked\r\n"
			       "Transfer-Encoding: chunked\r\n\r\n"),
		     -400);
	CHECK_EQ_INT(status_of("POST / HTTP/1.1\r\nHost: h\r\n"
			       "Transfer-Encoding: chunked\r\n"
			       "Transfer-Encoding: ,\r\n\r\n"),
		     -400);
}

/* What follows a CONNECT's head is no body and no request: it closes. */
TEST(connect_closes)
{
	struct http_request req;

	CHECK(parse_str("CONNECT h:443 HTTP/1.1\r\nHost: h\r\n\r\n", &req) > 0);
	CHECK(!req.keep_alive);
	CHECK(parse_str("CONNECT h:443 HTTP/1.1\r\nHost: h\r\n"
			"Content-Length: 5\r\n\r\n",
			&req) > 0);
	CHECK(!req.keep_alive);
	CHECK(parse_str("OPTIONS * HTTP/1.1\r\nHost: h\r\n\r\n", &req) > 0);
	CHECK(req.keep_alive);
}

TEST(http10_transfer_encoding_closes)
{
	struct http_request req;

	CHECK(parse_str("POST / HTTP/1.0\r\nConnection: keep-alive\r\n"
			"Transfer-Encoding: chunked\r\n\r\n",
			&req) > 0);
	CHECK(req.chunked_body);
	CHECK(!req.keep_alive);
	CHECK(parse_str("POST / HTTP/1.1\r\nHost: h\r\n"
			"Transfer-Encoding: chunked\r\n\r\n",
			&req) > 0);
	CHECK(req.keep_alive);
}

TEST(two_range_fields_ignored)
{
	struct http_request req;

	CHECK(parse_str("GET / HTTP/1.1\r\nHost: h\r\nRange: bytes=0-1\r\n"
			"Range: bytes=2-3\r\n\r\n",
			&req) > 0);
	CHECK(!http_has_header(&req, HTTP_H_RANGE));
	CHECK(parse_str("GET / HTTP/1.1\r\nHost: h\r\nRange: bytes=0-1\r\n"
			"X: y\r\nrange: bytes=0-1\r\nRange: bytes=0-1\r\n\r\n",
			&req) > 0);
	CHECK(!http_has_header(&req, HTTP_H_RANGE));
	CHECK(parse_str("GET / HTTP/1.1\r\nHost: h\r\nRange: bytes=0-1\r\n"
			"\r\n",
			&req) > 0);
	CHECK(http_has_header(&req, HTTP_H_RANGE));
}

TEST(repeated_singleton_conditions_ignored)
{
	struct http_request req;

	CHECK(parse_str("GET / HTTP/1.1\r\nHost: h\r\n"
			"If-Modified-Since: Sun, 06 Nov 1994 08:49:37 GMT\r\n"
			"If-Modified-Since: Sun, 06 Nov 1994 08:49:37 GMT\r\n"
			"\r\n",
			&req) > 0);
	CHECK(!http_has_header(&req, HTTP_H_IF_MODIFIED_SINCE));
	/* Two If-Range: the condition fails, so no Range either. */
	CHECK(parse_str("GET / HTTP/1.1\r\nHost: h\r\nRange: bytes=0-1\r\n"
			"If-Range: \"a\"\r\nIf-Range: \"a\"\r\n\r\n",
			&req) > 0);
	CHECK(!http_has_header(&req, HTTP_H_IF_RANGE));
	CHECK(!http_has_header(&req, HTTP_H_RANGE));
	/* One of each stays. */
	CHECK(parse_str("GET / HTTP/1.1\r\nHost: h\r\nRange: bytes=0-1\r\n"
			"If-Range: \"a\"\r\n"
			"If-Modified-Since: Sun, 06 Nov 1994 08:49:37 GMT\r\n"
			"\r\n",
			&req) > 0);
	CHECK(http_has_header(&req, HTTP_H_IF_RANGE));
	CHECK(http_has_header(&req, HTTP_H_RANGE));
	CHECK(http_has_header(&req, HTTP_H_IF_MODIFIED_SINCE));
}

TEST(host_rules)
{
	struct http_request req;

	CHECK_EQ_INT(status_of("GET / HTTP/1.1\r\n\r\n"), -400);
	CHECK_EQ_INT(status_of("GET / HTTP/1.1\r\nX: y\r\n\r\n"), -400);
	CHECK_EQ_INT(status_of("GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n"),
		     -400);
	CHECK_EQ_INT(status_of("GET / HTTP/1.1\r\nHost: a\r\nhost: a\r\n\r\n"),
		     -400);
	CHECK_EQ_INT(status_of("GET / HTTP/1.0\r\nHost: a\r\nHost: b\r\n\r\n"),
		     -400);
	CHECK(parse_str("GET / HTTP/1.0\r\n\r\n", &req) > 0);
	CHECK(!http_has_header(&req, HTTP_H_HOST));
	CHECK(parse_str("GET / HTTP/1.1\r\nHost:\r\n\r\n", &req) > 0);
	CHECK(http_has_header(&req, HTTP_H_HOST));
}

TEST(invalid_host_values_400)
{
	static const char *const bad[] = {
		"a b", "x/y?z", "\"bad\"", "x\xff", "[::1", "x:notaport",
	};
	char buf[128];
	struct http_request req;

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		snprintf(buf, sizeof(buf), "GET / HTTP/1.1\r\nHost: %s\r\n\r\n",
			 bad[i]);
		CHECK_EQ_INT(status_of(buf), -400);
		snprintf(buf, sizeof(buf), "GET / HTTP/1.0\r\nHost: %s\r\n\r\n",
			 bad[i]);
		CHECK_EQ_INT(status_of(buf), -400);
	}
	CHECK(parse_str("GET / HTTP/1.1\r\nHost: [::1]:8080\r\n\r\n", &req) >
	      0);
	CHECK(parse_str("GET / HTTP/1.1\r\nHost: 127.0.0.1:80\r\n\r\n", &req) >
	      0);
}

TEST(bad_request_lines)
{
	static const char *const bad[] = {
		"GET\r\n\r\n",
		"GET /\r\n\r\n",
		"GET / \r\n\r\n",
		"GET  / HTTP/1.1\r\nHost: h\r\n\r\n",
		"GET /  HTTP/1.1\r\nHost: h\r\n\r\n",
		"GET / HTTP/1.1 \r\nHost: h\r\n\r\n",
		" GET / HTTP/1.1\r\nHost: h\r\n\r\n",
		"GET\t/ HTTP/1.1\r\nHost: h\r\n\r\n",
		"GET /\tHTTP/1.1\r\nHost: h\r\n\r\n",
		"GET /a\tb HTTP/1.1\r\nHost: h\r\n\r\n",
		"GET /a\x01 HTTP/1.1\r\nHost: h\r\n\r\n",
		"GET /a\x1f HTTP/1.1\r\nHost: h\r\n\r\n",
		"GET /a\x7f HTTP/1.1\r\nHost: h\r\n\r\n",
		"GE(T / HTTP/1.1\r\nHost: h\r\n\r\n",
		"G:T / HTTP/1.1\r\nHost: h\r\n\r\n",
		"/ HTTP/1.1\r\nHost: h\r\n\r\n",
		"GET / HTTP/1.1\r\n Host: h\r\n\r\n",
		"GET\n",
		"\x80GET / HTTP/1.1\r\n",
	};

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		int r = status_of(bad[i]);

		if (r != -400)
			fprintf(stderr, "  %d for \"%s\"\n", r, bad[i]);
		CHECK_EQ_INT(r, -400);
	}
}

/* Whether a refused head's request line was whole, for the log. */
TEST(refused_head_keeps_its_request_line)
{
	static const struct {
		const char *head;
		int status;
		const char *target; /* NULL: no whole request line */
	} cases[] = {
		{ "GET /a\"b HTTP/1.1\r\nX: a\x01b\r\n\r\n", -400, "/a\"b" },
		{ "GET /a HTTP/1.0\r\n Host: h\r\n\r\n", -400, "/a" },
		{ "BREW /pot HTTP/1.1\r\nHost: h\r\n\r\n", -501, "/pot" },
		{ "GET /a\x01 HTTP/1.1\r\nHost: h\r\n\r\n", -400, NULL },
		{ "GET / HTTP/2.0\r\nHost: h\r\n\r\n", -505, NULL },
		{ "GET / HTTP/1.1 \r\nHost: h\r\n\r\n", -400, NULL },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		const char *s = cases[i].head;
		struct http_request req;
		struct http_parser p;

		http_parser_init(&p);
		CHECK_EQ_INT(http_parse_request(&p, &req, s, strlen(s)),
			     cases[i].status);
		CHECK_EQ_INT(p.request_line, cases[i].target != NULL);
		if (cases[i].target)
			CHECK(span_is(s, req.target, cases[i].target));
	}
}

TEST(bad_header_syntax)
{
	static const char *const bad[] = {
		"Host h", /* no colon */
		"Host : h", /* space before the colon */
		"Host\t: h", /* tab before the colon */
		": h", /* empty name */
		"Ho(st: h", /* non-token in the name */
		"Ho\"st: h", /* non-token in the name */
		"Ho/st: h", /* non-token in the name */
		"H\x80: h", /* obs-text in the name */
		"X: a\x01z", /* control char in a value */
		"X: a\x7fz", /* DEL in a value */
		"X: a\x1bz", /* ESC in a value */
		" X: folded", /* obs-fold */
		"\tX: folded", /* obs-fold */
	};

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		char s[256];
		int r;

		snprintf(s, sizeof(s),
			 "GET / HTTP/1.1\r\nHost: h\r\n%s\r\n\r\n", bad[i]);
		r = status_of(s);
		if (r != -400)
			fprintf(stderr, "  %d for \"%s\"\n", r, bad[i]);
		CHECK_EQ_INT(r, -400);
	}
	/* A continuation line right after the request line, too. */
	CHECK_EQ_INT(status_of("GET / HTTP/1.1\r\n  Host: h\r\n\r\n"), -400);
	CHECK_EQ_INT(status_of("GET / HTTP/1.1\r\nHost: h\r\nX: a\r\n"
			       " continued\r\n\r\n"),
		     -400);
	/* obs-text inside a value is allowed. */
	CHECK(status_of("GET / HTTP/1.1\r\nHost: h\r\nX: \xc3\xa9\xff\r\n"
			"\r\n") > 0);
}

TEST(nul_anywhere_in_head_400)
{
	static const char *const reqs[] = {
		"GET /a?b HTTP/1.1\r\nHost: h\r\nX-Y: z w\r\n\r\n",
		"\r\nPOST http://h/ HTTP/1.0\nContent-Length: 1\n\n",
	};

	for (size_t k = 0; k < ARRAY_SIZE(reqs); k++) {
		size_t n = strlen(reqs[k]);
		char *s = malloc(n);

		for (size_t i = 0; i < n; i++) {
			struct http_request req;
			int r;

			memcpy(s, reqs[k], n);
			s[i] = '\0';
			r = parse(s, n, &req);
			if (r != -400)
				fprintf(stderr, "  NUL at %zu of \"%s\": %d\n",
					i, reqs[k], r);
			CHECK_EQ_INT(r, -400);
		}
		free(s);
	}
}

TEST(request_line_limit)
{
	struct http_request req;
	size_t n;
	char *s;

	/* Exactly 8192 bytes before the CRLF: accepted. */
	s = long_line_request(HTTP_MAX_REQUEST_LINE, "\r\nHost: h\r\n\r\n", &n);
	CHECK_EQ_INT(parse(s, n, &req), n);
	CHECK_EQ_INT(req.target.len, HTTP_MAX_REQUEST_LINE - 13);
	/* ...also when its first 8192 bytes arrive before the CRLF. */
	CHECK_EQ_INT(parse(s, HTTP_MAX_REQUEST_LINE, &req), HTTP_PARSE_AGAIN);
	CHECK_EQ_INT(parse(s, HTTP_MAX_REQUEST_LINE + 1, &req),
		     HTTP_PARSE_AGAIN);
	CHECK(check_incremental(s, n, 97));
	free(s);
	s = long_line_request(HTTP_MAX_REQUEST_LINE, "\nHost: h\n\n", &n);
	CHECK_EQ_INT(parse(s, n, &req), n);
	free(s);

	/* 8193 bytes: 414, whatever follows, as soon as byte 8193 is in. */
	s = long_line_request(HTTP_MAX_REQUEST_LINE + 1, "\r\nHost: h\r\n\r\n",
			      &n);
	CHECK_EQ_INT(parse(s, n, &req), -414);
	CHECK_EQ_INT(parse(s, HTTP_MAX_REQUEST_LINE, &req), HTTP_PARSE_AGAIN);
	CHECK_EQ_INT(parse(s, HTTP_MAX_REQUEST_LINE + 1, &req), -414);
	CHECK(check_incremental(s, n, 97));
	free(s);

	/* A target that never ends: 414, not a wait for more. */
	s = malloc(9000);
	memcpy(s, "GET /", 5);
	memset(s + 5, 'y', 9000 - 5);
	CHECK_EQ_INT(parse(s, 9000, &req), -414);
	CHECK_EQ_INT(parse_bytewise(s, 9000, &req), -414);
	/* A method that never ends is longer than any implemented: 501
	 * (RFC 9112 3), also when it begins after empty lines. */
	memset(s, 'G', 9000);
	CHECK_EQ_INT(parse(s, 9000, &req), -501);
	CHECK_EQ_INT(parse_bytewise(s, 9000, &req), -501);
	CHECK_EQ_INT(parse(s, HTTP_MAX_REQUEST_LINE, &req), HTTP_PARSE_AGAIN);
	memset(s, '\n', 100);
	CHECK_EQ_INT(parse(s, 9000, &req), -501);
	/* ...but empty lines up to the limit, then a method, are 414. */
	memset(s, '\n', HTTP_MAX_REQUEST_LINE - 3);
	CHECK_EQ_INT(parse(s, 9000, &req), -414);
	/*
	 * Empty lines before the request count towards the limit; with no
	 * request line begun, that is a bad request, not a long URI.
	 */
	memset(s, '\n', 9000);
	CHECK_EQ_INT(parse(s, 9000, &req), -400);
	CHECK_EQ_INT(parse(s, HTTP_MAX_REQUEST_LINE, &req), HTTP_PARSE_AGAIN);
	for (n = 0; n < 9000; n += 2)
		memcpy(s + n, "\r\n", 2);
	CHECK_EQ_INT(parse(s, 9000, &req), -400);
	CHECK_EQ_INT(parse_bytewise(s, 9000, &req), -400);
	/* Once a request line has begun after them, its length counts. */
	memcpy(s + 8000, "GET /", 5);
	memset(s + 8005, 'y', 9000 - 8005);
	CHECK_EQ_INT(parse(s, 9000, &req), -414);
	free(s);
}

TEST(header_section_limit)
{
	struct http_request req;
	size_t n;
	char *s;

	s = long_header_request(HTTP_MAX_HEADER_SECTION, &n);
	CHECK_EQ_INT(n, 16 + HTTP_MAX_HEADER_SECTION);
	CHECK_EQ_INT(parse(s, n, &req), n);
	CHECK(check_incremental(s, n, 101));
	free(s);

	s = long_header_request(HTTP_MAX_HEADER_SECTION + 1, &n);
	CHECK_EQ_INT(parse(s, n, &req), -431);
	/* The final LF is the first byte past the limit. */
	CHECK_EQ_INT(parse(s, n - 1, &req), HTTP_PARSE_AGAIN);
	CHECK(check_incremental(s, n, 101));
	free(s);

	/* One huge field, incomplete: 431 without waiting for its end. */
	s = malloc(17100);
	n = (size_t)snprintf(s, 100, "GET / HTTP/1.1\r\nX-Big: ");
	memset(s + n, 'b', 17000);
	n += 17000;
	CHECK_EQ_INT(parse(s, n, &req), -431);
	CHECK_EQ_INT(parse_bytewise(s, n, &req), -431);
	/* A huge name, likewise. */
	memset(s + 16, 'N', n - 16);
	CHECK_EQ_INT(parse(s, n, &req), -431);
	free(s);
}

TEST(field_count_limit)
{
	char *s = malloc(64 * 128);
	size_t n = 0;
	struct http_request req;

	n += (size_t)sprintf(s, "GET / HTTP/1.1\r\nHost: h\r\n");
	for (int i = 1; i < HTTP_MAX_HEADER_FIELDS; i++)
		n += (size_t)sprintf(s + n, "X-%03d: %d\r\n", i, i);
	memcpy(s + n, "\r\n", 2);
	CHECK_EQ_INT(parse(s, n + 2, &req), n + 2);
	CHECK_EQ_INT(req.nfields, HTTP_MAX_HEADER_FIELDS);

	n += (size_t)sprintf(s + n, "X-last: 1\r\n");
	memcpy(s + n, "\r\n", 2);
	CHECK_EQ_INT(parse(s, n + 2, &req), -431);
	/* Refused at the end of the 101st field, before the head ends. */
	CHECK_EQ_INT(parse(s, n, &req), -431);
	CHECK(check_incremental(s, n + 2, 1));
	free(s);
}

TEST(input_beyond_max_head_never_waits)
{
	/* Whatever the bytes, a full HTTP_MAX_HEAD buffer gets a verdict. */
	char *s = malloc(HTTP_MAX_HEAD + 100);
	unsigned seed = 12345;

	for (int round = 0; round < 40; round++) {
		struct http_request req;
		size_t lead = round < 20 ? 16 : 0;
		int r;

		memset(s, round % 2 ? 'a' : '\n', HTTP_MAX_HEAD + 100);
		if (lead)
			memcpy(s, "GET / HTTP/1.1\r\n", lead);
		for (size_t i = lead; i < HTTP_MAX_HEAD + 100; i++) {
			seed = seed * 1103515245u + 12345u;
			if ((seed >> 16) % 10 == 0)
				s[i] = "\r\n: a\t"[(seed >> 8) % 6];
		}
		r = parse(s, HTTP_MAX_HEAD + 100, &req);
		CHECK(r != HTTP_PARSE_AGAIN);
		CHECK(r < 0 || (size_t)r <= HTTP_MAX_HEAD);
	}
	free(s);
}

static const char *const incremental_cases[] = {
	"GET /index.html HTTP/1.1\r\nHost: example\r\n\r\n",
	"\r\n\nHEAD /a/b?c=d HTTP/1.0\nConnection: keep-alive\n\n",
	"GET http://h:1/x?y HTTP/1.1\r\nHost: h:1\r\nUser-Agent:  a b \r\n"
	"Accept-Encoding: gzip\r\nConnection: close\r\n\r\n",
	"POST /up HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n"
	"5\r\nhello\r\n0\r\n\r\n",
	"PUT /x HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\n\r\nabc",
	"GET / HTTP/1.1\r\nHost: h\r\nX: \xe2\x82\xac\r\n\r\nGET / HTTP/1.1",
	"FOO / HTTP/1.1\r\nHost: h\r\n\r\n",
	"GET / HTTP/2.0\r\n\r\n",
	"GET / HTTP/1.1\r\n\r\n",
	"GET / HTTP/1.1\r\nHost: h\r\n folded\r\n\r\n",
	"GET / HTTP/1.1\r\nHost: h\rX\r\n\r\n",
	"GET /a b HTTP/1.1\r\n\r\n",
	"GET / HTTP/1.1\r\nHost: h\r\nContent-Length: 1\r\n"
	"Transfer-Encoding: chunked\r\n\r\n",
	"GET / HTTP/1.1\r\nHost: h\r\nContent-Length: x\r\n\r\n",
	"GET / HTTP/1.1\r\nHost : h\r\n\r\n",
	"\r\r\n",
};

TEST(incremental_equals_one_shot)
{
	for (size_t i = 0; i < ARRAY_SIZE(incremental_cases); i++) {
		const char *s = incremental_cases[i];

		if (!check_incremental(s, strlen(s), 1))
			fprintf(stderr, "  for case %zu: %s\n", i, s);
		CHECK(check_incremental(s, strlen(s), 1));
	}
}

TEST(incremental_reports_the_head_when_complete)
{
	static const char s[] = "GET /a HTTP/1.1\r\nHost: h\r\n\r\nextra";
	struct http_parser p;
	struct http_request req;
	size_t head = sizeof(s) - 1 - 5;

	http_parser_init(&p);
	for (size_t k = 0; k < head; k++)
		CHECK_EQ_INT(http_parse_request(&p, &req, s, k),
			     HTTP_PARSE_AGAIN);
	CHECK_EQ_INT(http_parse_request(&p, &req, s, head), head);
	CHECK_EQ_INT(req.head_len, head);
}

TEST(pipelined_requests)
{
	static const char s[] = "GET /one HTTP/1.1\r\nHost: h\r\n\r\n"
				"POST /two HTTP/1.1\r\nHost: h\r\n"
				"Content-Length: 5\r\n\r\nhello"
				"HEAD /three?q HTTP/1.0\r\n\r\n"
				"GET /four HTTP/1.1\nHost: h\nConnection: close"
				"\n\n";
	static const struct {
		enum http_method m;
		const char *path;
		bool keep_alive;
	} want[] = {
		{ HTTP_GET, "/one", true },
		{ HTTP_POST, "/two", true },
		{ HTTP_HEAD, "/three", false },
		{ HTTP_GET, "/four", false },
	};
	size_t off = 0, n = sizeof(s) - 1;

	for (size_t i = 0; i < ARRAY_SIZE(want); i++) {
		struct http_parser p;
		struct http_request req;
		int r;

		http_parser_init(&p);
		r = http_parse_request(&p, &req, s + off, n - off);
		CHECK(r > 0);
		if (r <= 0)
			return;
		CHECK_EQ_INT(req.method, want[i].m);
		CHECK_SPAN(s + off, req.path, want[i].path);
		CHECK_EQ_INT(req.keep_alive, want[i].keep_alive);
		off += req.head_len + req.content_length;
	}
	CHECK_EQ_INT(off, n);
}

TEST(pipelined_requests_byte_at_a_time)
{
	static const char s[] = "GET /1 HTTP/1.1\r\nHost: h\r\n\r\n"
				"GET /2 HTTP/1.1\r\nHost: h\r\n\r\n"
				"\r\nGET /3 HTTP/1.1\r\nHost: h\r\n\r\n";
	size_t off = 0, n = sizeof(s) - 1;
	char want[3] = { '1', '2', '3' };

	for (int i = 0; i < 3; i++) {
		struct http_parser p;
		struct http_request req;
		int r = HTTP_PARSE_AGAIN;

		http_parser_init(&p);
		for (size_t k = 1; k <= n - off && r == HTTP_PARSE_AGAIN; k++)
			r = http_parse_request(&p, &req, s + off, k);
		CHECK(r > 0);
		if (r <= 0)
			return;
		CHECK_EQ_INT(req.path.len, 2);
		CHECK_EQ_INT(s[off + req.path.off + 1], want[i]);
		off += (size_t)r;
	}
	CHECK_EQ_INT(off, n);
}

TEST(random_mutations_split_consistently)
{
	/* Mutated requests: whatever the verdict, every split agrees. */
	unsigned seed = 777;
	char s[256];

	for (int round = 0; round < 600; round++) {
		const char *base =
			incremental_cases[round % ARRAY_SIZE(incremental_cases)];
		size_t n = strlen(base);
		int edits;

		memcpy(s, base, n);
		seed = seed * 1103515245u + 12345u;
		edits = 1 + (int)((seed >> 16) % 3);
		for (int e = 0; e < edits; e++) {
			seed = seed * 1103515245u + 12345u;
			s[(seed >> 8) % n] = (char)((seed >> 20) & 0xff);
		}
		CHECK(check_incremental(s, n, 1));
	}
}
