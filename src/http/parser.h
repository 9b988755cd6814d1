/* SPDX-License-Identifier: MIT */
/*
 * Incremental HTTP/1.x request-head parser (RFC 9112).
 *
 * The parser never copies and never allocates: it records offsets into the
 * caller's buffer, which must hold the request from its first byte at
 * offset 0.  The caller may call http_parse_request() again with the same
 * bytes plus more after every read; bytes already examined are not looked at
 * again.  Because results are offsets, the caller may move the buffer between
 * calls as long as the request still starts at offset 0.
 */
#ifndef HTTP_PARSER_H
#define HTTP_PARSER_H

#include "compat.h"
#include "token.h"

/* Bytes before the request line's CRLF, empty lines before it included. */
#define HTTP_MAX_REQUEST_LINE 8192
/* Bytes after the request line's CRLF, through the final empty line. */
#define HTTP_MAX_HEADER_SECTION 16384
#define HTTP_MAX_HEADER_FIELDS 100
/* A buffer this large always holds a complete head that is within limits. */
#define HTTP_MAX_HEAD (HTTP_MAX_REQUEST_LINE + HTTP_MAX_HEADER_SECTION + 8)

enum http_method {
	HTTP_METHOD_UNKNOWN,
	HTTP_GET,
	HTTP_HEAD,
	HTTP_POST,
	HTTP_PUT,
	HTTP_DELETE,
	HTTP_CONNECT,
	HTTP_OPTIONS,
	HTTP_TRACE,
	HTTP_PATCH,
};

/* The header fields the servers act on; others are only syntax-checked. */
enum http_header_id {
	HTTP_H_HOST,
	HTTP_H_CONNECTION,
	HTTP_H_CONTENT_LENGTH,
	HTTP_H_TRANSFER_ENCODING,
	HTTP_H_ACCEPT,
	HTTP_H_ACCEPT_ENCODING,
	HTTP_H_RANGE,
	HTTP_H_IF_NONE_MATCH,
	HTTP_H_IF_MODIFIED_SINCE,
	HTTP_H_IF_RANGE,
	HTTP_H_IF_MATCH,
	HTTP_H_IF_UNMODIFIED_SINCE,
	HTTP_H_USER_AGENT,
	HTTP_H_REFERER,
	HTTP_H_ORIGIN,
	HTTP_H_AC_REQUEST_METHOD, /* Access-Control-Request-Method */
	HTTP_H_AC_REQUEST_HEADERS, /* Access-Control-Request-Headers */
	HTTP_H_AUTHORIZATION,
	HTTP_H_COUNT,
};

/* A run of bytes in the request buffer. */
struct http_span {
	uint32_t off;
	uint32_t len;
};

struct http_request {
	enum http_method method;
	uint8_t version_minor; /* HTTP/1.x */
	bool keep_alive; /* what the request asks for, after version defaults */
	bool target_ok; /* origin-form or absolute-form with a path */
	bool has_query;
	bool chunked_body;
	uint64_t content_length; /* body length when not chunked */
	struct http_span method_name;
	struct http_span target; /* as sent */
	struct http_span path; /* still percent-encoded */
	struct http_span query; /* after '?' */
	uint32_t present; /* bit (1 << enum http_header_id) when seen */
	uint32_t repeated; /* same bits: seen on more than one line */
	uint32_t fields_off; /* where the header fields start */
	struct http_span header[HTTP_H_COUNT]; /* value, whitespace-trimmed */
	uint32_t nfields;
	uint32_t head_len; /* request line, headers and the empty line */
};

struct http_parser {
	uint32_t pos; /* next byte to examine */
	uint32_t mark; /* start of the token being scanned */
	uint32_t name_len; /* of the field being scanned */
	uint32_t value_off; /* where its value starts */
	uint32_t line_end; /* past the request line: the header section */
	uint16_t state;
	uint8_t conn_tokens; /* close / keep-alive seen in any Connection */
	uint8_t te_chunked; /* "chunked" codings in Transfer-Encoding, to 2 */
	bool te_other; /* a coding other than chunked */
	bool te_last_chunked; /* the list so far ends with chunked */
	/*
	 * The request line was whole and valid up to its method, which may
	 * be unknown: req's method_name, target and version_minor hold it,
	 * for a log, also when the head is then refused.
	 */
	bool request_line;
};

/* Parse results other than a head length. */
enum {
	HTTP_PARSE_AGAIN = 0,
};

void http_parser_init(struct http_parser *p);

/*
 * Examines buf[0..len) and returns the length of the request head once it is
 * complete (filling req), HTTP_PARSE_AGAIN when more bytes are needed, or the
 * negated status code of the error response to send (-400, -414, -431,
 * -501, -505) after which the connection must be closed.  A request body
 * in a transfer coding other than chunked is -501; an HTTP/1.0 request
 * with Transfer-Encoding is answered, then the connection closes.
 */
int http_parse_request(struct http_parser *p, struct http_request *req,
		       const char *buf, size_t len);

/*
 * True once bytes of a request line have been examined: empty lines before
 * a request (RFC 9112 2.2), which are ignored, do not begin one.  A
 * connection cut off before then was idle, not cut off mid-request.
 */
bool http_parse_begun(const struct http_parser *p);

static inline bool http_has_header(const struct http_request *req,
				   enum http_header_id id)
{
	return req->present & (1u << id);
}

static inline const char *http_span_ptr(const char *buf, struct http_span s)
{
	return buf + s.off;
}

/*
 * The value of a list-valued header (Accept, If-None-Match...).
 * Field lines with the same name form one comma-separated list (RFC 9110
 * 5.3): when the header came on several lines they are joined into tmp.
 * Sets *value and returns the length; 0 with *value NULL when absent or when
 * the joined list does not fit in cap.
 */
#define HTTP_LIST_JOIN_MAX 512 /* a tmp size that also suits kernel stacks */
size_t http_header_list(const char *buf, const struct http_request *req,
			enum http_header_id id, char *tmp, size_t cap,
			const char **value);

/*
 * Steps through a comma-separated list from *pos: sets [*start, *end) to the
 * next non-empty element without surrounding whitespace and advances *pos;
 * false when no element is left.
 */
bool http_list_next(const char *list, size_t len, size_t *pos, size_t *start,
		    size_t *end);

/* True when the comma-separated list contains token, case-insensitively. */
bool http_list_has_token(const char *list, size_t len, const char *token);

bool http_method_allowed_on_static(enum http_method m);

/*
 * Whether the method of a head, whole or refused once its method was read,
 * is HEAD: the answer then has no body, whatever else the head got wrong
 * (RFC 9110 9.3.2).
 */
bool http_method_name_is_head(const char *buf, const struct http_request *req);

#endif /* HTTP_PARSER_H */
