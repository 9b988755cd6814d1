// SPDX-License-Identifier: GPL-2.0
/*
 * The output queue is a list of segments: bytes copied into memory the
 * queue owns (heads, status pages, listing pieces), bytes of a cached body
 * that the queue holds a reference on (no copy however large), and a range
 * of a file, handed to the socket as its page-cache pages (khttpd_send_page)
 * and read into a bounded buffer only where a page is not cached, as the
 * socket takes it.  Sends never wait:
 * MSG_DONTWAIT, and -EAGAIN leaves the rest for the next sk_write_space.
 */
#include "outq.h"

#include <linux/file.h>
#include <linux/fs.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/pagemap.h>
#include <linux/slab.h>
#include <linux/socket.h>
#include <linux/swap.h>

#include "alloc.h"
#include "cache.h"
#include "compat.h"
#include "stats.h"

/* Small copies share a segment of at least this size. */
#define SEG_MIN 1024
/* Where its pages are not cached, a file is read in pieces of this size. */
#define FILE_PIECE (64 * 1024)
/* Segments gathered into one sendmsg. */
#define SEND_IOV 8

enum seg_kind { SEG_MEM, SEG_PIN, SEG_FILE };

struct khttpd_out_seg {
	struct list_head node;
	enum seg_kind kind;
	const char *data; /* unsent bytes are data[off, len) */
	size_t off, len;
	size_t cap; /* SEG_MEM: room at data; SEG_FILE: size of buf */
	struct khttpd_cache_entry *entry; /* SEG_PIN */
	struct file *file; /* SEG_FILE: bytes [pos, end) still to read */
	loff_t pos, end;
	char *buf;
	char mem[]; /* SEG_MEM */
};

static void khttpd_out_seg_free(struct khttpd_out_seg *s)
{
	list_del(&s->node);
	if (s->kind == SEG_PIN)
		khttpd_cache_put(s->entry);
	if (s->kind == SEG_FILE) {
		fput(s->file);
		kvfree(s->buf);
	}
	kvfree(s);
}

static struct khttpd_out_seg *khttpd_out_seg_new(struct khttpd_out *out,
						 enum seg_kind kind, size_t cap)
{
	struct khttpd_out_seg *s = khttpd_kvmalloc(struct_size(s, mem, cap));

	if (!s)
		return NULL;
	*s = (struct khttpd_out_seg){ .kind = kind, .cap = cap };
	s->data = s->mem;
	list_add_tail(&s->node, &out->segs);
	return s;
}

static bool khttpd_out_within(const char *base, size_t size, const char *p,
			      size_t len)
{
	return base && p >= base && p + len <= base + size;
}

/* Whether p lies in a body e holds: its own, its gzip form or a sibling's. */
static bool khttpd_out_pinned(const struct khttpd_cache_entry *e, const char *p,
			      size_t len)
{
	unsigned int slot;

	if (!e)
		return false;
	if (khttpd_out_within(e->body, e->body_len, p, len) ||
	    khttpd_out_within(e->gz, e->gz_len, p, len))
		return true;
	for (slot = 0; slot < HTTP_PRECOMPRESSED_COUNT; slot++) {
		if (khttpd_out_within(e->sib[slot], e->valid.sib[slot].id.size,
				      p, len))
			return true;
	}
	return false;
}

static int khttpd_out_copy_mem(struct khttpd_out *out, const char *p,
			       size_t len)
{
	struct khttpd_out_seg *s = NULL;

	if (!list_empty(&out->segs))
		s = list_last_entry(&out->segs, struct khttpd_out_seg, node);
	if (!s || s->kind != SEG_MEM || s->cap - s->len < len) {
		s = khttpd_out_seg_new(out, SEG_MEM,
				       max_t(size_t, len, SEG_MIN));
		if (!s)
			return -ENOMEM;
	}
	memcpy(s->mem + s->len, p, len);
	s->len += len;
	return 0;
}

/*
 * With nothing queued, the response goes straight to the socket: no
 * segment to allocate in the common case.  Returns the bytes it took (an
 * error is left for the flush to meet again).
 */
static size_t khttpd_out_send_now(struct khttpd_out *out,
				  const struct kvec *vec, size_t nvec)
{
	struct msghdr msg = { .msg_flags = MSG_DONTWAIT | MSG_NOSIGNAL };
	size_t total = 0, i;
	int r;

	if (!list_empty(&out->segs))
		return 0;
	for (i = 0; i < nvec; i++)
		total += vec[i].iov_len;
	if (!total)
		return 0;
	/* The socket layer iterates over vec; it does not change it. */
	r = kernel_sendmsg(out->sock, &msg, (struct kvec *)vec, nvec, total);
	return r > 0 ? r : 0;
}

int khttpd_out_vec(struct khttpd_out *out, const struct kvec *vec, size_t nvec,
		   const struct khttpd_cache_entry *pin)
{
	size_t i, skip = khttpd_out_send_now(out, vec, nvec);

	for (i = 0; i < nvec; i++) {
		const char *p = vec[i].iov_base;
		size_t len = vec[i].iov_len;
		struct khttpd_out_seg *s;

		if (skip >= len) {
			skip -= len;
			continue;
		}
		p += skip;
		len -= skip;
		skip = 0;
		if (!khttpd_out_pinned(pin, p, len)) {
			if (khttpd_out_copy_mem(out, p, len))
				return -ENOMEM;
			continue;
		}
		s = khttpd_out_seg_new(out, SEG_PIN, 0);
		if (!s)
			return -ENOMEM;
		/* The entry is shared read-only; only its count changes. */
		s->entry = (struct khttpd_cache_entry *)pin;
		/* Dropped by khttpd_out_seg_free(). */
		refcount_inc(&s->entry->ref);
		s->data = p;
		s->len = len;
	}
	return 0;
}

int khttpd_out_file(struct khttpd_out *out, struct file *file, loff_t pos,
		    loff_t end)
{
	struct khttpd_out_seg *s;

	if (pos >= end) {
		fput(file);
		return 0;
	}
	s = khttpd_out_seg_new(out, SEG_FILE, 0);
	if (!s) {
		fput(file);
		return -ENOMEM;
	}
	s->file = file;
	s->pos = pos;
	s->end = end;
	return 0;
}

/*
 * Sends the file segment's next bytes from the page cache while they are
 * there, until *sent reaches max.  Returns 0 when it ended (or a page must
 * be read, or max was reached: s->pos < s->end still), -EAGAIN when the
 * socket is full, or another negative errno.
 */
static int khttpd_out_send_pages(struct khttpd_out *out,
				 struct khttpd_out_seg *s, size_t max,
				 size_t *sent)
{
	struct address_space *mapping = s->file->f_mapping;
	struct inode *inode = file_inode(s->file);

	while (s->pos < s->end && *sent < max) {
		size_t off = offset_in_page(s->pos);
		size_t len = min_t(loff_t, PAGE_SIZE - off, s->end - s->pos);
		int flags = MSG_DONTWAIT | MSG_NOSIGNAL;
		struct page *page;
		int r;

		/* Cut short since: the read notices and ends the response. */
		if (i_size_read(inode) < s->end)
			return 0;
		page = find_get_page(mapping, s->pos >> PAGE_SHIFT);
		if (!page)
			return 0;
		if (!PageUptodate(page) || !sendpage_ok(page)) {
			put_page(page);
			return 0;
		}
		if (s->pos + len < s->end ||
		    !list_is_last(&s->node, &out->segs))
			flags |= MSG_MORE;
		r = khttpd_send_page(out->sock, page, off, len, flags);
		if (r > 0)
			mark_page_accessed(page);
		put_page(page);
		if (r <= 0)
			return r ? r : -EPIPE;
		khttpd_count_add(&khttpd_stats.page_bytes, r);
		s->pos += r;
		*sent += r;
	}
	return 0;
}

/* The next piece of a file segment whose buffer was sent. */
static int khttpd_out_fill(struct khttpd_out_seg *s)
{
	ssize_t n;

	if (!s->buf) {
		s->cap = min_t(loff_t, s->end - s->pos, FILE_PIECE);
		s->buf = khttpd_kvmalloc(s->cap);
		if (!s->buf)
			return -ENOMEM;
		s->data = s->buf;
	}
	n = kernel_read(s->file, s->buf, min_t(loff_t, s->end - s->pos, s->cap),
			&s->pos);
	/* A file cut short cannot meet its Content-Length: close. */
	if (n <= 0)
		return n ? n : -EIO;
	khttpd_count_add(&khttpd_stats.read_bytes, n);
	s->off = 0;
	s->len = n;
	return 0;
}

static bool khttpd_out_seg_done(const struct khttpd_out_seg *s)
{
	return s->off == s->len && (s->kind != SEG_FILE || s->pos >= s->end);
}

int khttpd_out_flush(struct khttpd_out *out, size_t max, size_t *sent)
{
	*sent = 0;
	while (!list_empty(&out->segs)) {
		struct khttpd_out_seg *s, *last = NULL, *tmp;
		struct kvec vec[SEND_IOV];
		struct msghdr msg = { .msg_flags = MSG_DONTWAIT |
						   MSG_NOSIGNAL };
		size_t n = 0, total = 0, done;
		int r;

		s = list_first_entry(&out->segs, struct khttpd_out_seg, node);
		if (khttpd_out_seg_done(s)) {
			khttpd_out_seg_free(s);
			continue;
		}
		if (*sent >= max)
			return 1;
		if (s->kind == SEG_FILE && s->off == s->len) {
			r = khttpd_out_send_pages(out, s, max, sent);
			if (r)
				return r;
			if (khttpd_out_seg_done(s))
				continue;
			if (*sent >= max)
				return 1;
			r = khttpd_out_fill(s);
			if (r)
				return r;
		}
		list_for_each_entry_from(s, &out->segs, node)
		{
			if (n == SEND_IOV || s->off == s->len)
				break;
			vec[n++] = (struct kvec){
				.iov_base = (void *)(s->data + s->off),
				.iov_len = s->len - s->off,
			};
			total += s->len - s->off;
			last = s;
			if (s->kind == SEG_FILE)
				break;
		}
		if (!list_is_last(&last->node, &out->segs) ||
		    (last->kind == SEG_FILE && last->pos < last->end))
			msg.msg_flags |= MSG_MORE;
		r = kernel_sendmsg(out->sock, &msg, vec, n, total);
		if (r < 0)
			return r;
		if (r == 0)
			return -EPIPE;
		*sent += r;
		done = r;
		list_for_each_entry_safe(s, tmp, &out->segs, node) {
			size_t take = min(done, s->len - s->off);

			s->off += take;
			done -= take;
			if (khttpd_out_seg_done(s))
				khttpd_out_seg_free(s);
			if (!done)
				break;
		}
	}
	return 0;
}

void khttpd_out_release(struct khttpd_out *out)
{
	struct khttpd_out_seg *s, *tmp;

	list_for_each_entry_safe(s, tmp, &out->segs, node)
		khttpd_out_seg_free(s);
}
