// SPDX-License-Identifier: MIT
/*
 * Incremental request-head parser.  A byte-at-a-time state machine that can
 * stop anywhere and resume; the inner loops of the long states (target,
 * header values) scan without going back through the dispatch.
 */
#include "parser.h"
#include "host.h"

enum parser_state {
	S_START,
	S_START_LF, /* a CR of an empty line before the request */
	S_METHOD,
	S_TARGET_START,
	S_TARGET,
	S_VERSION,
	S_REQUEST_LINE_LF,
	S_LINE_START,
	S_NAME,
	S_VALUE_START,
	S_VALUE,
	S_VALUE_LF,
	S_HEAD_END_LF,
};

/* Connection tokens, in struct http_parser's conn_tokens. */
enum {
	CONN_CLOSE = 1,
	CONN_KEEP_ALIVE = 2,
};

/* Byte classes (RFC 9110 section 5.6.2 and 5.5). */
enum {
	C_TOKEN = 1, /* tchar */
	C_TARGET = 2, /* visible but '#' (RFC 9112 3.2), or obs-text */
	C_VALUE = 4, /* field-vchar, SP, HTAB, obs-text */
};

#define TOKEN_ALPHA (C_TOKEN | C_TARGET | C_VALUE)
static const uint8_t byte_class[256] = {
	['\t'] = C_VALUE,
	[' '] = C_VALUE,
	['!'] = TOKEN_ALPHA,
	['"'] = C_TARGET | C_VALUE,
	['#'] = C_TOKEN | C_VALUE, /* a fragment is never sent */
	['$'] = TOKEN_ALPHA,
	['%'] = TOKEN_ALPHA,
	['&'] = TOKEN_ALPHA,
	['\''] = TOKEN_ALPHA,
	['('] = C_TARGET | C_VALUE,
	[')'] = C_TARGET | C_VALUE,
	['*'] = TOKEN_ALPHA,
	['+'] = TOKEN_ALPHA,
	[','] = C_TARGET | C_VALUE,
	['-'] = TOKEN_ALPHA,
	['.'] = TOKEN_ALPHA,
	['/'] = C_TARGET | C_VALUE,
	['0' ... '9'] = TOKEN_ALPHA,
	[':'] = C_TARGET | C_VALUE,
	[';'] = C_TARGET | C_VALUE,
	['<'] = C_TARGET | C_VALUE,
	['='] = C_TARGET | C_VALUE,
	['>'] = C_TARGET | C_VALUE,
	['?'] = C_TARGET | C_VALUE,
	['@'] = C_TARGET | C_VALUE,
	['A' ... 'Z'] = TOKEN_ALPHA,
	['['] = C_TARGET | C_VALUE,
	['\\'] = C_TARGET | C_VALUE,
	[']'] = C_TARGET | C_VALUE,
	['^'] = TOKEN_ALPHA,
	['_'] = TOKEN_ALPHA,
	['`'] = TOKEN_ALPHA,
	['a' ... 'z'] = TOKEN_ALPHA,
	['{'] = C_TARGET | C_VALUE,
	['|'] = TOKEN_ALPHA,
	['}'] = C_TARGET | C_VALUE,
	['~'] = TOKEN_ALPHA,
	[0x80 ... 0xff] = C_TARGET | C_VALUE,
};

static inline bool is_class(char c, uint8_t cls)
{
	return byte_class[(uint8_t)c] & cls;
}

void http_parser_init(struct http_parser *p)
{
	memset(p, 0, sizeof(*p));
}

bool http_parse_begun(const struct http_parser *p)
{
	return p->state != S_START && p->state != S_START_LF;
}

bool http_method_allowed_on_static(enum http_method m)
{
	return m == HTTP_GET || m == HTTP_HEAD;
}

bool http_method_name_is_head(const char *buf, const struct http_request *req)
{
	return req->method_name.len == 4 &&
	       !memcmp(buf + req->method_name.off, "HEAD", 4);
}

/* The longest method name implemented: CONNECT, OPTIONS. */
#define HTTP_METHOD_NAME_MAX 7

static enum http_method method_from_name(const char *s, size_t n)
{
	static const struct {
		const char *name;
		uint8_t len;
		enum http_method method;
	} methods[] = {
		{ "GET", 3, HTTP_GET },		{ "HEAD", 4, HTTP_HEAD },
		{ "POST", 4, HTTP_POST },	{ "PUT", 3, HTTP_PUT },
		{ "DELETE", 6, HTTP_DELETE },	{ "CONNECT", 7, HTTP_CONNECT },
		{ "OPTIONS", 7, HTTP_OPTIONS }, { "TRACE", 5, HTTP_TRACE },
		{ "PATCH", 5, HTTP_PATCH },
	};

	for (size_t i = 0; i < ARRAY_SIZE(methods); i++) {
		if (methods[i].len == n && !memcmp(methods[i].name, s, n))
			return methods[i].method;
	}
	return HTTP_METHOD_UNKNOWN;
}

static int header_id_from_name(const char *s, size_t n)
{
	static const struct {
		const char *name; /* lower case */
		uint8_t len;
		uint8_t id;
	} names[] = {
		{ "host", 4, HTTP_H_HOST },
		{ "range", 5, HTTP_H_RANGE },
		{ "origin", 6, HTTP_H_ORIGIN },
		{ "accept", 6, HTTP_H_ACCEPT },
		{ "referer", 7, HTTP_H_REFERER },
		{ "if-range", 8, HTTP_H_IF_RANGE },
		{ "if-match", 8, HTTP_H_IF_MATCH },
		{ "connection", 10, HTTP_H_CONNECTION },
		{ "user-agent", 10, HTTP_H_USER_AGENT },
		{ "if-none-match", 13, HTTP_H_IF_NONE_MATCH },
		{ "authorization", 13, HTTP_H_AUTHORIZATION },
		{ "content-length", 14, HTTP_H_CONTENT_LENGTH },
		{ "accept-encoding", 15, HTTP_H_ACCEPT_ENCODING },
		{ "transfer-encoding", 17, HTTP_H_TRANSFER_ENCODING },
		{ "if-modified-since", 17, HTTP_H_IF_MODIFIED_SINCE },
		{ "if-unmodified-since", 19, HTTP_H_IF_UNMODIFIED_SINCE },
		{ "access-control-request-method", 29,
		  HTTP_H_AC_REQUEST_METHOD },
		{ "access-control-request-headers", 30,
		  HTTP_H_AC_REQUEST_HEADERS },
	};

	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		if (names[i].len == n && http_eq_lower(s, names[i].name, n))
			return names[i].id;
	}
	return -1;
}

size_t http_header_list(const char *buf, const struct http_request *req,
			enum http_header_id id, char *tmp, size_t cap,
			const char **value)
{
	uint32_t pos = req->fields_off;
	size_t n = 0;

	*value = NULL;
	if (!http_has_header(req, id))
		return 0;
	if (!(req->repeated & (1u << id))) {
		*value = buf + req->header[id].off;
		return req->header[id].len;
	}
	/* Rare: walk the (already validated) field lines again. */
	while (pos < req->head_len) {
		uint32_t start = pos, colon, vs, ve;

		while (buf[pos] != '\n')
			pos++;
		ve = pos++;
		if (ve > start && buf[ve - 1] == '\r')
			ve--;
		if (ve == start)
			break; /* the empty line ending the head */
		colon = start;
		while (buf[colon] != ':')
			colon++;
		if (header_id_from_name(buf + start, colon - start) != (int)id)
			continue;
		vs = colon + 1;
		while (vs < ve && http_is_ows(buf[vs]))
			vs++;
		while (ve > vs && http_is_ows(buf[ve - 1]))
			ve--;
		if (n + 2 + (ve - vs) > cap)
			return 0;
		if (n) {
			tmp[n++] = ',';
			tmp[n++] = ' ';
		}
		memcpy(tmp + n, buf + vs, ve - vs);
		n += ve - vs;
	}
	*value = tmp;
	return n;
}

bool http_list_next(const char *list, size_t len, size_t *pos, size_t *start,
		    size_t *end)
{
	size_t i = *pos;

	while (i < len && (http_is_ows(list[i]) || list[i] == ','))
		i++;
	if (i >= len)
		return false;
	*start = i;
	while (i < len && list[i] != ',')
		i++;
	*pos = i;
	while (i > *start && http_is_ows(list[i - 1]))
		i--;
	*end = i;
	return true;
}

bool http_list_has_token(const char *list, size_t len, const char *token)
{
	size_t tlen = strlen(token), pos = 0, start, end;

	while (http_list_next(list, len, &pos, &start, &end)) {
		if (end - start == tlen &&
		    http_eq_lower(list + start, token, tlen))
			return true;
	}
	return false;
}

/*
 * Notes the codings of one Transfer-Encoding line; lines with the same name
 * form one list, judged at the end of the head.  Returns 0 or -400.
 */
static int transfer_codings(struct http_parser *p, const char *list, size_t len)
{
	size_t pos = 0, start, end;
	bool any = false;

	while (http_list_next(list, len, &pos, &start, &end)) {
		bool chunked = end - start == 7 &&
			       http_eq_lower(list + start, "chunked", 7);

		if (chunked && p->te_chunked < 2)
			p->te_chunked++;
		p->te_other |= !chunked;
		p->te_last_chunked = chunked;
		any = true;
	}
	return any ? 0 : -400;
}

/* 1*DIGIT; leading zeros do not count towards the 19 digits allowed. */
static int parse_content_length(const char *s, size_t n, uint64_t *out)
{
	uint64_t v = 0;
	size_t significant = 0;

	if (n == 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		if ((v || s[i] != '0') && ++significant > 19)
			return -1;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	*out = v;
	return 0;
}

/* Acts on one complete header field; returns 0 or a negated status. */
static int end_of_field(struct http_parser *p, struct http_request *req,
			const char *buf, uint32_t value_end)
{
	uint32_t name_off = p->mark, name_len = p->name_len;
	uint32_t value_off = p->value_off;
	struct http_span v = { value_off, value_end - value_off };
	int id;

	if (++req->nfields > HTTP_MAX_HEADER_FIELDS)
		return -431;
	id = header_id_from_name(buf + name_off, name_len);
	if (id < 0)
		return 0;

	switch (id) {
	case HTTP_H_HOST:
		if (http_has_header(req, HTTP_H_HOST) ||
		    !http_host_valid(buf + v.off, v.len))
			return -400;
		break;
	case HTTP_H_CONTENT_LENGTH: {
		uint64_t cl;

		if (parse_content_length(buf + v.off, v.len, &cl))
			return -400;
		if (http_has_header(req, HTTP_H_CONTENT_LENGTH) &&
		    cl != req->content_length)
			return -400;
		req->content_length = cl;
		break;
	}
	case HTTP_H_CONNECTION:
		/* A list field: tokens in every Connection line count. */
		if (http_list_has_token(buf + v.off, v.len, "close"))
			p->conn_tokens |= CONN_CLOSE;
		if (http_list_has_token(buf + v.off, v.len, "keep-alive"))
			p->conn_tokens |= CONN_KEEP_ALIVE;
		break;
	case HTTP_H_TRANSFER_ENCODING:
		if (transfer_codings(p, buf + v.off, v.len))
			return -400;
		break;
	default:
		break;
	}
	if (req->present & (1u << id))
		req->repeated |= 1u << id;
	req->present |= 1u << id;
	req->header[id] = v;
	return 0;
}

/* Splits the target into path and query once the request line is known. */
static void split_target(struct http_request *req, const char *buf)
{
	const char *t = buf + req->target.off;
	uint32_t n = req->target.len, i = 0, path_start;

	req->target_ok = false;
	if (t[0] == '/') {
		path_start = 0;
	} else if ((n > 7 && http_eq_lower(t, "http://", 7)) ||
		   (n > 8 && http_eq_lower(t, "https://", 8))) {
		uint32_t authority = t[4] == ':' ? 7 : 8;

		i = authority;
		while (i < n && t[i] != '/' && t[i] != '?')
			i++;
		/* RFC 9110 4.2.1: an http URI without a valid host is invalid. */
		if (i == authority ||
		    !http_host_valid(t + authority, i - authority))
			return;
		path_start = i;
	} else {
		return;
	}
	i = path_start;
	while (i < n && t[i] != '?')
		i++;
	req->path.off = req->target.off + path_start;
	req->path.len = i - path_start;
	if (i < n) {
		req->has_query = true;
		req->query.off = req->target.off + i + 1;
		req->query.len = n - i - 1;
	}
	req->target_ok = true;
}

/* Validates "HTTP/d.d" and acts on the complete request line. */
static int end_of_request_line(struct http_parser *p, struct http_request *req,
			       const char *buf, uint32_t vend)
{
	const char *v = buf + p->mark;
	uint32_t n = vend - p->mark;

	if (n != 8 || memcmp(v, "HTTP/", 5) || v[5] < '0' || v[5] > '9' ||
	    v[6] != '.' || v[7] < '0' || v[7] > '9')
		return -400;
	if (v[5] != '1')
		return -505;
	/* RFC 9110 2.5: a later minor version is processed as the highest
	 * this server implements, 1.1. */
	req->version_minor = v[7] > '1' ? 1 : (uint8_t)(v[7] - '0');
	p->request_line = true;
	req->method = method_from_name(buf + req->method_name.off,
				       req->method_name.len);
	if (req->method == HTTP_METHOD_UNKNOWN)
		return -501;
	split_target(req, buf);
	return 0;
}

static int end_of_head(struct http_parser *p, struct http_request *req,
		       uint32_t head_len)
{
	bool close = p->conn_tokens & CONN_CLOSE;
	bool keep = p->conn_tokens & CONN_KEEP_ALIVE;

	if (http_has_header(req, HTTP_H_TRANSFER_ENCODING)) {
		/*
		 * RFC 9112 6.1 and 6.3: only a final chunked, applied once,
		 * frames a body whose end can be found; other codings are
		 * not implemented.
		 */
		if (!p->te_last_chunked || p->te_chunked > 1)
			return -400;
		if (p->te_other)
			return -501;
		req->chunked_body = true;
		/* HTTP/1.0 framing with it is faulty: close after answering. */
		if (req->version_minor == 0)
			close = true;
	}
	/*
	 * Fields that are not lists have no valid value on two lines: they
	 * are ignored, not last-wins.  An If-Range that cannot be judged
	 * fails, so its Range goes too (RFC 9110 13.1.5).
	 */
	if (req->repeated & (1u << HTTP_H_IF_RANGE))
		req->present &= ~(1u << HTTP_H_RANGE | 1u << HTTP_H_IF_RANGE);
	req->present &= ~(req->repeated & (1u << HTTP_H_RANGE |
					   1u << HTTP_H_IF_MODIFIED_SINCE));
	if (req->chunked_body && http_has_header(req, HTTP_H_CONTENT_LENGTH))
		return -400;
	/*
	 * A CONNECT has no content (RFC 9110 9.3.6): what follows its head
	 * is the tunnel's, and none is opened.  Closing after the answer
	 * reads those bytes neither as a body its Content-Length would
	 * frame nor as requests.
	 */
	if (req->method == HTTP_CONNECT)
		close = true;
	if (req->version_minor == 1 && !http_has_header(req, HTTP_H_HOST))
		return -400;
	req->keep_alive = req->version_minor == 1 ? !close : keep && !close;
	req->fields_off = p->line_end;
	req->head_len = head_len;
	return (int)head_len;
}

/*
 * The first position the current state may not examine.  Limits are checked
 * by position, never by how much has arrived, so the verdict on a request
 * does not depend on where its bytes were split between calls.  Empty lines
 * before the request count towards the request line, which keeps a complete
 * head within HTTP_MAX_HEAD.
 */
static uint32_t state_limit(const struct http_parser *p)
{
	if (p->state < S_VERSION)
		return HTTP_MAX_REQUEST_LINE;
	if (p->state == S_VERSION) /* its CR or LF may sit at the limit */
		return HTTP_MAX_REQUEST_LINE + 1;
	if (p->state == S_REQUEST_LINE_LF)
		return (uint32_t)-1;
	return p->line_end + HTTP_MAX_HEADER_SECTION;
}

/*
 * The status for a head that reached the limit at pos.  Only empty lines so
 * far are no request line at all: a bad request, not a long URI.  A method
 * that runs to it is longer than any implemented: 501 (RFC 9112 3), not
 * the 414 of a long target.
 */
static int limit_status(const struct http_parser *p, uint32_t pos)
{
	if (p->state == S_START || p->state == S_START_LF)
		return -400;
	if (p->state == S_METHOD && pos - p->mark > HTTP_METHOD_NAME_MAX)
		return -501;
	return p->state <= S_VERSION ? -414 : -431;
}

int http_parse_request(struct http_parser *p, struct http_request *req,
		       const char *buf, size_t len)
{
	uint32_t pos = p->pos;
	uint32_t end = len > HTTP_MAX_HEAD ? HTTP_MAX_HEAD : (uint32_t)len;
	int ret;

	if (pos == 0 && p->state == S_START)
		memset(req, 0, sizeof(*req));

	while (pos < end) {
		uint32_t lim = state_limit(p);
		uint32_t stop = end < lim ? end : lim;
		char c = buf[pos];

		if (pos >= lim)
			return limit_status(p, pos);
		switch (p->state) {
		case S_START:
			/* RFC 9112 2.2: ignore empty lines before a request. */
			if (c == '\n') {
				pos++;
				break;
			}
			if (c == '\r') {
				p->state = S_START_LF;
				pos++;
				break;
			}
			p->mark = pos;
			p->state = S_METHOD;
			fallthrough;
		case S_METHOD:
			while (pos < stop && is_class(buf[pos], C_TOKEN))
				pos++;
			if (pos == stop)
				break;
			if (buf[pos] != ' ' || pos == p->mark)
				return -400;
			req->method_name.off = p->mark;
			req->method_name.len = pos - p->mark;
			pos++;
			p->state = S_TARGET_START;
			break;
		case S_TARGET_START:
			if (!is_class(c, C_TARGET))
				return -400;
			p->mark = pos;
			p->state = S_TARGET;
			fallthrough;
		case S_TARGET:
			while (pos < stop && is_class(buf[pos], C_TARGET))
				pos++;
			if (pos == stop)
				break;
			if (buf[pos] != ' ')
				return -400;
			req->target.off = p->mark;
			req->target.len = pos - p->mark;
			pos++;
			p->mark = pos;
			p->state = S_VERSION;
			break;
		case S_VERSION:
			if (c == '\r' || c == '\n') {
				ret = end_of_request_line(p, req, buf, pos);
				if (ret)
					return ret;
				p->state = c == '\r' ? S_REQUEST_LINE_LF :
						       S_LINE_START;
				p->line_end = pos + 1;
			} else if (pos >= HTTP_MAX_REQUEST_LINE) {
				return -414;
			} else if ((!is_class(c, C_TOKEN) && c != '/') ||
				   pos - p->mark >= 8) {
				return -400;
			}
			pos++;
			break;
		case S_START_LF:
		case S_REQUEST_LINE_LF:
		case S_VALUE_LF:
			if (c != '\n')
				return -400;
			pos++;
			if (p->state == S_REQUEST_LINE_LF)
				p->line_end = pos;
			p->state = p->state == S_START_LF ? S_START :
							    S_LINE_START;
			break;
		case S_LINE_START:
			if (c == '\r') {
				p->state = S_HEAD_END_LF;
				pos++;
				break;
			}
			if (c == '\n')
				return end_of_head(p, req, pos + 1);
			/* Leading whitespace is obs-fold (RFC 9112 5.2): refused. */
			if (!is_class(c, C_TOKEN))
				return -400;
			p->mark = pos;
			p->state = S_NAME;
			fallthrough;
		case S_NAME:
			while (pos < stop && is_class(buf[pos], C_TOKEN))
				pos++;
			if (pos == stop)
				break;
			if (buf[pos] != ':')
				return -400;
			p->name_len = pos - p->mark;
			pos++;
			p->state = S_VALUE_START;
			break;
		case S_VALUE_START:
			if (http_is_ows(c)) {
				pos++;
				break;
			}
			p->value_off = pos;
			p->state = S_VALUE;
			fallthrough;
		case S_VALUE: {
			uint32_t vend;

			while (pos < stop && is_class(buf[pos], C_VALUE))
				pos++;
			if (pos == stop)
				break;
			c = buf[pos];
			if (c != '\r' && c != '\n')
				return -400;
			vend = pos;
			while (vend > p->value_off &&
			       http_is_ows(buf[vend - 1]))
				vend--;
			ret = end_of_field(p, req, buf, vend);
			if (ret)
				return ret;
			p->state = c == '\r' ? S_VALUE_LF : S_LINE_START;
			pos++;
			break;
		}
		case S_HEAD_END_LF:
			if (c != '\n')
				return -400;
			return end_of_head(p, req, pos + 1);
		}
	}

	p->pos = pos;
	return HTTP_PARSE_AGAIN;
}
