/* SPDX-License-Identifier: MIT */
/*
 * Opening paths beneath ROOT: the kernel confines every lookup (openat2
 * with RESOLVE_BENEATH), and what a lookup reached can be judged by where
 * it really is, not only by the path asked for.
 */
#ifndef SEHTTPD_BENEATH_H
#define SEHTTPD_BENEATH_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* A directory served, ROOT or a --vhost's DIR, as lookups need it. */
struct beneath_root {
	int fd; /* O_PATH: every lookup stays beneath it */
	char *real; /* where it is (beneath_locate) */
	size_t real_len; /* 0 for "/": paths beneath start right after it */
};

/*
 * Opens path (relative to root_fd; "" for root_fd itself) as openat(2)
 * would with flags, refusing symlinks that lead out of the root unless
 * beneath_follow_symlinks() said to follow them.  Returns the descriptor,
 * or -1 with errno.
 */
int open_beneath(int root_fd, const char *path, int flags);

/* Whether open_beneath() follows symlinks out of the root
 * (--follow-symlinks); set before the threads start. */
void beneath_follow_symlinks(bool follow);

/*
 * Records where r->fd is, for beneath_relative(); r->real is freed by
 * beneath_root_close().  Returns 0, or -1 with errno.
 */
int beneath_locate(struct beneath_root *r);

/* Closes r->fd (when open) and frees what beneath_locate() kept. */
void beneath_root_close(struct beneath_root *r);

/*
 * Where fd really is, as an absolute path into out (cap bytes,
 * NUL-terminated): its length, or -1 when that is not known (longer than
 * cap).
 */
ssize_t beneath_where(int fd, char *out, size_t cap);

/*
 * Where root is now (read again: a directory above it may have been
 * renamed since beneath_locate()), into out: its length (0 for "/"), or
 * -1.
 */
ssize_t beneath_root_now(const struct beneath_root *root, char *out,
			 size_t cap);

/*
 * The part of where (n bytes) beneath the directory dir (len bytes, 0 for
 * "/"), from its '/' ("/" for dir itself), as *rel: its length, or -1 when
 * where is not beneath dir.
 */
ssize_t beneath_relative_to(const char *dir, size_t len, const char *where,
			    size_t n, const char **rel);

/*
 * beneath_relative_to() root as recorded at start.  A link such as
 * "innocent -> .git/config" leads to a hidden name, which the request path
 * does not show (http_path_hidden() of this path does).
 */
ssize_t beneath_relative(const struct beneath_root *root, const char *where,
			 size_t n, const char **rel);

/*
 * Whether where (n bytes) is a hidden name beneath root, as recorded or,
 * failing that, as it is now; not known (n is -1: a path longer than
 * PATH_MAX, or beneath neither while lookups are confined) counts as one.
 */
bool beneath_hidden(const struct beneath_root *root, const char *where,
		    ssize_t n);

#endif /* SEHTTPD_BENEATH_H */
