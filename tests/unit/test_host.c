// SPDX-License-Identifier: MIT
/* The Host field's syntax: RFC 9112 3.2 with RFC 3986's uri-host. */
#include "harness.h"

#include "http/host.h"

#define VALID(lit) http_host_valid(lit, sizeof(lit) - 1)

TEST(valid_hosts)
{
	static const char *const good[] = {
		"",
		"h",
		"example.com",
		"example.com:8080",
		"h:",
		"localhost:0",
		"127.0.0.1",
		"127.0.0.1:80",
		"999.1.1.1", /* not an IPv4 address, but a valid reg-name */
		"xn--bcher-kva.example",
		"a-b_c~d!$&'()*+,;=e",
		"a%20b%7E",
		"[::1]",
		"[::1]:8080",
		"[::]",
		"[2001:db8::7]",
		"[2001:DB8:0:0:8:800:200C:417A]",
		"[1::]",
		"[::ffff:192.0.2.1]",
		"[1:2:3:4:5:6:1.2.3.4]",
		"[v1.x:y]",
		"[vF.a]:1",
	};

	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		if (!http_host_valid(good[i], strlen(good[i])))
			fprintf(stderr, "  refused: %s\n", good[i]);
		CHECK(http_host_valid(good[i], strlen(good[i])));
	}
}

TEST(invalid_hosts)
{
	static const char *const bad[] = {
		"a b",		"x/y?z",
		"\"bad\"",	"x\xff",
		"[::1",		"x:notaport",
		"x:80:80",	"x:8a",
		"u@h",		"h#",
		"a%2",		"a%zz",
		"\\h",		"[]",
		"[::1]x",	"[::1]:x",
		"[1:2:3]",	"[1:2:3:4:5:6:7:8:9]",
		"[1::2::3]",	"[:::]",
		"[1:]",		"[:1]",
		"[12345::]",	"[::g]",
		"[::1.2.3]",	"[::1.2.3.256]",
		"[::01.2.3.4]", "[1:2:3:4:5:6:7:1.2.3.4]",
		"[v.x]",	"[v1.]",
		"[v1x]",	"[h]",
		"::1",
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (http_host_valid(bad[i], strlen(bad[i])))
			fprintf(stderr, "  accepted: %s\n", bad[i]);
		CHECK(!http_host_valid(bad[i], strlen(bad[i])));
	}
	/* A NUL is never part of a host. */
	CHECK(!VALID("a\0b"));
}
