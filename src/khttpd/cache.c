// SPDX-License-Identifier: GPL-2.0
/*
 * Readers look entries up under rcu_read_lock() and take a reference before
 * they leave the read-side section to sleep in sendmsg.  Writers (insert,
 * invalidate, evict) serialise on a spinlock.  The table owns one reference;
 * whoever drops the last one frees the entry through call_rcu(), because a
 * reader may still be walking past it in a hash chain.  Eviction is CLOCK
 * (second chance): a hit only sets a flag, so reads never take the lock.
 *
 * A file's entry is published before it is filled (state BUSY), so that
 * concurrent misses of the file find it and wait, briefly and bounded, for
 * the one fill instead of each reading the file.  Its gzip representation
 * is made by the first response that carries it, not by the fill.
 */
#include "cache.h"

#include <linux/hashtable.h>
#include <linux/jhash.h>
#include <linux/jiffies.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/wait_bit.h>

#include "compress.h"
#include "http/conditional.h"
#include "http/mime.h"
#include "stats.h"

#define CACHE_HASH_BITS 10

static struct {
	DECLARE_HASHTABLE(table, CACHE_HASH_BITS);
	struct list_head clock; /* the hand is at the head */
	spinlock_t lock;
	size_t total; /* sum of the costs of hashed entries */
	size_t count;
	size_t max;
	struct kmem_cache *slab;
} cache;

int khttpd_cache_init(size_t max_bytes)
{
	hash_init(cache.table);
	INIT_LIST_HEAD(&cache.clock);
	spin_lock_init(&cache.lock);
	cache.total = 0;
	cache.count = 0;
	cache.max = max_bytes;
	cache.slab = KMEM_CACHE(khttpd_cache_entry, 0);
	return cache.slab ? 0 : -ENOMEM;
}

bool khttpd_budget_charge(struct khttpd_budget *b, size_t n)
{
	if (atomic_long_add_return(n, &b->used) <= b->limit())
		return true;
	atomic_long_sub(n, &b->used);
	return false;
}

void khttpd_budget_uncharge(struct khttpd_budget *b, size_t n)
{
	atomic_long_sub(n, &b->used);
}

static void khttpd_cache_entry_free_rcu(struct rcu_head *head)
{
	struct khttpd_cache_entry *e =
		container_of(head, struct khttpd_cache_entry, rcu);

	if (e->budget)
		khttpd_budget_uncharge(e->budget, e->charged);
	kvfree(e->gz);
	kvfree(e->body);
	kfree(e->key);
	kmem_cache_free(cache.slab, e);
}

void khttpd_cache_put(struct khttpd_cache_entry *e)
{
	if (refcount_dec_and_test(&e->ref))
		call_rcu(&e->rcu, khttpd_cache_entry_free_rcu);
}

static void khttpd_cache_unhash_locked(struct khttpd_cache_entry *e)
{
	lockdep_assert_held(&cache.lock);
	if (!e->hashed)
		return;
	e->hashed = false;
	hash_del_rcu(&e->node);
	list_del(&e->clock);
	cache.total -= e->cost;
	cache.count--;
	khttpd_cache_put(e);
}

void khttpd_cache_exit(void)
{
	struct khttpd_cache_entry *e, *tmp;

	spin_lock(&cache.lock);
	list_for_each_entry_safe(e, tmp, &cache.clock, clock)
		khttpd_cache_unhash_locked(e);
	spin_unlock(&cache.lock);
	rcu_barrier(); /* every khttpd_cache_entry_free_rcu() has run */
	kmem_cache_destroy(cache.slab);
}

void khttpd_validator_from_stat(struct khttpd_validator *v,
				const struct kstat *st)
{
	v->ino = st->ino;
	v->dev = st->dev;
	v->size = st->size;
	v->mtime = st->mtime;
	v->ctime = st->ctime;
}

static bool khttpd_cache_entry_valid(const struct khttpd_cache_entry *e,
				     const struct khttpd_validator *v)
{
	const struct khttpd_validator *c = &e->valid;

	if (e->listing && time_after(jiffies, e->expires))
		return false;
	return c->ino == v->ino && c->dev == v->dev && c->size == v->size &&
	       timespec64_equal(&c->mtime, &v->mtime) &&
	       timespec64_equal(&c->ctime, &v->ctime);
}

static bool khttpd_cache_entry_has_key(const struct khttpd_cache_entry *e,
				       u32 hash, const char *key,
				       size_t key_len)
{
	return e->hash == hash && e->key_len == key_len &&
	       !memcmp(e->key, key, key_len);
}

/*
 * The filled entry for key, referenced, or NULL (none, or a fill in
 * progress or failed, which is khttpd_cache_claim()'s to wait for).
 */
static struct khttpd_cache_entry *khttpd_cache_get_ready(const char *key,
							 size_t key_len)
{
	struct khttpd_cache_entry *e, *found = NULL;
	u32 hash;

	if (!cache.max)
		return NULL;
	hash = jhash(key, key_len, 0);
	rcu_read_lock();
	hash_for_each_possible_rcu(cache.table, e, node, hash) {
		if (!khttpd_cache_entry_has_key(e, hash, key, key_len))
			continue;
		if (!refcount_inc_not_zero(&e->ref))
			continue; /* being freed; a newer one may follow */
		if (smp_load_acquire(&e->state) == KHTTPD_FILL_READY)
			found = e;
		else
			khttpd_cache_put(e);
		break;
	}
	rcu_read_unlock();
	return found;
}

struct khttpd_cache_entry *khttpd_cache_get(const char *key, size_t key_len,
					    const struct khttpd_validator *v)
{
	struct khttpd_cache_entry *e = khttpd_cache_get_ready(key, key_len);

	if (!e)
		return NULL;
	if (!khttpd_cache_entry_valid(e, v)) {
		spin_lock(&cache.lock);
		khttpd_cache_unhash_locked(e);
		spin_unlock(&cache.lock);
		khttpd_cache_put(e);
		return NULL;
	}
	WRITE_ONCE(e->referenced, true);
	if (READ_ONCE(e->checked) != jiffies)
		WRITE_ONCE(e->checked, jiffies);
	return e;
}

struct khttpd_cache_entry *khttpd_cache_get_recent(const char *key,
						   size_t key_len)
{
	struct khttpd_cache_entry *e = khttpd_cache_get_ready(key, key_len);

	if (!e)
		return NULL;
	if (time_after_eq(jiffies,
			  READ_ONCE(e->checked) + KHTTPD_CACHE_CHECK) ||
	    (e->listing && time_after_eq(jiffies, e->expires))) {
		khttpd_cache_put(e);
		return NULL;
	}
	WRITE_ONCE(e->referenced, true);
	return e;
}

struct khttpd_cache_entry *khttpd_cache_alloc(const char *key, size_t key_len,
					      size_t body_len)
{
	struct khttpd_cache_entry *e;

	e = kmem_cache_zalloc(cache.slab, GFP_KERNEL);
	if (!e)
		return NULL;
	e->key = kmemdup_nul(key, key_len, GFP_KERNEL);
	e->body = kvmalloc(body_len ? body_len : 1, GFP_KERNEL);
	if (!e->key || !e->body) {
		kvfree(e->body);
		kfree(e->key);
		kmem_cache_free(cache.slab, e);
		return NULL;
	}
	refcount_set(&e->ref, 1);
	e->key_len = key_len;
	e->hash = jhash(key, key_len, 0);
	e->body_len = body_len;
	e->cost = sizeof(*e) + key_len + body_len;
	return e;
}

void khttpd_cache_compress(struct khttpd_cache_entry *e)
{
	e->compressible = http_mime_compressible(e->content_type);
}

/* Second chance for recently used entries, within a bounded sweep. */
static void khttpd_cache_evict_locked(void);

bool khttpd_cache_gzip_possible(const struct khttpd_cache_entry *e)
{
	return e->compressible &&
	       (smp_load_acquire(&e->gz) || !test_bit(0, &e->gz_claimed));
}

const char *khttpd_cache_gzip(struct khttpd_cache_entry *e, size_t *len)
{
	char *gz = smp_load_acquire(&e->gz);
	void *buf;
	size_t n;

	if (!gz && e->compressible && !test_and_set_bit(0, &e->gz_claimed) &&
	    !khttpd_gzip(e->body, e->body_len, &buf, &n)) {
		/* Outside the cache, the gzip form is charged as the body is
		 * (the entry is this request's alone: no one else looks). */
		if (e->budget) {
			if (!khttpd_budget_charge(e->budget, n)) {
				kvfree(buf);
				return NULL;
			}
			e->charged += n;
		}
		e->gz_len = n;
		smp_store_release(&e->gz, buf);
		gz = buf;
		spin_lock(&cache.lock);
		e->cost += n;
		if (e->hashed) {
			cache.total += n;
			khttpd_cache_evict_locked();
		}
		spin_unlock(&cache.lock);
	}
	if (gz)
		*len = e->gz_len;
	return gz;
}

size_t khttpd_cache_etag(const struct khttpd_cache_entry *e, bool gzip,
			 char *out)
{
	const struct khttpd_validator *v = &e->valid;

	return http_format_etag(out, v->ino, v->size,
				http_etag_time(v->mtime.tv_sec,
					       v->mtime.tv_nsec),
				gzip ? "gz" : "");
}

static void khttpd_cache_evict_locked(void)
{
	size_t budget = 2 * cache.count;

	while (cache.total > cache.max && !list_empty(&cache.clock)) {
		struct khttpd_cache_entry *e = list_first_entry(
			&cache.clock, struct khttpd_cache_entry, clock);

		if (budget && READ_ONCE(e->referenced)) {
			budget--;
			WRITE_ONCE(e->referenced, false);
			list_move_tail(&e->clock, &cache.clock);
			continue;
		}
		khttpd_cache_unhash_locked(e);
	}
}

static struct khttpd_cache_entry *
khttpd_cache_find_locked(const char *key, size_t key_len, u32 hash)
{
	struct khttpd_cache_entry *e;

	hash_for_each_possible(cache.table, e, node, hash)
		if (khttpd_cache_entry_has_key(e, hash, key, key_len))
			return e;
	return NULL;
}

size_t khttpd_cache_entry_limit(void)
{
	return cache.max / 2;
}

/* Publishes e in place of any older entry for its key. */
static void khttpd_cache_link_locked(struct khttpd_cache_entry *e)
{
	struct khttpd_cache_entry *old;

	while ((old = khttpd_cache_find_locked(e->key, e->key_len, e->hash)))
		khttpd_cache_unhash_locked(old);
	refcount_inc(&e->ref);
	e->hashed = true;
	e->checked = jiffies;
	hash_add_rcu(cache.table, &e->node, e->hash);
	list_add_tail(&e->clock, &cache.clock);
	cache.total += e->cost;
	cache.count++;
	khttpd_cache_evict_locked();
}

void khttpd_cache_insert(struct khttpd_cache_entry *e)
{
	if (e->cost > khttpd_cache_entry_limit())
		return;
	if (e->budget) {
		khttpd_budget_uncharge(e->budget, e->charged);
		e->budget = NULL;
		e->charged = 0;
	}
	spin_lock(&cache.lock);
	khttpd_cache_link_locked(e);
	spin_unlock(&cache.lock);
}

static bool khttpd_cache_admits(size_t key_len, loff_t body_len)
{
	return body_len <= KHTTPD_CACHE_ENTRY_MAX &&
	       sizeof(struct khttpd_cache_entry) + key_len + body_len <=
		       khttpd_cache_entry_limit();
}

/*
 * The valid entry for key, filled or not, referenced; else a new one
 * published as BUSY (*fill set), or NULL without memory.
 */
static struct khttpd_cache_entry *
khttpd_cache_find_or_publish(const char *key, size_t key_len,
			     const struct khttpd_validator *v, size_t body_len,
			     bool *fill)
{
	struct khttpd_cache_entry *e, *fresh;
	u32 hash = jhash(key, key_len, 0);

	*fill = false;
	rcu_read_lock();
	hash_for_each_possible_rcu(cache.table, e, node, hash) {
		if (!khttpd_cache_entry_has_key(e, hash, key, key_len))
			continue;
		if (khttpd_cache_entry_valid(e, v) &&
		    refcount_inc_not_zero(&e->ref)) {
			rcu_read_unlock();
			return e;
		}
		break;
	}
	rcu_read_unlock();

	fresh = khttpd_cache_alloc(key, key_len, body_len);
	if (!fresh)
		return NULL;
	fresh->valid = *v;
	fresh->state = KHTTPD_FILL_BUSY;
	spin_lock(&cache.lock);
	/* Another miss may have published its entry meanwhile. */
	e = khttpd_cache_find_locked(key, key_len, hash);
	if (e && khttpd_cache_entry_valid(e, v)) {
		refcount_inc(&e->ref); /* the table holds one: not zero */
		spin_unlock(&cache.lock);
		khttpd_cache_put(fresh);
		return e;
	}
	khttpd_cache_link_locked(fresh);
	spin_unlock(&cache.lock);
	*fill = true;
	return fresh;
}

enum khttpd_cache_claim khttpd_cache_claim(const char *key, size_t key_len,
					   const struct khttpd_validator *v,
					   loff_t body_len,
					   struct khttpd_cache_entry **out)
{
	struct khttpd_cache_entry *e;
	bool fill;

	*out = NULL;
	if (!cache.max || !khttpd_cache_admits(key_len, body_len))
		return KHTTPD_CACHE_NONE;
	e = khttpd_cache_find_or_publish(key, key_len, v, body_len, &fill);
	if (!e)
		return KHTTPD_CACHE_NONE;
	if (fill) {
		*out = e;
		return KHTTPD_CACHE_FILL;
	}
	if (smp_load_acquire(&e->state) == KHTTPD_FILL_BUSY) {
		khttpd_count(&khttpd_stats.fill_waits);
		wait_var_event_timeout(
			&e->state,
			smp_load_acquire(&e->state) != KHTTPD_FILL_BUSY,
			msecs_to_jiffies(KHTTPD_CACHE_FILL_WAIT_MS));
	}
	if (smp_load_acquire(&e->state) != KHTTPD_FILL_READY) {
		khttpd_cache_put(e);
		return KHTTPD_CACHE_NONE;
	}
	WRITE_ONCE(e->referenced, true);
	if (READ_ONCE(e->checked) != jiffies)
		WRITE_ONCE(e->checked, jiffies);
	*out = e;
	return KHTTPD_CACHE_HIT;
}

void khttpd_cache_filled(struct khttpd_cache_entry *e, int err)
{
	if (err) {
		spin_lock(&cache.lock);
		khttpd_cache_unhash_locked(e);
		spin_unlock(&cache.lock);
	}
	/* The body and its description are complete before the state. */
	smp_store_release(&e->state,
			  err ? KHTTPD_FILL_FAILED : KHTTPD_FILL_READY);
	/* wake_up_var() looks for waiters without a barrier of its own. */
	smp_mb();
	wake_up_var(&e->state);
}
