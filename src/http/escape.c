// SPDX-License-Identifier: MIT
#include "escape.h"

size_t http_html_escape_byte(char c, char out[HTTP_HTML_ESCAPE_MAX])
{
	const char *rep;
	size_t n;

	switch (c) {
	case '&':
		rep = "&amp;";
		break;
	case '<':
		rep = "&lt;";
		break;
	case '>':
		rep = "&gt;";
		break;
	case '"':
		rep = "&quot;";
		break;
	case '\'':
		rep = "&#39;";
		break;
	default:
		out[0] = c;
		return 1;
	}
	n = strlen(rep);
	memcpy(out, rep, n);
	return n;
}

size_t http_utf8_sequence(const char *s, size_t n, bool *valid)
{
	const uint8_t *u = (const uint8_t *)s;
	uint8_t lo = 0x80, hi = 0xbf; /* the second byte's range */
	size_t need, i;

	*valid = u[0] < 0x80;
	if (*valid)
		return 1;
	if (u[0] >= 0xc2 && u[0] <= 0xdf) {
		need = 2;
	} else if (u[0] >= 0xe0 && u[0] <= 0xef) {
		need = 3;
		if (u[0] == 0xe0)
			lo = 0xa0; /* overlong */
		else if (u[0] == 0xed)
			hi = 0x9f; /* surrogates */
	} else if (u[0] >= 0xf0 && u[0] <= 0xf4) {
		need = 4;
		if (u[0] == 0xf0)
			lo = 0x90; /* overlong */
		else if (u[0] == 0xf4)
			hi = 0x8f; /* above U+10FFFF */
	} else {
		return 1;
	}
	if (n < 2 || u[1] < lo || u[1] > hi)
		return 1;
	for (i = 2; i < need && i < n && u[i] >= 0x80 && u[i] <= 0xbf; i++)
		;
	*valid = i == need;
	return i;
}

static bool is_unreserved(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_' ||
	       c == '~';
}

size_t http_url_encode_byte(char c, char out[HTTP_URL_ENCODE_MAX],
			    bool keep_slash)
{
	static const char hex[] = "0123456789ABCDEF";

	if (is_unreserved(c) || (keep_slash && c == '/')) {
		out[0] = c;
		return 1;
	}
	out[0] = '%';
	out[1] = hex[(uint8_t)c >> 4];
	out[2] = hex[(uint8_t)c & 15];
	return 3;
}

size_t http_html_escape(const char *s, size_t n, char *out, size_t cap)
{
	char tmp[HTTP_HTML_ESCAPE_MAX];
	size_t o = 0;

	for (size_t i = 0; i < n; i++) {
		size_t k = http_html_escape_byte(s[i], tmp);

		if (cap - o < k)
			return 0;
		memcpy(out + o, tmp, k);
		o += k;
	}
	return o;
}

size_t http_url_encode(const char *s, size_t n, char *out, size_t cap,
		       bool keep_slash)
{
	char tmp[HTTP_URL_ENCODE_MAX];
	size_t o = 0;

	for (size_t i = 0; i < n; i++) {
		size_t k = http_url_encode_byte(s[i], tmp, keep_slash);

		if (cap - o < k)
			return 0;
		memcpy(out + o, tmp, k);
		o += k;
	}
	return o;
}
