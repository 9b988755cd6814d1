/* SPDX-License-Identifier: MIT */
/*
 * The serving plan: in which order a static site answers a request, written
 * once for both servers.  The server supplies the file-system operations
 * (open beneath ROOT, probe its cache) and carries out the answer the plan
 * returns; every decision between the two is taken here.
 */
#ifndef HTTP_SERVE_H
#define HTTP_SERVE_H

#include "compat.h"
#include "negotiate.h"
#include "parser.h"
#include "route.h"

/* Longest index name (--index, index_names=). */
#define HTTP_INDEX_NAME_MAX 255
/* Room for a request path with an index name joined to it. */
#define HTTP_SERVE_PATH_BUF (HTTP_PATH_MAX + HTTP_INDEX_NAME_MAX + 1)

#define HTTP_SITE_MAX_INDEX 8
#define HTTP_SITE_MAX_ERROR_PAGES 16

struct http_error_page {
	int status;
	const char *path; /* from '/', beneath ROOT */
};

/* What a site serves, as both servers are configured. */
struct http_site {
	const char *index[HTTP_SITE_MAX_INDEX]; /* names tried in order */
	unsigned int nindex;
	struct http_error_page error_pages[HTTP_SITE_MAX_ERROR_PAGES];
	unsigned int nerror_pages;
	const char *spa; /* NULL: off; else the page, from '/' */
	bool listing; /* list directories without an index (else 403) */
	bool dotfiles; /* serve and list names starting with '.' */
};

/* An index name: a file name, no '/', not "." or "..". */
bool http_site_index_name_ok(const char *name);
/* A page (error page, SPA page): a file's path beneath ROOT, from '/'. */
bool http_site_page_path_ok(const char *path);
/* "CODE=/PATH", CODE 4xx or 5xx: sets *status and *path (not checked). */
int http_site_split_error_page(const char *arg, int *status, const char **path);

/* The longest CORS origin taken. */
#define HTTP_ORIGIN_MAX 1024

enum http_origin_check {
	HTTP_ORIGIN_OK,
	HTTP_ORIGIN_BAD_BYTES, /* spaces or control characters */
	HTTP_ORIGIN_TOO_LONG,
	HTTP_ORIGIN_BAD_FORM, /* not '*' or scheme://host[:port] */
};

/* Whether origin may be a CORS allowed origin, and if not, why. */
enum http_origin_check http_site_cors_origin_check(const char *origin);

/* The operator's page for an error status, or NULL (the last given wins). */
const char *http_site_error_page(const struct http_site *site, int status);

enum http_object_type {
	HTTP_OBJECT_FILE, /* a regular file */
	HTTP_OBJECT_DIR,
	HTTP_OBJECT_OTHER, /* a FIFO, a socket, a device: never served */
};

/* Something opened beneath ROOT, held by the server until it closes it. */
struct http_object {
	void *handle; /* the server's: a descriptor, a struct file */
	enum http_object_type type;
	/* Reached through a link whose target has a hidden name (.git). */
	bool hidden;
	/* Reached through a link into a place a rule guards whose
	 * credentials the request did not give (sehttpd's --auth-file). */
	bool withheld;
	int64_t mtime_sec; /* its modification time */
	long mtime_nsec;
	int64_t size; /* its length in bytes */
};

struct http_serve_ops {
	/*
	 * Opens path (from '/', NUL-terminated; "/" is ROOT) beneath ROOT and
	 * says what it is.  Returns 0, or a negative errno (-EACCES for a
	 * directory that may be searched but not read, as open(2) says).
	 */
	int (*open)(void *ctx, const char *path, struct http_object *obj);
	/* Gives back what open() opened and the plan does not use. */
	void (*close)(void *ctx, struct http_object *obj);
	/*
	 * A fresh cached answer for the routed path (len bytes in a buffer of
	 * HTTP_SERVE_PATH_BUF, which it may use past len as scratch), or NULL.
	 */
	void *(*cache_probe)(void *ctx, char *path, size_t len);
	/*
	 * Whether the request may have the routed path (len bytes, from '/'):
	 * 0, or the status to answer instead (401 without valid credentials).
	 * NULL: every path is public.
	 */
	int (*authorize)(void *ctx, const char *path, size_t len);
};

enum http_serve_action {
	HTTP_SERVE_STATUS, /* a status page: the error page when there is one */
	HTTP_SERVE_OPTIONS, /* 204 with Allow, or a CORS preflight's answer */
	HTTP_SERVE_REDIRECT, /* 301 to the directory's path with its '/' */
	HTTP_SERVE_ENTRY, /* the answer cache_probe found */
	HTTP_SERVE_FILE, /* obj, a regular file at file */
	HTTP_SERVE_LISTING, /* obj, the directory at the request path */
	HTTP_SERVE_SPA, /* obj, the single-page app's page, with 200 */
};

struct http_serve_plan {
	enum http_serve_action action;
	int status; /* HTTP_SERVE_STATUS; the server adds the error page */
	struct http_object obj; /* FILE, LISTING, SPA */
	/* FILE, SPA: what obj is, from '/' (its name gives its type) */
	const char *file;
	size_t file_len;
	void *entry; /* HTTP_SERVE_ENTRY */
	int path_len; /* the routed path's length, once routed */
};

/*
 * How a server carries out each action of a plan; each returns what the
 * server's response code returns.
 */
struct http_serve_answers {
	int (*status)(void *ctx, int status); /* with its error page, if any */
	int (*options)(void *ctx);
	int (*redirect)(void *ctx, const char *path, size_t len);
	/* Takes over the plan's reference to its entry. */
	int (*entry)(void *ctx, void *entry);
	/* FILE, LISTING, SPA: takes over the plan's object. */
	int (*object)(void *ctx, const struct http_serve_plan *plan);
};

/*
 * Plans the answer to a GET, HEAD or OPTIONS request (buf holds its bytes,
 * req their offsets) of the site.  path (HTTP_SERVE_PATH_BUF bytes) gets the
 * routed path (path_len bytes; for an index, the index's name follows it,
 * so path[path_len] may not be NUL), and holds the names the plan points
 * to: the plan is valid while path is.  The plan's object, if any, is the
 * caller's to close.
 */
void http_serve(const struct http_site *site, const char *buf,
		const struct http_request *req, char *path,
		const struct http_serve_ops *ops, void *ctx,
		struct http_serve_plan *plan);

/* Carries out plan (path as http_serve() left it) with a's answers. */
int http_serve_answer(const struct http_serve_plan *plan, const char *path,
		      const struct http_serve_answers *a, void *ctx);

/*
 * Defines name, the http_serve_answers of a server's functions, which take
 * its exchange (type *): status_fn(x, status), options_fn(x),
 * redirect_fn(x, path, len), entry_fn(x, entry) and object_fn(x, plan).
 */
#define HTTP_SERVE_ANSWERS(name, type, status_fn, options_fn, redirect_fn, \
			   entry_fn, object_fn)                            \
	static int name##_status(void *x, int s)                           \
	{                                                                  \
		return status_fn((type *)x, s);                            \
	}                                                                  \
	static int name##_options(void *x)                                 \
	{                                                                  \
		return options_fn((type *)x);                              \
	}                                                                  \
	static int name##_redirect(void *x, const char *p, size_t n)       \
	{                                                                  \
		return redirect_fn((type *)x, p, n);                       \
	}                                                                  \
	static int name##_entry(void *x, void *e)                          \
	{                                                                  \
		return entry_fn((type *)x, e);                             \
	}                                                                  \
	static int name##_object(void *x, const struct http_serve_plan *p) \
	{                                                                  \
		return object_fn((type *)x, p);                            \
	}                                                                  \
	static const struct http_serve_answers name = {                    \
		.status = name##_status,                                   \
		.options = name##_options,                                 \
		.redirect = name##_redirect,                               \
		.entry = name##_entry,                                     \
		.object = name##_object,                                   \
	}

/*
 * Precompressed siblings: FILE.br, FILE.zst and FILE.gz beside FILE hold
 * FILE in one content coding each, and are sent as they are when that
 * coding is chosen, if the sibling is a regular file not older than FILE
 * in whole seconds (an older one predates FILE's last change).  Only for
 * files of a compressible type; a Range request asks for FILE's own bytes.
 */
struct http_precompressed {
	enum http_coding coding;
	const char *suffix; /* appended to FILE's path: ".gz" */
};

#define HTTP_PRECOMPRESSED_COUNT 3
#define HTTP_PRECOMPRESSED_SUFFIX_MAX 4 /* the longest suffix's length */
/* Room for a path the plan opens with a sibling's suffix joined to it. */
#define HTTP_SIBLING_PATH_BUF \
	(HTTP_SERVE_PATH_BUF + HTTP_PRECOMPRESSED_SUFFIX_MAX)

/* By slot: a server keeps what it saw of each sibling by slot. */
extern const struct http_precompressed
	http_precompressed[HTTP_PRECOMPRESSED_COUNT];

/* The codings siblings can be in, as HTTP_CODING_BIT()s. */
unsigned int http_precompressed_codings(void);

/* The slot of coding's sibling (coding is one of theirs). */
unsigned int http_precompressed_slot(enum http_coding coding);

/* Whether the sibling sib may stand for the file it is beside. */
bool http_sibling_usable(const struct http_object *sib,
			 const struct http_object *file);

/*
 * Opens the sibling in http_precompressed[slot] beside file (len bytes,
 * from '/') as the plan opens anything (a link to a hidden name is no
 * sibling), its path built in path (cap bytes).  Returns 0, or a negative
 * errno when there is none.
 */
int http_serve_open_sibling(const struct http_site *site,
			    const struct http_serve_ops *ops, void *ctx,
			    const char *file, size_t len, unsigned int slot,
			    char *path, size_t cap, struct http_object *sib);

/*
 * For the file obj (file, len bytes from '/') of a compressible type,
 * answered without a cache: the usable sibling in the coding the request
 * (buf holds its bytes) takes best, none for a Range.  Returns its coding
 * with *sib open (the caller's to close), or HTTP_CODING_IDENTITY with
 * nothing open.  path (cap bytes) holds the sibling's path.
 */
enum http_coding
http_serve_sibling(const struct http_site *site, const char *buf,
		   const struct http_request *req, const char *file, size_t len,
		   const struct http_object *obj,
		   const struct http_serve_ops *ops, void *ctx, char *path,
		   size_t cap, struct http_object *sib);

#endif /* HTTP_SERVE_H */
