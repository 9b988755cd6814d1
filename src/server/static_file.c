// SPDX-License-Identifier: MIT
/*
 * Mapping a request path to an answer: from the content cache when a fresh
 * entry is there, else from the file system beneath ROOT, filling the cache
 * on the way for small files and listings.
 */
#include "static_file.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "content_cache.h"
#include "coro.h"
#include "dir_listing.h"
#include "file_response.h"
#include "mime_map.h"
#include "http/listing.h"
#include "http/mime.h"
#include "http/path.h"
#include "http/response.h"
#include "http/route.h"
#include "respond.h"
#include "server.h"

#define INDEX_FILE "index.html"
#define GZIP_SUFFIX ".gz"

int open_beneath(int root_fd, const char *path, int flags)
{
	/* openat2 refuses O_PATH with any flag but a few (EINVAL). */
	int extra = flags & O_PATH ? O_CLOEXEC : O_CLOEXEC | O_NOCTTY;
	struct open_how how = {
		.flags = (uint64_t)(flags | extra),
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS,
	};
	long fd;

	do {
		fd = syscall(SYS_openat2, root_fd, path[0] ? path : ".", &how,
			     sizeof(how));
	} while (fd < 0 && errno == EAGAIN);
	return (int)fd;
}

static void close_fd(void *arg)
{
	close((int)(intptr_t)arg);
}

/* Opens and registers the descriptor to be closed after the request. */
static int open_for_request(struct exchange *rc, const char *path)
{
	/* O_NONBLOCK: opening a FIFO someone left under ROOT must not hang. */
	int fd = open_beneath(rc->worker->server->root_fd, path,
			      O_RDONLY | O_NONBLOCK);

	if (fd < 0)
		return -1;
	if (coro_defer(rc->conn->coro, close_fd, (void *)(intptr_t)fd)) {
		close(fd);
		errno = ENOMEM;
		return -1;
	}
	return fd;
}

/* Stats path as a request opens it, so what it may not read fails: how
 * the content cache checks its entries (a cache_stat_fn). */
static int stat_readable(void *ctx, const char *path, struct stat *st)
{
	struct exchange *rc = ctx;
	int fd = open_beneath(rc->worker->server->root_fd, path,
			      O_RDONLY | O_NONBLOCK);
	int ret;

	if (fd < 0)
		return -1;
	ret = fstat(fd, st);
	close(fd);
	return ret;
}

/* Reads a whole regular file of the given size into a new buffer. */
static char *read_all(int fd, size_t size)
{
	char *buf = malloc(size ? size : 1);
	size_t got = 0;

	while (buf && got < size) {
		ssize_t n = pread(fd, buf + got, size - got, (off_t)got);

		if (n <= 0) {
			free(buf);
			return NULL; /* shrank under us: not cached */
		}
		got += (size_t)n;
	}
	return buf;
}

/* The order a directory's listing is asked for in (by the query). */
static struct http_listing_order listing_order(const struct exchange *rc)
{
	if (!rc->req->has_query)
		return HTTP_LISTING_ORDER_DEFAULT;
	return http_listing_order_parse(http_span_ptr(rc->buf, rc->req->query),
					rc->req->query.len);
}

/*
 * The cache key of rc->path: the path, and for a directory (a path ending
 * in '/') listed in another order, that order after a NUL, so that one
 * order's listing never answers for another.  Written in place: rc->path
 * has room, and stays NUL-terminated at rc->path_len.
 */
static size_t cache_key(struct exchange *rc)
{
	size_t len = (size_t)rc->path_len;

	if (rc->path[len - 1] != '/')
		return len;
	return http_listing_cache_key(rc->path, rc->path, len,
				      listing_order(rc));
}

/* A cached entry for rc->path that is still fresh, or NULL. */
static struct cache_entry *cache_lookup(struct exchange *rc)
{
	struct worker *w = rc->worker;
	struct cache_entry *e;

	if (content_cache_lookup(w->cache, rc->path, cache_key(rc), w->now_ms,
				 stat_readable, rc, &e) != CACHE_FRESH)
		return NULL;
	return e;
}

/* A "FILE.gz" beside the file, not older than it, as its gzip body. */
static void attach_precompressed(struct exchange *rc, struct cache_entry *e,
				 const char *file, size_t len,
				 const struct stat *st)
{
	char gz_path[HTTP_PATH_MAX + sizeof(GZIP_SUFFIX)];
	struct stat gz_st;
	char *gz = NULL;
	int fd;

	if (http_path_join(gz_path, sizeof(gz_path), file, len, GZIP_SUFFIX) <
	    0)
		return;
	fd = open_beneath(rc->worker->server->root_fd, gz_path,
			  O_RDONLY | O_NONBLOCK);
	if (fd < 0 || fstat(fd, &gz_st)) {
		if (fd >= 0)
			close(fd);
		content_cache_set_sibling(rc->worker->cache, e, NULL, NULL, 0);
		return;
	}
	if (S_ISREG(gz_st.st_mode) && gz_st.st_size <= CACHE_FILE_MAX &&
	    (gz_st.st_mtim.tv_sec > st->st_mtim.tv_sec ||
	     (gz_st.st_mtim.tv_sec == st->st_mtim.tv_sec &&
	      gz_st.st_mtim.tv_nsec >= st->st_mtim.tv_nsec)))
		gz = read_all(fd, (size_t)gz_st.st_size);
	content_cache_set_sibling(rc->worker->cache, e, &gz_st, gz,
				  gz ? (size_t)gz_st.st_size : 0);
	close(fd);
}

/*
 * Answers with an open regular file: small ones through the cache (read
 * once, compressed on demand), larger ones straight from the file.
 * file is its path relative to ROOT.
 */
static int serve_file(struct exchange *rc, int fd, const struct stat *st,
		      const char *file)
{
	struct worker *w = rc->worker;
	size_t file_len = strlen(file);
	const char *type = mime_map_type(w->server->mime, file, file_len);
	bool compressible = w->server->compress && http_mime_compressible(type);
	struct cache_entry *e;
	char *body;

	if (!content_cache_enabled(w->cache) || st->st_size > CACHE_FILE_MAX)
		return respond_file(rc, fd, st, type, compressible);
	body = read_all(fd, (size_t)st->st_size);
	if (!body)
		return respond_file(rc, fd, st, type, compressible);
	e = cache_entry_new(rc->path, (size_t)rc->path_len, CACHE_FILE, body,
			    (size_t)st->st_size, st, file, type, compressible,
			    w->now_ms);
	if (!e)
		return respond_status(rc, 503, NULL, 0);
	if (e->compressible)
		attach_precompressed(rc, e, file, file_len, st);
	content_cache_link(w->cache, e);
	return respond_entry(rc, e);
}

static int serve_listing(struct exchange *rc, int dir_fd, const struct stat *st)
{
	struct worker *w = rc->worker;
	struct cache_entry *e;
	size_t len;
	char *html = build_dir_listing(rc, dir_fd, listing_order(rc), &len);

	if (!html)
		return respond_status(rc, http_status_for_errno(errno), NULL,
				      0);
	e = cache_entry_new(rc->path, cache_key(rc), CACHE_LISTING, html, len,
			    st, NULL, "text/html; charset=utf-8",
			    w->server->compress, w->now_ms);
	if (!e)
		return respond_status(rc, 503, NULL, 0);
	content_cache_link(w->cache, e);
	return respond_entry(rc, e);
}

static int serve_directory(struct exchange *rc, int dir_fd,
			   const struct stat *dir_st)
{
	char *path = rc->path;
	size_t len = (size_t)rc->path_len;
	char index[HTTP_PATH_MAX + sizeof(INDEX_FILE)];
	struct stat st;
	int fd;

	if (path[len - 1] != '/')
		return respond_redirect(rc, path, len);
	/* The index's path, relative to ROOT. */
	if (http_path_join(index, sizeof(index), path + 1, len - 1,
			   INDEX_FILE) >= 0) {
		fd = open_for_request(rc, index);
		if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
			return serve_file(rc, fd, &st, index);
	}
	if (!rc->worker->server->listing || dir_fd < 0)
		return respond_status(rc, 403, NULL, 0);
	return serve_listing(rc, dir_fd, dir_st);
}

/*
 * A directory that may be searched but not read (mode 711, as ~/public_html
 * often is) cannot be opened, but its index.html can: serve that, as nginx
 * does.  Finding the index also shows that the path is a directory, before
 * a missing trailing slash is redirected; without one the answer stays 403.
 */
static int serve_searchable_dir(struct exchange *rc)
{
	const char *path = rc->path;
	size_t len = (size_t)rc->path_len;
	char index[HTTP_PATH_MAX + sizeof(INDEX_FILE) + 1];
	struct stat st;
	int fd = -1;

	/* The index's path, relative to ROOT. */
	if (http_path_join(index, sizeof(index), path + 1, len - 1,
			   path[len - 1] == '/' ? INDEX_FILE :
						  "/" INDEX_FILE) >= 0)
		fd = open_for_request(rc, index);
	if (fd < 0 || fstat(fd, &st) || !S_ISREG(st.st_mode))
		return respond_status(rc, 403, NULL, 0);
	return serve_directory(rc, -1, NULL);
}

int serve_request(struct exchange *rc)
{
	struct cache_entry *e;
	struct stat st;
	int fd;

	rc->path_len = http_route(rc->buf, rc->req, rc->path);
	if (rc->path_len < 0)
		return respond_status(rc, -rc->path_len, NULL, 0);
	e = cache_lookup(rc);
	if (e) {
		stats_add(&rc->worker->stats.cache_hits, 1);
		return respond_entry(rc, e);
	}
	if (content_cache_enabled(rc->worker->cache))
		stats_add(&rc->worker->stats.cache_misses, 1);

	fd = open_for_request(rc, rc->path + 1);
	if (fd < 0 && errno == EACCES)
		return serve_searchable_dir(rc);
	if (fd < 0)
		return respond_status(rc, http_status_for_errno(errno), NULL,
				      0);
	if (fstat(fd, &st))
		return respond_status(rc, 500, NULL, 0);
	if (S_ISDIR(st.st_mode))
		return serve_directory(rc, fd, &st);
	if (!S_ISREG(st.st_mode))
		return respond_status(rc, 403, NULL, 0);
	return serve_file(rc, fd, &st, rc->path + 1);
}
