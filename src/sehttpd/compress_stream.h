/* SPDX-License-Identifier: MIT */
/*
 * Compression as a body is sent, for files too large to compress whole
 * into the cache: gzip and the zlib format with zlib (libdeflate has no
 * streaming interface), Brotli with libbrotlienc, Zstandard with libzstd.
 * Each stream holds a bounded state of its own (see COMPRESS_STREAM_*),
 * whatever the size of the body.
 */
#ifndef SEHTTPD_COMPRESS_STREAM_H
#define SEHTTPD_COMPRESS_STREAM_H

#include <stdbool.h>
#include <stddef.h>

#include "http/negotiate.h"

/* The codings a stream makes. */
#define COMPRESS_STREAM_CODINGS                 \
	(HTTP_CODING_BIT(HTTP_CODING_GZIP) |    \
	 HTTP_CODING_BIT(HTTP_CODING_DEFLATE) | \
	 HTTP_CODING_BIT(HTTP_CODING_BR) | HTTP_CODING_BIT(HTTP_CODING_ZSTD))

/*
 * What bounds a stream's state, measured with the levels of compress.h: a
 * slow reader holds its stream for as long as it reads, so it is kept
 * near what zlib's takes (256 KiB).  zstd: a 512 KiB window and match
 * tables of 2^17 entries, 2 MiB (left to itself, level 9 sizes its tables
 * for large inputs, 13 MiB; 1.7% larger output on a JSON file).  Brotli:
 * a 64 KiB window, 1.75 MiB (6.3 MiB with 2^19; 2% larger output).
 */
#define COMPRESS_STREAM_WINDOW_LOG 19
#define COMPRESS_STREAM_TABLE_LOG 17
#define COMPRESS_STREAM_BROTLI_WINDOW_LOG 16

struct compress_stream;

/* A stream in coding (one of COMPRESS_STREAM_CODINGS), or NULL. */
struct compress_stream *compress_stream_new(enum http_coding coding);
void compress_stream_free(struct compress_stream *s);

/*
 * Compresses from in[0..in_len), setting *in_used to the bytes taken, into
 * out[0..*out_len), setting *out_len to the bytes made; finish: in holds
 * the end of the body.  Returns 1 once the stream has ended (every byte
 * made), 0 when it wants to be called again (with the input not taken, or
 * more), -1 on an error.
 */
int compress_stream_step(struct compress_stream *s, const void *in,
			 size_t in_len, size_t *in_used, void *out,
			 size_t *out_len, bool finish);

#endif /* SEHTTPD_COMPRESS_STREAM_H */
