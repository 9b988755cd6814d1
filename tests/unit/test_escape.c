// SPDX-License-Identifier: MIT
/* HTML and JSON escaping and URL encoding, byte by byte and for whole
 * strings. */
#include "harness.h"

#include <ctype.h>

#include "http/escape.h"
#include "http/path.h"

TEST(html_escape_byte_every_byte)
{
	for (int b = 0; b < 256; b++) {
		char out[HTTP_HTML_ESCAPE_MAX];
		size_t n = http_html_escape_byte((char)b, out);
		const char *want = NULL;

		switch (b) {
		case '&':
			want = "&amp;";
			break;
		case '<':
			want = "&lt;";
			break;
		case '>':
			want = "&gt;";
			break;
		case '"':
			want = "&quot;";
			break;
		case '\'':
			want = "&#39;";
			break;
		}
		if (want) {
			CHECK_EQ_MEM(out, n, want);
		} else {
			CHECK_EQ_INT(n, 1);
			CHECK_EQ_INT((unsigned char)out[0], b);
		}
		CHECK(n <= HTTP_HTML_ESCAPE_MAX);
	}
}

static bool unreserved(int b)
{
	return isalnum(b) || b == '-' || b == '.' || b == '_' || b == '~';
}

TEST(url_encode_byte_every_byte)
{
	for (int keep = 0; keep < 2; keep++) {
		for (int b = 0; b < 256; b++) {
			char out[HTTP_URL_ENCODE_MAX], want[4];
			size_t n = http_url_encode_byte((char)b, out, keep);

			if (b < 128 && (unreserved(b) || (keep && b == '/'))) {
				CHECK_EQ_INT(n, 1);
				CHECK_EQ_INT(out[0], b);
				continue;
			}
			snprintf(want, sizeof(want), "%%%02X", b);
			CHECK_EQ_MEM(out, n, want);
		}
	}
}

TEST(html_escape_strings)
{
	char out[64];
	size_t n;

	n = http_html_escape("<b>&\"x'.txt", 11, out, sizeof(out));
	CHECK_EQ_MEM(out, n, "&lt;b&gt;&amp;&quot;x&#39;.txt");
	n = http_html_escape("plain \xc3\xbc", 8, out, sizeof(out));
	CHECK_EQ_MEM(out, n, "plain \xc3\xbc");
	n = http_html_escape("<script>", 8, out, sizeof(out));
	CHECK_EQ_MEM(out, n, "&lt;script&gt;");
	/* Embedded NUL bytes pass through; the length is what counts. */
	n = http_html_escape("a\0b", 3, out, sizeof(out));
	CHECK_EQ_INT(n, 3);
	CHECK(!memcmp(out, "a\0b", 3));
	CHECK_EQ_INT(http_html_escape("", 0, out, sizeof(out)), 0);
}

TEST(html_escape_capacity)
{
	/* "a&b" becomes 7 bytes: exact fit works, one less does not. */
	char *out = malloc(7);

	CHECK_EQ_INT(http_html_escape("a&b", 3, out, 7), 7);
	CHECK_EQ_MEM(out, 7, "a&amp;b");
	CHECK_EQ_INT(http_html_escape("a&b", 3, out, 6), 0);
	CHECK_EQ_INT(http_html_escape("a&b", 3, out, 1), 0);
	CHECK_EQ_INT(http_html_escape("a&b", 3, out, 0), 0);
	CHECK_EQ_INT(http_html_escape("\"\"", 2, out, 7), 0);
	free(out);
}

TEST(url_encode_strings)
{
	char out[128];
	size_t n;

	n = http_url_encode("space name.txt", 14, out, sizeof(out), false);
	CHECK_EQ_MEM(out, n, "space%20name.txt");
	n = http_url_encode("percent%41.txt", 14, out, sizeof(out), false);
	CHECK_EQ_MEM(out, n, "percent%2541.txt");
	n = http_url_encode("#hash?.txt", 10, out, sizeof(out), false);
	CHECK_EQ_MEM(out, n, "%23hash%3F.txt");
	n = http_url_encode("<b>&\"x'.txt", 11, out, sizeof(out), false);
	CHECK_EQ_MEM(out, n, "%3Cb%3E%26%22x%27.txt");
	n = http_url_encode("\xc3\xbc"
			    "n\xc3\xaf"
			    "c\xc3\xb6"
			    "d\xc3\xa9.txt",
			    15, out, sizeof(out), false);
	CHECK_EQ_MEM(out, n, "%C3%BCn%C3%AFc%C3%B6d%C3%A9.txt");
	n = http_url_encode("javascript:alert(1)", 19, out, sizeof(out), false);
	CHECK_EQ_MEM(out, n, "javascript%3Aalert%281%29");
	n = http_url_encode("/a b/c", 6, out, sizeof(out), true);
	CHECK_EQ_MEM(out, n, "/a%20b/c");
	n = http_url_encode("/a b/c", 6, out, sizeof(out), false);
	CHECK_EQ_MEM(out, n, "%2Fa%20b%2Fc");
	n = http_url_encode("\r\n", 2, out, sizeof(out), true);
	CHECK_EQ_MEM(out, n, "%0D%0A");
	CHECK_EQ_INT(http_url_encode("", 0, out, sizeof(out), true), 0);
}

TEST(url_encode_capacity)
{
	char *out = malloc(5);

	CHECK_EQ_INT(http_url_encode("a b", 3, out, 5, false), 5);
	CHECK_EQ_MEM(out, 5, "a%20b");
	CHECK_EQ_INT(http_url_encode("a b", 3, out, 4, false), 0);
	CHECK_EQ_INT(http_url_encode("ab ", 3, out, 4, false), 0);
	CHECK_EQ_INT(http_url_encode("abc", 3, out, 3, false), 3);
	CHECK_EQ_INT(http_url_encode("abc", 3, out, 2, false), 0);
	free(out);
}

TEST(url_encode_round_trips_through_path_decoding)
{
	/* Any file name (no '/', no NUL, not a dot segment) comes back. */
	unsigned seed = 99;

	for (int round = 0; round < 20000; round++) {
		char name[32], enc[1 + 3 * 32], dec[sizeof(enc) + 1];
		size_t n, e;
		int d;

		seed = seed * 1103515245u + 12345u;
		n = 1 + (seed >> 16) % 31;
		for (size_t i = 0; i < n; i++) {
			seed = seed * 1103515245u + 12345u;
			do {
				name[i] = (char)(seed >> 13);
				seed = seed * 1103515245u + 12345u;
			} while (name[i] == '/' || name[i] == '\0');
		}
		if ((n == 1 && name[0] == '.') ||
		    (n == 2 && name[0] == '.' && name[1] == '.'))
			continue;
		enc[0] = '/';
		e = http_url_encode(name, n, enc + 1, sizeof(enc) - 1, false);
		CHECK(e >= n);
		d = http_path_normalize(enc, e + 1, dec, sizeof(dec));
		CHECK_EQ_INT(d, n + 1);
		CHECK(d == (int)n + 1 && !memcmp(dec + 1, name, n));
		/* Nothing that could end an attribute or a header survives. */
		for (size_t i = 0; i < e; i++)
			CHECK(!strchr("\"'<>& \r\n\t", enc[1 + i]));
	}
}
