// SPDX-License-Identifier: GPL-2.0
/*
 * Unloading closes every connection in one pass (khttpd_conns_close_all)
 * rather than one work item at a time: a work item that runs once the
 * server is stopping leaves its connection alone (conn.c), so the server's
 * list is this pass's to close.
 */
#include "conn.h"

#include <linux/cpumask.h>
#include <linux/err.h>
#include <linux/file.h>
#include <linux/mm.h>
#include <linux/net.h>
#include <linux/sched.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <net/sock.h>

#include "conn_sock.h"

/* Unloading closes connections in at most this many parallel parts. */
#define KHTTPD_CLOSE_BATCHES 8

/* A part of the closing pass: the connections one CPU closes. */
struct close_batch {
	struct work_struct work;
	struct list_head conns;
	int cpu;
};

/*
 * The kernel releases the socket after the module is gone, as it releases
 * any closed file: fput() in a kworker hands the file to the kernel's own
 * delayed release (system_wq).  Releasing it here, the reset crossing
 * loopback to the client and the client's wake-up, held unloading for
 * seconds with 10,000 connections (doc/benchmarks.md).
 */
static void khttpd_conn_unload_release_later(struct socket *sock)
{
	struct file *file = sock_alloc_file(sock, 0, NULL);

	/* On failure sock_alloc_file() released the socket itself. */
	if (!IS_ERR(file))
		fput(file);
}

static void khttpd_conn_unload_batch_work(struct work_struct *work)
{
	struct close_batch *b = container_of(work, struct close_batch, work);
	struct khttpd_conn *c, *next;

	list_for_each_entry_safe(c, next, &b->conns, node) {
		khttpd_out_release(&c->out);
		kvfree(c->buf);
		/* A reset: no FIN handshake for the kernel to see through. */
		sock_no_linger(c->sock->sk);
		khttpd_conn_unload_release_later(c->sock);
		khttpd_conn_free(c);
		cond_resched();
	}
}

void khttpd_conns_close_all(struct khttpd_server *srv)
{
	struct close_batch batch[KHTTPD_CLOSE_BATCHES];
	struct khttpd_conn *c, *next;
	LIST_HEAD(conns);
	unsigned int i, n = 0, cpu;

	/*
	 * Work items that began before stopping was set end (they may still
	 * close their connection or re-arm its timer); any later run sees
	 * stopping and leaves its connection alone.  So the list is ours.
	 */
	flush_workqueue(srv->wq);
	spin_lock(&srv->lock);
	list_splice_init(&srv->conns, &conns);
	spin_unlock(&srv->lock);

	/* Nothing queues a work item once these are undone... */
	list_for_each_entry(c, &conns, node) {
		khttpd_conn_sock_restore(c);
		timer_shutdown_sync(&c->timer);
		cond_resched();
	}
	/* ...and the runs queued before have ended. */
	flush_workqueue(srv->wq);

	/*
	 * One part per CPU, at high priority: the kernel's release of the
	 * first sockets and the clients' closes compete for the same CPUs.
	 */
	for (cpu = cpumask_first(cpu_online_mask);
	     cpu < nr_cpu_ids && n < KHTTPD_CLOSE_BATCHES;
	     cpu = cpumask_next(cpu, cpu_online_mask)) {
		INIT_WORK_ONSTACK(&batch[n].work,
				  khttpd_conn_unload_batch_work);
		INIT_LIST_HEAD(&batch[n].conns);
		batch[n++].cpu = cpu;
	}
	i = 0;
	list_for_each_entry_safe(c, next, &conns, node) {
		list_move(&c->node, &batch[i].conns);
		i = (i + 1) % n;
	}
	for (i = 0; i < n; i++)
		queue_work_on(batch[i].cpu, system_highpri_wq, &batch[i].work);
	for (i = 0; i < n; i++) {
		flush_work(&batch[i].work);
		destroy_work_on_stack(&batch[i].work);
	}
	/* Connections that closed themselves are freed by their last run. */
	wait_event(srv->drained, !atomic_read(&srv->nconns));
}
