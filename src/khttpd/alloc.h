/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a client makes khttpd allocate (cache entries and their gzip forms,
 * listings, receive buffers, output queues, connections) is charged to the
 * memory cgroup of whoever loaded it, so that its memory.max bounds it, and
 * it may fail: the client gets a 503 or is closed.  So these allocations
 * neither invoke the OOM killer (which killed a process of that cgroup, or
 * of any, for a remote client's sake) nor log a warning when they fail; and
 * only they are charged there: the kernel's own allocations on the way
 * (sockets, files, dentries, the page cache) would invoke it at the limit.
 */
#ifndef KHTTPD_ALLOC_H
#define KHTTPD_ALLOC_H

#include <linux/gfp.h>
#include <linux/mm.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmalloc.h>

#include "compat.h"

#define KHTTPD_GFP_CLIENT \
	(GFP_KERNEL_ACCOUNT | __GFP_RETRY_MAYFAIL | __GFP_NOWARN)

/*
 * The memory cgroup of whoever loaded the module, held while the server
 * runs (server.c): a cgroup's memory.max so bounds what clients make
 * khttpd allocate.
 */
extern struct mem_cgroup *khttpd_client_memcg;

/*
 * As kvmalloc() with KHTTPD_GFP_CLIENT, but above a page the kmalloc()
 * attempt gives up at once (__GFP_NORETRY, as kvmalloc()'s own does
 * unless asked to retry): vmalloc() is the cheaper way to many pages than
 * reclaim and compaction for contiguous ones.  Neither way can invoke the
 * OOM killer.
 */
static inline void *khttpd_kvmalloc(size_t size)
{
	struct mem_cgroup *old = set_active_memcg(khttpd_client_memcg);
	void *p;

	if (size <= PAGE_SIZE) {
		p = kmalloc(size, KHTTPD_GFP_CLIENT);
	} else {
		p = kmalloc(size,
			    GFP_KERNEL_ACCOUNT | __GFP_NORETRY | __GFP_NOWARN);
		if (!p && size <= INT_MAX)
			p = __vmalloc(size, KHTTPD_GFP_CLIENT);
	}
	set_active_memcg(old);
	return p;
}

static inline void *khttpd_kmalloc(size_t size)
{
	struct mem_cgroup *old = set_active_memcg(khttpd_client_memcg);
	void *p = kmalloc(size, KHTTPD_GFP_CLIENT);

	set_active_memcg(old);
	return p;
}

/* Grows p (from khttpd_kvmalloc()) by a copy, the same way. */
static inline void *khttpd_kvrealloc_client(void *p, size_t old_size,
					    size_t new_size)
{
	void *q;

	if (new_size <= old_size) {
		struct mem_cgroup *old = set_active_memcg(khttpd_client_memcg);

		/* Shrinking allocates nothing new (in place, or kept). */
		q = khttpd_kvrealloc(p, old_size, new_size, KHTTPD_GFP_CLIENT);
		set_active_memcg(old);
		return q;
	}
	q = khttpd_kvmalloc(new_size);
	if (!q)
		return NULL;
	if (p)
		memcpy(q, p, old_size);
	kvfree(p);
	return q;
}

static inline char *khttpd_kmemdup_nul(const char *s, size_t len)
{
	struct mem_cgroup *old = set_active_memcg(khttpd_client_memcg);
	char *p = kmemdup_nul(s, len, KHTTPD_GFP_CLIENT);

	set_active_memcg(old);
	return p;
}

/* From a SLAB_ACCOUNT cache, zeroed. */
static inline void *khttpd_slab_zalloc(struct kmem_cache *cache)
{
	struct mem_cgroup *old = set_active_memcg(khttpd_client_memcg);
	void *p = kmem_cache_zalloc(cache, KHTTPD_GFP_CLIENT);

	set_active_memcg(old);
	return p;
}

#endif /* KHTTPD_ALLOC_H */
