// SPDX-License-Identifier: MIT
/* Virtual hosts: names normalised, wildcards, and a request's host. */
#include "harness.h"

#include "http/route.h"
#include "http/vhost.h"

/* The normalised form of s, or "" when it is not a DNS name. */
static const char *normalized(const char *s)
{
	static char out[HTTP_VHOST_NAME_MAX + 1];
	size_t n = http_vhost_normalize(s, strlen(s), out);

	out[n] = '\0';
	return out;
}

TEST(names_normalized)
{
	CHECK_EQ_STR(normalized("example.com"), "example.com");
	CHECK_EQ_STR(normalized("Example.COM"), "example.com");
	CHECK_EQ_STR(normalized("a.example.com."), "a.example.com");
	CHECK_EQ_STR(normalized("localhost"), "localhost");
	CHECK_EQ_STR(normalized("xn--bcher-kva.example"),
		     "xn--bcher-kva.example");
	CHECK_EQ_STR(normalized("127.0.0.1"), "127.0.0.1");
	CHECK_EQ_STR(normalized("a-b.c-d"), "a-b.c-d");
}

TEST(not_names)
{
	static const char *const bad[] = {
		"",	 ".",	  "..",	    "a..b",	   ".a",
		"a.b..", "a%2eb", "%2e%2e", "a_b.example", "[::1]",
		"::1",	 "a b",	  "a/b",    "a\\b",	   "*.a",
		"a.*",	 "a\tb",  "a:80",   "\xc3\xa9.fr", "a\rb",
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (*normalized(bad[i]))
			fprintf(stderr, "  accepted: \"%s\"\n", bad[i]);
		CHECK_EQ_STR(normalized(bad[i]), "");
	}
	/* A NUL ends nothing: it is not part of a name. */
	CHECK_EQ_INT(http_vhost_normalize("a\0b", 3,
					  (char[HTTP_VHOST_NAME_MAX]){ 0 }),
		     0);
}

TEST(name_limits)
{
	char name[600];

	/* A label of 63 bytes, not 64. */
	memset(name, 'a', 63);
	strcpy(name + 63, ".test");
	CHECK_EQ_INT(strlen(normalized(name)), 68);
	memset(name, 'a', 64);
	strcpy(name + 64, ".test");
	CHECK_EQ_STR(normalized(name), "");
	/* 253 bytes in all (plus a trailing dot), not 254. */
	for (size_t i = 0; i < 253; i++)
		name[i] = i % 2 ? '.' : 'a';
	name[253] = '\0';
	CHECK_EQ_INT(strlen(normalized(name)), 253);
	name[253] = '.';
	name[254] = '\0';
	CHECK_EQ_INT(strlen(normalized(name)), 253);
	name[253] = 'a';
	CHECK_EQ_STR(normalized(name), "");
	memset(name, 'a', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	CHECK_EQ_STR(normalized(name), "");
}

/* Reads pattern into v (with its own buffer); false when refused. */
static bool init(struct http_vhost *v, char *buf, const char *pattern)
{
	return http_vhost_init(v, pattern, strlen(pattern), buf);
}

TEST(patterns)
{
	char buf[HTTP_VHOST_NAME_MAX];
	struct http_vhost v;

	CHECK(init(&v, buf, "Example.COM."));
	CHECK(!v.wildcard);
	CHECK_EQ_MEM(v.name, v.len, "example.com");
	CHECK(init(&v, buf, "*.Example.com"));
	CHECK(v.wildcard);
	CHECK_EQ_MEM(v.name, v.len, "example.com");
	CHECK(init(&v, buf, "*.test"));
	CHECK(v.wildcard);
	static const char *const bad[] = {
		"",	"*",	 "*.",	 "**.a", "*a.b",  "a.*.b",
		"a.*",	"*.*.a", ".a",	 "a..b", "a_b",	  "[::1]",
		"a:80", "a=b",	 "*..a", "* .a", "a.b..",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		bool ok = init(&v, buf, bad[i]);

		if (ok)
			fprintf(stderr, "  accepted: \"%s\"\n", bad[i]);
		CHECK(!ok);
	}
}

TEST(same_names)
{
	char b1[HTTP_VHOST_NAME_MAX], b2[HTTP_VHOST_NAME_MAX];
	struct http_vhost a, b;

	CHECK(init(&a, b1, "A.test") && init(&b, b2, "a.test."));
	CHECK(http_vhost_same(&a, &b));
	CHECK(init(&b, b2, "*.a.test"));
	CHECK(!http_vhost_same(&a, &b));
	CHECK(init(&a, b1, "*.A.TEST"));
	CHECK(http_vhost_same(&a, &b));
	CHECK(init(&b, b2, "*.b.test"));
	CHECK(!http_vhost_same(&a, &b));
}

/* Configured names, as --vhost gives them, in this order. */
static const char *const names[] = {
	"*.example.com",   "www.example.com", "example.com",
	"*.b.example.com", "other.test",
};
#define NNAMES (sizeof(names) / sizeof(names[0]))

static struct http_vhost vhosts[NNAMES];
static char vhost_bufs[NNAMES][HTTP_VHOST_NAME_MAX];

static void init_vhosts(void)
{
	for (size_t i = 0; i < NNAMES; i++)
		CHECK(init(&vhosts[i], vhost_bufs[i], names[i]));
}

/* The index of the vhost serving host (as a request sends it). */
static int match(const char *host)
{
	char name[HTTP_VHOST_NAME_MAX];
	size_t n = http_vhost_normalize(host, strlen(host), name);

	return n ? http_vhost_match(vhosts, NNAMES, name, n) : -1;
}

TEST(matching)
{
	init_vhosts();
	CHECK_EQ_INT(match("example.com"), 2);
	CHECK_EQ_INT(match("www.example.com"), 1); /* exact over wildcard */
	CHECK_EQ_INT(match("WWW.Example.Com."), 1);
	CHECK_EQ_INT(match("a.example.com"), 0);
	CHECK_EQ_INT(match("a.www.example.com"), 0); /* one or more labels */
	CHECK_EQ_INT(match("x.y.z.example.com"), 0);
	CHECK_EQ_INT(match("b.example.com"), 0);
	CHECK_EQ_INT(match("a.b.example.com"), 3); /* the longest wildcard */
	CHECK_EQ_INT(match("a.c.b.example.com"), 3);
	CHECK_EQ_INT(match("other.test"), 4);
	CHECK_EQ_INT(match("x.other.test"), -1);
	CHECK_EQ_INT(match("example.org"), -1);
	CHECK_EQ_INT(match("aexample.com"), -1); /* not a label boundary */
	CHECK_EQ_INT(match("xample.com"), -1);
	CHECK_EQ_INT(match("com"), -1);
	CHECK_EQ_INT(match(".example.com"), -1);
	CHECK_EQ_INT(match("a..example.com"), -1);
	CHECK_EQ_INT(match("example.com.."), -1);
	CHECK_EQ_INT(match("example.com.evil"), -1);
	CHECK_EQ_INT(match("other.test.example.com"), 0);
	/* Without the wildcard, the apex stays exact only. */
	CHECK_EQ_INT(http_vhost_match(vhosts + 1, 1, "a.example.com", 13), -1);
	CHECK_EQ_INT(http_vhost_match(vhosts, 0, "example.com", 11), -1);
}

/* The vhost index for a whole request head. */
static int for_request(const char *head)
{
	struct http_parser p;
	struct http_request req;
	int r;

	http_parser_init(&p);
	r = http_parse_request(&p, &req, head, strlen(head));
	if (r != (int)strlen(head)) {
		fprintf(stderr, "  did not parse (%d): %s\n", r, head);
		return -999;
	}
	return http_vhost_for_request(vhosts, NNAMES, head, &req);
}

TEST(requests)
{
	static char head[HTTP_MAX_HEAD];
	size_t n;

	init_vhosts();
	CHECK_EQ_INT(for_request("GET / HTTP/1.1\r\nHost: example.com\r\n\r\n"),
		     2);
	CHECK_EQ_INT(for_request("GET / HTTP/1.1\r\n"
				 "Host: A.Example.COM.:8080\r\n\r\n"),
		     0);
	CHECK_EQ_INT(for_request("GET / HTTP/1.1\r\nHost: other.test:\r\n\r\n"),
		     4);
	/* No host, or one no name can be: the default site. */
	CHECK_EQ_INT(for_request("GET / HTTP/1.0\r\n\r\n"), -1);
	CHECK_EQ_INT(for_request("GET / HTTP/1.1\r\nHost: \r\n\r\n"), -1);
	CHECK_EQ_INT(for_request("GET / HTTP/1.1\r\nHost: [::1]:80\r\n\r\n"),
		     -1);
	CHECK_EQ_INT(
		for_request("GET / HTTP/1.1\r\nHost: 127.0.0.1:80\r\n\r\n"),
		-1);
	CHECK_EQ_INT(for_request("GET / HTTP/1.1\r\n"
				 "Host: www%2eexample.com\r\n\r\n"),
		     -1);
	CHECK_EQ_INT(for_request("GET / HTTP/1.1\r\n"
				 "Host: other.test%2e\r\n\r\n"),
		     -1);
	CHECK_EQ_INT(for_request("GET / HTTP/1.1\r\n"
				 "Host: ..example.com\r\n\r\n"),
		     -1);
	CHECK_EQ_INT(for_request("OPTIONS * HTTP/1.1\r\n"
				 "Host: example.com\r\n\r\n"),
		     -1);
	/* The absolute form's authority over Host (RFC 9112 3.2.2). */
	CHECK_EQ_INT(for_request("GET http://other.test:81/x HTTP/1.1\r\n"
				 "Host: example.com\r\n\r\n"),
		     4);
	CHECK_EQ_INT(for_request("GET http://Other.Test. HTTP/1.1\r\n"
				 "Host: example.com\r\n\r\n"),
		     4);
	CHECK_EQ_INT(for_request("GET https://[::1]/ HTTP/1.1\r\n"
				 "Host: example.com\r\n\r\n"),
		     -1);
	/* A host longer than any name, ending in one. */
	n = (size_t)snprintf(head, sizeof(head), "GET / HTTP/1.1\r\nHost: ");
	for (size_t i = 0; i < 4000; i++)
		head[n++] = i % 2 ? '.' : 'a';
	n += (size_t)snprintf(head + n, sizeof(head) - n,
			      "example.com\r\n\r\n");
	CHECK_EQ_INT(for_request(head), -1);
	/* None configured: never a vhost, whatever the host. */
	{
		struct http_parser p;
		struct http_request req;
		const char *s = "GET / HTTP/1.1\r\nHost: example.com\r\n\r\n";

		http_parser_init(&p);
		CHECK(http_parse_request(&p, &req, s, strlen(s)) > 0);
		CHECK_EQ_INT(http_vhost_for_request(vhosts, 0, s, &req), -1);
	}
}

/* The host http_request_host() reads, as a string. */
static const char *request_host(const char *head)
{
	static char out[256];
	struct http_parser p;
	struct http_request req;
	const char *host;
	size_t n;

	http_parser_init(&p);
	if (http_parse_request(&p, &req, head, strlen(head)) <= 0)
		return "(unparsed)";
	n = http_request_host(head, &req, &host);
	snprintf(out, sizeof(out), "%.*s", (int)n, n ? host : "");
	return out;
}

TEST(request_host)
{
	CHECK_EQ_STR(request_host("GET / HTTP/1.1\r\nHost: h:80\r\n\r\n"), "h");
	CHECK_EQ_STR(request_host("GET / HTTP/1.1\r\nHost: [::1]:8\r\n\r\n"),
		     "[::1]");
	CHECK_EQ_STR(request_host("GET / HTTP/1.1\r\nHost: h\r\n\r\n"), "h");
	CHECK_EQ_STR(
		request_host("GET http://a:1/ HTTP/1.1\r\nHost: h\r\n\r\n"),
		"a");
	CHECK_EQ_STR(request_host("GET http://a?q HTTP/1.1\r\nHost: h\r\n\r\n"),
		     "a");
	CHECK_EQ_STR(request_host("GET / HTTP/1.0\r\n\r\n"), "");
	CHECK_EQ_STR(request_host("OPTIONS * HTTP/1.1\r\nHost: h\r\n\r\n"), "");
}
