/* SPDX-License-Identifier: MIT */
/*
 * Socket I/O for code running in a connection's coroutine.  Each call retries
 * on EINTR and, when the socket is not ready, yields to the event loop until
 * it is, so request handling reads as straight-line blocking code while the
 * thread never blocks.  A timeout or shutdown makes them fail with -1.
 */
#ifndef SERVER_CONN_IO_H
#define SERVER_CONN_IO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>

struct conn;

/* Returns bytes read (> 0), 0 at end of stream, or -1. */
ssize_t conn_read(struct conn *c, void *buf, size_t len);
/* One read that never yields: -1 with errno EAGAIN when nothing is there. */
ssize_t conn_try_read(struct conn *c, void *buf, size_t len);
/* Writes all of iov (which it modifies); more says further data follows
 * (MSG_MORE), so the kernel may coalesce it.  Returns 0 or -1. */
int conn_writev(struct conn *c, struct iovec *iov, int iovcnt, bool more);
int conn_write(struct conn *c, const void *buf, size_t len, bool more);
/* Sends len bytes of file_fd from offset with sendfile(2). Returns 0 or -1. */
int conn_sendfile(struct conn *c, int file_fd, off_t offset, uint64_t len);
/* Lets the thread's other connections run before continuing. */
int conn_yield_turn(struct conn *c);

#endif /* SERVER_CONN_IO_H */
