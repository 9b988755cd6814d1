/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Media types as mime= and default_type= give them (sehttpd's --mime and
 * --default-type), over the core's built-in table.  khttpd reads no
 * mime.types file.
 */
#ifndef KHTTPD_MIME_MAP_H
#define KHTTPD_MIME_MAP_H

#include <linux/types.h>

#include "http/mime.h"

struct khttpd_mime_override {
	char ext[HTTP_MIME_EXT_MAX + 1]; /* lower case, without its dot */
	char *type; /* with "; charset=utf-8" when due */
};

struct khttpd_mime_map {
	struct khttpd_mime_override *overrides; /* the last one wins */
	size_t count;
	char *default_type; /* NULL: HTTP_MIME_DEFAULT */
};

/* The longest type a parameter may give, as sehttpd's limit. */
#define KHTTPD_MIME_TYPE_MAX 255

/*
 * Builds m from mime= ("EXT=TYPE" separated by ',') and default_type=
 * (either may be NULL).  Returns 0, or -EINVAL (or -ENOMEM) after saying
 * what is wrong in the kernel log; khttpd_mime_map_free() in both cases.
 */
int khttpd_mime_map_build(struct khttpd_mime_map *m, const char *mime,
			  const char *default_type);
void khttpd_mime_map_free(struct khttpd_mime_map *m);

/* The type of a file name or path: mime=, the built-in table, the default. */
const char *khttpd_mime_map_type(const struct khttpd_mime_map *m,
				 const char *name, size_t len);

#endif /* KHTTPD_MIME_MAP_H */
