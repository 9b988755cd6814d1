// SPDX-License-Identifier: GPL-2.0
/*
 * gzip from the kernel's zlib, at gzip's own default: level 6 with a 32 KiB
 * window (windowBits 15) and memLevel 8.  The crypto API wraps the same
 * zlib but fixes its parameters: its "deflate" runs with a 2 KiB window
 * (windowBits 11), its "zlib-deflate" at level 3; both come out larger.
 * Its acomp interface offers deflate on 6.1 only through the scomp
 * wrapper, which bounces every request through one 128 KiB scratch buffer
 * per CPU and refuses larger inputs, while cache entries reach 1 MiB.
 *
 * A zlib stream is not reentrant, so compressors are pooled, one per CPU
 * (up to DEFLATER_MAX): a caller takes the first free one, starting at its
 * own CPU's, and only when all are busy waits for that one.  The gzip header
 * and trailer (CRC-32 and length) are added here.  Inputs above 64 KiB are
 * deflated on the unbound queue (offload.h), 32 KiB at a time.  The output
 * buffer is one byte smaller than the input: a stream that does not fit is
 * not worth sending.  The result is copied into memory of its own size,
 * which is what the cache counts.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include "compress.h"

#include <linux/cpumask.h>
#include <linux/crc32.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/vmalloc.h>
#include <linux/zlib.h>

#include "alloc.h"
#include "compat.h"
#include "offload.h"
#include "stats.h"

#define GZIP_LEVEL 6
#define GZIP_WINDOW_BITS MAX_WBITS
#define GZIP_MEM_LEVEL 8
/* Compressors at most, whatever the number of CPUs. */
#define DEFLATER_MAX 16
/* Input deflated between chances to reschedule: about a millisecond. */
#define DEFLATE_STEP (32 * 1024)
/* Larger inputs are deflated off the connection's worker (offload.h). */
#define GZIP_INLINE_MAX (64 * 1024)

/*
 * Magic, deflate, no flags (no name or comment), no modification time, no
 * extra flags, operating system unknown.
 */
#define GZIP_HEADER "\x1f\x8b\x08\0\0\0\0\0\0\xff"
#define GZIP_HEADER_LEN (sizeof(GZIP_HEADER) - 1)
#define GZIP_TRAILER_LEN 8

struct deflater {
	struct mutex lock;
	struct z_stream_s strm; /* a raw deflate stream, reset for each use */
};

static struct deflater *pool;
static unsigned int pool_size;

void khttpd_gzip_exit(void)
{
	unsigned int i;

	for (i = 0; i < pool_size; i++) {
		zlib_deflateEnd(&pool[i].strm);
		vfree(pool[i].strm.workspace);
	}
	kfree(pool);
	pool = NULL;
	pool_size = 0;
}

int khttpd_gzip_init(void)
{
	unsigned int n = min_t(unsigned int, num_possible_cpus(), DEFLATER_MAX);
	int ws = zlib_deflate_workspacesize(GZIP_WINDOW_BITS, GZIP_MEM_LEVEL);

	pool = kcalloc(n, sizeof(*pool), GFP_KERNEL);
	if (!pool)
		return -ENOMEM;
	for (pool_size = 0; pool_size < n; pool_size++) {
		struct deflater *d = &pool[pool_size];

		mutex_init(&d->lock);
		d->strm.workspace = vzalloc(ws);
		if (!d->strm.workspace)
			goto err;
		/* A negative windowBits: raw deflate, the framing is ours. */
		if (zlib_deflateInit2(&d->strm, GZIP_LEVEL, Z_DEFLATED,
				      -GZIP_WINDOW_BITS, GZIP_MEM_LEVEL,
				      Z_DEFAULT_STRATEGY) != Z_OK) {
			vfree(d->strm.workspace);
			goto err;
		}
	}
	return 0;
err:
	pr_err("no memory for %u compressors\n", n);
	khttpd_gzip_exit();
	return -ENOMEM;
}

static struct deflater *khttpd_gzip_deflater_get(void)
{
	unsigned int first = raw_smp_processor_id() % pool_size, i;

	for (i = 0; i < pool_size; i++) {
		struct deflater *d = &pool[(first + i) % pool_size];

		if (mutex_trylock(&d->lock))
			return d;
	}
	mutex_lock(&pool[first].lock);
	return &pool[first];
}

/*
 * Deflates src into dst; the length, or 0 when it does not fit.  In steps
 * of DEFLATE_STEP input bytes, with a chance to reschedule between them.
 */
static size_t khttpd_gzip_deflate_into(const void *src, size_t len, u8 *dst,
				       size_t cap)
{
	struct deflater *d = khttpd_gzip_deflater_get();
	struct z_stream_s *strm = &d->strm;
	size_t left = len, out = 0;

	if (zlib_deflateReset(strm) == Z_OK) {
		strm->next_in = src;
		strm->next_out = dst;
		strm->avail_out = cap;
		for (;;) {
			size_t step = min_t(size_t, left, DEFLATE_STEP);
			int flush = step == left ? Z_FINISH : Z_NO_FLUSH;
			int r;

			strm->avail_in = step;
			r = zlib_deflate(strm, flush);
			if (flush == Z_FINISH) {
				if (r == Z_STREAM_END)
					out = strm->total_out;
				break;
			}
			/* Input left over: the output is full. */
			if (r != Z_OK || strm->avail_in)
				break;
			left -= step;
			cond_resched();
		}
	}
	mutex_unlock(&d->lock);
	return out;
}

static int khttpd_gzip_here(const void *src, size_t len, void **out,
			    size_t *out_len)
{
	size_t cap = len ? len - 1 : 0;
	size_t dlen, n;
	u8 *buf, *exact;

	if (cap <= GZIP_HEADER_LEN + GZIP_TRAILER_LEN || len > U32_MAX)
		return -E2BIG;
	buf = khttpd_kvmalloc(cap);
	if (!buf)
		return -ENOMEM;
	khttpd_count(&khttpd_stats.compressions);
	memcpy(buf, GZIP_HEADER, GZIP_HEADER_LEN);
	dlen = khttpd_gzip_deflate_into(src, len, buf + GZIP_HEADER_LEN,
					cap - GZIP_HEADER_LEN -
						GZIP_TRAILER_LEN);
	if (!dlen) {
		kvfree(buf);
		return -E2BIG;
	}
	put_unaligned_le32(~crc32_le(~0, src, len),
			   buf + GZIP_HEADER_LEN + dlen);
	put_unaligned_le32(len, buf + GZIP_HEADER_LEN + dlen + 4);
	n = GZIP_HEADER_LEN + dlen + GZIP_TRAILER_LEN;
	/* kvrealloc() does not shrink: a copy, so no slack stays behind. */
	exact = khttpd_kvmalloc(n);
	if (exact)
		memcpy(exact, buf, n);
	kvfree(buf);
	if (!exact)
		return -ENOMEM;
	*out_len = n;
	*out = exact;
	return 0;
}

struct gzip_job {
	const void *src;
	size_t len;
	void **out;
	size_t *out_len;
	int err;
};

static void khttpd_gzip_job(void *arg)
{
	struct gzip_job *job = arg;

	job->err = khttpd_gzip_here(job->src, job->len, job->out, job->out_len);
}

int khttpd_gzip(const void *src, size_t len, void **out, size_t *out_len)
{
	struct gzip_job job = { src, len, out, out_len, 0 };

	if (len <= GZIP_INLINE_MAX)
		return khttpd_gzip_here(src, len, out, out_len);
	khttpd_offload(khttpd_gzip_job, &job);
	return job.err;
}
