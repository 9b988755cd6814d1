// SPDX-License-Identifier: MIT
/* The Host header's value (RFC 9112 3.2, RFC 3986 3.2.2). */
#include "host.h"

static bool is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
	       (c >= 'A' && c <= 'F');
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* unreserved / sub-delims (RFC 3986 2.2, 2.3) */
static bool is_host_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       is_digit(c) || (c && strchr("-._~!$&'()*+,;=", c));
}

/* dec-octet "." dec-octet "." dec-octet "." dec-octet */
static bool is_ipv4(const char *s, size_t n)
{
	size_t i = 0;

	for (int part = 0; part < 4; part++) {
		size_t start;
		unsigned int v = 0;

		if (part && (i >= n || s[i++] != '.'))
			return false;
		start = i;
		while (i < n && is_digit(s[i]) && i - start < 3)
			v = v * 10 + (unsigned int)(s[i++] - '0');
		if (i == start || v > 255 || (s[start] == '0' && i - start > 1))
			return false;
	}
	return i == n;
}

/* Eight 16-bit groups, or fewer around one "::", the last two maybe IPv4. */
static bool is_ipv6(const char *s, size_t n)
{
	size_t i = 0, groups = 0;
	bool elided = false;

	if (n >= 2 && s[0] == ':' && s[1] == ':') {
		elided = true;
		i = 2;
	}
	while (i < n) {
		size_t k = i;

		while (k < n && s[k] != ':')
			k++;
		if (k == n && memchr(s + i, '.', k - i)) {
			if (!is_ipv4(s + i, k - i))
				return false;
			groups += 2;
			break;
		}
		if (k == i || k - i > 4)
			return false;
		for (size_t j = i; j < k; j++) {
			if (!is_hex(s[j]))
				return false;
		}
		groups++;
		if (k == n)
			break;
		if (k + 1 < n && s[k + 1] == ':') {
			if (elided)
				return false;
			elided = true;
			i = k + 2;
		} else {
			i = k + 1;
			if (i == n)
				return false; /* a trailing single ':' */
		}
	}
	return elided ? groups <= 7 : groups == 8;
}

/* "v" 1*HEXDIG "." 1*( unreserved / sub-delims / ":" ) */
static bool is_ipvfuture(const char *s, size_t n)
{
	size_t i = 1;

	if (n < 4 || (s[0] != 'v' && s[0] != 'V'))
		return false;
	while (i < n && is_hex(s[i]))
		i++;
	if (i == 1 || i >= n - 1 || s[i] != '.')
		return false;
	for (i++; i < n; i++) {
		if (!is_host_char(s[i]) && s[i] != ':')
			return false;
	}
	return true;
}

/*
 * Host = uri-host [ ":" port ], uri-host being an IP-literal, an IPv4
 * address or a reg-name (RFC 9112 3.2, RFC 3986 3.2.2); empty is allowed.
 */
bool http_host_valid(const char *s, size_t n)
{
	size_t i = 0;

	if (n && s[0] == '[') {
		const char *close = memchr(s, ']', n);

		if (!close)
			return false;
		i = (size_t)(close - s);
		if (!is_ipv6(s + 1, i - 1) && !is_ipvfuture(s + 1, i - 1))
			return false;
		i++;
	} else {
		/* A reg-name, which includes every IPv4 address. */
		while (i < n && s[i] != ':') {
			if (s[i] == '%') {
				if (n - i < 3 || !is_hex(s[i + 1]) ||
				    !is_hex(s[i + 2]))
					return false;
				i += 3;
			} else if (is_host_char(s[i])) {
				i++;
			} else {
				return false;
			}
		}
	}
	if (i == n)
		return true;
	if (s[i++] != ':')
		return false;
	while (i < n && is_digit(s[i]))
		i++;
	return i == n;
}
