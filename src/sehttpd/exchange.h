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
#include <sys/types.h>
#include <sys/uio.h>

#include "http/parser.h"
#include "http/serve.h"

struct auth_rule;

/* Bytes of scratch an exchange has, for a response head and small bodies. */
#define EXCHANGE_SCRATCH 32768

struct beneath_root;
struct cache_entry;
struct coded_body;
struct conn;
struct exchange;
struct worker;

/*
 * Where an answer goes: a framing's writer.  HTTP/1.1's sends the bytes as
 * they are (conn.c); HTTP/2's turns the head into HEADERS and the body into
 * DATA frames (h2_writer.c).  The response code writes a whole head, built
 * at the start of scratch, before any body byte.
 */
struct exchange_writer {
	/* Writes all of iov (which it may modify); more: bytes follow. */
	int (*writev)(struct exchange *rc, struct iovec *iov, int iovcnt,
		      bool more);
	/* Sends len bytes of fd from offset; fd stays the caller's. */
	int (*sendfile)(struct exchange *rc, int fd, off_t offset,
			uint64_t len);
	/* Takes b, a body compressed as it goes (respond_coded.h), to free
	 * when done, even on failure; NULL: writev gets it piece by piece. */
	int (*coded)(struct exchange *rc, struct coded_body *b);
};

struct exchange {
	struct conn *conn; /* the connection the answer leaves on */
	struct worker *worker;
	const struct exchange_writer *out;
	void *out_ctx; /* the writer's own: an HTTP/2 stream */
	const char *buf; /* the request's bytes; req's offsets are from here */
	const struct http_request *req;
	/* The directory the request is served from (serve_request()). */
	const struct beneath_root *root;
	char *scratch; /* EXCHANGE_SCRATCH bytes */
	bool head_only; /* HEAD: headers, no body */
	bool keep_alive; /* what the response will say */
	bool http2; /* framed by HTTP/2: no chunked bodies, no Connection */
	bool auth_private; /* behind --auth-file: Cache-Control: private */
	/* The --auth-file rule the request's path asked for and its
	 * credentials met; NULL: none (public). */
	const struct auth_rule *auth_rule;
	/* The cache entry whose bytes the body pieces are, if any: a writer
	 * that keeps them past the write takes a reference instead of a copy. */
	struct cache_entry *body_entry;
	int status; /* for the access log */
	uint64_t body_bytes;
	uint64_t start_us; /* clock_us() once the head was whole; 0: untimed */
	int path_len;
	/* Decoded and normalised, from '/' (http_route()); paths built from
	 * it go to buffers of their own (http_path_join()). */
	char path[HTTP_SERVE_PATH_BUF];
};

/*
 * Begins an exchange for req (NULL: refused before it was parsed), whose
 * bytes are in buf, answered through out.  Field by field: a compound
 * literal would also zero the 8 KiB path buffer on every request.  The
 * framing sets what is its own after (http2, keep_alive, start_us).
 */
static inline void exchange_begin(struct exchange *rc, struct conn *c,
				  struct worker *w,
				  const struct exchange_writer *out,
				  void *out_ctx, const char *buf,
				  const struct http_request *req, char *scratch)
{
	rc->conn = c;
	rc->worker = w;
	rc->out = out;
	rc->out_ctx = out_ctx;
	rc->http2 = false;
	rc->auth_private = false;
	rc->auth_rule = NULL;
	rc->body_entry = NULL;
	rc->buf = buf;
	rc->req = req;
	rc->scratch = scratch;
	rc->head_only = req && req->method == HTTP_HEAD;
	rc->keep_alive = true;
	rc->status = 0;
	rc->body_bytes = 0;
	rc->start_us = 0;
	rc->path_len = 0;
}

static inline int exchange_writev(struct exchange *rc, struct iovec *iov,
				  int iovcnt, bool more)
{
	return rc->out->writev(rc, iov, iovcnt, more);
}

static inline int exchange_write(struct exchange *rc, const void *buf,
				 size_t len, bool more)
{
	struct iovec iov = { (void *)buf, len };

	return rc->out->writev(rc, &iov, 1, more);
}

static inline int exchange_sendfile(struct exchange *rc, int fd, off_t offset,
				    uint64_t len)
{
	return rc->out->sendfile(rc, fd, offset, len);
}

/* A Range request: answered from the identity bytes, never compressed. */
static inline bool exchange_range_requested(const struct exchange *rc)
{
	return http_has_header(rc->req, HTTP_H_RANGE);
}

#endif /* SEHTTPD_EXCHANGE_H */
