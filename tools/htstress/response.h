/* SPDX-License-Identifier: MIT */
/*
 * Incremental checker of one HTTP/1.x response to a GET (RFC 9112).
 *
 * The response may arrive in pieces split anywhere: feed each piece to
 * hts_response_parse() as it is received.  Nothing is copied or allocated;
 * the state between pieces lives in struct hts_response.  The parser checks
 * the status line, the header syntax and the body framing (Content-Length,
 * chunked with its extensions and trailers, or delimited by the close of
 * the connection) and skips interim 1xx responses.
 */
#ifndef HTSTRESS_RESPONSE_H
#define HTSTRESS_RESPONSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A status line and header section longer than this is refused. */
#define HTS_RESPONSE_MAX_HEAD 65536

enum hts_parse_result {
	HTS_PARSE_MORE, /* every byte consumed, the response is not over */
	HTS_PARSE_DONE, /* the response ended; *used bytes belong to it */
	HTS_PARSE_ERROR, /* malformed; error says why */
};

struct hts_response {
	/* Results, valid once the head is complete. */
	int status;
	int minor_version;
	bool conn_close; /* Connection: close */
	bool conn_keep_alive; /* Connection: keep-alive */
	bool until_close; /* body delimited by the end of the connection */
	const char *error; /* a static string when HTS_PARSE_ERROR */

	/* Parser state. */
	uint8_t state;
	uint8_t field; /* which header field the value belongs to */
	uint8_t name_len;
	bool in_trailer;
	bool has_length;
	bool has_te;
	bool te_chunked; /* the last transfer coding seen was "chunked" */
	bool token_too_long;
	uint8_t token_len;
	uint8_t digits;
	char token[24]; /* the current header name or list token, as sent */
	uint32_t head_bytes;
	uint64_t length; /* Content-Length, or the current chunk size */
	uint64_t value; /* number being parsed */
	uint64_t remaining; /* body or chunk bytes still to come */
};

void hts_response_init(struct hts_response *r);

/*
 * Parses len more bytes.  Returns HTS_PARSE_MORE when all were consumed
 * and more are needed, HTS_PARSE_DONE with *used set to the number that
 * completed the response (the rest belongs to no response), or
 * HTS_PARSE_ERROR.  Once DONE or ERROR, the state stays there until
 * hts_response_init().
 */
enum hts_parse_result hts_response_parse(struct hts_response *r,
					 const char *buf, size_t len,
					 size_t *used);

/*
 * The connection ended (end of file) after the bytes parsed so far: DONE
 * when that ends a close-delimited body, ERROR when the response is cut.
 */
enum hts_parse_result hts_response_eof(struct hts_response *r);

/* After DONE: may another request follow on the same connection? */
bool hts_response_keep_alive(const struct hts_response *r);

#endif /* HTSTRESS_RESPONSE_H */
