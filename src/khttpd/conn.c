// SPDX-License-Identifier: GPL-2.0
/*
 * A connection never waits for its client.  Socket callbacks (data ready,
 * write space, state change: conn_sock.c) and a timer only queue the
 * connection's work item; the work item reads what has arrived
 * (MSG_DONTWAIT), answers complete request heads into the output queue,
 * sends what the socket takes and returns, or, after a bounded amount of
 * work, queues itself again behind the other work items of its CPU.  An
 * idle connection therefore holds no worker, and no receive buffer either:
 * the buffer is allocated when bytes arrive and freed when all of them
 * have been consumed.  The first pass runs where the connection is
 * accepted, before the callbacks are installed: a request that came with
 * the handshake is answered without waking a worker when the cache holds
 * its answer; one that needs more is left to the work item, so that the
 * accept work never waits for an open, a read or a deflate.
 *
 * The states: a request head is read (HEAD), its response is sent (SEND),
 * its body skipped (BODY), and after a response that ends the connection
 * while the client may still be sending (http_close_lingers), or one to a
 * refused head, the client's remaining bytes are drained until its FIN
 * (LINGER); otherwise the socket is released at once.  The one
 * deadline, checked whenever the work item runs and armed as the timer when
 * it returns, is
 *   HEAD:   timeout after the connection became idle, however the head
 *           trickles in;
 *   SEND:   timeout after the last progress (the socket took bytes or the
 *           client acknowledged some), and at the latest timeout plus what
 *           the bytes acknowledged earn at min_rate after the
 *           response began: a slow reader cannot hold it for ever;
 *   BODY:   the same, with the body bytes received, after the body began;
 *           then the connection lingers (the response is out);
 *   LINGER: the linger bound, at most timeout.
 * Acknowledged bytes, not those the socket took, count for the rate: a
 * send buffer of megabytes would otherwise give a slow reader minutes.
 *
 * Tear-down happens in the work item: callbacks restored under
 * sk_callback_lock, timer stopped, connection off the server's list, socket
 * released.  After that nothing can queue the work item again; if it was
 * queued in between, its last run only frees the connection.  Unloading
 * does the same for all connections at once (conn_unload.c): work items
 * that run once the server is stopping leave their connection alone.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include "conn.h"

#include <linux/cred.h>
#include <linux/jiffies.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/sched/mm.h>
#include <linux/net.h>
#include <linux/slab.h>
#include <linux/tcp.h>
#include <net/sock.h>

#include "alloc.h"
#include "compat.h"
#include "conn_sock.h"
#include "respond.h"
#include "serve.h"
#include "stats.h"

/* The exchange a request is answered through: what respond.c needs. */
static void khttpd_exchange_init(struct khttpd_exchange *x,
				 struct khttpd_conn *c, const char *buf,
				 const struct http_request *req)
{
	x->srv = c->srv;
	x->out = &c->out;
	x->head = c->head;
	x->head_cap = sizeof(c->head);
	x->path = NULL; /* taken for the request's answer only */
	x->path_len = 0;
	x->buf = buf;
	x->req = req;
	x->head_only = req && req->method == HTTP_HEAD;
	x->keep_alive = req && req->keep_alive && !khttpd_stopping(c->srv);
	x->inline_only = false;
	x->deferred = false;
	x->root_turn = 0;
	x->now = ktime_get_real_seconds();
	http_format_date(x->date, x->now);
}

/*
 * What one step of the state machine leaves the work item to do: wait for
 * the socket or the timer, go on, close, or give way (its budget is spent,
 * or the server is stopping) and run again later.
 */
enum step { STEP_WAIT, STEP_AGAIN, STEP_CLOSE, STEP_YIELD };

/*
 * What one run may do before it gives way to the other work items of its
 * CPU's pool (other connections, and the kernel's own work there): the
 * pool runs another item only when this one returns or sleeps, and a run
 * never sleeps.  Without a bound, a client streaming a body, or pipelining
 * requests while reading fast, held the CPU's worker as long as it kept
 * the socket busy, and an unload waited for it.
 */
#define KHTTPD_RUN_STEPS 64 /* steps of the state machine */
#define KHTTPD_RUN_BYTES (512 * 1024) /* bytes received and sent */

/* Whether the run should give way (STEP_YIELD). */
static bool khttpd_conn_must_yield(const struct khttpd_conn *c)
{
	return c->budget <= 0 || khttpd_stopping(c->srv);
}

static void khttpd_conn_set_deadline(struct khttpd_conn *c, long timeout)
{
	c->deadline = jiffies + timeout;
}

/* A response or a body begins: the timeout from now, until progress. */
static void khttpd_conn_start_transfer(struct khttpd_conn *c, u64 base)
{
	c->xfer_start = c->xfer_last = jiffies;
	c->xfer_base = c->xfer_bytes = base;
	khttpd_conn_set_deadline(c, c->srv->timeout);
}

/* start + timeout + the core's extension for the progress and bytes. */
static void khttpd_conn_transfer_deadline(struct khttpd_conn *c, u64 bytes)
{
	unsigned int progress = jiffies_to_msecs(c->xfer_last - c->xfer_start);

	c->deadline = c->xfer_start + c->srv->timeout +
		      msecs_to_jiffies(http_transfer_extension_ms(
			      progress, bytes, c->srv->min_rate));
}

static u64 khttpd_conn_bytes_acked(const struct khttpd_conn *c)
{
	return READ_ONCE(tcp_sk(c->sock->sk)->bytes_acked);
}

/* SEND: sent bytes, or bytes the client acknowledged since, are progress. */
static void khttpd_conn_send_progress(struct khttpd_conn *c, size_t sent)
{
	u64 acked = khttpd_conn_bytes_acked(c);

	if (sent || acked != c->xfer_bytes)
		c->xfer_last = jiffies;
	c->xfer_bytes = acked;
	khttpd_conn_transfer_deadline(c, acked - c->xfer_base);
}

/*
 * Without a call into the socket (and without a buffer): after each
 * answered keep-alive request the next is usually not there yet.  Bytes
 * that arrive after this look queue the work item again.
 */
static bool khttpd_conn_nothing_to_read(const struct sock *sk)
{
	return skb_queue_empty_lockless(&sk->sk_receive_queue) &&
	       !(READ_ONCE(sk->sk_shutdown) & RCV_SHUTDOWN) &&
	       !READ_ONCE(sk->sk_err) && READ_ONCE(sk->sk_state) != TCP_CLOSE;
}

/*
 * Receives what has arrived into the buffer, allocating or growing it as
 * needed.  Returns the count, 0 at the end of the stream, -EAGAIN when
 * nothing is there, -ENOBUFS when a request head fills the largest buffer,
 * or another negative errno.
 */
static int khttpd_conn_receive(struct khttpd_conn *c)
{
	struct msghdr msg = { .msg_flags = MSG_DONTWAIT };
	struct kvec vec;
	int n;

	if (c->start == c->end)
		c->start = c->end = 0;
	if (khttpd_conn_nothing_to_read(c->sock->sk))
		return -EAGAIN;
	if (!c->buf) {
		c->buf = khttpd_kmalloc(KHTTPD_CONN_BUF_MIN);
		if (!c->buf)
			return -ENOMEM;
		c->cap = KHTTPD_CONN_BUF_MIN;
	}
	if (c->end == c->cap) {
		if (c->start > 0) {
			memmove(c->buf, c->buf + c->start, c->end - c->start);
			c->end -= c->start;
			c->start = 0;
		} else if (c->cap < KHTTPD_CONN_BUF) {
			char *buf = khttpd_kvrealloc_client(c->buf, c->cap,
							    2 * c->cap);

			if (!buf)
				return -ENOMEM;
			c->buf = buf;
			c->cap *= 2;
		} else {
			return -ENOBUFS; /* the parser bounds heads first */
		}
	}
	vec = (struct kvec){ .iov_base = c->buf + c->end,
			     .iov_len = c->cap - c->end };
	n = kernel_recvmsg(c->sock, &msg, &vec, 1, vec.iov_len, MSG_DONTWAIT);
	if (n > 0) {
		c->end += n;
		c->budget -= n;
	}
	return n;
}

/* An idle connection keeps no receive buffer. */
static void khttpd_conn_drop_empty_buffer(struct khttpd_conn *c)
{
	if (c->buf && c->start == c->end) {
		kvfree(c->buf);
		c->buf = NULL;
		c->cap = c->start = c->end = 0;
	}
}

static void khttpd_conn_enter_head(struct khttpd_conn *c)
{
	c->state = KHTTPD_HEAD;
	http_parser_init(&c->parser);
	khttpd_conn_set_deadline(c, c->srv->timeout);
}

/*
 * Answers a complete head (r > 0) or refuses one (r < 0) into the queue.
 * Returns false when the first pass left the request to the work item
 * (khttpd_exchange.inline_only): it is parsed again there.
 */
static bool khttpd_conn_respond(struct khttpd_conn *c, int r)
{
	struct khttpd_exchange x;
	int err;

	c->state = KHTTPD_SEND;
	khttpd_conn_start_transfer(c, khttpd_conn_bytes_acked(c));
	if (r < 0) {
		khttpd_exchange_init(&x, c, c->buf + c->start, NULL);
		/* A HEAD's refusal has no body either (RFC 9110 9.3.2). */
		x.head_only = http_method_name_is_head(x.buf, &c->req);
		err = khttpd_respond_status(&x, -r);
		/* A 408 is the last word: the client is not sending. */
		c->next = err || r == -408 ? KHTTPD_NEXT_CLOSE :
					     KHTTPD_NEXT_LINGER;
	} else {
		khttpd_exchange_init(&x, c, c->buf + c->start, &c->req);
		x.inline_only = c->first_pass;
		/* The body is skipped after the reply: a client holding it
		 * back for 100-continue must be told to send it first. */
		err = 0;
		if (x.keep_alive &&
		    http_body_expects_continue(x.buf, &c->req)) {
			x.deferred = x.inline_only;
			if (!x.deferred)
				err = khttpd_out_copy(
					&c->out, HTTP_CONTINUE_RESPONSE,
					sizeof(HTTP_CONTINUE_RESPONSE) - 1);
		}
		c->path = kmem_cache_alloc(c->srv->path_cache, GFP_KERNEL);
		x.path = c->path;
		if (!err && !x.deferred)
			err = c->path ? khttpd_serve(&x) :
					khttpd_respond_status(&x, 503);
		if (c->path)
			kmem_cache_free(c->srv->path_cache, c->path);
		c->path = NULL;
		if (x.deferred) {
			khttpd_conn_enter_head(c);
			return false;
		}
		c->start += c->req.head_len;
		c->next = err		? KHTTPD_NEXT_CLOSE :
			  !x.keep_alive ? KHTTPD_NEXT_END :
					  KHTTPD_NEXT_BODY;
	}
	/* A response that could not be completed: the rest is dropped. */
	if (err)
		khttpd_out_release(&c->out);
	return true;
}

static enum step khttpd_conn_step_head(struct khttpd_conn *c)
{
	int r;

	for (;;) {
		if (c->end > c->start) {
			r = http_parse_request(&c->parser, &c->req,
					       c->buf + c->start,
					       c->end - c->start);
			if (r != HTTP_PARSE_AGAIN)
				return khttpd_conn_respond(c, r) ? STEP_AGAIN :
								   STEP_YIELD;
		}
		r = khttpd_conn_receive(c);
		if (r == -ENOBUFS) {
			khttpd_conn_respond(c, -431);
			return STEP_AGAIN;
		}
		if (r == -EAGAIN)
			return STEP_WAIT;
		if (r <= 0)
			return STEP_CLOSE;
	}
}

static enum step khttpd_conn_enter_linger(struct khttpd_conn *c);

static enum step khttpd_conn_step_body(struct khttpd_conn *c)
{
	int r;

	for (;;) {
		if (c->end > c->start) {
			size_t used;

			r = http_body_skip(&c->body, c->buf + c->start,
					   c->end - c->start, &used);
			c->start += used;
			c->xfer_bytes += used;
			if (r == HTTP_BODY_DONE) {
				khttpd_conn_enter_head(c);
				return STEP_AGAIN;
			}
			/* Its response is out, and the client may still be
			 * sending: a close now would reset its tail. */
			if (r == HTTP_BODY_ERROR)
				return khttpd_conn_enter_linger(c);
		}
		/* A body sent at full speed would keep this loop going. */
		if (khttpd_conn_must_yield(c)) {
			khttpd_conn_transfer_deadline(c, c->xfer_bytes);
			return STEP_YIELD;
		}
		r = khttpd_conn_receive(c);
		if (r == -EAGAIN) {
			khttpd_conn_transfer_deadline(c, c->xfer_bytes);
			return STEP_WAIT;
		}
		if (r <= 0)
			return STEP_CLOSE;
		c->xfer_last = jiffies; /* progress */
	}
}

/*
 * Half-closed, reads until the client's FIN (bounded), so that request
 * bytes still in flight cannot make the close send a reset that destroys
 * the response before the client has read it.
 */
static enum step khttpd_conn_step_linger(struct khttpd_conn *c)
{
	int r;

	for (;;) {
		c->start = c->end = 0;
		if (khttpd_conn_must_yield(c))
			return STEP_YIELD;
		r = khttpd_conn_receive(c);
		if (r == -EAGAIN)
			return STEP_WAIT;
		if (r <= 0)
			return STEP_CLOSE;
		c->lingered += r;
		if (c->lingered >= HTTP_LINGER_MAX_BYTES)
			return STEP_CLOSE;
	}
}

/* The response is out: half-closes and drains until the client's FIN. */
static enum step khttpd_conn_enter_linger(struct khttpd_conn *c)
{
	if (kernel_sock_shutdown(c->sock, SHUT_WR))
		return STEP_CLOSE;
	c->state = KHTTPD_LINGER;
	c->lingered = 0;
	khttpd_count(&khttpd_stats.lingers);
	c->start = c->end = 0;
	khttpd_conn_set_deadline(c,
				 min_t(long, c->srv->timeout,
				       msecs_to_jiffies(HTTP_LINGER_MAX_MS)));
	return STEP_AGAIN;
}

/* Bytes beyond the answered request, read or waiting in the socket. */
static bool khttpd_conn_unread(const struct khttpd_conn *c)
{
	return c->end > c->start ||
	       !skb_queue_empty_lockless(&c->sock->sk->sk_receive_queue);
}

/* The response is out: what its request asked for next. */
static enum step khttpd_conn_step_sent(struct khttpd_conn *c)
{
	switch (c->next) {
	case KHTTPD_NEXT_CLOSE:
		return STEP_CLOSE;
	case KHTTPD_NEXT_LINGER:
		return khttpd_conn_enter_linger(c);
	case KHTTPD_NEXT_END:
		/* As sehttpd: no wait for the FIN of a client that is done. */
		if (!http_close_lingers(&c->req, khttpd_conn_unread(c)))
			return STEP_CLOSE;
		return khttpd_conn_enter_linger(c);
	case KHTTPD_NEXT_BODY:
		break;
	}
	if (http_body_none(&c->req)) {
		khttpd_conn_enter_head(c);
	} else {
		c->state = KHTTPD_BODY;
		http_body_skip_init(&c->body, &c->req);
		khttpd_conn_start_transfer(c, 0);
	}
	return STEP_AGAIN;
}

/*
 * The deadline passed: a head cut short still gets its 408; a response cut
 * short ends with a reset, which tells the client at once and frees what
 * the socket still holds of it, rather than a FIN after that, which a
 * slow reader would take as long to reach as the response it was cut off.
 */
static void khttpd_conn_timed_out(struct khttpd_conn *c)
{
	size_t sent;

	if (c->state == KHTTPD_SEND)
		sock_no_linger(c->sock->sk);
	/* Empty lines alone are no request cut off. */
	if (c->state != KHTTPD_HEAD || c->end == c->start ||
	    !http_parse_begun(&c->parser))
		return;
	khttpd_conn_respond(c, -408);
	khttpd_out_flush(&c->out, SIZE_MAX, &sent);
}

/*
 * Runs the state machine until it waits (STEP_WAIT), must close
 * (STEP_CLOSE) or has used up its budget or sees the server stopping
 * (STEP_YIELD).
 */
static enum step khttpd_conn_run(struct khttpd_conn *c)
{
	unsigned int steps = KHTTPD_RUN_STEPS;
	enum step s;

	c->budget = KHTTPD_RUN_BYTES;
	/* Acknowledgements since the last run may have moved it. */
	if (c->state == KHTTPD_SEND)
		khttpd_conn_send_progress(c, 0);
	/* A body too slow to skip: its response is out, so linger. */
	if (time_after_eq(jiffies, c->deadline) &&
	    (c->state != KHTTPD_BODY ||
	     khttpd_conn_enter_linger(c) != STEP_AGAIN)) {
		khttpd_conn_timed_out(c);
		return STEP_CLOSE;
	}
	for (;;) {
		size_t sent;
		int r = khttpd_out_flush(
			&c->out, c->budget > 0 ? (size_t)c->budget : 0, &sent);

		c->budget -= (long)sent;
		if (c->state == KHTTPD_SEND)
			khttpd_conn_send_progress(c, sent);
		if (r == -EAGAIN)
			return STEP_WAIT;
		if (r < 0)
			return STEP_CLOSE;
		/* More to send (r > 0), or the next step: not in this run. */
		if (r > 0 || !steps-- || khttpd_conn_must_yield(c))
			return STEP_YIELD;
		switch (c->state) {
		case KHTTPD_HEAD:
			s = khttpd_conn_step_head(c);
			break;
		case KHTTPD_SEND:
			s = khttpd_conn_step_sent(c);
			break;
		case KHTTPD_BODY:
			s = khttpd_conn_step_body(c);
			break;
		default:
			s = khttpd_conn_step_linger(c);
			break;
		}
		if (s != STEP_AGAIN)
			return s;
	}
}

void khttpd_conn_free(struct khttpd_conn *c)
{
	struct khttpd_server *srv = c->srv;

	kmem_cache_free(srv->conn_cache, c);
	if (atomic_dec_and_test(&srv->nconns))
		wake_up_all(&srv->drained);
}

static void khttpd_conn_close(struct khttpd_conn *c)
{
	struct khttpd_server *srv = c->srv;

	khttpd_conn_sock_restore(c);
	timer_shutdown_sync(&c->timer);
	spin_lock(&srv->lock);
	list_del(&c->node);
	spin_unlock(&srv->lock);
	/* Nothing can queue the work item from here on. */
	khttpd_out_release(&c->out);
	kvfree(c->buf);
	/* Unloading resets: no FIN handshake per connection to wait for. */
	if (khttpd_stopping(srv))
		sock_no_linger(c->sock->sk);
	sock_release(c->sock);
	c->dead = true;
	if (!work_pending(&c->work))
		khttpd_conn_free(c);
}

/*
 * A timer that fires before the deadline only runs the work item once,
 * which arms it again: so a deadline that moved later (every keep-alive
 * request moves it) costs no timer update, only an earlier one does.
 */
static void khttpd_conn_arm_timer(struct khttpd_conn *c)
{
	if (!timer_pending(&c->timer) ||
	    time_after(READ_ONCE(c->timer.expires), c->deadline))
		mod_timer(&c->timer, c->deadline);
}

/*
 * khttpd_conn_run() with the server's credentials.  What it allocates for
 * the client is charged to the server's memory cgroup (alloc.h).
 */
static enum step khttpd_conn_step(struct khttpd_conn *c)
{
	const struct cred *old = override_creds(c->srv->cred);
	enum step s = khttpd_conn_run(c);

	revert_creds(old);
	return s;
}

static void khttpd_conn_work(struct work_struct *work)
{
	struct khttpd_conn *c = container_of(work, struct khttpd_conn, work);
	enum step s;

	if (c->dead) {
		khttpd_conn_free(c);
		return;
	}
	/* Unloading closes it (khttpd_conns_close_all). */
	if (khttpd_stopping(c->srv))
		return;
	s = khttpd_conn_step(c);
	if (s == STEP_CLOSE) {
		khttpd_conn_close(c);
		return;
	}
	khttpd_conn_drop_empty_buffer(c);
	khttpd_conn_arm_timer(c);
	/*
	 * Its budget spent, it runs again after the work items queued on
	 * this CPU meanwhile.  Only this run closes the connection, so it is
	 * alive; a run that finds the server stopping leaves it to the
	 * unload, whose second flush waits for a run queued during its first.
	 */
	if (s == STEP_YIELD && !khttpd_stopping(c->srv))
		khttpd_conn_queue(c);
}

static void khttpd_conn_timer(struct timer_list *t)
{
	struct khttpd_conn *c = from_timer(c, t, timer);

	khttpd_conn_queue(c);
}

/* A connection closed before anything else could see it. */
static void khttpd_conn_discard(struct khttpd_conn *c)
{
	khttpd_out_release(&c->out);
	kvfree(c->buf);
	if (khttpd_stopping(c->srv))
		sock_no_linger(c->sock->sk);
	kmem_cache_free(c->srv->conn_cache, c);
}

void khttpd_conn_start(struct khttpd_server *srv, struct socket *sock, int cpu)
{
	struct khttpd_conn *c;
	enum step s;

	if ((unsigned int)atomic_inc_return(&srv->nconns) > srv->max_conns) {
		long refused = atomic_long_inc_return(&khttpd_stats.refused);

		pr_notice_ratelimited(
			"max_conns=%u reached: new connections closed at once (%ld so far)\n",
			srv->max_conns, refused);
		goto err_count;
	}
	c = khttpd_slab_zalloc(srv->conn_cache);
	if (!c)
		goto err_count;
	c->srv = srv;
	c->sock = sock;
	c->cpu = cpu;
	INIT_WORK(&c->work, khttpd_conn_work);
	timer_setup(&c->timer, khttpd_conn_timer, 0);
	khttpd_out_init(&c->out, sock);
	khttpd_conn_enter_head(c);
	tcp_sock_set_nodelay(sock->sk);

	/*
	 * The request usually came with the handshake: answered here, while
	 * nothing else can see the connection, instead of waking a worker,
	 * when the cache has its answer; anything more (an open, a fill, a
	 * deflate, a listing) would hold up every accept behind it.
	 */
	c->first_pass = true;
	s = khttpd_conn_step(c);
	c->first_pass = false;
	if (s == STEP_CLOSE) {
		khttpd_conn_discard(c);
		goto err_count;
	}
	khttpd_conn_drop_empty_buffer(c);

	spin_lock(&srv->lock);
	if (srv->stopping) {
		spin_unlock(&srv->lock);
		khttpd_conn_discard(c);
		goto err_count;
	}
	list_add_tail(&c->node, &srv->conns);
	spin_unlock(&srv->lock);
	/* A first pass that gave way goes on in the work item. */
	khttpd_conn_sock_install(c, s == STEP_YIELD);
	return;

err_count:
	if (atomic_dec_and_test(&srv->nconns))
		wake_up_all(&srv->drained);
	sock_release(sock);
}
