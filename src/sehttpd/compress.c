// SPDX-License-Identifier: MIT
#include "compress.h"

#include <brotli/encode.h>
#include <libdeflate.h>
#include <stdint.h>
#include <stdlib.h>
#include <zstd.h>

struct compressor {
	struct libdeflate_compressor *deflate;
	ZSTD_CCtx *zstd;
};

struct compressor *compressor_new(void)
{
	struct compressor *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->deflate = libdeflate_alloc_compressor(COMPRESS_LEVEL);
	c->zstd = ZSTD_createCCtx();
	if (!c->deflate || !c->zstd) {
		compressor_free(c);
		return NULL;
	}
	return c;
}

void compressor_free(struct compressor *c)
{
	if (!c)
		return;
	libdeflate_free_compressor(c->deflate);
	ZSTD_freeCCtx(c->zstd);
	free(c);
}

/* Compresses into out[0..cap); returns the length, 0 when it did not fit. */
static size_t compress_into(struct compressor *c, enum http_coding coding,
			    const char *in, size_t len, char *out, size_t cap)
{
	size_t n;

	switch (coding) {
	case HTTP_CODING_GZIP:
		return libdeflate_gzip_compress(c->deflate, in, len, out, cap);
	case HTTP_CODING_DEFLATE:
		return libdeflate_zlib_compress(c->deflate, in, len, out, cap);
	case HTTP_CODING_BR:
		n = cap;
		return BrotliEncoderCompress(COMPRESS_BROTLI_LEVEL,
					     BROTLI_DEFAULT_WINDOW,
					     BROTLI_DEFAULT_MODE, len,
					     (const uint8_t *)in, &n,
					     (uint8_t *)out) ?
			       n :
			       0;
	case HTTP_CODING_ZSTD:
		n = ZSTD_compressCCtx(c->zstd, out, cap, in, len,
				      COMPRESS_ZSTD_LEVEL);
		return ZSTD_isError(n) ? 0 : n;
	default:
		return 0;
	}
}

char *compress_buffer(struct compressor *c, enum http_coding coding,
		      const char *in, size_t len, size_t *out_len)
{
	size_t n;
	char *out;

	if (len <= 1)
		return NULL;
	/* Output capped at len - 1: only a smaller result is worth it. */
	out = malloc(len - 1);
	if (!out)
		return NULL;
	n = compress_into(c, coding, in, len, out, len - 1);
	if (n == 0) {
		free(out);
		return NULL;
	}
	*out_len = n;
	return realloc(out, n) ?: out;
}
