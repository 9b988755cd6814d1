// SPDX-License-Identifier: MIT
#include "compress_stream.h"

#include <brotli/encode.h>
#include <stdint.h>
#include <stdlib.h>
#include <zlib.h>
#include <zstd.h>

#include "compress.h"

/* zlib's windowBits: 15 for the zlib format, 16 more for gzip's. */
#define ZLIB_WINDOW_BITS 15
#define ZLIB_GZIP 16
#define ZLIB_MEM_LEVEL 8

struct compress_stream {
	enum http_coding coding;
	union {
		z_stream z;
		BrotliEncoderState *br;
		ZSTD_CCtx *zstd;
	};
};

static int zlib_init(struct compress_stream *s)
{
	int bits = ZLIB_WINDOW_BITS +
		   (s->coding == HTTP_CODING_GZIP ? ZLIB_GZIP : 0);

	return deflateInit2(&s->z, COMPRESS_LEVEL, Z_DEFLATED, bits,
			    ZLIB_MEM_LEVEL, Z_DEFAULT_STRATEGY) == Z_OK ?
		       0 :
		       -1;
}

static int brotli_init(struct compress_stream *s)
{
	s->br = BrotliEncoderCreateInstance(NULL, NULL, NULL);
	if (!s->br)
		return -1;
	BrotliEncoderSetParameter(s->br, BROTLI_PARAM_QUALITY,
				  COMPRESS_BROTLI_LEVEL);
	BrotliEncoderSetParameter(s->br, BROTLI_PARAM_LGWIN,
				  COMPRESS_STREAM_BROTLI_WINDOW_LOG);
	return 0;
}

static int zstd_init(struct compress_stream *s)
{
	static const struct {
		ZSTD_cParameter param;
		int value;
	} params[] = {
		{ ZSTD_c_compressionLevel, COMPRESS_ZSTD_LEVEL },
		{ ZSTD_c_windowLog, COMPRESS_STREAM_WINDOW_LOG },
		{ ZSTD_c_hashLog, COMPRESS_STREAM_TABLE_LOG },
		{ ZSTD_c_chainLog, COMPRESS_STREAM_TABLE_LOG },
	};

	s->zstd = ZSTD_createCCtx();
	if (!s->zstd)
		return -1;
	for (size_t i = 0; i < sizeof(params) / sizeof(params[0]); i++) {
		if (ZSTD_isError(ZSTD_CCtx_setParameter(
			    s->zstd, params[i].param, params[i].value))) {
			ZSTD_freeCCtx(s->zstd);
			return -1;
		}
	}
	return 0;
}

struct compress_stream *compress_stream_new(enum http_coding coding)
{
	struct compress_stream *s;
	int err;

	if (!(HTTP_CODING_BIT(coding) & COMPRESS_STREAM_CODINGS))
		return NULL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->coding = coding;
	switch (coding) {
	case HTTP_CODING_BR:
		err = brotli_init(s);
		break;
	case HTTP_CODING_ZSTD:
		err = zstd_init(s);
		break;
	default:
		err = zlib_init(s);
		break;
	}
	if (err) {
		free(s);
		return NULL;
	}
	return s;
}

void compress_stream_free(struct compress_stream *s)
{
	if (!s)
		return;
	switch (s->coding) {
	case HTTP_CODING_BR:
		BrotliEncoderDestroyInstance(s->br);
		break;
	case HTTP_CODING_ZSTD:
		ZSTD_freeCCtx(s->zstd);
		break;
	default:
		deflateEnd(&s->z);
		break;
	}
	free(s);
}

static int zlib_step(struct compress_stream *s, const void *in, size_t in_len,
		     size_t *in_used, void *out, size_t *out_len, bool finish)
{
	/* Steps are far below 4 GiB: uInt holds their lengths. */
	int r;

	s->z.next_in = (Bytef *)in;
	s->z.avail_in = (uInt)in_len;
	s->z.next_out = out;
	s->z.avail_out = (uInt)*out_len;
	r = deflate(&s->z, finish ? Z_FINISH : Z_NO_FLUSH);
	*in_used = in_len - s->z.avail_in;
	*out_len -= s->z.avail_out;
	if (r == Z_STREAM_END)
		return 1;
	/* Z_BUF_ERROR: no progress possible now, which is no error. */
	return r == Z_OK || r == Z_BUF_ERROR ? 0 : -1;
}

static int brotli_step(struct compress_stream *s, const void *in, size_t in_len,
		       size_t *in_used, void *out, size_t *out_len, bool finish)
{
	const uint8_t *next_in = in;
	uint8_t *next_out = out;
	size_t avail_in = in_len, avail_out = *out_len;

	if (!BrotliEncoderCompressStream(
		    s->br,
		    finish ? BROTLI_OPERATION_FINISH : BROTLI_OPERATION_PROCESS,
		    &avail_in, &next_in, &avail_out, &next_out, NULL))
		return -1;
	*in_used = in_len - avail_in;
	*out_len -= avail_out;
	return finish && BrotliEncoderIsFinished(s->br) ? 1 : 0;
}

static int zstd_step(struct compress_stream *s, const void *in, size_t in_len,
		     size_t *in_used, void *out, size_t *out_len, bool finish)
{
	ZSTD_inBuffer i = { in, in_len, 0 };
	ZSTD_outBuffer o = { out, *out_len, 0 };
	size_t left = ZSTD_compressStream2(
		s->zstd, &o, &i, finish ? ZSTD_e_end : ZSTD_e_continue);

	if (ZSTD_isError(left))
		return -1;
	*in_used = i.pos;
	*out_len = o.pos;
	return finish && left == 0 ? 1 : 0;
}

int compress_stream_step(struct compress_stream *s, const void *in,
			 size_t in_len, size_t *in_used, void *out,
			 size_t *out_len, bool finish)
{
	switch (s->coding) {
	case HTTP_CODING_BR:
		return brotli_step(s, in, in_len, in_used, out, out_len,
				   finish);
	case HTTP_CODING_ZSTD:
		return zstd_step(s, in, in_len, in_used, out, out_len, finish);
	default:
		return zlib_step(s, in, in_len, in_used, out, out_len, finish);
	}
}
