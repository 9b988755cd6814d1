/* SPDX-License-Identifier: MIT */
/* Choosing a content coding from Accept-Encoding (RFC 9110 12.5.3). */
#ifndef HTTP_NEGOTIATE_H
#define HTTP_NEGOTIATE_H

#include "compat.h"

struct http_request;

enum http_coding {
	HTTP_CODING_IDENTITY,
	HTTP_CODING_GZIP,
	HTTP_CODING_DEFLATE, /* the zlib format (RFC 1950), as HTTP means it */
	HTTP_CODING_BR, /* Brotli (RFC 7932) */
	HTTP_CODING_ZSTD, /* Zstandard (RFC 8878) */
	HTTP_CODING_COUNT
};

/* Bits for the codings a server can produce for a response. */
#define HTTP_CODING_BIT(c) (1u << (c))

/*
 * The coding to use for a response, given the request's Accept-Encoding
 * value (NULL when absent) and the codings available: the available one
 * with the highest q-value; q=0 refuses a coding, "*" stands for codings
 * not listed.  Among equal q-values one in favoured wins (a server passes
 * the codings it has ready, say precompressed files), then the one that
 * usually makes the smallest output: br, zstd, gzip, deflate.  Identity
 * when none is acceptable, or when the client ranks "identity" (or "*",
 * without an "identity" entry) strictly above the best of them: so
 * "identity, br;q=0.5" gets identity, "identity, br" gets br.
 */
enum http_coding http_choose_coding_favouring(const char *accept, size_t len,
					      unsigned available,
					      unsigned favoured);

/* The same, favouring none. */
enum http_coding http_choose_coding(const char *accept, size_t len,
				    unsigned available);

/*
 * The coding for a response to req (buf holds its bytes) among those
 * available, by its Accept-Encoding (one list however many lines carry
 * it), favoured ones winning ties: identity without the header.
 */
enum http_coding http_request_coding(const char *buf,
				     const struct http_request *req,
				     unsigned available, unsigned favoured);

/* Its Content-Encoding value: "gzip", "deflate", "br", "zstd", or NULL for
 * identity. */
const char *http_coding_name(enum http_coding c);

/*
 * What a representation's entity tag carries after the file's identity:
 * "" for identity, "gz" for gzip..., so that different bytes never share
 * a strong tag.
 */
const char *http_coding_etag_suffix(enum http_coding c);

#endif /* HTTP_NEGOTIATE_H */
