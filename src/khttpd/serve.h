/* SPDX-License-Identifier: GPL-2.0 */
/* Answering GET and HEAD from the served tree. */
#ifndef KHTTPD_SERVE_H
#define KHTTPD_SERVE_H

#include <linux/fs.h>

#include "khttpd.h"
#include "respond.h"

/* Routes the exchange's request and sends the response. */
int khttpd_serve(struct khttpd_exchange *x);
/*
 * The operator's page for status (error_pages=), when it is a file the
 * cache holds, as an entry the caller puts; NULL for the built-in page:
 * so too when the page is a link to a hidden name (.env), unless its own
 * path is one, the operator's choice.  ERR_PTR(-EAGAIN) in the accept's
 * inline pass, the exchange deferred: the page is looked up by its turn.
 */
struct khttpd_cache_entry *khttpd_error_page(struct khttpd_exchange *x,
					     int status);

#endif /* KHTTPD_SERVE_H */
