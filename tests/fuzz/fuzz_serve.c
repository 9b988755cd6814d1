// SPDX-License-Identifier: MIT
/*
 * libFuzzer target for the serving plan (src/http/serve.c).  The input is a
 * request head, parsed by the core's parser, followed by lines that
 * describe a small fake file tree and the site's settings:
 *
 *   f[h] /PATH [MTIME]   a regular file (h: reached through a link to a
 *   d[h] /PATH [MTIME]   a directory         hidden name)
 *   o[h] /PATH [MTIME]   something else (a FIFO, a socket)
 *   x /PATH ERRNO        opening PATH fails with -ERRNO
 *   i NAME               an index name, in order (else the defaults)
 *   e CODE=/PATH         an error page
 *   s /PATH              the single-page app's page
 *   L, D                 listings on, dotfiles on
 *   a PREFIX [STATUS]    authorize refuses paths with PREFIX (401)
 *   n                    no authorize hook at all
 *   c PREFIX             cache_probe hits for paths with PREFIX
 *   Z                    cache_probe scribbles over its scratch space
 *   m N                  opens after the Nth fail with -EMFILE
 *   k N                  the buffer for a sibling's path has N bytes
 *
 * The fake ops check how the plan uses them (every path it opens is a
 * normalised one it may open, nothing is opened before authorize, every
 * object is closed once); the plan, http_serve_answer() and, for a file,
 * http_serve_sibling() are then checked against the contract in serve.h.
 *
 * Linked with replay.c instead of libFuzzer, it runs the files named on
 * its command line, for machines without libFuzzer.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "http/negotiate.h"
#include "http/parser.h"
#include "http/response.h"
#include "http/route.h"
#include "http/serve.h"
#include "http/site.h"

#define MAX_NODES 32
#define MAX_RULES 4
#define MAX_OPENS 64

struct node {
	const char *path;
	enum http_object_type type;
	bool hidden;
	int err; /* opening fails with -err */
	int64_t mtime;
};

struct rule {
	const char *prefix;
	int status;
};

/* An open the plan made: its path, and whether it is still open. */
struct opened {
	char *path;
	struct http_object obj;
	bool live;
};

enum phase { PHASE_SERVE, PHASE_SIBLING };

struct fake {
	struct node nodes[MAX_NODES];
	unsigned int nnodes;
	/* Names point into the description, split into lines in place. */
	struct rule refuse[MAX_RULES];
	unsigned int nrefuse;
	const char *hit[MAX_RULES];
	unsigned int nhit;
	bool no_authorize, scribble;
	unsigned int open_limit; /* 0: none */
	size_t sibling_cap;
	struct http_site site;

	/* What the plan did. */
	const struct http_request *req;
	const char *path_buf; /* HTTP_SERVE_PATH_BUF bytes */
	const char *routed;
	size_t routed_len;
	enum phase phase;
	const char *sib_file; /* PHASE_SIBLING: the file, sib_len bytes */
	size_t sib_len;
	struct opened opens[MAX_OPENS];
	unsigned int calls; /* of open, whatever it answered */
	unsigned int nopens, attempts, closes, authorizes, probes;
	bool limited; /* an open failed for the limit, not the tree */
	void *entry; /* what cache_probe returned */
};

static char entry_token;

static bool starts_with(const char *s, size_t n, const char *prefix)
{
	size_t k = strlen(prefix);

	return k <= n && !memcmp(s, prefix, k);
}

/*
 * The oracle for hidden paths, written apart from http_path_hidden(): a
 * segment starting with '.', except a first segment ".well-known".
 */
static bool hidden_path(const char *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (p[i] != '/' || i + 1 >= n || p[i + 1] != '.')
			continue;
		if (i == 0 && starts_with(p, n, "/.well-known") &&
		    (n == 12 || p[12] == '/'))
			continue;
		return true;
	}
	return false;
}

/* A path as the plan may open it: from '/', normalised. */
static void check_normal_path(const char *p)
{
	size_t n = strlen(p);

	FUZZ_ASSERT(p[0] == '/');
	FUZZ_ASSERT(!strstr(p, "//") && !strstr(p, "/./") &&
		    !strstr(p, "/../"));
	FUZZ_ASSERT(!(n >= 2 && !strcmp(p + n - 2, "/.")));
	FUZZ_ASSERT(!(n >= 3 && !strcmp(p + n - 3, "/..")));
	FUZZ_ASSERT(n < HTTP_SIBLING_PATH_BUF);
}

/* The node at p (n bytes), a trailing '/' aside; "/" is a directory. */
static const struct node *lookup(const struct fake *f, const char *p, size_t n)
{
	static const struct node root = { "/", HTTP_OBJECT_DIR, false, 0, 1 };

	if (n > 1 && p[n - 1] == '/')
		n--;
	for (unsigned int i = 0; i < f->nnodes; i++) {
		const char *q = f->nodes[i].path;
		size_t k = strlen(q);

		if (k > 1 && q[k - 1] == '/')
			k--;
		if (k == n && !memcmp(p, q, n))
			return &f->nodes[i];
	}
	return n == 1 && p[0] == '/' ? &root : NULL;
}

static bool visible_file(const struct fake *f, const char *p, size_t n)
{
	const struct node *nd = lookup(f, p, n);

	return nd && !nd->err && nd->type == HTTP_OBJECT_FILE &&
	       (!nd->hidden || f->site.dotfiles);
}

/* Whether s (n bytes) is dir (with a '/' added if it has none) + index. */
static int index_of(const struct fake *f, const char *dir, size_t dir_len,
		    const char *s, size_t n)
{
	size_t d = dir_len + (dir[dir_len - 1] != '/');

	if (n <= d || memcmp(s, dir, dir_len) || s[d - 1] != '/')
		return -1;
	for (unsigned int i = 0; i < f->site.nindex; i++) {
		const char *name = f->site.index[i];

		if (strlen(name) == n - d && !memcmp(s + d, name, n - d))
			return (int)i;
	}
	return -1;
}

/* A path the plan may open while it plans. */
static bool may_open(const struct fake *f, const char *p)
{
	size_t n = strlen(p);

	if (n == f->routed_len && !memcmp(p, f->routed, n))
		return true;
	if (f->site.spa && !strcmp(p, f->site.spa))
		return true;
	return index_of(f, f->routed, f->routed_len, p, n) >= 0;
}

/* A path http_serve_sibling() may open: the file and a suffix. */
static bool sibling_path(const struct fake *f, const char *p)
{
	size_t n = strlen(p);

	if (n <= f->sib_len || memcmp(p, f->sib_file, f->sib_len))
		return false;
	for (unsigned int s = 0; s < HTTP_PRECOMPRESSED_COUNT; s++) {
		if (!strcmp(p + f->sib_len, http_precompressed[s].suffix))
			return true;
	}
	return false;
}

static int fake_open(void *ctx, const char *path, struct http_object *obj)
{
	struct fake *f = ctx;
	const struct node *nd;
	struct opened *o;
	size_t n = strlen(path);

	check_normal_path(path);
	/* Behind a password, before anything about the path is told. */
	FUZZ_ASSERT(f->no_authorize || f->authorizes == 1);
	if (f->phase == PHASE_SERVE)
		FUZZ_ASSERT(may_open(f, path));
	else
		FUZZ_ASSERT(sibling_path(f, path));
	f->calls++;
	if (f->open_limit && ++f->attempts > f->open_limit) {
		f->limited = true;
		return -EMFILE;
	}
	nd = lookup(f, path, n);
	if (!nd) {
		/* Beneath a file: ENOTDIR, as openat2() says. */
		for (size_t i = n; i-- > 1;) {
			const struct node *up;

			if (path[i] != '/')
				continue;
			up = lookup(f, path, i);
			if (up && !up->err && up->type == HTTP_OBJECT_FILE)
				return -ENOTDIR;
		}
		return -ENOENT;
	}
	if (nd->err)
		return -nd->err;
	FUZZ_ASSERT(f->nopens < MAX_OPENS);
	o = &f->opens[f->nopens];
	o->path = dup_exact(path, n + 1);
	o->live = true;
	obj->handle = (void *)(uintptr_t)(++f->nopens);
	obj->type = nd->type;
	obj->hidden = nd->hidden;
	obj->withheld = false; /* no --auth-file here */
	obj->mtime_sec = nd->mtime;
	obj->mtime_nsec = (long)(nd->mtime % 1000) * 1000;
	obj->size = 1; /* the model's siblings are never empty */
	o->obj = *obj;
	return 0;
}

/* The open that obj came from, still open. */
static struct opened *opened_of(struct fake *f, const struct http_object *obj)
{
	uintptr_t h = (uintptr_t)obj->handle;
	struct opened *o;

	FUZZ_ASSERT(h >= 1 && h <= f->nopens);
	o = &f->opens[h - 1];
	FUZZ_ASSERT(o->live);
	FUZZ_ASSERT(o->obj.type == obj->type && o->obj.hidden == obj->hidden &&
		    o->obj.mtime_sec == obj->mtime_sec &&
		    o->obj.mtime_nsec == obj->mtime_nsec);
	return o;
}

static void fake_close(void *ctx, struct http_object *obj)
{
	struct fake *f = ctx;

	opened_of(f, obj)->live = false;
	f->closes++;
}

static bool routed_as(const struct fake *f, const char *path, size_t len)
{
	return path == f->path_buf && len == f->routed_len &&
	       !memcmp(path, f->routed, len);
}

static void *fake_cache_probe(void *ctx, char *path, size_t len)
{
	struct fake *f = ctx;

	FUZZ_ASSERT(routed_as(f, path, len));
	FUZZ_ASSERT(f->no_authorize || f->authorizes == 1);
	FUZZ_ASSERT(f->calls == 0);
	f->probes++;
	for (unsigned int i = 0; i < f->nhit; i++) {
		if (starts_with(path, len, f->hit[i])) {
			f->entry = &entry_token;
			break;
		}
	}
	/* Past len, the buffer is the probe's scratch. */
	if (f->scribble)
		memset(path + len, f->entry ? '.' : '/',
		       HTTP_SERVE_PATH_BUF - len);
	return f->entry;
}

/* The status the fake refuses the routed path with, or 0. */
static int refusal(const struct fake *f, const char *path, size_t len)
{
	for (unsigned int i = 0; i < f->nrefuse; i++) {
		if (starts_with(path, len, f->refuse[i].prefix))
			return f->refuse[i].status;
	}
	return 0;
}

static int fake_authorize(void *ctx, const char *path, size_t len)
{
	struct fake *f = ctx;

	FUZZ_ASSERT(routed_as(f, path, len));
	FUZZ_ASSERT(f->calls == 0 && f->probes == 0);
	f->authorizes++;
	return refusal(f, path, len);
}

static const struct http_serve_ops fake_ops = {
	.open = fake_open,
	.close = fake_close,
	.cache_probe = fake_cache_probe,
	.authorize = fake_authorize,
};

static const struct http_serve_ops fake_ops_public = {
	.open = fake_open,
	.close = fake_close,
	.cache_probe = fake_cache_probe,
};

static unsigned long number(const char *s, unsigned long dflt)
{
	unsigned long v = 0;

	if (*s < '0' || *s > '9')
		return dflt;
	for (; *s >= '0' && *s <= '9'; s++)
		v = v * 10 + (unsigned long)(*s - '0') % 1000000;
	return v;
}

static int errno_of(unsigned long v)
{
	static const int errs[] = { EACCES, ENOENT,	  ELOOP,  ENOTDIR,
				    EMFILE, ENAMETOOLONG, EPERM,  EIO,
				    ENXIO,  ENODEV,	  EAGAIN, ENOMEM,
				    EXDEV,  ENFILE };

	for (size_t i = 0; i < ARRAY_SIZE(errs); i++) {
		if ((unsigned long)errs[i] == v)
			return errs[i];
	}
	return errs[v % ARRAY_SIZE(errs)];
}

/* One line of the description: "CMD[FLAGS] ARG1 ARG2". */
static void describe(struct fake *f, char *line)
{
	char *arg1 = strchr(line, ' '), *arg2 = NULL;
	struct http_site *site = &f->site;
	bool hidden = line[0] && strchr(line + 1, 'h') &&
		      (!arg1 || strchr(line + 1, 'h') < arg1);
	const char *page;
	int status;

	if (arg1) {
		*arg1++ = '\0';
		arg2 = strchr(arg1, ' ');
		if (arg2)
			*arg2++ = '\0';
	}
	switch (line[0]) {
	case 'f':
	case 'd':
	case 'o':
	case 'x':
		if (!arg1 || f->nnodes == MAX_NODES)
			return;
		f->nodes[f->nnodes].path = arg1;
		f->nodes[f->nnodes].type = line[0] == 'd' ? HTTP_OBJECT_DIR :
					   line[0] == 'o' ? HTTP_OBJECT_OTHER :
							    HTTP_OBJECT_FILE;
		f->nodes[f->nnodes].hidden = hidden;
		f->nodes[f->nnodes].mtime =
			(int64_t)number(arg2 ? arg2 : "", 100 + f->nnodes);
		f->nodes[f->nnodes].err =
			line[0] == 'x' ? errno_of(number(arg2 ? arg2 : "", 0)) :
					 0;
		f->nnodes++;
		return;
	case 'i':
		/* As both servers' configurations take them. */
		if (!arg1 || site->nindex == HTTP_SITE_MAX_INDEX ||
		    !http_site_index_name_ok(arg1))
			return;
		site->index[site->nindex] = arg1;
		site->nindex++;
		return;
	case 'e':
		if (!arg1 || site->nerror_pages == HTTP_SITE_MAX_ERROR_PAGES ||
		    http_site_split_error_page(arg1, &status, &page) ||
		    !http_site_page_path_ok(page))
			return;
		FUZZ_ASSERT(status >= 400 && status <= 599);
		site->error_pages[site->nerror_pages].status = status;
		site->error_pages[site->nerror_pages].path = page;
		site->nerror_pages++;
		return;
	case 's':
		if (arg1 && http_site_page_path_ok(arg1))
			site->spa = arg1;
		return;
	case 'L':
		site->listing = true;
		return;
	case 'D':
		site->dotfiles = true;
		return;
	case 'a':
		if (!arg1 || f->nrefuse == MAX_RULES)
			return;
		f->refuse[f->nrefuse].prefix = arg1;
		status = (int)number(arg2 ? arg2 : "", 401);
		f->refuse[f->nrefuse].status =
			status >= 400 && status <= 599 ? status : 401;
		f->nrefuse++;
		return;
	case 'n':
		f->no_authorize = true;
		return;
	case 'c':
		if (arg1 && f->nhit < MAX_RULES)
			f->hit[f->nhit++] = arg1;
		return;
	case 'Z':
		f->scribble = true;
		return;
	case 'm':
		f->open_limit = (unsigned int)number(arg1 ? arg1 : "", 0) % 16;
		return;
	case 'k':
		f->sibling_cap = number(arg1 ? arg1 : "", 0) %
				 (HTTP_SIBLING_PATH_BUF + 1);
		return;
	}
}

/*
 * The description, d (n bytes and a NUL), split into lines in place: the
 * names point into it.  A NUL ends a line's names early.
 */
static void describe_all(struct fake *f, char *d, size_t n)
{
	char *end = d + n;

	while (d < end) {
		char *nl = memchr(d, '\n', (size_t)(end - d));
		size_t k = nl ? (size_t)(nl - d) : (size_t)(end - d);

		d[k] = '\0';
		if (k && d[k - 1] == '\r')
			d[k - 1] = '\0';
		describe(f, d);
		d += k + 1;
	}
	if (!f->site.nindex) {
		for (unsigned int i = 0; i < HTTP_DEFAULT_INDEX_COUNT; i++)
			f->site.index[i] = http_default_index[i];
		f->site.nindex = HTTP_DEFAULT_INDEX_COUNT;
	}
	if (!f->sibling_cap)
		f->sibling_cap = HTTP_SIBLING_PATH_BUF;
}

static unsigned int live_opens(const struct fake *f)
{
	unsigned int live = 0;

	for (unsigned int i = 0; i < f->nopens; i++)
		live += f->opens[i].live;
	FUZZ_ASSERT(live == f->nopens - f->closes);
	return live;
}

/* The status an open's error is answered with, as the plan maps it. */
static bool missing_errno(int err)
{
	return err == ENOENT || err == ENOTDIR || err == ENAMETOOLONG;
}

/* The routed path is missing, as the tree says. */
static bool missing(const struct fake *f)
{
	const struct node *nd = lookup(f, f->routed, f->routed_len);

	if (!nd) {
		return true;
	}
	if (nd->err)
		return missing_errno(nd->err);
	return nd->hidden && !f->site.dotfiles;
}

/*
 * The index the plan should have found in the routed directory, or -1 when
 * none is there, or INDEX_REFUSED when a name before any found is there
 * but cannot be served (its open fails otherwise than as missing): that
 * answers for the directory, with *status.
 */
#define INDEX_REFUSED (-2)
static int index_found(const struct fake *f, int *status)
{
	char p[HTTP_SERVE_PATH_BUF];
	size_t d = f->routed_len + (f->routed[f->routed_len - 1] != '/');

	memcpy(p, f->routed, f->routed_len);
	p[d - 1] = '/';
	for (unsigned int i = 0; i < f->site.nindex; i++) {
		size_t n = strlen(f->site.index[i]);
		const struct node *nd;

		if (d + n >= HTTP_SERVE_PATH_BUF)
			continue;
		memcpy(p + d, f->site.index[i], n);
		if (visible_file(f, p, d + n))
			return (int)i;
		nd = lookup(f, p, d + n);
		/* A file there but hidden stands for the directory, unless
		 * the operator gave its name with a dot. */
		if (nd && !nd->err && nd->type == HTTP_OBJECT_FILE &&
		    nd->hidden && !f->site.dotfiles) {
			if (f->site.index[i][0] == '.')
				return (int)i;
			*status = 403;
			return INDEX_REFUSED;
		}
		if (nd && nd->err && http_status_for_errno(nd->err) != 404) {
			*status = http_status_for_errno(nd->err);
			return INDEX_REFUSED;
		}
	}
	return -1;
}

static int first_index(const struct fake *f)
{
	int status;

	return index_found(f, &status);
}

/* The SPA page may be served: a file, not a link to a hidden name unless
 * its own path is hidden, the operator's choice. */
static bool spa_page_ok(const struct fake *f)
{
	size_t n = strlen(f->site.spa);
	const struct node *nd = lookup(f, f->site.spa, n);

	return nd && !nd->err && nd->type == HTTP_OBJECT_FILE &&
	       (!nd->hidden || f->site.dotfiles || hidden_path(f->site.spa, n));
}

static bool has_extension(const char *p, size_t n)
{
	size_t i = n;

	while (i > 0 && p[i - 1] != '/')
		i--;
	return i + 1 < n && memchr(p + i + 1, '.', n - i - 1);
}

/* A plan's object: the one open left, as it was opened at file. */
static struct opened *check_object(struct fake *f,
				   const struct http_serve_plan *plan)
{
	struct opened *o = opened_of(f, &plan->obj);

	FUZZ_ASSERT(live_opens(f) == 1);
	if (!f->site.dotfiles && plan->obj.hidden)
		FUZZ_ASSERT(plan->action == HTTP_SERVE_SPA &&
			    hidden_path(f->site.spa, strlen(f->site.spa)));
	if (plan->action == HTTP_SERVE_LISTING)
		return o;
	FUZZ_ASSERT(plan->obj.type == HTTP_OBJECT_FILE);
	/* file names what was opened: no NUL within, no other name. */
	FUZZ_ASSERT(plan->file && !memchr(plan->file, '\0', plan->file_len));
	FUZZ_ASSERT(plan->file_len == strlen(o->path) &&
		    !memcmp(plan->file, o->path, plan->file_len));
	return o;
}

static void check_plan(struct fake *f, const struct http_request *req,
		       const char *path, int routed,
		       const struct http_serve_plan *plan)
{
	const struct node *nd;
	const char *name;
	int refused = 0;
	bool slash;
	int idx;

	FUZZ_ASSERT(plan->path_len == routed);
	if (plan->action == HTTP_SERVE_STATUS)
		FUZZ_ASSERT(plan->status >= 400 && plan->status <= 599);
	if (plan->action == HTTP_SERVE_FILE ||
	    plan->action == HTTP_SERVE_LISTING ||
	    plan->action == HTTP_SERVE_SPA)
		check_object(f, plan);
	else
		FUZZ_ASSERT(live_opens(f) == 0);
	if (routed < 0) {
		FUZZ_ASSERT(plan->action == HTTP_SERVE_STATUS &&
			    plan->status == -routed);
		FUZZ_ASSERT(!f->calls && !f->probes && !f->authorizes);
		return;
	}
	if (req->method == HTTP_OPTIONS) {
		FUZZ_ASSERT(plan->action == HTTP_SERVE_OPTIONS);
		FUZZ_ASSERT(!f->calls && !f->probes && !f->authorizes);
		return;
	}
	FUZZ_ASSERT(req->method == HTTP_GET || req->method == HTTP_HEAD);
	FUZZ_ASSERT(f->routed_len > 0 && f->routed[0] == '/');
	FUZZ_ASSERT(f->authorizes == !f->no_authorize);
	/* Refused: the status the hook gave, and nothing else told. */
	if (!f->no_authorize && refusal(f, f->routed, f->routed_len)) {
		FUZZ_ASSERT(plan->action == HTTP_SERVE_STATUS &&
			    plan->status ==
				    refusal(f, f->routed, f->routed_len));
		FUZZ_ASSERT(!f->calls && !f->probes);
		return;
	}
	if (!f->site.dotfiles && hidden_path(f->routed, f->routed_len)) {
		FUZZ_ASSERT(plan->action == HTTP_SERVE_STATUS &&
			    plan->status == 404);
		FUZZ_ASSERT(!f->calls && !f->probes);
		return;
	}
	FUZZ_ASSERT(f->probes == 1);
	if (f->entry) {
		FUZZ_ASSERT(plan->action == HTTP_SERVE_ENTRY &&
			    plan->entry == f->entry);
		FUZZ_ASSERT(!f->calls);
		return;
	}
	FUZZ_ASSERT(plan->action != HTTP_SERVE_ENTRY && !plan->entry);
	FUZZ_ASSERT(plan->action != HTTP_SERVE_OPTIONS);
	slash = f->routed[f->routed_len - 1] == '/';
	nd = lookup(f, f->routed, f->routed_len);
	switch (plan->action) {
	case HTTP_SERVE_REDIRECT:
		/* To the directory with its '/': the routed path, kept. */
		FUZZ_ASSERT(!slash && !memcmp(path, f->routed, f->routed_len));
		FUZZ_ASSERT(f->limited ||
			    (nd && nd->err == EACCES && first_index(f) >= 0) ||
			    (nd && !nd->err && nd->type == HTTP_OBJECT_DIR &&
			     (!nd->hidden || f->site.dotfiles)));
		break;
	case HTTP_SERVE_FILE:
		FUZZ_ASSERT(plan->file >= path &&
			    plan->file_len < HTTP_SERVE_PATH_BUF &&
			    plan->file + plan->file_len <
				    path + HTTP_SERVE_PATH_BUF);
		if (!slash) {
			FUZZ_ASSERT(plan->file == path &&
				    plan->file_len == f->routed_len &&
				    !memcmp(path, f->routed, f->routed_len));
			break;
		}
		/* A directory's index: the first there, in order. */
		name = plan->file;
		idx = index_of(f, f->routed, f->routed_len, name,
			       plan->file_len);
		FUZZ_ASSERT(idx >= 0);
		FUZZ_ASSERT(f->limited || idx == first_index(f));
		/*
		 * The request path is not hidden (above); an index name with
		 * a dot is the operator's, as the SPA page is.
		 */
		FUZZ_ASSERT(f->site.dotfiles ||
			    !hidden_path(name, plan->file_len) ||
			    f->site.index[idx][0] == '.');
		break;
	case HTTP_SERVE_LISTING:
		FUZZ_ASSERT(f->site.listing && slash);
		FUZZ_ASSERT(plan->obj.type == HTTP_OBJECT_DIR);
		FUZZ_ASSERT(!strcmp(opened_of(f, &plan->obj)->path, f->routed));
		FUZZ_ASSERT(f->limited || first_index(f) == -1);
		break;
	case HTTP_SERVE_SPA:
		FUZZ_ASSERT(f->site.spa && plan->file == f->site.spa &&
			    plan->file_len == strlen(f->site.spa));
		FUZZ_ASSERT(!has_extension(f->routed, f->routed_len));
		FUZZ_ASSERT(f->limited || missing(f));
		break;
	case HTTP_SERVE_STATUS:
		/* A path that is there and may be served is not a 404. */
		if (plan->status == 404 && !f->limited && nd && !nd->err &&
		    (!nd->hidden || f->site.dotfiles)) {
			FUZZ_ASSERT(nd->type == HTTP_OBJECT_FILE && slash);
		}
		/* A missing extensionless path with a page is the SPA's. */
		if (plan->status == 404 && f->site.spa && !f->limited &&
		    !has_extension(f->routed, f->routed_len) && missing(f))
			FUZZ_ASSERT(!spa_page_ok(f));
		/* An open's error, as the plan maps errors to statuses. */
		if (!f->limited && nd && nd->err && nd->err != EACCES)
			FUZZ_ASSERT(plan->status ==
				    http_status_for_errno(nd->err));
		/* A directory whose index is there but cannot be served:
		 * that index's status, never its listing. */
		if (!f->limited && slash && nd &&
		    (nd->err == EACCES ||
		     (!nd->err && nd->type == HTTP_OBJECT_DIR &&
		      (!nd->hidden || f->site.dotfiles))) &&
		    index_found(f, &refused) == INDEX_REFUSED)
			FUZZ_ASSERT(plan->status == refused);
		break;
	default:
		FUZZ_ASSERT(0);
	}
}

/* http_serve_answer(): exactly one answer, with the plan's values. */
struct answered {
	const struct http_serve_plan *plan;
	const char *path;
	int calls;
	enum http_serve_action as;
};

static int answer_status(void *ctx, int status)
{
	struct answered *a = ctx;

	a->calls++;
	a->as = HTTP_SERVE_STATUS;
	FUZZ_ASSERT(status == a->plan->status);
	return 1;
}

static int answer_options(void *ctx)
{
	struct answered *a = ctx;

	a->calls++;
	a->as = HTTP_SERVE_OPTIONS;
	return 2;
}

static int answer_redirect(void *ctx, const char *path, size_t len)
{
	struct answered *a = ctx;

	a->calls++;
	a->as = HTTP_SERVE_REDIRECT;
	FUZZ_ASSERT(path == a->path && len == (size_t)a->plan->path_len);
	return 3;
}

static int answer_entry(void *ctx, void *entry)
{
	struct answered *a = ctx;

	a->calls++;
	a->as = HTTP_SERVE_ENTRY;
	FUZZ_ASSERT(entry == a->plan->entry && entry);
	return 4;
}

static int answer_object(void *ctx, const struct http_serve_plan *plan)
{
	struct answered *a = ctx;

	a->calls++;
	a->as = plan->action;
	FUZZ_ASSERT(plan == a->plan);
	return 5;
}

static const struct http_serve_answers fake_answers = {
	.status = answer_status,
	.options = answer_options,
	.redirect = answer_redirect,
	.entry = answer_entry,
	.object = answer_object,
};

static void check_answer(const struct http_serve_plan *plan, const char *path)
{
	static const int ret[] = {
		[HTTP_SERVE_STATUS] = 1,   [HTTP_SERVE_OPTIONS] = 2,
		[HTTP_SERVE_REDIRECT] = 3, [HTTP_SERVE_ENTRY] = 4,
		[HTTP_SERVE_FILE] = 5,	   [HTTP_SERVE_LISTING] = 5,
		[HTTP_SERVE_SPA] = 5,
	};
	struct answered a = { plan, path, 0, HTTP_SERVE_STATUS };
	int r = http_serve_answer(plan, path, &fake_answers, &a);

	FUZZ_ASSERT(a.calls == 1 && a.as == plan->action);
	FUZZ_ASSERT(r == ret[plan->action]);
}

/*
 * http_serve_sibling() for the plan's file, as khttpd calls it (file and
 * file_len), its path in a buffer of exactly the given size.
 */
static void check_sibling(struct fake *f, const char *buf,
			  const struct http_request *req,
			  const struct http_serve_plan *plan)
{
	unsigned int opened = f->nopens, closed = f->closes, calls = f->calls;
	char *sp = malloc(f->sibling_cap);
	enum http_coding coding;
	struct http_object sib;

	FUZZ_ASSERT(sp);
	f->phase = PHASE_SIBLING;
	f->sib_file = plan->file;
	f->sib_len = plan->file_len;
	coding = http_serve_sibling(&f->site, buf, req, plan->file,
				    plan->file_len, &plan->obj, &fake_ops, f,
				    sp, f->sibling_cap, &sib);
	/* None for a Range: nothing is even opened. */
	if (http_has_header(req, HTTP_H_RANGE))
		FUZZ_ASSERT(coding == HTTP_CODING_IDENTITY &&
			    f->calls == calls);
	for (unsigned int i = opened; i < f->nopens; i++)
		FUZZ_ASSERT(strlen(f->opens[i].path) < f->sibling_cap);
	if (coding == HTTP_CODING_IDENTITY) {
		FUZZ_ASSERT(f->nopens - opened == f->closes - closed);
	} else {
		struct opened *o = opened_of(f, &sib);
		unsigned int slot = http_precompressed_slot(coding);

		FUZZ_ASSERT(f->nopens - opened == f->closes - closed + 1);
		FUZZ_ASSERT(HTTP_CODING_BIT(coding) &
			    http_precompressed_codings());
		FUZZ_ASSERT(http_precompressed[slot].coding == coding);
		/* FILE and its coding's suffix, a file not older. */
		FUZZ_ASSERT(strlen(o->path) ==
				    plan->file_len +
					    strlen(http_precompressed[slot]
							   .suffix) &&
			    !memcmp(o->path, plan->file, plan->file_len) &&
			    !strcmp(o->path + plan->file_len,
				    http_precompressed[slot].suffix));
		FUZZ_ASSERT(!strcmp(sp, o->path));
		FUZZ_ASSERT(sib.type == HTTP_OBJECT_FILE &&
			    sib.mtime_sec >= plan->obj.mtime_sec);
		FUZZ_ASSERT(f->site.dotfiles || !sib.hidden);
		/* A coding the request takes. */
		FUZZ_ASSERT(http_request_coding(buf, req,
						HTTP_CODING_BIT(coding),
						0) == coding);
		fake_close(f, &sib);
	}
	f->phase = PHASE_SERVE;
	free(sp);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = dup_exact((const char *)data, size);
	struct fake *f = calloc(1, sizeof(*f));
	char *path = malloc(HTTP_SERVE_PATH_BUF), *desc = NULL;
	char routed[HTTP_PATH_MAX];
	struct http_serve_plan plan;
	struct http_request req;
	struct http_parser p;
	int r, rlen;

	FUZZ_ASSERT(f && path);
	http_parser_init(&p);
	r = http_parse_request(&p, &req, buf, size);
	if (r <= 0)
		goto out;
	desc = malloc(size - (size_t)r + 1);
	FUZZ_ASSERT(desc);
	memcpy(desc, buf + r, size - (size_t)r);
	desc[size - (size_t)r] = '\0';
	describe_all(f, desc, size - (size_t)r);
	/* The last page given for a status wins. */
	for (unsigned int i = 0; i < f->site.nerror_pages; i++) {
		int status = f->site.error_pages[i].status;
		const char *last = f->site.error_pages[i].path;

		for (unsigned int j = i + 1; j < f->site.nerror_pages; j++) {
			if (f->site.error_pages[j].status == status)
				last = f->site.error_pages[j].path;
		}
		FUZZ_ASSERT(http_site_error_page(&f->site, status) == last);
	}
	rlen = http_route(buf, &req, routed);
	f->req = &req;
	f->path_buf = path;
	f->routed = routed;
	f->routed_len = rlen > 0 ? (size_t)rlen : 0;
	memset(path, 'U', HTTP_SERVE_PATH_BUF);
	http_serve(&f->site, buf, &req, path,
		   f->no_authorize ? &fake_ops_public : &fake_ops, f, &plan);
	check_plan(f, &req, path, rlen, &plan);
	check_answer(&plan, path);
	if (plan.action == HTTP_SERVE_FILE || plan.action == HTTP_SERVE_SPA) {
		f->attempts = 0;
		check_sibling(f, buf, &req, &plan);
	}
	/* The plan's object is the caller's to close. */
	if (plan.action == HTTP_SERVE_FILE ||
	    plan.action == HTTP_SERVE_LISTING || plan.action == HTTP_SERVE_SPA)
		fake_close(f, &plan.obj);
	FUZZ_ASSERT(live_opens(f) == 0);
	for (unsigned int i = 0; i < f->nopens; i++)
		free(f->opens[i].path);
out:
	free(desc);
	free(path);
	free(f);
	free(buf);
	return 0;
}
