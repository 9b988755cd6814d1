// SPDX-License-Identifier: GPL-2.0
/*
 * A release deploy turns a link to the new tree (ln -sfn; mv -T) or renames
 * the new tree into place.  root= is looked up again every second, and a
 * lookup that leads to another directory is served from then on, as
 * sehttpd's worker_roots.c does; one that leads nowhere (between the two
 * renames of a swap) keeps the directory served last.  Lookups hold the
 * directory they began from in an SRCU read-side section, since they may
 * sleep in the file system; the directory replaced is put once every one
 * of them has left.  Each turn is counted: a cache entry found under an
 * earlier turn is looked at again before it is served (its file found now
 * is another inode, so it goes), though it was looked at within the second.
 *
 * The check runs as a kworker, whose root is the init process's: root= is
 * looked up from the root of whoever loaded the module (its chroot, its
 * mount namespace) instead, kept for that, which is why it must be
 * absolute.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include "root.h"

#include <linux/dcache.h>
#include <linux/fs_struct.h>
#include <linux/limits.h>
#include <linux/namei.h>
#include <linux/printk.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include "compat.h"

#define KHTTPD_ROOT_CHECK HZ

static int khttpd_root_lookup(const struct khttpd_root *r, struct path *dir)
{
	return vfs_path_lookup(r->base.dentry, r->base.mnt, r->name,
			       LOOKUP_FOLLOW | LOOKUP_DIRECTORY, dir);
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
	struct path found, *fresh;

	if (!khttpd_root_lookup(r, &found)) {
		if (path_equal(&found, old)) {
			path_put(&found);
		} else if (!(fresh = kmalloc(sizeof(*fresh), GFP_KERNEL))) {
			path_put(&found); /* taken at the next look */
		} else {
			*fresh = found;
			rcu_assign_pointer(r->dir, fresh);
			smp_store_release(&r->turn, r->turn + 1);
			/* Every request begun from here on is answered
			 * from it; those under way may end with the old. */
			khttpd_root_announce(r, fresh);
			synchronize_srcu(&r->srcu);
			khttpd_root_put(old);
		}
	}
	queue_delayed_work(system_unbound_wq, &r->check, KHTTPD_ROOT_CHECK);
}

struct khttpd_root *khttpd_root_open(const char *name)
{
	struct khttpd_root *r;
	struct path *dir;
	int err;

	if (name[0] != '/') {
		pr_err("root=%s is not an absolute path: it is looked up again as deploys turn it\n",
		       name);
		return ERR_PTR(-EINVAL);
	}
	r = kzalloc(sizeof(*r), GFP_KERNEL);
	dir = kmalloc(sizeof(*dir), GFP_KERNEL);
	if (!r || !dir) {
		err = -ENOMEM;
		goto err_alloc;
	}
	r->name = name;
	get_fs_root(current->fs, &r->base);
	err = khttpd_root_lookup(r, dir);
	if (err) {
		pr_err("root=%s is not a directory that can be served: %pe\n",
		       name, ERR_PTR(err));
		goto err_base;
	}
	err = init_srcu_struct(&r->srcu);
	if (err)
		goto err_dir;
	RCU_INIT_POINTER(r->dir, dir);
	INIT_DELAYED_WORK(&r->check, khttpd_root_check);
	queue_delayed_work(system_unbound_wq, &r->check, KHTTPD_ROOT_CHECK);
	return r;

err_dir:
	path_put(dir);
err_base:
	path_put(&r->base);
err_alloc:
	kfree(dir);
	kfree(r);
	return ERR_PTR(err);
}

void khttpd_root_close(struct khttpd_root *r)
{
	cancel_delayed_work_sync(&r->check);
	khttpd_root_put(rcu_dereference_protected(r->dir, true));
	cleanup_srcu_struct(&r->srcu);
	path_put(&r->base);
	kfree(r);
}
