// SPDX-License-Identifier: GPL-2.0
/*
 * The classic form: one work item per connection that sleeps in recv and
 * send for the connection's whole life, so each connected client, idle or
 * not, holds a worker (and the workqueue's max_active bounds how many are
 * served at once).  Kept to compare against the event-driven form.  The
 * socket's receive and send timeouts are timeout_ms: a client silent, or
 * not reading, that long is closed.
 */
#include <linux/net.h>
#include <linux/slab.h>
#include <linux/socket.h>
#include <linux/uio.h>
#include <net/sock.h>

#include "kecho.h"

static int send_all(struct socket *sock, const char *buf, size_t len)
{
	while (len) {
		struct kvec vec = { .iov_base = (void *)buf, .iov_len = len };
		struct msghdr msg = { .msg_flags = MSG_NOSIGNAL };
		int n = kernel_sendmsg(sock, &msg, &vec, 1, len);

		if (n <= 0)
			return n ? n : -EPIPE;
		buf += n;
		len -= n;
	}
	return 0;
}

static void blocking_work(struct work_struct *work)
{
	struct kecho_conn *c = container_of(work, struct kecho_conn, work);
	char *buf = kmalloc(KECHO_BUF, GFP_KERNEL);

	while (buf) {
		struct kvec vec = { .iov_base = buf, .iov_len = KECHO_BUF };
		struct msghdr msg = { .msg_flags = 0 };
		int n = kernel_recvmsg(c->sock, &msg, &vec, 1, KECHO_BUF, 0);

		if (n <= 0 || send_all(c->sock, buf, n))
			break;
	}
	kfree(buf);
	kecho_conn_close(c);
	kfree(c); /* nothing queues this work again */
}

void kecho_blocking_start(struct kecho_conn *c)
{
	struct sock *sk = c->sock->sk;

	lock_sock(sk);
	sk->sk_rcvtimeo = c->srv->timeout;
	sk->sk_sndtimeo = c->srv->timeout;
	release_sock(sk);
	INIT_WORK(&c->work, blocking_work);
	queue_work(c->srv->wq, &c->work);
}
