// SPDX-License-Identifier: GPL-2.0
/*
 * The listening socket's data-ready callback queues one work item, on the
 * unbound system workqueue, which accepts every connection waiting (a burst
 * in one run) without blocking and answers what came with the handshake.
 * Each accepted socket becomes a connection whose work item runs only when
 * its socket or timer has something for it (conn.c), on a per-CPU
 * workqueue, always on one CPU, given to connections in turn from those
 * the accept work may run on: the unbound cpumask
 * (/sys/devices/virtual/workqueue/cpumask) thus confines the server like
 * a thread.  It switches less than an unbound workqueue, whose pool
 * wakes another worker for each item queued while one runs (figures in
 * doc/benchmarks.md).  No work item
 * sleeps waiting for a client, so max_active bounds only the work in
 * progress.  Every live connection is on srv->conns, so that unloading can
 * close them all in one pass (khttpd_conns_close_all).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include "khttpd.h"

#include <linux/cred.h>
#include <linux/err.h>
#include <linux/in.h>
#include <linux/net.h>
#include <linux/memcontrol.h>
#include <linux/netdevice.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <net/net_namespace.h>
#include <net/sock.h>

#include "alloc.h"
#include "config.h"
#include "conn.h"
#include "root.h"
#include "stats.h"

static int khttpd_open_listener(struct khttpd_server *srv,
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
	/* port=0 lets the kernel pick one, as sehttpd's port 0 does. */
	err = kernel_getsockname(sock, (struct sockaddr *)&addr);
	if (err < 0) {
		pr_err("cannot read the port listened on: %pe\n", ERR_PTR(err));
		goto err_sock;
	}
	srv->port = ntohs(addr.sin_port);
	srv->listener = sock;
	return 0;

err_sock:
	sock_release(sock);
	return err;
}

/*
 * An accepted socket is a clone of the listener, our callback and its
 * sk_user_data included: give it back the socket's own data-ready
 * callback, so that the connection saves and restores that one.  False
 * when another owner (a BPF sockmap's psock, put on by a sockops program
 * during the handshake) holds sk_user_data: that socket is not ours to
 * take over, as kcm and espintcp refuse such sockets.
 */
static bool khttpd_disown_accepted(struct khttpd_server *srv,
				   struct socket *sock)
{
	struct sock *sk = sock->sk;
	bool ours;

	write_lock_bh(&sk->sk_callback_lock);
	ours = sk->sk_user_data == srv;
	if (ours) {
		sk->sk_user_data = NULL;
		sk->sk_data_ready = srv->saved_data_ready;
	}
	write_unlock_bh(&sk->sk_callback_lock);
	return ours;
}

/*
 * The CPU whose per-CPU workqueue serves the next connection: in turn each
 * of those the accept work may run on (the unbound cpumask, which so
 * confines the server), so that a burst accepted in one run spreads.
 */
static int khttpd_next_conn_cpu(struct khttpd_server *srv)
{
	int cpu = cpumask_next_and(srv->last_cpu, current->cpus_ptr,
				   cpu_online_mask);

	if (cpu >= nr_cpu_ids)
		cpu = cpumask_first_and(current->cpus_ptr, cpu_online_mask);
	if (cpu >= nr_cpu_ids)
		cpu = raw_smp_processor_id();
	srv->last_cpu = cpu;
	return cpu;
}

/*
 * Accepts every connection waiting, without blocking: one run takes a
 * whole burst.  A failure other than a connection reset before it was
 * accepted (memory) is retried a little later.
 */
static void khttpd_accept_work(struct work_struct *work)
{
	struct khttpd_server *srv = container_of(to_delayed_work(work),
						 struct khttpd_server, accept);

	while (!khttpd_stopping(srv)) {
		struct socket *sock;
		int err = kernel_accept(srv->listener, &sock, O_NONBLOCK);

		if (!err) {
			khttpd_count(&khttpd_stats.accepted);
			if (!khttpd_disown_accepted(srv, sock)) {
				pr_warn_ratelimited(
					"an accepted socket has another owner's sk_user_data (BPF sockmap?): closed\n");
				sock_release(sock);
				continue;
			}
			khttpd_conn_start(srv, sock, khttpd_next_conn_cpu(srv));
			cond_resched();
			continue;
		}
		if (err == -EAGAIN)
			break;
		if (err != -ECONNABORTED) {
			pr_warn_ratelimited("accept failed: %pe\n",
					    ERR_PTR(err));
			queue_delayed_work(system_unbound_wq, &srv->accept,
					   HZ / 50);
			break;
		}
	}
}

/* Softirq: a connection is ready to be accepted. */
static void khttpd_listener_data_ready(struct sock *sk)
{
	struct khttpd_server *srv;

	read_lock_bh(&sk->sk_callback_lock);
	srv = sk->sk_user_data;
	/*
	 * An accepted clone still calls this until khttpd_disown_accepted(),
	 * and a call that read the pointer before may run after the
	 * connection set its own sk_user_data: only the listener's is a
	 * server.
	 */
	if (srv && sk->sk_state == TCP_LISTEN)
		queue_delayed_work(system_unbound_wq, &srv->accept, 0);
	read_unlock_bh(&sk->sk_callback_lock);
}

static void khttpd_listener_install(struct khttpd_server *srv)
{
	struct sock *sk = srv->listener->sk;

	write_lock_bh(&sk->sk_callback_lock);
	srv->saved_data_ready = sk->sk_data_ready;
	sk->sk_user_data = srv;
	sk->sk_data_ready = khttpd_listener_data_ready;
	write_unlock_bh(&sk->sk_callback_lock);
}

/* After this, no connection is accepted any more. */
static void khttpd_listener_close(struct khttpd_server *srv)
{
	struct sock *sk = srv->listener->sk;

	write_lock_bh(&sk->sk_callback_lock);
	sk->sk_user_data = NULL;
	sk->sk_data_ready = srv->saved_data_ready;
	write_unlock_bh(&sk->sk_callback_lock);
	cancel_delayed_work_sync(&srv->accept);
	/* Connections still in its queue are reset by the kernel. */
	sock_release(srv->listener);
	srv->listener = NULL;
}

struct mem_cgroup *khttpd_client_memcg;

/* Debian's nobody and nogroup. */
#define KHTTPD_NOBODY 65534

static const struct cred *khttpd_unprivileged_cred(void)
{
	struct cred *cred = prepare_kernel_cred(&init_task);

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
	srv->timeout = msecs_to_jiffies(cfg->timeout_ms);
	srv->min_rate = cfg->min_rate;
	srv->site = cfg->site;
	srv->compress = cfg->compress;
	srv->follow_symlinks = cfg->follow_symlinks;
	srv->rules = cfg->rules->rules;
	srv->nrules = cfg->rules->count;
	srv->cors = cfg->rules->cors;
	srv->mime = cfg->mime;

	srv->root = khttpd_root_open(cfg->root);
	if (IS_ERR(srv->root))
		return PTR_ERR(srv->root);
	srv->cred = khttpd_unprivileged_cred();
	if (!srv->cred) {
		err = -ENOMEM;
		goto err_root;
	}
	khttpd_client_memcg = get_mem_cgroup_from_mm(current->mm);
	srv->conn_cache = KMEM_CACHE(khttpd_conn, SLAB_ACCOUNT);
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
	/* Per-CPU (bound): see khttpd_conn_queue() in conn.h. */
	srv->wq = alloc_workqueue("khttpd", 0, 0);
	if (!srv->wq) {
		err = -ENOMEM;
		goto err_path_cache;
	}
	err = khttpd_open_listener(srv, cfg);
	if (err)
		goto err_wq;
	INIT_DELAYED_WORK(&srv->accept, khttpd_accept_work);
	srv->last_cpu = -1;
	khttpd_listener_install(srv);
	/* Connections that completed before the callback was in place. */
	queue_delayed_work(system_unbound_wq, &srv->accept, 0);
	return 0;

err_wq:
	destroy_workqueue(srv->wq);
err_path_cache:
	kmem_cache_destroy(srv->path_cache);
err_cache:
	kmem_cache_destroy(srv->conn_cache);
err_cred:
	mem_cgroup_put(khttpd_client_memcg);
	khttpd_client_memcg = NULL;
	put_cred(srv->cred);
err_root:
	khttpd_root_close(srv->root);
	return err;
}

void khttpd_server_stop(struct khttpd_server *srv)
{
	spin_lock(&srv->lock);
	WRITE_ONCE(srv->stopping, true);
	spin_unlock(&srv->lock);

	khttpd_listener_close(srv);
	khttpd_conns_close_all(srv);
	/*
	 * A softirq that read one of our callbacks from a socket just before
	 * its restore may still be entering it: a grace period lets every
	 * such call end before the module's text can go.
	 */
	synchronize_net();
	destroy_workqueue(srv->wq);

	if (atomic_long_read(&khttpd_stats.refused))
		pr_info("refused %ld connections over max_conns=%u\n",
			atomic_long_read(&khttpd_stats.refused),
			srv->max_conns);
	kmem_cache_destroy(srv->path_cache);
	kmem_cache_destroy(srv->conn_cache);
	mem_cgroup_put(khttpd_client_memcg);
	khttpd_client_memcg = NULL;
	put_cred(srv->cred);
	khttpd_root_close(srv->root);
}
