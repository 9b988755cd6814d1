// SPDX-License-Identifier: GPL-2.0
/* Answering a request from the file system beneath the root, as the core's
 * serving plan says. */
#include "serve.h"

#include <linux/cred.h>
#include <linux/err.h>
#include <linux/file.h>
#include <linux/mm.h>
#include <linux/namei.h>
#include <linux/slab.h>

#include "cache.h"
#include "beneath.h"
#include "root.h"
#include "listing.h"
#include "mime_map.h"
#include "http/listing.h"
#include "http/mime.h"
#include "http/response.h"
#include "http/select.h"
#include "http/serve.h"
#include "http/site.h"
#include "outq.h"
#include "stats.h"

static int khttpd_getattr(const struct file *f, struct kstat *st)
{
	return vfs_getattr(&f->f_path, st, STATX_BASIC_STATS,
			   AT_STATX_SYNC_AS_STAT);
}

/*
 * The cached answer for path found valid within the second: for a
 * directory, its listing in the order and form asked for, else its first
 * index name's entry.  A later name's entry is not the index: a name
 * before it may be there without an entry (one not to be served stands
 * for its directory, one evicted comes first), which only the plan's walk
 * can tell.  The keys are built in place in the path buffer
 * (HTTP_SERVE_PATH_BUF bytes).
 */
static void *khttpd_plan_cache_probe(void *ctx, char *path, size_t len)
{
	const struct khttpd_exchange *x = ctx;
	const struct http_site *site = &x->srv->site;
	unsigned long turn = khttpd_root_turn(x->srv->root);
	struct khttpd_cache_entry *e;
	size_t klen;

	if (path[len - 1] != '/')
		return khttpd_cache_get_recent(path, len, turn);
	klen = http_listing_cache_key(path, path, len,
				      http_listing_order_of(x->buf, x->req),
				      http_listing_format_of(x->buf, x->req));
	e = khttpd_cache_get_recent(path, klen, turn);
	if (!e && site->nindex) {
		klen = len + strlen(site->index[0]);
		if (klen < HTTP_SERVE_PATH_BUF) {
			memcpy(path + len, site->index[0], klen - len + 1);
			e = khttpd_cache_get_recent(path, klen, turn);
		}
	}
	path[len] = '\0';
	return e;
}

static int khttpd_plan_open(void *ctx, const char *path,
			    struct http_object *obj)
{
	struct khttpd_exchange *x = ctx;
	const struct khttpd_server *srv = x->srv;
	bool hidden = false;
	struct file *f;
	struct kstat st;

	if (x->inline_only) {
		x->deferred = true;
		return -EAGAIN;
	}
	f = khttpd_open_beneath(srv, path, O_PATH,
				srv->site.dotfiles ? NULL : &hidden,
				&x->root_turn);
	if (IS_ERR(f))
		return PTR_ERR(f);
	if (khttpd_getattr(f, &st)) {
		fput(f);
		return -EIO;
	}
	obj->handle = f;
	obj->type = S_ISREG(st.mode) ? HTTP_OBJECT_FILE :
		    S_ISDIR(st.mode) ? HTTP_OBJECT_DIR :
				       HTTP_OBJECT_OTHER;
	obj->hidden = hidden;
	obj->withheld = false; /* no --auth-file here */
	obj->mtime_sec = st.mtime.tv_sec;
	obj->mtime_nsec = st.mtime.tv_nsec;
	obj->size = st.size;
	return 0;
}

static void khttpd_plan_close(void *ctx, struct http_object *obj)
{
	fput(obj->handle);
}

/*
 * Opens a precompressed sibling as the plan opens anything; one the
 * serving user may not read is none (sehttpd opens them for reading).
 */
static int khttpd_sibling_open(void *ctx, const char *path,
			       struct http_object *obj)
{
	int err = khttpd_plan_open(ctx, path, obj);
	struct file *f = obj->handle;

	if (err || obj->type != HTTP_OBJECT_FILE)
		return err;
	err = khttpd_may_read(&f->f_path);
	if (err)
		fput(f);
	return err;
}

static const struct http_serve_ops khttpd_sibling_ops = {
	.open = khttpd_sibling_open,
	.close = khttpd_plan_close,
	.cache_probe = khttpd_plan_cache_probe,
};

static const struct http_serve_ops khttpd_plan_ops = {
	.open = khttpd_plan_open,
	.close = khttpd_plan_close,
	.cache_probe = khttpd_plan_cache_probe,
};

/* Whether a file of type may be sent coded: compress= and its type. */
static bool khttpd_compressible(const struct khttpd_exchange *x,
				const char *type)
{
	return x->srv->compress && http_mime_compressible(type);
}

/* The plan's description of a file as st says it is. */
static void khttpd_object_of(const struct kstat *st, struct http_object *obj)
{
	*obj = (struct http_object){
		.type = HTTP_OBJECT_FILE,
		.mtime_sec = st->mtime.tv_sec,
		.mtime_nsec = st->mtime.tv_nsec,
		.size = st->size,
	};
}

/*
 * Sends a file the cache cannot take as it is, from the page cache: the
 * resource itself (identity), or a precompressed sibling standing for it
 * in coding.
 */
static int khttpd_stream_file(struct khttpd_exchange *x,
			      const struct file *opath, const struct kstat *st,
			      const char *type, enum http_coding coding)
{
	char etag[HTTP_ETAG_MAX], extra[HTTP_SELECT_HEADERS_MAX];
	const struct http_file_id f = {
		.ino = st->ino,
		.size = st->size,
		.mtime_sec = st->mtime.tv_sec,
		.mtime_nsec = st->mtime.tv_nsec,
	};
	struct http_representation r;
	struct http_response_head h;
	struct http_selection sel;
	struct file *file;
	size_t hlen;
	loff_t pos, end;
	int ret;

	/* Opened first, as sehttpd does: what may not be read is refused,
	 * for HEAD and conditional requests too. */
	file = khttpd_open_read(&opath->f_path, O_RDONLY | O_LARGEFILE);
	if (IS_ERR(file))
		return khttpd_respond_status(
			x, http_status_for_errno(-PTR_ERR(file)));
	/* Smaller files of its type are compressed: it varies too. */
	http_select_file(x->buf, x->req, &f, coding,
			 khttpd_compressible(x, type), etag, x->now, &r, &sel);
	khttpd_respond_head_init(x, &h, sel.status);
	http_select_head(&h, type, extra, &r, &sel, x->now);
	if (http_selection_bodyless(&sel)) {
		fput(file);
		return khttpd_respond_bodyless(x, &h);
	}
	pos = sel.first;
	end = sel.first + sel.len;
	h.content_length = sel.len;
	hlen = http_response_head_build(x->head, x->head_cap, &h);
	ret = hlen ? khttpd_out_copy(x->out, x->head, hlen) : -EOVERFLOW;
	/* The body is read as the socket drains (outq.c). */
	if (!x->head_only && end > pos && !ret) {
		khttpd_count(&khttpd_stats.streams);
		return khttpd_out_file(x->out, file, pos, end);
	}
	fput(file);
	return ret;
}

/* Reads count bytes of f from its start into buf; -EIO when it has fewer. */
static int khttpd_read_whole(struct file *f, char *buf, size_t count)
{
	loff_t pos = 0;

	while (pos < count) {
		ssize_t n = kernel_read(f, buf + pos, count - pos, &pos);

		if (n <= 0)
			return n ? n : -EIO; /* shrank since the stat */
	}
	return 0;
}

/*
 * Reads a small file whole into the entry claimed for it, and the usable
 * siblings it has room for (sibs[], their O_PATH files).
 */
static int khttpd_fill_entry(const struct file *opath,
			     struct file *const sibs[],
			     struct khttpd_cache_entry *e)
{
	unsigned int slot;
	struct file *file;
	int err;

	file = khttpd_open_read(&opath->f_path, O_RDONLY | O_LARGEFILE);
	if (IS_ERR(file))
		return PTR_ERR(file);
	khttpd_count(&khttpd_stats.fills);
	err = khttpd_read_whole(file, e->body, e->body_len);
	fput(file);
	for (slot = 0; !err && slot < HTTP_PRECOMPRESSED_COUNT; slot++) {
		if (!e->sib[slot])
			continue;
		/* Made unreadable since it was seen: the file streams. */
		file = khttpd_open_read(&sibs[slot]->f_path,
					O_RDONLY | O_LARGEFILE);
		if (IS_ERR(file))
			return -EIO;
		err = khttpd_read_whole(file, e->sib[slot],
					e->valid.sib[slot].id.size);
		fput(file);
	}
	return err;
}

/*
 * Looks at the precompressed siblings beside a compressible file (key,
 * key_len bytes from '/'; st what it is) for its validator, keeping the
 * usable ones (O_PATH) in sibs[] for a fill to read.
 */
static void khttpd_siblings_seen(struct khttpd_exchange *x, const char *key,
				 size_t key_len, const struct kstat *st,
				 struct khttpd_validator *v,
				 struct file *sibs[])
{
	size_t cap = key_len + HTTP_PRECOMPRESSED_SUFFIX_MAX + 1;
	char *path = kmalloc(cap, GFP_KERNEL);
	struct http_object file, sib;
	struct kstat sst;
	unsigned int slot;

	khttpd_object_of(st, &file);
	for (slot = 0; path && slot < HTTP_PRECOMPRESSED_COUNT; slot++) {
		bool usable;

		if (http_serve_open_sibling(&x->srv->site, &khttpd_sibling_ops,
					    x, key, key_len, slot, path, cap,
					    &sib))
			continue;
		if (khttpd_getattr(sib.handle, &sst)) {
			fput(sib.handle);
			continue;
		}
		/* Judged by the size its body is read at. */
		sib.size = sst.size;
		usable = http_sibling_usable(&sib, &file);
		khttpd_validator_sibling(v, slot, &sst, usable);
		if (usable)
			sibs[slot] = sib.handle;
		else
			fput(sib.handle);
	}
	kfree(path);
}

/*
 * The cache's entry for the small file opath (key, its path), with its
 * usable precompressed siblings, filled once however many ask at once;
 * NULL when the cache cannot take it, or an ERR_PTR: -EIO when it or a
 * sibling shrank under us (nothing was sent yet).
 */
static struct khttpd_cache_entry *
khttpd_file_entry(struct khttpd_exchange *x, const struct file *opath,
		  const struct kstat *st, const char *key, size_t key_len)
{
	struct file *sibs[HTTP_PRECOMPRESSED_COUNT] = { NULL };
	const char *type = khttpd_mime_map_type(x->srv->mime, key, key_len);
	struct khttpd_cache_entry *e = NULL;
	struct khttpd_validator v;
	unsigned int slot;
	int err;

	khttpd_validator_from_stat(&v, st, x->root_turn);
	/* What streams anyway has its siblings looked at then. */
	if (!khttpd_cache_admits(key_len, &v))
		return NULL;
	if (khttpd_compressible(x, type))
		khttpd_siblings_seen(x, key, key_len, st, &v, sibs);
	switch (khttpd_cache_claim(key, key_len, &v, &e)) {
	case KHTTPD_CACHE_NONE:
	case KHTTPD_CACHE_HIT:
		break;
	case KHTTPD_CACHE_FILL:
		e->content_type = type;
		e->last_modified = st->mtime.tv_sec;
		e->compressible = khttpd_compressible(x, type);
		err = khttpd_fill_entry(opath, sibs, e);
		khttpd_cache_filled(e, err);
		if (err) {
			khttpd_cache_put(e);
			e = ERR_PTR(err);
		}
		break;
	}
	for (slot = 0; slot < HTTP_PRECOMPRESSED_COUNT; slot++) {
		if (sibs[slot])
			fput(sibs[slot]);
	}
	return e;
}

struct khttpd_cache_entry *khttpd_error_page(struct khttpd_exchange *x,
					     int status)
{
	const struct khttpd_server *srv = x->srv;
	const char *page = http_site_error_page(&srv->site, status);
	struct khttpd_cache_entry *e = NULL;
	bool judged, hidden = false;
	struct file *f;
	struct kstat st;

	if (!page)
		return NULL;
	if (x->inline_only) {
		x->deferred = true;
		return ERR_PTR(-EAGAIN);
	}
	judged = !srv->site.dotfiles && !http_path_hidden(page, strlen(page));
	f = khttpd_open_beneath(srv, page, O_PATH, judged ? &hidden : NULL,
				&x->root_turn);
	if (IS_ERR(f))
		return NULL;
	if (!hidden && !khttpd_getattr(f, &st) && S_ISREG(st.mode))
		e = khttpd_file_entry(x, f, &st, page, strlen(page));
	fput(f);
	return IS_ERR(e) ? NULL : e;
}

/* An error status, with the operator's page for it when there is one. */
static int khttpd_serve_error(struct khttpd_exchange *x, int status)
{
	struct khttpd_cache_entry *e = khttpd_error_page(x, status);
	int ret;

	if (IS_ERR(e))
		return 0; /* deferred */
	if (!e)
		return khttpd_respond_status(x, status);
	ret = khttpd_respond_page(x, status, e);
	khttpd_cache_put(e);
	return ret;
}

/*
 * Streams a file the cache cannot take (key, key_len bytes from '/'), or
 * the precompressed sibling of a compressible one that the request takes
 * instead.
 */
static int khttpd_stream(struct khttpd_exchange *x, const struct file *opath,
			 const struct kstat *st, const char *key,
			 size_t key_len, const char *type)
{
	size_t cap = key_len + HTTP_PRECOMPRESSED_SUFFIX_MAX + 1;
	enum http_coding coding = HTTP_CODING_IDENTITY;
	struct http_object file, sib;
	struct kstat sst;
	char *path;
	int ret;

	if (khttpd_compressible(x, type)) {
		path = kmalloc(cap, GFP_KERNEL);
		if (!path)
			return khttpd_serve_error(x, 503);
		khttpd_object_of(st, &file);
		coding = http_serve_sibling(&x->srv->site, x->buf, x->req, key,
					    key_len, &file, &khttpd_sibling_ops,
					    x, path, cap, &sib);
		kfree(path);
	}
	if (coding == HTTP_CODING_IDENTITY)
		return khttpd_stream_file(x, opath, st, type, coding);
	if (khttpd_getattr(sib.handle, &sst))
		ret = khttpd_serve_error(x, 500);
	else
		ret = khttpd_stream_file(x, sib.handle, &sst, type, coding);
	fput(sib.handle);
	return ret;
}

/*
 * Small files are answered from the cache; a file the cache cannot take
 * streams as it is, never read whole or compressed (as sehttpd does), or
 * as a precompressed sibling.
 */
static int khttpd_serve_file(struct khttpd_exchange *x,
			     const struct file *opath, const struct kstat *st,
			     const char *key, size_t key_len)
{
	const char *type = khttpd_mime_map_type(x->srv->mime, key, key_len);
	struct khttpd_cache_entry *e =
		khttpd_file_entry(x, opath, st, key, key_len);
	struct kstat now;
	int ret;

	if (!e)
		return khttpd_stream(x, opath, st, key, key_len, type);
	if (IS_ERR(e)) {
		if (PTR_ERR(e) != -EIO)
			return khttpd_serve_error(
				x, http_status_for_errno(-PTR_ERR(e)));
		/* Shrank under us: it goes out as it is now, as the waiters
		 * for this fill send it. */
		if (khttpd_getattr(opath, &now) || !S_ISREG(now.mode))
			return -EIO;
		return khttpd_stream(x, opath, &now, key, key_len, type);
	}
	ret = khttpd_respond_entry(x, e);
	khttpd_cache_put(e);
	return ret;
}

/* Carries out the plan for what it opened, and closes that. */
static int khttpd_serve_object(struct khttpd_exchange *x,
			       const struct http_serve_plan *p)
{
	struct file *f = p->obj.handle;
	struct kstat st;
	int ret;

	if (khttpd_getattr(f, &st))
		ret = khttpd_serve_error(x, 500);
	else if (p->action == HTTP_SERVE_LISTING)
		ret = khttpd_serve_listing(x, f, &st, x->path, p->path_len);
	else
		ret = khttpd_serve_file(x, f, &st, p->file, p->file_len);
	fput(f);
	return ret;
}

/* A cache entry found valid within the second: answered, then dropped. */
static int khttpd_serve_entry(struct khttpd_exchange *x,
			      struct khttpd_cache_entry *e)
{
	int ret = khttpd_respond_entry(x, e);

	khttpd_cache_put(e);
	return ret;
}

HTTP_SERVE_ANSWERS(khttpd_answers, struct khttpd_exchange, khttpd_serve_error,
		   khttpd_respond_options, khttpd_respond_redirect,
		   khttpd_serve_entry, khttpd_serve_object);

int khttpd_serve(struct khttpd_exchange *x)
{
	struct http_serve_plan p;

	http_serve(&x->srv->site, x->buf, x->req, x->path, &khttpd_plan_ops, x,
		   &p);
	x->path_len = p.path_len;
	if (x->deferred) {
		/* Opens were refused: at most a cache hit is held. */
		if (p.action == HTTP_SERVE_ENTRY)
			khttpd_cache_put(p.entry);
		else if (p.action == HTTP_SERVE_FILE ||
			 p.action == HTTP_SERVE_LISTING ||
			 p.action == HTTP_SERVE_SPA)
			khttpd_plan_close(x, &p.obj);
		return 0;
	}
	return http_serve_answer(&p, x->path, &khttpd_answers, x);
}
