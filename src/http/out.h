/* SPDX-License-Identifier: MIT */
/*
 * A bounded output buffer that hands itself to a flush callback when full, so
 * generated bodies of any length (directory listings) stream through a fixed
 * amount of memory, in user space and in the kernel alike.
 */
#ifndef HTTP_OUT_H
#define HTTP_OUT_H

#include "compat.h"

struct http_out {
	char *buf;
	size_t len;
	size_t cap; /* at least 64 */
	/* Consumes buf[0..len) and sets len to 0; returns 0 or -1. */
	int (*flush)(struct http_out *out);
	void *ctx; /* for the flush callback */
	int error; /* sticky: once set, nothing more is written */
};

void http_out_put(struct http_out *out, const char *s, size_t n);
void http_out_puts(struct http_out *out, const char *s);
void http_out_u64(struct http_out *out, uint64_t v);
void http_out_html(struct http_out *out, const char *s, size_t n);
/* The inside of a JSON string: escaped, and bytes that are not UTF-8 as
 * \ufffd, so the document is valid whatever a file name holds. */
void http_out_json(struct http_out *out, const char *s, size_t n);
void http_out_url(struct http_out *out, const char *s, size_t n,
		  bool keep_slash);
/* Flushes what is buffered; returns the sticky error state. */
int http_out_flush(struct http_out *out);

#endif /* HTTP_OUT_H */
