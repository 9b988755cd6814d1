// SPDX-License-Identifier: MIT
/* Hidden paths, extensions, index names and the CORS preflight headers. */
#include "harness.h"

#include "http/site.h"

static bool hidden(const char *path)
{
	return http_path_hidden(path, strlen(path));
}

static bool has_ext(const char *path)
{
	return http_path_has_extension(path, strlen(path));
}

TEST(dot_segments_are_hidden)
{
	CHECK(!hidden("/"));
	CHECK(!hidden("/a/b.txt"));
	CHECK(!hidden("/a./b"));
	CHECK(hidden("/.git"));
	CHECK(hidden("/.git/"));
	CHECK(hidden("/.git/config"));
	CHECK(hidden("/a/.env"));
	CHECK(hidden("/a/.d/b"));
	CHECK(hidden("/.well-knownx/a"));
	CHECK(hidden("/a/.well-known/x"));
}

TEST(well_known_is_public)
{
	CHECK(!hidden("/.well-known"));
	CHECK(!hidden("/.well-known/"));
	CHECK(!hidden("/.well-known/security.txt"));
	CHECK(!hidden("/.well-known/acme-challenge/tok"));
	CHECK(hidden("/.well-known/.hidden"));
}

static bool entry_hidden(const char *dir, const char *name)
{
	return http_entry_hidden(dir, strlen(dir), name, strlen(name));
}

TEST(names)
{
	CHECK(entry_hidden("/", ".env"));
	CHECK(entry_hidden("/a/", ".env"));
	CHECK(!entry_hidden("/", "a.b"));
	CHECK(!entry_hidden("/", ""));
	/* Listed where it is served: in ROOT only. */
	CHECK(!entry_hidden("/", ".well-known"));
	CHECK(entry_hidden("/a/", ".well-known"));
	CHECK(entry_hidden("/.well-known/", ".well-known"));
	CHECK(entry_hidden("/", ".well-knownx"));
	CHECK(entry_hidden("/", ".well-know"));
	CHECK(entry_hidden("/.well-known/", ".hidden"));
	CHECK(!entry_hidden("/.well-known/", "security.txt"));
	CHECK_EQ_STR(http_default_index[0], "index.html");
	CHECK_EQ_STR(http_default_index[1], "index.htm");
}

TEST(extensions)
{
	CHECK(has_ext("/app.js"));
	CHECK(has_ext("/a/b/c.tar.gz"));
	CHECK(!has_ext("/"));
	CHECK(!has_ext("/users/42"));
	CHECK(!has_ext("/v1.2/users"));
	CHECK(!has_ext("/a/"));
	CHECK(!has_ext("/a/.profile"));
}

static int parse_str(const char *s, struct http_request *req)
{
	struct http_parser p;

	http_parser_init(&p);
	return http_parse_request(&p, req, s, strlen(s));
}

TEST(preflight)
{
	static const char s[] =
		"OPTIONS /a HTTP/1.1\r\nHost: h\r\n"
		"Origin: https://o.example\r\n"
		"Access-Control-Request-Method: GET\r\n"
		"Access-Control-Request-Headers: x-a, range\r\n\r\n";
	struct http_request req;
	char out[HTTP_CORS_PREFLIGHT_MAX];
	size_t n;

	CHECK(parse_str(s, &req) > 0);
	CHECK(http_is_cors_preflight(&req));
	n = http_cors_preflight_headers(out, sizeof(out), s, &req, 600);
	CHECK_EQ_INT(n, strlen("Access-Control-Allow-Methods: GET, HEAD, "
			       "OPTIONS\r\n"
			       "Access-Control-Allow-Headers: x-a, range\r\n"
			       "Access-Control-Max-Age: 600\r\n"
			       "Vary: Access-Control-Request-Headers\r\n"));
	out[n] = '\0';
	CHECK_EQ_STR(out, "Access-Control-Allow-Methods: GET, HEAD, OPTIONS\r\n"
			  "Access-Control-Allow-Headers: x-a, range\r\n"
			  "Access-Control-Max-Age: 600\r\n"
			  "Vary: Access-Control-Request-Headers\r\n");
	CHECK_EQ_INT(http_cors_preflight_headers(out, 20, s, &req, 600), 0);
}

TEST(preflight_without_or_with_odd_headers)
{
	static const char plain[] = "OPTIONS * HTTP/1.1\r\nHost: h\r\n\r\n";
	static const char odd[] =
		"OPTIONS /a HTTP/1.1\r\nHost: h\r\n"
		"Origin: null\r\n"
		"Access-Control-Request-Method: GET\r\n"
		"Access-Control-Request-Headers: a\"b\r\n\r\n";
	struct http_request req;
	char out[HTTP_CORS_PREFLIGHT_MAX];
	size_t n;

	CHECK(parse_str(plain, &req) > 0);
	CHECK(!http_is_cors_preflight(&req));
	CHECK(parse_str(odd, &req) > 0);
	CHECK(http_is_cors_preflight(&req));
	n = http_cors_preflight_headers(out, sizeof(out) - 1, odd, &req, 5);
	out[n] = '\0';
	CHECK(!strstr(out, "Allow-Headers"));
	CHECK(strstr(out, "Access-Control-Max-Age: 5\r\n") != NULL);
}

/* A list of tokens too long to echo: the rest of the answer still goes
 * (before, nothing but Allow-Origin did). */
TEST(preflight_with_a_long_list)
{
	static char s[8192];
	struct http_request req;
	char out[HTTP_CORS_PREFLIGHT_MAX];
	size_t n = (size_t)snprintf(s, sizeof(s),
				    "OPTIONS /a HTTP/1.1\r\nHost: h\r\n"
				    "Origin: https://o.example\r\n"
				    "Access-Control-Request-Method: GET\r\n"
				    "Access-Control-Request-Headers: ");

	memset(s + n, 'a', 7000);
	memcpy(s + n + 7000, "\r\n\r\n", 5);
	CHECK(parse_str(s, &req) > 0);
	CHECK(http_is_cors_preflight(&req));
	n = http_cors_preflight_headers(out, sizeof(out) - 1, s, &req, 7);
	out[n] = '\0';
	CHECK_EQ_STR(out, "Access-Control-Allow-Methods: GET, HEAD, OPTIONS\r\n"
			  "Access-Control-Max-Age: 7\r\n"
			  "Vary: Access-Control-Request-Headers\r\n");
}
