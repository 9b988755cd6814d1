// SPDX-License-Identifier: MIT
/* The byte-level tokenising helpers of the core (src/http/token.h). */
#include "harness.h"

#include "http/token.h"

TEST(tchar_is_exactly_rfc9110)
{
	static const char extra[] = "!#$%&'*+-.^_`|~";

	for (int c = 0; c < 256; c++) {
		bool want = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
			    (c >= 'A' && c <= 'Z') ||
			    (c && strchr(extra, c) != NULL);

		if (http_is_tchar((char)c) != want)
			fprintf(stderr, "  byte 0x%02x\n", c);
		CHECK(http_is_tchar((char)c) == want);
	}
}

TEST(case_folding_and_whitespace)
{
	CHECK(http_tolower('A') == 'a');
	CHECK(http_tolower('Z') == 'z');
	CHECK(http_tolower('a') == 'a');
	CHECK(http_tolower('@') == '@');
	CHECK(http_tolower('[') == '[');
	CHECK(http_tolower((char)0xc4) == (char)0xc4);
	CHECK(http_is_ows(' ') && http_is_ows('\t'));
	CHECK(!http_is_ows('\r') && !http_is_ows('\n') && !http_is_ows('x'));
	CHECK(http_eq_lower("ChUnKeD", "chunked", 7));
	CHECK(!http_eq_lower("chunkex", "chunked", 7));
	CHECK(http_eq_lower("", "", 0));
}
