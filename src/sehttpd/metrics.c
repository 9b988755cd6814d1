// SPDX-License-Identifier: MIT
/*
 * --metrics: the workers' counters, summed, in the Prometheus text format,
 * served from a thread and a listener of their own so that scraping never
 * touches the event loops.  A scraper is one client at a time; each
 * connection gets one answer and a bounded time to send its request.
 */
#include "metrics.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "http/format.h"
#include "http/parser.h"
#include "http/response.h"
#include "listener.h"
#include "server.h"
#include "version.h"

/* Room for any head the parser accepts: its own limits answer 414 or 431. */
#define METRICS_REQUEST_MAX HTTP_MAX_HEAD
#define METRICS_BODY_MAX 8192
#define METRICS_IO_TIMEOUT_S 2
#define METRICS_TYPE "text/plain; version=0.0.4; charset=utf-8"
#define ERROR_TYPE "text/html; charset=utf-8"

struct metrics_server {
	const struct server *server;
	int listen_fd;
	int stop_fd;
	pthread_t thread;
	bool running;
	char request[METRICS_REQUEST_MAX];
	char body[METRICS_BODY_MAX];
};

void stats_count_response(struct worker_stats *st, int status,
			  uint64_t body_bytes)
{
	if (status >= 100 && status <= 599)
		stats_add(&st->responses[status / 100 - 1], 1);
	stats_add(&st->body_bytes, body_bytes);
}

static uint64_t load(const uint64_t *v)
{
	return __atomic_load_n(v, __ATOMIC_RELAXED);
}

/* The sum of one field over every worker. */
#define SUM(s, field)                                                \
	({                                                           \
		uint64_t sum_ = 0;                                   \
		for (unsigned i_ = 0; i_ < (s)->nworkers; i_++)      \
			sum_ += load(&(s)->workers[i_].stats.field); \
		sum_;                                                \
	})

struct metric {
	const char *name;
	const char *type;
	const char *help;
};

static size_t head(char *buf, size_t len, size_t off, const struct metric *m)
{
	int n;

	if (off >= len)
		return len;
	n = snprintf(buf + off, len - off,
		     "# HELP sehttpd_%s %s\n# TYPE sehttpd_%s %s\n", m->name,
		     m->help, m->name, m->type);
	return n < 0 ? len : off + (size_t)n;
}

static size_t value(char *buf, size_t len, size_t off, const char *name,
		    const char *labels, uint64_t v)
{
	int n;

	if (off >= len)
		return len;
	n = snprintf(buf + off, len - off, "sehttpd_%s%s %llu\n", name, labels,
		     (unsigned long long)v);
	return n < 0 ? len : off + (size_t)n;
}

size_t metrics_format(const struct server *s, char *buf, size_t len)
{
	static const struct metric responses = {
		"responses_total", "counter",
		"Responses sent (also those cut short), by status class."
	};
	static const struct metric simple[] = {
		{ "response_body_bytes_total", "counter",
		  "Bytes of response bodies written." },
		{ "connections_accepted_total", "counter",
		  "Connections accepted." },
		{ "connections_open", "gauge", "Connections open." },
		{ "connections_idle", "gauge",
		  "Open connections with no request in progress." },
		{ "cache_entries", "gauge",
		  "Files and listings in the content cache." },
		{ "cache_bytes", "gauge",
		  "Memory held by the content cache, in bytes." },
		{ "cache_hits_total", "counter",
		  "Requests answered from a fresh cache entry." },
		{ "cache_misses_total", "counter",
		  "Cache lookups that found nothing, or a stale entry." },
		{ "cache_compressed_hits_total", "counter",
		  "Cache hits answered with a compressed variant." },
		{ "access_log_dropped_lines_total", "counter",
		  "Access-log lines that could not be written." },
		{ "proxy_headers_refused_total", "counter",
		  "Connections closed for a malformed, oversized or "
		  "incomplete PROXY header." },
	};
	uint64_t values[] = {
		SUM(s, body_bytes),
		SUM(s, accepted),
		SUM(s, open_conns),
		SUM(s, idle_conns),
		SUM(s, cache_entries),
		SUM(s, cache_bytes),
		SUM(s, cache_hits),
		SUM(s, cache_misses),
		SUM(s, cache_compressed_hits),
		SUM(s, log_dropped),
		SUM(s, proxy_refused),
	};
	size_t off = head(buf, len, 0, &responses);

	for (int c = 0; c < 5; c++) {
		char label[24];

		snprintf(label, sizeof(label), "{class=\"%dxx\"}", c + 1);
		off = value(buf, len, off, responses.name, label,
			    SUM(s, responses[c]));
	}
	for (size_t i = 0; i < sizeof(simple) / sizeof(simple[0]); i++) {
		off = head(buf, len, off, &simple[i]);
		off = value(buf, len, off, simple[i].name, "", values[i]);
	}
	return off < len ? off : 0;
}

static void send_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = send(fd, p, n, MSG_NOSIGNAL);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;
		p += w;
		n -= (size_t)w;
	}
}

/* One answer and the end of the connection; the head is the core's. */
static void answer(int fd, int status, const char *content_type,
		   const char *body, size_t body_len, bool head_only)
{
	char hdr[512], date[HTTP_DATE_LEN];
	struct http_response_head h = {
		.status = status,
		.version_minor = 1,
		.allow_get_head = status == 405,
		.server = SEHTTPD_SERVER_TOKEN,
		.date = date,
		.content_type = content_type,
		.content_length = (int64_t)body_len,
		.last_modified = HTTP_NO_TIME,
	};
	size_t n;

	http_format_date(date, (int64_t)time(NULL));
	n = http_response_head_build(hdr, sizeof(hdr), &h);
	send_all(fd, hdr, n);
	if (!head_only)
		send_all(fd, body, body_len);
}

static void serve_one(struct metrics_server *m, int fd)
{
	struct timeval tv = { .tv_sec = METRICS_IO_TIMEOUT_S };
	struct http_parser parser;
	struct http_request req;
	size_t len = 0;
	int ret = HTTP_PARSE_AGAIN;

	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	http_parser_init(&parser);
	while (ret == HTTP_PARSE_AGAIN && len < sizeof(m->request)) {
		ssize_t n =
			recv(fd, m->request + len, sizeof(m->request) - len, 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return; /* gone, or too slow: no answer */
		len += (size_t)n;
		ret = http_parse_request(&parser, &req, m->request, len);
	}
	if (ret == HTTP_PARSE_AGAIN)
		ret = -431;
	if (ret >= 0 && req.method != HTTP_GET && req.method != HTTP_HEAD)
		ret = -405;
	else if (ret >= 0 && (req.path.len != 8 ||
			      memcmp(m->request + req.path.off, "/metrics", 8)))
		ret = -404;
	if (ret < 0) {
		/* The server's own error pages, as for any other request. */
		const char *page = http_error_body(-ret, &len);

		answer(fd, -ret, ERROR_TYPE, page, len,
		       ret == -404 && req.method == HTTP_HEAD);
		return;
	}
	len = metrics_format(m->server, m->body, sizeof(m->body));
	answer(fd, 200, METRICS_TYPE, m->body, len, req.method == HTTP_HEAD);
}

static void *metrics_run(void *arg)
{
	struct metrics_server *m = arg;
	struct pollfd p[2] = {
		{ .fd = m->listen_fd, .events = POLLIN },
		{ .fd = m->stop_fd, .events = POLLIN },
	};

	for (;;) {
		int fd;

		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (p[1].revents)
			break;
		fd = accept4(m->listen_fd, NULL, NULL, SOCK_CLOEXEC);
		if (fd < 0)
			continue;
		serve_one(m, fd);
		close(fd);
	}
	return NULL;
}

/* "HOST:PORT", "[V6]:PORT" or ":PORT" (all addresses) into a. */
static int parse_addr(const char *s, struct listen_addr *a, char *err,
		      size_t errlen)
{
	const char *colon = strrchr(s, ':');
	char host[256];
	char *end;
	unsigned long port;

	if (!colon || colon[1] < '0' || colon[1] > '9' ||
	    (size_t)(colon - s) >= sizeof(host)) {
		snprintf(err, errlen,
			 "invalid --metrics '%s': expected HOST:PORT", s);
		return -1;
	}
	errno = 0;
	port = strtoul(colon + 1, &end, 10);
	if (errno || *end || port > 65535) {
		snprintf(err, errlen, "invalid --metrics port in '%s'", s);
		return -1;
	}
	memcpy(host, s, (size_t)(colon - s));
	host[colon - s] = '\0';
	return listen_addr_resolve(a, host[0] ? host : "0.0.0.0",
				   (uint16_t)port, err, errlen);
}

struct metrics_server *metrics_open(const struct server *s, const char *addr,
				    char *where, size_t where_len, char *err,
				    size_t errlen)
{
	struct metrics_server *m = calloc(1, sizeof(*m));
	struct listen_addr a;
	int fd;

	if (!m) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	m->server = s;
	m->stop_fd = -1;
	if (parse_addr(addr, &a, err, errlen) ||
	    listeners_open(&a, 1, &fd, err, errlen))
		goto fail;
	m->listen_fd = fd;
	listen_addr_format(&a, where, where_len);
	/* The thread starts in metrics_start(), once privileges are dropped. */
	m->stop_fd = eventfd(0, EFD_CLOEXEC);
	if (m->stop_fd < 0) {
		snprintf(err, errlen, "cannot start the metrics thread");
		close(m->listen_fd);
		goto fail;
	}
	return m;
fail:
	if (m->stop_fd >= 0)
		close(m->stop_fd);
	free(m);
	return NULL;
}

int metrics_start(struct metrics_server *m)
{
	if (pthread_create(&m->thread, NULL, metrics_run, m))
		return -1;
	m->running = true;
	return 0;
}

void metrics_stop(struct metrics_server *m)
{
	uint64_t one = 1;

	if (!m)
		return;
	if (m->running && write(m->stop_fd, &one, sizeof(one)) == sizeof(one))
		pthread_join(m->thread, NULL);
	close(m->stop_fd);
	close(m->listen_fd);
	free(m);
}
