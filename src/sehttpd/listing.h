/* SPDX-License-Identifier: MIT */
/* Reading a directory and building its listing, HTML or JSON. */
#ifndef SEHTTPD_LISTING_H
#define SEHTTPD_LISTING_H

#include "http/listing.h"
#include "exchange.h"

#include <stddef.h>

/*
 * The listing of dir_fd, the open directory rc->path names (ending in
 * '/'), sorted in order, in form, in a malloc'd buffer of *len bytes; NULL
 * with errno on failure.  The buffer stays charged to the listings' budget
 * until listing_body_free() frees it.
 */
char *build_dir_listing(struct exchange *rc, int dir_fd,
			struct http_listing_order order,
			enum http_listing_format form, size_t *len);

/* Frees a body of len bytes build_dir_listing() made, and its charge. */
void listing_body_free(char *body, size_t len);

#endif /* SEHTTPD_LISTING_H */
