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
#include "listing.h"
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

/* Files the cache cannot take: sent as they are, from the page cache. */
static int khttpd_stream_file(struct khttpd_exchange *x,
			      const struct file *opath, const struct kstat *st,
			      const char *type)
{
	char etag[HTTP_ETAG_MAX], extra[HTTP_SELECT_HEADERS_MAX];
	struct http_representation r = {
		.etag = etag,
		.last_modified = st->mtime.tv_sec,
		.size = st->size,
		.ranges = true,
		/* Smaller files of its type are compressed: it varies too. */
		.varies = http_mime_compressible(type),
	};
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
	r.etag_len = http_format_etag(
		etag, st->ino, st->size,
		http_etag_time(st->mtime.tv_sec, st->mtime.tv_nsec), "");
	http_select(x->buf, x->req, &r, &sel);
	khttpd_respond_head_init(x, &h, sel.status);
	h.content_type = type;
	h.extra = extra;
	h.extra_len =
		http_select_headers(extra, sizeof(extra), &r, &sel, x->now);
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

/* Reads a small file whole into the entry claimed for it. */
static int khttpd_fill_entry(const struct file *opath,
			     struct khttpd_cache_entry *e)
{
	struct file *file;
	loff_t pos = 0;
	int err = 0;

	file = khttpd_open_read(&opath->f_path, O_RDONLY | O_LARGEFILE);
	if (IS_ERR(file))
		return PTR_ERR(file);
	khttpd_count(&khttpd_stats.fills);
	while (pos < e->body_len) {
		ssize_t n = kernel_read(file, e->body + pos, e->body_len - pos,
					&pos);

		if (n <= 0) {
			err = n ? n : -EIO; /* shrank since the stat */
			break;
		}
	}
	fput(file);
	return err;
}

/*
 * The cache's entry for the small file opath (key, its path), filled once
 * however many ask at once; NULL when the cache cannot take it, or an
 * ERR_PTR: -EIO when it shrank under us (nothing was sent yet).
 */
static struct khttpd_cache_entry *khttpd_file_entry(const struct file *opath,
						    const struct kstat *st,
						    const char *key,
						    size_t key_len)
{
	struct khttpd_validator v;
	struct khttpd_cache_entry *e;
	int err;

	khttpd_validator_from_stat(&v, st);
	switch (khttpd_cache_claim(key, key_len, &v, st->size, &e)) {
	case KHTTPD_CACHE_NONE:
		return NULL;
	case KHTTPD_CACHE_FILL:
		e->content_type = http_mime_type(key, key_len);
		e->last_modified = st->mtime.tv_sec;
		khttpd_cache_compress(e);
		err = khttpd_fill_entry(opath, e);
		khttpd_cache_filled(e, err);
		if (err) {
			khttpd_cache_put(e);
			return ERR_PTR(err);
		}
		break;
	case KHTTPD_CACHE_HIT:
		break;
	}
	return e;
}

/*
 * An error status, with the operator's page for it (error_pages=) when it
 * is a file the cache holds, else the built-in page.
 */
static int khttpd_serve_error(struct khttpd_exchange *x, int status)
{
	const struct khttpd_server *srv = x->srv;
	const char *page = http_site_error_page(&srv->site, status);
	struct khttpd_cache_entry *e = NULL;
	struct file *f;
	struct kstat st;
	int ret;

	if (!page)
		return khttpd_respond_status(x, status);
	f = khttpd_open_beneath(srv, page, O_PATH);
	if (IS_ERR(f))
		return khttpd_respond_status(x, status);
	if (!khttpd_getattr(f, &st) && S_ISREG(st.mode))
		e = khttpd_file_entry(f, &st, page, strlen(page));
	fput(f);
	if (IS_ERR_OR_NULL(e))
		return khttpd_respond_status(x, status);
	ret = khttpd_respond_page(x, status, e);
	khttpd_cache_put(e);
	return ret;
}

/*
 * Small files are answered from the cache; a file the cache cannot take
 * streams as it is, never read whole or compressed (as sehttpd does).
 */
static int khttpd_serve_file(struct khttpd_exchange *x,
			     const struct file *opath, const struct kstat *st,
			     const char *key, size_t key_len)
{
	const char *type = http_mime_type(key, key_len);
	struct khttpd_cache_entry *e =
		khttpd_file_entry(opath, st, key, key_len);
	struct kstat now;
	int ret;

	if (!e)
		return khttpd_stream_file(x, opath, st, type);
	if (IS_ERR(e)) {
		if (PTR_ERR(e) != -EIO)
			return khttpd_serve_error(
				x, http_status_for_errno(-PTR_ERR(e)));
		/* Shrank under us: it goes out as it is now, as the waiters
		 * for this fill send it. */
		if (khttpd_getattr(opath, &now) || !S_ISREG(now.mode))
			return -EIO;
		return khttpd_stream_file(x, opath, &now, type);
	}
	ret = khttpd_respond_entry(x, e);
	khttpd_cache_put(e);
	return ret;
}

/*
 * The cached answer for path found valid within the second: for a
 * directory, its listing in the order the query asks for, else its first
 * cached index name.  The keys are built in place in the path buffer
 * (HTTP_SERVE_PATH_BUF bytes).
 */
static void *khttpd_plan_cache_probe(void *ctx, char *path, size_t len)
{
	const struct khttpd_exchange *x = ctx;
	const struct http_site *site = &x->srv->site;
	struct khttpd_cache_entry *e;
	size_t klen;
	unsigned int i;

	if (path[len - 1] != '/')
		return khttpd_cache_get_recent(path, len);
	klen = http_listing_cache_key(path, path, len,
				      http_listing_order_of(x->buf, x->req));
	e = khttpd_cache_get_recent(path, klen);
	for (i = 0; !e && i < site->nindex; i++) {
		klen = len + strlen(site->index[i]);
		if (klen >= HTTP_SERVE_PATH_BUF)
			break;
		memcpy(path + len, site->index[i], klen - len + 1);
		e = khttpd_cache_get_recent(path, klen);
	}
	path[len] = '\0';
	return e;
}

static int khttpd_plan_open(void *ctx, const char *path,
			    struct http_object *obj)
{
	const struct khttpd_exchange *x = ctx;
	const struct khttpd_server *srv = x->srv;
	struct file *f = khttpd_open_beneath(srv, path, O_PATH);
	struct kstat st;

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
	obj->hidden = !srv->site.dotfiles &&
		      khttpd_beneath_hidden(srv, &f->f_path);
	obj->mtime_sec = st.mtime.tv_sec;
	obj->mtime_nsec = st.mtime.tv_nsec;
	return 0;
}

static void khttpd_plan_close(void *ctx, struct http_object *obj)
{
	fput(obj->handle);
}

static const struct http_serve_ops khttpd_plan_ops = {
	.open = khttpd_plan_open,
	.close = khttpd_plan_close,
	.cache_probe = khttpd_plan_cache_probe,
};

/* Carries out the plan for what it opened. */
static int khttpd_serve_object(struct khttpd_exchange *x,
			       const struct http_serve_plan *p, char *path)
{
	struct file *f = p->obj.handle;
	struct kstat st;

	if (khttpd_getattr(f, &st))
		return khttpd_serve_error(x, 500);
	if (p->action == HTTP_SERVE_LISTING)
		return khttpd_serve_listing(x, f, &st, path, p->path_len);
	return khttpd_serve_file(x, f, &st, p->file, p->file_len);
}

int khttpd_serve(struct khttpd_exchange *x)
{
	struct http_serve_plan p;
	int ret;

	http_serve(&x->srv->site, x->buf, x->req, x->path, &khttpd_plan_ops, x,
		   &p);
	switch (p.action) {
	case HTTP_SERVE_STATUS:
		return khttpd_serve_error(x, p.status);
	case HTTP_SERVE_OPTIONS:
		return khttpd_respond_options(x);
	case HTTP_SERVE_REDIRECT:
		return khttpd_respond_redirect(x, x->path, p.path_len);
	case HTTP_SERVE_ENTRY:
		ret = khttpd_respond_entry(x, p.entry);
		khttpd_cache_put(p.entry);
		return ret;
	default:
		break;
	}
	ret = khttpd_serve_object(x, &p, x->path);
	fput(p.obj.handle);
	return ret;
}
