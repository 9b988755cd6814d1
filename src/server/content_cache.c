// SPDX-License-Identifier: MIT
#include "content_cache.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compress.h"
#include "http/format.h"

#define INITIAL_BUCKETS 256

struct content_cache {
	size_t limit;
	size_t bytes;
	size_t count;
	size_t nbuckets; /* a power of two */
	struct cache_entry **buckets;
	struct cache_entry *lru_head, *lru_tail; /* most recent first */
};

static uint64_t hash_key(const char *s, size_t n)
{
	uint64_t h = 14695981039346656037ULL; /* FNV-1a */

	for (size_t i = 0; i < n; i++) {
		h ^= (uint8_t)s[i];
		h *= 1099511628211ULL;
	}
	return h;
}

struct content_cache *content_cache_new(size_t limit)
{
	struct content_cache *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->limit = limit;
	c->nbuckets = INITIAL_BUCKETS;
	c->buckets = calloc(c->nbuckets, sizeof(*c->buckets));
	if (!c->buckets) {
		free(c);
		return NULL;
	}
	return c;
}

bool content_cache_enabled(const struct content_cache *c)
{
	return c && c->limit > 0;
}

static void entry_free(struct cache_entry *e)
{
	for (int i = 0; i < 3; i++)
		free(e->rep[i].data);
	free(e->key);
	free(e);
}

void content_cache_put(struct cache_entry *e)
{
	if (--e->refs == 0)
		entry_free(e);
}

static void lru_unlink(struct content_cache *c, struct cache_entry *e)
{
	if (e->lru_prev)
		e->lru_prev->lru_next = e->lru_next;
	else
		c->lru_head = e->lru_next;
	if (e->lru_next)
		e->lru_next->lru_prev = e->lru_prev;
	else
		c->lru_tail = e->lru_prev;
	e->lru_prev = e->lru_next = NULL;
}

static void lru_push_front(struct content_cache *c, struct cache_entry *e)
{
	e->lru_prev = NULL;
	e->lru_next = c->lru_head;
	if (c->lru_head)
		c->lru_head->lru_prev = e;
	else
		c->lru_tail = e;
	c->lru_head = e;
}

void content_cache_remove(struct content_cache *c, struct cache_entry *e)
{
	struct cache_entry **p = &c->buckets[e->hash & (c->nbuckets - 1)];

	if (!e->linked)
		return;
	while (*p != e)
		p = &(*p)->hash_next;
	*p = e->hash_next;
	lru_unlink(c, e);
	e->linked = false;
	c->bytes -= e->bytes;
	c->count--;
	content_cache_put(e); /* the table's reference */
}

void content_cache_free(struct content_cache *c)
{
	if (!c)
		return;
	while (c->lru_head)
		content_cache_remove(c, c->lru_head);
	free(c->buckets);
	free(c);
}

struct cache_entry *content_cache_get(struct content_cache *c, const char *key,
				      size_t key_len)
{
	uint64_t h = hash_key(key, key_len);
	struct cache_entry *e;

	for (e = c->buckets[h & (c->nbuckets - 1)]; e; e = e->hash_next) {
		if (e->hash == h && e->key_len == key_len &&
		    !memcmp(e->key, key, key_len)) {
			lru_unlink(c, e);
			lru_push_front(c, e);
			e->refs++;
			return e;
		}
	}
	return NULL;
}

bool content_cache_due(const struct cache_entry *e, uint64_t now_ms)
{
	return now_ms - e->checked_ms >= CACHE_CHECK_MS;
}

static bool same_identity(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino &&
	       a->st_size == b->st_size &&
	       a->st_mtim.tv_sec == b->st_mtim.tv_sec &&
	       a->st_mtim.tv_nsec == b->st_mtim.tv_nsec;
}

bool content_cache_same_file(const struct cache_entry *e, const struct stat *st)
{
	return same_identity(st, &e->file);
}

bool content_cache_same_sibling(const struct cache_entry *e,
				const struct stat *st)
{
	if (!e->sibling_checked)
		return true;
	if (!st || !e->sibling_exists)
		return !st && !e->sibling_exists;
	return same_identity(st, &e->sibling);
}

/*
 * A file representation's ETag comes from the file it was read from: the
 * entry's, or for a precompressed FILE.gz that file's own identity, so
 * different bytes never share a strong tag.
 */
static void build_rep_etag(const struct cache_entry *e, struct cache_rep *r,
			   enum http_coding coding, const struct stat *from)
{
	static const char *const suffix[] = { "", "gz", "df" };
	const struct stat *f = from ? from : &e->file;

	r->etag_len = 0;
	if (e->kind != CACHE_FILE)
		return;
	r->etag_len = http_format_etag(
		r->etag, (uint64_t)f->st_ino, (uint64_t)f->st_size,
		(int64_t)f->st_mtim.tv_sec * 1000000000 + f->st_mtim.tv_nsec,
		suffix[coding]);
}

static void grow_table(struct content_cache *c)
{
	size_t n = c->nbuckets * 2;
	struct cache_entry **b = calloc(n, sizeof(*b));

	if (!b)
		return; /* longer chains, still correct */
	for (size_t i = 0; i < c->nbuckets; i++) {
		struct cache_entry *e = c->buckets[i], *next;

		for (; e; e = next) {
			next = e->hash_next;
			e->hash_next = b[e->hash & (n - 1)];
			b[e->hash & (n - 1)] = e;
		}
	}
	free(c->buckets);
	c->buckets = b;
	c->nbuckets = n;
}

static void evict(struct content_cache *c)
{
	while (c->bytes > c->limit && c->lru_tail)
		content_cache_remove(c, c->lru_tail);
}

struct cache_entry *cache_entry_new(const char *key, size_t key_len,
				    enum cache_kind kind, char *body,
				    size_t len, const struct stat *st,
				    const char *content_type, bool compressible,
				    uint64_t now_ms)
{
	struct cache_entry *e = calloc(1, sizeof(*e));

	if (!e || !(e->key = malloc(key_len + 1))) {
		free(e);
		free(body);
		return NULL;
	}
	memcpy(e->key, key, key_len);
	e->key[key_len] = '\0';
	e->key_len = key_len;
	e->hash = hash_key(key, key_len);
	e->kind = kind;
	e->content_type = content_type;
	e->compressible = compressible;
	e->file = *st;
	e->checked_ms = now_ms;
	e->bytes = sizeof(*e) + key_len + len;
	e->refs = 1;
	e->rep[HTTP_CODING_IDENTITY].data = body;
	e->rep[HTTP_CODING_IDENTITY].len = len;
	e->rep[HTTP_CODING_IDENTITY].tried = true;
	build_rep_etag(e, &e->rep[HTTP_CODING_IDENTITY], HTTP_CODING_IDENTITY,
		       NULL);
	return e;
}

void content_cache_link(struct content_cache *c, struct cache_entry *e)
{
	struct cache_entry *old;

	if (!content_cache_enabled(c) || e->bytes > c->limit / 2)
		return;
	old = content_cache_get(c, e->key, e->key_len);
	if (old) {
		content_cache_remove(c, old);
		content_cache_put(old);
	}
	e->hash_next = c->buckets[e->hash & (c->nbuckets - 1)];
	c->buckets[e->hash & (c->nbuckets - 1)] = e;
	lru_push_front(c, e);
	e->linked = true;
	e->refs++; /* the table's */
	c->bytes += e->bytes;
	if (++c->count > c->nbuckets)
		grow_table(c);
	evict(c);
}

static void attach_rep(struct content_cache *c, struct cache_entry *e,
		       enum http_coding coding, char *data, size_t len,
		       const struct stat *from)
{
	struct cache_rep *r = &e->rep[coding];

	r->tried = true;
	if (!data)
		return;
	r->data = data;
	r->len = len;
	build_rep_etag(e, r, coding, from);
	if (e->linked) {
		e->bytes += len;
		c->bytes += len;
		/* Never evicts e itself: it was just used, so it is first. */
		evict(c);
	}
}

void content_cache_set_gzip(struct content_cache *c, struct cache_entry *e,
			    char *gz, size_t len)
{
	attach_rep(c, e, HTTP_CODING_GZIP, gz, len, &e->sibling);
}

const struct cache_rep *content_cache_rep(struct content_cache *c,
					  struct cache_entry *e,
					  enum http_coding coding,
					  struct compressor *z)
{
	struct cache_rep *r = &e->rep[coding];
	const struct cache_rep *id = &e->rep[HTTP_CODING_IDENTITY];

	if (coding != HTTP_CODING_IDENTITY && !r->tried) {
		size_t n = 0;
		char *out =
			z ? compress_buffer(z, coding, id->data, id->len, &n) :
			    NULL;

		attach_rep(c, e, coding, out, n, NULL);
	}
	return r->data ? r : id;
}
