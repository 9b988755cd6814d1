// SPDX-License-Identifier: MIT
#include "static_file.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "conn_io.h"
#include "coro.h"
#include "dir_listing.h"
#include "http/mime.h"
#include "http/route.h"
#include "respond.h"
#include "server.h"

#define INDEX_FILE "index.html"

int open_beneath(int root_fd, const char *path, int flags)
{
	struct open_how how = {
		.flags = (uint64_t)(flags | O_CLOEXEC | O_NOCTTY),
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS,
	};
	long fd;

	do {
		fd = syscall(SYS_openat2, root_fd, path[0] ? path : ".", &how,
			     sizeof(how));
	} while (fd < 0 && errno == EAGAIN);
	return (int)fd;
}

int status_for_errno(int err)
{
	switch (err) {
	case ENOENT:
	case ENOTDIR:
	case ENAMETOOLONG:
		return 404;
	case EACCES:
	case EPERM:
	case EXDEV: /* a symlink or ".." leading out of ROOT */
	case ELOOP:
		return 403;
	case EMFILE:
	case ENFILE:
	case ENOMEM:
		return 503;
	default:
		return 500;
	}
}

static void close_fd(void *arg)
{
	close((int)(intptr_t)arg);
}

/* Opens and registers the descriptor to be closed after the request. */
static int open_for_request(struct request_ctx *rc, const char *path)
{
	/* O_NONBLOCK: opening a FIFO someone left under ROOT must not hang. */
	int fd = open_beneath(rc->worker->server->root_fd, path,
			      O_RDONLY | O_NONBLOCK);

	if (fd < 0)
		return -1;
	if (coro_defer(rc->conn->coro, close_fd, (void *)(intptr_t)fd)) {
		close(fd);
		errno = ENOMEM;
		return -1;
	}
	return fd;
}

static int send_file(struct request_ctx *rc, int fd, const struct stat *st,
		     const char *name, size_t name_len)
{
	struct http_response_head h;
	size_t hlen;
	uint64_t size = (uint64_t)st->st_size;

	respond_head_init(rc, &h, 200);
	h.content_type = http_mime_type(name, name_len);
	h.content_length = (int64_t)size;
	h.last_modified = st->st_mtim.tv_sec;
	hlen = http_response_head_build(rc->scratch, HTTP_CONN_SCRATCH, &h);
	if (hlen == 0)
		return -1;
	rc->status = 200;
	if (rc->head_only || size == 0)
		return conn_write(rc->conn, rc->scratch, hlen, false);

	if (size <= HTTP_CONN_SCRATCH - hlen) {
		/* Small: head and body leave in one write. */
		ssize_t n = pread(fd, rc->scratch + hlen, size, 0);

		if (n != (ssize_t)size)
			return -1; /* changed under us; the head is unsent */
		rc->body_bytes = size;
		return conn_write(rc->conn, rc->scratch, hlen + size, false);
	}
	if (conn_write(rc->conn, rc->scratch, hlen, true))
		return -1;
	if (conn_sendfile(rc->conn, fd, 0, size))
		return -1;
	rc->body_bytes = size;
	return 0;
}

static int serve_directory(struct request_ctx *rc, int dir_fd)
{
	char *path = rc->path;
	size_t len = (size_t)rc->path_len;
	struct stat st;
	int fd;

	if (path[len - 1] != '/') {
		char location[HTTP_PATH_MAX * 3 + 2];
		size_t n = http_dir_redirect_location(location,
						      sizeof(location), rc->buf,
						      rc->req, path, len);

		if (n == 0)
			return respond_status(rc, 414, NULL, 0);
		return respond_status(rc, 301, location, n);
	}
	if (len + sizeof(INDEX_FILE) <= sizeof(rc->path)) {
		memcpy(path + len, INDEX_FILE, sizeof(INDEX_FILE));
		fd = open_for_request(rc, path + 1);
		path[len] = '\0';
		if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
			return send_file(rc, fd, &st, INDEX_FILE,
					 sizeof(INDEX_FILE) - 1);
	}
	if (!rc->worker->server->listing)
		return respond_status(rc, 403, NULL, 0);
	return send_dir_listing(rc, dir_fd);
}

int serve_request(struct request_ctx *rc)
{
	struct stat st;
	int fd;

	rc->path_len = http_route(rc->buf, rc->req, rc->path);
	if (rc->path_len < 0)
		return respond_status(rc, -rc->path_len, NULL, 0);

	fd = open_for_request(rc, rc->path + 1);
	if (fd < 0)
		return respond_status(rc, status_for_errno(errno), NULL, 0);
	if (fstat(fd, &st))
		return respond_status(rc, 500, NULL, 0);
	if (S_ISDIR(st.st_mode))
		return serve_directory(rc, fd);
	if (!S_ISREG(st.st_mode))
		return respond_status(rc, 403, NULL, 0);
	/* "/file/" names a directory that is not there. */
	if (rc->path[rc->path_len - 1] == '/')
		return respond_status(rc, 404, NULL, 0);
	return send_file(rc, fd, &st, rc->path, (size_t)rc->path_len);
}
