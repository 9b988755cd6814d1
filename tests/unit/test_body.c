// SPDX-License-Identifier: MIT
/*
 * Stepping over request bodies: Content-Length and chunked bodies in any
 * pieces, where the next request begins, and framing errors; and which
 * statuses end the connection.
 */
#include "harness.h"

#include "http/body.h"
#include "http/response.h"

#define S(lit) lit, sizeof(lit) - 1

static struct http_request with_length(uint64_t n)
{
	return (struct http_request){ .content_length = n };
}

static struct http_request chunked(void)
{
	return (struct http_request){ .chunked_body = true };
}

/*
 * Feeds s to a skipper in pieces of size piece; returns the final result
 * and sets *consumed to the body bytes the skipper claimed.
 */
static int skip_in_pieces(const struct http_request *req, const char *s,
			  size_t n, size_t piece, size_t *consumed)
{
	struct http_body_skipper b;
	size_t off = 0;
	int r = HTTP_BODY_AGAIN;

	http_body_skip_init(&b, req);
	while (off < n && r == HTTP_BODY_AGAIN) {
		size_t len = n - off < piece ? n - off : piece, used = 0;

		r = http_body_skip(&b, s + off, len, &used);
		CHECK(used <= len);
		off += used;
		if (r == HTTP_BODY_AGAIN)
			CHECK_EQ_INT(used, len);
	}
	*consumed = off;
	return r;
}

TEST(no_body)
{
	struct http_request r = with_length(0);

	CHECK(http_body_none(&r));
	r = chunked();
	CHECK(!http_body_none(&r));
	r = with_length(1);
	CHECK(!http_body_none(&r));
}

TEST(transfer_extension_is_progress_bounded_by_the_rate)
{
	const uint32_t r = 16384;

	/* One second's worth of bytes earns one second. */
	CHECK(http_transfer_extension_ms(5000, r, r) == 1000);
	CHECK(http_transfer_extension_ms(500, r, r) == 500);
	CHECK(http_transfer_extension_ms(5000, r / 2, r) == 500);
	CHECK(http_transfer_extension_ms(5000, 0, r) == 0);
	CHECK(http_transfer_extension_ms(5000, 1024, HTTP_MIN_RATE_DEFAULT) ==
	      1000);
	/* No minimum rate: progress alone. */
	CHECK(http_transfer_extension_ms(5000, 0, 0) == 5000);
	CHECK(http_transfer_extension_ms(UINT64_MAX, 0, 0) == UINT64_MAX);
	/* No overflow at the largest counts. */
	CHECK(http_transfer_extension_ms(UINT64_MAX, UINT64_MAX, r) ==
	      UINT64_MAX / r * 1000 + UINT64_MAX % r * 1000 / r);
	CHECK(http_transfer_extension_ms(UINT64_MAX, UINT64_MAX, UINT32_MAX) ==
	      UINT64_MAX / UINT32_MAX * 1000 +
		      UINT64_MAX % UINT32_MAX * 1000 / UINT32_MAX);
}

TEST(close_lingers_only_when_more_may_come)
{
	struct http_request r = with_length(0);

	CHECK(!http_close_lingers(&r, false));
	CHECK(http_close_lingers(&r, true));
	r = with_length(5);
	CHECK(http_close_lingers(&r, false));
	r = chunked();
	CHECK(http_close_lingers(&r, false));
}

TEST(content_length_stops_at_its_end_in_any_pieces)
{
	static const char s[] = "0123456789GET / HTTP/1.1\r\n";
	struct http_request r = with_length(10);

	for (size_t piece = 1; piece <= sizeof(s); piece++) {
		size_t used;

		CHECK_EQ_INT(skip_in_pieces(&r, s, sizeof(s) - 1, piece, &used),
			     HTTP_BODY_DONE);
		CHECK_EQ_INT(used, 10);
	}
}

TEST(content_length_needs_more)
{
	struct http_request r = with_length(1ull << 40);
	struct http_body_skipper b;
	size_t used;

	http_body_skip_init(&b, &r);
	CHECK_EQ_INT(http_body_skip(&b, S("abc"), &used), HTTP_BODY_AGAIN);
	CHECK_EQ_INT(used, 3);
	CHECK_EQ_INT(b.left, (1ull << 40) - 3);
	CHECK_EQ_INT(http_body_skip(&b, "", 0, &used), HTTP_BODY_AGAIN);
	CHECK_EQ_INT(used, 0);
}

TEST(chunked_stops_after_trailer_in_any_pieces)
{
	static const char s[] = "3\r\nabc\r\n10\r\n0123456789abcdef\r\n"
				"0\r\nX-T: 1\r\n\r\nGET / HTTP/1.1\r\n";
	size_t body = sizeof(s) - 1 - strlen("GET / HTTP/1.1\r\n");
	struct http_request r = chunked();

	for (size_t piece = 1; piece <= sizeof(s); piece++) {
		size_t used;

		CHECK_EQ_INT(skip_in_pieces(&r, s, sizeof(s) - 1, piece, &used),
			     HTTP_BODY_DONE);
		CHECK_EQ_INT(used, body);
	}
}

TEST(chunked_framing_error)
{
	struct http_request r = chunked();
	size_t used;

	CHECK_EQ_INT(skip_in_pieces(&r, S("zz\r\n"), 4, &used),
		     HTTP_BODY_ERROR);
}

TEST(statuses_that_close)
{
	static const int closes[] = { 400, 408, 414, 431, 500, 501, 503, 505 };
	static const int keeps[] = { 200, 204, 206, 301, 304,
				     403, 404, 405, 412, 416 };

	for (size_t i = 0; i < ARRAY_SIZE(closes); i++)
		CHECK(http_status_closes(closes[i]));
	for (size_t i = 0; i < ARRAY_SIZE(keeps); i++)
		CHECK(!http_status_closes(keeps[i]));
}

/* Parses head (which must be complete) and asks about 100-continue. */
static bool expects_continue(const char *head)
{
	struct http_parser p;
	struct http_request req;

	http_parser_init(&p);
	CHECK(http_parse_request(&p, &req, head, strlen(head)) > 0);
	return http_body_expects_continue(head, &req);
}

TEST(expect_100_continue)
{
	CHECK(expects_continue("PUT / HTTP/1.1\r\nHost: a\r\n"
			       "Content-Length: 3\r\n"
			       "Expect: 100-continue\r\n\r\n"));
	CHECK(expects_continue("PUT / HTTP/1.1\r\nHost: a\r\n"
			       "EXPECT:  100-Continue \r\n"
			       "Transfer-Encoding: chunked\r\n\r\n"));
	CHECK(expects_continue("PUT / HTTP/1.1\nHost: a\nexpect: x, "
			       "100-continue\nContent-Length: 1\n\n"));
	/* No body, HTTP/1.0, other expectations or look-alike names. */
	CHECK(!expects_continue("GET / HTTP/1.1\r\nHost: a\r\n"
				"Expect: 100-continue\r\n\r\n"));
	CHECK(!expects_continue("PUT / HTTP/1.0\r\nContent-Length: 3\r\n"
				"Expect: 100-continue\r\n\r\n"));
	CHECK(!expects_continue("PUT / HTTP/1.1\r\nHost: a\r\n"
				"Content-Length: 3\r\n"
				"Expect: 100-continues\r\n\r\n"));
	CHECK(!expects_continue("PUT / HTTP/1.1\r\nHost: a\r\n"
				"Content-Length: 3\r\n"
				"Expected: 100-continue\r\n"
				"X-Expect: 100-continue\r\n\r\n"));
}
