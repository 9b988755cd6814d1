/* SPDX-License-Identifier: GPL-2.0 */
/*
 * CPU-heavy steps (deflating a large entry, building a large listing) run
 * off the connection workers, on an unbound workqueue.
 */
#ifndef KHTTPD_OFFLOAD_H
#define KHTTPD_OFFLOAD_H

/*
 * Runs fn(arg) as work on the unbound queue, with the caller's
 * credentials and memory cgroup, and sleeps until it returns.  The sleep
 * is what lets the caller's per-CPU worker pool run the other connections
 * of its CPU meanwhile; fn should call cond_resched() every few
 * milliseconds, so that they get that CPU too.  Runs fn in place before
 * init or after exit.
 */
void khttpd_offload(void (*fn)(void *arg), void *arg);

int khttpd_offload_init(void);
void khttpd_offload_exit(void);

#endif /* KHTTPD_OFFLOAD_H */
