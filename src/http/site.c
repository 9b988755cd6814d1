// SPDX-License-Identifier: MIT
#include "site.h"
#include "format.h"
#include "token.h"

const char *const http_default_index[HTTP_DEFAULT_INDEX_COUNT] = {
	"index.html",
	"index.htm",
};

#define WELL_KNOWN "/.well-known"

bool http_path_hidden(const char *path, size_t len)
{
	size_t i = 0;

	/* RFC 8615 metadata (ACME challenges, security.txt) is public. */
	if (len >= sizeof(WELL_KNOWN) - 1 &&
	    !memcmp(path, WELL_KNOWN, sizeof(WELL_KNOWN) - 1) &&
	    (len == sizeof(WELL_KNOWN) - 1 ||
	     path[sizeof(WELL_KNOWN) - 1] == '/'))
		i = sizeof(WELL_KNOWN) - 1;
	for (; i < len; i++) {
		if (path[i] == '/' && i + 1 < len && path[i + 1] == '.')
			return true;
	}
	return false;
}

bool http_entry_hidden(const char *dir, size_t dir_len, const char *name,
		       size_t len)
{
	if (!len || name[0] != '.')
		return false;
	/* ROOT's "/.well-known/" is served, so it is listed too. */
	return !(dir_len == 1 && dir[0] == '/' &&
		 len == sizeof(WELL_KNOWN) - 2 &&
		 !memcmp(name, &WELL_KNOWN[1], len));
}

bool http_path_has_extension(const char *path, size_t len)
{
	size_t i = len;

	while (i > 0 && path[i - 1] != '/')
		i--;
	/* A leading dot names a hidden file, not an extension. */
	for (size_t j = i + 1; j < len; j++) {
		if (path[j] == '.')
			return true;
	}
	return false;
}

/* A list of header names: tokens, commas and whitespace only. */
static bool token_list(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		if (!http_is_tchar(s[i]) && s[i] != ',' && !http_is_ows(s[i]))
			return false;
	}
	return len > 0;
}

struct line_writer {
	char *out;
	size_t len;
	size_t cap;
	bool overflow;
};

static void add(struct line_writer *w, const char *s, size_t n)
{
	if (w->overflow || w->cap - w->len < n) {
		w->overflow = true;
		return;
	}
	memcpy(w->out + w->len, s, n);
	w->len += n;
}

#define add_lit(w, lit) add(w, lit, sizeof(lit) - 1)

size_t http_cors_preflight_headers(char *out, size_t cap, const char *buf,
				   const struct http_request *req,
				   unsigned int max_age)
{
	struct line_writer w = { out, 0, cap, false };
	char tmp[HTTP_LIST_JOIN_MAX], digits[HTTP_U64_DIGITS];
	const char *asked;
	size_t asked_len = http_header_list(buf, req, HTTP_H_AC_REQUEST_HEADERS,
					    tmp, sizeof(tmp), &asked);

	/* What follows the list, the longest it can be. */
	const size_t tail = sizeof("\r\nAccess-Control-Max-Age: \r\n"
				   "Vary: Access-Control-Request-Headers\r\n") -
			    1 + HTTP_U64_DIGITS;

	add_lit(&w, "Access-Control-Allow-Methods: GET, HEAD, OPTIONS\r\n");
	/* A list longer than the room left for it is not echoed: the rest
	 * of the answer still goes. */
	if (asked_len && token_list(asked, asked_len) &&
	    w.len + sizeof("Access-Control-Allow-Headers: ") - 1 + asked_len +
			    tail <=
		    cap) {
		add_lit(&w, "Access-Control-Allow-Headers: ");
		add(&w, asked, asked_len);
		add_lit(&w, "\r\n");
	}
	add_lit(&w, "Access-Control-Max-Age: ");
	add(&w, digits, http_format_u64(digits, max_age));
	add_lit(&w, "\r\nVary: Access-Control-Request-Headers\r\n");
	return w.overflow ? 0 : w.len;
}
