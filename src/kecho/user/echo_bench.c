// SPDX-License-Identifier: MIT
/*
 * echo-bench: N concurrent clients of an echo server, for N in steps.  Per
 * level, N connections are opened first; then every client sends a
 * message (in --split writes), reads the echo back, checks every byte and
 * records the round trip, --rounds times.  Prints the average and p99 round
 * trip per level as a table, and as CSV rows with --csv.  --hold opens
 * idle connections and reports when the server closes them (the unload
 * test).  One epoll loop drives every client.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "echo_args.h"

#define MAX_LEVELS 64
#define MAX_SIZES 32
#define MAX_SIZE (1u << 20)
#define MAX_CLIENTS 65536

struct options {
	const char *host;
	const char *port;
	unsigned long levels[MAX_LEVELS];
	size_t nlevels;
	unsigned long sizes[MAX_SIZES];
	size_t nsizes;
	unsigned long rounds;
	unsigned long split;
	unsigned long hold;
	double seconds;
	const char *csv;
	const char *label;
};

enum client_state { CONNECTING, READY, SENDING, DONE, FAILED };

struct client {
	int fd;
	enum client_state state;
	unsigned int index;
	unsigned long round;
	size_t sent, received;
	double started_us;
	char *msg; /* this round's message, kept to check its echo */
};

struct level {
	const struct options *opt;
	struct addrinfo *addr;
	size_t size;
	unsigned long nclients;
	struct client *clients;
	double *samples;
	size_t nsamples;
	unsigned long failed;
	char *got;
	int epfd;
};

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: echo-bench [OPTIONS] [HOST:]PORT\n"
		"Time round trips of concurrent clients of an echo server.\n"
		"\n"
		"  -c, --clients LIST   concurrency levels: N, N,M,... or FIRST-LAST:STEP\n"
		"                       (default 1,100-1000:100)\n"
		"  -s, --size LIST      message sizes in bytes, 1 to 1048576 (default 16)\n"
		"  -r, --rounds N       round trips per client per level (default 10)\n"
		"      --split N        send each message in N writes (default 1)\n"
		"      --csv FILE       append label,clients,size,samples,avg_us,p99_us\n"
		"      --label NAME     the server's name in the CSV (default: HOST:PORT)\n"
		"      --hold N         instead: open N idle connections and wait for\n"
		"                       the server to close them\n"
		"      --seconds S      how long --hold waits (default 30)\n"
		"  -h, --help           show this help and exit\n"
		"  -V, --version        show the version and exit\n"
		"Exits 1 if any echo was wrong or any client failed.\n");
}

static int bad(const char *what, const char *value)
{
	fprintf(stderr, "echo-bench: invalid %s '%s' (try --help)\n", what,
		value);
	return 2;
}

/* "N", "A,B,C" or "FIRST-LAST:STEP" items, comma-separated. */
static int parse_list(const char *s, unsigned long min, unsigned long max,
		      unsigned long *out, size_t cap, size_t *n)
{
	char *copy = strdup(s), *save = NULL, *item;
	int err = 0;

	*n = 0;
	for (item = strtok_r(copy, ",", &save); item && !err;
	     item = strtok_r(NULL, ",", &save)) {
		char *dash = strchr(item, '-'), *colon = strchr(item, ':');
		unsigned long first, last, step = 1;

		if (dash) {
			*dash = '\0';
			if (colon)
				*colon = '\0';
			if (echo_parse_uint(item, min, max, &first) ||
			    echo_parse_uint(dash + 1, first, max, &last) ||
			    (colon &&
			     echo_parse_uint(colon + 1, 1, max, &step))) {
				err = -1;
				break;
			}
		} else if (colon || echo_parse_uint(item, min, max, &first)) {
			err = -1;
			break;
		} else {
			last = first;
		}
		for (unsigned long v = first; v <= last; v += step) {
			if (*n == cap) {
				err = -1;
				break;
			}
			out[(*n)++] = v;
		}
	}
	free(copy);
	return err || !*n ? -1 : 0;
}

static int parse_options(struct options *opt, int argc, char **argv, bool *done)
{
	static const struct option long_options[] = {
		{ "clients", required_argument, NULL, 'c' },
		{ "size", required_argument, NULL, 's' },
		{ "rounds", required_argument, NULL, 'r' },
		{ "split", required_argument, NULL, 'S' },
		{ "csv", required_argument, NULL, 'C' },
		{ "label", required_argument, NULL, 'L' },
		{ "hold", required_argument, NULL, 'H' },
		{ "seconds", required_argument, NULL, 'T' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	unsigned long v;
	char *end, *colon;
	int c;

	*opt = (struct options){
		.host = "127.0.0.1",
		.port = "12345",
		.rounds = 10,
		.split = 1,
		.seconds = 30,
	};
	*done = false;
	parse_list("1,100-1000:100", 1, MAX_CLIENTS, opt->levels, MAX_LEVELS,
		   &opt->nlevels);
	parse_list("16", 1, MAX_SIZE, opt->sizes, MAX_SIZES, &opt->nsizes);
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":c:s:r:hV", long_options, NULL)) !=
	       -1) {
		switch (c) {
		case 'c':
			if (parse_list(optarg, 1, MAX_CLIENTS, opt->levels,
				       MAX_LEVELS, &opt->nlevels))
				return bad("client list", optarg);
			break;
		case 's':
			if (parse_list(optarg, 1, MAX_SIZE, opt->sizes,
				       MAX_SIZES, &opt->nsizes))
				return bad("size list", optarg);
			break;
		case 'r':
			if (echo_parse_uint(optarg, 1, 1000000, &opt->rounds))
				return bad("round count", optarg);
			break;
		case 'S':
			if (echo_parse_uint(optarg, 1, 1024, &opt->split))
				return bad("split count", optarg);
			break;
		case 'C':
			opt->csv = optarg;
			break;
		case 'L':
			opt->label = optarg;
			break;
		case 'H':
			if (echo_parse_uint(optarg, 1, MAX_CLIENTS, &v))
				return bad("connection count", optarg);
			opt->hold = v;
			break;
		case 'T':
			errno = 0;
			opt->seconds = strtod(optarg, &end);
			if (errno || *end || end == optarg ||
			    !(opt->seconds > 0 && opt->seconds <= 86400))
				return bad("seconds", optarg);
			break;
		case 'h':
			usage(stdout);
			*done = true;
			return 0;
		case 'V':
			printf("echo-bench %s\n", ECHO_VERSION);
			*done = true;
			return 0;
		case ':':
			fprintf(stderr,
				"echo-bench: option '%s' needs a value\n",
				argv[optind - 1]);
			return 2;
		default:
			fprintf(stderr,
				"echo-bench: unknown option '%s' (try --help)\n",
				argv[optind - 1]);
			return 2;
		}
	}
	if (optind + 1 < argc) {
		fprintf(stderr,
			"echo-bench: unexpected argument '%s' (try --help)\n",
			argv[optind + 1]);
		return 2;
	}
	if (optind < argc) {
		colon = strrchr(argv[optind], ':');
		if (colon) {
			*colon = '\0';
			opt->host = argv[optind];
			opt->port = colon + 1;
		} else {
			opt->port = argv[optind];
		}
		if (echo_parse_uint(opt->port, 1, 65535, &v))
			return bad("port", opt->port);
	}
	return 0;
}

/* The message of client i in round r: bytes no other client would send. */
static void fill_message(char *buf, size_t size, unsigned int i,
			 unsigned long r)
{
	uint32_t x = (i + 1) * 2654435761u ^ (uint32_t)(r * 40503u + 1);

	for (size_t k = 0; k < size; k++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		buf[k] = (char)x;
	}
}

static int open_nonblocking(const struct addrinfo *ai)
{
	int one = 1;
	struct linger lg = { .l_onoff = 1, .l_linger = 0 };
	int fd = socket(ai->ai_family,
			SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -1;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	/* Close with a reset: thousands of TIME_WAITs would exhaust ports. */
	setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
	if (connect(fd, ai->ai_addr, ai->ai_addrlen) && errno != EINPROGRESS) {
		close(fd);
		return -1;
	}
	return fd;
}

static void fail(struct level *lv, struct client *c, const char *why)
{
	if (lv->failed < 5)
		fprintf(stderr, "echo-bench: client %u, round %lu: %s\n",
			c->index, c->round, why);
	lv->failed++;
	c->state = FAILED;
	close(c->fd);
	c->fd = -1;
}

/* Writes the next piece of the message; the last piece ends at size. */
static void client_send(struct level *lv, struct client *c)
{
	size_t piece = (lv->size + lv->opt->split - 1) / lv->opt->split;

	while (c->sent < lv->size) {
		size_t want = lv->size - c->sent;
		ssize_t n;

		if (want > piece)
			want = piece;
		n = send(c->fd, c->msg + c->sent, want, MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return;
		if (n < 0)
			return fail(lv, c, strerror(errno));
		c->sent += (size_t)n;
	}
}

static void client_start_round(struct level *lv, struct client *c)
{
	c->state = SENDING;
	c->sent = c->received = 0;
	fill_message(c->msg, lv->size, c->index, c->round);
	c->started_us = now_us();
	client_send(lv, c);
}

static void client_receive(struct level *lv, struct client *c)
{
	for (;;) {
		ssize_t n = recv(c->fd, lv->got, lv->size - c->received, 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return;
		if (n < 0)
			return fail(lv, c, strerror(errno));
		if (n == 0)
			return fail(lv, c, "closed before the whole echo");
		if (memcmp(lv->got, c->msg + c->received, (size_t)n))
			return fail(lv, c, "echo differs from what was sent");
		c->received += (size_t)n;
		if (c->received < lv->size)
			continue;
		if (c->sent < lv->size)
			return fail(lv, c, "echo of bytes not sent yet");
		lv->samples[lv->nsamples++] = now_us() - c->started_us;
		if (++c->round == lv->opt->rounds) {
			c->state = DONE;
			close(c->fd);
			c->fd = -1;
			return;
		}
		client_start_round(lv, c);
		if (c->state != SENDING)
			return;
	}
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Counts clients in state s. */
static unsigned long count(const struct level *lv, enum client_state s)
{
	unsigned long n = 0;

	for (unsigned long i = 0; i < lv->nclients; i++)
		n += lv->clients[i].state == s;
	return n;
}

/* Drives every client until all are DONE/FAILED (or READY when connecting). */
static void drive(struct level *lv, enum client_state until, double deadline)
{
	struct epoll_event events[256];

	while (now_us() < deadline) {
		unsigned long busy = 0;
		int n;

		for (unsigned long i = 0; i < lv->nclients; i++) {
			enum client_state s = lv->clients[i].state;

			busy += until == READY ? s == CONNECTING : s == SENDING;
		}
		if (!busy)
			return;
		n = epoll_wait(lv->epfd, events, 256, 100);
		for (int k = 0; k < n; k++) {
			struct client *c = events[k].data.ptr;
			int err = 0;
			socklen_t len = sizeof(err);

			if (c->state == CONNECTING) {
				getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err,
					   &len);
				if (err) {
					fail(lv, c, strerror(err));
					continue;
				}
				c->state = READY;
				continue;
			}
			if (c->state != SENDING)
				continue;
			if (events[k].events & EPOLLOUT)
				client_send(lv, c);
			if (c->state == SENDING &&
			    (events[k].events &
			     (EPOLLIN | EPOLLERR | EPOLLHUP)))
				client_receive(lv, c);
		}
	}
	for (unsigned long i = 0; i < lv->nclients; i++) {
		struct client *c = &lv->clients[i];

		if (c->state == CONNECTING || c->state == SENDING)
			fail(lv, c, "timed out");
	}
}

static int run_level(struct level *lv, FILE *csv, const char *label)
{
	double deadline = now_us() + lv->opt->seconds * 1e6;
	double sum = 0, avg, p99;
	size_t rank;

	lv->clients = calloc(lv->nclients, sizeof(*lv->clients));
	lv->samples =
		calloc(lv->nclients * lv->opt->rounds, sizeof(*lv->samples));
	lv->got = malloc(lv->size);
	lv->epfd = epoll_create1(EPOLL_CLOEXEC);
	lv->nsamples = 0;
	lv->failed = 0;
	if (!lv->clients || !lv->samples || !lv->got || lv->epfd < 0) {
		perror("echo-bench");
		exit(1);
	}
	for (unsigned long i = 0; i < lv->nclients; i++) {
		struct client *c = &lv->clients[i];
		struct epoll_event ev = {
			.events = EPOLLIN | EPOLLOUT | EPOLLET,
			.data.ptr = c,
		};

		c->index = (unsigned int)i;
		c->msg = malloc(lv->size);
		if (!c->msg) {
			perror("echo-bench");
			exit(1);
		}
		c->fd = open_nonblocking(lv->addr);
		if (c->fd < 0 || epoll_ctl(lv->epfd, EPOLL_CTL_ADD, c->fd, &ev))
			fail(lv, c, strerror(errno));
	}
	/* Everyone connected first, so that N clients send at once. */
	drive(lv, READY, deadline);
	for (unsigned long i = 0; i < lv->nclients; i++)
		if (lv->clients[i].state == READY)
			client_start_round(lv, &lv->clients[i]);
	drive(lv, DONE, deadline);

	qsort(lv->samples, lv->nsamples, sizeof(*lv->samples), cmp_double);
	for (size_t i = 0; i < lv->nsamples; i++)
		sum += lv->samples[i];
	avg = lv->nsamples ? sum / (double)lv->nsamples : 0;
	/* Nearest rank. */
	rank = (size_t)ceil(0.99 * (double)lv->nsamples);
	p99 = lv->nsamples ? lv->samples[rank ? rank - 1 : 0] : 0;
	printf("%8lu %8zu %8zu %10.1f %10.1f %7lu\n", lv->nclients, lv->size,
	       lv->nsamples, avg, p99, lv->failed);
	fflush(stdout);
	if (csv)
		fprintf(csv, "%s,%lu,%zu,%zu,%.1f,%.1f\n", label, lv->nclients,
			lv->size, lv->nsamples, avg, p99);
	close(lv->epfd);
	for (unsigned long i = 0; i < lv->nclients; i++)
		free(lv->clients[i].msg);
	free(lv->clients);
	free(lv->samples);
	free(lv->got);
	return lv->failed ? 1 : 0;
}

/* --hold: N idle connections; reports how many the server closed, when. */
static int hold(const struct options *opt, struct addrinfo *addr)
{
	struct level lv = { .opt = opt, .addr = addr, .nclients = opt->hold };
	double start, deadline, last_close = 0;
	unsigned long open_now, closed = 0;
	char byte;

	lv.clients = calloc(lv.nclients, sizeof(*lv.clients));
	lv.epfd = epoll_create1(EPOLL_CLOEXEC);
	if (!lv.clients || lv.epfd < 0) {
		perror("echo-bench");
		return 1;
	}
	for (unsigned long i = 0; i < lv.nclients; i++) {
		struct client *c = &lv.clients[i];
		struct epoll_event ev = { .events = EPOLLIN | EPOLLOUT,
					  .data.ptr = c };

		c->index = (unsigned int)i;
		c->fd = open_nonblocking(addr);
		if (c->fd < 0 || epoll_ctl(lv.epfd, EPOLL_CTL_ADD, c->fd, &ev))
			fail(&lv, c, strerror(errno));
	}
	start = now_us();
	drive(&lv, READY, start + 10e6);
	open_now = count(&lv, READY);
	for (unsigned long i = 0; i < lv.nclients; i++) {
		struct client *c = &lv.clients[i];
		struct epoll_event ev = { .events = EPOLLIN | EPOLLRDHUP,
					  .data.ptr = c };

		/* Connected: only the server's close matters now. */
		if (c->state == READY)
			epoll_ctl(lv.epfd, EPOLL_CTL_MOD, c->fd, &ev);
	}
	printf("holding %lu connections (%lu failed)\n", open_now, lv.failed);
	fflush(stdout);
	deadline = now_us() + opt->seconds * 1e6;
	start = now_us();
	while (closed < open_now && now_us() < deadline) {
		struct epoll_event events[256];
		int n = epoll_wait(lv.epfd, events, 256, 100);

		for (int k = 0; k < n; k++) {
			struct client *c = events[k].data.ptr;

			if (c->state != READY ||
			    !(events[k].events &
			      (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR)))
				continue;
			if (recv(c->fd, &byte, 1, MSG_DONTWAIT) > 0)
				continue; /* nothing was sent: not an echo */
			c->state = DONE;
			epoll_ctl(lv.epfd, EPOLL_CTL_DEL, c->fd, NULL);
			closed++;
			last_close = now_us();
		}
	}
	printf("closed by the server: %lu of %lu, the last after %.0f ms\n",
	       closed, open_now, closed ? (last_close - start) / 1e3 : 0.0);
	for (unsigned long i = 0; i < lv.nclients; i++)
		if (lv.clients[i].fd >= 0)
			close(lv.clients[i].fd);
	free(lv.clients);
	return closed == open_now && !lv.failed ? 0 : 1;
}

static void raise_fd_limit(void)
{
	struct rlimit rl;

	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

int main(int argc, char **argv)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_NUMERICSERV };
	struct addrinfo *addr;
	struct options opt;
	FILE *csv = NULL;
	char label[256];
	bool done;
	int status = parse_options(&opt, argc, argv, &done);
	int err;

	if (status || done)
		return status;
	err = getaddrinfo(opt.host, opt.port, &hints, &addr);
	if (err) {
		fprintf(stderr, "echo-bench: cannot resolve '%s': %s\n",
			opt.host, gai_strerror(err));
		return 2;
	}
	raise_fd_limit();
	if (opt.hold)
		return hold(&opt, addr);
	if (opt.label)
		snprintf(label, sizeof(label), "%s", opt.label);
	else
		snprintf(label, sizeof(label), "%s:%s", opt.host, opt.port);
	if (opt.csv) {
		csv = fopen(opt.csv, "a");
		if (!csv) {
			fprintf(stderr, "echo-bench: cannot open %s: %s\n",
				opt.csv, strerror(errno));
			return 2;
		}
	}
	printf("%8s %8s %8s %10s %10s %7s\n", "clients", "size", "samples",
	       "avg_us", "p99_us", "failed");
	for (size_t s = 0; s < opt.nsizes; s++) {
		for (size_t l = 0; l < opt.nlevels; l++) {
			struct level lv = {
				.opt = &opt,
				.addr = addr,
				.size = opt.sizes[s],
				.nclients = opt.levels[l],
			};

			status |= run_level(&lv, csv, label);
		}
	}
	if (csv)
		fclose(csv);
	freeaddrinfo(addr);
	return status;
}
