// SPDX-License-Identifier: MIT
/*
 * A directory's entries are read, sorted (directories first, then by name)
 * and rendered by the shared core into one buffer, which the content cache
 * keeps (with its compressed variants) for a second.  A large directory
 * takes many milliseconds: the build gives the thread's other connections
 * a turn every few of them.
 */
#include "dir_listing.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clock_ms.h"
#include "conn_io.h"
#include "http/listing.h"
#include "server.h"
#include "static_file.h"

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
static int take_turns(struct request_ctx *rc, struct time_slice *t)
{
	if (++t->steps % LISTING_CLOCK_EVERY || clock_ms() < t->end)
		return 0;
	if (conn_yield_turn(rc->conn))
		return -1;
	slice_start(t);
	return 0;
}

struct entry_list {
	struct http_listing_entry *items;
	size_t count;
	size_t cap;
	char *names;
	size_t names_len;
	size_t names_cap;
};

static void free_entries(void *arg)
{
	struct entry_list *l = arg;

	free(l->items);
	free(l->names);
}

static int grow(void **p, size_t *cap, size_t need, size_t size)
{
	size_t n = *cap ? *cap : 64;
	void *q;

	while (n < need)
		n *= 2;
	if (n == *cap)
		return 0;
	q = realloc(*p, n * size);
	if (!q)
		return -1;
	*p = q;
	*cap = n;
	return 0;
}

/* Fills size, mtime and type; a symlink is described by its target only
 * when that stays beneath ROOT. */
static void stat_entry(struct request_ctx *rc, int dir_fd, const char *name,
		       struct http_listing_entry *e)
{
	struct stat st;

	if (fstatat(dir_fd, name, &st, AT_SYMLINK_NOFOLLOW))
		return;
	if (S_ISLNK(st.st_mode)) {
		size_t dlen = (size_t)rc->path_len - 1, nlen = strlen(name);
		char path[HTTP_PATH_MAX + 256];
		int fd;

		if (dlen + nlen + 1 > sizeof(path))
			return;
		memcpy(path, rc->path + 1, dlen);
		memcpy(path + dlen, name, nlen + 1);
		fd = open_beneath(rc->worker->server->root_fd, path, O_PATH);
		if (fd < 0)
			return;
		if (fstat(fd, &st)) {
			close(fd);
			return;
		}
		close(fd);
	}
	e->is_dir = S_ISDIR(st.st_mode);
	e->has_stat = true;
	e->size = (uint64_t)st.st_size;
	e->mtime = st.st_mtim.tv_sec;
}

static int read_entries(struct request_ctx *rc, int dir_fd,
			struct entry_list *l, struct time_slice *slice)
{
	int fd = dup(dir_fd);
	DIR *dir = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *de;

	if (!dir) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	while ((de = readdir(dir))) {
		const char *name = de->d_name;
		size_t nlen = strlen(name);

		if (!strcmp(name, ".") || !strcmp(name, ".."))
			continue;
		if (grow((void **)&l->items, &l->cap, l->count + 1,
			 sizeof(*l->items)) ||
		    grow((void **)&l->names, &l->names_cap,
			 l->names_len + nlen + 1, 1)) {
			closedir(dir);
			return -1;
		}
		memcpy(l->names + l->names_len, name, nlen + 1);
		l->items[l->count] = (struct http_listing_entry){
			/* An offset until the names stop moving. */
			.name = (const char *)(uintptr_t)l->names_len,
			.name_len = nlen,
		};
		stat_entry(rc, dir_fd, name, &l->items[l->count]);
		l->names_len += nlen + 1;
		l->count++;
		if (take_turns(rc, slice)) {
			closedir(dir);
			return -1;
		}
	}
	closedir(dir);
	for (size_t i = 0; i < l->count; i++)
		l->items[i].name = l->names + (uintptr_t)l->items[i].name;
	return 0;
}

/* The listing grows in one malloc'd buffer as http_out flushes into it. */
struct listing_buffer {
	char *data;
	size_t len;
	size_t cap;
};

static int append_flushed(struct http_out *out)
{
	struct listing_buffer *b = out->ctx;

	if (b->cap - b->len < out->len) {
		size_t cap = b->cap ? b->cap : 16384;
		char *p;

		while (cap - b->len < out->len)
			cap *= 2;
		p = realloc(b->data, cap);
		if (!p)
			return -1;
		b->data = p;
		b->cap = cap;
	}
	memcpy(b->data + b->len, out->buf, out->len);
	b->len += out->len;
	out->len = 0;
	return 0;
}

char *build_dir_listing(struct request_ctx *rc, int dir_fd, size_t *len)
{
	struct entry_list l = { 0 };
	struct listing_buffer b = { 0 };
	struct time_slice slice;
	char chunk[4096];
	struct http_out out = {
		.buf = chunk,
		.cap = sizeof(chunk),
		.flush = append_flushed,
		.ctx = &b,
	};

	slice_start(&slice);
	if (read_entries(rc, dir_fd, &l, &slice)) {
		free_entries(&l);
		return NULL;
	}
	if (l.count)
		qsort(l.items, l.count, sizeof(*l.items),
		      http_listing_entry_cmp);
	http_listing_begin(&out, rc->path, (size_t)rc->path_len);
	for (size_t i = 0; i < l.count; i++) {
		http_listing_entry(&out, &l.items[i]);
		if (take_turns(rc, &slice)) {
			free_entries(&l);
			free(b.data);
			return NULL; /* errno set: timed out */
		}
	}
	http_listing_end(&out);
	free_entries(&l);
	if (http_out_flush(&out)) {
		free(b.data);
		errno = ENOMEM;
		return NULL;
	}
	*len = b.len;
	return b.data;
}
