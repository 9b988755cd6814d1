// SPDX-License-Identifier: GPL-2.0
/*
 * A release deploy turns a link to the new tree (ln -sfn; mv -T) or renames
 * the new tree over the old one.  root= is looked up again every second,
 * and a lookup that leads to another directory is served from then on, as
 * sehttpd's worker_roots.c does; one that leads nowhere (between the two
 * renames of a swap) keeps the directory served last.  Lookups hold the
 * directory they began from in an SRCU read-side section, since they may
 * sleep in the file system; the directory replaced is put once every one
 * of them has left.  Cache entries of the old tree fail their next check
 * (the file found is another inode) and go.
 *
 * The check runs as a kworker, so root= is looked up in the kworkers' mount
 * namespace, as follow_symlinks=1's lookups already are.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include "root.h"

#include <linux/dcache.h>
#include <linux/limits.h>
#include <linux/namei.h>
#include <linux/printk.h>
#include <linux/slab.h>

#define KHTTPD_ROOT_CHECK HZ

static struct path *khttpd_root_lookup(const char *name, int *err)
{
	struct path *dir = kmalloc(sizeof(*dir), GFP_KERNEL);

	*err = -ENOMEM;
	if (dir) {
		*err = kern_path(name, LOOKUP_FOLLOW | LOOKUP_DIRECTORY, dir);
		if (*err) {
			kfree(dir);
			dir = NULL;
		}
	}
	return dir;
}

static void khttpd_root_put(struct path *dir)
{
	path_put(dir);
	kfree(dir);
}

static void khttpd_root_announce(const struct khttpd_root *r,
				 const struct path *dir)
{
	char *buf = kmalloc(PATH_MAX, GFP_KERNEL), *real;

	if (!buf)
		return;
	real = d_path(dir, buf, PATH_MAX);
	if (!IS_ERR(real))
		pr_info("root=%s now serves %s\n", r->name, real);
	kfree(buf);
}

static void khttpd_root_check(struct work_struct *work)
{
	struct khttpd_root *r =
		container_of(to_delayed_work(work), struct khttpd_root, check);
	/* This work is the one writer, and exit cancels it first. */
	struct path *old = rcu_dereference_protected(r->dir, true);
	struct path *fresh;
	int err;

	fresh = khttpd_root_lookup(r->name, &err);
	if (fresh && path_equal(fresh, old)) {
		khttpd_root_put(fresh);
	} else if (fresh) {
		rcu_assign_pointer(r->dir, fresh);
		synchronize_srcu(&r->srcu);
		khttpd_root_put(old);
		khttpd_root_announce(r, fresh);
	}
	queue_delayed_work(system_unbound_wq, &r->check, KHTTPD_ROOT_CHECK);
}

int khttpd_root_init(struct khttpd_root *r, const char *name)
{
	struct path *dir;
	int err;

	r->name = name;
	dir = khttpd_root_lookup(name, &err);
	if (!dir)
		return err;
	err = init_srcu_struct(&r->srcu);
	if (err) {
		khttpd_root_put(dir);
		return err;
	}
	RCU_INIT_POINTER(r->dir, dir);
	INIT_DELAYED_WORK(&r->check, khttpd_root_check);
	queue_delayed_work(system_unbound_wq, &r->check, KHTTPD_ROOT_CHECK);
	return 0;
}

void khttpd_root_exit(struct khttpd_root *r)
{
	cancel_delayed_work_sync(&r->check);
	khttpd_root_put(rcu_dereference_protected(r->dir, true));
	cleanup_srcu_struct(&r->srcu);
}
