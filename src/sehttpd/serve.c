// SPDX-License-Identifier: MIT
/*
 * Mapping a request path to an answer: from the content cache when a fresh
 * entry is there, else from the file system beneath the request's root
 * (ROOT, or the DIR of the --vhost its host names), filling the cache on
 * the way for small files and listings.
 */
#include "serve.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "auth.h"
#include "authorize.h"
#include "cache.h"
#include "coro.h"
#include "listing.h"
#include "listing_builds.h"
#include "respond_coded.h"
#include "respond_file.h"
#include "mime_map.h"
#include "http/listing.h"
#include "http/mime.h"
#include "http/path.h"
#include "http/response.h"
#include "http/route.h"
#include "http/serve.h"
#include "http/site.h"
#include "http/vhost.h"
#include "beneath.h"
#include "clock_ms.h"
#include "respond.h"
#include "server.h"
#include "config.h"

/* The number of the directory rc is served from, in its cache keys. */
static unsigned root_id(const struct exchange *rc)
{
	return worker_root_id(rc->worker, rc->root);
}

/* Stats path as a request opens it, so what it may not read fails: how
 * the content cache checks its entries (a cache_stat_fn).  So too what
 * now lies under a rule or a dot name the request did not pass (a file
 * moved beneath /admin/, a link left behind). */
static int stat_readable(void *ctx, const char *path, struct stat *st)
{
	struct exchange *rc = ctx;
	int fd = open_beneath(rc->root->fd, path, O_RDONLY | O_NONBLOCK);
	bool hidden;
	int ret;

	if (fd < 0)
		return -1;
	if (!authorize_object(rc, rc->auth_rule, fd, &hidden) || hidden) {
		close(fd);
		return -1;
	}
	ret = fstat(fd, st);
	close(fd);
	return ret;
}

/* An error status, with the operator's page for it (respond_status()). */
static int respond_error(struct exchange *rc, int status)
{
	return respond_status(rc, status, NULL, 0);
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
				      http_listing_order_of(rc->buf, rc->req),
				      http_listing_format_of(rc->buf, rc->req));
}

/* The fresh entry for key, or NULL. */
static struct cache_entry *cache_find(struct exchange *rc, const char *key,
				      size_t key_len)
{
	struct worker *w = rc->worker;
	struct cache_entry *e;

	if (content_cache_lookup(w->cache, root_id(rc), key, key_len, w->now_ms,
				 stat_readable, rc, &e) != CACHE_FRESH)
		return NULL;
	return e;
}

/*
 * A cached entry for rc->path that is still fresh, or NULL.  A directory's
 * index page is cached under the bare path and answers any order a query
 * asks for; only a listing is cached per order.
 */
static struct cache_entry *cache_lookup(struct exchange *rc)
{
	size_t len = (size_t)rc->path_len, key_len = cache_key(rc);
	struct cache_entry *e;

	/* The key keeps the bare path NUL-terminated at len. */
	if (key_len != len) {
		e = cache_find(rc, rc->path, len);
		if (e && e->kind == CACHE_FILE)
			return e;
		if (e)
			content_cache_put(e);
	}
	return cache_find(rc, rc->path, key_len);
}

/* Opens path (from '/') for the serving plan: http_serve_ops.open. */
static int plan_open(void *ctx, const char *path, struct http_object *obj)
{
	struct exchange *rc = ctx;
	int fd = open_beneath(rc->root->fd, path + 1, O_RDONLY | O_NONBLOCK);
	struct stat st;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st)) {
		int err = errno;

		close(fd);
		return -err;
	}
	/* Where it really is: a link may lead to a hidden or guarded place. */
	obj->withheld = !authorize_object(rc, rc->auth_rule, fd, &obj->hidden);
	obj->handle = (void *)(intptr_t)fd;
	obj->type = S_ISREG(st.st_mode) ? HTTP_OBJECT_FILE :
		    S_ISDIR(st.st_mode) ? HTTP_OBJECT_DIR :
					  HTTP_OBJECT_OTHER;
	obj->mtime_sec = st.st_mtim.tv_sec;
	obj->mtime_nsec = st.st_mtim.tv_nsec;
	obj->size = st.st_size;
	return 0;
}

static void plan_close(void *ctx, struct http_object *obj)
{
	(void)ctx;
	close((int)(intptr_t)obj->handle);
}

static void *plan_cache_probe(void *ctx, char *path, size_t len)
{
	struct exchange *rc = ctx;

	struct cache_entry *e;

	(void)path; /* rc->path */
	rc->path_len = (int)len;
	e = cache_lookup(rc);
	if (!e && content_cache_enabled(rc->worker->cache))
		stats_add(&rc->worker->stats.cache_misses, 1);
	return e;
}

static int plan_authorize(void *ctx, const char *path, size_t len)
{
	struct exchange *rc = ctx;

	return rc->worker->server->auth ? authorize_request(rc, path, len) : 0;
}

static const struct http_serve_ops plan_ops = {
	.open = plan_open,
	.close = plan_close,
	.cache_probe = plan_cache_probe,
	.authorize = plan_authorize,
};

/*
 * Records in e the sibling in http_precompressed[slot] beside the file obj
 * (file, len bytes from '/'), and when it may stand for the file, attaches
 * it as the body in its coding: held when small, else sent from its
 * descriptor.
 */
static void attach_sibling(struct exchange *rc, struct cache_entry *e,
			   unsigned slot, const char *file, size_t len,
			   const struct http_object *obj)
{
	struct content_cache *c = rc->worker->cache;
	char path[HTTP_SIBLING_PATH_BUF];
	struct http_object sib;
	struct stat st;
	char *data = NULL;
	bool usable;
	int fd;

	if (http_serve_open_sibling(&rc->worker->server->site->http, &plan_ops,
				    rc, file, len, slot, path, sizeof(path),
				    &sib)) {
		content_cache_set_sibling(c, e, slot, NULL, NULL, 0);
		return;
	}
	fd = (int)(intptr_t)sib.handle;
	if (fstat(fd, &st)) {
		close(fd);
		content_cache_set_sibling(c, e, slot, NULL, NULL, 0);
		return;
	}
	/* Judged by the size its body is read at. */
	sib.size = st.st_size;
	usable = http_sibling_usable(&sib, obj);
	if (usable && st.st_size <= FILE_SENDFILE_MIN)
		data = read_all(fd, (size_t)st.st_size);
	content_cache_set_sibling(c, e, slot, &st, data,
				  data ? (size_t)st.st_size : 0);
	if (usable && !data)
		content_cache_rep_in_file(e, http_precompressed[slot].coding,
					  fd, (size_t)st.st_size,
					  &e->sibling[slot].st);
	else
		close(fd);
}

/* Answers with the precompressed sibling sib, standing for its file. */
static int respond_sibling(struct exchange *rc, const struct http_object *sib,
			   const char *type, enum http_coding coding)
{
	int sfd = (int)(intptr_t)sib->handle;
	struct stat sib_st;
	int status = exchange_keep_fd(rc, sfd, &sib_st);

	if (status)
		return respond_error(rc, status);
	return respond_file(rc, sfd, &sib_st, type, true, coding);
}

/*
 * Answers with a file the content cache does not hold (obj, at file from
 * '/'): from a precompressed sibling when the client accepts one, else
 * compressed as it is sent when it is large and compressible, else as it
 * is.
 */
static int serve_file_direct(struct exchange *rc, int fd, const struct stat *st,
			     const struct http_object *obj, const char *file,
			     const char *type, bool compressible)
{
	char path[HTTP_SIBLING_PATH_BUF];
	enum http_coding coding = HTTP_CODING_IDENTITY, made;
	struct http_object sib;

	if (compressible)
		coding = http_serve_sibling(&rc->worker->server->site->http,
					    rc->buf, rc->req, file,
					    strlen(file), obj, &plan_ops, rc,
					    path, sizeof(path), &sib);
	made = respond_coded_choice(rc, (uint64_t)st->st_size, compressible);
	/* A sibling wins a tie; a coding the client ranks higher is made. */
	if (coding != HTTP_CODING_IDENTITY && made != HTTP_CODING_IDENTITY &&
	    made != coding &&
	    http_request_coding(rc->buf, rc->req,
				HTTP_CODING_BIT(coding) | HTTP_CODING_BIT(made),
				HTTP_CODING_BIT(coding)) == made) {
		plan_ops.close(rc, &sib);
		coding = HTTP_CODING_IDENTITY;
	}
	if (coding != HTTP_CODING_IDENTITY)
		return respond_sibling(rc, &sib, type, coding);
	if (made != HTTP_CODING_IDENTITY)
		return respond_file_coded(rc, fd, st, type, made, NULL);
	return respond_file(rc, fd, st, type, compressible, made);
}

/*
 * Answers with an open regular file (obj, at file from '/') through the
 * cache, as its entry under key: small ones read once (and compressed on
 * demand), larger ones sent from the page cache by sendfile from a
 * descriptor the entry keeps open; their body is read only as the source
 * of compressed variants.
 */
static int serve_file(struct exchange *rc, int fd, const struct stat *st,
		      const struct http_object *obj, const char *file,
		      const char *key, size_t key_len)
{
	struct worker *w = rc->worker;
	size_t file_len = strlen(file);
	const char *type = mime_map_type(w->server->mime, file, file_len);
	bool compressible = w->server->compress && http_mime_compressible(type);
	bool in_file = st->st_size > FILE_SENDFILE_MIN;
	struct cache_entry *e;
	char *body = NULL;
	int keep = -1;

	if (!content_cache_enabled(w->cache) ||
	    (!in_file && st->st_size > CACHE_FILE_MAX))
		return serve_file_direct(rc, fd, st, obj, file, type,
					 compressible);
	if (st->st_size <= CACHE_FILE_MAX && (!in_file || compressible)) {
		body = read_all(fd, (size_t)st->st_size);
		if (!body)
			return serve_file_direct(rc, fd, st, obj, file, type,
						 compressible);
	}
	if (in_file) {
		keep = fcntl(fd, F_DUPFD_CLOEXEC, 0);
		if (keep < 0) {
			free(body);
			return serve_file_direct(rc, fd, st, obj, file, type,
						 compressible);
		}
	}
	/* The entry keeps the file's path relative to ROOT. */
	e = cache_entry_new(root_id(rc), key, key_len, CACHE_FILE, body,
			    body ? (size_t)st->st_size : 0, st, file + 1, type,
			    compressible, w->now_ms);
	if (!e) {
		if (keep >= 0)
			close(keep);
		return respond_error(rc, 503);
	}
	if (in_file)
		content_cache_rep_in_file(e, HTTP_CODING_IDENTITY, keep,
					  (size_t)st->st_size, NULL);
	/* Each precompressed sibling beside the file. */
	for (unsigned slot = 0;
	     e->compressible && slot < HTTP_PRECOMPRESSED_COUNT; slot++)
		attach_sibling(rc, e, slot, file, file_len, obj);
	content_cache_link(w->cache, e);
	return respond_entry(rc, e);
}

/*
 * A listing: built once for every request that asks for it meanwhile,
 * whatever thread it is on; each thread's cache entry points to that body.
 */
static int serve_listing(struct exchange *rc, int dir_fd, const struct stat *st)
{
	struct worker *w = rc->worker;
	enum http_listing_format form =
		http_listing_format_of(rc->buf, rc->req);
	size_t key_len = cache_key(rc), len = 0;
	struct cache_entry *e;
	bool builder;
	struct listing_build *b = listing_build_get(
		root_id(rc), rc->path, key_len, w->now_ms, &builder);
	char *body;

	if (!b)
		return respond_error(rc, 503);
	if (builder) {
		body = build_dir_listing(
			rc, dir_fd, http_listing_order_of(rc->buf, rc->req),
			form, &len);
		listing_build_finish(b, body, len, body ? 0 : errno,
				     clock_ms());
		stats_add(&w->stats.listing_builds, 1);
	} else if (listing_build_wait(rc, b)) {
		listing_build_put(b);
		return -1; /* timed out while another built it */
	}
	if (!b->body) {
		int status = http_status_for_errno(b->errno_of_build);

		listing_build_put(b);
		return respond_error(rc, status);
	}
	/* The entry holds the reference from here on. */
	e = cache_entry_new_shared(root_id(rc), rc->path, key_len, b->body,
				   b->len, st, http_listing_content_type(form),
				   w->server->compress, w->now_ms,
				   listing_build_put, b);
	if (!e)
		return respond_error(rc, 503);
	content_cache_link(w->cache, e);
	return respond_entry(rc, e);
}

/* A fresh cache entry for the path: a hit. */
static int serve_entry(struct exchange *rc, struct cache_entry *e)
{
	stats_add(&rc->worker->stats.cache_hits, 1);
	return respond_entry(rc, e);
}

/*
 * --spa's page for a route, from the page's own entry: one for every
 * route, compressed and with siblings as the page asked for by name is.
 */
static int serve_spa(struct exchange *rc, int fd, const struct stat *st,
		     const struct http_serve_plan *p)
{
	struct cache_entry *e = cache_find(rc, p->file, p->file_len);

	if (e)
		return serve_entry(rc, e);
	return serve_file(rc, fd, st, &p->obj, p->file, p->file, p->file_len);
}

/* Carries out the plan for an object it opened, which the request keeps. */
static int serve_object(struct exchange *rc, const struct http_serve_plan *p)
{
	int fd = (int)(intptr_t)p->obj.handle;
	struct stat st;
	int status = exchange_keep_fd(rc, fd, &st);

	if (status)
		return respond_error(rc, status);
	switch (p->action) {
	case HTTP_SERVE_FILE:
		return serve_file(rc, fd, &st, &p->obj, p->file, rc->path,
				  (size_t)rc->path_len);
	case HTTP_SERVE_LISTING:
		return serve_listing(rc, fd, &st);
	default: /* HTTP_SERVE_SPA */
		return serve_spa(rc, fd, &st, p);
	}
}

HTTP_SERVE_ANSWERS(answers, struct exchange, respond_error, respond_options,
		   respond_redirect, serve_entry, serve_object);

/* ROOT, or the DIR of the --vhost whose name the request's host is. */
static const struct beneath_root *request_root(const struct exchange *rc)
{
	const struct server *s = rc->worker->server;
	/* -1: ROOT, the thread's root 0. */
	int v = http_vhost_for_request(s->vhosts, s->nvhosts, rc->buf, rc->req);

	return worker_root(&rc->worker->roots, (unsigned)(v + 1));
}

int serve_request(struct exchange *rc)
{
	const struct site *site = rc->worker->server->site;
	struct http_serve_plan p;

	rc->root = request_root(rc);
	http_serve(&site->http, rc->buf, rc->req, rc->path, &plan_ops, rc, &p);
	rc->path_len = p.path_len;
	return http_serve_answer(&p, rc->path, &answers, rc);
}
