// SPDX-License-Identifier: GPL-2.0
/*
 * Under CMWQ a per-CPU pool runs its next work item only when the running
 * one sleeps: a connection's work that deflates 1 MiB (tens of
 * milliseconds) holds every other connection of its CPU that long, and
 * cond_resched() alone does not help, since it is no sleep.  So such a
 * step is handed to an unbound queue while the connection's work sleeps
 * in flush_work(); the scheduler then shares the CPU between the step and
 * the workers the pool starts for the others.
 */
#include "offload.h"

#include <linux/cred.h>
#include <linux/sched.h>
#include <linux/sched/mm.h>
#include <linux/workqueue.h>

struct khttpd_offload_work {
	struct work_struct work;
	void (*fn)(void *arg);
	void *arg;
	const struct cred *cred;
};

static struct workqueue_struct *heavy_wq;

static void khttpd_offload_run(struct work_struct *work)
{
	struct khttpd_offload_work *o =
		container_of(work, struct khttpd_offload_work, work);
	const struct cred *old = override_creds(o->cred);

	o->fn(o->arg);
	revert_creds(old);
}

/* Whether the caller is itself a step run on the unbound queue. */
static bool khttpd_offloaded(void)
{
	struct work_struct *w = current_work();

	return w && w->func == khttpd_offload_run;
}

void khttpd_offload(void (*fn)(void *arg), void *arg)
{
	struct khttpd_offload_work o = {
		.fn = fn,
		.arg = arg,
		/* Held by the caller, which waits for the run to end. */
		.cred = current_cred(),
	};

	/*
	 * A step already on the queue (a listing's build deflating its page)
	 * runs the nested one in place: waiting for it there could wait for
	 * ever once the queue's max_active such steps all waited, their
	 * nested steps queued behind them.
	 */
	if (!heavy_wq || khttpd_offloaded()) {
		fn(arg);
		return;
	}
	INIT_WORK_ONSTACK(&o.work, khttpd_offload_run);
	queue_work(heavy_wq, &o.work);
	flush_work(&o.work);
	destroy_work_on_stack(&o.work);
}

int khttpd_offload_init(void)
{
	heavy_wq = alloc_workqueue("khttpd_heavy", WQ_UNBOUND, 0);
	return heavy_wq ? 0 : -ENOMEM;
}

void khttpd_offload_exit(void)
{
	if (heavy_wq)
		destroy_workqueue(heavy_wq);
	heavy_wq = NULL;
}
