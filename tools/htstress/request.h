/* SPDX-License-Identifier: MIT */
/*
 * The request htstress sends, built once before the run: every request of
 * a run is the same bytes.
 */
#ifndef HTSTRESS_REQUEST_H
#define HTSTRESS_REQUEST_H

#include <stdbool.h>
#include <stddef.h>

#include "url.h"

#define HTS_REQUEST_MAX 65536

struct hts_request {
	char *data;
	size_t len;
	/* It says "Connection: close" (a -H gave it, or no keep-alive):
	 * the connection is not used again (RFC 9112 9.6). */
	bool closes;
};

/*
 * Checks one -H argument, "Name: value".  Returns 0, or -1 with a one-line
 * reason in err.
 */
int hts_header_check(const char *header, char *err, size_t errlen);

/*
 * Builds "GET path HTTP/1.1" with Host (unless one of the headers is a
 * Host), the headers, and "Connection: close" unless keep_alive or a
 * Connection header was given.  Headers must have passed
 * hts_header_check().  Returns 0, or -1 with a reason in err.
 */
int hts_request_build(struct hts_request *req, const struct hts_url *url,
		      const char *const *headers, size_t nheaders,
		      bool keep_alive, char *err, size_t errlen);

void hts_request_free(struct hts_request *req);

#endif /* HTSTRESS_REQUEST_H */
