// SPDX-License-Identifier: MIT
/* Compression of bodies, large ones in steps with a yield between them. */
#include "harness.h"

#include <stdlib.h>
#include <time.h>
#include <zstd.h>

#include "sehttpd/compress.h"

struct yields {
	unsigned count;
	unsigned stop_at; /* 0: never asks to stop */
	double last, longest; /* seconds */
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int count_yield(void *ctx)
{
	struct yields *y = ctx;
	double t = now_s();

	if (t - y->last > y->longest)
		y->longest = t - y->last;
	y->last = t;
	return ++y->count == y->stop_at;
}

/* Text like a big listing's rows: compressible, not trivially so. */
static char *listing_like(size_t len)
{
	char *s = malloc(len);
	size_t n = 0;

	for (unsigned i = 0; s && n < len; i++) {
		char row[160];
		int k = snprintf(row, sizeof(row),
				 "<tr><td class=\"name\"><a href=\"file_%05u."
				 "txt\">file_%05u.txt</a></td><td class=\"size"
				 "\" title=\"%u bytes\">%u B</td></tr>\n",
				 i, i, i * 7919 % 100000, i * 7919 % 100000);

		memcpy(s + n, row, len - n < (size_t)k ? len - n : (size_t)k);
		n += (size_t)k;
	}
	return s;
}

TEST(large_bodies_yield_between_steps)
{
	size_t len = 8u << 20, n = 0;
	char *in = listing_like(len);
	struct compressor *c = compressor_new();
	enum http_coding codings[] = { HTTP_CODING_ZSTD, HTTP_CODING_BR };

	CHECK(in && c);
	for (size_t i = 0; i < ARRAY_SIZE(codings); i++) {
		struct yields y = { .last = now_s() };
		char *out = compress_buffer(c, codings[i], in, len, &n,
					    count_yield, &y);

		CHECK(out != NULL);
		CHECK(n > 0 && n < len / 4);
		/* One yield between each step of COMPRESS_STEP bytes. */
		CHECK_EQ_INT(y.count,
			     (len + COMPRESS_STEP - 1) / COMPRESS_STEP - 1);
		fprintf(stderr,
			"  coding %d: %u yields, longest step %.1f ms\n",
			codings[i], y.count, y.longest * 1e3);
		if (codings[i] == HTTP_CODING_ZSTD) {
			char *back = malloc(len);

			CHECK_EQ_INT(ZSTD_decompress(back, len, out, n), len);
			CHECK(!memcmp(back, in, len));
			free(back);
		}
		free(out);
	}
	compressor_free(c);
	free(in);
}

TEST(a_yield_that_says_stop_stops)
{
	size_t len = 2u << 20, n = 0;
	char *in = listing_like(len);
	struct compressor *c = compressor_new();

	CHECK(in && c);
	for (int i = 0; i < 2; i++) {
		struct yields y = { .stop_at = 2, .last = now_s() };
		enum http_coding coding = i ? HTTP_CODING_ZSTD : HTTP_CODING_BR;

		CHECK(compress_buffer(c, coding, in, len, &n, count_yield,
				      &y) == NULL);
		CHECK_EQ_INT(y.count, 2);
	}
	/* Without yield: one step, as before. */
	{
		char *out = compress_buffer(c, HTTP_CODING_ZSTD, in, len, &n,
					    NULL, NULL);

		CHECK(out != NULL);
		free(out);
	}
	compressor_free(c);
	free(in);
}

/*
 * The thread's zstd context keeps its tables between bodies: whatever the
 * body up to COMPRESS_STEP, they stay at what 2^17 entries take (level 9's
 * own choice for 128 to 256 KiB was 3.5 MiB, for the thread's life).
 */
TEST(the_threads_zstd_tables_stay_bounded)
{
	size_t sizes[] = { 9000, 120000, 200000, COMPRESS_STEP };
	struct compressor *c = compressor_new();
	char *in = listing_like(COMPRESS_STEP);
	char *back = malloc(COMPRESS_STEP);

	CHECK(in && c && back);
	for (size_t i = 0; i < ARRAY_SIZE(sizes); i++) {
		struct yields y = { .last = now_s() };
		size_t len = sizes[i], n = 0;
		char *out = compress_buffer(c, HTTP_CODING_ZSTD, in, len, &n,
					    count_yield, &y);

		CHECK(out != NULL);
		CHECK_EQ_INT(ZSTD_decompress(back, len, out, n), len);
		CHECK(!memcmp(back, in, len));
		CHECK(compressor_zstd_held(c) < (3u << 20) / 2);
		free(out);
	}
	compressor_free(c);
	free(back);
	free(in);
}
