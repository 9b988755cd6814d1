// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel's zlib writes zlib or raw deflate streams only, so the gzip
 * header and trailer (CRC-32 and length) are added here around a raw
 * stream.  The output buffer is one byte smaller than the input: a stream
 * that does not fit is not worth sending.
 */
#include "gzip.h"

#include <linux/crc32.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/zlib.h>
#include <asm/unaligned.h>

#define GZIP_LEVEL 6
/*
 * Magic, deflate, no flags (no name or comment), no modification time, no
 * extra flags, operating system unknown.
 */
#define GZIP_HEADER "\x1f\x8b\x08\0\0\0\0\0\0\xff"
#define GZIP_HEADER_LEN (sizeof(GZIP_HEADER) - 1)
#define GZIP_TRAILER_LEN 8

int khttpd_gzip(const void *src, size_t len, void **out, size_t *out_len)
{
	size_t cap = len ? len - 1 : 0;
	struct z_stream_s strm = {};
	int ret = -E2BIG;
	u8 *buf;

	if (cap <= GZIP_HEADER_LEN + GZIP_TRAILER_LEN || len > U32_MAX)
		return -E2BIG;
	buf = kvmalloc(cap, GFP_KERNEL);
	strm.workspace =
		kvmalloc(zlib_deflate_workspacesize(MAX_WBITS, MAX_MEM_LEVEL),
			 GFP_KERNEL);
	if (!buf || !strm.workspace) {
		ret = -ENOMEM;
		goto out;
	}
	/* Negative window bits: a raw deflate stream, without zlib's wrap. */
	if (zlib_deflateInit2(&strm, GZIP_LEVEL, Z_DEFLATED, -MAX_WBITS,
			      MAX_MEM_LEVEL, Z_DEFAULT_STRATEGY) != Z_OK) {
		ret = -EINVAL;
		goto out;
	}
	memcpy(buf, GZIP_HEADER, GZIP_HEADER_LEN);
	strm.next_in = src;
	strm.avail_in = len;
	strm.next_out = buf + GZIP_HEADER_LEN;
	strm.avail_out = cap - GZIP_HEADER_LEN - GZIP_TRAILER_LEN;
	if (zlib_deflate(&strm, Z_FINISH) == Z_STREAM_END) {
		u8 *tail = buf + GZIP_HEADER_LEN + strm.total_out;

		put_unaligned_le32(~crc32_le(~0, src, len), tail);
		put_unaligned_le32(len, tail + 4);
		*out_len = tail + GZIP_TRAILER_LEN - buf;
		*out = buf;
		buf = NULL;
		ret = 0;
	}
	zlib_deflateEnd(&strm);
out:
	kvfree(strm.workspace);
	kvfree(buf);
	return ret;
}
