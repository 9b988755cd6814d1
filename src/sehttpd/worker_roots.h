/* SPDX-License-Identifier: MIT */
/*
 * A thread's own descriptors for the directories it serves (ROOT and each
 * --vhost DIR), looked up again by their paths every WORKER_ROOT_CHECK_MS:
 * a deploy that swaps a link (current -> releases/2) or renames a new tree
 * over the old one is served within that time, as nginx serves it, not
 * the tree that was there at start, and the old tree is let go (cache
 * entries, descriptors) by every thread, busy or idle.  Each thread swaps
 * its own, so a descriptor is never closed under another thread's lookup.
 */
#ifndef SEHTTPD_WORKER_ROOTS_H
#define SEHTTPD_WORKER_ROOTS_H

#include <sys/types.h>

#include "beneath.h"

#define WORKER_ROOT_CHECK_MS 1000

struct server;
struct worker;

/* What a root's path led to when last looked up. */
struct root_seen {
	dev_t dev;
	ino_t ino;
};

struct worker_roots {
	struct beneath_root *dirs; /* as server.roots: [0] ROOT, then DIRs */
	struct root_seen *seen;
	unsigned n;
};

/* Copies s->roots for a thread.  Returns 0, or -1 with errno. */
int worker_roots_init(struct worker_roots *wr, const struct server *s);
void worker_roots_free(struct worker_roots *wr);

/*
 * Looks each of w's roots up again by its path: one that now leads to
 * another directory is taken (the thread's cache entries from the old one
 * are dropped); one that leads nowhere keeps the one it had.
 */
void worker_roots_check(struct worker *w);

/* w's copy of root i (0: ROOT, then each --vhost DIR). */
static inline const struct beneath_root *
worker_root(const struct worker_roots *wr, unsigned i)
{
	return &wr->dirs[i];
}

/* The number of root, one of w's. */
unsigned worker_root_id(const struct worker *w, const struct beneath_root *r);

#endif /* SEHTTPD_WORKER_ROOTS_H */
