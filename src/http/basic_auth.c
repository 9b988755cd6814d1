// SPDX-License-Identifier: MIT
#include "basic_auth.h"

#include "token.h"

/* The 6-bit value of a base64 digit, or -1. */
static int base64_digit(char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+')
		return 62;
	if (c == '/')
		return 63;
	return -1;
}

int http_base64_decode(const char *in, size_t n, char *out, size_t cap)
{
	uint32_t bits = 0;
	size_t len = 0, digits, pad = 0;

	/* Padding only completes the last quantum: "=" or "==". */
	while (pad < 2 && n > pad && in[n - 1 - pad] == '=')
		pad++;
	digits = n - pad;
	if ((pad && n % 4) || digits % 4 == 1)
		return -1;
	for (size_t i = 0; i < digits; i++) {
		int d = base64_digit(in[i]);

		if (d < 0)
			return -1;
		bits = bits << 6 | (uint32_t)d;
		if (i % 4 == 3) {
			if (cap - len < 3)
				return -1;
			out[len++] = (char)(bits >> 16);
			out[len++] = (char)(bits >> 8);
			out[len++] = (char)bits;
			bits = 0;
		}
	}
	/* A short last quantum: its unused low bits must be zero. */
	switch (digits % 4) {
	case 2:
		if ((bits & 0xf) || cap - len < 1)
			return -1;
		out[len++] = (char)(bits >> 4);
		break;
	case 3:
		if ((bits & 0x3) || cap - len < 2)
			return -1;
		out[len++] = (char)(bits >> 10);
		out[len++] = (char)(bits >> 2);
		break;
	}
	if (pad && pad != (4 - digits % 4) % 4)
		return -1;
	return (int)len;
}

/* RFC 5234's CTL: no user-id or password holds one. */
static bool has_control(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c < 0x20 || c == 0x7f)
			return true;
	}
	return false;
}

int http_basic_parse(const char *value, size_t len, char *out,
		     struct http_basic_credentials *c)
{
	const char *colon;
	size_t i = 5;
	int n;

	if (len < 6 || !http_eq_lower(value, "basic", 5) || value[5] != ' ')
		return -1;
	while (i < len && value[i] == ' ')
		i++;
	if (i == len || len - i > HTTP_BASIC_ENCODED_MAX)
		return -1;
	n = http_base64_decode(value + i, len - i, out, HTTP_BASIC_MAX);
	if (n < 0)
		return -1;
	colon = memchr(out, ':', (size_t)n);
	if (!colon || colon == out || has_control(out, (size_t)n))
		return -1;
	c->user = out;
	c->user_len = (size_t)(colon - out);
	c->password = colon + 1;
	c->password_len = (size_t)n - c->user_len - 1;
	return 0;
}
