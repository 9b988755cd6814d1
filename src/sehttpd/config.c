// SPDX-License-Identifier: MIT
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "http/header_arg.h"
#include "http/host.h"
#include "http/route.h"
#include "http/site.h"

/* Splits "[/prefix:]Name: value" without copying (http_header_arg). */
static int split_header(const char *arg, struct http_header_arg *h, char *err,
			size_t cap)
{
	enum http_header_arg_error e = http_header_arg_split(arg, h);

	if (e == HTTP_HEADER_ARG_MANAGED)
		snprintf(err, cap, "the server sets %s itself", h->managed);
	else if (e != HTTP_HEADER_ARG_OK)
		snprintf(err, cap, "%s", http_header_arg_error_text(e));
	return e == HTTP_HEADER_ARG_OK ? 0 : -1;
}

int site_check_header(const char *arg, char *err, size_t cap)
{
	struct http_header_arg h;

	if (strlen(arg) > SITE_HEADER_MAX) {
		snprintf(err, cap, "longer than %d bytes", SITE_HEADER_MAX);
		return -1;
	}
	return split_header(arg, &h, err, cap);
}

int site_check_header_with_cors(const char *arg, char *err, size_t cap)
{
	struct http_header_arg h;

	if (split_header(arg, &h, err, cap))
		return -1;
	if (http_header_arg_check_cors(&h) != HTTP_HEADER_ARG_OK) {
		snprintf(err, cap, "--cors sets %s itself", h.managed);
		return -1;
	}
	return 0;
}

/* scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) (RFC 3986 3.1) */
int site_check_cors(const char *origin, char *err, size_t cap)
{
	switch (http_site_cors_origin_check(origin)) {
	case HTTP_ORIGIN_OK:
		return 0;
	case HTTP_ORIGIN_BAD_BYTES:
		snprintf(err, cap,
			 "an origin has no spaces or control characters");
		break;
	case HTTP_ORIGIN_TOO_LONG:
		snprintf(err, cap, "too long");
		break;
	case HTTP_ORIGIN_BAD_FORM:
		snprintf(err, cap,
			 "an origin is '*' or scheme://host[:port], "
			 "without a path, query, fragment or user@");
		break;
	}
	return -1;
}

int site_check_index(const char *name, char *err, size_t cap)
{
	if (!http_site_index_name_ok(name)) {
		snprintf(err, cap, "an index is a file name, without '/'");
		return -1;
	}
	return 0;
}

int site_check_page_path(const char *path, char *err, size_t cap)
{
	if (!http_site_page_path_ok(path)) {
		snprintf(err, cap,
			 "a page is a file's path beneath ROOT, from '/'");
		return -1;
	}
	return 0;
}

int site_check_error_page(const char *arg, char *err, size_t cap)
{
	const char *path;
	int status;

	if (http_site_split_error_page(arg, &status, &path)) {
		snprintf(err, cap,
			 "expected CODE=/PATH with a 4xx or 5xx CODE");
		return -1;
	}
	return site_check_page_path(path, err, cap);
}

int site_build(struct site *s, const struct site_options *opt,
	       int (*open_page)(void *ctx, const char *path, uint64_t *size),
	       void *ctx, char *err, size_t cap)
{
	size_t used = 0, need = 64;

	*s = (struct site){ .http = { .dotfiles = opt->dotfiles,
				      .listing = opt->listing,
				      .spa = opt->spa } };
	for (unsigned int i = 0; i < opt->nheaders; i++)
		need += strlen(opt->headers[i]) + 4;
	if (opt->cors)
		need += strlen(opt->cors) + 64;
	if (need > SITE_HEADERS_TOTAL_MAX) {
		snprintf(err, cap,
			 "--header and --cors add more than %d bytes to "
			 "every response",
			 SITE_HEADERS_TOTAL_MAX);
		return -1;
	}
	s->lines = malloc(need);
	if (!s->lines) {
		snprintf(err, cap, "out of memory");
		return -1;
	}
	for (unsigned int i = 0; i < opt->nheaders; i++) {
		struct http_header_arg h;

		if (split_header(opt->headers[i], &h, err, cap))
			return -1;
		used += http_header_rule_from_arg(&s->rules[s->nrules++],
						  s->lines + used, &h);
	}
	if (opt->cors) {
		used += http_header_rule_cors(&s->rules[s->nrules++],
					      s->lines + used, opt->cors);
		s->cors = true;
	}
	for (unsigned int i = 0; i < opt->nindex; i++)
		s->http.index[s->http.nindex++] = opt->index[i];
	for (unsigned int i = 0; !opt->nindex && i < HTTP_DEFAULT_INDEX_COUNT;
	     i++)
		s->http.index[s->http.nindex++] = http_default_index[i];
	for (unsigned int i = 0; i < opt->nerror_pages; i++) {
		struct http_error_page *p =
			&s->http.error_pages[s->http.nerror_pages++];

		if (http_site_split_error_page(opt->error_pages[i], &p->status,
					       &p->path)) {
			snprintf(err, cap, "invalid --error-page '%s'",
				 opt->error_pages[i]);
			return -1;
		}
	}
	return site_check_pages(s, open_page, ctx, err, cap);
}

int site_check_pages(const struct site *s,
		     int (*open_page)(void *ctx, const char *path,
				      uint64_t *size),
		     void *ctx, char *err, size_t cap)
{
	uint64_t size;

	for (unsigned int i = 0; i < s->http.nerror_pages; i++) {
		const struct http_error_page *p = &s->http.error_pages[i];

		if (open_page(ctx, p->path + 1, &size)) {
			snprintf(err, cap, "--error-page %d=%s: %s", p->status,
				 p->path, strerror(errno));
			return -1;
		}
		/* Else every answer would be the built-in page, silently. */
		if (size > SITE_ERROR_PAGE_MAX) {
			snprintf(err, cap,
				 "--error-page %d=%s: larger than %u MiB, the "
				 "most an error page may be",
				 p->status, p->path, SITE_ERROR_PAGE_MAX >> 20);
			return -1;
		}
	}
	if (s->http.spa && open_page(ctx, s->http.spa + 1, &size)) {
		snprintf(err, cap, "--spa %s: %s", s->http.spa,
			 strerror(errno));
		return -1;
	}
	return 0;
}

void site_free(struct site *s)
{
	free(s->lines);
	s->lines = NULL;
}
