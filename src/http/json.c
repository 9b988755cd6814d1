// SPDX-License-Identifier: MIT
#include "json.h"

#include "escape.h"

static size_t put_u(char out[HTTP_JSON_ESCAPE_MAX], unsigned v)
{
	static const char hex[] = "0123456789abcdef";

	out[0] = '\\';
	out[1] = 'u';
	out[2] = hex[v >> 12 & 15];
	out[3] = hex[v >> 8 & 15];
	out[4] = hex[v >> 4 & 15];
	out[5] = hex[v & 15];
	return 6;
}

size_t http_json_escape_unit(const char *s, size_t n, size_t *used,
			     char out[HTTP_JSON_ESCAPE_MAX])
{
	static const char short_form[] = "\"\"\\\\\bb\ff\nn\rr\tt";
	unsigned char c = (unsigned char)s[0];
	bool valid;
	size_t len;

	*used = 1;
	if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
		out[0] = (char)c;
		return 1;
	}
	if (c < 0x80) {
		for (size_t i = 0; i < sizeof(short_form) - 1; i += 2) {
			if (short_form[i] == (char)c) {
				out[0] = '\\';
				out[1] = short_form[i + 1];
				return 2;
			}
		}
		return put_u(out, c); /* other controls, DEL */
	}
	len = http_utf8_sequence(s, n, &valid);
	*used = len;
	if (!valid)
		return put_u(out, 0xfffd);
	/* E2 80 A8 and E2 80 A9: U+2028, U+2029. */
	if (len == 3 && c == 0xe2 && (unsigned char)s[1] == 0x80 &&
	    ((unsigned char)s[2] & 0xfe) == 0xa8)
		return put_u(out, 0x2028 | ((unsigned char)s[2] & 1));
	memcpy(out, s, len);
	return len;
}

size_t http_json_escape(const char *s, size_t n, char *out, size_t cap)
{
	char unit[HTTP_JSON_ESCAPE_MAX];
	size_t total = 0, o = 0, used, end;

	for (size_t i = 0; i < n; i += used)
		total += http_json_escape_unit(s + i, n - i, &used, unit);
	end = total > cap ? cap - 3 : cap;
	for (size_t i = 0; i < n; i += used) {
		size_t k = http_json_escape_unit(s + i, n - i, &used, unit);

		if (end - o < k)
			break;
		memcpy(out + o, unit, k);
		o += k;
	}
	if (total > cap) {
		memcpy(out + o, "...", 3);
		o += 3;
	}
	return o;
}
