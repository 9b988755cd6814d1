// SPDX-License-Identifier: MIT
/*
 * The benchmark's floor: an HTTP/1.1 keep-alive server that answers every
 * request head with one fixed response and does nothing else, so its CPU
 * time per request is the kernel's TCP work alone.
 *
 * Usage: bench-floor PORT [BODY_BYTES]   (listens on 127.0.0.1, one thread)
 *
 * It still finds the end of each request head ("\r\n\r\n") so pipelined
 * requests get one response each; request bodies are not supported.
 */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#define MAX_EVENTS 256
#define READ_BUF 16384
#define MAX_BODY (1 << 20)

struct floor_conn {
	unsigned char head_match; /* bytes of "\r\n\r\n" matched so far */
	unsigned char want_out; /* EPOLLOUT is armed */
	size_t unsent; /* response bytes owed to the client */
	size_t phase; /* offset of the next byte within one response */
};

static char *responses; /* several copies of the response, back to back */
static size_t response_len;
static size_t responses_len;
static struct floor_conn *conns;
static int max_fds;

static int build_responses(size_t body_len)
{
	char head[128];
	size_t copies, i;
	int n;

	n = snprintf(head, sizeof(head),
		     "HTTP/1.1 200 OK\r\nContent-Length: %zu\r\n\r\n",
		     body_len);
	if (n < 0 || (size_t)n >= sizeof(head))
		return -1;
	response_len = (size_t)n + body_len;
	/* Enough copies that one write can answer a deep pipeline. */
	copies = 65536 / response_len + 1;
	responses_len = copies * response_len;
	responses = malloc(responses_len);
	if (!responses)
		return -1;
	for (i = 0; i < copies; i++) {
		char *r = responses + i * response_len;

		memcpy(r, head, (size_t)n);
		memset(r + n, 'x', body_len);
		if (body_len)
			r[response_len - 1] = '\n';
	}
	return 0;
}

/* Counts the request heads that end in buf, carrying a partial match. */
static size_t count_heads(struct floor_conn *c, const char *buf, size_t len)
{
	static const char end[4] = { '\r', '\n', '\r', '\n' };
	unsigned m = c->head_match;
	size_t heads = 0, i;

	for (i = 0; i < len; i++) {
		if (buf[i] == end[m])
			m++;
		else
			m = buf[i] == '\r' ? 1 : 0;
		if (m == 4) {
			heads++;
			m = 0;
		}
	}
	c->head_match = (unsigned char)m;
	return heads;
}

static void close_conn(int ep, int fd)
{
	epoll_ctl(ep, EPOLL_CTL_DEL, fd, NULL);
	close(fd);
}

/* Returns -1 on a dead connection, otherwise 0. */
static int flush_conn(int ep, int fd, struct floor_conn *c)
{
	while (c->unsent) {
		size_t len = responses_len - c->phase;
		ssize_t n;

		if (len > c->unsent)
			len = c->unsent;
		n = send(fd, responses + c->phase, len, MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			break;
		if (n <= 0)
			return -1;
		c->unsent -= (size_t)n;
		c->phase = (c->phase + (size_t)n) % response_len;
	}
	if (!!c->unsent != c->want_out) {
		struct epoll_event ev = {
			.events = EPOLLIN | (c->unsent ? EPOLLOUT : 0),
			.data.fd = fd,
		};

		if (epoll_ctl(ep, EPOLL_CTL_MOD, fd, &ev))
			return -1;
		c->want_out = !!c->unsent;
	}
	return 0;
}

static void serve_conn(int ep, int fd, unsigned events)
{
	struct floor_conn *c = &conns[fd];
	char buf[READ_BUF];

	if (events & EPOLLIN) {
		for (;;) {
			ssize_t n = recv(fd, buf, sizeof(buf), 0);

			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0 && errno == EAGAIN)
				break;
			if (n <= 0) {
				/* Best effort for a client that half-closed. */
				if (n == 0)
					flush_conn(ep, fd, c);
				close_conn(ep, fd);
				return;
			}
			c->unsent +=
				count_heads(c, buf, (size_t)n) * response_len;
		}
	} else if (events & (EPOLLERR | EPOLLHUP)) {
		close_conn(ep, fd);
		return;
	}
	if (flush_conn(ep, fd, c))
		close_conn(ep, fd);
}

static void accept_conns(int ep, int lfd)
{
	for (;;) {
		struct epoll_event ev = { .events = EPOLLIN };
		int one = 1;
		int fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);

		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			return; /* EAGAIN, or out of fds: retry on next event */
		}
		if (fd >= max_fds) {
			close(fd);
			continue;
		}
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		conns[fd] = (struct floor_conn){ 0 };
		ev.data.fd = fd;
		if (epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev))
			close(fd);
	}
}

static int listen_on(unsigned port)
{
	struct sockaddr_in sin = {
		.sin_family = AF_INET,
		.sin_port = htons((uint16_t)port),
		.sin_addr.s_addr = htonl(INADDR_LOOPBACK),
	};
	int one = 1;
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -1;
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(fd, (struct sockaddr *)&sin, sizeof(sin)) ||
	    listen(fd, 4096)) {
		close(fd);
		return -1;
	}
	return fd;
}

int main(int argc, char **argv)
{
	struct epoll_event events[MAX_EVENTS];
	struct epoll_event lev = { .events = EPOLLIN };
	struct rlimit rl;
	unsigned long port, body = 12;
	char *end;
	int ep, lfd;

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: bench-floor PORT [BODY_BYTES]\n");
		return 2;
	}
	port = strtoul(argv[1], &end, 10);
	if (*end || !*argv[1] || port == 0 || port > 65535) {
		fprintf(stderr, "bench-floor: bad port '%s'\n", argv[1]);
		return 2;
	}
	if (argc == 3) {
		body = strtoul(argv[2], &end, 10);
		if (*end || !*argv[2] || body > MAX_BODY) {
			fprintf(stderr, "bench-floor: bad body size '%s'\n",
				argv[2]);
			return 2;
		}
	}
	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur > (1 << 20))
		rl.rlim_cur = 1 << 20;
	max_fds = (int)rl.rlim_cur;
	conns = calloc((size_t)max_fds, sizeof(*conns));
	signal(SIGPIPE, SIG_IGN);
	if (!conns || build_responses(body)) {
		fprintf(stderr, "bench-floor: out of memory\n");
		return 1;
	}
	lfd = listen_on((unsigned)port);
	ep = epoll_create1(EPOLL_CLOEXEC);
	lev.data.fd = lfd;
	if (lfd < 0 || ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, lfd, &lev)) {
		perror("bench-floor: listen");
		return 1;
	}
	for (;;) {
		int n = epoll_wait(ep, events, MAX_EVENTS, -1);
		int i;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			perror("bench-floor: epoll_wait");
			return 1;
		}
		for (i = 0; i < n; i++) {
			if (events[i].data.fd == lfd)
				accept_conns(ep, lfd);
			else
				serve_conn(ep, events[i].data.fd,
					   events[i].events);
		}
	}
}
