// SPDX-License-Identifier: MIT
#include "header_arg.h"

#include "path.h"
#include "token.h"

/*
 * Headers the server writes itself, per response: another line of one
 * would contradict it (framing, the representation's metadata, validators)
 * and corrupt or confuse what clients and caches make of the response.
 */
static const char *const managed[] = {
	"Content-Length", "Transfer-Encoding", "Connection",	"Keep-Alive",
	"Upgrade",	  "Trailer",	       "Date",		"Server",
	"Content-Type",	  "Content-Encoding",  "Content-Range", "Accept-Ranges",
	"ETag",		  "Last-Modified",     "Location",	"Allow",
};

/*
 * Headers the CORS answer sends itself: a header line of one would repeat
 * it, and browsers refuse a response with two of them.  Others of the
 * family (Access-Control-Expose-Headers, -Allow-Credentials) are the
 * operator's to add.
 */
static const char *const cors_managed[] = {
	"Access-Control-Allow-Origin",
	"Access-Control-Allow-Methods",
	"Access-Control-Allow-Headers",
	"Access-Control-Max-Age",
};

static const char *http_header_arg_find(const struct http_header_arg *h,
					const char *const *names, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		size_t j = 0;

		if (strlen(names[i]) != h->name_len)
			continue;
		while (j < h->name_len &&
		       http_tolower(names[i][j]) == http_tolower(h->name[j]))
			j++;
		if (j == h->name_len)
			return names[i];
	}
	return NULL;
}

enum http_header_arg_error http_header_arg_split(const char *arg,
						 struct http_header_arg *h)
{
	const char *colon, *v, *end;

	*h = (struct http_header_arg){ .prefix = "", .name = arg };
	if (arg[0] == '/') {
		colon = strchr(arg, ':');
		if (!colon)
			return HTTP_HEADER_ARG_NO_HEADER;
		h->prefix = arg;
		h->prefix_len = (size_t)(colon - arg);
		h->name = colon + 1;
		if (!http_path_matchable(h->prefix, h->prefix_len))
			return HTTP_HEADER_ARG_BAD_PREFIX;
	}
	colon = strchr(h->name, ':');
	if (!colon)
		return HTTP_HEADER_ARG_NO_COLON;
	h->name_len = (size_t)(colon - h->name);
	if (!h->name_len)
		return HTTP_HEADER_ARG_EMPTY_NAME;
	for (size_t i = 0; i < h->name_len; i++) {
		if (!http_is_tchar(h->name[i]))
			return HTTP_HEADER_ARG_BAD_NAME;
	}
	v = colon + 1;
	end = v + strlen(v);
	while (v < end && http_is_ows(*v))
		v++;
	while (end > v && http_is_ows(end[-1]))
		end--;
	for (const char *p = v; p < end; p++) {
		unsigned char c = (unsigned char)*p;

		if ((c < ' ' && c != '\t') || c == 0x7f)
			return HTTP_HEADER_ARG_BAD_VALUE;
	}
	h->value = v;
	h->value_len = (size_t)(end - v);
	h->managed = http_header_arg_find(h, managed, ARRAY_SIZE(managed));
	return h->managed ? HTTP_HEADER_ARG_MANAGED : HTTP_HEADER_ARG_OK;
}

enum http_header_arg_error http_header_arg_check_cors(struct http_header_arg *h)
{
	h->managed =
		http_header_arg_find(h, cors_managed, ARRAY_SIZE(cors_managed));
	return h->managed ? HTTP_HEADER_ARG_CORS : HTTP_HEADER_ARG_OK;
}

static size_t http_header_put(char *out, const char *name, size_t name_len,
			      const char *value, size_t value_len)
{
	memcpy(out, name, name_len);
	memcpy(out + name_len, ": ", 2);
	memcpy(out + name_len + 2, value, value_len);
	memcpy(out + name_len + 2 + value_len, "\r\n", 2);
	return name_len + value_len + 4;
}

size_t http_header_rule_from_arg(struct http_header_rule *r, char *out,
				 const struct http_header_arg *h)
{
	*r = (struct http_header_rule){
		.prefix = h->prefix,
		.prefix_len = h->prefix_len,
		.lines = out,
		.lines_len = http_header_put(out, h->name, h->name_len,
					     h->value, h->value_len),
		.cache_control = h->name_len == 13 &&
				 http_eq_lower(h->name, "cache-control", 13),
	};
	return r->lines_len;
}

size_t http_header_rule_cors(struct http_header_rule *r, char *out,
			     const char *origin)
{
	static const char name[] = "Access-Control-Allow-Origin";
	static const char vary[] = "Vary: Origin\r\n";
	size_t n = http_header_put(out, name, sizeof(name) - 1, origin,
				   strlen(origin));

	if (strcmp(origin, "*")) {
		memcpy(out + n, vary, sizeof(vary) - 1);
		n += sizeof(vary) - 1;
	}
	*r = (struct http_header_rule){
		.prefix = "",
		.lines = out,
		.lines_len = n,
		.always = true,
	};
	return n;
}

const char *http_header_arg_error_text(enum http_header_arg_error e)
{
	switch (e) {
	case HTTP_HEADER_ARG_OK:
		break;
	case HTTP_HEADER_ARG_NO_HEADER:
		return "no header after the path prefix";
	case HTTP_HEADER_ARG_BAD_PREFIX:
		return "the path prefix is not " HTTP_PATH_MATCHABLE_RULE;
	case HTTP_HEADER_ARG_NO_COLON:
		return "expected 'Name: value'";
	case HTTP_HEADER_ARG_EMPTY_NAME:
		return "empty header name";
	case HTTP_HEADER_ARG_BAD_NAME:
		return "a header name is a token (letters, digits, "
		       "!#$%&'*+-.^_`|~), without spaces";
	case HTTP_HEADER_ARG_BAD_VALUE:
		return "the value holds a control character (CR, LF or another)";
	case HTTP_HEADER_ARG_MANAGED:
		return "the server sets this header itself";
	case HTTP_HEADER_ARG_CORS:
		return "the CORS answer sets this header itself";
	}
	return "";
}
