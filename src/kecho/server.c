// SPDX-License-Identifier: GPL-2.0
/*
 * The listener (a kthread blocked in accept) and the set of live
 * connections.  Unloading shuts every connection's socket down, which wakes
 * a work item sleeping in recv or queues an event-driven one, and waits
 * until each has released its socket before the workqueue is destroyed.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/err.h>
#include <linux/in.h>
#include <linux/kthread.h>
#include <linux/net.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/tcp.h>
#include <net/net_namespace.h>
#include <net/sock.h>

#include "kecho.h"

static int open_listener(struct kecho_server *srv, unsigned short port,
			 int backlog)
{
	struct sockaddr_in addr = {
		.sin_family = AF_INET,
		.sin_addr.s_addr = htonl(INADDR_ANY),
		.sin_port = htons(port),
	};
	struct socket *sock;
	int err;

	err = sock_create_kern(&init_net, AF_INET, SOCK_STREAM, IPPROTO_TCP,
			       &sock);
	if (err) {
		pr_err("cannot create the listening socket: %pe\n",
		       ERR_PTR(err));
		return err;
	}
	sock_set_reuseaddr(sock->sk);
	err = kernel_bind(sock, (struct sockaddr *)&addr, sizeof(addr));
	if (!err)
		err = kernel_listen(sock, backlog);
	if (err) {
		pr_err("cannot listen on port %u: %pe\n", port, ERR_PTR(err));
		sock_release(sock);
		return err;
	}
	/* port=0 lets the kernel pick one: read back which. */
	err = kernel_getsockname(sock, (struct sockaddr *)&addr);
	if (err < 0) {
		pr_err("cannot read the port listened on: %pe\n", ERR_PTR(err));
		sock_release(sock);
		return err;
	}
	srv->port = ntohs(addr.sin_port);
	srv->listener = sock;
	return 0;
}

static void conn_start(struct kecho_server *srv, struct socket *sock)
{
	struct kecho_conn *c = kzalloc(sizeof(*c), GFP_KERNEL);

	if (!c) {
		sock_release(sock);
		return;
	}
	c->srv = srv;
	c->sock = sock;
	/* An echo is one small write per read: never hold it back. */
	tcp_sock_set_nodelay(sock->sk);

	mutex_lock(&srv->lock);
	if (srv->stopping || srv->nr_conns >= srv->max_conns) {
		unsigned long refused = srv->stopping ? 0 : ++srv->refused;

		mutex_unlock(&srv->lock);
		if (refused)
			pr_notice_ratelimited(
				"max_conns=%u reached: new connections closed at once (%lu so far)\n",
				srv->max_conns, refused);
		sock_release(sock);
		kfree(c);
		return;
	}
	list_add_tail(&c->node, &srv->conns);
	srv->nr_conns++;
	mutex_unlock(&srv->lock);

	if (srv->event_driven)
		kecho_event_start(c);
	else
		kecho_blocking_start(c);
}

void kecho_conn_close(struct kecho_conn *c)
{
	struct kecho_server *srv = c->srv;

	mutex_lock(&srv->lock);
	list_del(&c->node);
	srv->nr_conns--;
	/* Released under the lock: stop() may be shutting it down. */
	sock_release(c->sock);
	c->sock = NULL;
	mutex_unlock(&srv->lock);
	wake_up(&srv->drained);
}

/* kthread_stop() must find the thread alive: park until it is called. */
static void wait_for_stop(void)
{
	for (;;) {
		set_current_state(TASK_INTERRUPTIBLE);
		if (kthread_should_stop())
			break;
		schedule();
	}
	__set_current_state(TASK_RUNNING);
}

static int listen_thread(void *data)
{
	struct kecho_server *srv = data;

	while (!kthread_should_stop() && !READ_ONCE(srv->stopping)) {
		struct socket *sock;
		int err = kernel_accept(srv->listener, &sock, 0);

		if (!err) {
			conn_start(srv, sock);
			continue;
		}
		if (READ_ONCE(srv->stopping))
			break;
		if (err != -EAGAIN && err != -EINTR && err != -ECONNABORTED) {
			pr_warn_ratelimited("accept failed: %pe\n",
					    ERR_PTR(err));
			schedule_timeout_interruptible(HZ / 50);
		}
	}
	wait_for_stop();
	return 0;
}

int kecho_server_start(struct kecho_server *srv, const struct kecho_config *cfg)
{
	int err;

	mutex_init(&srv->lock);
	INIT_LIST_HEAD(&srv->conns);
	init_waitqueue_head(&srv->drained);
	srv->nr_conns = 0;
	srv->refused = 0;
	srv->stopping = false;
	srv->event_driven = cfg->event_driven;
	srv->timeout = msecs_to_jiffies(cfg->timeout_ms);
	srv->max_conns = cfg->max_conns;

	srv->wq = alloc_workqueue("kecho", cfg->bound ? 0 : WQ_UNBOUND, 0);
	if (!srv->wq)
		return -ENOMEM;
	err = open_listener(srv, cfg->port, cfg->backlog);
	if (err)
		goto err_wq;
	srv->thread = kthread_run(listen_thread, srv, "kecho");
	if (IS_ERR(srv->thread)) {
		err = PTR_ERR(srv->thread);
		pr_err("cannot start the listener thread: %pe\n", ERR_PTR(err));
		goto err_listener;
	}
	return 0;

err_listener:
	sock_release(srv->listener);
err_wq:
	destroy_workqueue(srv->wq);
	return err;
}

void kecho_server_stop(struct kecho_server *srv)
{
	struct kecho_conn *c;

	mutex_lock(&srv->lock);
	WRITE_ONCE(srv->stopping, true);
	mutex_unlock(&srv->lock);

	/* Wakes the listener from accept, which then fails. */
	kernel_sock_shutdown(srv->listener, SHUT_RDWR);
	kthread_stop(srv->thread);
	sock_release(srv->listener);

	/* Each connection sees its end of stream and closes itself. */
	mutex_lock(&srv->lock);
	list_for_each_entry(c, &srv->conns, node)
		kernel_sock_shutdown(c->sock, SHUT_RDWR);
	mutex_unlock(&srv->lock);
	wait_event(srv->drained, !READ_ONCE(srv->nr_conns));
	destroy_workqueue(srv->wq); /* runs the deferred frees */
}
