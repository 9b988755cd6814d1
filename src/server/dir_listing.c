// SPDX-License-Identifier: MIT
/*
 * A directory's entries are read, sorted (directories first, then by name)
 * and rendered by the shared core into one buffer, which the content cache
 * keeps (with its compressed variants) for a second.
 */
#include "dir_listing.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "http/dirents.h"
#include "http/listing.h"
#include "server.h"
#include "static_file.h"

static void *resize(void *p, size_t old_size, size_t new_size)
{
	(void)old_size;
	return realloc(p, new_size);
}

static void free_entries(void *arg)
{
	struct http_dirents *d = arg;

	free(d->items);
	free(d->names);
}

/* Fills size, mtime and type; a symlink is described by its target only
 * when that stays beneath ROOT. */
static void stat_entry(struct exchange *rc, int dir_fd, const char *name,
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

static int read_entries(struct exchange *rc, int dir_fd, struct http_dirents *d)
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
		struct http_listing_entry *e;

		if (!strcmp(name, ".") || !strcmp(name, ".."))
			continue;
		e = http_dirents_add(d, name, strlen(name));
		if (!e) {
			closedir(dir);
			return -1;
		}
		stat_entry(rc, dir_fd, name, e);
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

char *build_dir_listing(struct exchange *rc, int dir_fd, size_t *len)
{
	struct listing_buffer b = { 0 };
	struct http_dirents d;
	char chunk[4096];
	struct http_out out = {
		.buf = chunk,
		.cap = sizeof(chunk),
		.flush = append_flushed,
		.ctx = &b,
	};

	http_dirents_init(&d, sizeof(struct http_listing_entry), resize);
	if (read_entries(rc, dir_fd, &d)) {
		free_entries(&d);
		return NULL;
	}
	if (d.count)
		qsort(d.items, d.count, d.item_size, http_listing_entry_cmp);
	http_listing_begin(&out, rc->path, (size_t)rc->path_len);
	for (size_t i = 0; i < d.count; i++)
		http_listing_entry(&out, http_dirents_entry(&d, i));
	http_listing_end(&out);
	free_entries(&d);
	if (http_out_flush(&out)) {
		free(b.data);
		errno = ENOMEM;
		return NULL;
	}
	*len = b.len;
	return b.data;
}
