/* SPDX-License-Identifier: MIT */
/* Chunked transfer coding (RFC 9112 section 7.1): framing and decoding. */
#ifndef HTTP_CHUNKED_H
#define HTTP_CHUNKED_H

#include "compat.h"

#define HTTP_CHUNK_HEADER_MAX 18 /* 16 hex digits and CRLF */
#define HTTP_CHUNK_END "\r\n"
#define HTTP_LAST_CHUNK "0\r\n\r\n"

/* Writes "SIZE-IN-HEX\r\n" for a chunk of len bytes; returns its length. */
size_t http_chunk_header(char *out, uint64_t len);

/*
 * A decoder that walks a chunked body to find where it ends, handing the
 * data bytes back in place; it is how a server skips a request body.
 */
struct http_chunked_decoder {
	uint64_t remaining; /* data bytes left in the current chunk */
	uint32_t line_bytes; /* size of the current size/trailer line */
	uint32_t trailer_bytes; /* total bytes of the trailer section */
	uint8_t state;
	uint8_t digits;
};

enum {
	HTTP_CHUNKED_ERROR = -1,
	HTTP_CHUNKED_AGAIN = 0,
	HTTP_CHUNKED_DONE = 1,
};

void http_chunked_init(struct http_chunked_decoder *d);

/*
 * Consumes buf[0..len), setting *used to how many bytes belong to the body
 * (all of them unless the body ended inside buf).  Returns HTTP_CHUNKED_DONE
 * after the last chunk and trailer section, HTTP_CHUNKED_AGAIN when more is
 * needed, or HTTP_CHUNKED_ERROR on malformed framing: a line not ended by
 * CRLF, a chunk extension that is not *( ";" name [ "=" value ] ), a size
 * of more than 16 significant hex digits, a trailer line that is not
 * name ":" value.
 */
int http_chunked_decode(struct http_chunked_decoder *d, const char *buf,
			size_t len, size_t *used);

#endif /* HTTP_CHUNKED_H */
