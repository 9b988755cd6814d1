// SPDX-License-Identifier: MIT
/*
 * A directory's entries are read, sorted (directories first, then by name,
 * size or date, as the query asks) and rendered by the shared core, as
 * HTML or JSON, into one buffer, which the content cache
 * keeps (with its compressed variants) for a second.  A large directory
 * takes many milliseconds: the build gives the thread's other connections
 * a turn every few of them.
 */
#include "listing.h"

#include <dirent.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clock_ms.h"
#include "conn_io.h"
#include "http/dirents.h"
#include "http/listing.h"
#include "http/site.h"
#include "server.h"
#include "config.h"
#include "authorize.h"
#include "beneath.h"

/*
 * What listings may hold at once (entries, names and HTML of those being
 * built, and the bodies built, until their last holder lets go), in the
 * whole process: as much as the content cache (--cache-size, not a
 * thread's share of it: a directory must list whatever the thread count)
 * for the bodies its tables keep, and as much again, at least this much,
 * for the rest.  Builds interleave, so without a bound a few huge
 * directories asked for at once would take what memory there is; and a
 * listing is rebuilt after a second, so bodies that only had to be built
 * would let clients that do not read (HTTP/2 streams whose windows stay
 * shut) hold a new one every second.
 */
#define LISTING_BUDGET_MIN (4u << 20)

/* The longest the build runs before the thread's other connections. */
#define LISTING_SLICE_MS 4
/* Entries between looks at the clock. */
#define LISTING_CLOCK_EVERY 128

struct time_slice {
	uint64_t end;
	unsigned steps;
};

static void slice_start(struct time_slice *t)
{
	t->end = clock_ms() + LISTING_SLICE_MS;
	t->steps = 0;
}

/* Yields a turn once the slice is used up; -1 if the connection timed out. */
static int take_turns(struct exchange *rc, struct time_slice *t)
{
	if (++t->steps % LISTING_CLOCK_EVERY || clock_ms() < t->end)
		return 0;
	if (conn_yield_turn(rc->conn))
		return -1;
	slice_start(t);
	return 0;
}

/* Bytes held by the listings of all threads, and the bound. */
static _Atomic size_t building_bytes;
static _Atomic size_t building_budget;

static void *resize(void *p, size_t old_size, size_t new_size)
{
	size_t grow = new_size > old_size ? new_size - old_size : 0;
	size_t held = atomic_fetch_add(&building_bytes, grow);
	void *q;

	if (held + grow > building_budget) {
		atomic_fetch_sub(&building_bytes, grow);
		errno = ENOBUFS; /* the budget, not the system, ran out */
		return NULL;
	}
	q = realloc(p, new_size);
	if (!q) {
		atomic_fetch_sub(&building_bytes, grow);
		return NULL;
	}
	if (new_size < old_size)
		atomic_fetch_sub(&building_bytes, old_size - new_size);
	return q;
}

static void release(void *p, size_t size)
{
	free(p);
	atomic_fetch_sub(&building_bytes, size);
}

static void free_entries(struct http_dirents *d)
{
	release(d->items, d->cap * d->item_size);
	release(d->names, d->names_cap);
}

/* A failure that says nothing of the entry: the process is short of
 * descriptors or memory, and the listing must not be made without it. */
static bool shortage(int err)
{
	return err == EMFILE || err == ENFILE || err == ENOMEM;
}

/* Fills size, mtime and type; a symlink is described by its target only
 * when that stays beneath ROOT, and is still said to be one.  Returns -1
 * for a link to a hidden name, or to a place another password guards;
 * -2 with errno for a shortage (shortage()). */
static int stat_entry(struct exchange *rc, int dir_fd, const char *name,
		      struct http_listing_entry *e)
{
	struct stat st;

	if (fstatat(dir_fd, name, &st, AT_SYMLINK_NOFOLLOW))
		return shortage(errno) ? -2 : 0;
	if (S_ISLNK(st.st_mode)) {
		size_t dlen = (size_t)rc->path_len - 1, nlen = strlen(name);
		char path[HTTP_PATH_MAX + 256];
		bool hidden;
		int fd;

		e->is_link = true;
		if (dlen + nlen + 2 > sizeof(path))
			return 0;
		/* From '/', which open_beneath() is given without. */
		memcpy(path, rc->path, dlen + 1);
		memcpy(path + dlen + 1, name, nlen + 1);
		fd = open_beneath(rc->root->fd, path + 1, O_PATH);
		if (fd < 0)
			return shortage(errno) ? -2 : 0;
		/* "innocent -> .git/config" is not listed, as .git is not. */
		if (!authorize_object(rc, rc->auth_rule, fd, &hidden) ||
		    hidden) {
			close(fd);
			return -1;
		}
		if (fstat(fd, &st)) {
			close(fd);
			return 0;
		}
		close(fd);
	}
	e->is_dir = S_ISDIR(st.st_mode);
	e->has_stat = true;
	e->size = (uint64_t)st.st_size;
	e->mtime = st.st_mtim.tv_sec;
	return 0;
}

static int read_entries(struct exchange *rc, int dir_fd, struct http_dirents *d,
			struct time_slice *slice)
{
	int fd = dup(dir_fd);
	DIR *dir = fd >= 0 ? fdopendir(fd) : NULL;
	bool dotfiles = rc->worker->server->site->http.dotfiles;
	struct dirent *de;

	if (!dir) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	while ((de = readdir(dir))) {
		const char *name = de->d_name;
		struct http_listing_entry found = { 0 }, *e;

		if (!strcmp(name, ".") || !strcmp(name, ".."))
			continue;
		if (!dotfiles &&
		    http_entry_hidden(rc->path, (size_t)rc->path_len, name,
				      strlen(name)))
			continue;
		switch (stat_entry(rc, dir_fd, name, &found)) {
		case 0:
			break;
		case -2: { /* out of descriptors or memory: kept for the 503 */
			int err = errno;

			closedir(dir);
			errno = err;
			return -1;
		}
		default:
			continue;
		}
		e = http_dirents_add(d, name, strlen(name));
		if (!e) {
			closedir(dir);
			return -1;
		}
		e->is_dir = found.is_dir;
		e->is_link = found.is_link;
		e->has_stat = found.has_stat;
		e->size = found.size;
		e->mtime = found.mtime;
		if (take_turns(rc, slice)) {
			closedir(dir);
			return -1;
		}
	}
	closedir(dir);
	http_dirents_done(d);
	return 0;
}

/* The listing grows in one malloc'd buffer as http_out flushes into it. */
struct listing_buffer {
	char *data;
	size_t len;
	size_t cap;
	int err; /* why it could not grow: later turns may change errno */
};

static int append_flushed(struct http_out *out)
{
	struct listing_buffer *b = out->ctx;

	if (b->cap - b->len < out->len) {
		size_t cap = b->cap ? b->cap : 16384;
		char *p;

		while (cap - b->len < out->len)
			cap *= 2;
		p = resize(b->data, b->cap, cap);
		if (!p) {
			b->err = errno;
			return -1;
		}
		b->data = p;
		b->cap = cap;
	}
	memcpy(b->data + b->len, out->buf, out->len);
	b->len += out->len;
	out->len = 0;
	return 0;
}

static size_t listing_budget(const struct server *s)
{
	size_t total = s->cache_bytes * s->nworkers;

	return total +
	       (total > LISTING_BUDGET_MIN ? total : LISTING_BUDGET_MIN);
}

/* A refusal for want of budget is the operator's to know (and to raise
 * with --cache-size); one line each time, naming the directory. */
static void log_over_budget(const struct exchange *rc)
{
	fprintf(stderr,
		"sehttpd: listing of %.*s refused (503): listings would "
		"hold more than %zu MiB (see --cache-size)\n",
		rc->path_len, rc->path, (size_t)building_budget >> 20);
}

static char *build(struct exchange *rc, int dir_fd,
		   struct http_listing_order order,
		   enum http_listing_format form, size_t *len)
{
	struct listing_buffer b = { 0 };
	struct http_dirents d;
	struct time_slice slice;
	char chunk[4096];
	struct http_out out = {
		.buf = chunk,
		.cap = sizeof(chunk),
		.flush = append_flushed,
		.ctx = &b,
	};

	http_dirents_init(&d, sizeof(struct http_listing_entry), resize);
	building_budget = listing_budget(rc->worker->server);
	slice_start(&slice);
	if (read_entries(rc, dir_fd, &d, &slice)) {
		free_entries(&d);
		return NULL;
	}
	if (d.count)
		qsort(d.items, d.count, d.item_size,
		      http_listing_comparator(order));
	http_listing_write_begin(&out, form, rc->path, (size_t)rc->path_len,
				 order);
	for (size_t i = 0; i < d.count; i++) {
		http_listing_write_entry(&out, form, http_dirents_entry(&d, i),
					 i);
		if (take_turns(rc, &slice)) {
			free_entries(&d);
			release(b.data, b.cap);
			return NULL; /* errno set: timed out */
		}
	}
	http_listing_write_end(&out, form);
	free_entries(&d);
	if (http_out_flush(&out)) {
		int err = b.err == ENOBUFS ? ENOBUFS : ENOMEM;

		release(b.data, b.cap);
		errno = err;
		return NULL;
	}
	/* Built: charged at its length until listing_body_free().  Never
	 * realloc() to 0, which frees. */
	if (b.len > 0 && b.cap > b.len) {
		char *p = realloc(b.data, b.len);

		if (p)
			b.data = p;
	}
	atomic_fetch_sub(&building_bytes, b.cap - b.len);
	*len = b.len;
	return b.data;
}

void listing_body_free(char *body, size_t len)
{
	release(body, len);
}

char *build_dir_listing(struct exchange *rc, int dir_fd,
			struct http_listing_order order,
			enum http_listing_format form, size_t *len)
{
	char *body = build(rc, dir_fd, order, form, len);

	if (!body && errno == ENOBUFS) {
		log_over_budget(rc);
		errno = ENOMEM;
	}
	return body;
}
