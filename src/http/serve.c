// SPDX-License-Identifier: MIT
#include "serve.h"

#include "host.h"
#include "path.h"
#include "response.h"
#include "token.h"
#include "site.h"

const char *http_site_error_page(const struct http_site *site, int status)
{
	for (unsigned int i = site->nerror_pages; i-- > 0;) {
		if (site->error_pages[i].status == status)
			return site->error_pages[i].path;
	}
	return NULL;
}

bool http_site_index_name_ok(const char *name)
{
	size_t len = strlen(name);

	return len && len <= HTTP_INDEX_NAME_MAX && !strchr(name, '/') &&
	       strcmp(name, ".") && strcmp(name, "..");
}

bool http_site_page_path_ok(const char *path)
{
	size_t len = strlen(path);

	return path[0] == '/' && len >= 2 && path[len - 1] != '/' &&
	       len < HTTP_PATH_MAX && !strstr(path, "/../") &&
	       !strstr(path, "/./") && !strstr(path, "//") &&
	       !(len >= 3 && !strcmp(path + len - 3, "/..")) &&
	       !(len >= 2 && !strcmp(path + len - 2, "/."));
}

int http_site_split_error_page(const char *arg, int *status, const char **path)
{
	if (strlen(arg) < 5 || arg[3] != '=' || arg[0] < '4' || arg[0] > '5' ||
	    arg[1] < '0' || arg[1] > '9' || arg[2] < '0' || arg[2] > '9')
		return -1;
	*status = (arg[0] - '0') * 100 + (arg[1] - '0') * 10 + (arg[2] - '0');
	*path = arg + 4;
	return 0;
}

static bool scheme_valid(const char *s, size_t n)
{
	if (!n || !http_is_alpha(s[0]))
		return false;
	for (size_t i = 1; i < n; i++) {
		if (!http_is_alpha(s[i]) && !http_is_digit(s[i]) &&
		    !strchr("+-.", s[i]))
			return false;
	}
	return true;
}

enum http_origin_check http_site_cors_origin_check(const char *origin)
{
	const char *sep = strstr(origin, "://");
	const char *host = sep ? sep + 3 : "";
	size_t host_len = strlen(host);

	if (!strcmp(origin, "*"))
		return HTTP_ORIGIN_OK;
	for (const char *p = origin; *p; p++) {
		unsigned char c = (unsigned char)*p;

		if (c <= ' ' || c >= 0x7f)
			return HTTP_ORIGIN_BAD_BYTES;
	}
	if (strlen(origin) > HTTP_ORIGIN_MAX)
		return HTTP_ORIGIN_TOO_LONG;
	/*
	 * An origin is scheme://host[:port], which browsers compare as
	 * strings: a path, trailing slash, query, fragment or user@ would
	 * never match.  host[:port] is a Host header's (no '/', '?', '#',
	 * '@'), without an empty port.
	 */
	if (!sep || !scheme_valid(origin, (size_t)(sep - origin)) ||
	    !host_len || host[host_len - 1] == ':' ||
	    !http_host_valid(host, host_len))
		return HTTP_ORIGIN_BAD_FORM;
	return HTTP_ORIGIN_OK;
}

static void plan_status(struct http_serve_plan *plan, int status)
{
	plan->action = HTTP_SERVE_STATUS;
	plan->status = status;
}

/* Whether obj, opened, may not be served to this request. */
static bool object_kept_back(const struct http_site *site,
			     const struct http_object *obj)
{
	return obj->withheld || (obj->hidden && !site->dotfiles);
}

/*
 * Opens path for serving: an object reached through a link to a hidden
 * name (unless dotfiles are on) or into a guarded place is not there.
 */
static int open_visible(const struct http_site *site,
			const struct http_serve_ops *ops, void *ctx,
			const char *path, struct http_object *obj)
{
	int err = ops->open(ctx, path, obj);

	if (err)
		return err;
	if (object_kept_back(site, obj)) {
		ops->close(ctx, obj);
		return -ENOENT;
	}
	return 0;
}

/*
 * Opens the first index name that is a regular file in the directory
 * path[0, len) (with its '/'), joined in place: sets *n to its length, or
 * to 0 when there is none.  Returns 0, or the status to answer instead:
 * an index that is there but cannot be served (unreadable, a link out of
 * ROOT, to a hidden name or into a guarded place) stands for the
 * directory, as nginx answers, rather than letting its listing show what
 * the index was written to hide.
 */
static int open_index(const struct http_site *site,
		      const struct http_serve_ops *ops, void *ctx, char *path,
		      size_t len, struct http_object *obj, size_t *n)
{
	*n = 0;
	for (unsigned int i = 0; i < site->nindex; i++) {
		size_t name_len = strlen(site->index[i]);
		int err, status;

		if (len + name_len >= HTTP_SERVE_PATH_BUF)
			continue;
		memcpy(path + len, site->index[i], name_len + 1);
		err = ops->open(ctx, path, obj);
		/*
		 * A file kept back stands for the directory; anything else
		 * by that name is passed over.  An index given by a dot name
		 * is the operator's choice, as the SPA page's path is.
		 */
		if (!err && (obj->withheld || (obj->hidden && !site->dotfiles &&
					       site->index[i][0] != '.'))) {
			ops->close(ctx, obj);
			err = obj->type == HTTP_OBJECT_FILE ? -EACCES : -ENOENT;
		}
		if (err) {
			status = http_status_for_errno(-err);
			if (status == 404)
				continue;
			path[len] = '\0';
			return status;
		}
		if (obj->type == HTTP_OBJECT_FILE) {
			*n = len + name_len;
			return 0;
		}
		ops->close(ctx, obj);
	}
	path[len] = '\0';
	return 0;
}

static void plan_file(struct http_serve_plan *plan, enum http_serve_action a,
		      const struct http_object *obj, const char *file,
		      size_t len)
{
	plan->action = a;
	plan->obj = *obj;
	plan->file = file;
	plan->file_len = len;
}

/* A directory: its index, else its listing. */
static void plan_dir(const struct http_site *site,
		     const struct http_serve_ops *ops, void *ctx, char *path,
		     size_t len, struct http_object *dir,
		     struct http_serve_plan *plan)
{
	struct http_object index;
	size_t n;
	int status;

	if (path[len - 1] != '/') {
		ops->close(ctx, dir);
		plan->action = HTTP_SERVE_REDIRECT;
		return;
	}
	status = open_index(site, ops, ctx, path, len, &index, &n);
	if (n) {
		ops->close(ctx, dir);
		plan_file(plan, HTTP_SERVE_FILE, &index, path, n);
		return;
	}
	if (status || !site->listing) {
		ops->close(ctx, dir);
		plan_status(plan, status ? status : 403);
		return;
	}
	plan->action = HTTP_SERVE_LISTING;
	plan->obj = *dir;
}

/*
 * A directory that may be searched but not read (mode 711, as ~/public_html
 * often is) cannot be listed, but its index can be served, as nginx does.
 * Finding the index also shows that the path is a directory, before a
 * missing trailing slash is redirected; without one the answer is 403.
 */
static void plan_searchable_dir(const struct http_site *site,
				const struct http_serve_ops *ops, void *ctx,
				char *path, size_t len,
				struct http_serve_plan *plan)
{
	bool slash = path[len - 1] == '/';
	struct http_object index;
	size_t dir_len = len + !slash, n;
	int status;

	if (dir_len >= HTTP_SERVE_PATH_BUF) {
		plan_status(plan, 403);
		return;
	}
	path[len] = '/';
	status = open_index(site, ops, ctx, path, dir_len, &index, &n);
	/* Without the '/' asked for, the path is the directory's again (the
	 * redirect's); with it, the index's name stays joined. */
	if (!slash)
		path[len] = '\0';
	if (!n) {
		plan_status(plan, status ? status : 403);
		return;
	}
	if (!slash) {
		ops->close(ctx, &index);
		plan->action = HTTP_SERVE_REDIRECT;
		return;
	}
	plan_file(plan, HTTP_SERVE_FILE, &index, path, n);
}

/*
 * --spa: a GET or HEAD of a missing path that names no file (no extension)
 * is a route of a single-page app, answered with its page: not when the
 * page is a link to a hidden name (.env), unless its own path is one, the
 * operator's choice.
 */
static bool plan_spa(const struct http_site *site,
		     const struct http_serve_ops *ops, void *ctx,
		     const struct http_request *req, const char *path,
		     size_t len, struct http_serve_plan *plan)
{
	struct http_object page;

	if (!site->spa ||
	    (req->method != HTTP_GET && req->method != HTTP_HEAD) ||
	    http_path_has_extension(path, len))
		return false;
	if (ops->open(ctx, site->spa, &page))
		return false;
	if (page.type != HTTP_OBJECT_FILE || page.withheld ||
	    (page.hidden && !site->dotfiles &&
	     !http_path_hidden(site->spa, strlen(site->spa)))) {
		ops->close(ctx, &page);
		return false;
	}
	plan_file(plan, HTTP_SERVE_SPA, &page, site->spa, strlen(site->spa));
	return true;
}

void http_serve(const struct http_site *site, const char *buf,
		const struct http_request *req, char *path,
		const struct http_serve_ops *ops, void *ctx,
		struct http_serve_plan *plan)
{
	struct http_object obj;
	size_t len;
	int ret;

	memset(plan, 0, sizeof(*plan));
	ret = http_route(buf, req, path);
	plan->path_len = ret;
	if (ret < 0) {
		plan_status(plan, -ret);
		return;
	}
	len = (size_t)ret;
	/* After the path is known: header rules for its prefix apply. */
	if (req->method == HTTP_OPTIONS) {
		plan->action = HTTP_SERVE_OPTIONS;
		return;
	}
	/* Behind a password, before anything about the path is told. */
	if (ops->authorize) {
		ret = ops->authorize(ctx, path, len);
		if (ret) {
			plan_status(plan, ret);
			return;
		}
	}
	/* .git/, .env: not served unless dotfiles are on. */
	if (!site->dotfiles && http_path_hidden(path, len)) {
		plan_status(plan, 404);
		return;
	}
	plan->entry = ops->cache_probe(ctx, path, len);
	path[len] = '\0';
	if (plan->entry) {
		plan->action = HTTP_SERVE_ENTRY;
		return;
	}
	ret = open_visible(site, ops, ctx, path, &obj);
	if (ret == -EACCES) {
		plan_searchable_dir(site, ops, ctx, path, len, plan);
		return;
	}
	if (ret) {
		int status = http_status_for_errno(-ret);

		if (status != 404 ||
		    !plan_spa(site, ops, ctx, req, path, len, plan))
			plan_status(plan, status);
		return;
	}
	switch (obj.type) {
	case HTTP_OBJECT_DIR:
		plan_dir(site, ops, ctx, path, len, &obj, plan);
		return;
	case HTTP_OBJECT_FILE:
		if (path[len - 1] != '/') {
			plan_file(plan, HTTP_SERVE_FILE, &obj, path, len);
			return;
		}
		/* "/file/": no such directory. */
		ops->close(ctx, &obj);
		plan_status(plan, 404);
		return;
	case HTTP_OBJECT_OTHER:
		break;
	}
	ops->close(ctx, &obj);
	plan_status(plan, 403);
}

int http_serve_answer(const struct http_serve_plan *plan, const char *path,
		      const struct http_serve_answers *a, void *ctx)
{
	switch (plan->action) {
	case HTTP_SERVE_STATUS:
		return a->status(ctx, plan->status);
	case HTTP_SERVE_OPTIONS:
		return a->options(ctx);
	case HTTP_SERVE_REDIRECT:
		return a->redirect(ctx, path, (size_t)plan->path_len);
	case HTTP_SERVE_ENTRY:
		return a->entry(ctx, plan->entry);
	default:
		return a->object(ctx, plan);
	}
}

const struct http_precompressed http_precompressed[HTTP_PRECOMPRESSED_COUNT] = {
	{ HTTP_CODING_BR, ".br" },
	{ HTTP_CODING_ZSTD, ".zst" },
	{ HTTP_CODING_GZIP, ".gz" },
};

unsigned int http_precompressed_codings(void)
{
	unsigned int bits = 0;

	for (unsigned int slot = 0; slot < HTTP_PRECOMPRESSED_COUNT; slot++)
		bits |= HTTP_CODING_BIT(http_precompressed[slot].coding);
	return bits;
}

unsigned int http_precompressed_slot(enum http_coding coding)
{
	unsigned int slot = 0;

	while (slot < HTTP_PRECOMPRESSED_COUNT - 1 &&
	       http_precompressed[slot].coding != coding)
		slot++;
	return slot;
}

bool http_sibling_usable(const struct http_object *sib,
			 const struct http_object *file)
{
	/*
	 * Whole seconds: tools that copy the file's time to the sibling may
	 * cut it to the second (brotli -k, by utime()) or the microsecond.
	 * An empty one (a build step that failed) is no coded form of
	 * anything: every gzip, Brotli or zstd stream has a header.
	 */
	return sib->type == HTTP_OBJECT_FILE && sib->size > 0 &&
	       sib->mtime_sec >= file->mtime_sec;
}

int http_serve_open_sibling(const struct http_site *site,
			    const struct http_serve_ops *ops, void *ctx,
			    const char *file, size_t len, unsigned int slot,
			    char *path, size_t cap, struct http_object *sib)
{
	if (http_path_join(path, cap, file, len,
			   http_precompressed[slot].suffix) < 0)
		return -ENAMETOOLONG;
	/* "x.css.gz -> .env" stands for nothing. */
	return open_visible(site, ops, ctx, path, sib);
}

enum http_coding
http_serve_sibling(const struct http_site *site, const char *buf,
		   const struct http_request *req, const char *file, size_t len,
		   const struct http_object *obj,
		   const struct http_serve_ops *ops, void *ctx, char *path,
		   size_t cap, struct http_object *sib)
{
	unsigned int left = http_precompressed_codings();

	if (http_has_header(req, HTTP_H_RANGE))
		return HTTP_CODING_IDENTITY;
	while (left) {
		/* Nothing is compressed without a cache: only siblings. */
		enum http_coding coding =
			http_request_coding(buf, req, left, 0);

		if (coding == HTTP_CODING_IDENTITY)
			break;
		left &= ~HTTP_CODING_BIT(coding);
		if (http_serve_open_sibling(site, ops, ctx, file, len,
					    http_precompressed_slot(coding),
					    path, cap, sib))
			continue;
		if (http_sibling_usable(sib, obj))
			return coding;
		ops->close(ctx, sib);
	}
	return HTTP_CODING_IDENTITY;
}
