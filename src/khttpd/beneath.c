// SPDX-License-Identifier: GPL-2.0
/*
 * Path confinement.  The request path is already decoded and free of dot
 * segments (http_route), so only symlinks could lead out of the root.  The
 * lookup starts at the root with LOOKUP_BENEATH, as sehttpd's openat2()
 * with RESOLVE_BENEATH: a symlink whose target climbs above the root, and
 * every absolute symlink (even one naming a path the root holds), fails
 * with EXDEV, answered 403 as sehttpd answers it; no magic links either.
 * The object found is then checked with path_is_under(), which also
 * catches a directory renamed out of the root while the walk was inside
 * it.  Objects are first opened as O_PATH, so that nothing but a regular
 * file or directory is ever really opened (a FIFO would block, a device
 * could have side effects).  With follow_symlinks=1 links lead anywhere,
 * as with sehttpd's --follow-symlinks: only the request path itself, free
 * of "..", stays beneath the root.
 */
#include "beneath.h"

#include <linux/cred.h>
#include <linux/dcache.h>
#include <linux/err.h>
#include <linux/file.h>
#include <linux/limits.h>
#include <linux/namei.h>
#include <linux/slab.h>

#include "compat.h"
#include "http/site.h"
#include "root.h"

/* Scoped lookups that a concurrent rename made fail, before giving up. */
#define LOOKUP_TRIES 8

/*
 * follow_symlinks=1: rel looked up from where the root is now, in the file
 * system as a whole (vfs_path_lookup() would hold links inside the root as
 * in a chroot), so that links lead where they point.  The root's name must
 * still lead to it: that of a root unmounted lazily is "/" (d_path() of a
 * detached mount), that of one removed ends in " (deleted)".  Until the
 * next look at root= (root.c) such a root answers 503.
 */
static int khttpd_lookup_anywhere(const struct path *root, const char *rel,
				  struct path *found)
{
	size_t rel_len = strlen(rel), n;
	char *buf = kmalloc(PATH_MAX + rel_len + 1, GFP_KERNEL), *at;
	struct path named;
	bool same;
	int err;

	if (!buf)
		return -ENOMEM;
	at = d_path(root, buf, PATH_MAX);
	err = PTR_ERR_OR_ZERO(at);
	if (err)
		goto out;
	if (kern_path(at, LOOKUP_FOLLOW | LOOKUP_DIRECTORY, &named)) {
		err = -EAGAIN;
		goto out;
	}
	same = path_equal(&named, root);
	path_put(&named);
	if (!same) {
		err = -EAGAIN;
		goto out;
	}
	n = strlen(at);
	memmove(buf, at, n);
	buf[n] = '/';
	memcpy(buf + n + 1, rel, rel_len + 1);
	err = kern_path(buf, LOOKUP_FOLLOW | LOOKUP_NO_MAGICLINKS, found);
out:
	kfree(buf);
	return err;
}

static struct file *khttpd_open_from(const struct khttpd_server *srv,
				     const struct path *root, const char *path,
				     int flags)
{
	const char *rel = path[1] ? path + 1 : ".";
	unsigned int tries = LOOKUP_TRIES;
	struct path found;
	struct file *f;
	int err;

	if (srv->follow_symlinks) {
		err = khttpd_lookup_anywhere(root, rel, &found);
	} else {
		/* EAGAIN: a rename raced a ".." of a link's target. */
		do {
			err = vfs_path_lookup(root->dentry, root->mnt, rel,
					      LOOKUP_FOLLOW | LOOKUP_BENEATH |
						      LOOKUP_NO_MAGICLINKS,
					      &found);
		} while (err == -EAGAIN && --tries);
	}
	if (err)
		return ERR_PTR(err);
	if (!srv->follow_symlinks && !path_is_under(&found, root)) {
		path_put(&found);
		return ERR_PTR(-EXDEV);
	}
	f = dentry_open(&found, flags | O_LARGEFILE, current_cred());
	path_put(&found);
	return f;
}

int khttpd_may_read(const struct path *path)
{
	return path_permission(path, MAY_READ);
}

/*
 * O_NONBLOCK: a lease on the file is broken without waiting for its holder
 * (up to lease-break-time, 45 s), and a FIFO does not wait for a writer;
 * the request gets a 503 instead.
 */
struct file *khttpd_open_read(const struct path *path, int flags)
{
	int err = khttpd_may_read(path);

	if (err)
		return ERR_PTR(err);
	return dentry_open(path, flags | O_NONBLOCK, current_cred());
}

/*
 * Whether path, found beneath the root, has a hidden name there (a link
 * such as "innocent -> .git/config" leads to one): the names from it up to
 * the root, as http_path_hidden() judges a request path.  The walk crosses
 * mounts below the root, up to where each is mounted: a tmpfs on ".priv"
 * has a root of its own whose name is not the one it is reached by.  What
 * a link led to outside the root (follow_symlinks=1) is not, as sehttpd
 * judges it.
 */
static bool khttpd_beneath_hidden(const struct khttpd_server *srv,
				  const struct path *root,
				  const struct path *path)
{
	struct path p = *path;
	bool hidden = false;

	if (srv->follow_symlinks && !path_is_under(path, root))
		return false;
	path_get(&p);
	while (!hidden && !path_equal(&p, root)) {
		struct dentry *parent;

		if (p.dentry == p.mnt->mnt_root) {
			/* Nothing above: the namespace's root. */
			if (!follow_up(&p))
				break;
			continue;
		}
		if (IS_ROOT(p.dentry))
			break; /* disconnected: no names to judge */
		parent = dget_parent(p.dentry);
		/* The name is stable under d_lock; "/" makes .well-known in
		 * the root the one dot name that is not hidden. */
		spin_lock(&p.dentry->d_lock);
		hidden = http_entry_hidden(
			"/", parent == root->dentry && p.mnt == root->mnt,
			(const char *)p.dentry->d_name.name,
			p.dentry->d_name.len);
		spin_unlock(&p.dentry->d_lock);
		dput(p.dentry);
		p.dentry = parent;
	}
	path_put(&p);
	return hidden;
}

struct file *khttpd_open_beneath(const struct khttpd_server *srv,
				 const char *path, int flags, bool *hidden,
				 unsigned long *turn)
{
	const struct path *root;
	unsigned long at;
	struct file *f;
	int idx;

	/* One directory for both, though a deploy may turn root= between. */
	root = khttpd_root_enter(srv->root, &idx, &at);
	f = khttpd_open_from(srv, root, path, flags);
	/* Only what was opened: a failed look (an index that is not there)
	 * must not date the directory opened before under a later turn. */
	if (turn && !IS_ERR(f))
		*turn = at;
	if (hidden && !IS_ERR(f))
		*hidden = khttpd_beneath_hidden(srv, root, &f->f_path);
	khttpd_root_leave(srv->root, idx);
	return f;
}
