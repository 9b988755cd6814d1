// SPDX-License-Identifier: MIT
/*
 * The listing is generated into the scratch buffer and leaves in chunks
 * (HTTP/1.1) or as a close-delimited body (HTTP/1.0) as the buffer fills, so
 * a directory of any size needs only the memory for its names.
 */
#include "dir_listing.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "conn_io.h"
#include "coro.h"
#include "http/chunked.h"
#include "http/listing.h"
#include "respond.h"
#include "server.h"
#include "static_file.h"

#define HEAD_ROOM 1024 /* scratch bytes kept for the response head */

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
			struct entry_list *l)
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
	}
	closedir(dir);
	for (size_t i = 0; i < l->count; i++)
		l->items[i].name = l->names + (uintptr_t)l->items[i].name;
	return 0;
}

struct listing_sink {
	struct request_ctx *rc;
	char *head;
	size_t head_len; /* not yet sent while non-zero */
	bool chunked;
	bool last; /* this flush ends the body */
};

/* Sends the buffered part of the body, with the head the first time. */
static int flush_listing(struct http_out *out)
{
	struct listing_sink *sink = out->ctx;
	struct iovec iov[4];
	char chunk_head[HTTP_CHUNK_HEADER_MAX];
	static const char tail[] = HTTP_CHUNK_END HTTP_LAST_CHUNK;
	int n = 0;

	if (sink->head_len)
		iov[n++] = (struct iovec){ sink->head, sink->head_len };
	if (!sink->chunked) {
		if (out->len)
			iov[n++] = (struct iovec){ out->buf, out->len };
	} else if (out->len) {
		iov[n++] = (struct iovec){
			chunk_head, http_chunk_header(chunk_head, out->len)
		};
		iov[n++] = (struct iovec){ out->buf, out->len };
		iov[n++] = sink->last ?
				   (struct iovec){ (void *)tail,
						   sizeof(tail) - 1 } :
				   (struct iovec){ (void *)HTTP_CHUNK_END, 2 };
	} else if (sink->last) {
		iov[n++] =
			(struct iovec){ (void *)(tail + 2), sizeof(tail) - 3 };
	}
	sink->rc->body_bytes += out->len;
	out->len = 0;
	sink->head_len = 0;
	if (n == 0)
		return 0;
	return conn_writev(sink->rc->conn, iov, n, !sink->last);
}

int send_dir_listing(struct request_ctx *rc, int dir_fd)
{
	struct entry_list *l;
	struct http_response_head h;
	struct listing_sink sink = { .rc = rc, .head = rc->scratch };
	struct http_out out;

	l = calloc(1, sizeof(*l));
	if (!l || coro_defer(rc->conn->coro, free, l)) {
		free(l);
		return respond_status(rc, 503, NULL, 0);
	}
	if (coro_defer(rc->conn->coro, free_entries, l) ||
	    read_entries(rc, dir_fd, l))
		return respond_status(rc, status_for_errno(errno), NULL, 0);
	qsort(l->items, l->count, sizeof(*l->items), http_listing_entry_cmp);

	sink.chunked = rc->req->version_minor >= 1;
	if (!sink.chunked)
		rc->keep_alive = false; /* the end of the body is the close */
	respond_head_init(rc, &h, 200);
	h.content_type = "text/html; charset=utf-8";
	h.chunked = sink.chunked;
	sink.head_len = http_response_head_build(sink.head, HEAD_ROOM, &h);
	if (sink.head_len == 0)
		return -1;
	rc->status = 200;
	if (rc->head_only)
		return conn_write(rc->conn, sink.head, sink.head_len, false);

	out = (struct http_out){
		.buf = rc->scratch + HEAD_ROOM,
		.cap = HTTP_CONN_SCRATCH - HEAD_ROOM,
		.flush = flush_listing,
		.ctx = &sink,
	};
	http_listing_begin(&out, rc->path, (size_t)rc->path_len);
	for (size_t i = 0; i < l->count; i++)
		http_listing_entry(&out, &l->items[i]);
	http_listing_end(&out);
	/* The last flush also ends the chunked body, even when empty. */
	sink.last = true;
	if (out.error || flush_listing(&out))
		return -1;
	return 0;
}
