// SPDX-License-Identifier: GPL-2.0
/*
 * gzip through the crypto API: its "deflate" compressor (built into the
 * kernel) writes a raw deflate stream at the default level, and the gzip
 * header and trailer (CRC-32 and length) are added here.  One transform
 * serves the module; its stream state is not reentrant, so a mutex
 * serialises users, which only cache fills are.  The output buffer is one
 * byte smaller than the input: a stream that does not fit is not worth
 * sending.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include "gzip.h"

#include <linux/crc32.h>
#include <linux/crypto.h>
#include <linux/err.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <asm/unaligned.h>

#include "stats.h"

/*
 * Magic, deflate, no flags (no name or comment), no modification time, no
 * extra flags, operating system unknown.
 */
#define GZIP_HEADER "\x1f\x8b\x08\0\0\0\0\0\0\xff"
#define GZIP_HEADER_LEN (sizeof(GZIP_HEADER) - 1)
#define GZIP_TRAILER_LEN 8

static struct crypto_comp *deflate_tfm; /* under deflate_lock */
static DEFINE_MUTEX(deflate_lock);

int khttpd_gzip_init(void)
{
	deflate_tfm = crypto_alloc_comp("deflate", 0, 0);
	if (IS_ERR(deflate_tfm)) {
		int err = PTR_ERR(deflate_tfm);

		pr_err("no deflate compressor in the crypto API: %pe\n",
		       ERR_PTR(err));
		deflate_tfm = NULL;
		return err;
	}
	return 0;
}

void khttpd_gzip_exit(void)
{
	crypto_free_comp(deflate_tfm);
	deflate_tfm = NULL;
}

int khttpd_gzip(const void *src, size_t len, void **out, size_t *out_len)
{
	size_t cap = len ? len - 1 : 0;
	unsigned int dlen;
	int err;
	u8 *buf;

	if (cap <= GZIP_HEADER_LEN + GZIP_TRAILER_LEN || len > U32_MAX)
		return -E2BIG;
	buf = kvmalloc(cap, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	memcpy(buf, GZIP_HEADER, GZIP_HEADER_LEN);
	dlen = cap - GZIP_HEADER_LEN - GZIP_TRAILER_LEN;
	khttpd_count(&khttpd_stats.compressions);
	mutex_lock(&deflate_lock);
	err = crypto_comp_compress(deflate_tfm, src, len, buf + GZIP_HEADER_LEN,
				   &dlen);
	mutex_unlock(&deflate_lock);
	if (err) {
		/* Mostly: the stream did not fit, i.e. would not be smaller. */
		kvfree(buf);
		return err == -ENOMEM ? -ENOMEM : -E2BIG;
	}
	put_unaligned_le32(~crc32_le(~0, src, len),
			   buf + GZIP_HEADER_LEN + dlen);
	put_unaligned_le32(len, buf + GZIP_HEADER_LEN + dlen + 4);
	*out_len = GZIP_HEADER_LEN + dlen + GZIP_TRAILER_LEN;
	*out = buf;
	return 0;
}
