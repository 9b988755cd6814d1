// SPDX-License-Identifier: MIT
#include <stdbool.h>

#include "conn_io.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <linux/sockios.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <unistd.h>

#include "conn_tls.h"
#include "coro.h"
#include "http/body.h"
#include "server.h"

/* Set before closing a connection cut off mid-write: a reset, not a FIN. */
static const struct linger conn_reset = { .l_onoff = 1, .l_linger = 0 };

/* Bytes written to the socket that the peer has not yet acknowledged. */
static int unacked_bytes(const struct conn *c)
{
	int n;

	return ioctl(c->fd, SIOCOUTQ, &n) ? -1 : n;
}

static bool output_queued(const struct conn *c)
{
	return unacked_bytes(c) != 0;
}

bool conn_needs_linger(const struct conn *c)
{
	return c->maybe_more || output_queued(c);
}

void conn_transfer_begin(struct conn *c)
{
	c->xfer_start_ms = c->xfer_last_ms = c->worker->now_ms;
	c->xfer_base = c->xfer_sent = c->bytes_sent;
	c->xfer_bytes = 0;
}

/* start + timeout + the core's extension for the progress and bytes. */
static uint64_t transfer_deadline(const struct conn *c)
{
	return c->xfer_start_ms + c->worker->server->timeout_ms +
	       http_transfer_extension_ms(c->xfer_last_ms - c->xfer_start_ms,
					  c->xfer_bytes,
					  c->worker->server->min_rate);
}

/*
 * A response's deadline, as of now: bytes the socket took since the last
 * look, or bytes the client acknowledged, are progress.  Those of earlier
 * responses (pipelined, or HTTP/2's earlier passes) that the socket still
 * held when this one began count too: the client reading them is what
 * this one waits for.  The base is known from the first look, which
 * comes only when a write has to wait, as the lower of what had been
 * sent at the start and what is acknowledged then.
 */
uint64_t conn_acked_bytes(const struct conn *c)
{
	int unacked = unacked_bytes(c);

	/* Under TLS the socket holds ciphertext, a little more than the
	 * plaintext bytes_sent counts: never below nothing acknowledged. */
	return unacked > 0 && (uint64_t)unacked > c->bytes_sent ?
		       0 :
		       c->bytes_sent - (unacked > 0 ? (uint64_t)unacked : 0);
}

static uint64_t send_deadline(struct conn *c)
{
	uint64_t acked = conn_acked_bytes(c);

	if (acked < c->xfer_base)
		c->xfer_base = acked;
	acked -= c->xfer_base;
	if (c->bytes_sent != c->xfer_sent || acked != c->xfer_bytes)
		c->xfer_last_ms = c->worker->now_ms;
	c->xfer_sent = c->bytes_sent;
	c->xfer_bytes = acked;
	return transfer_deadline(c);
}

/*
 * Suspends until the socket reports events (or an error, or the timer).
 * While writing, the deadline is the response's (conn_transfer_begin),
 * looked at again when the timer fires: epoll reports the socket writable
 * only once a third of a send buffer that may hold megabytes is free,
 * which a slow but steady reader can take longer than the timeout to
 * drain.  One that stops, or reads too slowly, is cut off, with a reset:
 * a FIN would reach it only after all the socket still holds, as late as
 * the rest of the response would.
 */
int conn_wait_head(struct conn *c, uint32_t events)
{
	struct worker *w = c->worker;

	/* Every wait has a deadline, even after the timer served a turn. */
	if (!timer_pending(&c->timer))
		timer_wheel_add(&w->wheel, &c->timer,
				w->now_ms + w->server->timeout_ms);
	if (!c->timed_out)
		coro_yield(c->coro, (int)events);
	if (!c->timed_out)
		return 0;
	/* What the socket holds would still reach a slow reader. */
	if (events & EPOLLOUT)
		conn_cut(c);
	errno = ETIMEDOUT;
	return -1;
}

int conn_wait_wake(struct conn *c)
{
	struct worker *w = c->worker;

	if (!c->timed_out) {
		if (!timer_pending(&c->timer))
			timer_wheel_add(&w->wheel, &c->timer,
					w->now_ms + w->server->timeout_ms);
		coro_yield(c->coro, CONN_WAIT_WAKE);
	}
	if (!c->timed_out)
		return 0;
	errno = ETIMEDOUT;
	return -1;
}

int conn_wait(struct conn *c, uint32_t events)
{
	struct worker *w = c->worker;

	if (c->timed_out) {
		errno = ETIMEDOUT;
		return -1;
	}
	if (!(events & EPOLLOUT))
		return conn_wait_head(c, events);
	for (;;) {
		uint64_t deadline = send_deadline(c);

		if (deadline <= w->now_ms || atomic_load(&w->force_stop))
			break;
		timer_wheel_add(&w->wheel, &c->timer, deadline);
		coro_yield(c->coro, (int)events);
		if (!c->timed_out)
			return 0;
		c->timed_out = false;
	}
	c->timed_out = true;
	conn_cut(c);
	errno = ETIMEDOUT;
	return -1;
}

ssize_t conn_try_read(struct conn *c, void *buf, size_t len)
{
	ssize_t n;

	if (c->ssl)
		return conn_tls_try_read(c, buf, len);
	do {
		n = recv(c->fd, buf, len, 0);
	} while (n < 0 && errno == EINTR);
	if (n >= 0)
		c->maybe_more = (size_t)n == len;
	return n;
}

ssize_t conn_read(struct conn *c, void *buf, size_t len)
{
	for (;;) {
		ssize_t n = conn_try_read(c, buf, len);

		if (n >= 0)
			return n;
		if (errno != EAGAIN || conn_wait(c, EPOLLIN))
			return -1;
	}
}

ssize_t conn_read_body(struct conn *c, void *buf, size_t len)
{
	struct worker *w = c->worker;
	uint64_t deadline = transfer_deadline(c);
	ssize_t n;

	if (deadline <= w->now_ms) {
		c->timed_out = true;
		errno = ETIMEDOUT;
		return -1;
	}
	/* A pending timer is the one wait_for keeps while reading. */
	timer_wheel_add(&w->wheel, &c->timer, deadline);
	n = conn_read(c, buf, len);
	if (n > 0) {
		c->xfer_last_ms = w->now_ms;
		c->xfer_bytes += (uint64_t)n;
	}
	return n;
}

int conn_writev(struct conn *c, struct iovec *iov, int iovcnt, bool more)
{
	struct msghdr msg = { .msg_iov = iov, .msg_iovlen = (size_t)iovcnt };
	int flags = MSG_NOSIGNAL | (more ? MSG_MORE : 0);

	if (c->ssl)
		return conn_tls_writev(c, iov, iovcnt, more);
	while (msg.msg_iovlen > 0) {
		ssize_t n = sendmsg(c->fd, &msg, flags);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN || conn_wait(c, EPOLLOUT))
				return -1;
			continue;
		}
		c->bytes_sent += (uint64_t)n;
		/* Drop what was written from the front of the vector. */
		while (msg.msg_iovlen > 0 &&
		       (size_t)n >= msg.msg_iov->iov_len) {
			n -= (ssize_t)msg.msg_iov->iov_len;
			msg.msg_iov++;
			msg.msg_iovlen--;
		}
		if (msg.msg_iovlen > 0) {
			msg.msg_iov->iov_base =
				(char *)msg.msg_iov->iov_base + n;
			msg.msg_iov->iov_len -= (size_t)n;
		}
	}
	return 0;
}

int conn_write(struct conn *c, const void *buf, size_t len, bool more)
{
	struct iovec iov = { (void *)buf, len };

	return conn_writev(c, &iov, 1, more);
}

/*
 * A connection that yields for a turn is working, not waiting for its
 * client.  The timer that fired meanwhile may be one set for a wait that
 * is over (the head's, the idle connection's, an HTTP/2 stream's, which
 * its loop looks at again): working, the connection answers to its
 * response's deadline, as conn_wait() does for a write.
 */
int conn_yield_turn(struct conn *c)
{
	struct worker *w = c->worker;
	uint64_t deadline;

	coro_yield(c->coro, CONN_YIELD_TURN);
	if (!c->timed_out)
		return 0;
	if (!atomic_load(&w->force_stop)) {
		deadline = send_deadline(c);
		if (deadline > w->now_ms) {
			c->timed_out = false;
			timer_wheel_add(&w->wheel, &c->timer, deadline);
			return 0;
		}
	}
	errno = ETIMEDOUT;
	return -1;
}

void conn_cut(struct conn *c)
{
	setsockopt(c->fd, SOL_SOCKET, SO_LINGER, &conn_reset,
		   sizeof(conn_reset));
}

int conn_sendfile(struct conn *c, int file_fd, off_t offset, uint64_t len)
{
	unsigned chunks = 0;

	if (c->ssl)
		return conn_tls_sendfile(c, file_fd, offset, len);
	while (len > 0) {
		/* A fast reader of a huge file must not starve the others. */
		if (++chunks % CONN_SENDFILE_TURN_CHUNKS == 0 &&
		    conn_yield_turn(c))
			return -1;
		size_t chunk = len > CONN_SENDFILE_CHUNK ? CONN_SENDFILE_CHUNK :
							   len;
		ssize_t n = sendfile(c->fd, file_fd, &offset, chunk);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN || conn_wait(c, EPOLLOUT))
				return -1;
			continue;
		}
		if (n == 0) {
			/* The file shrank under us: the length sent is a lie. */
			errno = EIO;
			return -1;
		}
		len -= (uint64_t)n;
		c->bytes_sent += (uint64_t)n;
	}
	return 0;
}

int conn_push(struct conn *c)
{
	static const int one = 1;

	if (c->ssl)
		return conn_tls_writev(c, NULL, 0, false); /* the stage */
	/* Setting TCP_NODELAY pushes what MSG_MORE corked, as a write
	 * without it would (a Unix socket holds nothing back: no harm). */
	setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return 0;
}

void conn_send_now(struct conn *c, const void *buf, size_t len)
{
	if (c->ssl)
		conn_tls_send_now(c, buf, len);
	else
		send(c->fd, buf, len, MSG_DONTWAIT | MSG_NOSIGNAL);
}

/*
 * Half-closes, then reads until the client's FIN, so that bytes still in
 * flight from it (a request's body, HTTP/2's WINDOW_UPDATEs) cannot make
 * close() send a reset that destroys the response before the client has
 * read it.  Bounded: HTTP_LINGER_MAX_BYTES, and HTTP_LINGER_MAX_MS (or the
 * timeout) after the last byte sent was acknowledged; while the client is
 * still reading, the send deadline applies (progress, --min-rate).
 */
void conn_linger(struct conn *c, void *buf, size_t len)
{
	struct worker *w = c->worker;
	size_t total = 0;
	uint64_t linger = w->server->timeout_ms < HTTP_LINGER_MAX_MS ?
				  w->server->timeout_ms :
				  HTTP_LINGER_MAX_MS;
	uint64_t first = w->now_ms + linger, quiet = first;

	c->close_after = true;
	if (c->ssl)
		conn_tls_finish_writing(c);
	if (shutdown(c->fd, SHUT_WR))
		return;
	/* Everything still queued is the client's to read now: each
	 * acknowledgement of it is progress. */
	conn_transfer_begin(c);
	c->xfer_base = conn_acked_bytes(c);
	while (total < HTTP_LINGER_MAX_BYTES) {
		uint64_t wake = quiet;
		ssize_t n;

		if (output_queued(c)) {
			uint64_t sending = send_deadline(c);

			if (sending < first)
				sending = first;
			if (sending <= w->now_ms)
				break; /* the client stopped reading */
			/* Acknowledgements raise no event: look again. */
			wake = w->now_ms + linger < sending ?
				       w->now_ms + linger :
				       sending;
			quiet = w->now_ms + linger;
		} else if (quiet <= w->now_ms) {
			break;
		}
		timer_wheel_add(&w->wheel, &c->timer, wake);
		n = conn_read(c, buf, len);
		if (n > 0) {
			total += (size_t)n;
			continue;
		}
		if (n == 0 || !c->timed_out || atomic_load(&w->force_stop))
			break;
		c->timed_out = false; /* look at the deadline again */
	}
}
