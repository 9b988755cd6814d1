/* SPDX-License-Identifier: MIT */
/*
 * Socket I/O for code running in a connection's coroutine.  Each call retries
 * on EINTR and, when the socket is not ready, yields to the event loop until
 * it is, so request handling reads as straight-line blocking code while the
 * thread never blocks.  A timeout or shutdown makes them fail with -1.
 */
#ifndef SEHTTPD_CONN_IO_H
#define SEHTTPD_CONN_IO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>

struct conn;

/* The most one sendfile(2) call moves; also bounds time between yields. */
#define CONN_SENDFILE_CHUNK (1u << 20)
#define CONN_SENDFILE_TURN_CHUNKS 8

/* Returns bytes read (> 0), 0 at end of stream, or -1. */
ssize_t conn_read(struct conn *c, void *buf, size_t len);
/* One read that never yields: -1 with errno EAGAIN when nothing is there. */
ssize_t conn_try_read(struct conn *c, void *buf, size_t len);
/* True when closing now could draw a reset that destroys what the client
 * has yet to read: the socket holds bytes it has not acknowledged, or
 * bytes it sent may be waiting unread. */
bool conn_needs_linger(const struct conn *c);
/* Closes gracefully: says no more, then reads (into buf) and drops what
 * the client still sends until it closes too, for a bounded time. */
void conn_linger(struct conn *c, void *buf, size_t len);
/* Writes all of iov (which it modifies); more says further data follows
 * (MSG_MORE), so the kernel may coalesce it.  Returns 0 or -1. */
int conn_writev(struct conn *c, struct iovec *iov, int iovcnt, bool more);
int conn_write(struct conn *c, const void *buf, size_t len, bool more);
/* Sends len bytes of file_fd from offset with sendfile(2). Returns 0 or -1. */
int conn_sendfile(struct conn *c, int file_fd, off_t offset, uint64_t len);
/* Sends what writes with more set have held back, with nothing after
 * them.  Returns 0 or -1. */
int conn_push(struct conn *c);
/* Tries once, without waiting: a last word before closing. */
void conn_send_now(struct conn *c, const void *buf, size_t len);
/* Lets the thread's other connections run before continuing. */
int conn_yield_turn(struct conn *c);
/* Bytes sent that the client has acknowledged (all, when that cannot be
 * told). */
uint64_t conn_acked_bytes(const struct conn *c);
/* The close that follows resets: what the socket still holds would
 * otherwise reach a client cut off for being too slow, as late as the
 * rest would have. */
void conn_cut(struct conn *c);

/*
 * A transfer begins: a response (before its first byte is written), or a
 * request body to skip.  Besides going no longer than the timeout without
 * progress, it may go on until its start + timeout + what its bytes so far
 * earn at --min-rate (http/body.h), as in khttpd.  For a response these
 * are the bytes the client acknowledged, not those the socket took (a big
 * send buffer would give a slow reader minutes); they are looked up only
 * when a write has to wait, so a response the socket takes at once costs
 * no further system call.  A response cut off ends with a reset.
 */
void conn_transfer_begin(struct conn *c);
/* Reads like conn_read, as part of a body: bytes read count for the rate. */
ssize_t conn_read_body(struct conn *c, void *buf, size_t len);

/*
 * For the transports (conn_tls.c): suspends until the socket reports one of
 * events, within the deadline described above.  Returns 0, or -1 with
 * errno ETIMEDOUT.
 */
int conn_wait(struct conn *c, uint32_t events);
/*
 * Suspends until the worker resumes the coroutine for another thread's
 * result (CONN_WAIT_WAKE), within the deadline the timer holds (a new one
 * of the timeout if none).  Returns 0 (the caller looks whether its
 * result is in), or -1 with errno ETIMEDOUT.
 */
int conn_wait_wake(struct conn *c);
/*
 * The same before a request: within the deadline the timer already holds
 * (the request head's, from the accept), never a transfer's.
 */
int conn_wait_head(struct conn *c, uint32_t events);

#endif /* SEHTTPD_CONN_IO_H */
