// SPDX-License-Identifier: MIT
/*
 * streambody: one client that keeps a connection's work item busy, inside
 * the test guest (through qemu's port forward it could not go fast
 * enough).  A child sends a GET with a huge Content-Length, then body
 * bytes as fast as loopback takes them, for SECONDS; with -c, the body
 * is chunked in chunks of one byte, which the server takes longer to
 * parse than the client to send; with -P, GETs of PATH pipelined one after
 * another instead, their responses read as fast as they come.  Meanwhile, after DELAY seconds, the parent times GETS
 * requests of PATH one after another, each on a new connection.
 * Connections go to the CPUs in turn, so with two CPUs every other one
 * shares the streaming connection's.  Each request is sent a moment after
 * its connection is accepted, so that it is answered by the connection's
 * work item rather than by the accept.  Prints one JSON line: how long
 * each request took to be answered (until the server closed it, ms),
 * their statuses, when the last one ended (seconds after the stream
 * began), and what the stream sent and received, for how long, and how it
 * ended (time, closed, reset or error).
 *
 * usage: streambody -p PORT -u PATH [-s SECONDS] [-n GETS] [-d DELAY] [-P]
 *                   [-c]
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_GETS 64

static struct sockaddr_in sa = { .sin_family = AF_INET };

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int dial(void)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		perror("streambody: connect");
		exit(1);
	}
	return fd;
}

/*
 * The child: for seconds, streams a body (or, with pipe, GETs of path one
 * after another, reading the responses as fast as they come); writes its
 * summary to out.
 */
static void stream(const char *path, double seconds, int pipe, int chunked,
		   int out)
{
	static char buf[65536], in[65536];
	char head[1024], res[256];
	double start = now(), end = start + seconds;
	long long sent = 0, got = 0;
	size_t len, off = 0, head_len, head_off = 0;
	const char *how = "time";
	int fd = dial();

	fcntl(fd, F_SETFL, O_NONBLOCK);
	if (pipe) {
		snprintf(head, sizeof(head),
			 "GET %s HTTP/1.1\r\nHost: guest\r\n\r\n", path);
		head_len = strlen(head);
		for (len = 0; len + head_len <= sizeof(buf); len += head_len)
			memcpy(buf + len, head, head_len);
		head_len = 0;
	} else if (chunked) {
		/* Chunks of one byte: the server parses, the client copies. */
		snprintf(head, sizeof(head),
			 "GET %s HTTP/1.1\r\nHost: guest\r\n"
			 "Transfer-Encoding: chunked\r\n\r\n",
			 path);
		head_len = strlen(head);
		for (len = 0; len + 6 <= sizeof(buf); len += 6)
			memcpy(buf + len, "1\r\nx\r\n", 6);
	} else {
		snprintf(head, sizeof(head),
			 "GET %s HTTP/1.1\r\nHost: guest\r\n"
			 "Content-Length: 1000000000000000\r\n\r\n",
			 path);
		head_len = strlen(head);
		len = sizeof(buf);
		memset(buf, 'x', len);
	}
	while (now() < end) {
		struct pollfd p = { .fd = fd, .events = POLLIN | POLLOUT };
		ssize_t r;

		if (poll(&p, 1, 100) <= 0)
			continue;
		if (p.revents & (POLLIN | POLLERR | POLLHUP)) {
			r = recv(fd, in, sizeof(in), 0);
			if (r == 0) {
				how = "closed";
				break;
			}
			if (r > 0)
				got += r;
			else if (errno != EINTR && errno != EAGAIN)
				break;
		}
		if (!(p.revents & POLLOUT))
			continue;
		if (head_off < head_len) {
			r = send(fd, head + head_off, head_len - head_off,
				 MSG_NOSIGNAL);
			if (r > 0)
				head_off += r;
		} else {
			r = send(fd, buf + off, len - off, MSG_NOSIGNAL);
			if (r > 0) {
				sent += r;
				off = (off + r) % len;
			}
		}
		if (r < 0 && errno != EINTR && errno != EAGAIN)
			break;
	}
	if (now() < end && strcmp(how, "closed"))
		how = errno == ECONNRESET || errno == EPIPE ? "reset" : "error";
	snprintf(res, sizeof(res),
		 "\"streamed\": %lld, \"received\": %lld, \"stream_s\": %.2f, "
		 "\"stream_end\": \"%s\"",
		 sent, got, now() - start, how);
	if (write(out, res, strlen(res)) < 0)
		exit(1);
	close(fd);
	exit(0);
}

/* One request on a new connection: ms until it was closed, its status. */
static double timed_get(const char *path, int *status)
{
	char req[1024], buf[4096];
	double start, deadline;
	long long got = 0;
	int fd = dial();

	usleep(50000); /* accepted by now: the work item answers it */
	snprintf(req, sizeof(req),
		 "GET %s HTTP/1.1\r\nHost: guest\r\nConnection: close\r\n\r\n",
		 path);
	start = now();
	deadline = start + 30;
	*status = 0;
	if (send(fd, req, strlen(req), MSG_NOSIGNAL) < 0) {
		close(fd);
		return -1;
	}
	while (now() < deadline) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		ssize_t r;

		if (poll(&p, 1, 100) <= 0)
			continue;
		r = recv(fd, buf, sizeof(buf), 0);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		if (!got && r >= 12 && !strncmp(buf, "HTTP/1.", 7))
			*status = atoi(buf + 9);
		got += r;
	}
	close(fd);
	return (now() - start) * 1000;
}

int main(int argc, char **argv)
{
	const char *path = "/a.txt";
	double seconds = 3, delay = 0.5, ms[MAX_GETS], max_ms = 0, t0, gets_end;
	int port = 8081, gets = 4, status[MAX_GETS], opt, i, fds[2], pipe_ = 0,
	    chunked = 0;
	char res[256] = "";
	ssize_t n;
	pid_t pid;

	while ((opt = getopt(argc, argv, "p:u:s:n:d:Pc")) != -1) {
		switch (opt) {
		case 'p':
			port = atoi(optarg);
			break;
		case 'u':
			path = optarg;
			break;
		case 's':
			seconds = atof(optarg);
			break;
		case 'n':
			gets = atoi(optarg);
			break;
		case 'd':
			delay = atof(optarg);
			break;
		case 'P':
			pipe_ = 1;
			break;
		case 'c':
			chunked = 1;
			break;
		default:
			fprintf(stderr,
				"usage: streambody -p PORT -u PATH "
				"[-s SECONDS] [-n GETS] [-d DELAY] [-P] [-c]\n");
			return 2;
		}
	}
	if (gets < 0 || gets > MAX_GETS) {
		fprintf(stderr, "streambody: at most %d requests\n", MAX_GETS);
		return 2;
	}
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sa.sin_port = htons(port);
	signal(SIGPIPE, SIG_IGN);
	if (pipe(fds)) {
		perror("streambody: pipe");
		return 1;
	}
	fflush(stdout);
	t0 = now();
	pid = fork();
	if (pid < 0) {
		perror("streambody: fork");
		return 1;
	}
	if (!pid) {
		close(fds[0]);
		stream(path, seconds, pipe_, chunked, fds[1]);
	}
	close(fds[1]);
	usleep(delay * 1e6);
	for (i = 0; i < gets; i++) {
		ms[i] = timed_get(path, &status[i]);
		if (ms[i] > max_ms)
			max_ms = ms[i];
	}
	gets_end = now() - t0;
	n = read(fds[0], res, sizeof(res) - 1);
	res[n > 0 ? n : 0] = '\0';
	waitpid(pid, NULL, 0);
	printf("{\"ms\": [");
	for (i = 0; i < gets; i++)
		printf("%s%.1f", i ? ", " : "", ms[i]);
	printf("], \"status\": [");
	for (i = 0; i < gets; i++)
		printf("%s%d", i ? ", " : "", status[i]);
	printf("], \"max_ms\": %.1f, \"gets_end_s\": %.2f, %s}\n", max_ms,
	       gets_end, res[0] ? res : "\"streamed\": -1");
	return 0;
}
