/* SPDX-License-Identifier: MIT */
/*
 * A per-thread cache of small files and directory listings, with their
 * compressed variants and entity tags, so that a hit is answered
 * with one writev and no file system call beyond a freshness check at most
 * once a second.  Each thread owns its cache (a share of --cache-size), so
 * threads never wait for each other; entries in use by a suspended write are
 * reference-counted and freed only when released.
 */
#ifndef SEHTTPD_CACHE_H
#define SEHTTPD_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "compress.h"
#include "http/conditional.h"
#include "http/negotiate.h"
#include "list.h"
#include "http/serve.h"

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
	bool precompressed; /* read from a sibling, as it is */
	/* Sent from the open file fd by sendfile; data, when set, is only
	 * what compression reads. */
	bool in_file;
	int fd; /* when in_file; closed with the entry */
	size_t etag_len; /* 0 for a listing, which has none */
	bool etag_weak; /* made as the body was sent (respond_coded.h) */
	/* A response compressing the file as it is sent keeps a copy of
	 * what it sends for this, or one did and it came out too large:
	 * the others do not copy too. */
	bool keeping;
	char etag[HTTP_ETAG_MAX];
};

struct cache_entry {
	struct hlist_node hash_node; /* in its bucket */
	struct list_head lru; /* in the cache's LRU order */
	/* Entries holding descriptors, in LRU order too (when fds > 0). */
	struct list_head fd_lru;
	unsigned fds; /* in_file representations */
	uint64_t used_ms; /* last looked up, for entries holding fds */
	uint64_t hash;
	/* The key: which directory (server.roots' index), so that a vhost
	 * never answers from another's entries, and the normalised path. */
	unsigned root;
	char *key;
	size_t key_len;
	enum cache_kind kind;
	const char *content_type;
	bool compressible; /* and compression is on */
	struct stat file; /* what was read: device, inode, size, mode, times */
	/* Freshness, the cache's own: callers never read or write these. */
	char *file_path; /* relative to ROOT; NULL for a listing */
	/* file_path with room for a sibling's suffix */
	char *sibling_path;
	uint64_t checked_ms;
	/* Siblings as last seen, by http_precompressed[] slot, used or not: their
	 * change also makes e stale. */
	struct {
		bool checked;
		bool exists;
		struct stat st;
	} sibling[HTTP_PRECOMPRESSED_COUNT];
	size_t bytes; /* counted against the limit */
	unsigned refs; /* the table's, plus one per response being written */
	bool linked; /* still in the table */
	/* Out of the table but held by responses: its bytes then, counted
	 * in *held_in (the cache's) until it is freed, and lru in the cache's
	 * list of such entries. */
	size_t held;
	size_t *held_in;
	struct cache_rep rep[HTTP_CODING_COUNT]; /* by enum http_coding */
	/* The identity file's descriptor as fstat saw it after the worker's
	 * poll number fd_st_poll (0: not yet), for respond_file.c. */
	struct stat fd_st;
	uint64_t fd_st_poll;
	/* When the identity body is shared (a listing every thread uses):
	 * dropped through this instead of freed. */
	void (*body_put)(void *owner);
	void *body_owner;
};

struct content_cache;
struct compressor;

/* limit in bytes; 0 makes a cache that stores nothing. */
struct content_cache *content_cache_new(size_t limit);
void content_cache_free(struct content_cache *c);
/* Drops every entry of root (in use ones live on until put). */
void content_cache_drop_root(struct content_cache *c, unsigned root);
bool content_cache_enabled(const struct content_cache *c);
/* How many entries the cache holds and the bytes they take. */
void content_cache_usage(const struct content_cache *c, size_t *entries,
			 size_t *bytes);

/*
 * How the cache looks at a file (path relative to ROOT) when it checks an
 * entry: fills st as a request opening the file would see it, and fails
 * (non-zero) where such a request would fail.
 */
typedef int cache_stat_fn(void *ctx, const char *path, struct stat *st);

enum cache_lookup {
	CACHE_MISSING, /* no entry for the key */
	CACHE_STALE, /* there was one, but its file changed: dropped */
	CACHE_FRESH, /* *found holds a referenced entry to answer with */
};

/*
 * The entry for key beneath root (a directory's number), checked at most once every CACHE_CHECK_MS against the
 * file system through stat_file: a file entry is fresh while its file and
 * its precompressed siblings are as they were read; a listing is rebuilt (stale) once it
 * is due.  A fresh entry becomes the most recently used; the caller
 * releases it with content_cache_put().
 */
enum cache_lookup content_cache_lookup(struct content_cache *c, unsigned root,
				       const char *key, size_t key_len,
				       uint64_t now_ms,
				       cache_stat_fn *stat_file, void *ctx,
				       struct cache_entry **found);
void content_cache_put(struct cache_entry *e); /* releases a reference */
/* One more reference, for a response that outlives its request's. */
void content_cache_hold(struct cache_entry *e);

/* What a response may always hold: an entry of head-sized bodies. */
#define CACHE_HOLD_SMALL (64 * 1024)

/*
 * Whether a response may hold file entry e while its body goes out.
 * Entries the cache let go of stay while responses hold them (a slow
 * reader, an HTTP/2 stream whose window is shut): beyond them, one more
 * cache's worth of such bytes, so that clients that do not read cannot
 * make the cache's memory unbounded.  An entry already out of the table
 * is counted already; a small one always may be; listings have a budget
 * of their own (listing.c).
 */
bool content_cache_may_hold(const struct content_cache *c,
			    const struct cache_entry *e);

/*
 * A new entry for key beneath root, not yet in any table, holding body (malloc'd; taken even on
 * failure) with one reference for the caller; NULL when out of memory.  st
 * describes the file read from file_path (relative to ROOT), or for a
 * listing (file_path NULL) the directory.
 */
struct cache_entry *
cache_entry_new(unsigned root, const char *key, size_t key_len,
		enum cache_kind kind, char *body, size_t len,
		const struct stat *st, const char *file_path,
		const char *content_type, bool compressible, uint64_t now_ms);

/*
 * A listing's entry whose body another owns (one body for every thread):
 * body_put(owner) drops the caller's reference to it with the entry, or at
 * once on failure.
 */
struct cache_entry *cache_entry_new_shared(unsigned root, const char *key,
					   size_t key_len, const char *body,
					   size_t len, const struct stat *st,
					   const char *content_type,
					   bool compressible, uint64_t now_ms,
					   void (*body_put)(void *owner),
					   void *owner);
/* Adds e to the cache when it is enabled and e fits (the table then holds
 * its own reference), replacing an entry with the same root and key. */
void content_cache_link(struct content_cache *c, struct cache_entry *e);

/*
 * Records e's sibling in http_precompressed[slot] as seen (st NULL: none, or
 * unreadable), so that its change makes e stale, and attaches data (taken;
 * NULL: not used) as the representation in its coding, its ETag from the
 * sibling's own identity.
 */
void content_cache_set_sibling(struct content_cache *c, struct cache_entry *e,
			       unsigned slot, const struct stat *st, char *data,
			       size_t len);

/*
 * The codings e can answer in: those it holds, and of makes those
 * content_cache_rep() could still make from the body in memory.
 */
unsigned content_cache_codings(const struct cache_entry *e, unsigned makes);

/* The codings e has from precompressed siblings (HTTP_CODING_BIT). */
unsigned content_cache_precompressed(const struct cache_entry *e);

/* How many descriptors the entries may hold at most (default 0): beyond
 * that, the least recently used entries holding some leave the cache. */
void content_cache_set_fd_limit(struct content_cache *c, size_t limit);

#define CACHE_FD_IDLE_MS 10000 /* how long an unused descriptor stays */

/*
 * Drops the entries holding descriptors that no lookup asked for within
 * CACHE_FD_IDLE_MS, so that a deleted file's space is not kept from the
 * file system by a cache nobody asks; returns whether any are left (the
 * caller looks again within CACHE_FD_IDLE_MS while there are).
 */
bool content_cache_expire_fds(struct content_cache *c, uint64_t now_ms);

/*
 * Makes e's representation in coding be sent from the open file fd (taken;
 * closed when e is freed), len bytes: from NULL, the entry's own file (whose
 * body, if e holds one, only feeds compression); else a precompressed
 * sibling as content_cache_set_sibling() recorded it (&e->sibling[slot].st),
 * whose identity makes the ETag.  Before e is linked.
 */
void content_cache_rep_in_file(struct cache_entry *e, enum http_coding coding,
			       int fd, size_t len, const struct stat *from);

/*
 * Attaches data (taken) as e's representation in coding, tagged etag (a
 * weak tag, written without its W/):
 * what compressing the body as it was sent made (respond_coded.h), for an
 * entry whose body is not in memory.  Returns false, data freed, when e
 * has it already, has left the cache, or the tag does not fit.
 */
bool content_cache_attach_coded(struct content_cache *c, struct cache_entry *e,
				enum http_coding coding, char *data, size_t len,
				const char *etag, size_t etag_len);

/*
 * The representation for coding, compressing on first use (when e holds
 * its body); falls back to identity when the coding does not make the body
 * smaller.  A large body is compressed in steps with yield(ctx) between
 * them (compress_buffer()); the caller holds a reference to e, and
 * requests meanwhile get identity rather than a second compression.
 */
const struct cache_rep *content_cache_rep(struct content_cache *c,
					  struct cache_entry *e,
					  enum http_coding coding,
					  struct compressor *z,
					  compress_yield_fn *yield, void *ctx);

#endif /* SEHTTPD_CACHE_H */
