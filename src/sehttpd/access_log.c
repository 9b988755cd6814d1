// SPDX-License-Identifier: MIT
#include "access_log.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>

#include "http/format.h"

/*
 * The longest a field may grow once escaped; a longer one is cut and ends in
 * "...", so that the line keeps its structure (status, size, Referer and
 * User-Agent after a huge target).  With the fixed-width fields (address,
 * time, status, size, at most 130 bytes with the separators), a line stays
 * within LINE_MAX_BYTES.
 */
#define USER_MAX 256
#define METHOD_MAX 64
#define TARGET_MAX 2048
#define REFERER_MAX 1024
#define USER_AGENT_MAX 768
#define LINE_MAX_BYTES 4608

_Static_assert(USER_MAX + METHOD_MAX + TARGET_MAX + REFERER_MAX +
			       USER_AGENT_MAX + 130 <
		       LINE_MAX_BYTES,
	       "every field fits a line");
_Static_assert(LINE_MAX_BYTES <= ACCESS_LOG_LINE_MAX, "the longest line");

void client_addr_set(struct client_addr *peer, const struct sockaddr *sa)
{
	peer->family = sa->sa_family;
	if (sa->sa_family == AF_INET6)
		memcpy(peer->addr,
		       &((const struct sockaddr_in6 *)sa)->sin6_addr, 16);
	else if (sa->sa_family == AF_INET)
		memcpy(peer->addr, &((const struct sockaddr_in *)sa)->sin_addr,
		       4);
}

/* ::ffff:a.b.c.d, read as bytes: addr is not aligned as an in6_addr. */
static bool v4_mapped(const uint8_t addr[16])
{
	static const uint8_t prefix[12] = { [10] = 0xff, [11] = 0xff };

	return !memcmp(addr, prefix, sizeof(prefix));
}

void client_addr_format(const struct client_addr *peer, char *out, size_t len)
{
	/* An IPv4 client of a dual-stack socket (or relayed as one by PROXY)
	 * is ::ffff:a.b.c.d: logged as a.b.c.d, as nginx does. */
	if (peer->family == AF_INET6 && v4_mapped(peer->addr))
		inet_ntop(AF_INET, peer->addr + 12, out, (socklen_t)len);
	else if (peer->family == AF_INET || peer->family == AF_INET6)
		inet_ntop(peer->family, peer->addr, out, (socklen_t)len);
	else if (peer->family == AF_UNIX) /* a client has no name there */
		snprintf(out, len, "unix:");
}

struct line {
	char *p;
	size_t len;
	size_t cap;
};

static void put(struct line *l, const char *s, size_t n)
{
	if (n > l->cap - l->len)
		n = l->cap - l->len;
	memcpy(l->p + l->len, s, n);
	l->len += n;
}

/* A field that is not quoted (the user) escapes spaces too. */
static bool is_plain(unsigned char c, bool quoted)
{
	return c >= (quoted ? 0x20 : 0x21) && c < 0x7f && c != '"' && c != '\\';
}

/*
 * Escapes as nginx does: '"', '\' and non-printable bytes become \xHH, and
 * spaces too where not quoted.  At most max bytes: a longer field is cut
 * between two escapes, before "...".
 */
static void put_escaped_as(struct line *l, const char *s, size_t n, size_t max,
			   bool quoted)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t escaped = 0, end = l->len + max;

	for (size_t i = 0; i < n; i++)
		escaped += is_plain((unsigned char)s[i], quoted) ? 1 : 4;
	if (escaped > max)
		end -= 3; /* room for the "..." */
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (is_plain(c, quoted)) {
			if (l->len + 1 > end)
				break;
			put(l, (const char *)&c, 1);
		} else {
			char e[4] = { '\\', 'x', hex[c >> 4], hex[c & 15] };

			if (l->len + 4 > end)
				break;
			put(l, e, 4);
		}
	}
	if (escaped > max)
		put(l, "...", 3);
}

static void put_escaped(struct line *l, const char *s, size_t n, size_t max)
{
	put_escaped_as(l, s, n, max, true);
}

static void put_header(struct line *l, const char *reqbuf,
		       const struct http_request *req, enum http_header_id id,
		       size_t max)
{
	put(l, " \"", 2);
	if (req && http_has_header(req, id) && req->header[id].len)
		put_escaped(l, reqbuf + req->header[id].off,
			    req->header[id].len, max);
	else
		put(l, "-", 1);
	put(l, "\"", 1);
}

void access_log_append(struct access_log_buffer *log, struct log_writer *lw,
		       const char *clf_time, const struct access_log_record *r)
{
	const char *reqbuf = r->reqbuf;
	const struct http_request *req = r->req;
	char addr[INET6_ADDRSTRLEN] = "-";
	char num[HTTP_U64_DIGITS];
	struct line l;

	if (ACCESS_LOG_BUFFER - log->len < LINE_MAX_BYTES)
		access_log_flush(log, lw);
	l = (struct line){ log->buf + log->len, 0, LINE_MAX_BYTES - 1 };

	client_addr_format(r->peer, addr, sizeof(addr));
	put(&l, addr, strlen(addr));
	put(&l, " - ", 3);
	/* Apache's %u, nginx's $remote_user: "-" unless authenticated. */
	if (r->user && r->user_len)
		put_escaped_as(&l, r->user, r->user_len, USER_MAX, false);
	else
		put(&l, "-", 1);
	put(&l, " ", 1);
	put(&l, clf_time, strlen(clf_time));
	put(&l, " \"", 2);
	if (req) {
		put_escaped(&l, reqbuf + req->method_name.off,
			    req->method_name.len, METHOD_MAX);
		put(&l, " ", 1);
		put_escaped(&l, reqbuf + req->target.off, req->target.len,
			    TARGET_MAX);
		put(&l,
		    r->http2	       ? " HTTP/2.0" :
		    req->version_minor ? " HTTP/1.1" :
					 " HTTP/1.0",
		    9);
	} else {
		put(&l, "-", 1);
	}
	put(&l, "\" ", 2);
	put(&l, num, http_format_u64(num, (uint64_t)r->status));
	put(&l, " ", 1);
	put(&l, num, http_format_u64(num, r->body_bytes));
	put_header(&l, reqbuf, req, HTTP_H_REFERER, REFERER_MAX);
	put_header(&l, reqbuf, req, HTTP_H_USER_AGENT, USER_AGENT_MAX);
	l.p[l.len++] = '\n'; /* cap left room for it */
	log->len += l.len;
	log->lines++;
}

void access_log_append_json(struct access_log_buffer *log,
			    struct log_writer *lw, const char *time,
			    const struct access_log_record *r)
{
	size_t n;

	if (ACCESS_LOG_BUFFER - log->len < ACCESS_LOG_LINE_MAX)
		access_log_flush(log, lw);
	n = access_log_json_line(log->buf + log->len, ACCESS_LOG_LINE_MAX - 1,
				 time, r);
	log->buf[log->len + n] = '\n';
	log->len += n + 1;
	log->lines++;
}

void access_log_flush(struct access_log_buffer *log, struct log_writer *lw)
{
	log->dropped += log_writer_submit(lw, log->buf, log->len, log->lines);
	log->len = 0;
	log->lines = 0;
}
