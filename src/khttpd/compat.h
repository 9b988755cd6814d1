/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What differs between the kernels khttpd builds for (Debian's 6.1 and
 * 6.12), in one place, so that the rest reads as today's kernel API.
 * Differences that need no wrapper:
 *  - path_permission() hides inode_permission()'s first argument (a user
 *    namespace before 6.3, an mnt_idmap from 6.3);
 *  - timer_delete_sync() and timer_shutdown_sync() are in both (6.1.y
 *    has them backported);
 *  - prepare_kernel_cred() takes &init_task in both: NULL fails from 6.2.
 */
#ifndef KHTTPD_COMPAT_H
#define KHTTPD_COMPAT_H

#include <linux/bvec.h>
#include <linux/mm.h>
#include <linux/net.h>
#include <linux/slab.h>
#include <linux/socket.h>
#include <linux/uio.h>
#include <linux/version.h>

#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
#include <linux/unaligned.h>
#else
#include <asm/unaligned.h>
#endif

struct dentry;
struct path;
struct vfsmount;

/*
 * Exported by fs/namei.c (EXPORT_SYMBOL) but declared only in fs/internal.h
 * on 6.1: the one lookup from a given root that takes LOOKUP_ flags.
 */
int vfs_path_lookup(struct dentry *dentry, struct vfsmount *mnt,
		    const char *name, unsigned int flags, struct path *path);

/* 6.12 dropped the old size: kvrealloc(p, new_size, flags). */
static inline void *khttpd_kvrealloc(void *p, size_t old_size, size_t new_size,
				     gfp_t flags)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
	return kvrealloc(p, new_size, flags);
#else
	return kvrealloc(p, old_size, new_size, flags);
#endif
}

/*
 * Hands len bytes of a page-cache page to the socket without a copy.
 * kernel_sendpage() went in 6.5; sendmsg() with MSG_SPLICE_PAGES on a
 * bvec took its place.  The caller checked sendpage_ok().
 */
static inline int khttpd_send_page(struct socket *sock, struct page *page,
				   size_t off, size_t len, int flags)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 5, 0)
	struct msghdr msg = { .msg_flags = flags | MSG_SPLICE_PAGES };
	struct bio_vec bv;

	bvec_set_page(&bv, page, len, off);
	iov_iter_bvec(&msg.msg_iter, ITER_SOURCE, &bv, 1, len);
	return sock_sendmsg(sock, &msg);
#else
	return kernel_sendpage(sock, page, off, len, flags);
#endif
}

#endif /* KHTTPD_COMPAT_H */
