/* SPDX-License-Identifier: MIT */
/*
 * Opening paths beneath ROOT: the kernel confines every lookup (openat2
 * with RESOLVE_BENEATH), and what a lookup reached can be judged by where
 * it really is, not only by the path asked for.
 */
#ifndef SEHTTPD_BENEATH_H
#define SEHTTPD_BENEATH_H

#include <stdbool.h>

/*
 * Opens path (relative to root_fd; "" for root_fd itself) as openat(2)
 * would with flags, refusing symlinks that lead out of ROOT unless
 * beneath_init() was told to follow them.  Returns the descriptor, or -1
 * with errno.
 */
int open_beneath(int root_fd, const char *path, int flags);

/*
 * Remembers where ROOT (root_fd) is, for beneath_hidden(), and whether
 * open_beneath() follows symlinks out of it (--follow-symlinks).  Returns 0,
 * or -1 with errno.
 */
int beneath_init(int root_fd, bool follow_symlinks);

/*
 * True when fd, opened beneath ROOT, is a hidden name there (a segment
 * starting with '.', as http_path_hidden() says): reached through a link
 * such as "innocent -> .git/config".  Objects outside ROOT (reached with
 * --follow-symlinks) are judged by ROOT's rule only, so never hidden.
 */
bool beneath_hidden(int fd);

#endif /* SEHTTPD_BENEATH_H */
