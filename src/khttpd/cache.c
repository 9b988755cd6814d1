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

#include "alloc.h"
#include "compress.h"
#include "http/conditional.h"
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
	cache.slab = KMEM_CACHE(khttpd_cache_entry, SLAB_ACCOUNT);
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

	unsigned int slot;

	for (slot = 0; slot < HTTP_PRECOMPRESSED_COUNT; slot++)
		kvfree(e->sib[slot]);
	kvfree(e->gz);
	kvfree(e->body);
	kfree(e->key);
	kmem_cache_free(cache.slab, e);
}

void khttpd_cache_put(struct khttpd_cache_entry *e)
{
	if (!refcount_dec_and_test(&e->ref))
		return;
	/*
	 * No one holds it now: it stops counting against its budget and the
	 * held bytes at once, not a grace period later.  Uncached listings
	 * built back to back otherwise found the budget taken by entries
	 * waiting for RCU, and answered 503.
	 */
	if (e->budget)
		khttpd_budget_uncharge(e->budget, e->charged);
	if (e->held)
		khttpd_count_add(&khttpd_stats.held_bytes, -(long)e->held);
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
	/*
	 * Pinned by responses still going out: now counted as held, until
	 * the last put.  Counted whatever the count reads now: a reader past
	 * its RCU lookup may take a reference after any look at it, and would
	 * then hold the entry uncounted.
	 */
	e->held = e->cost;
	khttpd_count_add(&khttpd_stats.held_bytes, e->held);
	khttpd_cache_put(e);
}

/* What a response may always pin: an entry of head-sized bodies. */
#define KHTTPD_PIN_SMALL (64 * 1024)

bool khttpd_cache_may_pin(const struct khttpd_cache_entry *e)
{
	/*
	 * An entry outside the table is charged to its budget already.  A
	 * pin holds the whole entry (its body, gzip form and siblings' bodies)
	 * however few of its bytes the response sends: a Range of 64 KiB of a
	 * 1 MiB file pins as much as the whole body does.
	 */
	return e->budget ||
	       READ_ONCE(e->cost) - sizeof(*e) - e->key_len <=
		       KHTTPD_PIN_SMALL ||
	       atomic_long_read(&khttpd_stats.held_bytes) < (long)cache.max;
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

static void khttpd_file_id_from_stat(struct khttpd_file_id *id,
				     const struct kstat *st)
{
	id->ino = st->ino;
	id->dev = st->dev;
	id->size = st->size;
	id->mtime = st->mtime;
	id->ctime = st->ctime;
}

void khttpd_validator_from_stat(struct khttpd_validator *v,
				const struct kstat *st, unsigned long turn)
{
	memset(v, 0, sizeof(*v));
	khttpd_file_id_from_stat(&v->file, st);
	v->turn = turn;
}

void khttpd_validator_sibling(struct khttpd_validator *v, unsigned int slot,
			      const struct kstat *st, bool usable)
{
	v->sib[slot].exists = true;
	v->sib[slot].usable = usable;
	khttpd_file_id_from_stat(&v->sib[slot].id, st);
}

static bool khttpd_file_id_equal(const struct khttpd_file_id *a,
				 const struct khttpd_file_id *b)
{
	return a->ino == b->ino && a->dev == b->dev && a->size == b->size &&
	       timespec64_equal(&a->mtime, &b->mtime) &&
	       timespec64_equal(&a->ctime, &b->ctime);
}

static bool khttpd_cache_entry_valid(const struct khttpd_cache_entry *e,
				     const struct khttpd_validator *v)
{
	const struct khttpd_validator *c = &e->valid;
	unsigned int slot;

	if (e->listing && time_after(jiffies, e->expires))
		return false;
	if (!khttpd_file_id_equal(&c->file, &v->file))
		return false;
	for (slot = 0; slot < HTTP_PRECOMPRESSED_COUNT; slot++) {
		const struct khttpd_sibling *a = &c->sib[slot],
					    *b = &v->sib[slot];

		if (a->exists != b->exists || a->usable != b->usable ||
		    (a->exists && !khttpd_file_id_equal(&a->id, &b->id)))
			return false;
	}
	return true;
}

/* v found e valid just now: it is trusted unlooked-at for a while. */
static void khttpd_cache_entry_seen(struct khttpd_cache_entry *e,
				    const struct khttpd_validator *v)
{
	WRITE_ONCE(e->referenced, true);
	if (READ_ONCE(e->checked) != jiffies)
		WRITE_ONCE(e->checked, jiffies);
	/* Found again under a later turn: trusted under that one now.  A
	 * racing look from an earlier turn may set it back, which costs one
	 * more look. */
	if (READ_ONCE(e->valid.turn) != v->turn)
		WRITE_ONCE(e->valid.turn, v->turn);
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
	khttpd_cache_entry_seen(e, v);
	return e;
}

struct khttpd_cache_entry *
khttpd_cache_get_recent(const char *key, size_t key_len, unsigned long turn)
{
	struct khttpd_cache_entry *e = khttpd_cache_get_ready(key, key_len);

	if (!e)
		return NULL;
	if (READ_ONCE(e->valid.turn) != turn ||
	    time_after_eq(jiffies,
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
	void *body = khttpd_kvmalloc(body_len ? body_len : 1);
	struct khttpd_cache_entry *e;

	if (!body)
		return NULL;
	e = khttpd_cache_alloc_with(key, key_len, body, body_len, body_len);
	if (!e)
		kvfree(body);
	return e;
}

struct khttpd_cache_entry *khttpd_cache_alloc_with(const char *key,
						   size_t key_len, void *body,
						   size_t body_len, size_t size)
{
	struct khttpd_cache_entry *e;

	e = khttpd_slab_zalloc(cache.slab);
	if (!e)
		return NULL;
	e->key = khttpd_kmemdup_nul(key, key_len);
	if (!e->key) {
		kmem_cache_free(cache.slab, e);
		return NULL;
	}
	e->body = body;
	refcount_set(&e->ref, 1);
	e->key_len = key_len;
	e->hash = jhash(key, key_len, 0);
	e->body_len = body_len;
	e->cost = sizeof(*e) + key_len + size;
	return e;
}

/* Second chance for recently used entries, within a bounded sweep. */
static void khttpd_cache_evict_locked(void);

bool khttpd_cache_gzip_possible(const struct khttpd_cache_entry *e)
{
	return e->compressible &&
	       (smp_load_acquire(&e->gz) || !test_bit(0, &e->gz_claimed));
}

bool khttpd_cache_gzip_made(const struct khttpd_cache_entry *e)
{
	return smp_load_acquire(&e->gz);
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
		} else if (e->held) {
			e->held += n;
			khttpd_count_add(&khttpd_stats.held_bytes, n);
		}
		spin_unlock(&cache.lock);
	}
	if (gz)
		*len = e->gz_len;
	return gz;
}

unsigned int khttpd_cache_siblings(const struct khttpd_cache_entry *e)
{
	unsigned int slot, codings = 0;

	for (slot = 0; slot < HTTP_PRECOMPRESSED_COUNT; slot++) {
		if (e->sib[slot])
			codings |= HTTP_CODING_BIT(
				http_precompressed[slot].coding);
	}
	return codings;
}

size_t khttpd_cache_etag(const struct khttpd_cache_entry *e,
			 enum http_coding coding, char *out)
{
	const struct khttpd_file_id *id = &e->valid.file;
	unsigned int slot;

	if (khttpd_cache_siblings(e) & HTTP_CODING_BIT(coding)) {
		slot = http_precompressed_slot(coding);
		id = &e->valid.sib[slot].id;
	}
	return http_format_etag(out, id->ino, id->size,
				http_etag_time(id->mtime.tv_sec,
					       id->mtime.tv_nsec),
				http_coding_etag_suffix(coding));
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

bool khttpd_cache_admits(size_t key_len, const struct khttpd_validator *v)
{
	size_t cost = sizeof(struct khttpd_cache_entry) + key_len;
	unsigned int slot;

	if (!cache.max || v->file.size > KHTTPD_CACHE_ENTRY_MAX)
		return false;
	cost += v->file.size;
	for (slot = 0; slot < HTTP_PRECOMPRESSED_COUNT; slot++) {
		loff_t size = v->sib[slot].id.size;

		if (!v->sib[slot].usable)
			continue;
		if (size > KHTTPD_CACHE_ENTRY_MAX)
			return false;
		cost += size;
	}
	return cost <= khttpd_cache_entry_limit();
}

/* Room for the bodies of v's usable siblings in e, counted in its cost. */
static int khttpd_cache_alloc_siblings(struct khttpd_cache_entry *e,
				       const struct khttpd_validator *v)
{
	unsigned int slot;

	for (slot = 0; slot < HTTP_PRECOMPRESSED_COUNT; slot++) {
		size_t size = v->sib[slot].id.size;

		if (!v->sib[slot].usable)
			continue;
		e->sib[slot] = khttpd_kvmalloc(size ? size : 1);
		if (!e->sib[slot])
			return -ENOMEM;
		e->cost += size;
	}
	return 0;
}

/*
 * The valid entry for key, filled or not, referenced; else a new one
 * published as BUSY (*fill set), or NULL without memory.
 */
static struct khttpd_cache_entry *
khttpd_cache_find_or_publish(const char *key, size_t key_len,
			     const struct khttpd_validator *v, bool *fill)
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

	fresh = khttpd_cache_alloc(key, key_len, v->file.size);
	if (!fresh)
		return NULL;
	if (khttpd_cache_alloc_siblings(fresh, v)) {
		khttpd_cache_put(fresh);
		return NULL;
	}
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
					   struct khttpd_cache_entry **out)
{
	struct khttpd_cache_entry *e;
	bool fill;

	*out = NULL;
	if (!khttpd_cache_admits(key_len, v))
		return KHTTPD_CACHE_NONE;
	e = khttpd_cache_find_or_publish(key, key_len, v, &fill);
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
	khttpd_cache_entry_seen(e, v);
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
