/* SPDX-License-Identifier: GPL-2.0 */
/* Answering GET and HEAD from the served tree. */
#ifndef KHTTPD_SERVE_H
#define KHTTPD_SERVE_H

#include <linux/fs.h>

#include "khttpd.h"
#include "respond.h"

/* Routes the exchange's request and sends the response. */
int khttpd_serve(struct khttpd_exchange *x);

/*
 * Opens path (normalised, starting with '/') as O_PATH or with flags,
 * resolved inside the root and checked to lie beneath it; an ERR_PTR when
 * it does not exist or leads outside.
 */
struct file *khttpd_open_beneath(const struct khttpd_server *srv,
				 const char *path, int flags);

/*
 * Opens for reading what an O_PATH lookup found.  dentry_open() checks no
 * permission itself, so read access is checked here for the current
 * (unprivileged) credentials first.
 */
struct file *khttpd_open_read(const struct path *path, int flags);

#endif /* KHTTPD_SERVE_H */
