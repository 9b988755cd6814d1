/* SPDX-License-Identifier: MIT */
/*
 * What the operator configured about the site beyond ROOT: added headers
 * (--header, --cors), index names, error pages, the single-page-app
 * fallback, dotfiles and symlinks.  The flags are checked one by one as
 * the command line is read (site_check_*), then built once into a struct
 * site that is read-only while threads run.
 */
#ifndef SEHTTPD_CONFIG_H
#define SEHTTPD_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "http/response.h"
#include "http/serve.h"

#define SITE_MAX_HEADERS 32
#define SITE_MAX_INDEX HTTP_SITE_MAX_INDEX
#define SITE_MAX_ERROR_PAGES HTTP_SITE_MAX_ERROR_PAGES
/* Bytes of one --header argument; all of them fit in a response head. */
#define SITE_HEADER_MAX 1024
/* Bytes of all of them, so that every response head still fits. */
#define SITE_HEADERS_TOTAL_MAX 8192
/* The largest --error-page file: refused at start, the built-in page if
 * it grows larger later. */
#define SITE_ERROR_PAGE_MAX (1u << 20)

/* The site's flags, each argument as given and checked. */
struct site_options {
	const char *headers[SITE_MAX_HEADERS]; /* --header */
	unsigned int nheaders;
	const char *cors; /* --cors ORIGIN; NULL: off */
	const char *index[SITE_MAX_INDEX]; /* --index; none: the defaults */
	unsigned int nindex;
	const char *error_pages[SITE_MAX_ERROR_PAGES]; /* --error-page */
	unsigned int nerror_pages;
	const char *spa; /* --spa PATH; NULL: off */
	bool dotfiles; /* --dotfiles */
	bool listing; /* not --no-listing */
};

struct site {
	/* One rule per --header, then --cors's (always, on every path). */
	struct http_header_rule rules[SITE_MAX_HEADERS + 1];
	size_t nrules;
	bool cors; /* preflight requests are answered for an origin */
	/* Index names, error pages, --spa, listings, dotfiles. */
	struct http_site http;
	char *lines; /* the rules' header lines, one allocation */
};

/*
 * Each checks one flag's value as the command line gives it; on error
 * writes a one-line reason (no program name, no newline) to err.
 */
int site_check_header(const char *arg, char *err, size_t cap);
int site_check_cors(const char *origin, char *err, size_t cap);
/* A --header beside --cors: not one of the headers --cors sends. */
int site_check_header_with_cors(const char *arg, char *err, size_t cap);
int site_check_index(const char *name, char *err, size_t cap);
int site_check_error_page(const char *arg, char *err, size_t cap);
int site_check_page_path(const char *path, char *err, size_t cap);

/*
 * Builds the site from checked options; then, with ROOT open, checks that
 * every page named exists there (open_page: 0 when path, relative to ROOT,
 * opens as a regular file, whose size it stores, else -1 with errno) and
 * that error pages are within SITE_ERROR_PAGE_MAX.  Returns 0, or -1 with
 * the reason in err.
 */
int site_build(struct site *s, const struct site_options *opt,
	       int (*open_page)(void *ctx, const char *path, uint64_t *size),
	       void *ctx, char *err, size_t cap);
/*
 * Checks, as site_build() does, that the site's pages exist beneath
 * another directory (a --vhost's DIR, which serves them from there).
 */
int site_check_pages(const struct site *s,
		     int (*open_page)(void *ctx, const char *path,
				      uint64_t *size),
		     void *ctx, char *err, size_t cap);
void site_free(struct site *s);

#endif /* SEHTTPD_CONFIG_H */
