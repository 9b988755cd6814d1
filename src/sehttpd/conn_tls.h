/* SPDX-License-Identifier: MIT */
/*
 * TLS on a connection, for conn_io.c: the handshake and the record layer's
 * reads and writes, which yield to the event loop as conn_io's do.  Writes
 * are gathered in a stage beside the coroutine's buffers: a response head
 * and a small body become one record, and a file is read four records at a
 * time, sent corked so that the records leave in large segments.  With
 * kTLS a file goes by SSL_sendfile() instead, zero-copy as in cleartext.
 */
#ifndef SEHTTPD_CONN_TLS_H
#define SEHTTPD_CONN_TLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>

struct conn;

/* The most plaintext one record carries. */
#define CONN_TLS_RECORD 16384
/* The stage: what one pread of a file fills, four records. */
#define CONN_TLS_STAGE (4 * CONN_TLS_RECORD)

/*
 * Goes on with the handshake.  Returns 0 once it is done, 1 when it waits
 * for the client's next bytes (the connection idles meanwhile, holding no
 * coroutine), -1 when it failed.
 */
int conn_tls_handshake(struct conn *c);
/* The handshake chose HTTP/2 by ALPN. */
bool conn_tls_alpn_h2(struct conn *c);
ssize_t conn_tls_try_read(struct conn *c, void *buf, size_t len);
int conn_tls_writev(struct conn *c, struct iovec *iov, int iovcnt, bool more);
int conn_tls_sendfile(struct conn *c, int file_fd, off_t offset, uint64_t len);
/* Tries once, without waiting: for a last word before closing. */
void conn_tls_send_now(struct conn *c, const void *buf, size_t len);
/* Says close_notify before a half-close; the session still reads. */
void conn_tls_end_writing(struct conn *c);
/* The same, waiting for room for it (in the connection's coroutine). */
void conn_tls_finish_writing(struct conn *c);
/* Says close_notify (if the session is sound and has not) and frees it. */
void conn_tls_end(struct conn *c);

#endif /* SEHTTPD_CONN_TLS_H */
