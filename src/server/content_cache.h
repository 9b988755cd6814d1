/* SPDX-License-Identifier: MIT */
/*
 * A per-thread cache of small files and directory listings, with their
 * compressed variants and entity tags, so that a hit is answered
 * with one writev and no file system call beyond a freshness check at most
 * once a second.  Each thread owns its cache (a share of --cache-size), so
 * threads never wait for each other; entries in use by a suspended write are
 * reference-counted and freed only when released.
 */
#ifndef SERVER_CONTENT_CACHE_H
#define SERVER_CONTENT_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "http/conditional.h"
#include "http/negotiate.h"

#define CACHE_FILE_MAX (1024 * 1024) /* larger files are not cached */
#define CACHE_CHECK_MS 1000 /* how stale an entry may get */

enum cache_kind {
	CACHE_FILE, /* a file, or a directory's index.html */
	CACHE_LISTING, /* a generated directory listing */
};

/* One representation: the body in one coding, and its entity tag. */
struct cache_rep {
	char *data; /* NULL: not made yet, or not worth it */
	size_t len;
	bool tried; /* made or found not worth making */
	size_t etag_len; /* 0 for a listing, which has none */
	char etag[HTTP_ETAG_MAX];
};

struct cache_entry {
	struct cache_entry *hash_next;
	struct cache_entry *lru_prev, *lru_next;
	uint64_t hash;
	char *key; /* the normalised request path */
	size_t key_len;
	enum cache_kind kind;
	const char *content_type;
	bool compressible; /* and compression is on */
	struct stat file; /* what was read: st_dev, st_ino, size, mtime */
	uint64_t checked_ms;
	/* FILE.gz as last seen, used or not: its change also makes e stale. */
	bool sibling_checked;
	bool sibling_exists;
	struct stat sibling;
	size_t bytes; /* counted against the limit */
	unsigned refs; /* the table's, plus one per response being written */
	bool linked; /* still in the table */
	struct cache_rep rep[3]; /* by enum http_coding */
};

struct content_cache;
struct compressor;

/* limit in bytes; 0 makes a cache that stores nothing. */
struct content_cache *content_cache_new(size_t limit);
void content_cache_free(struct content_cache *c);
bool content_cache_enabled(const struct content_cache *c);

/* A referenced entry for key, or NULL.  Stale entries are not returned:
 * the caller revalidates with content_cache_check() when it says so. */
struct cache_entry *content_cache_get(struct content_cache *c, const char *key,
				      size_t key_len);
/* True when the entry is due for its freshness check at now_ms. */
bool content_cache_due(const struct cache_entry *e, uint64_t now_ms);
/* True when st still describes what e holds. */
bool content_cache_same_file(const struct cache_entry *e,
			     const struct stat *st);
/* True when the FILE.gz beside e's file is as it was (st NULL: absent). */
bool content_cache_same_sibling(const struct cache_entry *e,
				const struct stat *st);
/* Drops e from the table (it lives on while referenced). */
void content_cache_remove(struct content_cache *c, struct cache_entry *e);
void content_cache_put(struct cache_entry *e); /* releases a reference */

/*
 * A new entry, not yet in any table, holding body (malloc'd; taken even on
 * failure) with one reference for the caller; NULL when out of memory.  st
 * describes the file, or for a listing the directory.
 */
struct cache_entry *cache_entry_new(const char *key, size_t key_len,
				    enum cache_kind kind, char *body,
				    size_t len, const struct stat *st,
				    const char *content_type, bool compressible,
				    uint64_t now_ms);
/* Adds e to the cache when it is enabled and e fits (the table then holds
 * its own reference), replacing an entry with the same key. */
void content_cache_link(struct content_cache *c, struct cache_entry *e);

/* Attaches a precompressed gzip body (taken) as the gzip representation. */
void content_cache_set_gzip(struct content_cache *c, struct cache_entry *e,
			    char *gz, size_t len);

/*
 * The representation for coding, compressing on first use; falls back to
 * identity when the coding does not make the body smaller.
 */
const struct cache_rep *content_cache_rep(struct content_cache *c,
					  struct cache_entry *e,
					  enum http_coding coding,
					  struct compressor *z);

#endif /* SERVER_CONTENT_CACHE_H */
