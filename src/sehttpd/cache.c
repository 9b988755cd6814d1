// SPDX-License-Identifier: MIT
#include "cache.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compress.h"
#include "http/conditional.h"
#include "http/format.h"

#define INITIAL_BUCKETS 256

struct content_cache {
	size_t limit;
	size_t bytes;
	size_t count;
	size_t nbuckets; /* a power of two */
	struct hlist_head *buckets;
	struct list_head lru; /* most recently used first */
	size_t fd_limit;
	size_t fds; /* held by linked entries */
	struct list_head fd_lru; /* entries holding descriptors */
	/* Entries out of the table that responses still hold (by their lru
	 * node), and their bytes. */
	struct list_head held_list;
	size_t held;
};

static uint64_t hash_key(unsigned root, const char *s, size_t n)
{
	uint64_t h = 14695981039346656037ULL; /* FNV-1a */

	h ^= root;
	h *= 1099511628211ULL;
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
	INIT_LIST_HEAD(&c->lru);
	INIT_LIST_HEAD(&c->fd_lru);
	INIT_LIST_HEAD(&c->held_list);
	c->nbuckets = INITIAL_BUCKETS;
	c->buckets = calloc(c->nbuckets, sizeof(*c->buckets));
	if (!c->buckets) {
		free(c);
		return NULL;
	}
	return c;
}

void content_cache_usage(const struct content_cache *c, size_t *entries,
			 size_t *bytes)
{
	*entries = c->count;
	*bytes = c->bytes;
}

bool content_cache_enabled(const struct content_cache *c)
{
	return c && c->limit > 0;
}

void content_cache_set_fd_limit(struct content_cache *c, size_t limit)
{
	c->fd_limit = limit;
}

static void entry_free(struct cache_entry *e)
{
	if (e->held_in) {
		*e->held_in -= e->held;
		list_del(&e->lru);
	}
	if (e->body_put) {
		e->body_put(e->body_owner);
		e->rep[HTTP_CODING_IDENTITY].data = NULL;
	}
	for (int i = 0; i < HTTP_CODING_COUNT; i++) {
		free(e->rep[i].data);
		if (e->rep[i].in_file)
			close(e->rep[i].fd);
	}
	free(e->key); /* and the paths, in the same block */
	free(e);
}

void content_cache_hold(struct cache_entry *e)
{
	e->refs++;
}

void content_cache_put(struct cache_entry *e)
{
	if (--e->refs == 0)
		entry_free(e);
}

static void content_cache_remove(struct content_cache *c, struct cache_entry *e)
{
	if (!e->linked)
		return;
	hlist_del_init(&e->hash_node);
	list_del(&e->lru);
	if (e->fds) {
		list_del(&e->fd_lru);
		c->fds -= e->fds;
	}
	e->linked = false;
	c->bytes -= e->bytes;
	c->count--;
	/* Responses still going out hold it: counted as held from now (a
	 * listing's body is bounded by listing.c's budget). */
	if (e->refs > 1 && e->kind == CACHE_FILE) {
		e->held = e->bytes;
		e->held_in = &c->held;
		c->held += e->held;
		list_add(&e->lru, &c->held_list);
	}
	content_cache_put(e); /* the table's reference */
}

bool content_cache_may_hold(const struct content_cache *c,
			    const struct cache_entry *e)
{
	return e->kind != CACHE_FILE || e->held_in ||
	       e->bytes <= CACHE_HOLD_SMALL || c->held < c->limit;
}

void content_cache_free(struct content_cache *c)
{
	if (!c)
		return;
	while (!list_empty(&c->lru))
		content_cache_remove(
			c, list_first_entry(&c->lru, struct cache_entry, lru));
	/* Those still held outlive the cache: no count to keep. */
	while (!list_empty(&c->held_list)) {
		struct cache_entry *e = list_first_entry(
			&c->held_list, struct cache_entry, lru);

		list_del(&e->lru);
		e->held_in = NULL;
	}
	free(c->buckets);
	free(c);
}

void content_cache_drop_root(struct content_cache *c, unsigned root)
{
	struct cache_entry *e, *next;

	list_for_each_entry_safe(e, next, &c->lru, lru) {
		if (e->root == root)
			content_cache_remove(c, e);
	}
}

static struct cache_entry *find(const struct content_cache *c, unsigned root,
				const char *key, size_t key_len)
{
	uint64_t h = hash_key(root, key, key_len);
	struct cache_entry *e;

	hlist_for_each_entry(e, &c->buckets[h & (c->nbuckets - 1)], hash_node) {
		if (e->hash == h && e->root == root && e->key_len == key_len &&
		    !memcmp(e->key, key, key_len))
			return e;
	}
	return NULL;
}

/* The ctime and mode too: a chmod (say, making the file unreadable) must
 * send the next request through the file system as if uncached. */
static bool same_identity(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino &&
	       a->st_size == b->st_size && a->st_mode == b->st_mode &&
	       a->st_mtim.tv_sec == b->st_mtim.tv_sec &&
	       a->st_mtim.tv_nsec == b->st_mtim.tv_nsec &&
	       a->st_ctim.tv_sec == b->st_ctim.tv_sec &&
	       a->st_ctim.tv_nsec == b->st_ctim.tv_nsec;
}

/* Whether e still holds what the file system holds. */
static bool still_fresh(struct cache_entry *e, cache_stat_fn *stat_file,
			void *ctx)
{
	size_t flen;
	struct stat st;

	/* A listing is rebuilt: its directory's times miss changes to the
	 * entries' sizes and dates. */
	if (e->kind == CACHE_LISTING)
		return false;
	if (stat_file(ctx, e->file_path, &st) || !same_identity(&st, &e->file))
		return false;
	flen = strlen(e->file_path);
	for (unsigned i = 0; i < HTTP_PRECOMPRESSED_COUNT; i++) {
		bool exists;

		if (!e->sibling[i].checked)
			continue;
		strcpy(e->sibling_path + flen, http_precompressed[i].suffix);
		exists = !stat_file(ctx, e->sibling_path, &st);
		if (exists != e->sibling[i].exists ||
		    (exists && !same_identity(&st, &e->sibling[i].st)))
			return false;
	}
	return true;
}

enum cache_lookup content_cache_lookup(struct content_cache *c, unsigned root,
				       const char *key, size_t key_len,
				       uint64_t now_ms,
				       cache_stat_fn *stat_file, void *ctx,
				       struct cache_entry **found)
{
	struct cache_entry *e;

	*found = NULL;
	if (!content_cache_enabled(c) || !(e = find(c, root, key, key_len)))
		return CACHE_MISSING;
	if (now_ms - e->checked_ms >= CACHE_CHECK_MS) {
		if (!still_fresh(e, stat_file, ctx)) {
			content_cache_remove(c, e);
			return CACHE_STALE;
		}
		e->checked_ms = now_ms;
	}
	list_move(&e->lru, &c->lru);
	if (e->fds) {
		list_move(&e->fd_lru, &c->fd_lru);
		e->used_ms = now_ms;
	}
	e->refs++;
	*found = e;
	return CACHE_FRESH;
}

/*
 * A file representation's ETag comes from the file it was read from: the
 * entry's, or for a precompressed sibling that file's own identity, so
 * different bytes never share a strong tag.
 */
static void build_rep_etag(const struct cache_entry *e, struct cache_rep *r,
			   enum http_coding coding, const struct stat *from)
{
	const struct stat *f = from ? from : &e->file;

	r->etag_len = 0;
	if (e->kind != CACHE_FILE)
		return;
	r->etag_len = http_format_etag(
		r->etag, (uint64_t)f->st_ino, (uint64_t)f->st_size,
		http_etag_time(f->st_mtim.tv_sec, f->st_mtim.tv_nsec),
		http_coding_etag_suffix(coding));
}

static void grow_table(struct content_cache *c)
{
	size_t n = c->nbuckets * 2;
	struct hlist_head *b = calloc(n, sizeof(*b));
	struct hlist_node *next;
	struct cache_entry *e;

	if (!b)
		return; /* longer chains, still correct */
	for (size_t i = 0; i < c->nbuckets; i++) {
		hlist_for_each_entry_safe(e, next, &c->buckets[i], hash_node)
		{
			hlist_del_init(&e->hash_node);
			hlist_add_head(&e->hash_node, &b[e->hash & (n - 1)]);
		}
	}
	free(c->buckets);
	c->buckets = b;
	c->nbuckets = n;
}

/*
 * Closes e's descriptors whose body is in memory too (a compressible file
 * sent by sendfile), so that e and its compressed forms stay; true when e
 * holds none any more.  Not while a response holds e: it may be sending
 * from one.
 */
static bool shed_fds(struct content_cache *c, struct cache_entry *e)
{
	if (e->refs > 1)
		return false;
	for (int i = 0; i < HTTP_CODING_COUNT; i++) {
		struct cache_rep *r = &e->rep[i];

		if (r->in_file && r->data) {
			close(r->fd);
			r->in_file = false;
			e->fds--;
			c->fds--;
		}
	}
	if (e->fds)
		return false;
	list_del(&e->fd_lru);
	return true;
}

/* The least recently used holder of descriptors gives them up, or goes. */
static void drop_fds(struct content_cache *c)
{
	struct cache_entry *e =
		list_last_entry(&c->fd_lru, struct cache_entry, fd_lru);

	if (!shed_fds(c, e))
		content_cache_remove(c, e);
}

static void evict(struct content_cache *c)
{
	while (c->bytes > c->limit && !list_empty(&c->lru))
		content_cache_remove(
			c, list_last_entry(&c->lru, struct cache_entry, lru));
	while (c->fds > c->fd_limit && !list_empty(&c->fd_lru))
		drop_fds(c);
}

static struct cache_entry *
entry_new(unsigned root, const char *key, size_t key_len, enum cache_kind kind,
	  char *body, size_t len, const struct stat *st, const char *file_path,
	  const char *content_type, bool compressible, uint64_t now_ms,
	  void (*body_put)(void *owner), void *owner)
{
	size_t flen = file_path ? strlen(file_path) : 0;
	/* key, file_path and room for a sibling's, each NUL-terminated, in
	 * one block */
	size_t strings =
		key_len + 1 +
		(file_path ? 2 * (flen + 1) + HTTP_PRECOMPRESSED_SUFFIX_MAX :
			     0);
	struct cache_entry *e = calloc(1, sizeof(*e));

	if (!e || !(e->key = malloc(strings))) {
		free(e);
		if (body_put)
			body_put(owner);
		else
			free(body);
		return NULL;
	}
	memcpy(e->key, key, key_len);
	e->key[key_len] = '\0';
	e->key_len = key_len;
	if (file_path) {
		e->file_path = e->key + key_len + 1;
		memcpy(e->file_path, file_path, flen + 1);
		e->sibling_path = e->file_path + flen + 1;
		memcpy(e->sibling_path, file_path, flen + 1);
	}
	e->root = root;
	e->hash = hash_key(root, key, key_len);
	e->kind = kind;
	e->content_type = content_type;
	e->compressible = compressible;
	e->file = *st;
	e->checked_ms = now_ms;
	e->used_ms = now_ms;
	e->bytes = sizeof(*e) + strings + len;
	e->refs = 1;
	e->rep[HTTP_CODING_IDENTITY].data = body;
	e->rep[HTTP_CODING_IDENTITY].len = len;
	e->rep[HTTP_CODING_IDENTITY].tried = true;
	e->body_put = body_put;
	e->body_owner = owner;
	build_rep_etag(e, &e->rep[HTTP_CODING_IDENTITY], HTTP_CODING_IDENTITY,
		       NULL);
	return e;
}

struct cache_entry *
cache_entry_new(unsigned root, const char *key, size_t key_len,
		enum cache_kind kind, char *body, size_t len,
		const struct stat *st, const char *file_path,
		const char *content_type, bool compressible, uint64_t now_ms)
{
	return entry_new(root, key, key_len, kind, body, len, st, file_path,
			 content_type, compressible, now_ms, NULL, NULL);
}

struct cache_entry *cache_entry_new_shared(unsigned root, const char *key,
					   size_t key_len, const char *body,
					   size_t len, const struct stat *st,
					   const char *content_type,
					   bool compressible, uint64_t now_ms,
					   void (*body_put)(void *owner),
					   void *owner)
{
	return entry_new(root, key, key_len, CACHE_LISTING, (char *)body, len,
			 st, NULL, content_type, compressible, now_ms, body_put,
			 owner);
}

void content_cache_link(struct content_cache *c, struct cache_entry *e)
{
	struct cache_entry *old;

	if (!content_cache_enabled(c) || e->bytes > c->limit / 2)
		return;
	old = find(c, e->root, e->key, e->key_len);
	if (old)
		content_cache_remove(c, old);
	hlist_add_head(&e->hash_node, &c->buckets[e->hash & (c->nbuckets - 1)]);
	list_add(&e->lru, &c->lru);
	if (e->fds) {
		list_add(&e->fd_lru, &c->fd_lru);
		c->fds += e->fds;
	}
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
	r->precompressed = from != NULL;
	build_rep_etag(e, r, coding, from);
	if (e->linked) {
		e->bytes += len;
		c->bytes += len;
		/* Never evicts e itself: it was just used, so it is first. */
		evict(c);
	} else if (e->held_in) {
		/* Made while held out of the table (compressing yields). */
		e->held += len;
		*e->held_in += len;
	}
}

bool content_cache_attach_coded(struct content_cache *c, struct cache_entry *e,
				enum http_coding coding, char *data, size_t len,
				const char *etag, size_t etag_len)
{
	struct cache_rep *r = &e->rep[coding];

	if (r->data || r->in_file || !e->linked || etag_len > sizeof(r->etag)) {
		free(data);
		return false;
	}
	r->tried = true;
	r->data = data;
	r->len = len;
	memcpy(r->etag, etag, etag_len);
	r->etag_len = etag_len;
	r->etag_weak = true;
	e->bytes += len;
	c->bytes += len;
	evict(c);
	return true;
}

void content_cache_set_sibling(struct content_cache *c, struct cache_entry *e,
			       unsigned slot, const struct stat *st, char *data,
			       size_t len)
{
	e->sibling[slot].checked = true;
	e->sibling[slot].exists = st != NULL;
	if (st)
		e->sibling[slot].st = *st;
	if (data)
		attach_rep(c, e, http_precompressed[slot].coding, data, len,
			   &e->sibling[slot].st);
}

unsigned content_cache_precompressed(const struct cache_entry *e)
{
	unsigned codings = 0;

	for (int i = 0; i < HTTP_CODING_COUNT; i++) {
		if (e->rep[i].precompressed)
			codings |= HTTP_CODING_BIT(i);
	}
	return codings;
}

unsigned content_cache_codings(const struct cache_entry *e, unsigned makes)
{
	const struct cache_rep *id = &e->rep[HTTP_CODING_IDENTITY];
	unsigned codings = 0;

	for (int i = 0; i < HTTP_CODING_COUNT; i++) {
		const struct cache_rep *r = &e->rep[i];

		if (i == HTTP_CODING_IDENTITY)
			continue;
		if (r->data || r->in_file ||
		    (!r->tried && id->data && (makes & HTTP_CODING_BIT(i))))
			codings |= HTTP_CODING_BIT(i);
	}
	return codings;
}

bool content_cache_expire_fds(struct content_cache *c, uint64_t now_ms)
{
	struct cache_entry *e;

	while (!list_empty(&c->fd_lru)) {
		e = list_last_entry(&c->fd_lru, struct cache_entry, fd_lru);
		if (now_ms - e->used_ms < CACHE_FD_IDLE_MS)
			return true;
		drop_fds(c);
	}
	return false;
}

void content_cache_rep_in_file(struct cache_entry *e, enum http_coding coding,
			       int fd, size_t len, const struct stat *from)
{
	struct cache_rep *r = &e->rep[coding];

	r->tried = true;
	r->in_file = true;
	r->fd = fd;
	r->len = len;
	r->precompressed = from != NULL;
	if (coding == HTTP_CODING_IDENTITY)
		e->fd_st_poll = 0; /* a new descriptor: not looked at yet */
	e->fds++;
	build_rep_etag(e, r, coding, from);
}

/* The caller's yield, and whether it asked the compression to stop. */
struct rep_yield {
	compress_yield_fn *yield;
	void *ctx;
	bool stopped;
};

static int rep_yield(void *arg)
{
	struct rep_yield *y = arg;

	if (y->yield(y->ctx)) {
		y->stopped = true;
		return -1;
	}
	return 0;
}

const struct cache_rep *content_cache_rep(struct content_cache *c,
					  struct cache_entry *e,
					  enum http_coding coding,
					  struct compressor *z,
					  compress_yield_fn *yield, void *ctx)
{
	struct cache_rep *r = &e->rep[coding];
	const struct cache_rep *id = &e->rep[HTTP_CODING_IDENTITY];

	if (coding != HTTP_CODING_IDENTITY && !r->tried && id->data) {
		struct rep_yield y = { yield, ctx, false };
		size_t n = 0;
		char *out;

		/* Tried from now: while this one yields, others send identity. */
		r->tried = true;
		out = z ? compress_buffer(z, coding, id->data, id->len, &n,
					  yield ? rep_yield : NULL, &y) :
			  NULL;
		if (!out && y.stopped) {
			/* This request's end, not the body's: the next may
			 * try. */
			r->tried = false;
			return id;
		}
		attach_rep(c, e, coding, out, n, NULL);
	}
	return r->data || r->in_file ? r : id;
}
