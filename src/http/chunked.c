// SPDX-License-Identifier: MIT
#include "chunked.h"
#include "format.h"
#include "token.h"

/* Size lines with extensions and trailer fields are bounded like a head. */
#define CHUNK_LINE_MAX 4096
#define TRAILER_MAX 16384

enum {
	CH_SIZE, /* hex digits */
	CH_EXT, /* ";ext" up to the line end */
	CH_SIZE_LF,
	CH_DATA,
	CH_DATA_CR,
	CH_DATA_LF,
	CH_TRAILER_START,
	CH_TRAILER, /* a trailer field line */
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
		case CH_SIZE: {
			int v = hex_digit(c);

			if (v >= 0) {
				if (++d->digits > 16)
					return HTTP_CHUNKED_ERROR;
				d->remaining = d->remaining << 4 | (uint64_t)v;
				break;
			}
			if (d->digits == 0)
				return HTTP_CHUNKED_ERROR;
			if (c == ';' || c == ' ' || c == '\t')
				d->state = CH_EXT;
			else if (c == '\r')
				d->state = CH_SIZE_LF;
			else if (c == '\n')
				goto size_line_done;
			else
				return HTTP_CHUNKED_ERROR;
			break;
		}
		case CH_EXT:
			if (c == '\r')
				d->state = CH_SIZE_LF;
			else if (c == '\n')
				goto size_line_done;
			else if (c == '\0')
				return HTTP_CHUNKED_ERROR;
			break;
		case CH_SIZE_LF:
			if (c != '\n')
				return HTTP_CHUNKED_ERROR;
size_line_done:
			d->line_bytes = 0;
			d->digits = 0;
			d->state = d->remaining ? CH_DATA : CH_TRAILER_START;
			break;
		case CH_DATA_CR:
			if (c == '\n') {
				d->line_bytes = 0;
				d->state = CH_SIZE;
			} else if (c == '\r') {
				d->state = CH_DATA_LF;
			} else {
				return HTTP_CHUNKED_ERROR;
			}
			break;
		case CH_DATA_LF:
			if (c != '\n')
				return HTTP_CHUNKED_ERROR;
			d->line_bytes = 0;
			d->state = CH_SIZE;
			break;
		case CH_TRAILER_START:
			if (c == '\n')
				goto done;
			if (c == '\r') {
				d->state = CH_END_LF;
				break;
			}
			d->state = CH_TRAILER;
			fallthrough;
		case CH_TRAILER:
			if (++d->trailer_bytes > TRAILER_MAX || c == '\0')
				return HTTP_CHUNKED_ERROR;
			if (c == '\r') {
				d->state = CH_TRAILER_LF;
			} else if (c == '\n') {
				d->line_bytes = 0;
				d->state = CH_TRAILER_START;
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
