// SPDX-License-Identifier: MIT
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "http/host.h"
#include "http/route.h"
#include "http/site.h"
#include "http/token.h"

/*
 * Headers the server writes itself, per response: another line of one
 * would contradict it (framing, the representation's metadata, validators)
 * and corrupt or confuse what clients and caches make of the response.
 */
static const char *const managed[] = {
	"Content-Length", "Transfer-Encoding", "Connection",	"Keep-Alive",
	"Upgrade",	  "Trailer",	       "Date",		"Server",
	"Content-Type",	  "Content-Encoding",  "Content-Range", "Accept-Ranges",
	"ETag",		  "Last-Modified",     "Location",	"Allow",
};

/*
 * Headers --cors sends itself: with --cors, a --header line of one would
 * repeat it, and browsers refuse a response with two of them.  Others of
 * the family (Access-Control-Expose-Headers, -Allow-Credentials) are the
 * operator's to add.
 */
static const char *const cors_managed[] = {
	"Access-Control-Allow-Origin",
	"Access-Control-Allow-Methods",
	"Access-Control-Allow-Headers",
	"Access-Control-Max-Age",
};

/* Splits "[/prefix:]Name: value" without copying. */
struct header_arg {
	const char *prefix, *name, *value;
	size_t prefix_len, name_len, value_len;
};

static int split_header(const char *arg, struct header_arg *h, char *err,
			size_t cap)
{
	const char *colon, *v, *end;

	*h = (struct header_arg){ .prefix = "", .name = arg };
	if (arg[0] == '/') {
		colon = strchr(arg, ':');
		if (!colon) {
			snprintf(err, cap, "no header after the path prefix");
			return -1;
		}
		h->prefix = arg;
		h->prefix_len = (size_t)(colon - arg);
		h->name = colon + 1;
		for (size_t i = 0; i < h->prefix_len; i++) {
			unsigned char c = (unsigned char)arg[i];

			if (c <= ' ' || c == 0x7f) {
				snprintf(err, cap,
					 "the path prefix holds a space or a "
					 "control character");
				return -1;
			}
		}
	}
	colon = strchr(h->name, ':');
	if (!colon) {
		snprintf(err, cap, "expected 'Name: value'");
		return -1;
	}
	h->name_len = (size_t)(colon - h->name);
	if (!h->name_len) {
		snprintf(err, cap, "empty header name");
		return -1;
	}
	for (size_t i = 0; i < h->name_len; i++) {
		if (!http_is_tchar(h->name[i])) {
			snprintf(err, cap,
				 "a header name is a token (letters, digits, "
				 "!#$%%&'*+-.^_`|~), without spaces");
			return -1;
		}
	}
	v = colon + 1;
	end = v + strlen(v);
	while (v < end && http_is_ows(*v))
		v++;
	while (end > v && http_is_ows(end[-1]))
		end--;
	for (const char *p = v; p < end; p++) {
		unsigned char c = (unsigned char)*p;

		if ((c < ' ' && c != '\t') || c == 0x7f) {
			snprintf(err, cap,
				 "the value holds a control character "
				 "(CR, LF or another)");
			return -1;
		}
	}
	h->value = v;
	h->value_len = (size_t)(end - v);
	for (size_t i = 0; i < sizeof(managed) / sizeof(managed[0]); i++) {
		if (strlen(managed[i]) == h->name_len &&
		    !strncasecmp(managed[i], h->name, h->name_len)) {
			snprintf(err, cap, "the server sets %s itself",
				 managed[i]);
			return -1;
		}
	}
	return 0;
}

int site_check_header(const char *arg, char *err, size_t cap)
{
	struct header_arg h;

	if (strlen(arg) > SITE_HEADER_MAX) {
		snprintf(err, cap, "longer than %d bytes", SITE_HEADER_MAX);
		return -1;
	}
	return split_header(arg, &h, err, cap);
}

int site_check_header_with_cors(const char *arg, char *err, size_t cap)
{
	struct header_arg h;

	if (split_header(arg, &h, err, cap))
		return -1;
	for (size_t i = 0; i < sizeof(cors_managed) / sizeof(cors_managed[0]);
	     i++) {
		if (strlen(cors_managed[i]) == h.name_len &&
		    !strncasecmp(cors_managed[i], h.name, h.name_len)) {
			snprintf(err, cap, "--cors sets %s itself",
				 cors_managed[i]);
			return -1;
		}
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

static int add_rule(struct site *s, size_t *used, const char *prefix,
		    size_t prefix_len, const char *name, size_t name_len,
		    const char *value, size_t value_len, bool always)
{
	struct http_header_rule *r = &s->rules[s->nrules++];
	char *line = s->lines + *used;
	int n = sprintf(line, "%.*s: %.*s\r\n", (int)name_len, name,
			(int)value_len, value);

	*r = (struct http_header_rule){
		.prefix = prefix,
		.prefix_len = prefix_len,
		.lines = line,
		.lines_len = (size_t)n,
		.always = always,
	};
	*used += (size_t)n;
	return 0;
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
		struct header_arg h;

		if (split_header(opt->headers[i], &h, err, cap))
			return -1;
		add_rule(s, &used, h.prefix, h.prefix_len, h.name, h.name_len,
			 h.value, h.value_len, false);
	}
	if (opt->cors) {
		/* On errors too, so that scripts can read why. */
		add_rule(s, &used, "", 0, "Access-Control-Allow-Origin", 27,
			 opt->cors, strlen(opt->cors), true);
		/* The answer names one origin: caches must not share it. */
		if (strcmp(opt->cors, "*")) {
			s->rules[s->nrules - 1].lines_len += (size_t)sprintf(
				s->lines + used, "Vary: Origin\r\n");
			used += 14;
		}
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
