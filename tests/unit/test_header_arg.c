// SPDX-License-Identifier: MIT
/* The operator's header lines: sehttpd's --header and khttpd's headers=. */
#include "harness.h"

#include "http/header_arg.h"

static enum http_header_arg_error split(const char *arg,
					struct http_header_arg *h)
{
	return http_header_arg_split(arg, h);
}

TEST(plain_and_prefixed)
{
	struct http_header_arg h;

	CHECK_EQ_INT(split("X-Frame-Options: DENY", &h), HTTP_HEADER_ARG_OK);
	CHECK_EQ_INT((int)h.prefix_len, 0);
	CHECK_EQ_INT((int)h.name_len, 15);
	CHECK(!strncmp(h.value, "DENY", h.value_len) && h.value_len == 4);
	/* Whitespace around the value goes; inside it stays. */
	CHECK_EQ_INT(split("X-Two: \t two words  ", &h), HTTP_HEADER_ARG_OK);
	CHECK(h.value_len == 9 && !strncmp(h.value, "two words", 9));
	CHECK_EQ_INT(split("X-Empty:", &h), HTTP_HEADER_ARG_OK);
	CHECK_EQ_INT((int)h.value_len, 0);
	CHECK_EQ_INT(split("/big/:Cache-Control: max-age=60", &h),
		     HTTP_HEADER_ARG_OK);
	CHECK(h.prefix_len == 5 && !strncmp(h.prefix, "/big/", 5));
	CHECK(h.name_len == 13 && !strncmp(h.name, "Cache-Control", 13));
}

TEST(refused)
{
	struct http_header_arg h;

	CHECK_EQ_INT(split("/big/", &h), HTTP_HEADER_ARG_NO_HEADER);
	/* Prefixes no request's decoded, normalised path starts with. */
	CHECK_EQ_INT(split("/a\tb/:X: 1", &h), HTTP_HEADER_ARG_BAD_PREFIX);
	CHECK_EQ_INT(split("//pub/:X: 1", &h), HTTP_HEADER_ARG_BAD_PREFIX);
	CHECK_EQ_INT(split("/pub/../x:X: 1", &h), HTTP_HEADER_ARG_BAD_PREFIX);
	CHECK_EQ_INT(split("/p%75b/:X: 1", &h), HTTP_HEADER_ARG_BAD_PREFIX);
	CHECK_EQ_INT(split("/a b/:X: 1", &h), HTTP_HEADER_ARG_OK);
	CHECK_EQ_INT(split("NoColon", &h), HTTP_HEADER_ARG_NO_COLON);
	CHECK_EQ_INT(split(": empty", &h), HTTP_HEADER_ARG_EMPTY_NAME);
	CHECK_EQ_INT(split("Bad Name: x", &h), HTTP_HEADER_ARG_BAD_NAME);
	CHECK_EQ_INT(split("X(A): 1", &h), HTTP_HEADER_ARG_BAD_NAME);
	CHECK_EQ_INT(split("X-A: one\r\nX-B: two", &h),
		     HTTP_HEADER_ARG_BAD_VALUE);
	CHECK_EQ_INT(split("X-A: del\x7f", &h), HTTP_HEADER_ARG_BAD_VALUE);
	CHECK(strlen(http_header_arg_error_text(HTTP_HEADER_ARG_BAD_NAME)));
}

TEST(managed_headers)
{
	struct http_header_arg h;

	CHECK_EQ_INT(split("content-length: 1", &h), HTTP_HEADER_ARG_MANAGED);
	CHECK_EQ_STR(h.managed, "Content-Length");
	CHECK_EQ_INT(split("/a/:ETAG: x", &h), HTTP_HEADER_ARG_MANAGED);
	CHECK_EQ_STR(h.managed, "ETag");
	/* Only the exact name: a longer one is the operator's. */
	CHECK_EQ_INT(split("Content-Lengths: 1", &h), HTTP_HEADER_ARG_OK);
	CHECK_EQ_INT(split("access-control-max-age: 5", &h),
		     HTTP_HEADER_ARG_OK);
	CHECK_EQ_INT(http_header_arg_check_cors(&h), HTTP_HEADER_ARG_CORS);
	CHECK_EQ_STR(h.managed, "Access-Control-Max-Age");
	CHECK_EQ_INT(split("Access-Control-Expose-Headers: X", &h),
		     HTTP_HEADER_ARG_OK);
	CHECK_EQ_INT(http_header_arg_check_cors(&h), HTTP_HEADER_ARG_OK);
}

TEST(rules_written)
{
	struct http_header_rule r;
	struct http_header_arg h;
	char out[128];

	CHECK_EQ_INT(split("/big/:X-Two:  two words  ", &h),
		     HTTP_HEADER_ARG_OK);
	CHECK_EQ_INT((int)http_header_rule_from_arg(&r, out, &h), 18);
	CHECK(!memcmp(r.lines, "X-Two: two words\r\n", 18));
	CHECK(r.prefix_len == 5 && !r.always && r.lines == out);
	CHECK_EQ_INT((int)http_header_rule_cors(&r, out, "*"), 32);
	CHECK(!memcmp(out, "Access-Control-Allow-Origin: *\r\n", 32));
	CHECK(r.always && r.prefix_len == 0 && r.lines_len == 32);
	CHECK_EQ_INT((int)http_header_rule_cors(&r, out, "https://a.example"),
		     17 + HTTP_HEADER_CORS_EXTRA);
	CHECK(!memcmp(out,
		      "Access-Control-Allow-Origin: https://a.example\r\n"
		      "Vary: Origin\r\n",
		      17 + HTTP_HEADER_CORS_EXTRA));
}
