/* SPDX-License-Identifier: MIT */
/*
 * What a parsed request asks of a static-file server, decided before any file
 * system access, so that both servers refuse and redirect identically.
 */
#ifndef HTTP_ROUTE_H
#define HTTP_ROUTE_H

#include "compat.h"
#include "parser.h"

/* Room for any normalised path from a request line within limits. */
#define HTTP_PATH_MAX (HTTP_MAX_REQUEST_LINE + 1)

/*
 * Writes the decoded, normalised path of req (starting with '/') into path,
 * which has HTTP_PATH_MAX bytes, NUL-terminated; returns its length.  Or
 * returns the negated status to answer instead: -405 for methods other than
 * GET, HEAD and OPTIONS, -400 for a target that is not a usable path.  An
 * OPTIONS target is such a path too, or "*" (the server as a whole), for
 * which path is empty and 0 is returned.
 */
int http_route(const char *buf, const struct http_request *req, char *path);

/*
 * The Location of the 301 that sends a directory requested without its
 * trailing slash to the slashed URL: the path re-encoded (so "//host" can
 * never become a protocol-relative URL), "/", and the query if any.
 * Returns the length written to out, or 0 when cap is too small.
 */
size_t http_dir_redirect_location(char *out, size_t cap, const char *buf,
				  const struct http_request *req,
				  const char *path, size_t len);

/*
 * The authority a request names, as sent (a port kept): the absolute-form
 * target's, which RFC 9112 3.2.2 puts over Host, else the Host field (for
 * an origin-form target or "*").  Points *host into buf and returns its
 * length; 0 when it names none (no Host, an empty one, or a target in
 * neither form, as an absolute-form one without a valid host).
 */
size_t http_request_authority(const char *buf, const struct http_request *req,
			      const char **host);

/*
 * The host a request names, without its port: the absolute-form target's
 * authority, which RFC 9112 3.2.2 puts over Host, else the Host field.
 * Points *host into buf and returns its length; 0 when it names none
 * ("OPTIONS *", HTTP/1.0 without Host, an unusable target).
 */
size_t http_request_host(const char *buf, const struct http_request *req,
			 const char **host);

/*
 * The Location of --http-redirect's 308: "https://", the host the request
 * names (an absolute-form target's authority, else Host) without its port,
 * ":port" unless port is 443 (or 0), and the target's path ("/" if empty)
 * and query as sent, with what a URI may not hold there percent-encoded.
 * Returns the length written to out, or 0 when there is no host to send the
 * client to ("OPTIONS *", HTTP/1.0 without Host), or cap is too small.
 */
size_t http_https_location(char *out, size_t cap, const char *buf,
			   const struct http_request *req, uint16_t port);

#endif /* HTTP_ROUTE_H */
