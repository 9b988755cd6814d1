// SPDX-License-Identifier: MIT
#include "beneath.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "http/site.h"

/* Set once, before the threads start. */
static uint64_t beneath = RESOLVE_BENEATH;

/* Where fd really is, from /proc; its length, or -1. */
static ssize_t fd_path(int fd, char *out, size_t cap)
{
	char link[32];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, out, cap);
	if (n < 0 || (size_t)n >= cap)
		return -1;
	out[n] = '\0';
	return n;
}

void beneath_follow_symlinks(bool follow)
{
	beneath = follow ? 0 : RESOLVE_BENEATH;
}

int beneath_locate(struct beneath_root *r)
{
	char path[PATH_MAX];
	ssize_t n = fd_path(r->fd, path, sizeof(path));

	if (n < 0)
		return -1;
	free(r->real);
	r->real = strdup(path);
	if (!r->real)
		return -1;
	/* "/" as the root: paths beneath it start right after it. */
	r->real_len = n == 1 ? 0 : (size_t)n;
	return 0;
}

void beneath_root_close(struct beneath_root *r)
{
	if (r->fd >= 0)
		close(r->fd);
	r->fd = -1;
	free(r->real);
	r->real = NULL;
}

/* As khttpd's LOOKUP_TRIES: renames racing one walk this often are an attack. */
#define OPEN_BENEATH_TRIES 8

int open_beneath(int root_fd, const char *path, int flags)
{
	/* openat2 refuses O_PATH with any flag but a few (EINVAL). */
	int extra = flags & O_PATH ? O_CLOEXEC : O_CLOEXEC | O_NOCTTY;
	struct open_how how = {
		.flags = (uint64_t)(flags | extra),
		.resolve = beneath | RESOLVE_NO_MAGICLINKS,
	};
	unsigned int tries = OPEN_BENEATH_TRIES;
	long fd;

	/*
	 * EAGAIN: a rename raced the walk, worth another try; or, for
	 * O_NONBLOCK, a lease on the file is being broken, which lasts up to
	 * lease-break-time (45 s): so a few tries, then the caller's 503.
	 */
	do {
		fd = syscall(SYS_openat2, root_fd, path[0] ? path : ".", &how,
			     sizeof(how));
	} while (fd < 0 && errno == EAGAIN && --tries);
	return (int)fd;
}

ssize_t beneath_where(int fd, char *out, size_t cap)
{
	return fd_path(fd, out, cap);
}

ssize_t beneath_root_now(const struct beneath_root *root, char *out, size_t cap)
{
	ssize_t n = fd_path(root->fd, out, cap);

	return n == 1 ? 0 : n; /* "/": paths beneath start right after it */
}

ssize_t beneath_relative_to(const char *dir, size_t len, const char *where,
			    size_t n, const char **rel)
{
	if (n < len || memcmp(where, dir, len))
		return -1;
	if (n == len) { /* the directory itself */
		*rel = "/";
		return 1;
	}
	if (where[len] != '/')
		return -1; /* a sibling sharing its prefix */
	*rel = where + len;
	return (ssize_t)(n - len);
}

ssize_t beneath_relative(const struct beneath_root *root, const char *where,
			 size_t n, const char **rel)
{
	if (!root->real)
		return -1;
	return beneath_relative_to(root->real, root->real_len, where, n, rel);
}

bool beneath_hidden(const struct beneath_root *root, const char *where,
		    ssize_t n)
{
	char now[PATH_MAX];
	const char *rel;
	ssize_t len, m;

	if (n < 0)
		return true;
	len = beneath_relative(root, where, (size_t)n, &rel);
	if (len < 0) {
		/* A directory above root renamed since the start? */
		m = beneath_root_now(root, now, sizeof(now));
		len = m < 0 ? -1 :
			      beneath_relative_to(now, (size_t)m, where,
						  (size_t)n, &rel);
		/* Confined lookups end beneath root: not known otherwise. */
		if (len < 0)
			return beneath == RESOLVE_BENEATH;
	}
	return len > 1 && http_path_hidden(rel, (size_t)len);
}
