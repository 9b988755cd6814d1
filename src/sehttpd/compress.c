// SPDX-License-Identifier: MIT
#include "compress.h"

#include <brotli/encode.h>
#include <libdeflate.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <zstd.h>

struct compressor {
	struct libdeflate_compressor *deflate;
	ZSTD_CCtx *zstd;
};

/*
 * The thread's zstd context keeps the largest tables a body has needed, for
 * the thread's life: level 9 sizes them 3.5 MiB for any body of 128 to 256
 * KiB (1.2 MiB for 120 KiB), so one such file raised every thread's memory
 * for good.  Tables of 2^17 entries hold it at 1.3 MiB; bodies come out
 * within 0.15% of the size (measured on JavaScript, HTML and text).
 */
#define COMPRESS_ZSTD_TABLE_LOG 17

static int zstd_set(ZSTD_CCtx *z, ZSTD_cParameter p, int value)
{
	return ZSTD_isError(ZSTD_CCtx_setParameter(z, p, value));
}

struct compressor *compressor_new(void)
{
	struct compressor *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->deflate = libdeflate_alloc_compressor(COMPRESS_LEVEL);
	c->zstd = ZSTD_createCCtx();
	if (!c->deflate || !c->zstd ||
	    zstd_set(c->zstd, ZSTD_c_compressionLevel, COMPRESS_ZSTD_LEVEL) ||
	    zstd_set(c->zstd, ZSTD_c_hashLog, COMPRESS_ZSTD_TABLE_LOG) ||
	    zstd_set(c->zstd, ZSTD_c_chainLog, COMPRESS_ZSTD_TABLE_LOG)) {
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

size_t compressor_zstd_held(const struct compressor *c)
{
	return ZSTD_sizeof_CCtx(c->zstd);
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
		n = ZSTD_compress2(c->zstd, out, cap, in, len);
		return ZSTD_isError(n) ? 0 : n;
	default:
		return 0;
	}
}

/* The step's end (first, len), and whether it is the last one. */
static size_t step_end(size_t first, size_t len, bool *last)
{
	size_t n = len - first < COMPRESS_STEP ? len - first : COMPRESS_STEP;

	*last = first + n == len;
	return first + n;
}

/*
 * The window (and, 2 less, the match tables) of a stepped zstd context, as
 * a log2: level 9 sizes its tables for the body (32 MiB for 8 MiB), and
 * zeroing them was a long step by itself (doc/benchmarks.md).
 */
#define COMPRESS_ZSTD_STEP_LOG 20

/*
 * zstd in steps, with a context of its own: the thread's one may be used
 * by another connection while this one yields.
 */
static size_t zstd_in_steps(const char *in, size_t len, char *out, size_t cap,
			    compress_yield_fn *yield, void *ctx)
{
	ZSTD_CCtx *z = ZSTD_createCCtx();
	ZSTD_outBuffer ob = { out, cap, 0 };
	size_t pos = 0, done = 0;

	if (!z || zstd_set(z, ZSTD_c_compressionLevel, COMPRESS_ZSTD_LEVEL) ||
	    zstd_set(z, ZSTD_c_windowLog, COMPRESS_ZSTD_STEP_LOG) ||
	    zstd_set(z, ZSTD_c_hashLog, COMPRESS_ZSTD_STEP_LOG - 2) ||
	    zstd_set(z, ZSTD_c_chainLog, COMPRESS_ZSTD_STEP_LOG - 2) ||
	    ZSTD_isError(ZSTD_CCtx_setPledgedSrcSize(z, len)))
		goto out;
	while (pos < len) {
		bool last;
		size_t end = step_end(pos, len, &last);
		ZSTD_inBuffer ib = { in + pos, end - pos, 0 };
		size_t left;

		do {
			left = ZSTD_compressStream2(z, &ob, &ib,
						    last ? ZSTD_e_end :
							   ZSTD_e_continue);
			/* A full output is a result no smaller than in. */
			if (ZSTD_isError(left) || ob.pos == ob.size)
				goto out;
		} while (last ? left != 0 : ib.pos < ib.size);
		pos = end;
		if (!last && yield(ctx))
			goto out;
	}
	done = ob.pos;
out:
	ZSTD_freeCCtx(z);
	return done;
}

/* Brotli in steps, as zstd_in_steps(). */
static size_t brotli_in_steps(const char *in, size_t len, char *out, size_t cap,
			      compress_yield_fn *yield, void *ctx)
{
	BrotliEncoderState *s = BrotliEncoderCreateInstance(NULL, NULL, NULL);
	const uint8_t *next_in = (const uint8_t *)in;
	uint8_t *next_out = (uint8_t *)out;
	size_t avail_out = cap, pos = 0, done = 0;

	if (!s ||
	    !BrotliEncoderSetParameter(s, BROTLI_PARAM_QUALITY,
				       COMPRESS_BROTLI_LEVEL) ||
	    !BrotliEncoderSetParameter(s, BROTLI_PARAM_LGWIN,
				       BROTLI_DEFAULT_WINDOW) ||
	    !BrotliEncoderSetParameter(s, BROTLI_PARAM_SIZE_HINT,
				       len > UINT32_MAX ? UINT32_MAX :
							  (uint32_t)len))
		goto out;
	while (pos < len) {
		bool last;
		size_t end = step_end(pos, len, &last);
		size_t avail_in = end - pos;
		BrotliEncoderOperation op = last ? BROTLI_OPERATION_FINISH :
						   BROTLI_OPERATION_PROCESS;

		do {
			if (!BrotliEncoderCompressStream(s, op, &avail_in,
							 &next_in, &avail_out,
							 &next_out, NULL) ||
			    avail_out == 0)
				goto out;
		} while (avail_in || (last ? !BrotliEncoderIsFinished(s) :
					     BrotliEncoderHasMoreOutput(s)));
		pos = end;
		if (!last && yield(ctx))
			goto out;
	}
	done = cap - avail_out;
out:
	if (s)
		BrotliEncoderDestroyInstance(s);
	return done;
}

char *compress_buffer(struct compressor *c, enum http_coding coding,
		      const char *in, size_t len, size_t *out_len,
		      compress_yield_fn *yield, void *ctx)
{
	bool in_steps = yield && len > COMPRESS_STEP;
	size_t n;
	char *out;

	if (len <= 1)
		return NULL;
	/* Output capped at len - 1: only a smaller result is worth it. */
	out = malloc(len - 1);
	if (!out)
		return NULL;
	if (in_steps && coding == HTTP_CODING_ZSTD)
		n = zstd_in_steps(in, len, out, len - 1, yield, ctx);
	else if (in_steps && coding == HTTP_CODING_BR)
		n = brotli_in_steps(in, len, out, len - 1, yield, ctx);
	else
		n = compress_into(c, coding, in, len, out, len - 1);
	if (n == 0) {
		free(out);
		return NULL;
	}
	*out_len = n;
	return realloc(out, n) ?: out;
}
