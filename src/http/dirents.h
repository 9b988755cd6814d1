/* SPDX-License-Identifier: MIT */
/*
 * A directory's entries collected for a listing: items and their names in
 * two arrays that grow by doubling through the front end's allocator.  Names
 * are kept as offsets while the names array may still move, and turned into
 * pointers once collection is done.
 */
#ifndef HTTP_DIRENTS_H
#define HTTP_DIRENTS_H

#include "compat.h"
#include "listing.h"

/* Resizes p from old_size to new_size bytes (p NULL: allocates); NULL when
 * out of memory, p then left as it was. */
typedef void *(*http_resize_fn)(void *p, size_t old_size, size_t new_size);

struct http_dirents {
	/* count items of item_size bytes, each a struct http_listing_entry
	 * followed by what the front end keeps with it */
	void *items;
	size_t item_size, count, cap;
	char *names; /* NUL-terminated, back to back */
	size_t names_len, names_cap;
	size_t max_count, max_names; /* bounds; 0: none */
	http_resize_fn resize;
};

void http_dirents_init(struct http_dirents *d, size_t item_size,
		       http_resize_fn resize);

/*
 * Adds an entry for name (len bytes) and returns its item, zeroed but for
 * the name; NULL when out of memory or beyond a bound.  The entry's name is
 * only usable after http_dirents_done().
 */
void *http_dirents_add(struct http_dirents *d, const char *name, size_t len);

/* Points every entry's name at its copy; nothing may be added after. */
void http_dirents_done(struct http_dirents *d);

static inline struct http_listing_entry *
http_dirents_entry(const struct http_dirents *d, size_t i)
{
	return (struct http_listing_entry *)((char *)d->items +
					     i * d->item_size);
}

#endif /* HTTP_DIRENTS_H */
