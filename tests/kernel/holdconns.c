// SPDX-License-Identifier: MIT
/*
 * holdconns: opens many client connections to a local port inside the test
 * guest and holds them, idle or with half a request head sent, until the
 * server closes them (or a wait bound passes); then prints one JSON line:
 * how many were opened and closed by the server, when they closed (seconds
 * after each was opened), and how many half-sent ones got a 408 first.
 * A line "opened ..." is printed (and flushed) as soon as all are open.
 *
 * usage: holdconns -p PORT [-i IDLE] [-s HALF] [-w SECONDS]
 */
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define HALF_REQUEST "GET /a.txt HTTP/1.1\r\nHost: guest\r\nX-Slow: "

struct conn {
	int fd;
	int half;
	double opened;
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int open_one(int port, int half)
{
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_port = htons(port),
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	if (fd < 0)
		return -1;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    (half && send(fd, HALF_REQUEST, strlen(HALF_REQUEST), 0) < 0)) {
		close(fd);
		return -1;
	}
	return fd;
}

int main(int argc, char **argv)
{
	int port = 8081, idle = 0, half = 0, wait_s = 60, opt, n = 0;
	int failed = 0, left, closed[2] = { 0, 0 }, got408 = 0;
	double first = -1, last = -1, start, end, open_s;
	struct epoll_event ev;
	struct conn *c;
	int ep;
	struct rlimit rl;
	char buf[4096];

	while ((opt = getopt(argc, argv, "p:i:s:w:")) != -1) {
		switch (opt) {
		case 'p':
			port = atoi(optarg);
			break;
		case 'i':
			idle = atoi(optarg);
			break;
		case 's':
			half = atoi(optarg);
			break;
		case 'w':
			wait_s = atoi(optarg);
			break;
		default:
			fprintf(stderr, "usage: holdconns -p PORT [-i IDLE] "
					"[-s HALF] [-w SECONDS]\n");
			return 2;
		}
	}
	rl.rlim_cur = rl.rlim_max = (rlim_t)idle + half + 64;
	if (setrlimit(RLIMIT_NOFILE, &rl))
		perror("setrlimit");
	c = calloc(idle + half, sizeof(*c));
	ep = epoll_create1(0);
	if (!c || ep < 0)
		return 1;
	start = now();
	for (int i = 0; i < idle + half; i++) {
		int fd = open_one(port, i >= idle);

		if (fd < 0) {
			failed++;
			continue;
		}
		c[n] = (struct conn){ .fd = fd,
				      .half = i >= idle,
				      .opened = now() };
		ev = (struct epoll_event){ .events = EPOLLIN, .data.u32 = n };
		if (epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev))
			return 1;
		n++;
	}
	open_s = now() - start;
	printf("opened %d failed %d in %.2f s\n", n, failed, open_s);
	fflush(stdout);
	left = n;
	end = now() + wait_s;
	while (left > 0 && now() < end) {
		struct epoll_event ev[256];
		int k = epoll_wait(ep, ev, 256, 200);

		if (k < 0 && errno != EINTR)
			break;
		for (int j = 0; j < k; j++) {
			struct conn *cc = &c[ev[j].data.u32];
			ssize_t r;
			double t;

			r = recv(cc->fd, buf, sizeof(buf), MSG_DONTWAIT);
			if (r > 0) {
				got408 += cc->half &&
					  !strncmp(buf, "HTTP/1.1 408", 12);
				continue;
			}
			if (r < 0 && errno == EAGAIN)
				continue;
			t = now() - cc->opened;
			if (first < 0 || t < first)
				first = t;
			if (t > last)
				last = t;
			closed[cc->half]++;
			close(cc->fd); /* also leaves the epoll set */
			left--;
		}
	}
	printf("{\"opened\": %d, \"failed\": %d, \"idle_closed\": %d, "
	       "\"half_closed\": %d, \"half_408\": %d, \"first_close_s\": "
	       "%.2f, \"last_close_s\": %.2f, \"open_s\": %.2f}\n",
	       n, failed, closed[0], closed[1], got408, first, last, open_s);
	return 0;
}
