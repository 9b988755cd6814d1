/* SPDX-License-Identifier: MIT */
/*
 * One request being answered, as the response code sees it: the request,
 * where the answer goes, and what the access log records.  It belongs to no
 * framing: HTTP/1.1's request loop (conn.c) fills it today, and another
 * framing would fill it the same way.
 */
#ifndef SEHTTPD_EXCHANGE_H
#define SEHTTPD_EXCHANGE_H

#include <stdbool.h>
#include <stdint.h>

#include "http/parser.h"
#include "http/serve.h"

/* Bytes of scratch an exchange has, for a response head and small bodies. */
#define EXCHANGE_SCRATCH 32768

struct conn;
struct worker;

struct exchange {
	struct conn *conn; /* the transport the answer is written to */
	struct worker *worker;
	const char *buf; /* the request's bytes; req's offsets are from here */
	const struct http_request *req;
	char *scratch; /* EXCHANGE_SCRATCH bytes */
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

#endif /* SEHTTPD_EXCHANGE_H */
