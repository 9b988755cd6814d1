// SPDX-License-Identifier: MIT
#include "vhost.h"

#include "route.h"
#include "token.h"

size_t http_vhost_normalize(const char *host, size_t n, char *out)
{
	size_t label = 0;

	/* "example.com." is the same name, fully qualified. */
	if (n > 0 && host[n - 1] == '.')
		n--;
	if (n == 0 || n > HTTP_VHOST_NAME_MAX)
		return 0;
	for (size_t i = 0; i < n; i++) {
		char c = http_tolower(host[i]);

		if (c == '.') {
			if (label == 0)
				return 0; /* "a..b", ".a" */
			label = 0;
		} else if (http_is_alpha(c) || http_is_digit(c) || c == '-') {
			if (++label > HTTP_VHOST_LABEL_MAX)
				return 0;
		} else {
			return 0; /* '%', '_', '[', a control byte... */
		}
		out[i] = c;
	}
	return label ? n : 0; /* "a.." ends in an empty label */
}

bool http_vhost_init(struct http_vhost *v, const char *pattern, size_t n,
		     char *buf)
{
	bool wildcard = n >= 2 && pattern[0] == '*' && pattern[1] == '.';
	size_t skip = wildcard ? 2 : 0;
	size_t len = http_vhost_normalize(pattern + skip, n - skip, buf);

	if (len == 0)
		return false;
	*v = (struct http_vhost){ .name = buf,
				  .len = len,
				  .wildcard = wildcard };
	return true;
}

bool http_vhost_same(const struct http_vhost *a, const struct http_vhost *b)
{
	return a->wildcard == b->wildcard && a->len == b->len &&
	       !memcmp(a->name, b->name, a->len);
}

/* "*.name" covers host: one or more labels, a dot, then name. */
static bool wildcard_covers(const struct http_vhost *v, const char *host,
			    size_t len)
{
	return len > v->len + 1 && host[len - v->len - 1] == '.' &&
	       !memcmp(host + len - v->len, v->name, v->len);
}

int http_vhost_match(const struct http_vhost *v, size_t n, const char *host,
		     size_t len)
{
	int best = -1;

	for (size_t i = 0; i < n; i++) {
		if (!v[i].wildcard) {
			if (v[i].len == len && !memcmp(v[i].name, host, len))
				return (int)i;
		} else if (wildcard_covers(&v[i], host, len) &&
			   (best < 0 || v[i].len > v[best].len)) {
			best = (int)i;
		}
	}
	return best;
}

int http_vhost_for_request(const struct http_vhost *v, size_t n,
			   const char *buf, const struct http_request *req)
{
	char name[HTTP_VHOST_NAME_MAX];
	const char *host;
	size_t len;

	if (n == 0)
		return -1;
	len = http_request_host(buf, req, &host);
	if (len)
		len = http_vhost_normalize(host, len, name);
	return len ? http_vhost_match(v, n, name, len) : -1;
}
