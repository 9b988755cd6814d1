/* SPDX-License-Identifier: GPL-2.0 */
/* Lookups confined to the root, and what they reached. */
#ifndef KHTTPD_BENEATH_H
#define KHTTPD_BENEATH_H

#include <linux/fs.h>
#include <linux/path.h>

#include "khttpd.h"

/* Opens path (from '/', decoded and normalised) beneath the root. */
struct file *khttpd_open_beneath(const struct khttpd_server *srv,
				 const char *path, int flags);

/* 0 when the serving user may read what path names, else -EACCES... */
int khttpd_may_read(const struct path *path);

/* Opens what path names for reading, if the serving user may read it. */
struct file *khttpd_open_read(const struct path *path, int flags);

bool khttpd_beneath_hidden(const struct khttpd_server *srv,
			   const struct path *path);

#endif /* KHTTPD_BENEATH_H */
