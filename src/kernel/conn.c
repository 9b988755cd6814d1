// SPDX-License-Identifier: GPL-2.0
/*
 * A connection is one work item on the server's unbound workqueue: it reads
 * request heads, answers them and skips their bodies, in order, until the
 * client closes, a reply ends the connection, a timeout passes or the module
 * is unloaded.  While it sleeps in the socket the workqueue's pool, not a
 * thread of our own, provides the context.
 *
 * Timeouts are socket receive timeouts: a request head must be complete
 * within timeout of the moment the connection became idle (so a client
 * trickling bytes is cut off too), a body must make progress every timeout,
 * and each send must make progress within timeout (sk_sndtimeo).
 */
#include "conn.h"

#include <linux/cred.h>
#include <linux/jiffies.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/net.h>
#include <linux/slab.h>
#include <linux/tcp.h>
#include <net/sock.h>

#include "files.h"
#include "http/body.h"
#include "net.h"
#include "reply.h"

/*
 * Waits for a complete request head at c->buf + c->start.  Returns its
 * length, a negated status to refuse it with, or 0 when the connection is
 * to be closed without a word.
 */
static int read_head(struct khttpd_conn *c)
{
	unsigned long deadline = jiffies + c->srv->timeout;
	int r;

	http_parser_init(&c->parser);
	for (;;) {
		if (c->end > c->start) {
			r = http_parse_request(&c->parser, &c->req,
					       c->buf + c->start,
					       c->end - c->start);
			if (r != HTTP_PARSE_AGAIN)
				return r;
		} else {
			c->start = 0;
			c->end = 0;
			if (khttpd_stopping(c->srv))
				return 0;
		}
		if (c->end == KHTTPD_CONN_BUF) {
			if (c->start == 0)
				return -431; /* the parser bounds heads first */
			memmove(c->buf, c->buf + c->start, c->end - c->start);
			c->end -= c->start;
			c->start = 0;
		}
		r = khttpd_recv(c->sock, c->buf + c->end,
				KHTTPD_CONN_BUF - c->end,
				(long)(deadline - jiffies));
		if (r <= 0) {
			if (r == -EAGAIN && c->end > c->start)
				return -408;
			return 0;
		}
		c->end += r;
	}
}

/* Skips the body of c->req (Content-Length bytes or a chunked body). */
static int skip_body(struct khttpd_conn *c)
{
	struct http_body_skipper b;
	int n;

	if (http_body_none(&c->req))
		return 0;
	http_body_skip_init(&b, &c->req);
	for (;;) {
		size_t used;

		n = http_body_skip(&b, c->buf + c->start, c->end - c->start,
				   &used);
		c->start += used;
		if (n == HTTP_BODY_DONE)
			return 0;
		if (n == HTTP_BODY_ERROR)
			return -EPROTO;
		c->start = 0;
		c->end = 0;
		n = khttpd_recv(c->sock, c->buf, KHTTPD_CONN_BUF,
				c->srv->timeout);
		if (n <= 0)
			return n ? n : -ECONNRESET;
		c->end = n;
	}
}

/*
 * Half-closes, then reads until the client's FIN (bounded), so that request
 * bytes still in flight cannot make the close send a reset that destroys
 * the response before the client has read it.
 */
static void lingering_close(struct khttpd_conn *c)
{
	long linger = min_t(long, c->srv->timeout,
			    msecs_to_jiffies(HTTP_LINGER_MAX_MS));
	unsigned long deadline = jiffies + linger;
	size_t total = 0;

	if (kernel_sock_shutdown(c->sock, SHUT_WR))
		return;
	while (total < HTTP_LINGER_MAX_BYTES) {
		int n = khttpd_recv(c->sock, c->buf, KHTTPD_CONN_BUF,
				    (long)(deadline - jiffies));

		if (n <= 0)
			break;
		total += n;
	}
}

static void serve(struct khttpd_conn *c)
{
	struct khttpd_exchange x;
	int r;

	for (;;) {
		r = read_head(c);
		if (r == 0)
			return;
		if (r < 0) {
			khttpd_exchange_init(&x, c, c->buf + c->start, NULL);
			if (!khttpd_respond_status(&x, -r) && r != -408)
				lingering_close(c);
			return;
		}
		khttpd_exchange_init(&x, c, c->buf + c->start, &c->req);
		r = khttpd_serve(&x);
		if (r)
			return;
		c->start += c->req.head_len;
		if (!x.keep_alive) {
			lingering_close(c);
			return;
		}
		/* After the reply, so a client awaiting 100-continue has it. */
		if (skip_body(c))
			return;
	}
}

static void conn_work(struct work_struct *work)
{
	struct khttpd_conn *c = container_of(work, struct khttpd_conn, work);
	struct khttpd_server *srv = c->srv;
	const struct cred *old = override_creds(srv->cred);

	serve(c);
	revert_creds(old);
	mutex_lock(&srv->lock);
	list_del(&c->node);
	mutex_unlock(&srv->lock);
	sock_release(c->sock);
	kfree(c->path);
	kvfree(c->buf);
	kmem_cache_free(srv->conn_cache, c);
}

void khttpd_conn_start(struct khttpd_server *srv, struct socket *sock)
{
	struct khttpd_conn *c;

	c = kmem_cache_zalloc(srv->conn_cache, GFP_KERNEL);
	if (!c)
		goto err_sock;
	c->buf = kvmalloc(KHTTPD_CONN_BUF, GFP_KERNEL);
	c->path = kmalloc(KHTTPD_PATH_BUF, GFP_KERNEL);
	if (!c->buf || !c->path)
		goto err_conn;
	c->srv = srv;
	c->sock = sock;
	INIT_WORK(&c->work, conn_work);
	tcp_sock_set_nodelay(sock->sk);
	khttpd_set_send_timeout(sock, srv->timeout);

	mutex_lock(&srv->lock);
	if (srv->stopping) {
		mutex_unlock(&srv->lock);
		goto err_conn;
	}
	list_add_tail(&c->node, &srv->conns);
	mutex_unlock(&srv->lock);
	queue_work(srv->wq, &c->work);
	return;

err_conn:
	kfree(c->path);
	kvfree(c->buf);
	kmem_cache_free(srv->conn_cache, c);
err_sock:
	sock_release(sock);
}
