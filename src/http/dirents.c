// SPDX-License-Identifier: MIT
#include "dirents.h"

void http_dirents_init(struct http_dirents *d, size_t item_size,
		       http_resize_fn resize)
{
	*d = (struct http_dirents){ .item_size = item_size, .resize = resize };
}

/* Makes room for need elements of size bytes, doubling from 64. */
static int grow(const struct http_dirents *d, void **p, size_t *cap,
		size_t need, size_t size)
{
	size_t n = *cap ? *cap : 64;
	void *q;

	if (need <= *cap)
		return 0;
	while (n < need)
		n *= 2;
	q = d->resize(*p, *cap * size, n * size);
	if (!q)
		return -1;
	*p = q;
	*cap = n;
	return 0;
}

void *http_dirents_add(struct http_dirents *d, const char *name, size_t len)
{
	struct http_listing_entry *e;

	if ((d->max_count && d->count >= d->max_count) ||
	    (d->max_names && d->names_len + len + 1 > d->max_names) ||
	    grow(d, &d->items, &d->cap, d->count + 1, d->item_size) ||
	    grow(d, (void **)&d->names, &d->names_cap, d->names_len + len + 1,
		 1))
		return NULL;
	memcpy(d->names + d->names_len, name, len);
	d->names[d->names_len + len] = '\0';
	e = http_dirents_entry(d, d->count++);
	memset(e, 0, d->item_size);
	/* An offset until the names stop moving. */
	e->name = (const char *)(uintptr_t)d->names_len;
	e->name_len = len;
	d->names_len += len + 1;
	return e;
}

void http_dirents_done(struct http_dirents *d)
{
	for (size_t i = 0; i < d->count; i++) {
		struct http_listing_entry *e = http_dirents_entry(d, i);

		e->name = d->names + (uintptr_t)e->name;
	}
}
