/* SPDX-License-Identifier: MIT */
/*
 * What a static site shows, decided the same way by both servers: which
 * paths are hidden (dot names), which names are a directory's index, which
 * missing paths a single-page app takes, and the headers of a CORS
 * preflight answer.
 */
#ifndef HTTP_SITE_H
#define HTTP_SITE_H

#include "compat.h"
#include "parser.h"

/* The names tried in a directory, in order, when none are configured. */
#define HTTP_DEFAULT_INDEX_COUNT 2
extern const char *const http_default_index[HTTP_DEFAULT_INDEX_COUNT];

/*
 * True when a directory entry is left out of its listing unless dotfiles
 * are on: ".name", except ".well-known" in ROOT, whose path is not hidden
 * (http_path_hidden).  dir is the listed directory's normalised request
 * path, "/" for ROOT.
 */
bool http_entry_hidden(const char *dir, size_t dir_len, const char *name,
		       size_t len);

/*
 * True when a normalised path (starting with '/') has a hidden segment and
 * so is answered 404 unless dotfiles are on.  "/.well-known/" (RFC 8615)
 * is not hidden itself, but hidden names beneath it are.
 */
bool http_path_hidden(const char *path, size_t len);

/* True when the path's last segment has a file extension ("app.js"). */
bool http_path_has_extension(const char *path, size_t len);

/* An OPTIONS request a browser sends before a cross-origin request. */
static inline bool http_is_cors_preflight(const struct http_request *req)
{
	return req->method == HTTP_OPTIONS &&
	       http_has_header(req, HTTP_H_ORIGIN) &&
	       http_has_header(req, HTTP_H_AC_REQUEST_METHOD);
}

/* Room for http_cors_preflight_headers()' lines. */
#define HTTP_CORS_PREFLIGHT_MAX (HTTP_LIST_JOIN_MAX + 256)

/*
 * The header lines (each ending in CRLF) of the answer to a CORS preflight
 * beside Access-Control-Allow-Origin: the methods a static server allows,
 * the request headers asked for (echoed when they are a list of tokens
 * that fits cap beside the rest),
 * and how long the browser may keep the answer.  Returns their length.
 */
size_t http_cors_preflight_headers(char *out, size_t cap, const char *buf,
				   const struct http_request *req,
				   unsigned int max_age);

#endif /* HTTP_SITE_H */
