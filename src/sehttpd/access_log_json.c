// SPDX-License-Identifier: MIT
/*
 * --log-format json: one JSON object per line, which a log pipeline reads
 * without a regular expression.  Whatever a client sent is escaped as JSON
 * requires (http/json.h): a line is always valid JSON in valid UTF-8, and
 * a long field is cut (ending in "...") rather than the line.
 */
#include <arpa/inet.h>
#include <string.h>

#include "access_log.h"
#include "http/format.h"
#include "http/json.h"
#include "http/route.h"

/* The most bytes each client field takes once escaped. */
#define METHOD_MAX 64
#define TARGET_MAX 2048
#define REFERER_MAX 1024
#define USER_AGENT_MAX 768
#define HOST_MAX 256
#define USER_MAX 256
/* Keys, punctuation, the time, an address and three numbers. */
#define FIXED_MAX 400

_Static_assert(METHOD_MAX + TARGET_MAX + REFERER_MAX + USER_AGENT_MAX +
			       HOST_MAX + USER_MAX + FIXED_MAX <
		       ACCESS_LOG_LINE_MAX,
	       "every field fits a line");

struct json_line {
	char *p;
	size_t len, cap;
};

static void put(struct json_line *l, const char *s, size_t n)
{
	if (n > l->cap - l->len)
		n = l->cap - l->len;
	memcpy(l->p + l->len, s, n);
	l->len += n;
}

static void put_str(struct json_line *l, const char *s)
{
	put(l, s, strlen(s));
}

static void put_u64(struct json_line *l, uint64_t v)
{
	char num[HTTP_U64_DIGITS];

	put(l, num, http_format_u64(num, v));
}

/* ,"key":"escaped" or ,"key":null; at most max bytes of the value. */
static void put_field(struct json_line *l, const char *key, const char *s,
		      size_t n, size_t max)
{
	put_str(l, key);
	if (!s) {
		put(l, "null", 4);
		return;
	}
	put(l, "\"", 1);
	if (l->cap - l->len >= max + 1)
		l->len += http_json_escape(s, n, l->p + l->len, max);
	put(l, "\"", 1);
}

/* A known header's value, or NULL when the request had none. */
static const char *header(const struct access_log_record *r,
			  enum http_header_id id, size_t *n)
{
	if (!r->req || !http_has_header(r->req, id))
		return NULL;
	*n = r->req->header[id].len;
	return r->reqbuf + r->req->header[id].off;
}

size_t access_log_json_line(char *out, size_t cap, const char *time,
			    const struct access_log_record *r)
{
	const struct http_request *req = r->req;
	struct json_line l = { out, 0, cap };
	char addr[INET6_ADDRSTRLEN] = "";
	const char *v;
	size_t n = 0;

	client_addr_format(r->peer, addr, sizeof(addr));
	put_str(&l, "{\"time\":\"");
	put_str(&l, time);
	put_str(&l, "\"");
	put_field(&l, ",\"remote_addr\":", addr[0] ? addr : NULL, strlen(addr),
		  INET6_ADDRSTRLEN);
	put_field(&l, ",\"user\":", r->user_len ? r->user : NULL, r->user_len,
		  USER_MAX);
	put_field(&l,
		  ",\"method\":", req ? r->reqbuf + req->method_name.off : NULL,
		  req ? req->method_name.len : 0, METHOD_MAX);
	put_field(&l, ",\"target\":", req ? r->reqbuf + req->target.off : NULL,
		  req ? req->target.len : 0, TARGET_MAX);
	put_field(&l, ",\"protocol\":",
		  !req		     ? NULL :
		  r->http2	     ? "HTTP/2.0" :
		  req->version_minor ? "HTTP/1.1" :
				       "HTTP/1.0",
		  8, 8);
	put_str(&l, ",\"status\":");
	put_u64(&l, (uint64_t)r->status);
	put_str(&l, ",\"body_bytes\":");
	put_u64(&l, r->body_bytes);
	put_str(&l, ",\"duration_us\":");
	put_u64(&l, r->duration_us);
	v = header(r, HTTP_H_REFERER, &n);
	put_field(&l, ",\"referer\":", v, n, REFERER_MAX);
	v = header(r, HTTP_H_USER_AGENT, &n);
	put_field(&l, ",\"user_agent\":", v, n, USER_AGENT_MAX);
	/* The host the vhost was chosen for (an absolute-form target's
	 * authority over Host, RFC 9112 3.2.2), its port as sent. */
	n = req ? http_request_authority(r->reqbuf, req, &v) : 0;
	put_field(&l, ",\"host\":", n ? v : NULL, n, HOST_MAX);
	put(&l, "}", 1);
	return l.len;
}
