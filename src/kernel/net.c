// SPDX-License-Identifier: GPL-2.0
/*
 * Timeouts are the sockets' own (sk_rcvtimeo, sk_sndtimeo): a work item
 * sleeps in recvmsg/sendmsg and the socket layer wakes it when the time is
 * up, when data arrives, or when the module shuts the socket down on unload.
 * No timer has to be armed, cancelled or synchronised with the work item.
 */
#include "net.h"

#include <linux/socket.h>
#include <net/sock.h>

static void advance(struct kvec **vec, size_t *nvec, size_t n)
{
	while (*nvec > 0 && n >= (*vec)->iov_len) {
		n -= (*vec)->iov_len;
		(*vec)++;
		(*nvec)--;
	}
	if (*nvec > 0) {
		(*vec)->iov_base += n;
		(*vec)->iov_len -= n;
	}
}

int khttpd_sendv(struct socket *sock, struct kvec *vec, size_t nvec, bool more)
{
	struct msghdr msg = {
		.msg_flags = MSG_NOSIGNAL | (more ? MSG_MORE : 0),
	};
	size_t left = 0, i;

	for (i = 0; i < nvec; i++)
		left += vec[i].iov_len;
	while (left > 0) {
		int sent;

		advance(&vec, &nvec, 0); /* skip empty pieces */
		sent = kernel_sendmsg(sock, &msg, vec, nvec, left);
		if (sent < 0)
			return sent;
		if (sent == 0)
			return -EPIPE;
		left -= sent;
		advance(&vec, &nvec, sent);
	}
	return 0;
}

int khttpd_recv(struct socket *sock, void *buf, size_t len, long timeout)
{
	struct msghdr msg = {};
	struct kvec vec = { .iov_base = buf, .iov_len = len };

	if (timeout <= 0)
		return -EAGAIN;
	WRITE_ONCE(sock->sk->sk_rcvtimeo, timeout);
	return kernel_recvmsg(sock, &msg, &vec, 1, len, 0);
}

void khttpd_set_send_timeout(struct socket *sock, long timeout)
{
	WRITE_ONCE(sock->sk->sk_sndtimeo, timeout);
}
