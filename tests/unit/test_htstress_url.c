// SPDX-License-Identifier: MIT
/* Unit tests of htstress's URL parsing (tools/htstress/url.c). */
#include "harness.h"

#include "../../tools/htstress/url.h"

static struct hts_url url;
static char err[256];

static bool parses(const char *s)
{
	err[0] = '\0';
	return hts_url_parse(s, &url, err, sizeof(err)) == 0;
}

/* A refused URL gives a one-line reason. */
static bool refused(const char *s)
{
	err[0] = '\0';
	if (hts_url_parse(s, &url, err, sizeof(err)) == 0)
		return false;
	return err[0] != '\0' && !strchr(err, '\n');
}

TEST(host_only)
{
	CHECK(parses("http://example.com"));
	CHECK_EQ_STR(url.host, "example.com");
	CHECK_EQ_STR(url.port, "80");
	CHECK_EQ_INT(url.port_num, 80);
	CHECK_EQ_STR(url.path, "/");
	CHECK_EQ_STR(url.authority, "example.com");
	CHECK(!url.ipv6_literal);
}

TEST(trailing_slash_and_path)
{
	CHECK(parses("http://example.com/"));
	CHECK_EQ_STR(url.path, "/");
	CHECK(parses("http://example.com/a/b.html"));
	CHECK_EQ_STR(url.path, "/a/b.html");
}

TEST(port_query_and_fragment)
{
	CHECK(parses("http://localhost:8080/x/y?q=1&r=%20#frag"));
	CHECK_EQ_STR(url.host, "localhost");
	CHECK_EQ_STR(url.port, "8080");
	CHECK_EQ_INT(url.port_num, 8080);
	CHECK_EQ_STR(url.authority, "localhost:8080");
	CHECK_EQ_STR(url.path, "/x/y?q=1&r=%20");
}

TEST(query_without_path)
{
	CHECK(parses("http://h?x=1"));
	CHECK_EQ_STR(url.host, "h");
	CHECK_EQ_STR(url.path, "/?x=1");
	CHECK(parses("http://h#top"));
	CHECK_EQ_STR(url.path, "/");
}

TEST(scheme_is_case_insensitive)
{
	CHECK(parses("HTTP://Example.COM:81"));
	CHECK_EQ_STR(url.host, "Example.COM");
	CHECK_EQ_STR(url.authority, "Example.COM:81");
}

TEST(ipv4_address)
{
	CHECK(parses("http://127.0.0.1:80/index.html"));
	CHECK_EQ_STR(url.host, "127.0.0.1");
	CHECK_EQ_INT(url.port_num, 80);
	/* The default port is left out of Host. */
	CHECK_EQ_STR(url.authority, "127.0.0.1");
	CHECK_EQ_STR(url.path, "/index.html");
}

TEST(ipv6_address)
{
	CHECK(parses("http://[::1]:8080/x"));
	CHECK_EQ_STR(url.host, "::1");
	CHECK(url.ipv6_literal);
	CHECK_EQ_INT(url.port_num, 8080);
	CHECK_EQ_STR(url.authority, "[::1]:8080");
	CHECK_EQ_STR(url.path, "/x");
	CHECK(parses("http://[2001:db8::a:1]"));
	CHECK_EQ_STR(url.host, "2001:db8::a:1");
	CHECK_EQ_STR(url.authority, "[2001:db8::a:1]");
	CHECK_EQ_STR(url.path, "/");
	CHECK(parses("http://[::ffff:127.0.0.1]:1/"));
	CHECK_EQ_STR(url.host, "::ffff:127.0.0.1");
}

TEST(port_limits)
{
	CHECK(parses("http://h:1/"));
	CHECK_EQ_INT(url.port_num, 1);
	CHECK(parses("http://h:65535/"));
	CHECK_EQ_INT(url.port_num, 65535);
	CHECK_EQ_STR(url.port, "65535");
	CHECK(parses("http://h:00080/"));
	CHECK_EQ_INT(url.port_num, 80);
	/* An empty port is the default one (RFC 3986, 3.2.3). */
	CHECK(parses("http://h:/"));
	CHECK_EQ_INT(url.port_num, 80);
}

TEST(refuses_empty_and_schemeless)
{
	CHECK(refused(""));
	CHECK(refused("example.com"));
	CHECK(refused("example.com:80/x"));
	CHECK(refused("/index.html"));
	CHECK(refused("http:/example.com"));
	CHECK(refused("http:example.com"));
}

TEST(refuses_other_schemes)
{
	CHECK(refused("https://example.com/"));
	CHECK(strstr(err, "https") != NULL);
	CHECK(refused("ftp://example.com/"));
	CHECK(refused("httpx://example.com/"));
}

TEST(refuses_missing_host)
{
	CHECK(refused("http://"));
	CHECK(refused("http:///x"));
	CHECK(refused("http://:80/"));
	CHECK(refused("http://?x"));
}

TEST(refuses_bad_ports)
{
	CHECK(refused("http://h:0/"));
	CHECK(strstr(err, "port") != NULL);
	CHECK(refused("http://h:65536/"));
	CHECK(refused("http://h:99999/"));
	CHECK(refused("http://h:123456/"));
	CHECK(refused("http://h:abc/"));
	CHECK(refused("http://h:-1/"));
	CHECK(refused("http://h:+80/"));
	CHECK(refused("http://h:8 0/"));
	CHECK(refused("http://h:80:80/"));
	CHECK(refused("http://h:184467440737095516160/"));
}

TEST(refuses_bad_ipv6)
{
	CHECK(refused("http://[::1/x"));
	CHECK(strstr(err, "[") != NULL);
	CHECK(refused("http://[::1"));
	CHECK(refused("http://[/"));
	CHECK(refused("http://[]/"));
	CHECK(refused("http://[zz::1]/"));
	CHECK(refused("http://[127.0.0.1]/"));
	CHECK(refused("http://[::1]x/"));
	CHECK(refused("http://[::1]:0/"));
	CHECK(refused("http://::1/"));
	CHECK(refused("http://[::1%eth0]/"));
}

TEST(refuses_bad_hosts_and_paths)
{
	CHECK(refused("http://user:pw@h/"));
	CHECK(refused("http://ex ample.com/"));
	CHECK(refused("http://h\x80/"));
	CHECK(refused("http://h/a b"));
	CHECK(refused("http://h/a\tb"));
	CHECK(refused("http://h/a\r\nX-Injected: 1"));
	CHECK(refused("http://h/\x7f"));
	CHECK(refused("http://h/\xc3\xa9"));
}

TEST(refuses_huge_input)
{
	size_t n = 100000;
	char *s = malloc(n + 1);
	static const char prefix[] = "http://h/";

	memcpy(s, prefix, sizeof(prefix) - 1);
	memset(s + sizeof(prefix) - 1, 'a', n - (sizeof(prefix) - 1));
	s[n] = '\0';
	CHECK(refused(s));

	/* A host name longer than DNS allows. */
	memcpy(s, "http://", 7);
	memset(s + 7, 'a', 300);
	strcpy(s + 307, "/x");
	CHECK(refused(s));

	/* A long path within the limit is fine and kept whole. */
	memcpy(s, prefix, sizeof(prefix) - 1);
	memset(s + sizeof(prefix) - 1, 'b', HTS_URL_MAX - sizeof(prefix) + 1);
	s[HTS_URL_MAX] = '\0';
	CHECK(parses(s));
	CHECK_EQ_INT(strlen(url.path), HTS_URL_MAX - 8);
	free(s);
}
