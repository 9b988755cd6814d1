// SPDX-License-Identifier: MIT
#include "respond.h"

#include <sys/uio.h>

#include "conn_io.h"
#include "server.h"
#include "version.h"

void respond_head_init(struct request_ctx *rc, struct http_response_head *h,
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
}

int respond_with_body(struct request_ctx *rc, struct http_response_head *h,
		      const void *body, size_t len)
{
	struct iovec iov[2];
	size_t hlen;

	h->content_length = (int64_t)len;
	hlen = http_response_head_build(rc->scratch, HTTP_CONN_SCRATCH, h);
	if (hlen == 0)
		return -1;
	rc->status = h->status;
	iov[0] = (struct iovec){ rc->scratch, hlen };
	iov[1] = (struct iovec){ (void *)body, len };
	if (rc->head_only || len == 0)
		return conn_writev(rc->conn, iov, 1, false);
	rc->body_bytes = len;
	return conn_writev(rc->conn, iov, 2, false);
}

int respond_status(struct request_ctx *rc, int status, const char *location,
		   size_t location_len)
{
	struct http_response_head h;
	size_t len;
	const char *body = http_error_body(status, &len);

	if (http_status_closes(status))
		rc->keep_alive = false;
	respond_head_init(rc, &h, status);
	h.content_type = "text/html; charset=utf-8";
	h.location = location;
	h.location_len = location_len;
	h.allow_get_head = status == 405;
	return respond_with_body(rc, &h, body, len);
}
