/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A connection's output queue: responses are appended, never sent in
 * place, and the connection's work item flushes the queue with
 * non-blocking sends, resuming when the socket has room again.
 */
#ifndef KHTTPD_OUTQ_H
#define KHTTPD_OUTQ_H

#include <linux/list.h>
#include <linux/net.h>
#include <linux/types.h>
#include <linux/uio.h>

struct file;
struct khttpd_cache_entry;

struct khttpd_out {
	struct list_head segs; /* struct khttpd_out_seg, oldest first */
	struct socket *sock;
};

static inline void khttpd_out_init(struct khttpd_out *out, struct socket *sock)
{
	INIT_LIST_HEAD(&out->segs);
	out->sock = sock;
}

static inline bool khttpd_out_pending(const struct khttpd_out *out)
{
	return !list_empty(&out->segs);
}

/*
 * Sends vec[0..nvec) at once as far as the socket takes it when nothing is
 * queued before it, and appends the rest.  Queued pieces inside pin's
 * bodies are referenced (pin gets a reference until they are sent); all
 * others are copied.  Returns 0 or -ENOMEM.
 */
int khttpd_out_vec(struct khttpd_out *out, const struct kvec *vec, size_t nvec,
		   const struct khttpd_cache_entry *pin);

static inline int khttpd_out_copy(struct khttpd_out *out, const void *buf,
				  size_t len)
{
	struct kvec vec = { .iov_base = (void *)buf, .iov_len = len };

	return khttpd_out_vec(out, &vec, 1, NULL);
}

/* Appends file bytes [pos, end); takes over the caller's reference. */
int khttpd_out_file(struct khttpd_out *out, struct file *file, loff_t pos,
		    loff_t end);

/*
 * Sends what the socket takes without waiting, stopping once max bytes
 * are sent.  Returns 0 when the queue is empty, 1 when max bytes were sent
 * and more are queued, -EAGAIN when the socket is full (sent > 0 if
 * anything left), or another negative errno after which the connection
 * must be closed.
 */
int khttpd_out_flush(struct khttpd_out *out, size_t max, size_t *sent);

/* Drops everything still queued. */
void khttpd_out_release(struct khttpd_out *out);

#endif /* KHTTPD_OUTQ_H */
