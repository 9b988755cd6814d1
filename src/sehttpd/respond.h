/* SPDX-License-Identifier: MIT */
/* Writing responses for an exchange: heads, small bodies, error pages. */
#ifndef SEHTTPD_RESPOND_H
#define SEHTTPD_RESPOND_H

#include <stddef.h>
#include <sys/stat.h>

#include "http/layout.h"
#include "http/response.h"
#include "http/route.h"
#include "exchange.h"

/* Hands fd to rc, whose end closes it: 0, or -1 with fd closed. */
int exchange_close_later(struct exchange *rc, int fd);

/*
 * exchange_close_later(), then fd's stat into st: 0, or the status to
 * answer instead.
 */
int exchange_keep_fd(struct exchange *rc, int fd, struct stat *st);

/* A head for status with the connection's and the thread's defaults. */
void respond_head_init(struct exchange *rc, struct http_response_head *h,
		       int status);

/*
 * Sends the pieces of l in one write, recording status and the body bytes
 * for the access log; more: further bytes follow.  Returns 0 or -1.
 */
int respond_layout(struct exchange *rc, const struct http_layout *l, int status,
		   bool more);

/*
 * Sends the head h and body in one write (body omitted for HEAD, but counted
 * in Content-Length).  Returns 0, or -1 when the connection is broken.
 */
int respond_with_body(struct exchange *rc, struct http_response_head *h,
		      const void *body, size_t len);

/* http_select's 304, or its 412 or 416 with the status page. */
int respond_bodyless(struct exchange *rc, struct http_response_head *h);

/* An error page, or a redirect when location is not NULL. */
int respond_status(struct exchange *rc, int status, const char *location,
		   size_t location_len);

/* How long browsers may keep a preflight's answer: Chromium's cap. */
#define RESPOND_CORS_MAX_AGE 7200

/*
 * OPTIONS, for any target ("*" too): 204 with the methods allowed, and
 * with --cors the answer to a CORS preflight.
 */
int respond_options(struct exchange *rc);

/* 301 to the directory path[0..len) with a '/' appended, query kept. */
int respond_redirect(struct exchange *rc, const char *path, size_t len);

/* Room for https://, a host name and any target within limits, each of
 * its bytes percent-encoded. */
#define RESPOND_HTTPS_LOCATION_MAX (HTTP_PATH_MAX * 3 + 300)

/*
 * --http-redirect: 308 to the same target on https:// and the TLS port
 * (http_https_location), or 400 without a Host to send the client to.
 */
int respond_https_redirect(struct exchange *rc);

#endif /* SEHTTPD_RESPOND_H */
