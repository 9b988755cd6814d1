// SPDX-License-Identifier: MIT
/* The serving plan, over a file system and a cache made up here. */
#include "harness.h"

#include "http/serve.h"

struct fake_node {
	const char *path; /* from '/' */
	enum http_object_type type;
	bool hidden; /* a link to a hidden name */
	int err; /* open fails with -err */
	int64_t mtime; /* seconds; nanoseconds are mtime % 7 */
	bool withheld; /* a link into a guarded place */
	bool empty; /* a file of no bytes */
};

struct fake_fs {
	const struct fake_node *nodes;
	const char *cached; /* the one path the cache holds, or NULL */
	int open; /* objects opened and not closed */
	int opens;
	int authorized; /* calls of authorize */
};

static const struct fake_node site_nodes[] = {
	{ "/", HTTP_OBJECT_DIR },
	{ "/a.txt", HTTP_OBJECT_FILE },
	{ "/app.js", HTTP_OBJECT_FILE },
	{ "/spa.html", HTTP_OBJECT_FILE },
	{ "/404.html", HTTP_OBJECT_FILE },
	{ "/fifo", HTTP_OBJECT_OTHER },
	{ "/innocent", HTTP_OBJECT_FILE, true },
	{ "/noindex", HTTP_OBJECT_DIR },
	{ "/both", HTTP_OBJECT_DIR },
	{ "/both/index.html", HTTP_OBJECT_FILE },
	{ "/both/index.htm", HTTP_OBJECT_FILE },
	{ "/htm", HTTP_OBJECT_DIR },
	{ "/htm/index.html", HTTP_OBJECT_DIR }, /* not a file: skipped */
	{ "/htm/index.htm", HTTP_OBJECT_FILE },
	{ "/hiddenindex", HTTP_OBJECT_DIR },
	{ "/hiddenindex/index.html", HTTP_OBJECT_FILE, true },
	{ "/guardedindex", HTTP_OBJECT_DIR },
	{ "/guardedindex/index.html", HTTP_OBJECT_FILE, .withheld = true },
	{ "/guarded.txt", HTTP_OBJECT_FILE, .withheld = true },
	{ "/searchable", 0, false, EACCES },
	{ "/searchable/index.html", HTTP_OBJECT_FILE },
	{ "/locked", 0, false, EACCES },
	/* Index files there but not to be served: unreadable, a link out of
	 * ROOT, a lease being broken; and one unreadable in a directory
	 * that may only be searched. */
	{ "/unreadable", HTTP_OBJECT_DIR },
	{ "/unreadable/index.html", 0, false, EACCES },
	{ "/unreadable/index.htm", HTTP_OBJECT_FILE },
	{ "/outside", HTTP_OBJECT_DIR },
	{ "/outside/index.html", 0, false, EXDEV },
	{ "/leased", HTTP_OBJECT_DIR },
	{ "/leased/index.html", 0, false, EAGAIN },
	{ "/sealed", 0, false, EACCES },
	{ "/sealed/index.html", 0, false, EACCES },
	{ "/busy", 0, false, EMFILE },
	/* Precompressed siblings: .br a nanosecond older than its file (the
	 * same second), .gz newer, .zst older (an earlier second); a
	 * directory and a hidden link. */
	{ "/s.css", HTTP_OBJECT_FILE, false, 0, 107 },
	{ "/s.css.br", HTTP_OBJECT_FILE, false, 0, 106 },
	{ "/s.css.gz", HTTP_OBJECT_FILE, false, 0, 200 },
	{ "/s.css.zst", HTTP_OBJECT_FILE, false, 0, 100 },
	{ "/d.txt", HTTP_OBJECT_FILE, false, 0, 100 },
	{ "/d.txt.gz", HTTP_OBJECT_DIR, false, 0, 200 },
	{ "/h.js", HTTP_OBJECT_FILE, false, 0, 100 },
	{ "/h.js.gz", HTTP_OBJECT_FILE, true, 0, 200 },
	{ "/e.js", HTTP_OBJECT_FILE, false, 0, 100 },
	{ "/e.js.br", HTTP_OBJECT_FILE, false, 0, 200, .empty = true },
	{ "/e.js.gz", HTTP_OBJECT_FILE, false, 0, 200 },
	{ NULL },
};

static int fake_open(void *ctx, const char *path, struct http_object *obj)
{
	struct fake_fs *fs = ctx;

	for (const struct fake_node *n = fs->nodes; n->path; n++) {
		size_t len = strlen(n->path);

		/* "/dir/" names what "/dir" does, as open(2) takes it. */
		if (strncmp(path, n->path, len) ||
		    (path[len] && strcmp(path + len, "/")))
			continue;
		if (n->err)
			return -n->err;
		if (path[len] && n->type != HTTP_OBJECT_DIR &&
		    n->type != HTTP_OBJECT_FILE)
			return -ENOTDIR;
		obj->handle = (void *)n;
		obj->type = n->type;
		obj->hidden = n->hidden;
		obj->withheld = n->withheld;
		obj->mtime_sec = n->mtime / 7;
		obj->mtime_nsec = n->mtime % 7;
		obj->size = n->empty ? 0 : 1;
		fs->open++;
		fs->opens++;
		return 0;
	}
	return -ENOENT;
}

static void fake_close(void *ctx, struct http_object *obj)
{
	struct fake_fs *fs = ctx;

	CHECK(obj->handle != NULL);
	fs->open--;
}

static void *fake_cache_probe(void *ctx, char *path, size_t len)
{
	struct fake_fs *fs = ctx;

	if (fs->cached && strlen(fs->cached) == len &&
	    !memcmp(fs->cached, path, len))
		return (void *)fs->cached;
	return NULL;
}

static const struct http_serve_ops fake_ops = {
	.open = fake_open,
	.close = fake_close,
	.cache_probe = fake_cache_probe,
};

static void default_site(struct http_site *site)
{
	*site = (struct http_site){
		.index = { "index.html", "index.htm" },
		.nindex = 2,
		.listing = true,
	};
}

/* Plans "METHOD TARGET HTTP/1.1"; checks that only the plan's object is
 * left open.  path must have HTTP_SERVE_PATH_BUF bytes. */
static void plan_with(const struct http_site *site, struct fake_fs *fs,
		      const struct http_serve_ops *ops, const char *method,
		      const char *target, char *path, struct http_serve_plan *p)
{
	char s[HTTP_MAX_HEAD];
	struct http_request req;
	struct http_parser parser;
	int n = snprintf(s, sizeof(s), "%s %s HTTP/1.1\r\nHost: h\r\n\r\n",
			 method, target);

	http_parser_init(&parser);
	CHECK_EQ_INT(http_parse_request(&parser, &req, s, (size_t)n), n);
	http_serve(site, s, &req, path, ops, fs, p);
	CHECK_EQ_INT(fs->open,
		     p->action == HTTP_SERVE_FILE ||
				     p->action == HTTP_SERVE_LISTING ||
				     p->action == HTTP_SERVE_SPA ?
			     1 :
			     0);
}

static void plan(const struct http_site *site, struct fake_fs *fs,
		 const char *method, const char *target, char *path,
		 struct http_serve_plan *p)
{
	plan_with(site, fs, &fake_ops, method, target, path, p);
}

#define PLAN(site, fs, method, target)  \
	char path[HTTP_SERVE_PATH_BUF]; \
	struct http_serve_plan p;       \
	plan(site, fs, method, target, path, &p)

static const char *node_path(const struct http_serve_plan *p)
{
	return ((const struct fake_node *)p->obj.handle)->path;
}

TEST(status_from_routing)
{
	struct http_site site;
	struct fake_fs fs = { site_nodes };

	default_site(&site);
	PLAN(&site, &fs, "GET", "/../etc/passwd");
	CHECK_EQ_INT(p.action, HTTP_SERVE_STATUS);
	CHECK_EQ_INT(p.status, 400);
	CHECK_EQ_INT(fs.opens, 0);
}

TEST(options_before_any_lookup)
{
	struct http_site site;
	struct fake_fs fs = { site_nodes };

	default_site(&site);
	PLAN(&site, &fs, "OPTIONS", "/missing");
	CHECK_EQ_INT(p.action, HTTP_SERVE_OPTIONS);
	CHECK_EQ_INT(p.path_len, 8);
	CHECK_EQ_INT(fs.opens, 0);
}

/* Protects /private/: answers 401 there, and records what it saw. */
static int fake_authorize(void *ctx, const char *path, size_t len)
{
	struct fake_fs *fs = ctx;

	fs->authorized++;
	return len >= 9 && !memcmp(path, "/private/", 9) ? 401 : 0;
}

static const struct http_serve_ops auth_ops = {
	.open = fake_open,
	.close = fake_close,
	.cache_probe = fake_cache_probe,
	.authorize = fake_authorize,
};

/* After routing (on the decoded path) and OPTIONS, before anything else:
 * a hidden name, the cache or the file system. */
TEST(authorize_before_any_lookup)
{
	static const char *const targets[] = {
		"/private/.env",    "/private/a.txt",	"/x/../private/a.txt",
		"/%70rivate/a.txt", "/private/missing",
	};
	struct http_site site;
	char path[HTTP_SERVE_PATH_BUF];
	struct http_serve_plan p;

	default_site(&site);
	for (size_t i = 0; i < ARRAY_SIZE(targets); i++) {
		struct fake_fs fs = { site_nodes, "/private/a.txt" };

		plan_with(&site, &fs, &auth_ops, "GET", targets[i], path, &p);
		CHECK_EQ_INT(p.action, HTTP_SERVE_STATUS);
		CHECK_EQ_INT(p.status, 401);
		CHECK_EQ_INT(fs.authorized, 1);
		CHECK_EQ_INT(fs.opens, 0);
	}
	{
		struct fake_fs fs = { site_nodes };

		plan_with(&site, &fs, &auth_ops, "OPTIONS", "/private/a", path,
			  &p);
		CHECK_EQ_INT(p.action, HTTP_SERVE_OPTIONS);
		CHECK_EQ_INT(fs.authorized, 0);
		plan_with(&site, &fs, &auth_ops, "POST", "/private/a", path,
			  &p);
		CHECK_EQ_INT(p.status, 405);
		CHECK_EQ_INT(fs.authorized, 0);
		plan_with(&site, &fs, &auth_ops, "GET", "/a.txt", path, &p);
		CHECK_EQ_INT(p.action, HTTP_SERVE_FILE);
		CHECK_EQ_INT(fs.authorized, 1);
		fake_close(&fs, &p.obj);
	}
}

TEST(hidden_paths_before_the_cache)
{
	struct http_site site;
	struct fake_fs fs = { site_nodes, "/.env" };

	default_site(&site);
	{
		PLAN(&site, &fs, "GET", "/.env");
		CHECK_EQ_INT(p.action, HTTP_SERVE_STATUS);
		CHECK_EQ_INT(p.status, 404);
	}
	site.dotfiles = true;
	{
		PLAN(&site, &fs, "GET", "/.env");
		CHECK_EQ_INT(p.action, HTTP_SERVE_ENTRY);
		CHECK(p.entry == fs.cached);
	}
}

TEST(cache_before_the_file_system)
{
	struct http_site site;
	struct fake_fs fs = { site_nodes, "/a.txt" };

	default_site(&site);
	PLAN(&site, &fs, "GET", "/a.txt?x=1");
	CHECK_EQ_INT(p.action, HTTP_SERVE_ENTRY);
	CHECK_EQ_INT(fs.opens, 0);
}

TEST(file)
{
	struct http_site site;
	struct fake_fs fs = { site_nodes };

	default_site(&site);
	PLAN(&site, &fs, "HEAD", "/a.txt");
	CHECK_EQ_INT(p.action, HTTP_SERVE_FILE);
	CHECK_EQ_STR(node_path(&p), "/a.txt");
	CHECK_EQ_INT(p.file_len, 6);
	CHECK(!strncmp(p.file, "/a.txt", p.file_len));
}

TEST(file_with_slash_is_404)
{
	struct http_site site;
	struct fake_fs fs = { site_nodes };

	default_site(&site);
	PLAN(&site, &fs, "GET", "/a.txt/");
	CHECK_EQ_INT(p.action, HTTP_SERVE_STATUS);
	CHECK_EQ_INT(p.status, 404);
}

TEST(not_a_file_is_403)
{
	struct http_site site;
	struct fake_fs fs = { site_nodes };

	default_site(&site);
	PLAN(&site, &fs, "GET", "/fifo");
	CHECK_EQ_INT(p.action, HTTP_SERVE_STATUS);
	CHECK_EQ_INT(p.status, 403);
}

TEST(link_to_hidden_name_is_404)
{
	struct http_site site;
	struct fake_fs fs = { site_nodes };

	default_site(&site);
	{
		PLAN(&site, &fs, "GET", "/innocent");
		CHECK_EQ_INT(p.action, HTTP_SERVE_STATUS);
		CHECK_EQ_INT(p.status, 404);
	}
	site.dotfiles = true;
	{
		PLAN(&site, &fs, "GET", "/innocent");
		CHECK_EQ_INT(p.action, HTTP_SERVE_FILE);
	}
}

TEST(directory_without_slash_redirects)
{
	struct http_site site;
	struct fake_fs fs = { site_nodes };

	default_site(&site);
	PLAN(&site, &fs, "GET", "/both");
	CHECK_EQ_INT(p.action, HTTP_SERVE_REDIRECT);
	CHECK_EQ_INT(p.path_len, 5);
	CHECK_EQ_STR(path, "/both");
}

TEST(index_names_in_order)
{
	struct http_site site;
	struct fake_fs fs = { site_nodes };

	default_site(&site);
	{
		PLAN(&site, &fs, "GET", "/both/");
		CHECK_EQ_INT(p.action, HTTP_SERVE_FILE);
		CHECK_EQ_STR(node_path(&p), "/both/index.html");
		CHECK_EQ_STR(p.file, "/both/index.html");
		CHECK_EQ_INT(p.path_len, 6);
		fs.open = 0;
	}
	{
		/* index.html is a directory there: index.htm. */
		PLAN(&site, &fs, "GET", "/htm/");
		CHECK_EQ_STR(node_path(&p), "/htm/index.htm");
		fs.open = 0;
	}
	site.index[0] = "index.htm";
	site.nindex = 1;
	{
		PLAN(&site, &fs, "GET", "/both/");
		CHECK_EQ_STR(node_path(&p), "/both/index.htm");
	}
}

/*
 * An index linked to a hidden name or into a guarded place is there but
 * not to be served: it stands for the directory, whose listing it was
 * written to keep back (before, the listing was shown).  Linked so, a
 * file is not there.
 */
TEST(hidden_or_withheld_index_hides_the_listing)
{
	struct http_site site;
	struct fake_fs fs = { site_nodes };

	default_site(&site);
	{
		PLAN(&site, &fs, "GET", "/hiddenindex/");
		CHECK_EQ_INT(p.action, HTTP_SERVE_STATUS);
		CHECK_EQ_INT(p.status, 403);
		CHECK_EQ_INT(fs.open, 0);
	}
	{
		PLAN(&site, &fs, "GET", "/guardedindex/");
		CHECK_EQ_INT(p.action, HTTP_SERVE_STATUS);
		CHECK_EQ_INT(p.status, 403);
		CHECK_EQ_INT(fs.open, 0);
	}
	{
		PLAN(&site, &fs, "GET", "/guarded.txt");
		CHECK_EQ_INT(p.action, HTTP_SERVE_STATUS);
		CHECK_EQ_INT(p.status, 404);
		CHECK_EQ_INT(fs.open, 0);
	}
	/* With dotfiles on, a hidden index is served; a withheld one not. */
	site.dotfiles = true;
	{
		PLAN(&site, &fs, "GET", "/hiddenindex/");
		CHECK_EQ_INT(p.action, HTTP_SERVE_FILE);
		CHECK_EQ_STR(node_path(&p), "/hiddenindex/index.html");
		fs.open = 0;
	}
	{
		PLAN(&site, &fs, "GET", "/guardedindex/");
		CHECK_EQ_INT(p.status, 403);
		CHECK_EQ_INT(fs.open, 0);
	}
}

TEST(listing_or_403)
{
	struct http_site site;
	struct fake_fs fs = { site_nodes };

	default_site(&site);
	{
		PLAN(&site, &fs, "GET", "/noindex/?C=S;O=D");
		CHECK_EQ_INT(p.action, HTTP_SERVE_LISTING);
		CHECK_EQ_STR(path, "/noindex/");
		fs.open = 0;
	}
	site.listing = false;
	{
		PLAN(&site, &fs, "GET", "/noindex/");
		CHECK_EQ_INT(p.action, HTTP_SERVE_STATUS);
		CHECK_EQ_INT(p.status, 403);
	}
}

TEST(searchable_directory_serves_its_index)
{
	struct http_site site;
	struct fake_fs fs = { site_nodes };

	default_site(&site);
	{
		PLAN(&site, &fs, "GET", "/searchable/");
		CHECK_EQ_INT(p.action, HTTP_SERVE_FILE);
		CHECK_EQ_STR(node_path(&p), "/searchable/index.html");
		/* The name whole: its type and siblings come from it. */
		CHECK_EQ_MEM(p.file, p.file_len, "/searchable/index.html");
		CHECK_EQ_INT(strlen(p.file), p.file_len);
		fs.open = 0;
	}
	{
		PLAN(&site, &fs, "GET", "/searchable");
		CHECK_EQ_INT(p.action, HTTP_SERVE_REDIRECT);
		CHECK_EQ_STR(path, "/searchable");
	}
	{
		PLAN(&site, &fs, "GET", "/locked/");
		CHECK_EQ_INT(p.action, HTTP_SERVE_STATUS);
		CHECK_EQ_INT(p.status, 403);
	}
}

TEST(index_there_but_not_served_hides_the_listing)
{
	static const struct {
		const char *target;
		int status;
	} cases[] = {
		{ "/unreadable/", 403 }, /* not index.htm after it either */
		{ "/outside/", 403 },	 { "/leased/", 503 },
		{ "/sealed/", 403 },	 { "/sealed", 403 },
	};
	struct http_site site;
	struct fake_fs fs = { site_nodes };

	default_site(&site);
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		PLAN(&site, &fs, "GET", cases[i].target);
		CHECK_EQ_INT(p.action, HTTP_SERVE_STATUS);
		CHECK_EQ_INT(p.status, cases[i].status);
		CHECK_EQ_INT(fs.open, 0);
	}
}

TEST(errors_of_open)
{
	struct http_site site;
	struct fake_fs fs = { site_nodes };

	default_site(&site);
	{
		PLAN(&site, &fs, "GET", "/busy");
		CHECK_EQ_INT(p.status, 503);
	}
	{
		PLAN(&site, &fs, "GET", "/missing");
		CHECK_EQ_INT(p.action, HTTP_SERVE_STATUS);
		CHECK_EQ_INT(p.status, 404);
	}
}

TEST(spa_takes_missing_routes)
{
	struct http_site site;
	struct fake_fs fs = { site_nodes };

	default_site(&site);
	site.spa = "/spa.html";
	{
		PLAN(&site, &fs, "GET", "/users/42");
		CHECK_EQ_INT(p.action, HTTP_SERVE_SPA);
		CHECK_EQ_STR(node_path(&p), "/spa.html");
		CHECK_EQ_STR(p.file, "/spa.html");
		fs.open = 0;
	}
	{
		/* A missing file, a hidden path, another error: not a route. */
		PLAN(&site, &fs, "GET", "/missing.js");
		CHECK_EQ_INT(p.status, 404);
	}
	{
		PLAN(&site, &fs, "GET", "/.git/x");
		CHECK_EQ_INT(p.status, 404);
	}
	{
		PLAN(&site, &fs, "GET", "/busy");
		CHECK_EQ_INT(p.status, 503);
	}
	site.spa = "/none.html";
	{
		PLAN(&site, &fs, "GET", "/users/42");
		CHECK_EQ_INT(p.action, HTTP_SERVE_STATUS);
		CHECK_EQ_INT(p.status, 404);
	}
}

TEST(error_pages_last_wins)
{
	struct http_site site;

	default_site(&site);
	CHECK(http_site_error_page(&site, 404) == NULL);
	site.error_pages[0] = (struct http_error_page){ 404, "/a.html" };
	site.error_pages[1] = (struct http_error_page){ 500, "/5.html" };
	site.error_pages[2] = (struct http_error_page){ 404, "/b.html" };
	site.nerror_pages = 3;
	CHECK_EQ_STR(http_site_error_page(&site, 404), "/b.html");
	CHECK_EQ_STR(http_site_error_page(&site, 500), "/5.html");
	CHECK(http_site_error_page(&site, 403) == NULL);
}

/*
 * http_serve_sibling() for "GET target" with the header lines extra,
 * beside target opened as a file; returns the coding and sets *path to
 * the sibling's, "" for none.  Only the sibling may be left open.
 */
static enum http_coding sibling(const struct http_site *site,
				struct fake_fs *fs, const char *target,
				const char *extra, const char **path)
{
	static char sib_path[HTTP_SIBLING_PATH_BUF];
	char s[HTTP_MAX_HEAD];
	struct http_request req;
	struct http_parser parser;
	struct http_object obj, sib;
	enum http_coding coding;
	int n = snprintf(s, sizeof(s), "GET %s HTTP/1.1\r\nHost: h\r\n%s\r\n",
			 target, extra);

	http_parser_init(&parser);
	CHECK_EQ_INT(http_parse_request(&parser, &req, s, (size_t)n), n);
	CHECK_EQ_INT(fake_open(fs, target, &obj), 0);
	coding = http_serve_sibling(site, s, &req, target, strlen(target), &obj,
				    &fake_ops, fs, sib_path, sizeof(sib_path),
				    &sib);
	fake_close(fs, &obj);
	*path = "";
	if (coding != HTTP_CODING_IDENTITY) {
		*path = ((const struct fake_node *)sib.handle)->path;
		CHECK_EQ_STR(sib_path, *path);
		fake_close(fs, &sib);
	}
	CHECK_EQ_INT(fs->open, 0);
	return coding;
}

TEST(sibling_in_the_coding_taken_best)
{
	static const struct {
		const char *target, *extra;
		bool dotfiles;
		enum http_coding coding;
		const char *path; /* the sibling sent, "" for none */
	} cases[] = {
		/* A tie: the smallest output's. */
		{ "/s.css", "Accept-Encoding: gzip, br\r\n", false,
		  HTTP_CODING_BR, "/s.css.br" },
		{ "/s.css",
		  "Accept-Encoding: br;q=0.5\r\nAccept-Encoding: gzip\r\n",
		  false, HTTP_CODING_GZIP, "/s.css.gz" },
		{ "/s.css", "Accept-Encoding: deflate\r\n", false,
		  HTTP_CODING_IDENTITY, "" },
		{ "/s.css", "", false, HTTP_CODING_IDENTITY, "" },
		/* .zst is a second older: the next coding taken. */
		{ "/s.css", "Accept-Encoding: zstd, gzip;q=0.5\r\n", false,
		  HTTP_CODING_GZIP, "/s.css.gz" },
		{ "/s.css", "Accept-Encoding: zstd\r\n", false,
		  HTTP_CODING_IDENTITY, "" },
		/* A directory, and a link to a hidden name. */
		{ "/d.txt", "Accept-Encoding: gzip\r\n", false,
		  HTTP_CODING_IDENTITY, "" },
		{ "/h.js", "Accept-Encoding: gzip\r\n", false,
		  HTTP_CODING_IDENTITY, "" },
		{ "/h.js", "Accept-Encoding: gzip\r\n", true, HTTP_CODING_GZIP,
		  "/h.js.gz" },
		/* An empty .br (a build step that failed): the .gz. */
		{ "/e.js", "Accept-Encoding: br, gzip\r\n", false,
		  HTTP_CODING_GZIP, "/e.js.gz" },
		{ "/e.js", "Accept-Encoding: br\r\n", false,
		  HTTP_CODING_IDENTITY, "" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct http_site site;
		struct fake_fs fs = { site_nodes };
		const char *path;

		default_site(&site);
		site.dotfiles = cases[i].dotfiles;
		CHECK_EQ_INT(sibling(&site, &fs, cases[i].target,
				     cases[i].extra, &path),
			     cases[i].coding);
		CHECK_EQ_STR(path, cases[i].path);
	}
}

TEST(sibling_never_for_a_range)
{
	struct http_site site;
	struct fake_fs fs = { site_nodes };
	const char *path;

	default_site(&site);
	fs.opens = 0;
	CHECK_EQ_INT(sibling(&site, &fs, "/s.css",
			     "Accept-Encoding: gzip\r\nRange: bytes=0-1\r\n",
			     &path),
		     HTTP_CODING_IDENTITY);
	CHECK_EQ_INT(fs.opens, 1);
}

TEST(sibling_slots_and_usability)
{
	struct http_object file = { .type = HTTP_OBJECT_FILE,
				    .mtime_sec = 10,
				    .mtime_nsec = 5,
				    .size = 100 };
	struct http_object sib = file;

	CHECK_EQ_INT(http_precompressed_codings(),
		     HTTP_CODING_BIT(HTTP_CODING_BR) |
			     HTTP_CODING_BIT(HTTP_CODING_ZSTD) |
			     HTTP_CODING_BIT(HTTP_CODING_GZIP));
	for (unsigned int slot = 0; slot < HTTP_PRECOMPRESSED_COUNT; slot++) {
		CHECK_EQ_INT(http_precompressed_slot(
				     http_precompressed[slot].coding),
			     slot);
		CHECK(strlen(http_precompressed[slot].suffix) <=
		      HTTP_PRECOMPRESSED_SUFFIX_MAX);
	}
	CHECK(http_sibling_usable(&sib, &file));
	/* Its time cut to the second, as brotli -k copies it. */
	sib.mtime_nsec = 0;
	CHECK(http_sibling_usable(&sib, &file));
	sib.mtime_sec = 9;
	sib.mtime_nsec = 999999999;
	CHECK(!http_sibling_usable(&sib, &file));
	sib.mtime_sec = 11;
	CHECK(http_sibling_usable(&sib, &file));
	sib.size = 0; /* a build step that failed */
	CHECK(!http_sibling_usable(&sib, &file));
	sib.size = 20;
	sib.type = HTTP_OBJECT_DIR;
	CHECK(!http_sibling_usable(&sib, &file));
}

/* Which answer ran, for the plans below. */
struct answered {
	const char *what;
	int status;
	size_t len;
};

static int answer_status(struct answered *a, int status)
{
	a->what = "status";
	a->status = status;
	return 1;
}

static int answer_options(struct answered *a)
{
	a->what = "options";
	return 2;
}

static int answer_redirect(struct answered *a, const char *path, size_t len)
{
	a->what = path;
	a->len = len;
	return 3;
}

static int answer_entry(struct answered *a, const char *entry)
{
	a->what = entry;
	return 4;
}

static int answer_object(struct answered *a, const struct http_serve_plan *p)
{
	a->what = node_path(p);
	return 5;
}

HTTP_SERVE_ANSWERS(test_answers, struct answered, answer_status, answer_options,
		   answer_redirect, answer_entry, answer_object);

TEST(answers_carry_out_each_action)
{
	static const struct {
		const char *method, *target, *what;
		int ret;
	} cases[] = {
		{ "GET", "/missing", "status", 1 },
		{ "OPTIONS", "*", "options", 2 },
		{ "GET", "/noindex", "/noindex", 3 },
		{ "GET", "/cached.txt", "/cached.txt", 4 },
		{ "GET", "/a.txt", "/a.txt", 5 },
		{ "GET", "/noindex/", "/noindex", 5 },
	};
	struct http_site site;

	default_site(&site);
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct fake_fs fs = { site_nodes, "/cached.txt" };
		struct answered a = { NULL };
		PLAN(&site, &fs, cases[i].method, cases[i].target);

		CHECK_EQ_INT(http_serve_answer(&p, path, &test_answers, &a),
			     cases[i].ret);
		CHECK_EQ_STR(a.what, cases[i].what);
		if (p.action == HTTP_SERVE_REDIRECT)
			CHECK_EQ_INT(a.len, strlen("/noindex"));
		if (p.action == HTTP_SERVE_STATUS)
			CHECK_EQ_INT(a.status, 404);
	}
}
