// SPDX-License-Identifier: GPL-2.0
/*
 * A connection's socket callbacks (data ready, write space, state change).
 * They are installed after the connection's first pass and restored before
 * its socket is released, both under sk_callback_lock; in between, they
 * queue the connection's work item (conn.c) and do nothing else.
 */
#include "conn_sock.h"

#include <linux/skbuff.h>
#include <net/sock.h>
#include <net/tcp_states.h>

#include "conn.h"

/* The callbacks run in softirq context: they only queue the work item. */
static void khttpd_conn_sock_data_ready(struct sock *sk)
{
	struct khttpd_conn *c;

	read_lock_bh(&sk->sk_callback_lock);
	c = sk->sk_user_data;
	if (c)
		khttpd_conn_queue(c);
	read_unlock_bh(&sk->sk_callback_lock);
}

static void khttpd_conn_sock_write_space(struct sock *sk)
{
	struct khttpd_conn *c;

	read_lock_bh(&sk->sk_callback_lock);
	c = sk->sk_user_data;
	if (c) {
		/* Not on every ACK: when a send would make headway. */
		if (sk_stream_is_writeable(sk))
			khttpd_conn_queue(c);
		/* Clears SOCK_NOSPACE once writeable, as for any socket. */
		c->saved_write_space(sk);
	}
	read_unlock_bh(&sk->sk_callback_lock);
}

static void khttpd_conn_sock_state_change(struct sock *sk)
{
	struct khttpd_conn *c;

	read_lock_bh(&sk->sk_callback_lock);
	c = sk->sk_user_data;
	if (c) {
		/*
		 * Not for our own SHUT_WR (the work item that made it runs
		 * on), nor when the client acknowledged our FIN: nothing to
		 * read or send changed.  Its own FIN comes with sk_data_ready.
		 */
		if (sk->sk_state != TCP_FIN_WAIT1 &&
		    sk->sk_state != TCP_FIN_WAIT2)
			khttpd_conn_queue(c);
		c->saved_state_change(sk);
	}
	read_unlock_bh(&sk->sk_callback_lock);
}

/* Whether the socket had news for the work item before the callbacks. */
static bool khttpd_conn_sock_missed_events(struct khttpd_conn *c)
{
	struct sock *sk = c->sock->sk;

	return khttpd_out_pending(&c->out) ||
	       !skb_queue_empty_lockless(&sk->sk_receive_queue) ||
	       (READ_ONCE(sk->sk_shutdown) & RCV_SHUTDOWN) ||
	       READ_ONCE(sk->sk_err) || READ_ONCE(sk->sk_state) == TCP_CLOSE;
}

/*
 * Under the lock, so that no callback can queue the work item (which might
 * then close the connection) before the missed events are looked at.
 */
void khttpd_conn_sock_install(struct khttpd_conn *c, bool again)
{
	struct sock *sk = c->sock->sk;

	write_lock_bh(&sk->sk_callback_lock);
	c->saved_data_ready = sk->sk_data_ready;
	c->saved_write_space = sk->sk_write_space;
	c->saved_state_change = sk->sk_state_change;
	sk->sk_user_data = c;
	sk->sk_data_ready = khttpd_conn_sock_data_ready;
	sk->sk_write_space = khttpd_conn_sock_write_space;
	sk->sk_state_change = khttpd_conn_sock_state_change;
	/*
	 * Armed here too: a first pass that outlasted the deadline fires it
	 * at once, and the closing run waits for this lock before it
	 * restores the callbacks saved above.
	 */
	mod_timer(&c->timer, c->deadline);
	if (again || khttpd_conn_sock_missed_events(c))
		khttpd_conn_queue(c);
	write_unlock_bh(&sk->sk_callback_lock);
}

void khttpd_conn_sock_restore(struct khttpd_conn *c)
{
	struct sock *sk = c->sock->sk;

	write_lock_bh(&sk->sk_callback_lock);
	sk->sk_user_data = NULL;
	sk->sk_data_ready = c->saved_data_ready;
	sk->sk_write_space = c->saved_write_space;
	sk->sk_state_change = c->saved_state_change;
	write_unlock_bh(&sk->sk_callback_lock);
}
