// SPDX-License-Identifier: MIT
#include "response.h"
#include "format.h"

struct status_entry {
	int code;
	const char *reason;
	const char *body;
};

#define ERROR_PAGE(code, reason)                                \
	"<!DOCTYPE html>\n<html><head><title>" #code " " reason \
	"</title></head>\n<body><h1>" #code " " reason "</h1></body></html>\n"

#define STATUS(code, reason)                           \
	{                                              \
		code, reason, ERROR_PAGE(code, reason) \
	}

static const struct status_entry statuses[] = {
	STATUS(200, "OK"),
	STATUS(204, "No Content"),
	STATUS(206, "Partial Content"),
	STATUS(301, "Moved Permanently"),
	STATUS(304, "Not Modified"),
	STATUS(308, "Permanent Redirect"),
	STATUS(400, "Bad Request"),
	STATUS(401, "Unauthorized"),
	STATUS(403, "Forbidden"),
	STATUS(404, "Not Found"),
	STATUS(405, "Method Not Allowed"),
	STATUS(408, "Request Timeout"),
	STATUS(412, "Precondition Failed"),
	STATUS(414, "URI Too Long"),
	STATUS(416, "Range Not Satisfiable"),
	STATUS(431, "Request Header Fields Too Large"),
	STATUS(500, "Internal Server Error"),
	STATUS(501, "Not Implemented"),
	STATUS(503, "Service Unavailable"),
	STATUS(505, "HTTP Version Not Supported"),
};

static const struct status_entry *find_status(int status)
{
	for (size_t i = 0; i < ARRAY_SIZE(statuses); i++) {
		if (statuses[i].code == status)
			return &statuses[i];
	}
	/* A status the table lacks is a server bug: report it as one. */
	return status == 500 ? &statuses[0] : find_status(500);
}

const char *http_status_reason(int status)
{
	return find_status(status)->reason;
}

int http_status_for_errno(int err)
{
	switch (err) {
	case ENOENT:
	case ENOTDIR:
	case ENAMETOOLONG:
		return 404;
	case EACCES:
	case EPERM:
	case EXDEV:
	case ELOOP:
	/* Not files at all: a Unix socket, a device without its driver. */
	case ENXIO:
	case ENODEV:
		return 403;
	case EMFILE:
	case ENFILE:
	case ENOMEM:
	/* Opened O_NONBLOCK: a lease on the file is being broken. */
	case EAGAIN:
		return 503;
	default:
		return 500;
	}
}

const char *http_error_body(int status, size_t *len)
{
	const char *body = find_status(status)->body;

	*len = strlen(body);
	return body;
}

struct head_writer {
	char *buf;
	size_t len;
	size_t cap;
	bool overflow;
};

static void put(struct head_writer *w, const char *s, size_t n)
{
	if (w->overflow || w->cap - w->len < n) {
		w->overflow = true;
		return;
	}
	memcpy(w->buf + w->len, s, n);
	w->len += n;
}

/* The operator's header lines that apply to this response. */
static void put_rules(struct head_writer *w, const struct http_response_head *h)
{
	for (size_t i = 0; i < h->nrules; i++) {
		const struct http_header_rule *r = &h->rules[i];

		if (h->status >= 400 && !r->always)
			continue;
		/* A guarded response stays private whatever the operator
		 * says of caching elsewhere: a second Cache-Control with
		 * "public" would leave shared caches to choose. */
		if (h->cache_private && r->cache_control)
			continue;
		if (r->prefix_len &&
		    (!h->path || h->path_len < r->prefix_len ||
		     memcmp(h->path, r->prefix, r->prefix_len)))
			continue;
		put(w, r->lines, r->lines_len);
	}
}

/* A string literal, its length known at compile time. */
#define put_lit(w, lit) put(w, lit, sizeof(lit) - 1)

static void put_str(struct head_writer *w, const char *s)
{
	put(w, s, strlen(s));
}

static void put_u64(struct head_writer *w, uint64_t v)
{
	char digits[HTTP_U64_DIGITS];

	put(w, digits, http_format_u64(digits, v));
}

size_t http_response_head_build(char *buf, size_t cap,
				const struct http_response_head *h)
{
	struct head_writer w = { buf, 0, cap, false };
	const struct status_entry *st = find_status(h->status);

	/* RFC 9110 2.5: a server answers with its own version, also to 1.0. */
	put_lit(&w, "HTTP/1.1 ");
	put_u64(&w, (uint64_t)st->code);
	put(&w, " ", 1);
	put_str(&w, st->reason);
	put_lit(&w, "\r\nServer: ");
	put_str(&w, h->server);
	put_lit(&w, "\r\nDate: ");
	put(&w, h->date, HTTP_DATE_LEN);
	if (h->content_type) {
		put_lit(&w, "\r\nContent-Type: ");
		put_str(&w, h->content_type);
	}
	if (h->content_length >= 0) {
		put_lit(&w, "\r\nContent-Length: ");
		put_u64(&w, (uint64_t)h->content_length);
	}
	if (h->chunked)
		put_lit(&w, "\r\nTransfer-Encoding: chunked");
	if (h->last_modified != HTTP_NO_TIME) {
		char date[HTTP_DATE_LEN];

		http_format_date(date, h->last_modified);
		put_lit(&w, "\r\nLast-Modified: ");
		put(&w, date, sizeof(date));
	}
	if (h->location) {
		put_lit(&w, "\r\nLocation: ");
		put(&w, h->location, h->location_len);
	}
	if (h->allow_get_head)
		put_lit(&w, "\r\nAllow: GET, HEAD");
	if (h->allow_get_head && h->allow_options)
		put_lit(&w, ", OPTIONS");
	if (h->cache_private)
		put_lit(&w, "\r\nCache-Control: private");
	if (!h->keep_alive)
		put_lit(&w, "\r\nConnection: close");
	else if (h->version_minor == 0)
		put_lit(&w, "\r\nConnection: keep-alive");
	put(&w, "\r\n", 2);
	if (h->extra)
		put(&w, h->extra, h->extra_len);
	put_rules(&w, h);
	put(&w, "\r\n", 2);
	return w.overflow ? 0 : w.len;
}
