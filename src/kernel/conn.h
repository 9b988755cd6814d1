/* SPDX-License-Identifier: GPL-2.0 */
/* One client connection, served by one work item from accept to close. */
#ifndef KHTTPD_CONN_H
#define KHTTPD_CONN_H

#include <linux/list.h>
#include <linux/workqueue.h>

#include "http/parser.h"
#include "http/route.h"
#include "khttpd.h"

/* Request bytes: a whole head within limits, with room to spare. */
#define KHTTPD_CONN_BUF 32768
/* A normalised path, with room to append "index.html". */
#define KHTTPD_PATH_BUF (HTTP_PATH_MAX + 16)
/* Response heads without a Location (redirects allocate their own). */
#define KHTTPD_HEAD_BUF 1024

struct khttpd_conn {
	struct list_head node; /* in srv->conns, under srv->lock */
	struct work_struct work;
	struct khttpd_server *srv;
	struct socket *sock;
	char *buf;
	size_t start; /* first unconsumed byte of buf */
	size_t end; /* one past the last byte received */
	char *path;
	struct http_parser parser;
	struct http_request req;
	char head[KHTTPD_HEAD_BUF];
};

/* Takes over an accepted socket and queues its work item. */
void khttpd_conn_start(struct khttpd_server *srv, struct socket *sock);

#endif /* KHTTPD_CONN_H */
