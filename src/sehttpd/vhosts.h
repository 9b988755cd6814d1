/* SPDX-License-Identifier: MIT */
/*
 * --vhost NAME=DIR: the names, read as the core matches them
 * (src/http/vhost.h), and the directory each serves.
 */
#ifndef SEHTTPD_VHOSTS_H
#define SEHTTPD_VHOSTS_H

#include <stddef.h>

#include "http/vhost.h"

/* How often --vhost may be given. */
#define VHOSTS_MAX 64

struct vhosts {
	unsigned int n;
	struct http_vhost names[VHOSTS_MAX]; /* matched in the core */
	const char *args[VHOSTS_MAX]; /* NAME=DIR as given, for messages */
	const char *dirs[VHOSTS_MAX]; /* DIR, within args */
	char name_bufs[VHOSTS_MAX][HTTP_VHOST_NAME_MAX];
};

/*
 * Checks one --vhost argument as the command line gives it; on error
 * writes a one-line reason (no program name, no newline) to err.
 */
int vhost_arg_check(const char *arg, char *err, size_t cap);

/*
 * Reads n checked arguments into v; a name given twice (however written:
 * "A.test" and "a.test." are one) is refused, with the reason in err.
 */
int vhosts_read(struct vhosts *v, const char *const *args, unsigned int n,
		char *err, size_t cap);

#endif /* SEHTTPD_VHOSTS_H */
