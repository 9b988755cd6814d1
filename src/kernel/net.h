/* SPDX-License-Identifier: GPL-2.0 */
/* Blocking socket I/O bounded by timeouts, for connection work items. */
#ifndef KHTTPD_NET_H
#define KHTTPD_NET_H

#include <linux/net.h>
#include <linux/uio.h>

/*
 * Sends every byte of vec[0..nvec) in as few kernel_sendmsg() calls as the
 * socket allows (one, unless it is full), advancing vec past what was sent.
 * more: further data follows at once (MSG_MORE).  Returns 0, or a negative
 * errno: -EAGAIN when the peer accepted nothing for the send timeout.
 */
int khttpd_sendv(struct socket *sock, struct kvec *vec, size_t nvec, bool more);

static inline int khttpd_send(struct socket *sock, const void *buf, size_t len,
			      bool more)
{
	struct kvec vec = { .iov_base = (void *)buf, .iov_len = len };

	return khttpd_sendv(sock, &vec, 1, more);
}

/*
 * Receives up to len bytes, waiting at most timeout jiffies.  Returns the
 * count, 0 at the end of the stream, or a negative errno (-EAGAIN when the
 * time ran out).
 */
int khttpd_recv(struct socket *sock, void *buf, size_t len, long timeout);

/* How long one send may wait for the peer to make room. */
void khttpd_set_send_timeout(struct socket *sock, long timeout);

#endif /* KHTTPD_NET_H */
