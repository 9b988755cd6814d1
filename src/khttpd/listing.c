// SPDX-License-Identifier: GPL-2.0
/*
 * Names are collected by iterate_dir() into memory, because sorting needs
 * them all and because nothing may be looked up while the directory is
 * being iterated under its lock.  Then each entry is described (a symlink by
 * its target, but only when that stays beneath the root, as for a request),
 * sorted, and rendered through http_out into one buffer, which becomes a
 * cache entry: served to every request for the directory until it changes
 * or the entry's second is up when the cache can hold it, and leaving in one
 * send, its body never copied.
 *
 * All listings being built share one memory budget (names, entries and
 * pages), so that many requests for large directories at once cannot take
 * more than that together: a build that would exceed it is answered 503.
 * A listing too large for the cache stays charged to it until its entry is
 * freed, once its response is sent or its connection closed: clients that
 * read slowly cannot hold more than the budget between them either, however
 * large the listing (one larger than the budget is a 503).
 */
#include "listing.h"

#include <linux/cred.h>
#include <linux/dcache.h>
#include <linux/err.h>
#include <linux/file.h>
#include <linux/jiffies.h>
#include <linux/mm.h>
#include <linux/namei.h>
#include <linux/slab.h>
#include <linux/sort.h>

#include "alloc.h"
#include "cache.h"
#include "beneath.h"
#include "compat.h"
#include "offload.h"
#include "http/dirents.h"
#include "http/listing.h"
#include "http/out.h"
#include "http/response.h"
#include "http/select.h"
#include "http/site.h"
#include "outq.h"

/* Bounds on what one listing may hold in memory. */
#define LISTING_MAX_ENTRIES (1 << 20)
#define LISTING_MAX_NAMES (64 << 20)
/* The page buffer starts at this size and doubles within the budget. */
#define LISTING_BUF_MIN (16 * 1024)
/* What all listings being built may hold at once: the cache size, and at
 * least this much. */
#define LISTING_BUDGET_MIN (4 << 20)
/* Listings of more entries are built off the connection's worker. */
#define LISTING_INLINE_MAX 256

static size_t khttpd_listing_budget(void)
{
	return max_t(size_t, 2 * khttpd_cache_entry_limit(),
		     LISTING_BUDGET_MIN);
}

/* Listings being built, and those outside the cache being sent. */
static struct khttpd_budget listings = { .limit = khttpd_listing_budget };

static bool khttpd_listing_charge(size_t n)
{
	return khttpd_budget_charge(&listings, n);
}

static void khttpd_listing_uncharge(size_t n)
{
	khttpd_budget_uncharge(&listings, n);
}

struct dir_item {
	struct http_listing_entry e; /* first: sorted as an entry */
	unsigned int d_type;
	bool hidden; /* a link to a hidden name: left out */
};

struct dir_collector {
	struct dir_context ctx;
	struct http_dirents d; /* of struct dir_item */
	int error;
	bool dotfiles;
	const char *path; /* the directory's request path */
	size_t path_len;
};

/* Every allocation of a build goes through here, charged to the budget. */
static void *khttpd_listing_resize(void *p, size_t old_size, size_t new_size)
{
	void *q;

	if (new_size > old_size && !khttpd_listing_charge(new_size - old_size))
		return NULL;
	q = khttpd_kvrealloc_client(p, old_size, new_size);
	if (!q && new_size > old_size)
		khttpd_listing_uncharge(new_size - old_size);
	else if (q && new_size < old_size)
		khttpd_listing_uncharge(old_size - new_size);
	return q;
}

static void khttpd_listing_release(void *p, size_t size)
{
	if (p) {
		kvfree(p);
		khttpd_listing_uncharge(size);
	}
}

static bool khttpd_listing_collect(struct dir_context *ctx, const char *name,
				   int len, loff_t off, u64 ino,
				   unsigned int d_type)
{
	struct dir_collector *dc = container_of(ctx, struct dir_collector, ctx);
	struct dir_item *it;

	if ((len == 1 && name[0] == '.') ||
	    (len == 2 && name[0] == '.' && name[1] == '.'))
		return true;
	if (!dc->dotfiles &&
	    http_entry_hidden(dc->path, dc->path_len, name, len))
		return true;
	it = http_dirents_add(&dc->d, name, len);
	if (!it) {
		dc->error = -ENOMEM;
		return false;
	}
	it->d_type = d_type;
	return true;
}

static int khttpd_listing_read_names(const struct file *dir,
				     struct dir_collector *dc)
{
	struct file *file;
	size_t before;
	int err;

	file = khttpd_open_read(&dir->f_path, O_RDONLY | O_DIRECTORY);
	if (IS_ERR(file))
		return PTR_ERR(file);
	dc->ctx.actor = khttpd_listing_collect;
	/* Like getdents: until a pass adds nothing. */
	do {
		before = dc->d.count;
		err = iterate_dir(file, &dc->ctx);
	} while (!err && !dc->error && dc->d.count != before);
	fput(file);
	if (!err)
		err = dc->error;
	http_dirents_done(&dc->d);
	return err;
}

static void khttpd_listing_fill_stat(struct http_listing_entry *e,
				     const struct kstat *st)
{
	e->is_dir = S_ISDIR(st->mode);
	e->has_stat = true;
	e->size = st->size;
	e->mtime = st->mtime.tv_sec;
}

/* A symlink, followed as a request would follow it. */
static void khttpd_listing_describe_link(const struct khttpd_server *srv,
					 const char *dir, size_t dir_len,
					 struct dir_item *it)
{
	struct http_listing_entry *e = &it->e;
	bool hidden = false;
	struct kstat st;
	struct file *f;
	char *path;

	e->is_link = true; /* whatever it leads to, or if nothing */
	path = kmalloc(dir_len + e->name_len + 1, GFP_KERNEL);
	if (!path)
		return;
	memcpy(path, dir, dir_len);
	memcpy(path + dir_len, e->name, e->name_len + 1);
	f = khttpd_open_beneath(srv, path, O_PATH,
				srv->site.dotfiles ? NULL : &hidden, NULL);
	kfree(path);
	if (IS_ERR(f))
		return;
	/* "innocent -> .git/config" is not listed, as .git is not. */
	if (hidden)
		it->hidden = true;
	else if (!vfs_getattr(&f->f_path, &st, STATX_BASIC_STATS,
			      AT_STATX_SYNC_AS_STAT))
		khttpd_listing_fill_stat(e, &st);
	fput(f);
}

static void khttpd_listing_describe(const struct khttpd_server *srv,
				    const struct file *dir, const char *path,
				    size_t len, struct dir_item *it)
{
	struct http_listing_entry *e = &it->e;
	struct dentry *d;
	struct kstat st;
	int err;

	if (it->d_type == DT_LNK) {
		khttpd_listing_describe_link(srv, path, len, it);
		return;
	}
	d = lookup_one_len_unlocked(e->name, dir->f_path.dentry, e->name_len);
	if (IS_ERR(d))
		return;
	if (d_really_is_positive(d)) {
		struct path p = { .mnt = dir->f_path.mnt, .dentry = d };

		err = vfs_getattr(&p, &st, STATX_BASIC_STATS,
				  AT_STATX_SYNC_AS_STAT);
		if (!err && S_ISLNK(st.mode))
			khttpd_listing_describe_link(srv, path, len, it);
		else if (!err)
			khttpd_listing_fill_stat(e, &st);
	}
	dput(d);
}

/* The page grows by doubling, each step charged to the budget. */
static int khttpd_listing_flush(struct http_out *out)
{
	size_t cap = 2 * out->cap;
	char *buf = khttpd_listing_resize(out->buf, out->cap, cap);

	if (!buf)
		return -1;
	out->buf = buf;
	out->cap = cap;
	return 0;
}

/*
 * Renders the page into one buffer, charged to the budget, which becomes
 * the listing's entry: cached when the cache can hold it, else charged
 * until the response is sent.  Beyond the budget, a 503.
 */
static int khttpd_listing_render(struct khttpd_exchange *x,
				 struct dir_collector *dc,
				 const struct khttpd_validator *v,
				 const char *path, size_t len,
				 struct http_listing_order order,
				 enum http_listing_format form, const char *key,
				 size_t key_len)
{
	struct khttpd_cache_entry *e;
	struct http_out out = {
		.cap = LISTING_BUF_MIN,
		.flush = khttpd_listing_flush,
	};
	size_t i;
	int ret;

	out.buf = khttpd_listing_resize(NULL, 0, out.cap);
	if (!out.buf)
		return khttpd_respond_status(x, 503);
	http_listing_write_begin(&out, form, path, len, order);
	for (i = 0; i < dc->d.count; i++) {
		http_listing_write_entry(&out, form,
					 http_dirents_entry(&dc->d, i), i);
		cond_resched();
	}
	http_listing_write_end(&out, form);
	e = out.error ? NULL :
			khttpd_cache_alloc_with(key, key_len, out.buf, out.len,
						out.cap);
	if (!e) {
		khttpd_listing_release(out.buf, out.cap);
		return khttpd_respond_status(x, 503);
	}
	e->budget = &listings;
	e->charged = out.cap;
	e->valid = *v;
	e->listing = true;
	e->expires = jiffies + KHTTPD_CACHE_LISTING_TTL;
	e->content_type = http_listing_content_type(form);
	e->last_modified = HTTP_NO_TIME;
	/* Deflating megabytes each second would cost more than it saves. */
	e->compressible = x->srv->compress && out.len <= KHTTPD_CACHE_ENTRY_MAX;
	khttpd_cache_insert(e);
	ret = khttpd_respond_entry(x, e);
	khttpd_cache_put(e);
	return ret;
}

/*
 * A listing has no validators, so only "*" preconditions can apply; decided
 * before it is built, also for one too large to cache.  Returns 1 when the
 * listing is to be sent, else what answering without it returned.
 */
static int khttpd_listing_answer_preconditions(struct khttpd_exchange *x)
{
	const struct http_representation r = {
		.last_modified = HTTP_NO_TIME,
		/* As every listing (khttpd_respond_select_for()). */
		.varies = true,
		.varies_by_type = true,
	};
	char extra[HTTP_SELECT_HEADERS_MAX];
	struct http_response_head h;
	struct http_selection sel;

	http_select(x->buf, x->req, &r, x->now, &sel);
	if (!http_selection_bodyless(&sel))
		return 1;
	khttpd_respond_head_init(x, &h, sel.status);
	h.extra = extra;
	h.extra_len =
		http_select_headers(extra, sizeof(extra), &r, &sel, x->now);
	return khttpd_respond_bodyless(x, &h);
}

/* What is left of a listing's build once its names are read. */
struct listing_build {
	struct khttpd_exchange *x;
	struct dir_collector *dc;
	const struct file *dir;
	const struct khttpd_validator *v;
	const char *path;
	size_t len;
	struct http_listing_order order;
	enum http_listing_format form;
	const char *key;
	size_t key_len;
	int ret;
};

/* Describes, sorts and renders the names: on the unbound queue if many. */
static void khttpd_listing_build(void *arg)
{
	struct listing_build *b = arg;
	struct dir_collector *dc = b->dc;
	size_t i, kept;

	for (i = 0, kept = 0; i < dc->d.count; i++) {
		struct dir_item *it =
			(struct dir_item *)http_dirents_entry(&dc->d, i);

		khttpd_listing_describe(b->x->srv, b->dir, b->path, b->len, it);
		cond_resched();
		if (it->hidden)
			continue;
		if (kept != i)
			memcpy(http_dirents_entry(&dc->d, kept), it,
			       dc->d.item_size);
		kept++;
	}
	dc->d.count = kept;
	sort(dc->d.items, dc->d.count, dc->d.item_size,
	     http_listing_comparator(b->order), NULL);
	cond_resched();
	b->ret = khttpd_listing_render(b->x, dc, b->v, b->path, b->len,
				       b->order, b->form, b->key, b->key_len);
}

int khttpd_serve_listing(struct khttpd_exchange *x, const struct file *dir,
			 const struct kstat *st, const char *path, size_t len)
{
	struct http_listing_order order = http_listing_order_of(x->buf, x->req);
	enum http_listing_format form = http_listing_format_of(x->buf, x->req);
	struct dir_collector dc = {};
	struct khttpd_cache_entry *e;
	struct khttpd_validator v;
	const char *key = path;
	char *key_buf = NULL;
	size_t key_len = len;
	int ret;

	/* Each order and form is cached apart, under a key of its own. */
	if (!http_listing_order_is_default(order) ||
	    form != HTTP_LISTING_HTML) {
		key_buf = kmalloc(len + HTTP_LISTING_KEY_EXTRA, GFP_KERNEL);
		if (!key_buf)
			return khttpd_respond_status(x, 503);
		key_len =
			http_listing_cache_key(key_buf, path, len, order, form);
		key = key_buf;
	}
	http_dirents_init(&dc.d, sizeof(struct dir_item),
			  khttpd_listing_resize);
	dc.d.max_count = LISTING_MAX_ENTRIES;
	dc.d.max_names = LISTING_MAX_NAMES;
	dc.dotfiles = x->srv->site.dotfiles;
	dc.path = path;
	dc.path_len = len;
	khttpd_validator_from_stat(&v, st, x->root_turn);
	e = khttpd_cache_get(key, key_len, &v);
	if (e) {
		ret = khttpd_respond_entry(x, e);
		khttpd_cache_put(e);
		goto out;
	}
	ret = khttpd_listing_answer_preconditions(x);
	if (ret != 1)
		goto out;
	ret = khttpd_listing_read_names(dir, &dc);
	if (ret) {
		ret = khttpd_respond_status(x, http_status_for_errno(-ret));
		goto out;
	}
	{
		struct listing_build b = {
			.x = x,
			.dc = &dc,
			.dir = dir,
			.v = &v,
			.path = path,
			.len = len,
			.order = order,
			.form = form,
			.key = key,
			.key_len = key_len,
		};

		if (dc.d.count <= LISTING_INLINE_MAX)
			khttpd_listing_build(&b);
		else
			khttpd_offload(khttpd_listing_build, &b);
		ret = b.ret;
	}
out:
	khttpd_listing_release(dc.d.items, dc.d.cap * dc.d.item_size);
	khttpd_listing_release(dc.d.names, dc.d.names_cap);
	kfree(key_buf);
	return ret;
}
