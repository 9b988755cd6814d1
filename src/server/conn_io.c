// SPDX-License-Identifier: MIT
#include <stdbool.h>

#include "conn_io.h"

#include <errno.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <linux/sockios.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <unistd.h>

#include "coro.h"
#include "server.h"

/* The most one sendfile(2) call moves; also bounds time between yields. */
#define SENDFILE_CHUNK (1u << 20)
#define SENDFILE_TURN_CHUNKS 8

/* Bytes written to the socket that the peer has not yet acknowledged. */
static int unacked_bytes(const struct conn *c)
{
	int n;

	return ioctl(c->fd, SIOCOUTQ, &n) ? -1 : n;
}

/*
 * Suspends until the socket reports events (or an error, or the timer).
 * While writing, the deadline moves with every wait, and with any progress
 * during one: epoll reports the socket writable only once a third of a send
 * buffer that may hold megabytes is free, which a slow but steady reader can
 * take longer than the timeout to drain.  One that stops is cut off.
 */
static int wait_for(struct conn *c, uint32_t events)
{
	struct worker *w = c->worker;
	int unacked = -1;

	if (c->timed_out) {
		errno = ETIMEDOUT;
		return -1;
	}
	for (;;) {
		/* Every wait has a deadline, even after the timer served a
		 * turn. */
		if ((events & EPOLLOUT) || !timer_pending(&c->timer))
			timer_wheel_add(&w->wheel, &c->timer,
					w->now_ms + w->server->timeout_ms);
		if (events & EPOLLOUT)
			unacked = unacked_bytes(c);
		coro_yield(c->coro, (int)events);
		if (!c->timed_out)
			return 0;
		/* Nothing is written while waiting: fewer unacknowledged
		 * bytes means the client took some. */
		if (unacked < 0 || atomic_load(&w->force_stop) ||
		    unacked_bytes(c) >= unacked)
			break;
		c->timed_out = false;
	}
	errno = ETIMEDOUT;
	return -1;
}

ssize_t conn_try_read(struct conn *c, void *buf, size_t len)
{
	ssize_t n;

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
		if (errno != EAGAIN || wait_for(c, EPOLLIN))
			return -1;
	}
}

int conn_writev(struct conn *c, struct iovec *iov, int iovcnt, bool more)
{
	struct msghdr msg = { .msg_iov = iov, .msg_iovlen = (size_t)iovcnt };
	int flags = MSG_NOSIGNAL | (more ? MSG_MORE : 0);

	while (msg.msg_iovlen > 0) {
		ssize_t n = sendmsg(c->fd, &msg, flags);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN || wait_for(c, EPOLLOUT))
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

int conn_yield_turn(struct conn *c)
{
	coro_yield(c->coro, CONN_YIELD_TURN);
	if (c->timed_out) {
		errno = ETIMEDOUT;
		return -1;
	}
	return 0;
}

int conn_sendfile(struct conn *c, int file_fd, off_t offset, uint64_t len)
{
	unsigned chunks = 0;

	while (len > 0) {
		/* A fast reader of a huge file must not starve the others. */
		if (++chunks % SENDFILE_TURN_CHUNKS == 0 && conn_yield_turn(c))
			return -1;
		size_t chunk = len > SENDFILE_CHUNK ? SENDFILE_CHUNK : len;
		ssize_t n = sendfile(c->fd, file_fd, &offset, chunk);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN || wait_for(c, EPOLLOUT))
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
