// SPDX-License-Identifier: MIT
#include "beneath.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "http/site.h"

/* Set once, before the threads start. */
static uint64_t beneath = RESOLVE_BENEATH;
static char root_path[PATH_MAX];
static size_t root_len;

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

int beneath_init(int root_fd, bool follow_symlinks)
{
	ssize_t n = fd_path(root_fd, root_path, sizeof(root_path));

	if (n < 0)
		return -1;
	/* "/" as ROOT: paths beneath it start right after it. */
	root_len = n == 1 ? 0 : (size_t)n;
	beneath = follow_symlinks ? 0 : RESOLVE_BENEATH;
	return 0;
}

int open_beneath(int root_fd, const char *path, int flags)
{
	/* openat2 refuses O_PATH with any flag but a few (EINVAL). */
	int extra = flags & O_PATH ? O_CLOEXEC : O_CLOEXEC | O_NOCTTY;
	struct open_how how = {
		.flags = (uint64_t)(flags | extra),
		.resolve = beneath | RESOLVE_NO_MAGICLINKS,
	};
	long fd;

	do {
		fd = syscall(SYS_openat2, root_fd, path[0] ? path : ".", &how,
			     sizeof(how));
	} while (fd < 0 && errno == EAGAIN);
	return (int)fd;
}

bool beneath_hidden(int fd)
{
	char real[PATH_MAX];
	ssize_t n = fd_path(fd, real, sizeof(real));

	/* Without /proc nothing more is known than the request path says. */
	if (n < 0 || (size_t)n < root_len || memcmp(real, root_path, root_len))
		return false;
	if ((size_t)n == root_len)
		return false; /* ROOT itself */
	if (real[root_len] != '/')
		return false; /* a sibling of ROOT sharing its prefix */
	return http_path_hidden(real + root_len, (size_t)n - root_len);
}
