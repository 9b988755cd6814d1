// SPDX-License-Identifier: MIT
/*
 * libFuzzer target for the PROXY protocol header parser.  The input is
 * parsed in one call, split in two at a point derived from the input, and
 * byte by byte: every way must reach the same verdict and the same header,
 * which must respect the limits.  A complete header must parse the same
 * without the bytes that follow it.
 *
 * Linked with replay.c instead of libFuzzer, it runs the files named on
 * its command line, for machines without libFuzzer.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "http/proxy.h"

static void assert_same(const struct proxy_header *a,
			const struct proxy_header *b)
{
	FUZZ_ASSERT(a->version == b->version && a->local == b->local);
	FUZZ_ASSERT(a->family == b->family);
	FUZZ_ASSERT(!memcmp(a->src_addr, b->src_addr, 16));
	FUZZ_ASSERT(!memcmp(a->dst_addr, b->dst_addr, 16));
	FUZZ_ASSERT(a->src_port == b->src_port && a->dst_port == b->dst_port);
	FUZZ_ASSERT(a->ntlvs == b->ntlvs && a->len == b->len);
}

static int parse_once(const uint8_t *data, size_t n, struct proxy_header *h)
{
	struct proxy_parser p;
	char *buf = dup_exact(data, n);
	int r;

	proxy_parser_init(&p);
	memset(h, 0, sizeof(*h));
	r = proxy_parse(&p, h, buf, n);
	free(buf);
	return r;
}

/* Two calls, each on its own exact copy. */
static int parse_split(const uint8_t *data, size_t n, size_t at,
		       struct proxy_header *h)
{
	struct proxy_parser p;
	char *first = dup_exact(data, at), *all = dup_exact(data, n);
	int r;

	proxy_parser_init(&p);
	memset(h, 0, sizeof(*h));
	r = proxy_parse(&p, h, first, at);
	if (r == PROXY_PARSE_AGAIN)
		r = proxy_parse(&p, h, all, n);
	free(first);
	free(all);
	return r;
}

static int parse_bytewise(const uint8_t *data, size_t n, struct proxy_header *h)
{
	struct proxy_parser p;
	char *buf = dup_exact(data, n);
	int r = PROXY_PARSE_AGAIN;

	proxy_parser_init(&p);
	memset(h, 0, sizeof(*h));
	for (size_t k = 1; k <= n && r == PROXY_PARSE_AGAIN; k++)
		r = proxy_parse(&p, h, buf, k);
	free(buf);
	return r;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct proxy_header one, two;
	size_t at = size ? fnv1a(data, size) % (size + 1) : 0;
	int r1 = parse_once(data, size, &one), r2;

	FUZZ_ASSERT(r1 == PROXY_PARSE_ERROR || r1 == PROXY_PARSE_AGAIN ||
		    (r1 > 0 && (size_t)r1 <= size && r1 <= PROXY_MAX));
	r2 = parse_split(data, size, at, &two);
	FUZZ_ASSERT(r1 == r2);
	if (r1 > 0)
		assert_same(&one, &two);
	r2 = parse_bytewise(data, size, &two);
	FUZZ_ASSERT(r1 == r2);
	/* A buffer that holds the largest header always gets a verdict. */
	FUZZ_ASSERT(r1 != PROXY_PARSE_AGAIN || size < PROXY_MAX);
	if (size && data[0] == 'P')
		FUZZ_ASSERT(r1 != PROXY_PARSE_AGAIN || size < PROXY_V1_MAX);
	if (r1 <= 0)
		return 0;
	assert_same(&one, &two);
	FUZZ_ASSERT(one.len == (uint32_t)r1);
	FUZZ_ASSERT(one.version == 1 || one.version == 2);
	FUZZ_ASSERT(one.version == 2 || r1 <= PROXY_V1_MAX);
	FUZZ_ASSERT(one.family <= PROXY_AF_INET6);
	FUZZ_ASSERT(!one.local || one.family == PROXY_AF_NONE);
	/* The header does not depend on what follows it. */
	FUZZ_ASSERT(parse_once(data, (size_t)r1, &two) == r1);
	assert_same(&one, &two);
	return 0;
}
