// SPDX-License-Identifier: MIT
/* Unit tests of htstress's request building (tools/htstress/request.c). */
#include "harness.h"

#include "../../tools/htstress/request.h"

static char err[256];

static bool header_ok(const char *h)
{
	err[0] = '\0';
	if (hts_header_check(h, err, sizeof(err)) == 0)
		return true;
	CHECK(err[0] != '\0');
	return false;
}

static void check_request(const char *url_text, const char *const *headers,
			  size_t n, bool keep_alive, const char *expected)
{
	struct hts_url url;
	struct hts_request req;

	CHECK_EQ_INT(hts_url_parse(url_text, &url, err, sizeof(err)), 0);
	for (size_t i = 0; i < n; i++)
		CHECK(header_ok(headers[i]));
	CHECK_EQ_INT(hts_request_build(&req, &url, headers, n, keep_alive, err,
				       sizeof(err)),
		     0);
	CHECK_EQ_MEM(req.data, req.len, expected);
	hts_request_free(&req);
}

TEST(keep_alive_request)
{
	check_request("http://127.0.0.1:8080/x?y", NULL, 0, true,
		      "GET /x?y HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n\r\n");
}

TEST(connection_close_without_keep_alive)
{
	check_request("http://example.com", NULL, 0, false,
		      "GET / HTTP/1.1\r\nHost: example.com\r\n"
		      "Connection: close\r\n\r\n");
}

TEST(ipv6_host)
{
	check_request("http://[::1]:81/", NULL, 0, true,
		      "GET / HTTP/1.1\r\nHost: [::1]:81\r\n\r\n");
}

TEST(extra_headers_in_order)
{
	static const char *const h[] = { "X-One: 1", "X-Two:two",
					 "Accept:  \t*/*  " };

	check_request("http://h/", h, 3, true,
		      "GET / HTTP/1.1\r\nHost: h\r\nX-One: 1\r\nX-Two: two\r\n"
		      "Accept: */*\r\n\r\n");
}

TEST(host_header_overrides)
{
	static const char *const h[] = { "host: other.example:99" };

	check_request("http://127.0.0.1:8080/", h, 1, false,
		      "GET / HTTP/1.1\r\nhost: other.example:99\r\n"
		      "Connection: close\r\n\r\n");
}

TEST(connection_header_overrides)
{
	static const char *const h[] = { "Connection: keep-alive" };

	check_request("http://h/", h, 1, false,
		      "GET / HTTP/1.1\r\nHost: h\r\nConnection: keep-alive\r\n"
		      "\r\n");
}

/*
 * A request that says close is not followed by another on its
 * connection, -k or not (RFC 9112 9.6): before, -k with -H "Connection:
 * close" sent the next one on a connection the server was closing.
 */
TEST(a_request_that_says_close_closes)
{
	static const struct {
		const char *header;
		bool keep_alive, closes;
	} cases[] = {
		{ "Connection: close", true, true },
		{ "connection:  Upgrade, CLOSE ", true, true },
		{ "Connection: keep-alive", false, false },
		{ "Connection: closed", true, false },
		{ NULL, true, false },
		{ NULL, false, true },
	};
	struct hts_url url;

	CHECK_EQ_INT(hts_url_parse("http://h/", &url, err, sizeof(err)), 0);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *const h[] = { cases[i].header };
		struct hts_request req;

		CHECK_EQ_INT(hts_request_build(
				     &req, &url, h, cases[i].header ? 1 : 0,
				     cases[i].keep_alive, err, sizeof(err)),
			     0);
		CHECK_EQ_INT(req.closes, cases[i].closes);
		hts_request_free(&req);
	}
}

TEST(empty_value)
{
	static const char *const h[] = { "X-Empty:" };

	check_request("http://h/", h, 1, true,
		      "GET / HTTP/1.1\r\nHost: h\r\nX-Empty: \r\n\r\n");
}

TEST(bad_headers)
{
	CHECK(!header_ok(""));
	CHECK(!header_ok("NoColon"));
	CHECK(!header_ok(": value"));
	CHECK(!header_ok("Bad Name: x"));
	CHECK(!header_ok("Name : x"));
	CHECK(!header_ok("X: a\r\nY: b"));
	CHECK(!header_ok("X: a\nb"));
	CHECK(!header_ok("X: a\x7f"));
	CHECK(!header_ok("X(1): a"));
	CHECK(header_ok("X: a\tb"));
	CHECK(header_ok("X-\xc3\xa9: a") == false);
}

TEST(too_large)
{
	static const char *h[40];
	static char big[HTS_REQUEST_MAX / 4];
	struct hts_url url;
	struct hts_request req;

	memset(big, 'v', sizeof(big) - 1);
	memcpy(big, "X: ", 3);
	for (size_t i = 0; i < 40; i++)
		h[i] = big;
	CHECK_EQ_INT(hts_url_parse("http://h/", &url, err, sizeof(err)), 0);
	CHECK(header_ok(big));
	CHECK_EQ_INT(hts_request_build(&req, &url, h, 40, true, err,
				       sizeof(err)),
		     -1);
	CHECK(req.data == NULL);
	CHECK(strstr(err, "longer") != NULL);
	CHECK_EQ_INT(
		hts_request_build(&req, &url, h, 3, true, err, sizeof(err)), 0);
	CHECK(req.len > 3 * (sizeof(big) - 1));
	hts_request_free(&req);
}
