/* SPDX-License-Identifier: GPL-2.0 */
/* Answering GET and HEAD from the served tree. */
#ifndef KHTTPD_SERVE_H
#define KHTTPD_SERVE_H

#include <linux/fs.h>

#include "khttpd.h"
#include "respond.h"

/* Routes the exchange's request and sends the response. */
int khttpd_serve(struct khttpd_exchange *x);

#endif /* KHTTPD_SERVE_H */
