// SPDX-License-Identifier: MIT
/*
 * Unit tests of htstress's response checker (tools/htstress/response.c).
 * Every response is fed whole, split in two at every byte boundary, and one
 * byte at a time: all ways must give the same outcome.
 */
#include "harness.h"

#include <stdint.h>

#include "../../tools/htstress/response.h"

struct outcome {
	enum hts_parse_result res;
	size_t used; /* bytes that belong to the response when DONE */
	int status;
	bool keep_alive;
	const char *error;
};

/* Feeds s as pieces of at most step bytes, after a first piece of split. */
static struct outcome feed(const char *s, size_t len, size_t split, size_t step,
			   bool eof)
{
	struct hts_response r;
	struct outcome o = { HTS_PARSE_MORE, 0, 0, false, NULL };
	size_t off = 0;

	hts_response_init(&r);
	while (off < len && o.res == HTS_PARSE_MORE) {
		size_t n = off == 0 && split ? split : step;
		size_t used = 0;

		if (n > len - off)
			n = len - off;
		o.res = hts_response_parse(&r, s + off, n, &used);
		if (o.res == HTS_PARSE_MORE && used != n)
			o.res = HTS_PARSE_ERROR; /* MORE must take it all */
		if (o.res == HTS_PARSE_DONE)
			o.used = off + used;
		off += n;
	}
	if (o.res == HTS_PARSE_MORE && eof) {
		o.res = hts_response_eof(&r);
		o.used = len;
	}
	o.status = r.status;
	o.keep_alive = hts_response_keep_alive(&r);
	o.error = r.error;
	return o;
}

/* The outcome of s, after checking that every way of splitting agrees. */
static struct outcome check_splits(const char *s, size_t len, bool eof)
{
	struct outcome whole = feed(s, len, 0, len ? len : 1, eof);
	bool same = true;

	for (size_t split = 1; split < len; split++) {
		struct outcome o = feed(s, len, split, len, eof);

		same &= o.res == whole.res && o.used == whole.used &&
			o.status == whole.status &&
			o.keep_alive == whole.keep_alive;
	}
	{
		struct outcome o = feed(s, len, 0, 1, eof);

		same &= o.res == whole.res && o.used == whole.used &&
			o.status == whole.status &&
			o.keep_alive == whole.keep_alive;
	}
	if (!same)
		fprintf(stderr, "  split outcomes differ for: %.60s\n", s);
	CHECK(same);
	if (whole.res == HTS_PARSE_ERROR)
		CHECK(whole.error != NULL && whole.error[0] != '\0');
	return whole;
}

static struct outcome outcome_of(const char *s)
{
	return check_splits(s, strlen(s), false);
}

static struct outcome outcome_at_eof(const char *s)
{
	return check_splits(s, strlen(s), true);
}

/* The whole of s is one good response. */
static bool complete(const char *s, int status)
{
	struct outcome o = outcome_of(s);

	if (o.res != HTS_PARSE_DONE || o.used != strlen(s) ||
	    o.status != status) {
		fprintf(stderr,
			"  not a complete %d response (%d, %s): %.60s\n",
			status, o.res, o.error ? o.error : "", s);
		return false;
	}
	return true;
}

static bool malformed(const char *s)
{
	struct outcome o = outcome_of(s);

	if (o.res != HTS_PARSE_ERROR)
		fprintf(stderr, "  not refused: %.60s\n", s);
	return o.res == HTS_PARSE_ERROR;
}

static bool malformed_at_eof(const char *s)
{
	return outcome_at_eof(s).res == HTS_PARSE_ERROR;
}

TEST(content_length)
{
	struct outcome o;

	CHECK(complete("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello",
		       200));
	CHECK(complete("HTTP/1.1 200 OK\r\ncontent-length:5\r\n\r\nhello",
		       200));
	CHECK(complete("HTTP/1.1 200 OK\r\nCONTENT-LENGTH: \t5 \r\n\r\nhello",
		       200));
	CHECK(complete("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n",
		       404));
	/* Repeated with the same value is allowed. */
	CHECK(complete("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n"
		       "Content-Length: 2\r\n\r\nhi",
		       200));
	o = outcome_of("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhel");
	CHECK_EQ_INT(o.res, HTS_PARSE_MORE);
	o = outcome_of("HTTP/1.1 301 Moved\r\nContent-Length: 1\r\n"
		       "Location: /x\r\n\r\nx");
	CHECK_EQ_INT(o.res, HTS_PARSE_DONE);
	CHECK_EQ_INT(o.status, 301);
	CHECK(o.keep_alive);
}

/*
 * Leading zeros are digits like the others (RFC 9112 6.3, 7.1): the value
 * bounds a length or a chunk size, not how many digits spell it.  Before,
 * 22 digits of length 5 were "Content-Length too large", 16 of a chunk
 * of 5 "chunk size too large".
 */
TEST(leading_zeros)
{
	CHECK(complete("HTTP/1.1 200 OK\r\nContent-Length: "
		       "0000000000000000000005\r\n\r\nhello",
		       200));
	CHECK(complete("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
		       "0000000000000005\r\nhello\r\n"
		       "00000000000000000000000000\r\n\r\n",
		       200));
	/* What the value cannot be stays refused. */
	CHECK(malformed("HTTP/1.1 200 OK\r\nContent-Length: "
			"0009223372036854775808\r\n\r\n"));
	CHECK(malformed("HTTP/1.1 200 OK\r\nContent-Length: "
			"1000000000000000000\r\n\r\n"));
	CHECK(complete("HTTP/1.1 200 OK\r\nContent-Length: "
		       "000000000000000000000\r\n\r\n",
		       200));
}

TEST(content_length_mismatch)
{
	struct outcome o;

	/* Shorter than announced: cut by the end of the connection. */
	CHECK(malformed_at_eof(
		"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nhello"));
	/* Longer than announced: the rest belongs to no response. */
	o = outcome_of(
		"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello, world");
	CHECK_EQ_INT(o.res, HTS_PARSE_DONE);
	CHECK_EQ_INT(o.used,
		     strlen("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n"
			    "hello"));
	CHECK(malformed("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n"
			"Content-Length: 6\r\n\r\nhello!"));
}

TEST(bad_content_length)
{
	CHECK(malformed("HTTP/1.1 200 OK\r\nContent-Length: 5a\r\n\r\n"));
	CHECK(malformed("HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n"));
	CHECK(malformed("HTTP/1.1 200 OK\r\nContent-Length: +1\r\n\r\nx"));
	CHECK(malformed("HTTP/1.1 200 OK\r\nContent-Length: \r\n\r\n"));
	CHECK(malformed("HTTP/1.1 200 OK\r\nContent-Length: 1 2\r\n\r\n"));
	CHECK(malformed("HTTP/1.1 200 OK\r\nContent-Length: 5, 5\r\n\r\n"));
	CHECK(malformed("HTTP/1.1 200 OK\r\nContent-Length: "
			"99999999999999999999\r\n\r\n"));
	CHECK(malformed("HTTP/1.1 200 OK\r\nContent-Length: 1\r\n"
			"Transfer-Encoding: chunked\r\n\r\n"));
}

TEST(chunked)
{
	CHECK(complete("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
		       "5\r\nhello\r\n0\r\n\r\n",
		       200));
	CHECK(complete("HTTP/1.1 200 OK\r\ntransfer-encoding: Chunked\r\n\r\n"
		       "A\r\n0123456789\r\n1\r\n!\r\n0\r\n\r\n",
		       200));
	CHECK(complete("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
		       "0\r\n\r\n",
		       200));
	CHECK(complete("HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n"
		       "\r\n3\r\nabc\r\n0\r\n\r\n",
		       200));
	/* Leading zeros and a big size split across pieces. */
	CHECK(complete("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
		       "0003\r\nabc\r\n00\r\n\r\n",
		       200));
	CHECK(outcome_of("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
			 "5\r\nhello\r\n")
		      .res == HTS_PARSE_MORE);
}

TEST(chunked_with_extensions_and_trailers)
{
	CHECK(complete("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
		       "5;name=value\r\nhello\r\n0;last\r\n\r\n",
		       200));
	CHECK(complete(
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
		"5 ; a ; b = \"q \\\"x\\\" ;\" ;c=d\r\nhello\r\n0\r\n\r\n",
		200));
	CHECK(complete("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
		       "2\r\nhi\r\n0\r\nX-Checksum: abc\r\nX-Other:\r\n\r\n",
		       200));
	CHECK(malformed("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
			"5;\r\nhello\r\n0\r\n\r\n"));
	CHECK(malformed("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
			"5;a=\r\nhello\r\n0\r\n\r\n"));
	CHECK(malformed("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
			"5;a=\"open\r\nhello\r\n0\r\n\r\n"));
	CHECK(malformed("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
			"5;a b\r\nhello\r\n0\r\n\r\n"));
	CHECK(malformed("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
			"2\r\nhi\r\n0\r\nBad Trailer: x\r\n\r\n"));
}

TEST(bad_chunk_sizes)
{
	static const char head[] =
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n";
	static const char *const bodies[] = {
		"G\r\nhello\r\n0\r\n\r\n",  "\r\nhello\r\n0\r\n\r\n",
		"-5\r\nhello\r\n0\r\n\r\n", "0x5\r\nhello\r\n0\r\n\r\n",
		"5x\r\nhello\r\n0\r\n\r\n", " 5\r\nhello\r\n0\r\n\r\n",
		"5 \r\nhello\r\n0\r\n\r\n", "1000000000000000\r\n",
		"ffffffffffffffffff\r\n",
	};
	char buf[256];

	for (size_t i = 0; i < sizeof(bodies) / sizeof(bodies[0]); i++) {
		snprintf(buf, sizeof(buf), "%s%s", head, bodies[i]);
		CHECK(malformed(buf));
	}
}

TEST(bad_chunk_framing)
{
	/* The data is longer than its size. */
	CHECK(malformed("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
			"3\r\nhello\r\n0\r\n\r\n"));
	/* No CRLF after the data, or half of one. */
	CHECK(malformed("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
			"5\r\nhello0\r\n\r\n"));
	CHECK(malformed("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
			"5\r\nhello\rX0\r\n\r\n"));
	CHECK(malformed("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
			"5\r\nhello\n0\r\n\r\n"));
	/* Bare LF after the size. */
	CHECK(malformed("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
			"5\nhello\r\n0\r\n\r\n"));
	/* Cut before the last chunk. */
	CHECK(malformed_at_eof(
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
		"5\r\nhello\r\n"));
	/* Cut before the final CRLF. */
	CHECK(malformed_at_eof(
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
		"5\r\nhello\r\n0\r\n"));
}

TEST(missing_crlf)
{
	CHECK(malformed("HTTP/1.1 200 OK\nContent-Length: 0\n\n"));
	CHECK(malformed("HTTP/1.1 200 OK\r\nContent-Length: 0\n\r\n"));
	CHECK(malformed("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\n"));
	CHECK(malformed("HTTP/1.1 200 OK\rContent-Length: 0\r\n\r\n"));
	CHECK(malformed("HTTP/1.1 200 OK\r\nX: a\rb\r\n\r\n"));
	CHECK(malformed("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\rX"));
}

TEST(malformed_status_lines)
{
	static const char *const lines[] = {
		"HTTP/2 200 OK\r\n",
		"HTTP/2.0 200 OK\r\n",
		"HTTP/1.x 200 OK\r\n",
		"http/1.1 200 OK\r\n",
		"HTTP/1.1  200 OK\r\n",
		"HTTP/1.1 20 OK\r\n",
		"HTTP/1.1 2000 OK\r\n",
		"HTTP/1.1 200OK\r\n",
		"HTTP/1.1 099 Low\r\n",
		"HTTP/1.1 abc OK\r\n",
		"HTTP/1.1 200 O\x01K\r\n",
		"HTTP/1.1 200 OK\x7f\r\n",
		"ICY 200 OK\r\n",
		"\r\nHTTP/1.1 200 OK\r\n",
		" HTTP/1.1 200 OK\r\n",
		"HTTP/1.1\t200 OK\r\n",
		"<html>\r\n",
	};
	char buf[256];

	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		snprintf(buf, sizeof(buf), "%sContent-Length: 0\r\n\r\n",
			 lines[i]);
		CHECK(malformed(buf));
	}
	/* An empty reason phrase, with or without its space. */
	CHECK(complete("HTTP/1.1 200\r\nContent-Length: 0\r\n\r\n", 200));
	CHECK(complete("HTTP/1.1 200 \r\nContent-Length: 0\r\n\r\n", 200));
	CHECK(complete("HTTP/1.1 503 Service \xc3\xa9 Unavailable\r\n"
		       "Content-Length: 0\r\n\r\n",
		       503));
	/* A status outside 1xx-5xx is parsed; the caller classifies it. */
	CHECK(complete("HTTP/1.1 600 Odd\r\nContent-Length: 0\r\n\r\n", 600));
}

TEST(bad_header_fields)
{
	CHECK(malformed("HTTP/1.1 200 OK\r\nContent-Length : 0\r\n\r\n"));
	CHECK(malformed("HTTP/1.1 200 OK\r\nNo-Colon\r\n\r\n"));
	CHECK(malformed("HTTP/1.1 200 OK\r\n: empty-name\r\n\r\n"));
	CHECK(malformed("HTTP/1.1 200 OK\r\nX-A: 1\r\n folded\r\n\r\n"));
	CHECK(malformed("HTTP/1.1 200 OK\r\nX-A: a\x01z\r\n\r\n"));
	CHECK(malformed("HTTP/1.1 200 OK\r\nX(A): 1\r\n\r\n"));
	/* Odd but valid values. */
	CHECK(complete("HTTP/1.1 200 OK\r\nX-A:\r\nX-B: \t\xff\"'\r\n"
		       "Content-Length: 0\r\n\r\n",
		       200));
}

TEST(head_too_large)
{
	size_t n = HTS_RESPONSE_MAX_HEAD + 100;
	char *s = malloc(n + 1);
	struct hts_response r;
	size_t used;

	memcpy(s, "HTTP/1.1 200 OK\r\nX: ", 20);
	memset(s + 20, 'a', n - 20);
	s[n] = '\0';
	hts_response_init(&r);
	CHECK_EQ_INT(hts_response_parse(&r, s, n, &used), HTS_PARSE_ERROR);
	free(s);
}

TEST(no_body_statuses)
{
	/* 204 and 304 end with their head, whatever they announce. */
	CHECK(complete(
		"HTTP/1.1 304 Not Modified\r\nContent-Length: 100\r\n\r\n",
		304));
	CHECK(complete("HTTP/1.1 204 No Content\r\n\r\n", 204));
}

TEST(interim_responses)
{
	struct outcome o;

	/* The usual case has no 1xx; one that comes is skipped. */
	CHECK(complete("HTTP/1.1 100 Continue\r\n\r\n"
		       "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhi",
		       200));
	CHECK(complete("HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n"
		       "HTTP/1.1 102 Processing\r\n\r\n"
		       "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n",
		       404));
	o = outcome_of("HTTP/1.1 100 Continue\r\n\r\n");
	CHECK_EQ_INT(o.res, HTS_PARSE_MORE);
	CHECK(malformed_at_eof("HTTP/1.1 100 Continue\r\n\r\n"));
	CHECK(malformed("HTTP/1.1 101 Switching Protocols\r\n"
			"Upgrade: h2c\r\n\r\n"));
	CHECK(malformed("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 2"
			"00 OK\r\nContent-Length: 0\n\n"));
}

TEST(close_delimited)
{
	struct outcome o;

	o = outcome_of("HTTP/1.0 200 OK\r\nServer: x\r\n\r\nbody bytes");
	CHECK_EQ_INT(o.res, HTS_PARSE_MORE);
	o = outcome_at_eof("HTTP/1.0 200 OK\r\nServer: x\r\n\r\nbody bytes");
	CHECK_EQ_INT(o.res, HTS_PARSE_DONE);
	CHECK_EQ_INT(o.status, 200);
	CHECK(!o.keep_alive);
	o = outcome_at_eof("HTTP/1.1 200 OK\r\n\r\n");
	CHECK_EQ_INT(o.res, HTS_PARSE_DONE);
	CHECK(!o.keep_alive);
	/* A coding other than chunked last: the close ends the body. */
	o = outcome_at_eof(
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\nz");
	CHECK_EQ_INT(o.res, HTS_PARSE_DONE);
	CHECK(!o.keep_alive);
	/* A "chunked" in a quoted parameter is no coding: gzip is last,
	 * and the close ends the body (before, read as chunked: the
	 * bytes after its last chunk were "after the end"). */
	o = outcome_at_eof("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked, "
			   "gzip;x=\"a,chunked\"\r\n\r\n"
			   "5\r\nhello\r\n0\r\n\r\nEXTRA");
	CHECK_EQ_INT(o.res, HTS_PARSE_DONE);
	CHECK(!o.keep_alive);
	o = outcome_at_eof("HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip;"
			   "x=\"a\\\",chunked\"\r\n\r\nz");
	CHECK_EQ_INT(o.res, HTS_PARSE_DONE);
	/* And after the quotes close, a comma splits again. */
	CHECK(complete("HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip;x=\"a,b\", "
		       "chunked\r\n\r\n1\r\nz\r\n0\r\n\r\n",
		       200));
	/* Cut inside the head. */
	CHECK(malformed_at_eof("HTTP/1.1 200 OK\r\nContent-Le"));
	CHECK(malformed_at_eof("HTTP/1.1 200 OK\r\n"));
}

TEST(eof_before_anything)
{
	struct hts_response r;

	hts_response_init(&r);
	CHECK_EQ_INT(hts_response_eof(&r), HTS_PARSE_ERROR);
	CHECK(r.error != NULL);
}

TEST(keep_alive)
{
	CHECK(outcome_of("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")
		      .keep_alive);
	CHECK(!outcome_of("HTTP/1.1 200 OK\r\nConnection: close\r\n"
			  "Content-Length: 0\r\n\r\n")
		       .keep_alive);
	CHECK(!outcome_of("HTTP/1.1 200 OK\r\nConnection: Upgrade, CLOSE\r\n"
			  "Content-Length: 0\r\n\r\n")
		       .keep_alive);
	CHECK(outcome_of("HTTP/1.1 200 OK\r\nConnection: closed\r\n"
			 "Content-Length: 0\r\n\r\n")
		      .keep_alive);
	CHECK(!outcome_of("HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n")
		       .keep_alive);
	CHECK(outcome_of("HTTP/1.0 200 OK\r\nConnection: Keep-Alive\r\n"
			 "Content-Length: 0\r\n\r\n")
		      .keep_alive);
	CHECK(outcome_of("HTTP/1.0 200 OK\r\nConnection: x,keep-alive \r\n"
			 "Content-Length: 0\r\n\r\n")
		      .keep_alive);
}

TEST(reuse_after_init)
{
	static const char a[] = "HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\na";
	static const char b[] =
		"HTTP/1.1 500 Oops\r\nTransfer-Encoding: chunked"
		"\r\n\r\n1\r\nb\r\n0\r\n\r\n";
	struct hts_response r;
	size_t used;

	hts_response_init(&r);
	CHECK_EQ_INT(hts_response_parse(&r, a, sizeof(a) - 1, &used),
		     HTS_PARSE_DONE);
	/* Done stays done. */
	CHECK_EQ_INT(hts_response_parse(&r, "x", 1, &used), HTS_PARSE_DONE);
	CHECK_EQ_INT(used, 0);
	hts_response_init(&r);
	CHECK_EQ_INT(hts_response_parse(&r, b, sizeof(b) - 1, &used),
		     HTS_PARSE_DONE);
	CHECK_EQ_INT(used, sizeof(b) - 1);
	CHECK_EQ_INT(r.status, 500);
}

TEST(mutations_split_the_same_way)
{
	static const char *const seeds[] = {
		"HTTP/1.1 200 OK\r\nContent-Length: 5\r\nConnection: close"
		"\r\n\r\nhello",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
		"5;a=\"b\"\r\nhello\r\n0\r\nX: y\r\n\r\n",
		"HTTP/1.0 404 Nope\r\nConnection: keep-alive\r\n\r\nbody",
		"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 204 No\r\n\r\n",
	};
	static const char alphabet[] = "\r\n :;\"\\0aA9fH/.-,\t\x7f\x01\x80";
	uint32_t rng = 12345;
	char buf[128];

	/* Whatever the bytes, every way of splitting them agrees. */
	for (int round = 0; round < 3000; round++) {
		const char *seed = seeds[round % 4];
		size_t len = strlen(seed);

		memcpy(buf, seed, len);
		for (int m = 0; m < 1 + round % 3; m++) {
			rng = rng * 1103515245 + 12345;
			size_t at = (rng >> 8) % len;

			rng = rng * 1103515245 + 12345;
			buf[at] = alphabet[(rng >> 8) % (sizeof(alphabet) - 1)];
		}
		check_splits(buf, len, round % 2);
	}
}
