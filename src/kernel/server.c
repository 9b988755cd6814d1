// SPDX-License-Identifier: GPL-2.0
/*
 * The listener is one kthread blocked in accept; each accepted socket
 * becomes a connection whose work item runs only when its socket or timer
 * has something for it (conn.c), on a per-CPU workqueue, always on the CPU
 * that accepted the connection (so connections spread as the scheduler
 * moves the listener; pinning the listener pins the server).  By
 * measurement (make bench-kernel, qemu guest, server CPU apart from the
 * load's): 0.18 context switches per keep-alive request against 0.39 for
 * an unbound workqueue, whose pool wakes another worker for each item
 * queued while one runs (0.11 against 0.20 once cache hits skip the file
 * system), and 0.3 for unbound with max_active 1 or WQ_HIGHPRI; a per-CPU
 * queue_work() from the socket callbacks runs where the softirq ran (over
 * loopback, the client's CPU: 1.8).  No work item sleeps waiting for a
 * client, so max_active bounds only the work in progress.  Every live
 * connection is on srv->conns, so that unloading can queue each one to
 * close at once and then wait for all of them to be freed.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include "khttpd.h"

#include <linux/cred.h>
#include <linux/err.h>
#include <linux/in.h>
#include <linux/kthread.h>
#include <linux/namei.h>
#include <linux/net.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <net/net_namespace.h>
#include <net/sock.h>

#include "conn.h"

static int open_listener(struct khttpd_server *srv,
			 const struct khttpd_config *cfg)
{
	struct sockaddr_in addr = {
		.sin_family = AF_INET,
		.sin_addr.s_addr = htonl(INADDR_ANY),
		.sin_port = htons(cfg->port),
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
	if (err) {
		pr_err("cannot bind port %u: %pe\n", cfg->port, ERR_PTR(err));
		goto err_sock;
	}
	err = kernel_listen(sock, cfg->backlog);
	if (err) {
		pr_err("cannot listen on port %u: %pe\n", cfg->port,
		       ERR_PTR(err));
		goto err_sock;
	}
	srv->listener = sock;
	return 0;

err_sock:
	sock_release(sock);
	return err;
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
	struct khttpd_server *srv = data;

	while (!kthread_should_stop() && !khttpd_stopping(srv)) {
		struct socket *sock;
		int err = kernel_accept(srv->listener, &sock, 0);

		if (!err) {
			khttpd_conn_start(srv, sock);
			continue;
		}
		if (khttpd_stopping(srv))
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

/* Debian's nobody and nogroup. */
#define KHTTPD_NOBODY 65534

static const struct cred *unprivileged_cred(void)
{
	struct cred *cred = prepare_kernel_cred(NULL);

	if (!cred)
		return NULL;
	cred->fsuid = make_kuid(&init_user_ns, KHTTPD_NOBODY);
	cred->fsgid = make_kgid(&init_user_ns, KHTTPD_NOBODY);
	cap_clear(cred->cap_effective);
	cap_clear(cred->cap_permitted);
	cap_clear(cred->cap_inheritable);
	cap_clear(cred->cap_ambient);
	return cred;
}

int khttpd_server_start(struct khttpd_server *srv,
			const struct khttpd_config *cfg)
{
	int err;

	spin_lock_init(&srv->lock);
	INIT_LIST_HEAD(&srv->conns);
	srv->stopping = false;
	atomic_set(&srv->nconns, 0);
	init_waitqueue_head(&srv->drained);
	srv->max_conns = cfg->max_conns;
	atomic_long_set(&srv->refused, 0);
	srv->timeout = msecs_to_jiffies(cfg->timeout_ms);
	srv->listing = cfg->listing;

	err = kern_path(cfg->root, LOOKUP_FOLLOW | LOOKUP_DIRECTORY,
			&srv->root);
	if (err) {
		pr_err("root=%s is not a directory that can be served: %pe\n",
		       cfg->root, ERR_PTR(err));
		return err;
	}
	srv->cred = unprivileged_cred();
	if (!srv->cred) {
		err = -ENOMEM;
		goto err_root;
	}
	srv->conn_cache = KMEM_CACHE(khttpd_conn, 0);
	if (!srv->conn_cache) {
		err = -ENOMEM;
		goto err_cred;
	}
	srv->path_cache =
		kmem_cache_create("khttpd_path", KHTTPD_PATH_BUF, 0, 0, NULL);
	if (!srv->path_cache) {
		err = -ENOMEM;
		goto err_cache;
	}
	/* Per-CPU (bound): see conn_queue() in conn.c. */
	srv->wq = alloc_workqueue("khttpd", 0, 0);
	if (!srv->wq) {
		err = -ENOMEM;
		goto err_path_cache;
	}
	err = open_listener(srv, cfg);
	if (err)
		goto err_wq;
	srv->thread = kthread_run(listen_thread, srv, "khttpd");
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
err_path_cache:
	kmem_cache_destroy(srv->path_cache);
err_cache:
	kmem_cache_destroy(srv->conn_cache);
err_cred:
	put_cred(srv->cred);
err_root:
	path_put(&srv->root);
	return err;
}

void khttpd_server_stop(struct khttpd_server *srv)
{
	struct khttpd_conn *c;
	int cpu;

	spin_lock(&srv->lock);
	WRITE_ONCE(srv->stopping, true);
	spin_unlock(&srv->lock);

	/* Wakes the listener from accept, which then fails. */
	kernel_sock_shutdown(srv->listener, SHUT_RDWR);
	kthread_stop(srv->thread);
	sock_release(srv->listener);

	/*
	 * Each connection's work item sees stopping and closes it, spread
	 * over the CPUs: the per-CPU workqueue would otherwise close them all
	 * on this one.
	 */
	spin_lock(&srv->lock);
	cpu = cpumask_first(cpu_online_mask);
	list_for_each_entry(c, &srv->conns, node) {
		queue_work_on(cpu, srv->wq, &c->work);
		cpu = cpumask_next(cpu, cpu_online_mask);
		if (cpu >= nr_cpu_ids)
			cpu = cpumask_first(cpu_online_mask);
	}
	spin_unlock(&srv->lock);
	wait_event(srv->drained, !atomic_read(&srv->nconns));
	destroy_workqueue(srv->wq);

	if (atomic_long_read(&srv->refused))
		pr_info("refused %ld connections over max_conns=%u\n",
			atomic_long_read(&srv->refused), srv->max_conns);
	kmem_cache_destroy(srv->path_cache);
	kmem_cache_destroy(srv->conn_cache);
	put_cred(srv->cred);
	path_put(&srv->root);
}
