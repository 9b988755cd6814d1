/* SPDX-License-Identifier: MIT */
/* Answering a request from the file system beneath ROOT. */
#ifndef SEHTTPD_SERVE_H
#define SEHTTPD_SERVE_H

#include "conn.h"

/* Returns 0 when answered (even with an error status), -1 when the
 * connection is broken and must be closed. */
int serve_request(struct exchange *rc);

/*
 * Opens path (relative to ROOT, "" for ROOT itself) without ever leaving
 * ROOT: the kernel refuses ".." above it and symlinks that point outside
 * (openat2 with RESOLVE_BENEATH), unless told otherwise below.  Returns a descriptor or -1 with errno.
 */
int open_beneath(int root_fd, const char *path, int flags);

/*
 * --follow-symlinks: from now on open_beneath() follows symlinks wherever
 * they lead (the request path itself still cannot climb out: http_route
 * removed its dot segments).  Set once, before the threads start.
 */
void serve_follow_symlinks(bool on);

#endif /* SEHTTPD_SERVE_H */
