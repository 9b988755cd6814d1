// SPDX-License-Identifier: MIT
#include "vhosts.h"

#include <stdio.h>
#include <string.h>

/* Splits "NAME=DIR"; reads NAME into *name (its buffer buf). */
static int split(const char *arg, struct http_vhost *name, char *buf,
		 const char **dir, char *err, size_t cap)
{
	const char *eq = strchr(arg, '=');

	if (!eq) {
		snprintf(err, cap, "expected NAME=DIR");
		return -1;
	}
	if (!http_vhost_init(name, arg, (size_t)(eq - arg), buf)) {
		snprintf(err, cap,
			 "NAME is a host name (letters, digits, '-' and dots) "
			 "or '*.' and one");
		return -1;
	}
	if (!eq[1]) {
		snprintf(err, cap, "expected a directory after '='");
		return -1;
	}
	*dir = eq + 1;
	return 0;
}

int vhost_arg_check(const char *arg, char *err, size_t cap)
{
	char buf[HTTP_VHOST_NAME_MAX];
	struct http_vhost name;
	const char *dir;

	return split(arg, &name, buf, &dir, err, cap);
}

int vhosts_read(struct vhosts *v, const char *const *args, unsigned int n,
		char *err, size_t cap)
{
	v->n = 0;
	for (unsigned int i = 0; i < n && i < VHOSTS_MAX; i++) {
		struct http_vhost *name = &v->names[i];

		if (split(args[i], name, v->name_bufs[i], &v->dirs[i], err,
			  cap))
			return -1;
		for (unsigned int j = 0; j < i; j++) {
			if (http_vhost_same(&v->names[j], name)) {
				snprintf(err, cap, "--vhost %s%.*s given twice",
					 name->wildcard ? "*." : "",
					 (int)name->len, name->name);
				return -1;
			}
		}
		v->args[i] = args[i];
		v->n++;
	}
	return 0;
}
