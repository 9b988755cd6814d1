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

/*
 * root was moved (a directory above it renamed) since beneath_locate():
 * out (n bytes), as root's path now reads, becomes the path recorded
 * then, which the other roots are known by.  -1 when it cannot be.
 */
static __attribute__((noinline)) ssize_t
where_as_recorded(const struct beneath_root *root, char *out, size_t n,
		  size_t cap)
{
	char now[PATH_MAX];
	ssize_t m = fd_path(root->fd, now, sizeof(now));
	size_t len = m == 1 ? 0 : (size_t)m;

	if (m < 0 || n < len || memcmp(out, now, len) ||
	    (n > len && out[len] != '/') || root->real_len + n - len >= cap)
		return -1;
	memmove(out + root->real_len, out + len, n - len + 1);
	memcpy(out, root->real, root->real_len);
	return (ssize_t)(root->real_len + n - len);
}

ssize_t beneath_where(const struct beneath_root *root, int fd, char *out,
		      size_t cap)
{
	ssize_t n = fd_path(fd, out, cap);
	const char *rel;

	/* Confined lookups stay beneath root: elsewhere, root has moved. */
	if (n >= 0 && beneath == RESOLVE_BENEATH &&
	    beneath_relative(root, out, (size_t)n, &rel) < 0)
		n = where_as_recorded(root, out, (size_t)n, cap);
	return n;
}

ssize_t beneath_relative(const struct beneath_root *root, const char *where,
			 size_t n, const char **rel)
{
	size_t len = root->real_len;

	if (!root->real || n < len || memcmp(where, root->real, len))
		return -1;
	if (n == len) { /* the root itself */
		*rel = "/";
		return 1;
	}
	if (where[len] != '/')
		return -1; /* a sibling of the root sharing its prefix */
	*rel = where + len;
	return (ssize_t)(n - len);
}

bool beneath_hidden(const struct beneath_root *root, const char *where,
		    ssize_t n)
{
	const char *rel;
	ssize_t len;

	if (n < 0)
		return true;
	len = beneath_relative(root, where, (size_t)n, &rel);
	return len > 1 && http_path_hidden(rel, (size_t)len);
}
