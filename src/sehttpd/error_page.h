/* SPDX-License-Identifier: MIT */
/* The operator's pages for error statuses (--error-page). */
#ifndef SEHTTPD_ERROR_PAGE_H
#define SEHTTPD_ERROR_PAGE_H

#include <stddef.h>

#include "exchange.h"

/* An error page, read whole for one response. */
struct error_page {
	const char *body; /* freed when the request ends */
	size_t len;
	const char *content_type;
};

/*
 * The page for status, read from beneath rc's root (ROOT for a request
 * refused before it had one): 0, or -1 when there is none or it cannot
 * answer this request (missing, not a regular file, too large, hidden or
 * guarded), and the built-in page answers.
 */
int error_page_read(struct exchange *rc, int status, struct error_page *page);

#endif /* SEHTTPD_ERROR_PAGE_H */
