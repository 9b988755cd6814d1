/* SPDX-License-Identifier: GPL-2.0 */
/* Listings, HTML or JSON, of directories without an index.html. */
#ifndef KHTTPD_LISTING_H
#define KHTTPD_LISTING_H

#include <linux/fs.h>
#include <linux/stat.h>

#include "respond.h"

/*
 * Answers with the listing of dir (opened O_PATH, described by st), whose
 * normalised path, ending in '/', is path[0..len).
 */
int khttpd_serve_listing(struct khttpd_exchange *x, const struct file *dir,
			 const struct kstat *st, const char *path, size_t len);

#endif /* KHTTPD_LISTING_H */
