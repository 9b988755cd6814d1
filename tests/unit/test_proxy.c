// SPDX-License-Identifier: MIT
/*
 * The PROXY protocol header parser: v1 TCP4, TCP6 and UNKNOWN lines, v2
 * PROXY and LOCAL blocks with TLVs, the refusals (malformed, truncated
 * TLVs, oversized), and the promise that the verdict does not depend on
 * how the bytes were split between calls.
 */
#include "harness.h"

#include "http/proxy.h"

#define S(lit) lit, sizeof(lit) - 1

static int parse(const char *s, size_t n, struct proxy_header *h)
{
	struct proxy_parser p;

	proxy_parser_init(&p);
	memset(h, 0xa5, sizeof(*h)); /* the parser must clear it */
	return proxy_parse(&p, h, s, n);
}

static bool same_header(const struct proxy_header *a,
			const struct proxy_header *b)
{
	return a->version == b->version && a->local == b->local &&
	       a->family == b->family &&
	       !memcmp(a->src_addr, b->src_addr, 16) &&
	       !memcmp(a->dst_addr, b->dst_addr, 16) &&
	       a->src_port == b->src_port && a->dst_port == b->dst_port &&
	       a->ntlvs == b->ntlvs && a->len == b->len;
}

/* Two calls, the first with `at` bytes, each on a fresh copy. */
static int parse_split(const char *s, size_t n, size_t at,
		       struct proxy_header *h)
{
	struct proxy_parser p;
	char *first = malloc(at ? at : 1), *second = malloc(n ? n : 1);
	int r;

	memcpy(first, s, at);
	memcpy(second, s, n);
	proxy_parser_init(&p);
	memset(h, 0x5a, sizeof(*h));
	r = proxy_parse(&p, h, first, at);
	memset(first, 0, at); /* stale bytes must not matter */
	if (r == PROXY_PARSE_AGAIN)
		r = proxy_parse(&p, h, second, n);
	free(first);
	free(second);
	return r;
}

static int parse_bytewise(const char *s, size_t n, struct proxy_header *h)
{
	struct proxy_parser p;
	int r = PROXY_PARSE_AGAIN;

	proxy_parser_init(&p);
	for (size_t k = 0; k <= n && r == PROXY_PARSE_AGAIN; k++)
		r = proxy_parse(&p, h, s, k);
	return r;
}

/* The one-shot verdict equals that of every split and of byte by byte. */
static bool check_incremental(const char *s, size_t n)
{
	struct proxy_header one, inc;
	int r1 = parse(s, n, &one), r2;

	for (size_t at = 0; at <= n; at++) {
		r2 = parse_split(s, n, at, &inc);
		if (r2 != r1 || (r1 > 0 && !same_header(&one, &inc))) {
			fprintf(stderr,
				"  split at %zu of %zu: %d, one-shot %d\n", at,
				n, r2, r1);
			return false;
		}
	}
	r2 = parse_bytewise(s, n, &inc);
	if (r2 != r1 || (r1 > 0 && !same_header(&one, &inc))) {
		fprintf(stderr, "  byte at a time: %d, one-shot %d\n", r2, r1);
		return false;
	}
	return true;
}

/* Parses s, checks every split agrees, returns the one-shot verdict. */
static int verdict(const char *s, size_t n, struct proxy_header *h)
{
	CHECK(check_incremental(s, n));
	return parse(s, n, h);
}

static int verdict_str(const char *s, struct proxy_header *h)
{
	return verdict(s, strlen(s), h);
}

static const uint8_t ip4_192_0_2_1[4] = { 192, 0, 2, 1 };
static const uint8_t ip4_198_51_100_7[4] = { 198, 51, 100, 7 };

TEST(v1_tcp4)
{
	static const char s[] =
		"PROXY TCP4 192.0.2.1 198.51.100.7 56324 443\r\nGET / HTTP/1.1\r\n";
	struct proxy_header h;
	int r = verdict(S(s), &h);

	CHECK_EQ_INT(r, 45);
	CHECK_EQ_INT(h.version, 1);
	CHECK(!h.local);
	CHECK_EQ_INT(h.family, PROXY_AF_INET);
	CHECK(!memcmp(h.src_addr, ip4_192_0_2_1, 4));
	CHECK(!memcmp(h.dst_addr, ip4_198_51_100_7, 4));
	CHECK_EQ_INT(h.src_port, 56324);
	CHECK_EQ_INT(h.dst_port, 443);
	CHECK_EQ_INT(h.len, 45);
}

TEST(v1_tcp4_limits)
{
	struct proxy_header h;

	CHECK_EQ_INT(verdict_str("PROXY TCP4 255.255.255.255 0.0.0.0 "
				 "65535 0\r\n",
				 &h),
		     44);
	CHECK_EQ_INT(h.src_port, 65535);
	CHECK_EQ_INT(h.dst_port, 0);
	CHECK_EQ_INT(h.src_addr[3], 255);
}

TEST(v1_tcp6)
{
	static const uint8_t src[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0,
					 0,    0,    0,	   0,	 0, 0, 0, 1 };
	static const uint8_t dst[16] = { 0, 0, 0,    0,	   0, 0, 0, 0,
					 0, 0, 0xff, 0xff, 1, 2, 3, 4 };
	struct proxy_header h;
	int r = verdict_str("PROXY TCP6 2001:db8::1 ::ffff:1.2.3.4 1 2\r\n",
			    &h);

	CHECK_EQ_INT(r, 43);
	CHECK_EQ_INT(h.family, PROXY_AF_INET6);
	CHECK(!memcmp(h.src_addr, src, 16));
	CHECK(!memcmp(h.dst_addr, dst, 16));
	CHECK_EQ_INT(h.src_port, 1);
	CHECK_EQ_INT(h.dst_port, 2);
}

TEST(v1_tcp6_forms)
{
	static const uint8_t full[16] = { 0x12, 0x34, 0,    0xab, 0, 0,
					  0,	0,    0,    0,	  0, 0,
					  0xff, 0xff, 0xfe, 0xdc };
	static const uint8_t zero[16];
	struct proxy_header h;

	CHECK(verdict_str("PROXY TCP6 1234:AB:0:0:0:0:ffff:FEDC :: 80 80\r\n",
			  &h) > 0);
	CHECK(!memcmp(h.src_addr, full, 16));
	CHECK(!memcmp(h.dst_addr, zero, 16));
	CHECK(verdict_str("PROXY TCP6 1234:ab::ffff:fedc 1:: 80 80\r\n", &h) >
	      0);
	CHECK(!memcmp(h.src_addr, full, 16));
	CHECK_EQ_INT(h.dst_addr[1], 1);
	/* The longest line there is: 104 bytes. */
	CHECK_EQ_INT(
		verdict_str("PROXY TCP6 ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff "
			    "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff "
			    "65535 65535\r\n",
			    &h),
		104);
}

TEST(v1_unknown)
{
	struct proxy_header h;
	char s[PROXY_V1_MAX + 1];

	CHECK_EQ_INT(verdict_str("PROXY UNKNOWN\r\n", &h), 15);
	CHECK_EQ_INT(h.version, 1);
	CHECK_EQ_INT(h.family, PROXY_AF_NONE);
	/* Whatever follows UNKNOWN is ignored... */
	CHECK_EQ_INT(verdict_str("PROXY UNKNOWN ffff::1 ::1 1 2\r\n", &h), 31);
	CHECK_EQ_INT(h.family, PROXY_AF_NONE);
	/* ...up to the 107-byte limit, CRLF included. */
	memset(s, 'x', sizeof(s));
	memcpy(s, "PROXY UNKNOWN ", 14);
	memcpy(s + PROXY_V1_MAX - 2, "\r\n", 2);
	CHECK_EQ_INT(verdict(s, PROXY_V1_MAX, &h), PROXY_V1_MAX);
	s[PROXY_V1_MAX - 2] = 'x';
	memcpy(s + PROXY_V1_MAX - 1, "\r\n", 2);
	CHECK_EQ_INT(verdict(s, PROXY_V1_MAX + 1, &h), PROXY_PARSE_ERROR);
}

TEST(v1_oversized)
{
	char s[300];
	struct proxy_header h;

	/* No CRLF within 107 bytes: refused at once, not waited for. */
	memset(s, '1', sizeof(s));
	memcpy(s, "PROXY TCP4 ", 11);
	CHECK_EQ_INT(verdict(s, PROXY_V1_MAX, &h), PROXY_PARSE_ERROR);
	CHECK_EQ_INT(verdict(s, PROXY_V1_MAX - 2, &h), PROXY_PARSE_AGAIN);
	CHECK_EQ_INT(verdict(s, PROXY_V1_MAX - 1, &h), PROXY_PARSE_ERROR);
	CHECK_EQ_INT(verdict(s, sizeof(s), &h), PROXY_PARSE_ERROR);
}

TEST(v1_need_more)
{
	static const char s[] =
		"PROXY TCP4 192.0.2.1 198.51.100.7 56324 443\r\n";
	struct proxy_header h;

	for (size_t n = 0; n < sizeof(s) - 1; n++)
		CHECK_EQ_INT(parse(s, n, &h), PROXY_PARSE_AGAIN);
}

TEST(v1_malformed)
{
	static const char *const bad[] = {
		"GET / HTTP/1.1\r\n\r\n",
		"proxy TCP4 1.2.3.4 5.6.7.8 1 2\r\n",
		"PROXY  TCP4 1.2.3.4 5.6.7.8 1 2\r\n",
		"PROXY\r\n",
		"PROXY \r\n",
		"PROXY TCP4\r\n",
		"PROXY TCP4 \r\n",
		"PROXY TCP5 1.2.3.4 5.6.7.8 1 2\r\n",
		"PROXY tcp4 1.2.3.4 5.6.7.8 1 2\r\n",
		"PROXY UNKNOWNX\r\n",
		"PROXY TCP4 1.2.3.4 5.6.7.8 1\r\n",
		"PROXY TCP4 1.2.3.4 5.6.7.8 1 2 3\r\n",
		"PROXY TCP4 1.2.3.4 5.6.7.8 1 2 \r\n",
		"PROXY TCP4 1.2.3.4  5.6.7.8 1 2\r\n",
		"PROXY TCP4 1.2.3.4 5.6.7.8 1 65536\r\n",
		"PROXY TCP4 1.2.3.4 5.6.7.8 01 2\r\n",
		"PROXY TCP4 1.2.3.4 5.6.7.8 -1 2\r\n",
		"PROXY TCP4 1.2.3.256 5.6.7.8 1 2\r\n",
		"PROXY TCP4 1.2.3 5.6.7.8 1 2\r\n",
		"PROXY TCP4 1.2.3.4.5 5.6.7.8 1 2\r\n",
		"PROXY TCP4 1.2.3.04 5.6.7.8 1 2\r\n",
		"PROXY TCP4 1..3.4 5.6.7.8 1 2\r\n",
		"PROXY TCP4 ::1 5.6.7.8 1 2\r\n",
		"PROXY TCP6 1.2.3.4 ::1 1 2\r\n",
		"PROXY TCP6 ::1::2 ::1 1 2\r\n",
		"PROXY TCP6 1:2:3:4:5:6:7:8:9 ::1 1 2\r\n",
		"PROXY TCP6 1:2:3:4:5:6:7 ::1 1 2\r\n",
		"PROXY TCP6 1::2:3:4:5:6:7:8 ::1 1 2\r\n",
		"PROXY TCP6 12345:: ::1 1 2\r\n",
		"PROXY TCP6 :1:: ::1 1 2\r\n",
		"PROXY TCP6 1: ::1 1 2\r\n",
		"PROXY TCP6 ::g ::1 1 2\r\n",
		"PROXY TCP6 1:2:3:4:5:6:7:1.2.3.4 ::1 1 2\r\n",
		"PROXY TCP4 1.2.3.4 5.6.7.8 1 2\n",
		"PROXY TCP4 1.2.3.4 5.6.7.8 1 2\rX",
		"PROXY TCP4 1.2.3.4\t5.6.7.8 1 2\r\n",
		"PROXY UNKNOWN \x80\r\n",
	};
	struct proxy_header h;

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		int r = verdict_str(bad[i], &h);

		if (r != PROXY_PARSE_ERROR)
			fprintf(stderr, "  accepted (%d): %s\n", r, bad[i]);
		CHECK_EQ_INT(r, PROXY_PARSE_ERROR);
	}
	/* "1:2:3:4:5:6:7::" is fine (the gap is one group). */
	CHECK(verdict_str("PROXY TCP6 1:2:3:4:5:6:7:: ::1 1 2\r\n", &h) > 0);
	/* An embedded IPv4 after six groups is fine too. */
	CHECK(verdict_str("PROXY TCP6 1:2:3:4:5:6:1.2.3.4 ::1 1 2\r\n", &h) >
	      0);
}

TEST(v1_request_refused_at_first_byte)
{
	struct proxy_header h;

	CHECK_EQ_INT(parse(S("G"), &h), PROXY_PARSE_ERROR);
	CHECK_EQ_INT(parse(S("PROXX"), &h), PROXY_PARSE_ERROR);
	CHECK_EQ_INT(parse(S("\r\n\r\n\0\r\nQUIX"), &h), PROXY_PARSE_ERROR);
	CHECK_EQ_INT(parse(S("\r\n\r\n\0\r\nQUI"), &h), PROXY_PARSE_AGAIN);
}

/* A v2 header: the signature, then command, family, length and block. */
static size_t v2(char *out, uint8_t cmd, uint8_t fam, const void *block,
		 size_t n)
{
	static const char sig[] = "\r\n\r\n\0\r\nQUIT\n";

	memcpy(out, sig, 12);
	out[12] = (char)(0x20 | cmd);
	out[13] = (char)fam;
	out[14] = (char)(n >> 8);
	out[15] = (char)n;
	memcpy(out + 16, block, n);
	return 16 + n;
}

TEST(v2_proxy_inet)
{
	static const uint8_t block[] = { 127, 0, 0,    2,    10,   0,
					 0,   1, 0xdb, 0x04, 0x1f, 0x90 };
	char s[64];
	size_t n = v2(s, 1, 0x11, block, sizeof(block));
	struct proxy_header h;

	memcpy(s + n, "GET", 3); /* the request follows */
	CHECK_EQ_INT(verdict(s, n + 3, &h), 28);
	CHECK_EQ_INT(h.version, 2);
	CHECK(!h.local);
	CHECK_EQ_INT(h.family, PROXY_AF_INET);
	CHECK(!memcmp(h.src_addr, block, 4));
	CHECK(!memcmp(h.dst_addr, block + 4, 4));
	CHECK_EQ_INT(h.src_port, 0xdb04);
	CHECK_EQ_INT(h.dst_port, 8080);
	CHECK_EQ_INT(h.ntlvs, 0);
}

TEST(v2_proxy_inet6_with_tlvs)
{
	uint8_t block[36 + 64];
	size_t n = 36;
	char s[200];
	struct proxy_header h;

	for (int i = 0; i < 32; i++)
		block[i] = (uint8_t)i;
	memcpy(block + 32, "\x01\xbb\x00\x50", 4);
	/* ALPN "h2", an empty NOOP, a unique id of 20 bytes. */
	memcpy(block + n, "\x01\x00\x02h2", 5);
	n += 5;
	memcpy(block + n, "\x04\x00\x00", 3);
	n += 3;
	memcpy(block + n, "\x05\x00\x14", 3);
	memset(block + n + 3, 'u', 20);
	n += 23;
	n = v2(s, 1, 0x21, block, n);
	CHECK_EQ_INT(verdict(s, n, &h), (int)n);
	CHECK_EQ_INT(h.family, PROXY_AF_INET6);
	CHECK(!memcmp(h.src_addr, block, 16));
	CHECK(!memcmp(h.dst_addr, block + 16, 16));
	CHECK_EQ_INT(h.src_port, 443);
	CHECK_EQ_INT(h.dst_port, 80);
	CHECK_EQ_INT(h.ntlvs, 3);
}

TEST(v2_local)
{
	/* A health check: LOCAL, no address; TLVs allowed. */
	char s[64];
	size_t n = v2(s, 0, 0x00, "", 0);
	struct proxy_header h;

	CHECK_EQ_INT(verdict(s, n, &h), 16);
	CHECK(h.local);
	CHECK_EQ_INT(h.family, PROXY_AF_NONE);
	n = v2(s, 0, 0x00, "\x04\x00\x02xy\x04\x00\x00", 8);
	CHECK_EQ_INT(verdict(s, n, &h), 24);
	CHECK(h.local);
	CHECK_EQ_INT(h.ntlvs, 2);
	/* LOCAL's block is discarded, addresses or not. */
	n = v2(s, 0, 0x11, "\x01\x02\x03", 3);
	CHECK_EQ_INT(verdict(s, n, &h), 19);
	CHECK(h.local);
	CHECK_EQ_INT(h.family, PROXY_AF_NONE);
}

TEST(v2_not_tcp_uses_real_endpoints)
{
	uint8_t block[216] = { 0 };
	char s[300];
	struct proxy_header h;
	size_t n;

	n = v2(s, 1, 0x00, "", 0); /* UNSPEC */
	CHECK_EQ_INT(verdict(s, n, &h), 16);
	CHECK_EQ_INT(h.family, PROXY_AF_NONE);
	CHECK(!h.local);
	n = v2(s, 1, 0x12, block, 12); /* UDP over IPv4 */
	CHECK_EQ_INT(verdict(s, n, &h), 28);
	CHECK_EQ_INT(h.family, PROXY_AF_NONE);
	n = v2(s, 1, 0x31, block, 216); /* UNIX stream */
	CHECK_EQ_INT(verdict(s, n, &h), 232);
	CHECK_EQ_INT(h.family, PROXY_AF_NONE);
}

TEST(v2_malformed)
{
	uint8_t block[64] = { 0 };
	char s[128];
	struct proxy_header h;
	size_t n;

	n = v2(s, 1, 0x11, block, 12);
	s[12] = 0x11; /* version 1 */
	CHECK_EQ_INT(verdict(s, n, &h), PROXY_PARSE_ERROR);
	s[12] = 0x22; /* command 2 */
	CHECK_EQ_INT(verdict(s, n, &h), PROXY_PARSE_ERROR);
	s[12] = 0x21;
	s[13] = 0x41; /* family 4 */
	CHECK_EQ_INT(verdict(s, n, &h), PROXY_PARSE_ERROR);
	s[13] = 0x13; /* protocol 3 */
	CHECK_EQ_INT(verdict(s, n, &h), PROXY_PARSE_ERROR);
	/* An address block shorter than its family needs. */
	n = v2(s, 1, 0x11, block, 11);
	CHECK_EQ_INT(verdict(s, n, &h), PROXY_PARSE_ERROR);
	n = v2(s, 1, 0x21, block, 35);
	CHECK_EQ_INT(verdict(s, n, &h), PROXY_PARSE_ERROR);
	/* A TLV running past the end, or a stray byte after the last. */
	memcpy(block + 12, "\x04\x00\x05xy", 5);
	n = v2(s, 1, 0x11, block, 17);
	CHECK_EQ_INT(verdict(s, n, &h), PROXY_PARSE_ERROR);
	memcpy(block + 12, "\x04\x00\x00\x04", 4);
	n = v2(s, 1, 0x11, block, 16);
	CHECK_EQ_INT(verdict(s, n, &h), PROXY_PARSE_ERROR);
	memcpy(block + 12, "\x04\x00", 2);
	n = v2(s, 1, 0x11, block, 14);
	CHECK_EQ_INT(verdict(s, n, &h), PROXY_PARSE_ERROR);
}

TEST(v2_truncated_waits)
{
	static const uint8_t block[12] = { 1, 2, 3, 4, 5, 6, 7, 8, 0, 1, 0, 2 };
	char s[64];
	size_t n = v2(s, 1, 0x11, block, sizeof(block));
	struct proxy_header h;

	/* A connection cut short here is closed; the timeout bounds one
	 * that stalls. */
	for (size_t k = 0; k < n; k++)
		CHECK_EQ_INT(parse(s, k, &h), PROXY_PARSE_AGAIN);
	CHECK_EQ_INT(parse(s, n, &h), 28);
}

TEST(v2_oversized)
{
	static char s[PROXY_V2_MAX + 16];
	struct proxy_header h;
	size_t len = PROXY_V2_MAX - 16 - 12;
	uint8_t *b;

	/* One TLV filling the rest: exactly at the limit... */
	memset(s, 0, sizeof(s));
	v2(s, 1, 0x11, "", 0);
	b = (uint8_t *)s + 28;
	b[0] = 0x04;
	b[1] = (uint8_t)((len - 3) >> 8);
	b[2] = (uint8_t)(len - 3);
	s[14] = (char)((12 + len) >> 8);
	s[15] = (char)(12 + len);
	CHECK_EQ_INT(parse(s, PROXY_V2_MAX, &h), PROXY_V2_MAX);
	CHECK_EQ_INT(h.ntlvs, 1);
	/* ...and one byte beyond: refused on the length alone. */
	s[15] = (char)(12 + len + 1);
	b[2] = (uint8_t)(len - 2);
	CHECK_EQ_INT(parse(s, 16, &h), PROXY_PARSE_ERROR);
	s[14] = (char)0xff;
	s[15] = (char)0xff;
	CHECK_EQ_INT(parse(s, 16, &h), PROXY_PARSE_ERROR);
}

TEST(random_mutations_split_consistently)
{
	static const char *const bases[] = {
		"PROXY TCP4 192.0.2.1 198.51.100.7 56324 443\r\nGET /",
		"PROXY TCP6 2001:db8::1 ::ffff:1.2.3.4 1 2\r\n",
		"PROXY UNKNOWN\r\n",
		"\r\n\r\n\0\r\nQUIT\n\x21\x11\x00\x0f\x7f\x00\x00\x02"
		"\x7f\x00\x00\x01\x00\x50\x1f\x90\x04\x00\x00GET",
	};
	static const size_t lens[] = { 50, 43, 15, 34 };
	unsigned seed = 4242;
	char s[128];

	for (int round = 0; round < 2000; round++) {
		size_t n = lens[round % ARRAY_SIZE(bases)];
		int edits;

		memcpy(s, bases[round % ARRAY_SIZE(bases)], n);
		seed = seed * 1103515245u + 12345u;
		edits = 1 + (int)((seed >> 16) % 3);
		for (int e = 0; e < edits; e++) {
			seed = seed * 1103515245u + 12345u;
			s[(seed >> 8) % n] = (char)((seed >> 20) & 0xff);
		}
		CHECK(check_incremental(s, n));
	}
}
