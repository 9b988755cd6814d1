// SPDX-License-Identifier: GPL-2.0
/*
 * Path confinement.  The request path is already decoded and free of dot
 * segments (http_route), so only symlinks could lead out of the root.  The
 * lookup is file_open_root() with the root directory as the walk's preset
 * root: ".." never climbs above it and an absolute symlink restarts from it,
 * like a chroot (the in-kernel LOOKUP_BENEATH needs vfs_path_lookup(), which
 * this kernel does not declare to modules).  The object found is then
 * checked with path_is_under(), which also catches a directory renamed out
 * of the root while the walk was inside it.  Objects are first opened as
 * O_PATH, so that nothing but a regular file or directory is ever really
 * opened (a FIFO would block, a device could have side effects).
 */
#include "files.h"

#include <linux/cred.h>
#include <linux/err.h>
#include <linux/file.h>
#include <linux/mm.h>
#include <linux/namei.h>
#include <linux/slab.h>

#include "cache.h"
#include "conn.h"
#include "dirlist.h"
#include "http/mime.h"
#include "http/response.h"
#include "http/select.h"
#include "net.h"

#define INDEX_FILE "index.html"

struct file *khttpd_open_beneath(const struct khttpd_server *srv,
				 const char *path, int flags)
{
	const char *rel = path[1] ? path + 1 : ".";
	struct file *f;

	f = file_open_root(&srv->root, rel, flags | O_LARGEFILE, 0);
	if (IS_ERR(f))
		return f;
	if (!path_is_under(&f->f_path, &srv->root)) {
		fput(f);
		return ERR_PTR(-EXDEV);
	}
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

/* Files too large to cache: sent as they are, in pieces. */
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
	struct file *file = NULL;
	size_t hlen;
	loff_t pos, end;
	int ret;

	r.etag_len = http_format_etag(
		etag, st->ino, st->size,
		http_etag_time(st->mtime.tv_sec, st->mtime.tv_nsec), "");
	http_select(x->buf, x->req, &r, &sel);
	khttpd_respond_head_init(x, &h, sel.status);
	h.content_type = type;
	h.extra = extra;
	h.extra_len =
		http_select_headers(extra, sizeof(extra), &r, &sel, x->now);
	if (http_selection_bodyless(&sel))
		return khttpd_respond_bodyless(x, &h);
	pos = sel.first;
	end = sel.first + sel.len;
	h.content_length = sel.len;
	if (!x->head_only && end > pos) {
		file = khttpd_open_read(&opath->f_path, O_RDONLY | O_LARGEFILE);
		if (IS_ERR(file))
			return khttpd_respond_status(
				x, http_status_for_errno(-PTR_ERR(file)));
	}
	hlen = http_response_head_build(c->head, sizeof(c->head), &h);
	ret = hlen ? khttpd_out_copy(&c->out, c->head, hlen) : -EOVERFLOW;
	/* The body is read as the socket drains (net.c). */
	if (file && !ret)
		return khttpd_out_file(&c->out, file, pos, end);
	if (file)
		fput(file);
	return ret;
}

/* Reads a small file whole into a new cache entry. */
static struct khttpd_cache_entry *load_file(const struct file *opath,
					    const struct kstat *st,
					    const char *key, size_t key_len)
{
	struct khttpd_cache_entry *e;
	struct file *file;
	loff_t pos = 0;
	int err = 0;

	file = khttpd_open_read(&opath->f_path, O_RDONLY | O_LARGEFILE);
	if (IS_ERR(file))
		return ERR_CAST(file);
	e = khttpd_cache_alloc(key, key_len, st->size);
	if (!e) {
		fput(file);
		return ERR_PTR(-ENOMEM);
	}
	while (pos < st->size) {
		ssize_t n =
			kernel_read(file, e->body + pos, st->size - pos, &pos);

		if (n <= 0) {
			err = n ? n : -EIO; /* shrank since the stat */
			break;
		}
	}
	fput(file);
	if (err) {
		khttpd_cache_put(e);
		return ERR_PTR(err);
	}
	return e;
}

static int serve_file(struct khttpd_exchange *x, const struct file *opath,
		      const struct kstat *st, const char *key, size_t key_len)
{
	const char *type = http_mime_type(key, key_len);
	struct khttpd_validator v;
	struct khttpd_cache_entry *e;
	int ret;

	khttpd_validator_from_stat(&v, st);
	e = khttpd_cache_get(key, key_len, &v);
	if (!e) {
		if (st->size > KHTTPD_CACHE_ENTRY_MAX)
			return stream_file(x, opath, st, type);
		e = load_file(opath, st, key, key_len);
		if (IS_ERR(e)) {
			/* A file that changed under us: nothing was sent. */
			if (PTR_ERR(e) == -EIO)
				return -EIO;
			return khttpd_respond_status(
				x, http_status_for_errno(-PTR_ERR(e)));
		}
		e->valid = v;
		e->content_type = type;
		e->last_modified = st->mtime.tv_sec;
		khttpd_cache_compress(e);
		khttpd_cache_insert(e);
	}
	ret = khttpd_respond_entry(x, e);
	khttpd_cache_put(e);
	return ret;
}

static int serve_dir(struct khttpd_exchange *x, const struct file *dir,
		     const struct kstat *st, char *path, size_t len)
{
	struct khttpd_server *srv = x->conn->srv;
	size_t ilen = len + sizeof(INDEX_FILE) - 1;
	struct file *index;
	struct kstat ist;
	int ret;

	if (path[len - 1] != '/')
		return khttpd_respond_redirect(x, path, len);
	if (ilen < KHTTPD_PATH_BUF) {
		memcpy(path + len, INDEX_FILE, sizeof(INDEX_FILE));
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

/* The entry for path, or for its index.html, checked within the second. */
static struct khttpd_cache_entry *recent_entry(char *path, size_t len)
{
	struct khttpd_cache_entry *e = khttpd_cache_get_recent(path, len);
	size_t ilen = len + sizeof(INDEX_FILE) - 1;

	if (e || path[len - 1] != '/' || ilen >= KHTTPD_PATH_BUF)
		return e;
	memcpy(path + len, INDEX_FILE, sizeof(INDEX_FILE));
	e = khttpd_cache_get_recent(path, ilen);
	path[len] = '\0';
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
	/* A body cached under this path and checked within the second is
	 * served without a walk through the file system (as sehttpd does). */
	e = recent_entry(path, len);
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
