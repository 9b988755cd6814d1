// SPDX-License-Identifier: MIT
/*
 * slowread: a client that takes a response slowly, inside the test guest
 * (through qemu's port forward, its buffers would hide the pace from the
 * server).  It connects to a local port with a small receive buffer, sends
 * one GET and reads the response at a steady RATE bytes per second until
 * the server closes the connection or SECONDS pass; RATE 0 reads only the
 * status line and then nothing.  Prints one JSON line: the status, the
 * bytes read, whether the server closed and after how many seconds.
 *
 * HEADER (-H "Name: value") is sent with the GET.
 *
 * usage: slowread -p PORT -u PATH [-r RATE] [-w SECONDS] [-b RCVBUF]
 *                 [-m MSS] [-H HEADER]
 */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int port = 8081, rcvbuf = 4096, mss = 1400, opt, fd, status = 0,
	    closed = 0;
	double rate = 0, wait_s = 10, start, end;
	const char *path = "/", *header = NULL;
	long long got = 0;
	char req[1024], buf[65536];

	while ((opt = getopt(argc, argv, "p:u:r:w:b:m:H:")) != -1) {
		switch (opt) {
		case 'p':
			port = atoi(optarg);
			break;
		case 'u':
			path = optarg;
			break;
		case 'r':
			rate = atof(optarg);
			break;
		case 'w':
			wait_s = atof(optarg);
			break;
		case 'b':
			rcvbuf = atoi(optarg);
			break;
		case 'm':
			mss = atoi(optarg);
			break;
		case 'H':
			header = optarg;
			break;
		default:
			fprintf(stderr, "usage: slowread -p PORT -u PATH "
					"[-r RATE] [-w SECONDS] [-b RCVBUF] "
					"[-m MSS] [-H HEADER]\n");
			return 2;
		}
	}
	sa.sin_port = htons(port);
	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf)) ||
	    setsockopt(fd, IPPROTO_TCP, TCP_MAXSEG, &mss, sizeof(mss)) ||
	    connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		perror("slowread");
		return 1;
	}
	snprintf(req, sizeof(req), "GET %s HTTP/1.1\r\nHost: guest\r\n%s%s\r\n",
		 path, header ? header : "", header ? "\r\n" : "");
	if (send(fd, req, strlen(req), 0) < 0) {
		perror("send");
		return 1;
	}
	start = now();
	end = start + wait_s;
	while (!closed && now() < end) {
		/* What the pace allows by now; the status line at first. */
		long long owed =
			got < 16 ? 16 - got :
				   (long long)(rate * (now() - start)) - got;
		struct pollfd p = { .fd = fd, .events = POLLIN };
		ssize_t r;

		if (owed <= 0) {
			usleep(rate > 0 ? 10000 : 100000);
			continue;
		}
		if (owed > (long long)sizeof(buf))
			owed = sizeof(buf);
		if (poll(&p, 1, 100) <= 0)
			continue;
		r = recv(fd, buf, owed, 0);
		if (r <= 0) {
			if (r < 0 && errno == EINTR)
				continue;
			closed = 1;
			break;
		}
		if (!got && r >= 12 && !strncmp(buf, "HTTP/1.", 7))
			status = atoi(buf + 9);
		got += r;
	}
	printf("{\"status\": %d, \"bytes\": %lld, \"closed\": %d, "
	       "\"seconds\": %.2f}\n",
	       status, got, closed, now() - start);
	return 0;
}
