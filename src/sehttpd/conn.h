/* SPDX-License-Identifier: MIT */
/* Serving requests on one connection, inside its coroutine. */
#ifndef SEHTTPD_CONN_H
#define SEHTTPD_CONN_H

#include <stdbool.h>
#include <stdint.h>

#include "http/parser.h"
#include "http/route.h"
#include "http/serve.h"

/* Memory beside each coroutine stack: the read buffer, then scratch. */
#define HTTP_CONN_READ_BUF 32768
#define HTTP_CONN_SCRATCH 32768
#define HTTP_CONN_EXTRA (HTTP_CONN_READ_BUF + HTTP_CONN_SCRATCH)

_Static_assert(HTTP_CONN_READ_BUF > HTTP_MAX_HEAD,
	       "a request head within limits must fit the read buffer");

struct conn;
struct worker;

/* One request being answered. */
struct exchange {
	struct conn *conn;
	struct worker *worker;
	const char *buf; /* the request's bytes; req's offsets are from here */
	const struct http_request *req;
	char *scratch; /* HTTP_CONN_SCRATCH bytes */
	bool head_only; /* HEAD: headers, no body */
	bool keep_alive; /* what the response will say */
	int status; /* for the access log */
	uint64_t body_bytes;
	int path_len;
	/* Decoded and normalised, from '/' (http_route()); paths built from
	 * it go to buffers of their own (http_path_join()). */
	char path[HTTP_SERVE_PATH_BUF];
};

/* A Range request: answered from the identity bytes, never compressed. */
static inline bool exchange_range_requested(const struct exchange *rc)
{
	return http_has_header(rc->req, HTTP_H_RANGE);
}

#endif /* SEHTTPD_CONN_H */
