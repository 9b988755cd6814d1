// SPDX-License-Identifier: MIT
#include "worker_roots.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cache.h"
#include "server.h"

int worker_roots_init(struct worker_roots *wr, const struct server *s)
{
	unsigned n = 1 + s->nvhosts;
	struct stat st;

	wr->n = 0;
	wr->dirs = calloc(n, sizeof(*wr->dirs));
	wr->seen = calloc(n, sizeof(*wr->seen));
	if (!wr->dirs || !wr->seen)
		goto fail;
	for (; wr->n < n; wr->n++) {
		struct beneath_root *r = &wr->dirs[wr->n];

		r->fd = fcntl(s->roots[wr->n].fd, F_DUPFD_CLOEXEC, 0);
		if (r->fd < 0)
			goto fail;
		if (fstat(r->fd, &st) || beneath_locate(r)) {
			beneath_root_close(r);
			goto fail;
		}
		wr->seen[wr->n] = (struct root_seen){ st.st_dev, st.st_ino };
	}
	return 0;
fail:
	worker_roots_free(wr);
	return -1;
}

void worker_roots_free(struct worker_roots *wr)
{
	for (unsigned i = 0; i < wr->n; i++)
		beneath_root_close(&wr->dirs[i]);
	free(wr->dirs);
	free(wr->seen);
	wr->dirs = NULL;
	wr->seen = NULL;
	wr->n = 0;
}

/* Says once, whichever thread sees it first, where root i is served from. */
static void announce(struct server *s, unsigned i, const struct stat *st,
		     const char *real)
{
	unsigned long last = atomic_load(&s->root_announced[i]);

	if (last == (unsigned long)st->st_ino ||
	    !atomic_compare_exchange_strong(&s->root_announced[i], &last,
					    (unsigned long)st->st_ino))
		return;
	fprintf(s->notices, "sehttpd: %s now serves %s\n", s->root_paths[i],
		real);
	fflush(s->notices);
}

/* Takes the directory root i's path leads to now, if it is another one. */
static void follow(struct worker *w, unsigned i)
{
	struct worker_roots *wr = &w->roots;
	struct root_seen *seen = &wr->seen[i];
	const char *path = w->server->root_paths[i];
	struct beneath_root fresh = { .fd = -1 };
	struct stat st;

	if (stat(path, &st) || !S_ISDIR(st.st_mode) ||
	    (st.st_dev == seen->dev && st.st_ino == seen->ino))
		return;
	fresh.fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	/* What was opened is what counts: the path may have moved again. */
	if (fresh.fd < 0 || fstat(fresh.fd, &st) || beneath_locate(&fresh)) {
		beneath_root_close(&fresh);
		return;
	}
	/* Entries hold bodies and descriptors of the tree left behind. */
	content_cache_drop_root(w->cache, i);
	beneath_root_close(&wr->dirs[i]);
	wr->dirs[i] = fresh;
	seen->dev = st.st_dev;
	seen->ino = st.st_ino;
	announce(w->server, i, &st, fresh.real);
}

void worker_roots_check(struct worker *w)
{
	for (unsigned i = 0; i < w->roots.n; i++)
		follow(w, i);
}

unsigned worker_root_id(const struct worker *w, const struct beneath_root *r)
{
	return (unsigned)(r - w->roots.dirs);
}
