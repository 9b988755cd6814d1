// SPDX-License-Identifier: GPL-2.0
/*
 * Path confinement.  The request path is already decoded and free of dot
 * segments (http_route), so only symlinks could lead out of the root.  The
 * lookup starts at the root with LOOKUP_BENEATH, as sehttpd's openat2()
 * with RESOLVE_BENEATH: a symlink whose target climbs above the root, and
 * every absolute symlink (even one naming a path the root holds), fails
 * with EXDEV, answered 403 as sehttpd answers it; no magic links either.
 * The object found is then checked with path_is_under(), which also
 * catches a directory renamed out of the root while the walk was inside
 * it.  Objects are first opened as O_PATH, so that nothing but a regular
 * file or directory is ever really opened (a FIFO would block, a device
 * could have side effects).
 */
#include "serve.h"

#include <linux/cred.h>
#include <linux/err.h>
#include <linux/file.h>
#include <linux/mm.h>
#include <linux/namei.h>
#include <linux/slab.h>

#include "cache.h"
#include "conn.h"
#include "listing.h"
#include "http/listing.h"
#include "http/mime.h"
#include "http/response.h"
#include "http/select.h"
#include "http/site.h"
#include "outq.h"
#include "stats.h"

/* Scoped lookups that a concurrent rename made fail, before giving up. */
#define LOOKUP_TRIES 8

/*
 * Exported by fs/namei.c (EXPORT_SYMBOL) but declared only in fs/internal.h
 * on 6.1: the one lookup from a given root that takes LOOKUP_ flags.
 */
int vfs_path_lookup(struct dentry *dentry, struct vfsmount *mnt,
		    const char *name, unsigned int flags, struct path *path);

struct file *khttpd_open_beneath(const struct khttpd_server *srv,
				 const char *path, int flags)
{
	const char *rel = path[1] ? path + 1 : ".";
	unsigned int tries = LOOKUP_TRIES;
	struct path found;
	struct file *f;
	int err;

	/* EAGAIN: a rename raced a ".." of a link's target; go again. */
	do {
		err = vfs_path_lookup(srv->root.dentry, srv->root.mnt, rel,
				      LOOKUP_FOLLOW | LOOKUP_BENEATH |
					      LOOKUP_NO_MAGICLINKS,
				      &found);
	} while (err == -EAGAIN && --tries);
	if (err)
		return ERR_PTR(err);
	if (!path_is_under(&found, &srv->root)) {
		path_put(&found);
		return ERR_PTR(-EXDEV);
	}
	f = dentry_open(&found, flags | O_LARGEFILE, current_cred());
	path_put(&found);
	return f;
}

struct file *khttpd_open_read(const struct path *path, int flags)
{
	int err = inode_permission(mnt_user_ns(path->mnt),
				   d_inode(path->dentry), MAY_READ);

	if (err)
		return ERR_PTR(err);
	return dentry_open(path, flags, current_cred());
}

static int getattr(const struct file *f, struct kstat *st)
{
	return vfs_getattr(&f->f_path, st, STATX_BASIC_STATS,
			   AT_STATX_SYNC_AS_STAT);
}

/* Files the cache cannot take: sent as they are, from the page cache. */
static int stream_file(struct khttpd_exchange *x, const struct file *opath,
		       const struct kstat *st, const char *type)
{
	struct khttpd_conn *c = x->conn;
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
	hlen = http_response_head_build(c->head, sizeof(c->head), &h);
	ret = hlen ? khttpd_out_copy(&c->out, c->head, hlen) : -EOVERFLOW;
	/* The body is read as the socket drains (outq.c). */
	if (!x->head_only && end > pos && !ret) {
		khttpd_count(&khttpd_stats.streams);
		return khttpd_out_file(&c->out, file, pos, end);
	}
	fput(file);
	return ret;
}

/* Reads a small file whole into the entry claimed for it. */
static int fill_entry(const struct file *opath, struct khttpd_cache_entry *e)
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
 * Small files are answered from the cache, filled once however many ask at
 * once; a file the cache cannot take streams as it is, never read whole or
 * compressed (as sehttpd does).
 */
static int serve_file(struct khttpd_exchange *x, const struct file *opath,
		      const struct kstat *st, const char *key, size_t key_len)
{
	const char *type = http_mime_type(key, key_len);
	struct khttpd_validator v;
	struct khttpd_cache_entry *e;
	int ret;

	khttpd_validator_from_stat(&v, st);
	switch (khttpd_cache_claim(key, key_len, &v, st->size, &e)) {
	case KHTTPD_CACHE_NONE:
		return stream_file(x, opath, st, type);
	case KHTTPD_CACHE_FILL:
		e->content_type = type;
		e->last_modified = st->mtime.tv_sec;
		khttpd_cache_compress(e);
		ret = fill_entry(opath, e);
		khttpd_cache_filled(e, ret);
		if (!ret)
			break;
		khttpd_cache_put(e);
		/*
		 * A file that shrank under us: nothing was sent yet, so it
		 * goes out as it is now, as the waiters for this fill send it.
		 */
		if (ret == -EIO) {
			struct kstat now;

			if (getattr(opath, &now) || !S_ISREG(now.mode))
				return -EIO;
			return stream_file(x, opath, &now, type);
		}
		return khttpd_respond_status(x, http_status_for_errno(-ret));
	case KHTTPD_CACHE_HIT:
		break;
	}
	ret = khttpd_respond_entry(x, e);
	khttpd_cache_put(e);
	return ret;
}

static int serve_dir(struct khttpd_exchange *x, const struct file *dir,
		     const struct kstat *st, char *path, size_t len)
{
	struct khttpd_server *srv = x->conn->srv;
	struct file *index;
	struct kstat ist;
	size_t i, ilen;
	int ret;

	if (path[len - 1] != '/')
		return khttpd_respond_redirect(x, path, len);
	/* index.html, then index.htm, as sehttpd by default. */
	for (i = 0; i < HTTP_DEFAULT_INDEX_COUNT; i++) {
		ilen = len + strlen(http_default_index[i]);
		if (ilen >= KHTTPD_PATH_BUF)
			continue;
		memcpy(path + len, http_default_index[i], ilen - len + 1);
		index = khttpd_open_beneath(srv, path, O_PATH);
		if (!IS_ERR(index)) {
			if (!getattr(index, &ist) && S_ISREG(ist.mode)) {
				ret = serve_file(x, index, &ist, path, ilen);
				fput(index);
				path[len] = '\0';
				return ret;
			}
			fput(index);
		}
		path[len] = '\0';
	}
	if (!srv->listing)
		return khttpd_respond_status(x, 403);
	return khttpd_serve_listing(x, dir, st, path, len);
}

/*
 * The cached answer for path found valid within the second: for a
 * directory, its listing in the order the query asks for, else its first
 * cached index name.  The keys are built in place in the path buffer.
 */
static struct khttpd_cache_entry *recent_entry(const struct khttpd_exchange *x,
					       char *path, size_t len)
{
	struct khttpd_cache_entry *e;
	size_t i, klen;

	if (path[len - 1] != '/')
		return khttpd_cache_get_recent(path, len);
	if (len + HTTP_LISTING_KEY_EXTRA >= KHTTPD_PATH_BUF)
		return NULL;
	klen = http_listing_cache_key(path, path, len,
				      http_listing_order_of(x->buf, x->req));
	e = khttpd_cache_get_recent(path, klen);
	path[len] = '\0';
	for (i = 0; !e && i < HTTP_DEFAULT_INDEX_COUNT; i++) {
		klen = len + strlen(http_default_index[i]);
		if (klen >= KHTTPD_PATH_BUF)
			break;
		memcpy(path + len, http_default_index[i], klen - len + 1);
		e = khttpd_cache_get_recent(path, klen);
		path[len] = '\0';
	}
	return e;
}

int khttpd_serve(struct khttpd_exchange *x)
{
	struct khttpd_conn *c = x->conn;
	struct khttpd_cache_entry *e;
	char *path = c->path;
	struct kstat st;
	struct file *f;
	int len, ret;

	len = http_route(x->buf, x->req, path);
	if (len < 0)
		return khttpd_respond_status(x, -len);
	if (x->req->method == HTTP_OPTIONS)
		return khttpd_respond_options(x);
	if (!c->srv->dotfiles && http_path_hidden(path, len))
		return khttpd_respond_status(x, 404);
	/* A body cached under this path and checked within the second is
	 * served without a walk through the file system (as sehttpd does). */
	e = recent_entry(x, path, len);
	if (e) {
		ret = khttpd_respond_entry(x, e);
		khttpd_cache_put(e);
		return ret;
	}
	f = khttpd_open_beneath(c->srv, path, O_PATH);
	if (IS_ERR(f))
		return khttpd_respond_status(
			x, http_status_for_errno(-PTR_ERR(f)));
	if (getattr(f, &st))
		ret = khttpd_respond_status(x, 500);
	else if (S_ISDIR(st.mode))
		ret = serve_dir(x, f, &st, path, len);
	else if (!S_ISREG(st.mode))
		ret = khttpd_respond_status(x, 403);
	else if (path[len - 1] == '/')
		ret = khttpd_respond_status(x, 404); /* "/file/": no such dir */
	else
		ret = serve_file(x, f, &st, path, len);
	fput(f);
	return ret;
}
