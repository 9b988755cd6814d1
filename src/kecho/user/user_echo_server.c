// SPDX-License-Identifier: MIT
/*
 * user-echo-server: kecho's twin in user space.  One thread per CPU, each
 * with its own SO_REUSEPORT listener and an edge-triggered epoll loop over
 * non-blocking sockets; every byte a client sends is written back.  A
 * connection whose echo does not fit the socket keeps the rest and stops
 * reading until it is sent, so a client that never reads costs at most one
 * buffer.
 */
#include <errno.h>
#include <getopt.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include "echo_args.h"

#define READ_BUF 65536
#define MAX_EVENTS 256

struct options {
	const char *bind_addr;
	uint16_t port;
	unsigned int threads;
	int backlog;
};

struct echo_conn {
	int fd;
	char *pending; /* the part of an echo the socket did not take */
	size_t len, off;
};

struct loop {
	pthread_t thread;
	int listen_fd;
	int epfd;
	int stop_fd; /* an eventfd every loop watches; written once to stop */
	char buf[READ_BUF];
};

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: user-echo-server [OPTIONS]\n"
		"Echo every byte TCP clients send (kecho's user-space twin).\n"
		"\n"
		"  -p, --port PORT        port to listen on (default %d; 0: any)\n"
		"  -b, --bind ADDR        address to bind, IPv4 or IPv6 (default 0.0.0.0)\n"
		"  -t, --threads N        event-loop threads (default: online CPUs)\n"
		"      --backlog N        listen backlog (default 128)\n"
		"  -h, --help             show this help and exit\n"
		"  -V, --version          show the version and exit\n",
		ECHO_DEFAULT_PORT);
}

static int bad(const char *what, const char *value)
{
	fprintf(stderr, "user-echo-server: invalid %s '%s' (try --help)\n",
		what, value);
	return 2;
}

/* 0 to run, or an exit status (0 after --help/--version). */
static int parse_options(struct options *opt, int argc, char **argv, bool *done)
{
	static const struct option long_options[] = {
		{ "port", required_argument, NULL, 'p' },
		{ "bind", required_argument, NULL, 'b' },
		{ "threads", required_argument, NULL, 't' },
		{ "backlog", required_argument, NULL, 'B' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned long v;
	int c;

	*opt = (struct options){
		.bind_addr = "0.0.0.0",
		.port = ECHO_DEFAULT_PORT,
		.threads = cpus > 0 ? (unsigned int)cpus : 1,
		.backlog = 128,
	};
	*done = false;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":p:b:t:hV", long_options, NULL)) !=
	       -1) {
		switch (c) {
		case 'p':
			if (echo_parse_uint(optarg, 0, 65535, &v))
				return bad("port", optarg);
			opt->port = (uint16_t)v;
			break;
		case 'b':
			opt->bind_addr = optarg;
			break;
		case 't':
			if (echo_parse_uint(optarg, 1, 1024, &v))
				return bad("thread count", optarg);
			opt->threads = (unsigned int)v;
			break;
		case 'B':
			if (echo_parse_uint(optarg, 1, 65535, &v))
				return bad("backlog", optarg);
			opt->backlog = (int)v;
			break;
		case 'h':
			usage(stdout);
			*done = true;
			return 0;
		case 'V':
			printf("user-echo-server %s\n", ECHO_VERSION);
			*done = true;
			return 0;
		case ':':
			fprintf(stderr,
				"user-echo-server: option '%s' needs a value\n",
				argv[optind - 1]);
			return 2;
		default:
			fprintf(stderr,
				"user-echo-server: unknown option '%s' (try --help)\n",
				argv[optind - 1]);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr,
			"user-echo-server: unexpected argument '%s' (try --help)\n",
			argv[optind]);
		return 2;
	}
	return 0;
}

/* A non-blocking SO_REUSEPORT listener on addr:port, or -1. */
static int open_listener(const struct options *opt, uint16_t port)
{
	struct addrinfo hints = {
		.ai_family = AF_UNSPEC,
		.ai_socktype = SOCK_STREAM,
		.ai_flags = AI_PASSIVE | AI_NUMERICHOST | AI_NUMERICSERV,
	};
	struct addrinfo *ai;
	char service[8];
	int one = 1;
	int fd, err;

	snprintf(service, sizeof(service), "%u", port);
	err = getaddrinfo(opt->bind_addr, service, &hints, &ai);
	if (err) {
		fprintf(stderr, "user-echo-server: invalid address '%s': %s\n",
			opt->bind_addr, gai_strerror(err));
		return -1;
	}
	fd = socket(ai->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
		    0);
	if (fd < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one)) ||
	    bind(fd, ai->ai_addr, ai->ai_addrlen) || listen(fd, opt->backlog)) {
		fprintf(stderr,
			"user-echo-server: cannot listen on %s port %u: %s\n",
			opt->bind_addr, port, strerror(errno));
		if (fd >= 0)
			close(fd);
		fd = -1;
	}
	freeaddrinfo(ai);
	return fd;
}

static uint16_t bound_port(int fd)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);

	if (getsockname(fd, (struct sockaddr *)&ss, &len))
		return 0;
	if (ss.ss_family == AF_INET6)
		return ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
	return ntohs(((struct sockaddr_in *)&ss)->sin_port);
}

static void conn_close(struct echo_conn *c)
{
	close(c->fd);
	free(c->pending);
	free(c);
}

/* Writes what is pending: 1 when all of it went, 0 when the socket is full. */
static int flush_pending(struct echo_conn *c)
{
	while (c->off < c->len) {
		ssize_t n = write(c->fd, c->pending + c->off, c->len - c->off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return 0;
		if (n < 0)
			return -1;
		c->off += (size_t)n;
	}
	free(c->pending);
	c->pending = NULL;
	c->len = c->off = 0;
	return 1;
}

/* Echoes until the socket has nothing more; false once it should close. */
static bool conn_serve(struct loop *l, struct echo_conn *c)
{
	for (;;) {
		ssize_t n, w;

		if (c->pending) {
			int r = flush_pending(c);

			if (r <= 0)
				return r == 0; /* EPOLLOUT brings us back */
		}
		n = read(c->fd, l->buf, sizeof(l->buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return errno == EAGAIN;
		if (n == 0)
			return false;
		w = write(c->fd, l->buf, (size_t)n);
		if (w < 0 && errno != EAGAIN && errno != EINTR)
			return false;
		if (w < 0)
			w = 0;
		if (w < n) {
			c->len = (size_t)(n - w);
			c->off = 0;
			c->pending = malloc(c->len);
			if (!c->pending)
				return false;
			memcpy(c->pending, l->buf + w, c->len);
		}
	}
}

static void accept_all(struct loop *l)
{
	for (;;) {
		int one = 1;
		int fd = accept4(l->listen_fd, NULL, NULL,
				 SOCK_NONBLOCK | SOCK_CLOEXEC);
		struct epoll_event ev;
		struct echo_conn *c;

		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			return; /* EAGAIN, or out of descriptors for now */
		}
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		c = calloc(1, sizeof(*c));
		if (!c) {
			close(fd);
			continue;
		}
		c->fd = fd;
		ev.events = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET;
		ev.data.ptr = c;
		if (epoll_ctl(l->epfd, EPOLL_CTL_ADD, fd, &ev)) {
			conn_close(c);
			continue;
		}
	}
}

static void *loop_run(void *arg)
{
	struct loop *l = arg;
	struct epoll_event events[MAX_EVENTS];

	for (;;) {
		int n = epoll_wait(l->epfd, events, MAX_EVENTS, -1);

		for (int i = 0; i < n; i++) {
			struct echo_conn *c = events[i].data.ptr;

			if (c == NULL)
				return NULL; /* the stop eventfd */
			if (c == (void *)l) {
				accept_all(l);
				continue;
			}
			if ((events[i].events & (EPOLLERR | EPOLLHUP)) ||
			    !conn_serve(l, c))
				conn_close(c);
		}
	}
}

static int loop_init(struct loop *l, int listen_fd, int stop_fd)
{
	struct epoll_event ev = { .events = EPOLLIN | EPOLLET };

	l->listen_fd = listen_fd;
	l->stop_fd = stop_fd;
	l->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (l->epfd < 0)
		return -1;
	ev.data.ptr = l;
	if (epoll_ctl(l->epfd, EPOLL_CTL_ADD, listen_fd, &ev))
		return -1;
	ev.events = EPOLLIN; /* level: every loop sees the one write */
	ev.data.ptr = NULL;
	return epoll_ctl(l->epfd, EPOLL_CTL_ADD, stop_fd, &ev);
}

int main(int argc, char **argv)
{
	struct options opt;
	struct loop *loops;
	sigset_t sigs;
	uint64_t one = 1;
	bool done;
	int status = parse_options(&opt, argc, argv, &done);
	int stop_fd, sig;
	uint16_t port;

	if (status || done)
		return status;
	signal(SIGPIPE, SIG_IGN);
	/* Threads inherit the mask; only sigwait() below takes these. */
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &sigs, NULL);

	loops = calloc(opt.threads, sizeof(*loops));
	stop_fd = eventfd(0, EFD_CLOEXEC);
	if (!loops || stop_fd < 0) {
		perror("user-echo-server");
		return 1;
	}
	port = opt.port;
	for (unsigned int i = 0; i < opt.threads; i++) {
		/* Port 0: the first listener picks one, the others share it. */
		int fd = open_listener(&opt, port);

		if (fd < 0)
			return 1;
		port = bound_port(fd);
		if (loop_init(&loops[i], fd, stop_fd)) {
			perror("user-echo-server: epoll");
			return 1;
		}
	}
	printf("user-echo-server: listening on %s port %u, %u thread%s\n",
	       opt.bind_addr, port, opt.threads, opt.threads == 1 ? "" : "s");
	fflush(stdout);
	for (unsigned int i = 0; i < opt.threads; i++) {
		if (pthread_create(&loops[i].thread, NULL, loop_run,
				   &loops[i])) {
			fprintf(stderr,
				"user-echo-server: cannot start threads\n");
			return 1;
		}
	}
	while (sigwait(&sigs, &sig))
		;
	if (write(stop_fd, &one, sizeof(one)) != sizeof(one))
		return 1;
	for (unsigned int i = 0; i < opt.threads; i++)
		pthread_join(loops[i].thread, NULL);
	/* Connections still open go with the process. */
	return 0;
}
