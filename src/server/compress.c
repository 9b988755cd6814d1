// SPDX-License-Identifier: MIT
#include "compress.h"

#include <libdeflate.h>
#include <stdlib.h>

struct compressor {
	struct libdeflate_compressor *deflate;
};

struct compressor *compressor_new(void)
{
	struct compressor *c = malloc(sizeof(*c));

	if (!c)
		return NULL;
	c->deflate = libdeflate_alloc_compressor(COMPRESS_LEVEL);
	if (!c->deflate) {
		free(c);
		return NULL;
	}
	return c;
}

void compressor_free(struct compressor *c)
{
	if (!c)
		return;
	libdeflate_free_compressor(c->deflate);
	free(c);
}

char *compress_buffer(struct compressor *c, enum http_coding coding,
		      const char *in, size_t len, size_t *out_len)
{
	size_t bound, n;
	char *out;

	if (len == 0)
		return NULL;
	bound = coding == HTTP_CODING_GZIP ?
			libdeflate_gzip_compress_bound(c->deflate, len) :
			libdeflate_zlib_compress_bound(c->deflate, len);
	out = malloc(bound);
	if (!out)
		return NULL;
	/* Output capped at len - 1: only a smaller result is worth it. */
	n = coding == HTTP_CODING_GZIP ?
		    libdeflate_gzip_compress(c->deflate, in, len, out,
					     len - 1 < bound ? len - 1 :
							       bound) :
		    libdeflate_zlib_compress(c->deflate, in, len, out,
					     len - 1 < bound ? len - 1 : bound);
	if (n == 0) {
		free(out);
		return NULL;
	}
	*out_len = n;
	return realloc(out, n) ?: out;
}
