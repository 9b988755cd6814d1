// SPDX-License-Identifier: MIT
#include "out.h"
#include "escape.h"
#include "json.h"
#include "format.h"

/* Makes room for n bytes (n <= cap); false once an error is recorded. */
static bool reserve(struct http_out *out, size_t n)
{
	if (out->error)
		return false;
	if (out->cap - out->len >= n)
		return true;
	if (!out->flush || out->flush(out) || out->cap - out->len < n) {
		out->error = -1;
		return false;
	}
	return true;
}

void http_out_put(struct http_out *out, const char *s, size_t n)
{
	while (n > 0 && reserve(out, 1)) {
		size_t k = out->cap - out->len;

		if (k > n)
			k = n;
		memcpy(out->buf + out->len, s, k);
		out->len += k;
		s += k;
		n -= k;
	}
}

void http_out_puts(struct http_out *out, const char *s)
{
	http_out_put(out, s, strlen(s));
}

void http_out_u64(struct http_out *out, uint64_t v)
{
	if (reserve(out, HTTP_U64_DIGITS))
		out->len += http_format_u64(out->buf + out->len, v);
}

static bool is_control(char c)
{
	return (uint8_t)c < 0x20 || c == 0x7f;
}

void http_out_html(struct http_out *out, const char *s, size_t n)
{
	size_t i = 0;

	while (i < n) {
		bool valid;
		size_t k = http_utf8_sequence(s + i, n - i, &valid);

		/* Pages are declared UTF-8: other bytes (file names) show as
		 * U+FFFD, so that the page still decodes; so do control
		 * characters, which HTML text may not hold and a name may
		 * (a line break, an escape sequence). */
		if (!valid || (k == 1 && is_control(s[i])))
			http_out_put(out, HTTP_UTF8_REPLACEMENT,
				     sizeof(HTTP_UTF8_REPLACEMENT) - 1);
		else if (k > 1)
			http_out_put(out, s + i, k);
		else if (reserve(out, HTTP_HTML_ESCAPE_MAX))
			out->len += http_html_escape_byte(s[i],
							  out->buf + out->len);
		if (out->error)
			return;
		i += k;
	}
}

void http_out_json(struct http_out *out, const char *s, size_t n)
{
	size_t used;

	for (size_t i = 0; i < n && reserve(out, HTTP_JSON_ESCAPE_MAX);
	     i += used)
		out->len += http_json_escape_unit(s + i, n - i, &used,
						  out->buf + out->len);
}

void http_out_url(struct http_out *out, const char *s, size_t n,
		  bool keep_slash)
{
	for (size_t i = 0; i < n && reserve(out, HTTP_URL_ENCODE_MAX); i++)
		out->len += http_url_encode_byte(s[i], out->buf + out->len,
						 keep_slash);
}

int http_out_flush(struct http_out *out)
{
	if (!out->error && out->len > 0 && (!out->flush || out->flush(out)))
		out->error = -1;
	return out->error;
}
