/* SPDX-License-Identifier: MIT */
/*
 * Compression for content codings, one compressor a thread: gzip and the
 * zlib format with libdeflate, Brotli with libbrotlienc, Zstandard with
 * libzstd.
 */
#ifndef SEHTTPD_COMPRESS_H
#define SEHTTPD_COMPRESS_H

#include <stddef.h>

#include "http/negotiate.h"

#define COMPRESS_LEVEL 6 /* what nginx's and most servers' gzip default */
/*
 * Brotli and zstd levels that cost about what gzip at COMPRESS_LEVEL costs
 * and come out smaller (doc/benchmarks.md).  A variant is made once a thread
 * and then served from the cache, so the level costs only the first hit.
 */
#define COMPRESS_BROTLI_LEVEL 5
#define COMPRESS_ZSTD_LEVEL 9

/* The codings compress_buffer() makes. */
#define COMPRESS_CODINGS                        \
	(HTTP_CODING_BIT(HTTP_CODING_GZIP) |    \
	 HTTP_CODING_BIT(HTTP_CODING_DEFLATE) | \
	 HTTP_CODING_BIT(HTTP_CODING_BR) | HTTP_CODING_BIT(HTTP_CODING_ZSTD))

struct compressor;

struct compressor *compressor_new(void);
void compressor_free(struct compressor *c);
/* The bytes the thread's zstd context holds (its tables stay between
 * bodies). */
size_t compressor_zstd_held(const struct compressor *c);

/*
 * Lets others run between steps of a long compression: returns non-zero
 * when the compression should stop (the connection is gone).
 */
typedef int compress_yield_fn(void *ctx);

/* Brotli and zstd bodies above this are compressed in steps of it, with
 * yield(ctx) between them, so one body cannot hold the thread for long. */
#define COMPRESS_STEP (256u << 10)

/*
 * Compresses in[0..len) with coding (one of COMPRESS_CODINGS) into a new
 * malloc'd buffer; returns it and sets *out_len, or returns NULL when the
 * result would not be smaller than the input (or memory ran out, or yield
 * asked to stop).  yield may be NULL: one step, whatever the size.
 */
char *compress_buffer(struct compressor *c, enum http_coding coding,
		      const char *in, size_t len, size_t *out_len,
		      compress_yield_fn *yield, void *ctx);
#endif /* SEHTTPD_COMPRESS_H */
