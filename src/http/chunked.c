// SPDX-License-Identifier: MIT
#include "chunked.h"
#include "format.h"
#include "token.h"

/* Size lines with extensions and trailer fields are bounded like a head. */
#define CHUNK_LINE_MAX 4096
#define TRAILER_MAX 16384

/*
 * Every line of the framing ends in CRLF: a bare LF is refused, so no other
 * reader can find a different end of the body (RFC 9112 7.1).
 */
enum {
	CH_SIZE_START, /* before the first hex digit */
	CH_SIZE, /* hex digits */
	CH_EXT_BWS, /* whitespace, which must lead to ';' */
	CH_EXT_NAME_START, /* after ';' */
	CH_EXT_NAME,
	CH_EXT_NAME_END, /* whitespace after the name */
	CH_EXT_VALUE_START, /* after '=' */
	CH_EXT_TOKEN,
	CH_EXT_QUOTED,
	CH_EXT_QUOTED_PAIR, /* after a backslash */
	CH_EXT_QUOTED_END, /* after the closing quote */
	CH_SIZE_LF,
	CH_DATA,
	CH_DATA_CR,
	CH_DATA_LF,
	CH_TRAILER_START,
	CH_TRAILER_NAME, /* a trailer field line: name ":" value */
	CH_TRAILER_VALUE,
	CH_TRAILER_LF,
	CH_END_LF,
};

size_t http_chunk_header(char *out, uint64_t len)
{
	size_t n = http_format_hex(out, len);

	out[n++] = '\r';
	out[n++] = '\n';
	return n;
}

void http_chunked_init(struct http_chunked_decoder *d)
{
	memset(d, 0, sizeof(*d));
}

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = http_tolower(c);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* qdtext and the byte after a backslash (RFC 9110 5.6.4). */
static bool is_qdtext(char c)
{
	uint8_t u = (uint8_t)c;

	return c == '\t' || c == ' ' ||
	       (u >= 0x21 && u != '"' && u != '\\' && u != 0x7f);
}

static bool is_quoted_pair_byte(char c)
{
	uint8_t u = (uint8_t)c;

	return c == '\t' || (u >= 0x20 && u != 0x7f);
}

/*
 * One byte of a size line after the size: the chunk extensions,
 * *( BWS ";" BWS name [ BWS "=" BWS ( token / quoted-string ) ] ) then CR
 * (RFC 9112 7.1.1).  Returns the next state or -1.
 */
static int size_line_byte(uint8_t state, char c)
{
	bool ws = http_is_ows(c);

	switch (state) {
	case CH_SIZE:
	case CH_EXT_TOKEN:
	case CH_EXT_QUOTED_END:
		if (state == CH_EXT_TOKEN && http_is_tchar(c))
			return state;
		if (c == ';')
			return CH_EXT_NAME_START;
		if (c == '\r')
			return CH_SIZE_LF;
		return ws ? CH_EXT_BWS : -1;
	case CH_EXT_BWS:
		if (ws)
			return state;
		return c == ';' ? CH_EXT_NAME_START : -1;
	case CH_EXT_NAME_START:
		if (ws)
			return state;
		return http_is_tchar(c) ? CH_EXT_NAME : -1;
	case CH_EXT_NAME:
	case CH_EXT_NAME_END:
		if (state == CH_EXT_NAME && http_is_tchar(c))
			return state;
		if (ws)
			return CH_EXT_NAME_END;
		if (c == '=')
			return CH_EXT_VALUE_START;
		if (c == ';')
			return CH_EXT_NAME_START;
		return c == '\r' && state == CH_EXT_NAME ? CH_SIZE_LF : -1;
	case CH_EXT_VALUE_START:
		if (ws)
			return state;
		if (c == '"')
			return CH_EXT_QUOTED;
		return http_is_tchar(c) ? CH_EXT_TOKEN : -1;
	case CH_EXT_QUOTED:
		if (c == '"')
			return CH_EXT_QUOTED_END;
		if (c == '\\')
			return CH_EXT_QUOTED_PAIR;
		return is_qdtext(c) ? state : -1;
	case CH_EXT_QUOTED_PAIR:
		return is_quoted_pair_byte(c) ? CH_EXT_QUOTED : -1;
	}
	return -1;
}

int http_chunked_decode(struct http_chunked_decoder *d, const char *buf,
			size_t len, size_t *used)
{
	size_t i = 0;

	while (i < len) {
		char c = buf[i];

		if (d->state == CH_DATA) {
			uint64_t n = len - i;

			if (n > d->remaining)
				n = d->remaining;
			i += n;
			d->remaining -= n;
			if (d->remaining == 0)
				d->state = CH_DATA_CR;
			continue;
		}
		i++;
		if (++d->line_bytes > CHUNK_LINE_MAX)
			return HTTP_CHUNKED_ERROR;
		switch (d->state) {
		case CH_SIZE_START:
		case CH_SIZE: {
			int v = hex_digit(c);

			if (v >= 0) {
				/* Leading zeros are not significant. */
				if ((d->remaining || v) && ++d->digits > 16)
					return HTTP_CHUNKED_ERROR;
				d->remaining = d->remaining << 4 | (uint64_t)v;
				d->state = CH_SIZE;
				break;
			}
			if (d->state == CH_SIZE_START)
				return HTTP_CHUNKED_ERROR;
			fallthrough;
		}
		case CH_EXT_BWS:
		case CH_EXT_NAME_START:
		case CH_EXT_NAME:
		case CH_EXT_NAME_END:
		case CH_EXT_VALUE_START:
		case CH_EXT_TOKEN:
		case CH_EXT_QUOTED:
		case CH_EXT_QUOTED_PAIR:
		case CH_EXT_QUOTED_END: {
			int next = size_line_byte(d->state, c);

			if (next < 0)
				return HTTP_CHUNKED_ERROR;
			d->state = (uint8_t)next;
			break;
		}
		case CH_SIZE_LF:
			if (c != '\n')
				return HTTP_CHUNKED_ERROR;
			d->line_bytes = 0;
			d->digits = 0;
			d->state = d->remaining ? CH_DATA : CH_TRAILER_START;
			break;
		case CH_DATA_CR:
			if (c != '\r')
				return HTTP_CHUNKED_ERROR;
			d->state = CH_DATA_LF;
			break;
		case CH_DATA_LF:
			if (c != '\n')
				return HTTP_CHUNKED_ERROR;
			d->line_bytes = 0;
			d->state = CH_SIZE_START;
			break;
		case CH_TRAILER_START:
			if (c == '\r') {
				d->state = CH_END_LF;
				break;
			}
			/* A field name; leading whitespace would be obs-fold. */
			if (!http_is_tchar(c))
				return HTTP_CHUNKED_ERROR;
			d->state = CH_TRAILER_NAME;
			fallthrough;
		case CH_TRAILER_NAME:
		case CH_TRAILER_VALUE:
			if (++d->trailer_bytes > TRAILER_MAX)
				return HTTP_CHUNKED_ERROR;
			if (d->state == CH_TRAILER_NAME) {
				if (c == ':')
					d->state = CH_TRAILER_VALUE;
				else if (!http_is_tchar(c))
					return HTTP_CHUNKED_ERROR;
			} else if (c == '\r') {
				d->state = CH_TRAILER_LF;
			} else if (((uint8_t)c < 0x20 && c != '\t') ||
				   c == 0x7f) {
				/* field-vchar, SP, HTAB, obs-text (RFC 9110 5.5) */
				return HTTP_CHUNKED_ERROR;
			}
			break;
		case CH_TRAILER_LF:
			if (c != '\n')
				return HTTP_CHUNKED_ERROR;
			d->line_bytes = 0;
			d->state = CH_TRAILER_START;
			break;
		case CH_END_LF:
			if (c != '\n')
				return HTTP_CHUNKED_ERROR;
			goto done;
		}
	}
	*used = i;
	return HTTP_CHUNKED_AGAIN;
done:
	*used = i;
	return HTTP_CHUNKED_DONE;
}
