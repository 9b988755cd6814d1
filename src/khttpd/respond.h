/* SPDX-License-Identifier: GPL-2.0 */
/* Writing responses: status pages, redirects and bodies held in memory. */
#ifndef KHTTPD_RESPOND_H
#define KHTTPD_RESPOND_H

#include <linux/types.h>

#include "http/conditional.h"
#include "http/format.h"
#include "http/layout.h"
#include "http/parser.h"
#include "http/response.h"

struct khttpd_out;
struct khttpd_server;
struct khttpd_cache_entry;

#define KHTTPD_HTML_TYPE "text/html; charset=utf-8"
/* How long a browser may keep a preflight's answer (as sehttpd). */
#define KHTTPD_CORS_MAX_AGE 7200

/* One request and the decisions taken while answering it. */
struct khttpd_exchange {
	const struct khttpd_server *srv;
	struct khttpd_out *out; /* where the answer is queued */
	char *head; /* head_cap bytes for a response head */
	size_t head_cap;
	char *path; /* KHTTPD_PATH_BUF bytes, for the routed path */
	int path_len; /* the routed path's, once routed; else 0 */
	const char *buf; /* the request head, from offset 0 */
	const struct http_request *req; /* NULL when the head was refused */
	bool head_only;
	bool keep_alive; /* cleared by any reply that must end the connection */
	/*
	 * The accept work's first pass: only what needs no file opened and
	 * no deflate is answered; anything else sets deferred, sends
	 * nothing and is answered again by the connection's work item.
	 */
	bool inline_only;
	bool deferred;
	/* The root's turn the last object opened was found under. */
	unsigned long root_turn;
	s64 now; /* the Date, in seconds */
	char date[HTTP_DATE_LEN];
};

/* A head for this exchange: status, Server, Date, Connection. */
void khttpd_respond_head_init(const struct khttpd_exchange *x,
			      struct http_response_head *h, int status);

/*
 * Each sends a complete response and returns 0, or a negative errno after
 * which the connection must be closed at once (the peer is gone or the body
 * could not be completed).
 */
int khttpd_respond_status(struct khttpd_exchange *x, int status);
int khttpd_respond_redirect(struct khttpd_exchange *x, const char *path,
			    size_t len);
/*
 * Makes e's gzip representation when the answer is the first to carry it
 * (a 200, or a HEAD for one): never for a 304 or 412.
 */
int khttpd_respond_entry(struct khttpd_exchange *x,
			 struct khttpd_cache_entry *e);
/* A 304 (head only), or a 412 or 416 (with its status page) for h. */
int khttpd_respond_bodyless(struct khttpd_exchange *x,
			    struct http_response_head *h);
/* OPTIONS, for any target: 204 with the methods allowed. */
int khttpd_respond_options(struct khttpd_exchange *x);
/* status with a cached page (an operator's error page) as its body. */
int khttpd_respond_page(struct khttpd_exchange *x, int status,
			struct khttpd_cache_entry *page);

#endif /* KHTTPD_RESPOND_H */
