// SPDX-License-Identifier: MIT
#include "conn_tls.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/ssl.h>

#include "conn.h"
#include "conn_io.h"
#include "coro.h"
#include "server.h"
#include "version.h"

/* A file read into the stage yields the thread after this many reads. */
#define TLS_TURN_READS (CONN_SENDFILE_CHUNK / CONN_TLS_STAGE)

static char *stage(struct conn *c)
{
	return (char *)coro_extra(c->coro) + HTTP_CONN_EXTRA;
}

/*
 * After a call that did not complete: waits for what OpenSSL needs, or
 * fails.  A session that failed is not told close_notify later.
 */
static int tls_wait(struct conn *c, int ret)
{
	int e = SSL_get_error(c->ssl, ret);

	if (e == SSL_ERROR_WANT_READ)
		return conn_wait(c, EPOLLIN);
	if (e == SSL_ERROR_WANT_WRITE)
		return conn_wait(c, EPOLLOUT);
	c->tls_failed = true;
	if (e != SSL_ERROR_SYSCALL || errno == 0)
		errno = e == SSL_ERROR_ZERO_RETURN ? EPIPE : EPROTO;
	ERR_clear_error();
	return -1;
}

/*
 * A client that spoke plain HTTP to the TLS port (OpenSSL knows its
 * request line) is told so in plain HTTP, as nginx tells it, rather than
 * left with a closed connection.  What it sent is read away first, so
 * that the close is no reset that destroys the answer.  Its head has a
 * Server and a Date as every other (a 4xx needs its Date, RFC 9110
 * 6.6.1), and a HEAD's has no body (RFC 9110 9.3.2).
 */
static void answer_plain_http(struct conn *c)
{
	static const char body[] =
		"400 The plain HTTP request was sent to the HTTPS port\n";
	char resp[384], sink[4096];
	int n = snprintf(resp, sizeof(resp),
			 "HTTP/1.1 400 Bad Request\r\n"
			 "Server: " SEHTTPD_SERVER_TOKEN "\r\n"
			 "Date: %s\r\n"
			 "Content-Type: text/plain; charset=utf-8\r\n"
			 "Content-Length: %zu\r\n"
			 "Connection: close\r\n\r\n%s",
			 c->worker->date.http, sizeof(body) - 1,
			 c->tls_plain_head ? "" : body);

	if (n < 0 || (size_t)n >= sizeof(resp) ||
	    send(c->fd, resp, (size_t)n, MSG_DONTWAIT | MSG_NOSIGNAL) != n)
		return;
	shutdown(c->fd, SHUT_WR);
	for (int i = 0; i < 16; i++) {
		if (recv(c->fd, sink, sizeof(sink), MSG_DONTWAIT) <= 0)
			break;
	}
}

/*
 * Sees the header of each record read during the handshake: the first one
 * is what OpenSSL judges plain HTTP by, its first five bytes, which the
 * socket no longer holds when it says so.
 */
static void record_seen(int write_p, int version, int content_type,
			const void *buf, size_t len, SSL *ssl, void *arg)
{
	struct conn *c = arg;

	(void)version;
	(void)ssl;
	if (!write_p && content_type == SSL3_RT_HEADER && len >= 5)
		c->tls_plain_head = !memcmp(buf, "HEAD ", 5);
}

int conn_tls_handshake(struct conn *c)
{
	struct worker_stats *st = &c->worker->stats;

	SSL_set_msg_callback(c->ssl, record_seen);
	SSL_set_msg_callback_arg(c->ssl, c);
	for (;;) {
		int ret, e;

		ERR_clear_error();
		ret = SSL_do_handshake(c->ssl);
		if (ret == 1)
			break;
		e = SSL_get_error(c->ssl, ret);
		if (e == SSL_ERROR_WANT_READ)
			return 1;
		/* The server's flight did not fit the socket: wait, still
		 * within the request head's deadline. */
		if (e == SSL_ERROR_WANT_WRITE &&
		    conn_wait_head(c, EPOLLOUT) == 0)
			continue;
		c->tls_failed = true;
		if (e == SSL_ERROR_SSL &&
		    ERR_GET_REASON(ERR_peek_error()) == SSL_R_HTTP_REQUEST)
			answer_plain_http(c);
		ERR_clear_error();
		stats_add(&st->tls_handshake_failures, 1);
		return -1;
	}
	SSL_set_msg_callback(c->ssl, NULL);
	c->tls_ready = true;
	c->tls_ktls = BIO_get_ktls_send(SSL_get_wbio(c->ssl));
	stats_add(&st->tls_handshakes, 1);
	if (SSL_session_reused(c->ssl))
		stats_add(&st->tls_resumed, 1);
	if (c->tls_ktls)
		stats_add(&st->tls_ktls, 1);
	return 0;
}

bool conn_tls_alpn_h2(struct conn *c)
{
	const unsigned char *p;
	unsigned int len;

	SSL_get0_alpn_selected(c->ssl, &p, &len);
	return len == 2 && p[0] == 'h' && p[1] == '2';
}

ssize_t conn_tls_try_read(struct conn *c, void *buf, size_t len)
{
	for (;;) {
		size_t n;
		int e;

		ERR_clear_error();
		if (SSL_read_ex(c->ssl, buf, len, &n)) {
			/* Whether the socket holds more is not known: the
			 * next read tells (WANT_READ) before going idle. */
			c->maybe_more = true;
			return (ssize_t)n;
		}
		e = SSL_get_error(c->ssl, 0);
		if (e == SSL_ERROR_ZERO_RETURN)
			return 0;
		if (e == SSL_ERROR_WANT_READ) {
			c->maybe_more = false;
			errno = EAGAIN;
			return -1;
		}
		/* WANT_WRITE: a key update's answer waits for room. */
		if (tls_wait(c, 0))
			return -1;
	}
}

/* Writes all of buf as records. */
static int write_all(struct conn *c, const char *buf, size_t len)
{
	while (len > 0) {
		size_t n;

		ERR_clear_error();
		if (SSL_write_ex(c->ssl, buf, len, &n)) {
			buf += n;
			len -= n;
			c->bytes_sent += n;
			continue;
		}
		if (tls_wait(c, 0))
			return -1;
	}
	return 0;
}

static int flush_stage(struct conn *c)
{
	size_t n = c->tls_staged;

	c->tls_staged = 0;
	return n ? write_all(c, stage(c), n) : 0;
}

int conn_tls_writev(struct conn *c, struct iovec *iov, int iovcnt, bool more)
{
	for (int i = 0; i < iovcnt; i++) {
		const char *p = iov[i].iov_base;
		size_t len = iov[i].iov_len;

		if (c->tls_staged + len <= CONN_TLS_STAGE) {
			memcpy(stage(c) + c->tls_staged, p, len);
			c->tls_staged += len;
			continue;
		}
		/* Top the stage up, then the rest whole. */
		size_t room = CONN_TLS_STAGE - c->tls_staged;

		memcpy(stage(c) + c->tls_staged, p, room);
		c->tls_staged += room;
		if (flush_stage(c) || write_all(c, p + room, len - room))
			return -1;
	}
	return more ? 0 : flush_stage(c);
}

/*
 * The body read into records in user space: no kTLS on this connection.
 * Corked, the records of one read leave as one large segment rather than
 * four, which the receiving end (often this CPU, on loopback) pays for.
 */
static int send_file_copied(struct conn *c, int file_fd, off_t offset,
			    uint64_t len)
{
	unsigned reads = 0;
	int on = 1, ret = 0;

	if (c->tcp)
		setsockopt(c->fd, IPPROTO_TCP, TCP_CORK, &on, sizeof(on));
	while (len > 0) {
		size_t room = CONN_TLS_STAGE - c->tls_staged;
		size_t want = len < room ? (size_t)len : room;
		ssize_t n;

		if (room == 0) {
			if (flush_stage(c)) {
				ret = -1;
				break;
			}
			continue;
		}
		if (++reads % TLS_TURN_READS == 0 && conn_yield_turn(c)) {
			ret = -1;
			break;
		}
		n = pread(file_fd, stage(c) + c->tls_staged, want, offset);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			/* Shrank under us: the length sent is a lie. */
			if (n == 0)
				errno = EIO;
			ret = -1;
			break;
		}
		c->tls_staged += (size_t)n;
		offset += n;
		len -= (uint64_t)n;
		if (flush_stage(c)) {
			ret = -1;
			break;
		}
	}
	on = 0; /* uncorking sends what is left */
	if (c->tcp)
		setsockopt(c->fd, IPPROTO_TCP, TCP_CORK, &on, sizeof(on));
	return ret;
}

/* kTLS: the kernel makes the records from the page cache. */
static int send_file_ktls(struct conn *c, int file_fd, off_t offset,
			  uint64_t len)
{
	unsigned chunks = 0;

	if (flush_stage(c))
		return -1;
	while (len > 0) {
		size_t chunk = len > CONN_SENDFILE_CHUNK ? CONN_SENDFILE_CHUNK :
							   (size_t)len;
		ossl_ssize_t n;

		if (++chunks % CONN_SENDFILE_TURN_CHUNKS == 0 &&
		    conn_yield_turn(c))
			return -1;
		ERR_clear_error();
		errno = 0; /* its early failures leave errno as it was */
		n = SSL_sendfile(c->ssl, file_fd, offset, chunk, 0);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (tls_wait(c, (int)n))
				return -1;
			continue;
		}
		if (n == 0) {
			errno = EIO;
			return -1;
		}
		offset += n;
		len -= (uint64_t)n;
		c->bytes_sent += (uint64_t)n;
	}
	return 0;
}

int conn_tls_sendfile(struct conn *c, int file_fd, off_t offset, uint64_t len)
{
	if (c->tls_ktls)
		return send_file_ktls(c, file_fd, offset, len);
	return send_file_copied(c, file_fd, offset, len);
}

void conn_tls_send_now(struct conn *c, const void *buf, size_t len)
{
	size_t n;

	ERR_clear_error();
	if (!SSL_write_ex(c->ssl, buf, len, &n))
		c->tls_failed = true; /* a half-written record: say no more */
	ERR_clear_error();
}

void conn_tls_end_writing(struct conn *c)
{
	if (c->tls_ready && !c->tls_failed &&
	    !(SSL_get_shutdown(c->ssl) & SSL_SENT_SHUTDOWN)) {
		ERR_clear_error();
		SSL_shutdown(c->ssl); /* once: a full socket loses it, fine */
	}
	ERR_clear_error();
}

/*
 * kTLS's sendfile fills the socket to the brim, so the body's last records
 * can leave no room for the alert: one try was lost then, and OpenSSL 3
 * clients take a TCP end without close_notify for a cut.  Waits for room,
 * within the send deadline.
 */
void conn_tls_finish_writing(struct conn *c)
{
	int r;

	if (!c->tls_ready || c->tls_failed)
		return;
	for (;;) {
		ERR_clear_error();
		r = SSL_shutdown(c->ssl);
		if (r >= 0 ||
		    SSL_get_error(c->ssl, r) != SSL_ERROR_WANT_WRITE ||
		    conn_wait(c, EPOLLOUT))
			break;
	}
	ERR_clear_error();
}

void conn_tls_end(struct conn *c)
{
	conn_tls_end_writing(c);
	SSL_free(c->ssl);
	c->ssl = NULL;
}
