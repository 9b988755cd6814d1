// SPDX-License-Identifier: MIT
/* Routing a parsed request to a path, and the directory redirect. */
#include "harness.h"

#include "http/route.h"

static int parse_req(const char *s, struct http_request *req)
{
	struct http_parser p;

	http_parser_init(&p);
	return http_parse_request(&p, req, s, strlen(s));
}

/* Routes "METHOD TARGET HTTP/1.1" and returns the result. */
static int route(const char *method, const char *target, char *path)
{
	char s[HTTP_MAX_HEAD];
	struct http_request req;
	int n = snprintf(s, sizeof(s), "%s %s HTTP/1.1\r\nHost: h\r\n\r\n",
			 method, target);

	if (parse_req(s, &req) != n) {
		fprintf(stderr, "  request \"%s %s\" did not parse\n", method,
			target);
		return -999;
	}
	return http_route(s, &req, path);
}

#define CHECK_ROUTE(method, target, want)              \
	do {                                           \
		char path_[HTTP_PATH_MAX];             \
		int r_ = route(method, target, path_); \
		CHECK_EQ_INT(r_, strlen(want));        \
		if (r_ >= 0)                           \
			CHECK_EQ_STR(path_, want);     \
	} while (0)

#define CHECK_ROUTE_ERR(method, target, status)                        \
	do {                                                           \
		char path_[HTTP_PATH_MAX];                             \
		CHECK_EQ_INT(route(method, target, path_), -(status)); \
	} while (0)

TEST(get_and_head_route_to_normalised_paths)
{
	CHECK_ROUTE("GET", "/", "/");
	CHECK_ROUTE("HEAD", "/index.html", "/index.html");
	CHECK_ROUTE("GET", "/a/./b/../c", "/a/c");
	CHECK_ROUTE("GET", "//index.html", "/index.html");
	CHECK_ROUTE("GET", "/%41.txt", "/A.txt");
	CHECK_ROUTE("GET", "/%2541", "/%41");
	CHECK_ROUTE("GET", "/dir/", "/dir/");
	CHECK_ROUTE("GET", "/a.txt?x=1", "/a.txt");
	CHECK_ROUTE("GET", "/a.txt?x=/../../etc", "/a.txt");
	CHECK_ROUTE("GET", "http://h/x/y", "/x/y");
	CHECK_ROUTE("GET", "http://h", "/");
	CHECK_ROUTE("GET", "http://h?q", "/");
	CHECK_ROUTE("GET", "http://h:80//a/../b/", "/b/");
}

TEST(methods_other_than_get_head_options_405)
{
	static const char *const m[] = { "POST",  "PUT",   "DELETE",
					 "PATCH", "TRACE", "CONNECT" };

	for (size_t i = 0; i < ARRAY_SIZE(m); i++) {
		CHECK_ROUTE_ERR(m[i], "/", 405);
		/* Before the target is even looked at. */
		CHECK_ROUTE_ERR(m[i], "*", 405);
		CHECK_ROUTE_ERR(m[i], "/..", 405);
	}
}

TEST(options_targets)
{
	/* "*": the server as a whole, no path. */
	CHECK_ROUTE("OPTIONS", "*", "");
	CHECK_ROUTE("OPTIONS", "/a/./b/../c", "/a/c");
	CHECK_ROUTE("OPTIONS", "/%41.txt?x", "/A.txt");
	CHECK_ROUTE("OPTIONS", "http://h", "/");
	CHECK_ROUTE("OPTIONS", "http://h/x/", "/x/");
	/* Anything else is refused as GET refuses it. */
	CHECK_ROUTE_ERR("OPTIONS", "x", 400);
	CHECK_ROUTE_ERR("OPTIONS", "*x", 400);
	CHECK_ROUTE_ERR("OPTIONS", "**", 400);
	CHECK_ROUTE_ERR("OPTIONS", "/../../etc/passwd", 400);
	CHECK_ROUTE_ERR("OPTIONS", "/%00", 400);
	CHECK_ROUTE_ERR("OPTIONS", "example.com:443", 400);
	CHECK_ROUTE_ERR("OPTIONS", "ftp://h/x", 400);
}

TEST(unusable_targets_400)
{
	CHECK_ROUTE_ERR("GET", "*", 400);
	CHECK_ROUTE_ERR("GET", "a/b", 400);
	CHECK_ROUTE_ERR("GET", "ftp://h/x", 400);
	/* "/a#b" never gets here: the parser refuses a '#' in a target. */
	CHECK_ROUTE_ERR("GET", "/%00", 400);
	CHECK_ROUTE_ERR("GET", "/%zz", 400);
	CHECK_ROUTE_ERR("GET", "/%4", 400);
	CHECK_ROUTE_ERR("GET", "/..", 400);
	CHECK_ROUTE_ERR("GET", "/../x", 400);
	CHECK_ROUTE_ERR("GET", "/a/../../x", 400);
	CHECK_ROUTE_ERR("GET", "/%2e%2e/", 400);
	CHECK_ROUTE_ERR("GET", "/..%2f..%2f", 400);
	CHECK_ROUTE_ERR("GET", "/%2e%2e%2fetc%2fpasswd", 400);
	CHECK_ROUTE_ERR("HEAD", "http://h/../x", 400);
}

TEST(longest_path_fits)
{
	/* The longest target a request line within limits can carry. */
	size_t tlen = HTTP_MAX_REQUEST_LINE - strlen("GET  HTTP/1.1");
	char *target = malloc(tlen + 1);
	char *path = malloc(HTTP_PATH_MAX); /* exact size, for ASan */
	int r;

	target[0] = '/';
	memset(target + 1, 'p', tlen - 1);
	target[tlen] = '\0';
	r = route("GET", target, path);
	CHECK_EQ_INT(r, tlen);
	CHECK_EQ_INT(path[r], '\0');
	CHECK(!memcmp(path, target, tlen));

	/* Absolute form with an empty path grows by one byte. */
	memcpy(target, "http://", 7);
	memset(target + 7, 'h', tlen - 7);
	r = route("GET", target, path);
	CHECK_EQ_INT(r, 1);
	CHECK_EQ_STR(path, "/");
	free(target);
	free(path);
}

/* The redirect for a request whose target is given. */
static size_t redirect(const char *target, char *out, size_t cap)
{
	char s[1024], path[HTTP_PATH_MAX];
	struct http_request req;
	int n;

	snprintf(s, sizeof(s), "GET %s HTTP/1.1\r\nHost: h\r\n\r\n", target);
	if (parse_req(s, &req) <= 0)
		return (size_t)-1;
	n = http_route(s, &req, path);
	if (n < 0)
		return (size_t)-1;
	return http_dir_redirect_location(out, cap, s, &req, path, (size_t)n);
}

#define CHECK_REDIRECT(target, want)                                     \
	do {                                                             \
		char out_[256];                                          \
		size_t len_ = redirect(target, out_, sizeof(out_));      \
		CHECK_EQ_MEM(out_, len_ == (size_t)-1 ? 0 : len_, want); \
	} while (0)

TEST(dir_redirect_location)
{
	CHECK_REDIRECT("/dir", "/dir/");
	CHECK_REDIRECT("/a/b", "/a/b/");
	CHECK_REDIRECT("/dir?x=1", "/dir/?x=1");
	CHECK_REDIRECT("/dir?", "/dir/?");
	CHECK_REDIRECT("/dir?a=b?c/d", "/dir/?a=b?c/d");
	/* Never a protocol-relative URL. */
	CHECK_REDIRECT("//dir", "/dir/");
	CHECK_REDIRECT("//evil.com", "/evil.com/");
	CHECK_REDIRECT("/%2fevil.com", "/evil.com/");
	CHECK_REDIRECT("/%5cevil.com", "/%5Cevil.com/");
	/* The decoded path is re-encoded. */
	CHECK_REDIRECT("/a%20b", "/a%20b/");
	CHECK_REDIRECT("/%3f%23", "/%3F%23/");
	CHECK_REDIRECT("/%c3%bc", "/%C3%BC/");
	CHECK_REDIRECT("/a/../d%41r", "/dAr/");
	CHECK_REDIRECT("/~x_y-z.w", "/~x_y-z.w/");
	CHECK_REDIRECT("http://h/d?q", "/d/?q");
	/* The query kept, but as a valid URI: what it may not hold as it is
	 * is percent-encoded, escapes sent stay (before, copied raw). */
	CHECK_REDIRECT("/dir?a=\xff<s>\"{|}^`",
		       "/dir/?a=%FF%3Cs%3E%22%7B%7C%7D%5E%60");
	CHECK_REDIRECT("/dir?a=%20b&c=d;e:f@g!$'()*+,~",
		       "/dir/?a=%20b&c=d;e:f@g!$'()*+,~");
}

TEST(dir_redirect_capacity)
{
	char s[] = "GET /dir?q=1 HTTP/1.1\r\nHost: h\r\n\r\n";
	char plain[] = "GET /dir HTTP/1.1\r\nHost: h\r\n\r\n";
	struct http_request req;
	char out[32];

	CHECK(parse_req(s, &req) > 0);
	/* "/dir/?q=1" is 9 bytes. */
	CHECK_EQ_INT(http_dir_redirect_location(out, 9, s, &req, "/dir", 4), 9);
	CHECK_EQ_MEM(out, 9, "/dir/?q=1");
	CHECK_EQ_INT(http_dir_redirect_location(out, 8, s, &req, "/dir", 4), 0);
	CHECK_EQ_INT(http_dir_redirect_location(out, 4, s, &req, "/dir", 4), 0);
	CHECK_EQ_INT(http_dir_redirect_location(out, 0, s, &req, "/dir", 4), 0);

	CHECK(parse_req(plain, &req) > 0);
	CHECK_EQ_INT(http_dir_redirect_location(out, 5, plain, &req, "/dir", 4),
		     5);
	CHECK_EQ_MEM(out, 5, "/dir/");
	CHECK_EQ_INT(http_dir_redirect_location(out, 4, plain, &req, "/dir", 4),
		     0);
	/* Encoding growth counts against the capacity too. */
	CHECK_EQ_INT(http_dir_redirect_location(out, 4, plain, &req, "/ ", 2),
		     0);
	CHECK_EQ_INT(http_dir_redirect_location(out, 5, plain, &req, "/ ", 2),
		     5);
	CHECK_EQ_MEM(out, 5, "/%20/");
}

/* --http-redirect's Location for a request with the given head. */
static size_t https_location(const char *head, uint16_t port, char *out,
			     size_t cap)
{
	char s[1024];
	struct http_request req;

	snprintf(s, sizeof(s), "%s\r\n\r\n", head);
	if (parse_req(s, &req) <= 0)
		return (size_t)-1;
	return http_https_location(out, cap, s, &req, port);
}

#define CHECK_HTTPS(head, port, want)                                         \
	do {                                                                  \
		char out_[256];                                               \
		size_t len_ = https_location(head, port, out_, sizeof(out_)); \
		CHECK_EQ_MEM(out_, len_ == (size_t)-1 ? 0 : len_, want);      \
	} while (0)

TEST(https_location)
{
	char out[64];

	CHECK_HTTPS("GET /a/b?x=1 HTTP/1.1\r\nHost: example.com:8080", 8443,
		    "https://example.com:8443/a/b?x=1");
	CHECK_HTTPS("GET / HTTP/1.1\r\nHost: example.com", 443,
		    "https://example.com/");
	CHECK_HTTPS("GET /%20 HTTP/1.1\r\nHost: [::1]:80", 0,
		    "https://[::1]/%20");
	/* An absolute-form target's authority wins over Host. */
	CHECK_HTTPS("GET http://h/p?q HTTP/1.1\r\nHost: example.com", 4443,
		    "https://h:4443/p?q");
	CHECK_HTTPS("GET http://h:80 HTTP/1.1\r\nHost: example.com", 443,
		    "https://h/");
	CHECK_HTTPS("GET http://[::1]:8080?x HTTP/1.1\r\nHost: e", 8443,
		    "https://[::1]:8443/?x");
	/* A valid URI: what a path or query may not hold as it is goes
	 * percent-encoded, escapes the client sent are kept. */
	CHECK_HTTPS("GET /a\"b<c>\\^`|%41 HTTP/1.1\r\nHost: h", 443,
		    "https://h/a%22b%3Cc%3E%5C%5E%60%7C%41");
	CHECK_HTTPS("GET /\xc3\xa9?q={x}&r=\xff/?%7e HTTP/1.1\r\nHost: h", 443,
		    "https://h/%C3%A9?q=%7Bx%7D&r=%FF/?%7e");
	CHECK_HTTPS("GET http://h?\"x\" HTTP/1.1\r\nHost: e", 443,
		    "https://h/?%22x%22");
	/* Nowhere to send the client to. */
	CHECK_EQ_INT(https_location("GET / HTTP/1.0", 443, out, sizeof(out)),
		     0);
	CHECK_EQ_INT(https_location("GET / HTTP/1.1\r\nHost: :80", 443, out,
				    sizeof(out)),
		     0);
	CHECK_EQ_INT(https_location("OPTIONS * HTTP/1.1\r\nHost: h", 443, out,
				    sizeof(out)),
		     0);
	/* A valid URI, as a directory's redirect: what a URI may not hold as
	 * it is goes percent-encoded, escapes sent stay as they were. */
	CHECK_HTTPS("GET /a\"b{c}%20 HTTP/1.1\r\nHost: h", 443,
		    "https://h/a%22b%7Bc%7D%20");
	CHECK_HTTPS("GET /p?q=<x>^|&r=%7B HTTP/1.1\r\nHost: h", 443,
		    "https://h/p?q=%3Cx%3E%5E%7C&r=%7B");
	CHECK_EQ_INT(https_location("GET /{?{ HTTP/1.1\r\nHost: h", 443, out,
				    16),
		     0);
	CHECK_EQ_INT(https_location("GET /{?{ HTTP/1.1\r\nHost: h", 443, out,
				    17),
		     17);
	/* Too long for the buffer: nothing, never a cut URL. */
	CHECK_EQ_INT(https_location("GET /abcdef HTTP/1.1\r\nHost: h", 443, out,
				    14),
		     0);
	CHECK_EQ_INT(https_location("GET /abcdef HTTP/1.1\r\nHost: h", 443, out,
				    16),
		     16);
}

/* The authority a request with the given head names, as sent; "" none. */
static void check_authority(const char *head, const char *want,
			    const char *want_host)
{
	char s[1024];
	struct http_request req;
	const char *p;
	size_t n;

	snprintf(s, sizeof(s), "%s\r\n\r\n", head);
	CHECK(parse_req(s, &req) > 0);
	n = http_request_authority(s, &req, &p);
	CHECK_EQ_MEM(n ? p : "", n, want);
	/* The same host the vhost is chosen by, less the port. */
	n = http_request_host(s, &req, &p);
	CHECK_EQ_MEM(n ? p : "", n, want_host);
}

TEST(request_authority)
{
	check_authority("GET /a HTTP/1.1\r\nHost: example.com:8080",
			"example.com:8080", "example.com");
	/* An absolute-form target's authority wins over Host. */
	check_authority("GET http://h.test:81/p?q HTTP/1.1\r\nHost: e",
			"h.test:81", "h.test");
	check_authority("GET https://[::1]?x HTTP/1.1\r\nHost: e", "[::1]",
			"[::1]");
	check_authority("GET http://h HTTP/1.1\r\nHost: e", "h", "h");
	/* "*" is the server Host names; no vhost is chosen for it. */
	check_authority("OPTIONS * HTTP/1.1\r\nHost: h:1", "h:1", "");
	/* None: no Host, an empty one. */
	check_authority("GET / HTTP/1.0", "", "");
	check_authority("GET / HTTP/1.1\r\nHost: ", "", "");
}
