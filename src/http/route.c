// SPDX-License-Identifier: MIT
#include "route.h"
#include "escape.h"
#include "path.h"

int http_route(const char *buf, const struct http_request *req, char *path)
{
	int n;

	/* The server as a whole (RFC 9110 9.3.7): no path. */
	if (req->method == HTTP_OPTIONS && req->target.len == 1 &&
	    buf[req->target.off] == '*') {
		path[0] = '\0';
		return 0;
	}
	if (!http_method_allowed_on_static(req->method) &&
	    req->method != HTTP_OPTIONS)
		return -405;
	if (!req->target_ok)
		return -400;
	n = http_path_normalize(buf + req->path.off, req->path.len, path,
				HTTP_PATH_MAX - 1);
	if (n < 0)
		return -400;
	path[n] = '\0';
	return n;
}

size_t http_dir_redirect_location(char *out, size_t cap, const char *buf,
				  const struct http_request *req,
				  const char *path, size_t len)
{
	size_t n = http_url_encode(path, len, out, cap, true);
	size_t query = req->has_query ? 1 + (size_t)req->query.len : 0;

	if (n == 0 || cap - n < 1 + query)
		return 0;
	out[n++] = '/';
	if (req->has_query) {
		out[n++] = '?';
		memcpy(out + n, buf + req->query.off, req->query.len);
		n += req->query.len;
	}
	return n;
}
