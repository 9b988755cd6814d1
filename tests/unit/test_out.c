// SPDX-License-Identifier: MIT
/* The bounded, flushing output buffer. */
#include "harness.h"

#include "http/escape.h"
#include "http/format.h"
#include "http/out.h"

struct sink {
	char data[1 << 20];
	size_t len;
	int flushes;
	int fail_after; /* flushes that succeed; -1: all */
	bool stall; /* succeed without consuming */
};

static int sink_flush(struct http_out *out)
{
	struct sink *s = out->ctx;

	if (s->fail_after >= 0 && s->flushes >= s->fail_after)
		return -1;
	s->flushes++;
	if (s->stall)
		return 0;
	if (s->len + out->len > sizeof(s->data))
		return -1;
	memcpy(s->data + s->len, out->buf, out->len);
	s->len += out->len;
	out->len = 0;
	return 0;
}

static void out_init(struct http_out *out, char *buf, size_t cap,
		     struct sink *s)
{
	memset(s, 0, sizeof(*s));
	s->fail_after = -1;
	*out = (struct http_out){
		.buf = buf, .cap = cap, .flush = sink_flush, .ctx = s
	};
}

TEST(put_streams_through_a_small_buffer)
{
	static struct sink s;
	struct http_out out;
	char *buf = malloc(64); /* exact size, for ASan */
	char big[1000];

	for (size_t i = 0; i < sizeof(big); i++)
		big[i] = (char)('a' + i % 26);
	out_init(&out, buf, 64, &s);
	http_out_put(&out, big, sizeof(big));
	http_out_puts(&out, "tail");
	CHECK_EQ_INT(http_out_flush(&out), 0);
	CHECK_EQ_INT(out.len, 0);
	CHECK_EQ_INT(s.len, sizeof(big) + 4);
	CHECK(!memcmp(s.data, big, sizeof(big)));
	CHECK(!memcmp(s.data + sizeof(big), "tail", 4));
	CHECK(s.flushes >= (int)(sizeof(big) / 64));
	free(buf);
}

TEST(flush_with_nothing_buffered_does_not_call_back)
{
	static struct sink s;
	struct http_out out;
	char buf[64];

	out_init(&out, buf, sizeof(buf), &s);
	CHECK_EQ_INT(http_out_flush(&out), 0);
	CHECK_EQ_INT(s.flushes, 0);
	http_out_put(&out, "", 0);
	http_out_puts(&out, "");
	CHECK_EQ_INT(out.len, 0);
	CHECK_EQ_INT(http_out_flush(&out), 0);
	CHECK_EQ_INT(s.flushes, 0);
}

TEST(numbers)
{
	static const uint64_t v[] = {
		0, 1, 9, 10, 12345, 4294967296ull, UINT64_MAX, UINT64_MAX - 1
	};
	static struct sink s;
	struct http_out out;
	char buf[64], want[512];
	size_t wn = 0;

	out_init(&out, buf, sizeof(buf), &s);
	for (size_t i = 0; i < ARRAY_SIZE(v); i++) {
		http_out_u64(&out, v[i]);
		http_out_put(&out, ",", 1);
		wn += (size_t)snprintf(want + wn, sizeof(want) - wn, "%llu,",
				       (unsigned long long)v[i]);
	}
	CHECK_EQ_INT(http_out_flush(&out), 0);
	CHECK_EQ_MEM(s.data, s.len, want);
}

TEST(escaping_writers)
{
	static struct sink s;
	struct http_out out;
	char buf[64];

	out_init(&out, buf, sizeof(buf), &s);
	http_out_html(&out, "<a href='x'>&\"</a>", 18);
	http_out_put(&out, "|", 1);
	http_out_url(&out, "/a b/\xff", 6, true);
	http_out_put(&out, "|", 1);
	http_out_url(&out, "/a b", 4, false);
	CHECK_EQ_INT(http_out_flush(&out), 0);
	CHECK_EQ_MEM(s.data, s.len,
		     "&lt;a href=&#39;x&#39;&gt;&amp;&quot;&lt;/a&gt;|"
		     "/a%20b/%FF|%2Fa%20b");
}

/* Pages are declared UTF-8: bytes that are not show as U+FFFD. */
TEST(html_text_is_always_utf8)
{
	static struct sink s;
	struct http_out out;
	char buf[16];

	out_init(&out, buf, sizeof(buf), &s);
	/* Latin-1 é, a valid é and ✓, a truncated ✓, an overlong '/', a
	 * surrogate, a lone continuation byte, a cut 4-byte one at the end. */
	http_out_html(&out,
		      "caf\xe9|\xc3\xa9\xe2\x9c\x93|\xe2\x9c<|"
		      "\xc0\xaf|\xed\xa0\x80|\x80|\xf0\x9f\x98",
		      27);
	CHECK_EQ_INT(http_out_flush(&out), 0);
	CHECK_EQ_MEM(s.data, s.len,
		     "caf\xef\xbf\xbd|\xc3\xa9\xe2\x9c\x93|\xef\xbf\xbd&lt;|"
		     "\xef\xbf\xbd\xef\xbf\xbd|"
		     "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd|\xef\xbf\xbd|"
		     "\xef\xbf\xbd");
}

/* Control characters, which a name may hold and HTML text may not, show
 * as U+FFFD too: a line break, a tab, an escape sequence, DEL, NUL. */
TEST(html_text_has_no_control_characters)
{
	static struct sink s;
	struct http_out out;
	char buf[64];

	out_init(&out, buf, sizeof(buf), &s);
	http_out_html(&out, "a\nb\tc\x1b[31md\x7f\0 ~", 15);
	CHECK_EQ_INT(http_out_flush(&out), 0);
	CHECK_EQ_MEM(s.data, s.len,
		     "a\xef\xbf\xbd"
		     "b\xef\xbf\xbd"
		     "c\xef\xbf\xbd[31md"
		     "\xef\xbf\xbd\xef\xbf\xbd ~");
}

/* JSON strings: escaped, and always valid UTF-8 whatever the bytes. */
TEST(json_strings)
{
	static struct sink s;
	struct http_out out;
	char buf[16];

	out_init(&out, buf, sizeof(buf), &s);
	http_out_json(&out, "a\"b\\c/d\te\x01\x1f\x7f", 12);
	http_out_put(&out, "|", 1);
	/* As for HTML: Latin-1 é, a valid é and ✓, a truncated ✓, an
	 * overlong '/', a surrogate, a lone continuation byte, a cut 4-byte
	 * one at the end; each bad run one U+FFFD, as an escape. */
	http_out_json(&out,
		      "caf\xe9|\xc3\xa9\xe2\x9c\x93|\xe2\x9c\"|"
		      "\xc0\xaf|\xed\xa0\x80|\x80|\xf0\x9f\x98",
		      27);
	CHECK_EQ_INT(http_out_flush(&out), 0);
	CHECK_EQ_MEM(s.data, s.len,
		     "a\\\"b\\\\c/d\\te\\u0001\\u001f\\u007f|"
		     "caf\\ufffd|\xc3\xa9\xe2\x9c\x93|\\ufffd\\\"|"
		     "\\ufffd\\ufffd|\\ufffd\\ufffd\\ufffd|\\ufffd|"
		     "\\ufffd");
}

TEST(failed_flush_is_sticky)
{
	static struct sink s;
	struct http_out out;
	char buf[64];
	char big[200];

	memset(big, 'x', sizeof(big));
	out_init(&out, buf, sizeof(buf), &s);
	s.fail_after = 1;
	http_out_put(&out, big, sizeof(big));
	CHECK(out.error != 0);
	CHECK_EQ_INT(s.flushes, 1);
	CHECK_EQ_INT(s.len, 64);
	/* Nothing more is written or flushed once the error is set. */
	{
		size_t len = out.len;

		http_out_puts(&out, "more");
		http_out_u64(&out, 42);
		http_out_html(&out, "<", 1);
		http_out_url(&out, " ", 1, false);
		CHECK_EQ_INT(out.len, len);
	}
	CHECK(http_out_flush(&out) != 0);
	CHECK_EQ_INT(s.flushes, 1);
	CHECK(out.len <= out.cap);
}

TEST(final_flush_failure_is_reported)
{
	static struct sink s;
	struct http_out out;
	char buf[64];

	out_init(&out, buf, sizeof(buf), &s);
	s.fail_after = 0;
	http_out_puts(&out, "fits");
	CHECK_EQ_INT(out.error, 0);
	CHECK(http_out_flush(&out) != 0);
	CHECK(http_out_flush(&out) != 0);
}

TEST(flush_that_does_not_drain_is_an_error)
{
	static struct sink s;
	struct http_out out;
	char buf[64];
	char big[100];

	memset(big, 'y', sizeof(big));
	out_init(&out, buf, sizeof(buf), &s);
	s.stall = true;
	http_out_put(&out, big, sizeof(big));
	CHECK(out.error != 0);
	CHECK(out.len <= out.cap);
}

TEST(no_flush_callback_fills_then_fails)
{
	struct http_out out = { 0 };
	char *buf = malloc(64);

	out.buf = buf;
	out.cap = 64;
	http_out_put(&out, "0123456789", 10);
	CHECK_EQ_INT(out.len, 10);
	CHECK_EQ_INT(out.error, 0);
	CHECK(!memcmp(buf, "0123456789", 10));
	for (int i = 0; i < 10; i++)
		http_out_put(&out, "0123456789", 10);
	CHECK(out.error != 0);
	CHECK(out.len <= 64);
	free(buf);
}

/* A fixed pseudo-random mix of every writer. */
static void write_mix(struct http_out *out, unsigned seed)
{
	static const char pool[] = "<>&\"' /az%\xc3\xbc\x01";

	for (int op = 0; op < 3000; op++) {
		char s[40];
		size_t n;

		seed = seed * 1103515245u + 12345u;
		n = (seed >> 16) % sizeof(s);
		for (size_t i = 0; i < n; i++) {
			seed = seed * 1103515245u + 12345u;
			s[i] = pool[(seed >> 16) % (sizeof(pool) - 1)];
		}
		switch ((seed >> 8) % 5) {
		case 0:
			http_out_put(out, s, n);
			break;
		case 1:
			http_out_u64(out, (uint64_t)seed * seed);
			break;
		case 2:
			http_out_html(out, s, n);
			break;
		case 3:
			http_out_url(out, s, n, true);
			break;
		default:
			http_out_url(out, s, n, false);
			break;
		}
	}
}

TEST(tiny_buffer_gives_same_bytes_as_big_one)
{
	static struct sink small, big;
	struct http_out a, b;
	char *sbuf = malloc(64), *bbuf = malloc(1 << 16);

	for (unsigned seed = 1; seed <= 5; seed++) {
		out_init(&a, sbuf, 64, &small);
		out_init(&b, bbuf, 1 << 16, &big);
		write_mix(&a, seed);
		write_mix(&b, seed);
		CHECK_EQ_INT(http_out_flush(&a), 0);
		CHECK_EQ_INT(http_out_flush(&b), 0);
		CHECK_EQ_INT(small.len, big.len);
		CHECK(small.len == big.len &&
		      !memcmp(small.data, big.data, small.len));
		CHECK(small.flushes > 100);
		CHECK(big.len > 10000);
	}
	free(sbuf);
	free(bbuf);
}
