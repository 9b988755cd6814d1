/* SPDX-License-Identifier: MIT */
/* Reading a directory and sending its HTML listing. */
#ifndef SERVER_DIR_LISTING_H
#define SERVER_DIR_LISTING_H

#include "http_conn.h"

/* dir_fd is the open directory rc->path names (ending in '/'). */
int send_dir_listing(struct request_ctx *rc, int dir_fd);

#endif /* SERVER_DIR_LISTING_H */
