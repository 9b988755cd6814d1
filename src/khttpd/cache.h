/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Content cache: the bodies of small files and of directory listings, keyed
 * by the path they were found under and checked against the file's current
 * identity, size and times on every use.
 */
#ifndef KHTTPD_CACHE_H
#define KHTTPD_CACHE_H

#include <linux/atomic.h>
#include <linux/list.h>
#include <linux/rcupdate.h>
#include <linux/refcount.h>
#include <linux/stat.h>
#include <linux/types.h>

#include "http/negotiate.h"
#include "http/serve.h"

/* Bodies up to this size are cached and compressed; larger ones stream. */
#define KHTTPD_CACHE_ENTRY_MAX (1024 * 1024)
/*
 * How long a miss waits for another request's fill of the same file: a
 * fill only reads at most KHTTPD_CACHE_ENTRY_MAX bytes.  Past it, the file
 * is streamed instead.
 */
#define KHTTPD_CACHE_FILL_WAIT_MS 100
/* How long an entry is served by its path alone, without a look at the file. */
#define KHTTPD_CACHE_CHECK HZ
/* A listing also shows its entries' sizes and times: keep it briefly. */
#define KHTTPD_CACHE_LISTING_TTL HZ

/*
 * Memory shared by many requests up to a bound (the listings being built
 * and those too large for the cache being sent): limit() gives the bound.
 */
struct khttpd_budget {
	atomic_long_t used;
	size_t (*limit)(void);
};

/* Takes n bytes of b if they fit under its bound. */
bool khttpd_budget_charge(struct khttpd_budget *b, size_t n);
void khttpd_budget_uncharge(struct khttpd_budget *b, size_t n);

/* A file as it was read: its identity, size and times. */
struct khttpd_file_id {
	u64 ino;
	dev_t dev;
	loff_t size;
	struct timespec64 mtime;
	struct timespec64 ctime;
};

/* What must not have changed for a cached body to be served. */
struct khttpd_validator {
	struct khttpd_file_id file;
	/* The root's turn the file was found under (root.h): an entry is
	 * trusted unlooked-at only while the root is at its turn. */
	unsigned long turn;
	/*
	 * A compressible file's precompressed siblings by slot of
	 * http_precompressed[], as seen (readable) when it was checked: a
	 * sibling made, changed or removed makes the entry stale too.
	 */
	struct khttpd_sibling {
		bool exists;
		bool usable; /* it stands for the file: its body is held */
		struct khttpd_file_id id;
	} sib[HTTP_PRECOMPRESSED_COUNT];
};

/* An entry's body: being read by one request, or there to serve. */
enum khttpd_fill_state {
	KHTTPD_FILL_READY, /* what listings and filled entries are */
	KHTTPD_FILL_BUSY,
	KHTTPD_FILL_FAILED,
};

struct khttpd_cache_entry {
	struct hlist_node node; /* in the table; RCU readers */
	struct list_head clock; /* eviction order; under the lock */
	struct rcu_head rcu;
	refcount_t ref; /* one for the table, one per user */
	bool referenced; /* used since the clock hand last passed */
	bool hashed; /* in the table, its cost counted; under the lock */
	int state; /* enum khttpd_fill_state; read with acquire */
	unsigned long gz_claimed; /* bit 0: someone compresses, or did */
	bool listing; /* chunked to HTTP/1.1 clients, no validators */
	/* Its type is, and compress= is on: it may be sent coded, and its
	 * responses vary on Accept-Encoding.  Set before it is filled. */
	bool compressible;
	u32 hash;
	unsigned long expires; /* jiffies; listings only */
	unsigned long checked; /* jiffies: last found valid */
	struct khttpd_validator valid;
	const char *content_type; /* static string */
	s64 last_modified;
	size_t cost;
	size_t body_len;
	char *body;
	size_t gz_len;
	/* The gzip representation, made on demand if smaller; or NULL. */
	char *gz; /* published with release after gz_len */
	/* The usable siblings' bodies, by slot (valid.sib[].id.size bytes). */
	char *sib[HTTP_PRECOMPRESSED_COUNT];
	size_t key_len;
	char *key;
	/*
	 * An entry the cache does not hold (a listing too large for it) keeps
	 * its memory charged to a budget until it is freed, its last
	 * response sent: charged bytes of budget, or NULL.
	 */
	struct khttpd_budget *budget;
	size_t charged;
	/*
	 * Bytes counted in khttpd_stats.held_bytes: the entry left the table,
	 * and is counted until its last put, whoever holds it meanwhile.
	 * Written under cache.lock; the last put reads it after its
	 * refcount_dec_and_test().
	 */
	size_t held;
};

/* max_bytes bounds the total size of cached entries; 0 disables caching. */
int khttpd_cache_init(size_t max_bytes);
/* Frees every entry; no user may remain. */
void khttpd_cache_exit(void);

/* The validator of a file as st describes it, found under the root's
 * turn turn, without siblings. */
void khttpd_validator_from_stat(struct khttpd_validator *v,
				const struct kstat *st, unsigned long turn);
/* A sibling's part of it, from what it is (usable: it stands for it). */
void khttpd_validator_sibling(struct khttpd_validator *v, unsigned int slot,
			      const struct kstat *st, bool usable);

/* Whether the cache can take a file (and its usable siblings) as v says. */
bool khttpd_cache_admits(size_t key_len, const struct khttpd_validator *v);

/* A referenced entry for key that is still valid, or NULL. */
struct khttpd_cache_entry *khttpd_cache_get(const char *key, size_t key_len,
					    const struct khttpd_validator *v);

enum khttpd_cache_claim {
	KHTTPD_CACHE_NONE, /* not cacheable, or another fill is slow: stream */
	KHTTPD_CACHE_HIT, /* a valid entry, filled */
	KHTTPD_CACHE_FILL, /* a new entry for the caller to fill */
};

/*
 * The entry for a file as v describes it, as *e (referenced): one already
 * filled (after waiting up to KHTTPD_CACHE_FILL_WAIT_MS for a fill in
 * progress), or a new one with room for the file's body and its usable
 * siblings', published at once so that concurrent misses wait for it
 * instead of reading the file too; its caller fills it and ends with
 * khttpd_cache_filled().
 */
enum khttpd_cache_claim khttpd_cache_claim(const char *key, size_t key_len,
					   const struct khttpd_validator *v,
					   struct khttpd_cache_entry **e);

/* Ends a fill: err 0 publishes the body, any other drops the entry. */
void khttpd_cache_filled(struct khttpd_cache_entry *e, int err);

/*
 * A referenced entry for key found valid less than KHTTPD_CACHE_CHECK ago
 * under the root's turn turn (khttpd_root_turn()), or NULL: the caller
 * then looks at the file system.
 */
struct khttpd_cache_entry *
khttpd_cache_get_recent(const char *key, size_t key_len, unsigned long turn);

/*
 * A new entry (referenced once, by the caller) with room for body_len bytes,
 * to be filled and then offered with khttpd_cache_insert().
 */
struct khttpd_cache_entry *khttpd_cache_alloc(const char *key, size_t key_len,
					      size_t body_len);
/*
 * The same around body, a kvmalloc()ed buffer of size bytes whose first
 * body_len are the body, taken over (freed with the entry) on success.
 */
struct khttpd_cache_entry *khttpd_cache_alloc_with(const char *key,
						   size_t key_len, void *body,
						   size_t body_len,
						   size_t size);

/*
 * Whether e may be sent as gzip: its type is compressible and no one found
 * it not to shrink, nor is compressing it now.
 */
bool khttpd_cache_gzip_possible(const struct khttpd_cache_entry *e);

/*
 * Whether a response may pin e (any of its bodies) in its output queue.
 * Entries gone from the table while slow readers still pin them count
 * nowhere in its bound: once they hold as much as the cache again, no
 * entry holding more than 64 KiB is pinned any more (the response is a
 * 503), however little of it the response sends, so that slow readers
 * cannot hold more than twice the cache's size.
 */
bool khttpd_cache_may_pin(const struct khttpd_cache_entry *e);

/* Whether e's gzip representation is made (khttpd_cache_gzip() is cheap). */
bool khttpd_cache_gzip_made(const struct khttpd_cache_entry *e);

/*
 * The gzip representation of a compressible entry, compressed now if no
 * one did yet; NULL (send the identity) when it is not smaller, or while
 * another request is still compressing it.
 */
const char *khttpd_cache_gzip(struct khttpd_cache_entry *e, size_t *len);

/* The codings e holds a precompressed sibling's body in (bits). */
unsigned int khttpd_cache_siblings(const struct khttpd_cache_entry *e);

/*
 * The entity tag of a file entry's representation in coding: from the
 * file (identity, or the gzip form made of it), or from the sibling whose
 * body e holds in that coding, so different bytes never share a tag.
 */
size_t khttpd_cache_etag(const struct khttpd_cache_entry *e,
			 enum http_coding coding, char *out);

/* The cost of the largest entry khttpd_cache_insert() keeps. */
size_t khttpd_cache_entry_limit(void);

/*
 * Publishes a filled entry, replacing any older one for its key; the cache
 * counts it from then on, so its budget is given back.  An entry too large
 * to keep stays the caller's, charged.
 */
void khttpd_cache_insert(struct khttpd_cache_entry *e);

void khttpd_cache_put(struct khttpd_cache_entry *e);

#endif /* KHTTPD_CACHE_H */
