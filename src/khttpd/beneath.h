/* SPDX-License-Identifier: GPL-2.0 */
/* Lookups confined to the root, and what they reached. */
#ifndef KHTTPD_BENEATH_H
#define KHTTPD_BENEATH_H

#include <linux/fs.h>
#include <linux/path.h>

#include "khttpd.h"

/*
 * Opens path (from '/', decoded and normalised) beneath the root; with
 * hidden, also says whether what it reached has a hidden name there (a
 * link such as "innocent -> .git/config" leads to one); with turn, the
 * root's turn it was found under (khttpd_root_enter()), when opened.
 */
struct file *khttpd_open_beneath(const struct khttpd_server *srv,
				 const char *path, int flags, bool *hidden,
				 unsigned long *turn);

/* 0 when the serving user may read what path names, else -EACCES... */
int khttpd_may_read(const struct path *path);

/* Opens what path names for reading, if the serving user may read it. */
struct file *khttpd_open_read(const struct path *path, int flags);

#endif /* KHTTPD_BENEATH_H */
