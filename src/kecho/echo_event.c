// SPDX-License-Identifier: GPL-2.0
/*
 * The event-driven form: the socket's callbacks only queue the connection's
 * work item, which reads and writes without waiting until the socket has
 * nothing more to give or take, then returns.  A connection waiting for its
 * client holds no worker and no buffer, only a timer, which closes it once
 * the client has sent or read nothing for timeout_ms.
 */
#include <linux/net.h>
#include <linux/slab.h>
#include <linux/socket.h>
#include <linux/uio.h>
#include <net/sock.h>

#include "kecho.h"

/* Receives per run before yielding the worker to other connections. */
#define KECHO_RUN_BUDGET 16

static void queue_conn(struct sock *sk)
{
	struct kecho_conn *c;

	read_lock_bh(&sk->sk_callback_lock);
	c = sk->sk_user_data;
	if (c)
		queue_work(c->srv->wq, &c->work);
	read_unlock_bh(&sk->sk_callback_lock);
}

static void echo_data_ready(struct sock *sk)
{
	queue_conn(sk);
}

static void echo_state_change(struct sock *sk)
{
	queue_conn(sk);
}

static void echo_timer(struct timer_list *t)
{
	struct kecho_conn *c = from_timer(c, t, timer);

	queue_work(c->srv->wq, &c->work);
}

static void echo_write_space(struct sock *sk)
{
	/* As sk_stream_write_space() would, but waking the work item. */
	if (sk_stream_is_writeable(sk) && sk->sk_socket) {
		clear_bit(SOCK_NOSPACE, &sk->sk_socket->flags);
		queue_conn(sk);
	}
}

static void install_callbacks(struct kecho_conn *c)
{
	struct sock *sk = c->sock->sk;

	write_lock_bh(&sk->sk_callback_lock);
	c->saved_data_ready = sk->sk_data_ready;
	c->saved_write_space = sk->sk_write_space;
	c->saved_state_change = sk->sk_state_change;
	sk->sk_user_data = c;
	sk->sk_data_ready = echo_data_ready;
	sk->sk_write_space = echo_write_space;
	sk->sk_state_change = echo_state_change;
	write_unlock_bh(&sk->sk_callback_lock);
}

static void restore_callbacks(struct kecho_conn *c)
{
	struct sock *sk = c->sock->sk;

	write_lock_bh(&sk->sk_callback_lock);
	sk->sk_user_data = NULL;
	sk->sk_data_ready = c->saved_data_ready;
	sk->sk_write_space = c->saved_write_space;
	sk->sk_state_change = c->saved_state_change;
	write_unlock_bh(&sk->sk_callback_lock);
}

/* Sends what is pending: 0 when all of it went, else a negative errno. */
static int flush(struct kecho_conn *c)
{
	while (c->sent < c->len) {
		struct kvec vec = {
			.iov_base = c->buf + c->sent,
			.iov_len = c->len - c->sent,
		};
		struct msghdr msg = { .msg_flags = MSG_DONTWAIT |
						   MSG_NOSIGNAL };
		int n = kernel_sendmsg(c->sock, &msg, &vec, 1, vec.iov_len);

		if (n <= 0)
			return n ? n : -EPIPE;
		c->sent += n;
		c->last = jiffies;
	}
	return 0;
}

/* 1 when bytes await their echo, 0 at nothing to read, or an error. */
static int receive(struct kecho_conn *c)
{
	struct kvec vec;
	struct msghdr msg = { .msg_flags = MSG_DONTWAIT };
	int n;

	if (!c->buf) {
		c->buf = kmalloc(KECHO_BUF, GFP_KERNEL);
		if (!c->buf)
			return -ENOMEM;
	}
	vec.iov_base = c->buf;
	vec.iov_len = KECHO_BUF;
	n = kernel_recvmsg(c->sock, &msg, &vec, 1, KECHO_BUF, MSG_DONTWAIT);
	if (n == -EAGAIN) {
		/* Idle again: give the buffer back until bytes arrive. */
		kfree(c->buf);
		c->buf = NULL;
		return 0;
	}
	if (n <= 0)
		return n ? n : -ECONNRESET;
	c->len = n;
	c->sent = 0;
	c->last = jiffies;
	return 1;
}

static void event_work(struct work_struct *work)
{
	struct kecho_conn *c = container_of(work, struct kecho_conn, work);
	int budget = KECHO_RUN_BUDGET;
	int err;

	if (c->closed) {
		/* Queued once more before the callbacks were restored. */
		kfree(c);
		return;
	}
	for (;;) {
		err = flush(c);
		if (err == -EAGAIN)
			break; /* echo_write_space() queues us again */
		if (err)
			goto close;
		if (!budget--) {
			queue_work(c->srv->wq, &c->work);
			return;
		}
		err = receive(c);
		if (err < 0)
			goto close;
		if (!err)
			break; /* echo_data_ready() queues us again */
	}
	/* Waiting for the client, for timeout at most. */
	if (time_before(jiffies, c->last + c->srv->timeout)) {
		mod_timer(&c->timer, c->last + c->srv->timeout);
		return;
	}
close:
	restore_callbacks(c);
	/* Only this work item arms it; it may still have queued us. */
	timer_shutdown_sync(&c->timer);
	kfree(c->buf);
	kecho_conn_close(c);
	/*
	 * A callback may have queued this work before the restore; nothing
	 * can queue it now, so the pending bit is stable.  That last run
	 * frees the connection (the workqueue allows a work item to free
	 * itself).
	 */
	if (work_pending(&c->work))
		c->closed = true;
	else
		kfree(c);
}

void kecho_event_start(struct kecho_conn *c)
{
	INIT_WORK(&c->work, event_work);
	timer_setup(&c->timer, echo_timer, 0);
	c->last = jiffies;
	install_callbacks(c);
	/* Bytes that arrived before the callbacks were in place. */
	queue_work(c->srv->wq, &c->work);
}
