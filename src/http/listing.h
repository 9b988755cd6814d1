/* SPDX-License-Identifier: MIT */
/* The HTML directory listing, written through a struct http_out. */
#ifndef HTTP_LISTING_H
#define HTTP_LISTING_H

#include "compat.h"
#include "out.h"

struct http_listing_entry {
	const char *name;
	size_t name_len;
	bool is_dir;
	bool has_stat; /* size and mtime known */
	uint64_t size;
	int64_t mtime;
};

/* Directories first, then names in byte order; a qsort/sort comparator. */
int http_listing_entry_cmp(const void *a, const void *b);

/* dir is the decoded, normalised directory path, ending in '/'. */
void http_listing_begin(struct http_out *out, const char *dir, size_t len);
void http_listing_entry(struct http_out *out,
			const struct http_listing_entry *e);
void http_listing_end(struct http_out *out);

#endif /* HTTP_LISTING_H */
