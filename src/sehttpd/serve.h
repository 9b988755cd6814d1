/* SPDX-License-Identifier: MIT */
/* Answering a request from the file system beneath ROOT. */
#ifndef SEHTTPD_SERVE_H
#define SEHTTPD_SERVE_H

#include "exchange.h"

/* Returns 0 when answered (even with an error status), -1 when the
 * connection is broken and must be closed. */
int serve_request(struct exchange *rc);

#endif /* SEHTTPD_SERVE_H */
