// SPDX-License-Identifier: MIT
/* Status reasons, error pages and response heads, byte for byte. */
#include "harness.h"

#include "http/format.h"
#include "http/response.h"

static const char date[] = "Sun, 06 Nov 1994 08:49:37 GMT";

static struct http_response_head base(int status)
{
	return (struct http_response_head){
		.status = status,
		.version_minor = 1,
		.keep_alive = true,
		.server = "sehttpd",
		.date = date,
		.content_length = HTTP_NO_LENGTH,
		.last_modified = HTTP_NO_TIME,
	};
}

/* Builds h into an exact-size heap buffer and compares with want. */
static bool head_is(const struct http_response_head *h, const char *want)
{
	size_t cap = strlen(want);
	char *buf = malloc(cap ? cap : 1);
	size_t n = http_response_head_build(buf, cap, h);
	bool ok = n == cap && !memcmp(buf, want, n);

	if (!ok)
		fprintf(stderr, "  got (%zu)\n%.*s\n  want (%zu)\n%s\n", n,
			(int)n, buf, cap, want);
	free(buf);
	return ok;
}

TEST(file_head)
{
	struct http_response_head h = base(200);

	h.content_type = "text/plain; charset=utf-8";
	h.content_length = 12;
	h.last_modified = 784111777;
	CHECK(head_is(&h, "HTTP/1.1 200 OK\r\n"
			  "Server: sehttpd\r\n"
			  "Date: Sun, 06 Nov 1994 08:49:37 GMT\r\n"
			  "Content-Type: text/plain; charset=utf-8\r\n"
			  "Content-Length: 12\r\n"
			  "Last-Modified: Sun, 06 Nov 1994 08:49:37 GMT\r\n"
			  "\r\n"));
}

TEST(large_and_zero_lengths)
{
	struct http_response_head h = base(200);

	h.content_length = 4295016448ll; /* 4 GiB + 1 MiB */
	CHECK(head_is(&h, "HTTP/1.1 200 OK\r\nServer: sehttpd\r\n"
			  "Date: Sun, 06 Nov 1994 08:49:37 GMT\r\n"
			  "Content-Length: 4295016448\r\n\r\n"));
	h.content_length = 0;
	CHECK(head_is(&h, "HTTP/1.1 200 OK\r\nServer: sehttpd\r\n"
			  "Date: Sun, 06 Nov 1994 08:49:37 GMT\r\n"
			  "Content-Length: 0\r\n\r\n"));
	h.content_length = INT64_MAX;
	CHECK(head_is(&h, "HTTP/1.1 200 OK\r\nServer: sehttpd\r\n"
			  "Date: Sun, 06 Nov 1994 08:49:37 GMT\r\n"
			  "Content-Length: 9223372036854775807\r\n\r\n"));
}

TEST(chunked_listing_head)
{
	struct http_response_head h = base(200);

	h.content_type = "text/html; charset=utf-8";
	h.chunked = true;
	CHECK(head_is(&h, "HTTP/1.1 200 OK\r\nServer: sehttpd\r\n"
			  "Date: Sun, 06 Nov 1994 08:49:37 GMT\r\n"
			  "Content-Type: text/html; charset=utf-8\r\n"
			  "Transfer-Encoding: chunked\r\n\r\n"));
}

TEST(redirect_head)
{
	struct http_response_head h = base(301);
	static const char loc[] = "/dir/?x=1trailing";

	h.content_type = "text/html";
	h.content_length = 10;
	h.location = loc;
	h.location_len = 9;
	CHECK(head_is(&h, "HTTP/1.1 301 Moved Permanently\r\n"
			  "Server: sehttpd\r\n"
			  "Date: Sun, 06 Nov 1994 08:49:37 GMT\r\n"
			  "Content-Type: text/html\r\n"
			  "Content-Length: 10\r\n"
			  "Location: /dir/?x=1\r\n\r\n"));
}

TEST(method_not_allowed_head)
{
	struct http_response_head h = base(405);

	h.allow_get_head = true;
	h.content_length = 0;
	CHECK(head_is(&h, "HTTP/1.1 405 Method Not Allowed\r\n"
			  "Server: sehttpd\r\n"
			  "Date: Sun, 06 Nov 1994 08:49:37 GMT\r\n"
			  "Content-Length: 0\r\n"
			  "Allow: GET, HEAD\r\n\r\n"));
}

TEST(allow_with_options)
{
	struct http_response_head h = base(204);

	h.allow_get_head = true;
	h.allow_options = true;
	CHECK(head_is(&h, "HTTP/1.1 204 No Content\r\n"
			  "Server: sehttpd\r\n"
			  "Date: Sun, 06 Nov 1994 08:49:37 GMT\r\n"
			  "Allow: GET, HEAD, OPTIONS\r\n\r\n"));
}

TEST(header_rules_by_status_and_prefix)
{
	static const struct http_header_rule rules[] = {
		{ "", 0, "X-All: 1\r\n", 10, false },
		{ "/assets/", 8, "Cache-Control: max-age=9\r\n", 26, false },
		{ "", 0, "Access-Control-Allow-Origin: *\r\n", 32, true },
	};
	struct http_response_head h = base(200);

	h.content_length = 0;
	h.rules = rules;
	h.nrules = ARRAY_SIZE(rules);
	h.path = "/assets/app.js";
	h.path_len = strlen(h.path);
	h.extra = "ETag: \"e\"\r\n";
	h.extra_len = strlen(h.extra);
	CHECK(head_is(&h, "HTTP/1.1 200 OK\r\nServer: sehttpd\r\n"
			  "Date: Sun, 06 Nov 1994 08:49:37 GMT\r\n"
			  "Content-Length: 0\r\n"
			  "ETag: \"e\"\r\n"
			  "X-All: 1\r\n"
			  "Cache-Control: max-age=9\r\n"
			  "Access-Control-Allow-Origin: *\r\n\r\n"));
	/* Another path: no prefixed rule; no path at all: the same. */
	h.extra = NULL;
	h.path = "/assets";
	h.path_len = 7;
	CHECK(head_is(&h, "HTTP/1.1 200 OK\r\nServer: sehttpd\r\n"
			  "Date: Sun, 06 Nov 1994 08:49:37 GMT\r\n"
			  "Content-Length: 0\r\n"
			  "X-All: 1\r\n"
			  "Access-Control-Allow-Origin: *\r\n\r\n"));
	h.path = NULL;
	h.path_len = 0;
	h.status = 304;
	CHECK(head_is(&h, "HTTP/1.1 304 Not Modified\r\nServer: sehttpd\r\n"
			  "Date: Sun, 06 Nov 1994 08:49:37 GMT\r\n"
			  "Content-Length: 0\r\n"
			  "X-All: 1\r\n"
			  "Access-Control-Allow-Origin: *\r\n\r\n"));
	/* Errors get the rules marked always only. */
	h.status = 404;
	h.path = "/assets/x";
	h.path_len = 9;
	CHECK(head_is(&h, "HTTP/1.1 404 Not Found\r\nServer: sehttpd\r\n"
			  "Date: Sun, 06 Nov 1994 08:49:37 GMT\r\n"
			  "Content-Length: 0\r\n"
			  "Access-Control-Allow-Origin: *\r\n\r\n"));
}

TEST(connection_header_by_version)
{
	struct http_response_head h = base(404);

	h.content_length = 0;
	/* 1.1 keep-alive: the default, nothing said. */
	CHECK(head_is(&h, "HTTP/1.1 404 Not Found\r\nServer: sehttpd\r\n"
			  "Date: Sun, 06 Nov 1994 08:49:37 GMT\r\n"
			  "Content-Length: 0\r\n\r\n"));
	h.keep_alive = false;
	CHECK(head_is(&h, "HTTP/1.1 404 Not Found\r\nServer: sehttpd\r\n"
			  "Date: Sun, 06 Nov 1994 08:49:37 GMT\r\n"
			  "Content-Length: 0\r\nConnection: close\r\n\r\n"));
	h.version_minor = 0;
	CHECK(head_is(&h, "HTTP/1.1 404 Not Found\r\nServer: sehttpd\r\n"
			  "Date: Sun, 06 Nov 1994 08:49:37 GMT\r\n"
			  "Content-Length: 0\r\nConnection: close\r\n\r\n"));
	/* 1.0 keep-alive must be said, or the client closes. */
	h.keep_alive = true;
	CHECK(head_is(&h, "HTTP/1.1 404 Not Found\r\nServer: sehttpd\r\n"
			  "Date: Sun, 06 Nov 1994 08:49:37 GMT\r\n"
			  "Content-Length: 0\r\n"
			  "Connection: keep-alive\r\n\r\n"));
}

TEST(extra_lines_and_other_server)
{
	struct http_response_head h = base(200);
	static const char extra[] = "Vary: Accept-Encoding\r\nX-A: b\r\n";

	h.server = "khttpd";
	h.extra = extra;
	h.extra_len = sizeof(extra) - 1;
	CHECK(head_is(&h, "HTTP/1.1 200 OK\r\nServer: khttpd\r\n"
			  "Date: Sun, 06 Nov 1994 08:49:37 GMT\r\n"
			  "Vary: Accept-Encoding\r\nX-A: b\r\n\r\n"));
}

/* A protected response, and the challenge the server adds as extra. */
TEST(private_and_challenge)
{
	struct http_response_head h = base(200);
	static const char challenge[] =
		"WWW-Authenticate: Basic realm=\"r\", charset=\"UTF-8\"\r\n";

	h.cache_private = true;
	h.content_length = 3;
	CHECK(head_is(&h, "HTTP/1.1 200 OK\r\nServer: sehttpd\r\n"
			  "Date: Sun, 06 Nov 1994 08:49:37 GMT\r\n"
			  "Content-Length: 3\r\n"
			  "Cache-Control: private\r\n\r\n"));
	h = base(401);
	h.extra = challenge;
	h.extra_len = sizeof(challenge) - 1;
	CHECK(head_is(&h, "HTTP/1.1 401 Unauthorized\r\nServer: sehttpd\r\n"
			  "Date: Sun, 06 Nov 1994 08:49:37 GMT\r\n"
			  "WWW-Authenticate: Basic realm=\"r\", "
			  "charset=\"UTF-8\"\r\n\r\n"));
}

TEST(unknown_status_reported_as_500)
{
	struct http_response_head h = base(299);

	CHECK(head_is(&h, "HTTP/1.1 500 Internal Server Error\r\n"
			  "Server: sehttpd\r\n"
			  "Date: Sun, 06 Nov 1994 08:49:37 GMT\r\n\r\n"));
	CHECK_EQ_STR(http_status_reason(299), "Internal Server Error");
	CHECK_EQ_STR(http_status_reason(0), "Internal Server Error");
	CHECK_EQ_STR(http_status_reason(-404), "Internal Server Error");
}

TEST(overflow_returns_zero_and_stays_in_bounds)
{
	struct http_response_head h = base(301);
	char full[512];
	size_t len;

	h.content_type = "text/html; charset=utf-8";
	h.content_length = 123;
	h.last_modified = 0;
	h.location = "/somewhere/";
	h.location_len = 11;
	h.allow_get_head = true;
	h.keep_alive = false;
	h.extra = "X: y\r\n";
	h.extra_len = 6;
	len = http_response_head_build(full, sizeof(full), &h);
	CHECK(len > 100);
	for (size_t cap = 0; cap < len; cap++) {
		char *buf = malloc(cap ? cap : 1);

		CHECK_EQ_INT(http_response_head_build(buf, cap, &h), 0);
		free(buf);
	}
	{
		char *buf = malloc(len);

		CHECK_EQ_INT(http_response_head_build(buf, len, &h), len);
		CHECK(!memcmp(buf, full, len));
		free(buf);
	}
}

TEST(reasons)
{
	static const struct {
		int code;
		const char *reason;
	} known[] = {
		{ 200, "OK" },
		{ 204, "No Content" },
		{ 206, "Partial Content" },
		{ 301, "Moved Permanently" },
		{ 304, "Not Modified" },
		{ 400, "Bad Request" },
		{ 401, "Unauthorized" },
		{ 403, "Forbidden" },
		{ 404, "Not Found" },
		{ 405, "Method Not Allowed" },
		{ 408, "Request Timeout" },
		{ 412, "Precondition Failed" },
		{ 414, "URI Too Long" },
		{ 416, "Range Not Satisfiable" },
		{ 431, "Request Header Fields Too Large" },
		{ 500, "Internal Server Error" },
		{ 501, "Not Implemented" },
		{ 503, "Service Unavailable" },
		{ 505, "HTTP Version Not Supported" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(known); i++) {
		struct http_response_head h = base(known[i].code);
		char line[128], buf[256];
		size_t n = http_response_head_build(buf, sizeof(buf), &h);
		int ln = snprintf(line, sizeof(line), "HTTP/1.1 %d %s\r\n",
				  known[i].code, known[i].reason);

		CHECK_EQ_STR(http_status_reason(known[i].code),
			     known[i].reason);
		CHECK(n > (size_t)ln && !memcmp(buf, line, (size_t)ln));
	}
}

TEST(error_bodies)
{
	static const int codes[] = { 400, 401, 403, 404, 405, 408,
				     414, 431, 500, 501, 505 };

	for (size_t i = 0; i < ARRAY_SIZE(codes); i++) {
		size_t len = 0;
		const char *body = http_error_body(codes[i], &len);
		char code[8];

		snprintf(code, sizeof(code), "%d", codes[i]);
		CHECK(body != NULL);
		CHECK_EQ_INT(len, strlen(body));
		CHECK(len > 0 && len < 512);
		CHECK(strstr(body, code) != NULL);
		CHECK(strstr(body, http_status_reason(codes[i])) != NULL);
		CHECK(!strncmp(body, "<!DOCTYPE html>", 15));
		CHECK(strstr(body, "</html>") != NULL);
	}
	{
		size_t len = 0;
		const char *body = http_error_body(299, &len);

		CHECK(body != NULL && strstr(body, "500") != NULL);
		CHECK_EQ_INT(len, strlen(body));
	}
}

TEST(status_for_errno)
{
	CHECK_EQ_INT(http_status_for_errno(ENOENT), 404);
	CHECK_EQ_INT(http_status_for_errno(ENOTDIR), 404);
	CHECK_EQ_INT(http_status_for_errno(ENAMETOOLONG), 404);
	CHECK_EQ_INT(http_status_for_errno(EACCES), 403);
	CHECK_EQ_INT(http_status_for_errno(EPERM), 403);
	CHECK_EQ_INT(http_status_for_errno(EXDEV), 403);
	CHECK_EQ_INT(http_status_for_errno(ELOOP), 403);
	CHECK_EQ_INT(http_status_for_errno(ENXIO), 403); /* a Unix socket */
	CHECK_EQ_INT(http_status_for_errno(ENODEV), 403);
	CHECK_EQ_INT(http_status_for_errno(EMFILE), 503);
	CHECK_EQ_INT(http_status_for_errno(ENFILE), 503);
	CHECK_EQ_INT(http_status_for_errno(ENOMEM), 503);
	/* Opened O_NONBLOCK, a file whose lease is being broken. */
	CHECK_EQ_INT(http_status_for_errno(EAGAIN), 503);
	CHECK_EQ_INT(http_status_for_errno(EIO), 500);
	CHECK_EQ_INT(http_status_for_errno(0), 500);
}
