// SPDX-License-Identifier: MIT
#include "respond.h"

#include <stdint.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "auth.h"
#include "coro.h"
#include "error_page.h"
#include "http/route.h"
#include "http/site.h"
#include "server.h"
#include "config.h"
#include "version.h"

static void close_fd(void *arg)
{
	close((int)(intptr_t)arg);
}

int exchange_close_later(struct exchange *rc, int fd)
{
	if (coro_defer(rc->conn->coro, close_fd, (void *)(intptr_t)fd)) {
		close(fd);
		return -1;
	}
	return 0;
}

int exchange_keep_fd(struct exchange *rc, int fd, struct stat *st)
{
	if (exchange_close_later(rc, fd))
		return 503;
	return fstat(fd, st) ? 500 : 0;
}

void respond_head_init(struct exchange *rc, struct http_response_head *h,
		       int status)
{
	*h = (struct http_response_head){
		.status = status,
		.version_minor = rc->req ? rc->req->version_minor : 1,
		.keep_alive = rc->keep_alive,
		.server = SEHTTPD_SERVER_TOKEN,
		.date = rc->worker->date.http,
		.content_length = HTTP_NO_LENGTH,
		.last_modified = HTTP_NO_TIME,
	};
	/* A 503 here is a passing shortage (memory, descriptors, a drain). */
	if (status == 503) {
		h->extra = "Retry-After: 1\r\n";
		h->extra_len = strlen(h->extra);
	}
	if (status == 401 && rc->worker->server->auth) {
		h->extra = rc->worker->server->auth->challenge;
		h->extra_len = rc->worker->server->auth->challenge_len;
	}
	h->cache_private = rc->auth_private;
	if (rc->worker->server->site) {
		h->rules = rc->worker->server->site->rules;
		h->nrules = rc->worker->server->site->nrules;
	}
	if (rc->path_len > 0) {
		h->path = rc->path;
		h->path_len = (size_t)rc->path_len;
	}
}

int respond_layout(struct exchange *rc, const struct http_layout *l, int status,
		   bool more)
{
	struct iovec iov[HTTP_LAYOUT_PIECES];

	for (unsigned int i = 0; i < l->n; i++)
		iov[i] = (struct iovec){ (void *)l->piece[i].base,
					 l->piece[i].len };
	rc->status = status;
	rc->body_bytes = l->body_len;
	return exchange_writev(rc, iov, (int)l->n, more);
}

int respond_with_body(struct exchange *rc, struct http_response_head *h,
		      const void *body, size_t len)
{
	struct http_layout l;

	if (http_layout_response(&l, rc->scratch, EXCHANGE_SCRATCH, h, body,
				 len, rc->head_only))
		return -1;
	return respond_layout(rc, &l, h->status, false);
}

int respond_bodyless(struct exchange *rc, struct http_response_head *h)
{
	struct error_page page;
	struct http_layout l;

	/* A 412 or 416 with the operator's page, its head as it is. */
	if (h->status >= 400 && !error_page_read(rc, h->status, &page)) {
		h->content_type = page.content_type;
		return respond_with_body(rc, h, page.body, page.len);
	}
	if (http_layout_bodyless(&l, rc->scratch, EXCHANGE_SCRATCH, h,
				 rc->head_only))
		return -1;
	return respond_layout(rc, &l, h->status, false);
}

int respond_status(struct exchange *rc, int status, const char *location,
		   size_t location_len)
{
	struct http_response_head h;
	struct error_page page = { .content_type = "text/html; charset=utf-8" };

	if (location || error_page_read(rc, status, &page))
		page.body = http_error_body(status, &page.len);
	if (http_status_closes(status))
		rc->keep_alive = false;
	respond_head_init(rc, &h, status);
	h.content_type = page.content_type;
	h.location = location;
	h.location_len = location_len;
	h.allow_get_head = status == 405;
	h.allow_options = true;
	return respond_with_body(rc, &h, page.body, page.len);
}

int respond_options(struct exchange *rc)
{
	const struct site *site = rc->worker->server->site;
	char extra[HTTP_CORS_PREFLIGHT_MAX];
	struct http_response_head h;

	respond_head_init(rc, &h, 204);
	h.allow_get_head = true;
	h.allow_options = true;
	/* Without --cors a preflight gets no Access-Control-*: refused. */
	if (site && site->cors && http_is_cors_preflight(rc->req)) {
		h.extra = extra;
		h.extra_len = http_cors_preflight_headers(extra, sizeof(extra),
							  rc->buf, rc->req,
							  RESPOND_CORS_MAX_AGE);
	}
	return respond_bodyless(rc, &h);
}

int respond_redirect(struct exchange *rc, const char *path, size_t len)
{
	char location[HTTP_PATH_MAX * 3 + 2];
	size_t n = http_dir_redirect_location(location, sizeof(location),
					      rc->buf, rc->req, path, len);

	if (n == 0)
		return respond_status(rc, 414, NULL, 0);
	return respond_status(rc, 301, location, n);
}

int respond_https_redirect(struct exchange *rc)
{
	char location[RESPOND_HTTPS_LOCATION_MAX];
	size_t n = http_https_location(location, sizeof(location), rc->buf,
				       rc->req, rc->worker->server->https_port);

	if (n == 0)
		return respond_status(rc, 400, NULL, 0);
	return respond_status(rc, 308, location, n);
}
