// SPDX-License-Identifier: MIT
/*
 * Incremental HTTP/1.x response checker; see response.h.  A byte-at-a-time
 * state machine for the head and the chunk framing, bulk skipping for body
 * data, so a piece may end on any byte.
 */
#include "response.h"

#include <string.h>

#include "tchar.h"

enum state {
	ST_VERSION, /* matching "HTTP/1." */
	ST_MINOR,
	ST_VERSION_SP,
	ST_STATUS,
	ST_AFTER_STATUS,
	ST_REASON,
	ST_STATUS_LF,
	ST_FIELD_START,
	ST_NAME,
	ST_VALUE,
	ST_FIELD_LF,
	ST_HEAD_LF,
	ST_BODY_LENGTH,
	ST_BODY_EOF,
	ST_CHUNK_SIZE,
	ST_CHUNK_WS,
	ST_EXT_NAME_START,
	ST_EXT_NAME,
	ST_EXT_AFTER_NAME,
	ST_EXT_VALUE_START,
	ST_EXT_VALUE_TOKEN,
	ST_EXT_QUOTED,
	ST_EXT_QUOTED_ESC,
	ST_EXT_AFTER_VALUE,
	ST_CHUNK_SIZE_LF,
	ST_CHUNK_DATA,
	ST_CHUNK_DATA_CR,
	ST_CHUNK_DATA_LF,
	ST_DONE,
	ST_ERROR,
};

enum field {
	F_OTHER,
	F_CONTENT_LENGTH,
	F_TRANSFER_ENCODING,
	F_CONNECTION,
};

static const char version_prefix[] = "HTTP/1.";
/* Past these, one more digit could pass 2^63 (a length) or 2^60 (a chunk
 * size): the values bound them, not their digits, which may start with
 * zeros (RFC 9112 6.3, 7.1). */
#define MAX_LENGTH_BEFORE_DIGIT 100000000000000000ULL
#define MAX_CHUNK_BEFORE_DIGIT (1ULL << 56)

enum char_class {
	C_TCHAR = 1, /* tchar of RFC 9110, 5.6.2 */
	C_VALUE = 2, /* field-vchar, SP or HTAB: what a field value holds */
};

static uint8_t char_class[256];

__attribute__((constructor)) static void init_char_classes(void)
{
	for (unsigned int c = 0; c < 256; c++) {
		if (hts_is_tchar((unsigned char)c))
			char_class[c] |= C_TCHAR;
		if (c == '\t' || (c >= ' ' && c != 0x7f))
			char_class[c] |= C_VALUE;
	}
}

static bool is_tchar(unsigned char c)
{
	return char_class[c] & C_TCHAR;
}

static bool is_value_char(unsigned char c)
{
	return char_class[c] & C_VALUE;
}

/* How many bytes from p on are of the class. */
static size_t span(const unsigned char *p, size_t len, enum char_class cls)
{
	size_t n = 0;

	while (n < len && (char_class[p[n]] & cls))
		n++;
	return n;
}

#define BYTES(b) (UINT64_C(0x0101010101010101) * (b))

/*
 * span(p, len, C_VALUE), eight bytes at a time while none of them is below
 * 0x20 or is 0x7f (the classic "has a byte less than" and "has a zero byte"
 * tests); header values are most of a response head.
 */
static size_t span_value(const unsigned char *p, size_t len)
{
	size_t n = 0;

	for (; len - n >= 8; n += 8) {
		uint64_t x, del;

		memcpy(&x, p + n, 8);
		del = x ^ BYTES(0x7f);
		if (((x - BYTES(0x20)) & ~x & BYTES(0x80)) |
		    ((del - BYTES(0x01)) & ~del & BYTES(0x80)))
			break;
	}
	return n + span(p + n, len - n, C_VALUE);
}

static bool is_ows(unsigned char c)
{
	return c == ' ' || c == '\t';
}

static int hex_value(unsigned char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c |= 0x20;
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

void hts_response_init(struct hts_response *r)
{
	memset(r, 0, sizeof(*r));
	r->state = ST_VERSION;
}

static enum hts_parse_result fail(struct hts_response *r, const char *why)
{
	r->state = ST_ERROR;
	r->error = why;
	return HTS_PARSE_ERROR;
}

/*
 * Is the token s, a lower-case name of letters and '-'?  A token holds
 * only tchars, and among them c | 0x20 gives a lower-case letter for the
 * letters alone and '-' for '-' alone: a case-insensitive comparison.
 */
static bool token_is(const struct hts_response *r, const char *s)
{
	size_t n = strlen(s);

	if (r->token_too_long || r->token_len != n)
		return false;
	for (size_t i = 0; i < n; i++)
		if ((r->token[i] | 0x20) != s[i])
			return false;
	return true;
}

static void token_add_run(struct hts_response *r, const unsigned char *p,
			  size_t n)
{
	size_t room = sizeof(r->token) - r->token_len;

	if (n > room) {
		n = room;
		r->token_too_long = true;
	}
	memcpy(r->token + r->token_len, p, n);
	r->token_len += (uint8_t)n;
}

static void token_add(struct hts_response *r, unsigned char c)
{
	token_add_run(r, &c, 1);
}

static void token_reset(struct hts_response *r)
{
	r->token_len = 0;
	r->token_too_long = false;
}

static void identify_field(struct hts_response *r)
{
	r->field = F_OTHER;
	if (r->in_trailer)
		return;
	if (token_is(r, "content-length"))
		r->field = F_CONTENT_LENGTH;
	else if (token_is(r, "transfer-encoding"))
		r->field = F_TRANSFER_ENCODING;
	else if (token_is(r, "connection"))
		r->field = F_CONNECTION;
}

/* A token of a Transfer-Encoding or Connection list ended. */
static void list_token_end(struct hts_response *r)
{
	if (r->token_len || r->token_too_long) {
		if (r->field == F_TRANSFER_ENCODING) {
			r->has_te = true;
			r->te_chunked = token_is(r, "chunked");
		} else if (token_is(r, "close")) {
			r->conn_close = true;
		} else if (token_is(r, "keep-alive")) {
			r->conn_keep_alive = true;
		}
	}
	token_reset(r);
}

/*
 * One byte of a field value.  Content-Length must be digits between
 * optional whitespace; list fields are split into tokens, ignoring
 * parameters after ';', quoted strings in them too.  r->digits says a Content-Length digit came; name_len
 * is reused as "past the number" or "in parameters".
 */
static enum hts_parse_result value_byte(struct hts_response *r, unsigned char c)
{
	if (!is_value_char(c))
		return fail(r, "control character in a header value");
	switch (r->field) {
	case F_CONTENT_LENGTH:
		if (c >= '0' && c <= '9') {
			if (r->name_len)
				return fail(r, "bad Content-Length");
			if (r->value >= MAX_LENGTH_BEFORE_DIGIT)
				return fail(r, "Content-Length too large");
			r->digits = 1;
			r->value = r->value * 10 + (c - '0');
		} else if (is_ows(c)) {
			if (r->digits)
				r->name_len = 1;
		} else {
			return fail(r, "bad Content-Length");
		}
		break;
	case F_TRANSFER_ENCODING:
	case F_CONNECTION:
		/* name_len: 0 in a token, 1 in its parameters, 2 in a quoted
		 * string there, whose commas split nothing, 3 after a
		 * backslash in one. */
		if (r->name_len >= 2) {
			r->name_len = r->name_len == 3 ? 2 :
				      c == '\\'	       ? 3 :
				      c == '"'	       ? 1 :
							 2;
		} else if (c == ',') {
			list_token_end(r);
			r->name_len = 0;
		} else if (r->name_len) {
			if (c == '"')
				r->name_len = 2;
		} else if (is_tchar(c)) {
			token_add(r, c);
		} else {
			list_token_end(r);
			if (!is_ows(c))
				r->name_len = 1;
		}
		break;
	default:
		break;
	}
	return HTS_PARSE_MORE;
}

static enum hts_parse_result value_end(struct hts_response *r)
{
	switch (r->field) {
	case F_CONTENT_LENGTH:
		if (!r->digits)
			return fail(r, "empty Content-Length");
		if (r->has_length && r->length != r->value)
			return fail(r, "conflicting Content-Length fields");
		r->has_length = true;
		r->length = r->value;
		break;
	case F_TRANSFER_ENCODING:
	case F_CONNECTION:
		list_token_end(r);
		break;
	default:
		break;
	}
	return HTS_PARSE_MORE;
}

/* The empty line after the header section (or the trailer) was read. */
static enum hts_parse_result head_end(struct hts_response *r)
{
	if (r->in_trailer) {
		r->state = ST_DONE;
		return HTS_PARSE_DONE;
	}
	if (r->status < 200) {
		uint32_t head_bytes = r->head_bytes;

		/* We never ask to switch protocols. */
		if (r->status == 101)
			return fail(r, "unexpected 101 response");
		/* Interim response: the final one follows. */
		hts_response_init(r);
		r->head_bytes = head_bytes;
		return HTS_PARSE_MORE;
	}
	if (r->status == 204 || r->status == 304) {
		r->state = ST_DONE;
		return HTS_PARSE_DONE;
	}
	if (r->has_te && r->has_length)
		return fail(r, "both Transfer-Encoding and Content-Length");
	if (r->has_te && r->te_chunked) {
		r->value = 0;
		r->digits = 0;
		r->state = ST_CHUNK_SIZE;
	} else if (r->has_te || !r->has_length) {
		r->until_close = true;
		r->state = ST_BODY_EOF;
	} else if (r->length == 0) {
		r->state = ST_DONE;
		return HTS_PARSE_DONE;
	} else {
		r->remaining = r->length;
		r->state = ST_BODY_LENGTH;
	}
	return HTS_PARSE_MORE;
}

/* A chunk-size line ended. */
static void chunk_size_end(struct hts_response *r)
{
	if (r->value == 0) {
		r->in_trailer = true;
		r->state = ST_FIELD_START;
	} else {
		r->remaining = r->value;
		r->state = ST_CHUNK_DATA;
	}
}

/* One byte of a chunk-size line: size, then extensions (RFC 9112, 7.1.1). */
static enum hts_parse_result chunk_line_byte(struct hts_response *r,
					     unsigned char c)
{
	int h;

	switch (r->state) {
	case ST_CHUNK_SIZE:
		h = hex_value(c);
		if (h >= 0) {
			if (r->value >= MAX_CHUNK_BEFORE_DIGIT)
				return fail(r, "chunk size too large");
			r->digits = 1;
			r->value = r->value * 16 + (unsigned)h;
			return HTS_PARSE_MORE;
		}
		if (!r->digits)
			return fail(r, "bad chunk size");
		if (c == '\r')
			r->state = ST_CHUNK_SIZE_LF;
		else if (c == ';')
			r->state = ST_EXT_NAME_START;
		else if (is_ows(c))
			r->state = ST_CHUNK_WS;
		else
			return fail(r, "bad chunk size");
		return HTS_PARSE_MORE;
	case ST_CHUNK_WS:
		if (c == ';')
			r->state = ST_EXT_NAME_START;
		else if (!is_ows(c))
			return fail(r, "bad chunk size line");
		return HTS_PARSE_MORE;
	case ST_EXT_NAME_START:
		if (is_tchar(c))
			r->state = ST_EXT_NAME;
		else if (!is_ows(c))
			return fail(r, "bad chunk extension");
		return HTS_PARSE_MORE;
	case ST_EXT_NAME:
	case ST_EXT_AFTER_NAME:
		if (r->state == ST_EXT_NAME && is_tchar(c))
			return HTS_PARSE_MORE;
		if (c == '=')
			r->state = ST_EXT_VALUE_START;
		else if (c == ';')
			r->state = ST_EXT_NAME_START;
		else if (c == '\r')
			r->state = ST_CHUNK_SIZE_LF;
		else if (is_ows(c))
			r->state = ST_EXT_AFTER_NAME;
		else
			return fail(r, "bad chunk extension");
		return HTS_PARSE_MORE;
	case ST_EXT_VALUE_START:
		if (c == '"')
			r->state = ST_EXT_QUOTED;
		else if (is_tchar(c))
			r->state = ST_EXT_VALUE_TOKEN;
		else if (!is_ows(c))
			return fail(r, "bad chunk extension value");
		return HTS_PARSE_MORE;
	case ST_EXT_VALUE_TOKEN:
	case ST_EXT_AFTER_VALUE:
		if (r->state == ST_EXT_VALUE_TOKEN && is_tchar(c))
			return HTS_PARSE_MORE;
		if (c == ';')
			r->state = ST_EXT_NAME_START;
		else if (c == '\r')
			r->state = ST_CHUNK_SIZE_LF;
		else if (is_ows(c))
			r->state = ST_EXT_AFTER_VALUE;
		else
			return fail(r, "bad chunk extension value");
		return HTS_PARSE_MORE;
	case ST_EXT_QUOTED:
		if (c == '"')
			r->state = ST_EXT_AFTER_VALUE;
		else if (c == '\\')
			r->state = ST_EXT_QUOTED_ESC;
		else if (!is_value_char(c))
			return fail(r, "bad quoted chunk extension");
		return HTS_PARSE_MORE;
	case ST_EXT_QUOTED_ESC:
		if (!is_value_char(c))
			return fail(r, "bad quoted chunk extension");
		r->state = ST_EXT_QUOTED;
		return HTS_PARSE_MORE;
	case ST_CHUNK_SIZE_LF:
		if (c != '\n')
			return fail(r, "missing LF after chunk size");
		chunk_size_end(r);
		return HTS_PARSE_MORE;
	case ST_CHUNK_DATA_CR:
		if (c != '\r')
			return fail(r, "chunk data longer than its size");
		r->state = ST_CHUNK_DATA_LF;
		return HTS_PARSE_MORE;
	case ST_CHUNK_DATA_LF:
		if (c != '\n')
			return fail(r, "missing LF after chunk data");
		r->value = 0;
		r->digits = 0;
		r->state = ST_CHUNK_SIZE;
		return HTS_PARSE_MORE;
	default:
		return fail(r, "internal parser state");
	}
}

/* One byte of the status line or of a header or trailer field. */
static enum hts_parse_result head_byte(struct hts_response *r, unsigned char c)
{
	if (++r->head_bytes > HTS_RESPONSE_MAX_HEAD)
		return fail(r, "response head too large");
	switch (r->state) {
	case ST_VERSION:
		if (c != (unsigned char)version_prefix[r->name_len])
			return fail(r, "not an HTTP/1.x status line");
		if (++r->name_len == sizeof(version_prefix) - 1)
			r->state = ST_MINOR;
		break;
	case ST_MINOR:
		if (c < '0' || c > '9')
			return fail(r, "bad HTTP version");
		r->minor_version = c - '0';
		r->state = ST_VERSION_SP;
		break;
	case ST_VERSION_SP:
		if (c != ' ')
			return fail(r, "bad HTTP version");
		r->state = ST_STATUS;
		break;
	case ST_STATUS:
		if (c < '0' || c > '9')
			return fail(r, "bad status code");
		r->status = r->status * 10 + (c - '0');
		if (++r->digits == 3) {
			if (r->status < 100)
				return fail(r, "bad status code");
			r->state = ST_AFTER_STATUS;
		}
		break;
	case ST_AFTER_STATUS:
		/* The reason phrase may be empty; be lenient on its SP. */
		if (c == ' ')
			r->state = ST_REASON;
		else if (c == '\r')
			r->state = ST_STATUS_LF;
		else
			return fail(r, "bad status code");
		break;
	case ST_REASON:
		if (c == '\r')
			r->state = ST_STATUS_LF;
		else if (!is_value_char(c))
			return fail(r, "control character in reason phrase");
		break;
	case ST_STATUS_LF:
	case ST_FIELD_LF:
		if (c != '\n')
			return fail(r, "CR without LF");
		r->state = ST_FIELD_START;
		break;
	case ST_FIELD_START:
		if (c == '\r') {
			r->state = ST_HEAD_LF;
		} else if (is_tchar(c)) {
			token_reset(r);
			token_add(r, c);
			r->state = ST_NAME;
		} else if (is_ows(c)) {
			return fail(r, "obsolete line folding");
		} else {
			return fail(r, "bad header field name");
		}
		break;
	case ST_NAME:
		if (is_tchar(c)) {
			token_add(r, c);
		} else if (c == ':') {
			identify_field(r);
			token_reset(r);
			r->name_len = 0;
			r->digits = 0;
			r->value = 0;
			r->state = ST_VALUE;
		} else {
			return fail(r, "bad header field name");
		}
		break;
	case ST_VALUE:
		if (c == '\r') {
			if (value_end(r) == HTS_PARSE_ERROR)
				return HTS_PARSE_ERROR;
			r->state = ST_FIELD_LF;
		} else {
			return value_byte(r, c);
		}
		break;
	case ST_HEAD_LF:
		if (c != '\n')
			return fail(r, "CR without LF");
		return head_end(r);
	default:
		return fail(r, "internal parser state");
	}
	return HTS_PARSE_MORE;
}

enum hts_parse_result hts_response_parse(struct hts_response *r,
					 const char *buf, size_t len,
					 size_t *used)
{
	const unsigned char *p = (const unsigned char *)buf;
	size_t i = 0;

	if (r->state == ST_ERROR)
		return HTS_PARSE_ERROR;
	while (i < len) {
		enum hts_parse_result res;

		switch (r->state) {
		case ST_BODY_LENGTH:
		case ST_CHUNK_DATA: {
			size_t n = len - i;

			if (n > r->remaining)
				n = (size_t)r->remaining;
			r->remaining -= n;
			i += n;
			if (r->remaining)
				continue;
			if (r->state == ST_CHUNK_DATA) {
				r->state = ST_CHUNK_DATA_CR;
				continue;
			}
			r->state = ST_DONE;
			*used = i;
			return HTS_PARSE_DONE;
		}
		case ST_BODY_EOF:
			i = len;
			continue;
		case ST_DONE:
			*used = i;
			return HTS_PARSE_DONE;
		case ST_REASON:
		case ST_VALUE:
		case ST_NAME: {
			/* Runs of plain bytes, in bulk; their end byte below. */
			bool name = r->state == ST_NAME;
			size_t n;

			if (r->state == ST_VALUE && r->field != F_OTHER)
				break;
			n = name ? span(p + i, len - i, C_TCHAR) :
				   span_value(p + i, len - i);
			if (n > HTS_RESPONSE_MAX_HEAD - r->head_bytes)
				return fail(r, "response head too large");
			r->head_bytes += (uint32_t)n;
			if (name)
				token_add_run(r, p + i, n);
			i += n;
			if (i == len)
				continue;
			break;
		}
		default:
			break;
		}
		if (r->state >= ST_CHUNK_SIZE)
			res = chunk_line_byte(r, p[i]);
		else
			res = head_byte(r, p[i]);
		i++;
		if (res == HTS_PARSE_ERROR)
			return res;
		if (res == HTS_PARSE_DONE) {
			*used = i;
			return res;
		}
	}
	*used = i;
	if (r->state == ST_DONE)
		return HTS_PARSE_DONE;
	return HTS_PARSE_MORE;
}

enum hts_parse_result hts_response_eof(struct hts_response *r)
{
	if (r->state == ST_BODY_EOF || r->state == ST_DONE) {
		r->state = ST_DONE;
		return HTS_PARSE_DONE;
	}
	if (r->state == ST_ERROR)
		return HTS_PARSE_ERROR;
	return fail(r, "connection closed before the end of the response");
}

bool hts_response_keep_alive(const struct hts_response *r)
{
	if (r->until_close || r->state != ST_DONE)
		return false;
	if (r->minor_version >= 1)
		return !r->conn_close;
	return r->conn_keep_alive && !r->conn_close;
}
