// SPDX-License-Identifier: MIT
/*
 * JSON strings from anything a client sends: escapes as RFC 8259 needs,
 * ill-formed UTF-8 replaced, never copied, and long strings cut between
 * two escapes.
 */
#include "harness.h"

#include "http/escape.h"
#include "http/json.h"

static const char *escaped(const char *s, size_t n, size_t cap)
{
	static char out[4096];
	size_t len = http_json_escape(s, n, out, cap);

	CHECK(len <= cap);
	out[len] = '\0';
	return out;
}

#define ESC(lit) escaped(lit, sizeof(lit) - 1, 4000)

TEST(plain_and_escaped)
{
	CHECK_EQ_STR(ESC(""), "");
	CHECK_EQ_STR(ESC("GET /a?b=c HTTP/1.1"), "GET /a?b=c HTTP/1.1");
	CHECK_EQ_STR(ESC("a\"b\\c/d"), "a\\\"b\\\\c/d");
	CHECK_EQ_STR(ESC("\b\f\n\r\t"), "\\b\\f\\n\\r\\t");
	CHECK_EQ_STR(ESC("\x01\x1b\x1f\x7f"), "\\u0001\\u001b\\u001f\\u007f");
	CHECK_EQ_STR(ESC("a\0b"), "a\\u0000b");
}

TEST(every_ascii_byte)
{
	for (int b = 0; b < 0x80; b++) {
		char in = (char)b, out[HTTP_JSON_ESCAPE_MAX];
		size_t used, n = http_json_escape_unit(&in, 1, &used, out);

		CHECK_EQ_INT(used, 1);
		if (b >= 0x20 && b < 0x7f && b != '"' && b != '\\') {
			CHECK_EQ_INT(n, 1);
			CHECK_EQ_INT(out[0], b);
		} else {
			CHECK(n == 2 || n == 6);
			CHECK_EQ_INT(out[0], '\\');
		}
	}
}

TEST(utf8_kept_ill_formed_replaced)
{
	/* é, €, 😀: kept as they are. */
	CHECK_EQ_STR(ESC("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"),
		     "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
	/* A lone continuation byte, a cut sequence, an overlong '/', a
	 * surrogate, beyond U+10FFFF, 0xff: one \ufffd per maximal
	 * subpart, as browsers and Python decode them. */
	CHECK_EQ_STR(ESC("a\x80z"), "a\\ufffdz");
	CHECK_EQ_STR(ESC("\xe2\x82z"), "\\ufffdz");
	CHECK_EQ_STR(ESC("\xc0\xaf"), "\\ufffd\\ufffd");
	CHECK_EQ_STR(ESC("\xed\xa0\x80"), "\\ufffd\\ufffd\\ufffd");
	CHECK_EQ_STR(ESC("\xf4\x90\x80\x80"), "\\ufffd\\ufffd\\ufffd\\ufffd");
	CHECK_EQ_STR(ESC("\xff\xfe"), "\\ufffd\\ufffd");
	CHECK_EQ_STR(ESC("\xc3"), "\\ufffd");
	/* JavaScript's line terminators. */
	CHECK_EQ_STR(ESC("\xe2\x80\xa8\xe2\x80\xa9\xe2\x80\xaa"),
		     "\\u2028\\u2029\xe2\x80\xaa");
}

TEST(every_byte_pair_is_valid_output)
{
	/* Whatever comes in, what goes out is printable ASCII or valid
	 * UTF-8, with no raw '"' and no raw control byte. */
	for (int a = 0; a < 256; a++) {
		for (int b = 0; b < 256; b++) {
			char in[2] = { (char)a, (char)b }, out[64];
			size_t n = http_json_escape(in, 2, out, sizeof(out));

			for (size_t i = 0; i < n;) {
				unsigned char c = (unsigned char)out[i];
				bool valid;

				CHECK(c >= 0x20 && c != 0x7f);
				if (c == '\\') {
					CHECK(i + 1 < n);
					i += 2;
					continue;
				}
				CHECK(c != '"');
				i += http_utf8_sequence(out + i, n - i, &valid);
				CHECK(valid);
			}
		}
	}
}

TEST(cut_between_escapes)
{
	/* Fits exactly, then one byte too many. */
	CHECK_EQ_STR(escaped("abcdef", 6, 6), "abcdef");
	CHECK_EQ_STR(escaped("abcdefg", 7, 6), "abc...");
	/* An escape is never split. */
	CHECK_EQ_STR(escaped("ab\"cdefgh", 9, 8), "ab\\\"c...");
	CHECK_EQ_STR(escaped("ab\"cdefgh", 9, 6), "ab...");
	CHECK_EQ_STR(escaped("a\x01\x02\x03", 4, 10), "a\\u0001...");
	CHECK_EQ_STR(escaped("a\x01\x02\x03", 4, 9), "a...");
	CHECK_EQ_STR(escaped("\xc3\xa9\xc3\xa9\xc3\xa9", 6, 5), "\xc3\xa9...");
	CHECK_EQ_STR(escaped("\xc3\xa9\xc3\xa9\xc3\xa9", 6, 4), "...");
}
