/* SPDX-License-Identifier: GPL-2.0 */
/* The directory root= names, as it is now (a deploy may turn it). */
#ifndef KHTTPD_ROOT_H
#define KHTTPD_ROOT_H

#include <linux/path.h>
#include <linux/srcu.h>
#include <linux/workqueue.h>

struct khttpd_root {
	const char *name; /* root= as given (absolute) */
	struct path base; /* the loader's root, where name is looked up */
	struct path __rcu *dir; /* what name led to when last looked up */
	struct srcu_struct srcu; /* readers of dir, who may sleep */
	/* How many times dir turned: what was found under an earlier turn
	 * is looked at again before it is trusted (khttpd_cache_get_recent). */
	unsigned long turn;
	struct delayed_work check;
};

/*
 * Looks name up and follows it from then on; an ERR_PTR when it cannot be
 * served (the kernel log says why, but for -ENOMEM).
 */
struct khttpd_root *khttpd_root_open(const char *name);

/* Once no request can enter it any more. */
void khttpd_root_close(struct khttpd_root *r);

/* The turn dir is at now. */
static inline unsigned long khttpd_root_turn(struct khttpd_root *r)
{
	/* Pairs with the release in khttpd_root_check(): a reader that
	 * sees a turn sees the directory it brought. */
	return smp_load_acquire(&r->turn);
}

/*
 * The directory to serve from, valid until khttpd_root_leave(r, *idx);
 * the lookups between may sleep.  *turn: its turn, or an earlier one.
 */
static inline const struct path *
khttpd_root_enter(struct khttpd_root *r, int *idx, unsigned long *turn)
{
	*idx = srcu_read_lock(&r->srcu);
	*turn = khttpd_root_turn(r);
	return srcu_dereference(r->dir, &r->srcu);
}

static inline void khttpd_root_leave(struct khttpd_root *r, int idx)
{
	srcu_read_unlock(&r->srcu, idx);
}

#endif /* KHTTPD_ROOT_H */
