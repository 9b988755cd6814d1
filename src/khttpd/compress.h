/* SPDX-License-Identifier: GPL-2.0 */
/* gzip members (RFC 1952) from the kernel's zlib, level 6, 32 KiB window. */
#ifndef KHTTPD_COMPRESS_H
#define KHTTPD_COMPRESS_H

#include <linux/types.h>

/*
 * Compresses src[0..len) into one gzip member in a new kvmalloc()ed buffer
 * (*out, *out_len).  Returns 0, or -E2BIG when the result would not be
 * smaller than the input (nothing is allocated then), or -ENOMEM.
 */
int khttpd_gzip(const void *src, size_t len, void **out, size_t *out_len);

/* Sets up and frees the compressors, at module load and unload. */
int khttpd_gzip_init(void);
void khttpd_gzip_exit(void);

#endif /* KHTTPD_COMPRESS_H */
