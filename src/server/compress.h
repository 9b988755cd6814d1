/* SPDX-License-Identifier: MIT */
/* gzip and zlib-format compression with libdeflate, one compressor a thread. */
#ifndef SERVER_COMPRESS_H
#define SERVER_COMPRESS_H

#include <stddef.h>

#include "http/negotiate.h"

#define COMPRESS_LEVEL 6 /* what nginx's and most servers' gzip default */

struct compressor;

struct compressor *compressor_new(void);
void compressor_free(struct compressor *c);

/*
 * Compresses in[0..len) with coding (gzip or deflate) into a new malloc'd
 * buffer; returns it and sets *out_len, or returns NULL when the result
 * would not be smaller than the input (or memory ran out).
 */
char *compress_buffer(struct compressor *c, enum http_coding coding,
		      const char *in, size_t len, size_t *out_len);

#endif /* SERVER_COMPRESS_H */
