// SPDX-License-Identifier: MIT
/*
 * --metrics: the workers' counters, summed, in the Prometheus text format,
 * served from a thread and a listener of their own so that scraping never
 * touches the event loops.  That thread serves its clients together (a
 * few at once, the oldest making room for a newcomer); each connection gets
 * one answer and --timeout, as on the main port, for its whole head.
 */
#include "metrics.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "clock_ms.h"
#include "http/format.h"
#include "http/parser.h"
#include "http/response.h"
#include "listener.h"
#include "server.h"
#include "version.h"

/* Room for any head the parser accepts: its own limits answer 414 or 431. */
#define METRICS_REQUEST_MAX HTTP_MAX_HEAD
#define METRICS_BODY_MAX 16384
/* A room for the answer's head beside the body. */
#define METRICS_BUF                                      \
	(METRICS_REQUEST_MAX > METRICS_BODY_MAX + 1024 ? \
		 METRICS_REQUEST_MAX :                   \
		 METRICS_BODY_MAX + 1024)
/* Scrapers at once; beyond, the oldest connection makes room. */
#define METRICS_CONNS 8
/* After the answer, how long unread bytes are waited for. */
#define METRICS_LINGER_MS 1000
#define METRICS_TYPE "text/plain; version=0.0.4; charset=utf-8"
#define ERROR_TYPE "text/html; charset=utf-8"

struct scrape;

struct metrics_server {
	const struct server *server;
	int listen_fd;
	int stop_fd;
	pthread_t thread;
	bool running;
	struct scrape *conns; /* METRICS_CONNS of them */
	char body[METRICS_BODY_MAX];
};

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

/* Appends what fmt says; off becomes len once buf is full. */
static size_t appendf(char *buf, size_t len, size_t off, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static size_t appendf(char *buf, size_t len, size_t off, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (off >= len)
		return len;
	va_start(ap, fmt);
	n = vsnprintf(buf + off, len - off, fmt, ap);
	va_end(ap);
	return n < 0 ? len : off + (size_t)n;
}

/* Requests by method and status class. */
static size_t format_requests(const struct server *s, char *buf, size_t len,
			      size_t off)
{
	static const struct metric requests = {
		"requests_total", "counter",
		"Requests answered (also those cut short), by method and "
		"status class."
	};
	static const char *const methods[STATS_METHODS] = {
		[STATS_GET] = "GET",
		[STATS_HEAD] = "HEAD",
		[STATS_OPTIONS] = "OPTIONS",
		[STATS_OTHER] = "other",
	};

	off = head(buf, len, off, &requests);
	for (int m = 0; m < STATS_METHODS; m++) {
		for (int c = 0; c < 5; c++)
			off = appendf(buf, len, off,
				      "sehttpd_requests_total{method=\"%s\","
				      "class=\"%dxx\"} %llu\n",
				      methods[m], c + 1,
				      (unsigned long long)SUM(s,
							      requests[m][c]));
	}
	return off;
}

/* The bound of a bucket in seconds, as Prometheus writes them: 0.00025. */
static void format_bound(char *out, size_t len, uint64_t us)
{
	int n = snprintf(out, len, "%llu.%06llu",
			 (unsigned long long)(us / 1000000),
			 (unsigned long long)(us % 1000000));

	while (n > 1 && out[n - 1] == '0')
		out[--n] = '\0';
	if (n > 0 && out[n - 1] == '.')
		out[--n] = '\0';
}

/* How long requests took: a histogram, its buckets cumulative. */
static size_t format_durations(const struct server *s, char *buf, size_t len,
			       size_t off)
{
	static const struct metric durations = {
		"request_duration_seconds", "histogram",
		"Time from a complete request head to the last byte of its "
		"response handed to the socket."
	};
	uint64_t count = 0, sum_us = SUM(s, duration_us_sum);
	char le[32];

	off = head(buf, len, off, &durations);
	for (unsigned i = 0; i <= STATS_DURATION_BUCKETS; i++) {
		count += SUM(s, durations[i]);
		if (i < STATS_DURATION_BUCKETS)
			format_bound(le, sizeof(le),
				     stats_duration_bounds_us[i]);
		else
			snprintf(le, sizeof(le), "+Inf");
		off = appendf(buf, len, off,
			      "sehttpd_request_duration_seconds_bucket"
			      "{le=\"%s\"} %llu\n",
			      le, (unsigned long long)count);
	}
	return appendf(buf, len, off,
		       "sehttpd_request_duration_seconds_sum %llu.%06llu\n"
		       "sehttpd_request_duration_seconds_count %llu\n",
		       (unsigned long long)(sum_us / 1000000),
		       (unsigned long long)(sum_us % 1000000),
		       (unsigned long long)count);
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
		{ "connections_refused_total", "counter",
		  "Connections closed at once: --max-connections were open." },
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
		{ "listing_builds_total", "counter",
		  "Directory listings built; simultaneous requests share one." },
		{ "tls_handshakes_total", "counter",
		  "TLS handshakes completed." },
		{ "tls_handshake_failures_total", "counter",
		  "TLS handshakes that failed: junk, refused versions, resets." },
		{ "tls_resumed_total", "counter",
		  "TLS handshakes that resumed a session (ticket or cache)." },
		{ "tls_ktls_total", "counter",
		  "TLS connections whose records the kernel makes (kTLS); "
		  "the others encrypt in user space." },
		{ "http2_connections_total", "counter",
		  "Connections that spoke HTTP/2 (ALPN h2, or prior knowledge)." },
		{ "http2_requests_total", "counter",
		  "Requests answered over HTTP/2." },
		{ "http2_streams_reset_total", "counter",
		  "HTTP/2 streams the server reset: stalled windows, errors." },
	};
	uint64_t classes[5];

	/* Responses before the bytes: a scrape that counts a response
	 * counts its body too (stats_count_response() writes them the other
	 * way round). */
	for (int c = 0; c < 5; c++)
		classes[c] = SUM(s, responses[c]);
	__atomic_thread_fence(__ATOMIC_ACQUIRE);

	uint64_t values[] = {
		SUM(s, body_bytes),
		SUM(s, accepted),
		SUM(s, refused),
		SUM(s, open_conns),
		SUM(s, idle_conns),
		SUM(s, cache_entries),
		SUM(s, cache_bytes),
		SUM(s, cache_hits),
		SUM(s, cache_misses),
		SUM(s, cache_compressed_hits),
		SUM(s, log_dropped),
		SUM(s, proxy_refused),
		SUM(s, listing_builds),
		SUM(s, tls_handshakes),
		SUM(s, tls_handshake_failures),
		SUM(s, tls_resumed),
		SUM(s, tls_ktls),
		SUM(s, http2_conns),
		SUM(s, http2_requests),
		SUM(s, http2_resets),
	};
	_Static_assert(sizeof(values) / sizeof(values[0]) ==
			       sizeof(simple) / sizeof(simple[0]),
		       "a value for every metric");
	size_t off = head(buf, len, 0, &responses);

	for (int c = 0; c < 5; c++) {
		char label[24];

		snprintf(label, sizeof(label), "{class=\"%dxx\"}", c + 1);
		off = value(buf, len, off, responses.name, label, classes[c]);
	}
	off = format_requests(s, buf, len, off);
	off = format_durations(s, buf, len, off);
	for (size_t i = 0; i < sizeof(simple) / sizeof(simple[0]); i++) {
		off = head(buf, len, off, &simple[i]);
		off = value(buf, len, off, simple[i].name, "", values[i]);
	}
	return off < len ? off : 0;
}

/* One connection: its head, then its answer, then the wait for its end. */
enum scrape_state {
	SCRAPE_FREE,
	SCRAPE_READ,
	SCRAPE_WRITE,
	SCRAPE_LINGER,
};

struct scrape {
	int fd;
	enum scrape_state state;
	uint64_t deadline_ms;
	uint64_t accepted_ms; /* the oldest is evicted when all are taken */
	size_t len; /* request bytes read, then answer bytes */
	size_t sent;
	struct http_parser parser;
	struct http_request req; /* filled in as the head arrives */
	char buf[METRICS_BUF];
};

static void scrape_close(struct scrape *c)
{
	close(c->fd);
	c->fd = -1;
	c->state = SCRAPE_FREE;
}

/* The answer, head (the core's) and body, into c->buf. */
static void scrape_answer(struct metrics_server *m, struct scrape *c,
			  int status, bool head_only)
{
	char date[HTTP_DATE_LEN];
	const char *body = m->body;
	size_t body_len, n;
	struct http_response_head h = {
		.status = status,
		.version_minor = 1,
		.allow_get_head = status == 405,
		.server = SEHTTPD_SERVER_TOKEN,
		.date = date,
		.content_type = status == 200 ? METRICS_TYPE : ERROR_TYPE,
		.last_modified = HTTP_NO_TIME,
	};

	if (status == 200)
		body_len = metrics_format(m->server, m->body, sizeof(m->body));
	else /* the server's own error pages, as for any other request */
		body = http_error_body(status, &body_len);
	h.content_length = (int64_t)body_len;
	http_format_date(date, (int64_t)time(NULL));
	n = http_response_head_build(c->buf, sizeof(c->buf), &h);
	if (!head_only && n + body_len <= sizeof(c->buf)) {
		memcpy(c->buf + n, body, body_len);
		n += body_len;
	}
	c->len = n;
	c->sent = 0;
	c->state = SCRAPE_WRITE;
}

/* The status that answers the head in c->buf[0..len), or 0: not yet. */
static int scrape_parse(struct scrape *c, bool *head_only)
{
	const struct http_request *req = &c->req;
	int ret = http_parse_request(&c->parser, &c->req, c->buf, c->len);

	if (ret == HTTP_PARSE_AGAIN && c->len < METRICS_REQUEST_MAX)
		return 0;
	/* A refused HEAD too is answered without a body. */
	*head_only = http_method_name_is_head(c->buf, req);
	if (ret == HTTP_PARSE_AGAIN)
		return 431;
	if (ret < 0)
		return -ret;
	if (req->method != HTTP_GET && req->method != HTTP_HEAD)
		return 405;
	if (req->path.len != 8 || memcmp(c->buf + req->path.off, "/metrics", 8))
		return 404;
	return 200;
}

/* Moves c on as far as its socket allows; closes it when it is done. */
static void scrape_step(struct metrics_server *m, struct scrape *c,
			uint64_t now)
{
	if (c->state == SCRAPE_READ) {
		bool head_only = false;
		int status = 0;
		ssize_t n;

		while (!status) {
			n = recv(c->fd, c->buf + c->len,
				 METRICS_REQUEST_MAX - c->len, 0);
			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0 && errno == EAGAIN)
				return;
			if (n <= 0) {
				scrape_close(c); /* gone: no answer */
				return;
			}
			c->len += (size_t)n;
			status = scrape_parse(c, &head_only);
		}
		scrape_answer(m, c, status, head_only);
		c->deadline_ms = now + m->server->timeout_ms;
	}
	if (c->state == SCRAPE_WRITE) {
		while (c->sent < c->len) {
			ssize_t n = send(c->fd, c->buf + c->sent,
					 c->len - c->sent, MSG_NOSIGNAL);

			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0 && errno == EAGAIN)
				return;
			if (n <= 0) {
				scrape_close(c);
				return;
			}
			c->sent += (size_t)n;
		}
		/* Unread bytes (a body, a cut head) would turn the close into
		 * a reset that may destroy the answer: read them first. */
		shutdown(c->fd, SHUT_WR);
		c->state = SCRAPE_LINGER;
		c->deadline_ms = now + METRICS_LINGER_MS;
	}
	for (;;) {
		ssize_t n = recv(c->fd, c->buf, sizeof(c->buf), 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return;
		if (n <= 0) {
			scrape_close(c);
			return;
		}
	}
}

/* A free slot, or the oldest connection's, closed for the newcomer. */
static struct scrape *scrape_slot(struct metrics_server *m)
{
	struct scrape *oldest = &m->conns[0];

	for (unsigned i = 0; i < METRICS_CONNS; i++) {
		if (m->conns[i].state == SCRAPE_FREE)
			return &m->conns[i];
		if (m->conns[i].accepted_ms < oldest->accepted_ms)
			oldest = &m->conns[i];
	}
	scrape_close(oldest);
	return oldest;
}

static void scrape_accept(struct metrics_server *m, uint64_t now)
{
	for (unsigned i = 0; i < METRICS_CONNS; i++) {
		int fd = accept4(m->listen_fd, NULL, NULL,
				 SOCK_NONBLOCK | SOCK_CLOEXEC);
		struct scrape *c;

		if (fd < 0)
			return;
		c = scrape_slot(m);
		c->fd = fd;
		c->state = SCRAPE_READ;
		c->accepted_ms = now;
		/* The main port's request-head deadline, for the whole head. */
		c->deadline_ms = now + m->server->timeout_ms;
		c->len = 0;
		http_parser_init(&c->parser);
	}
}

/*
 * Every connection at once, in one poll loop: a client that dawdles
 * delays no other, and is closed at its deadline.  The stop event ends the
 * loop at once and cuts off what is left (the workers have drained).
 */
static void *metrics_run(void *arg)
{
	struct metrics_server *m = arg;
	struct pollfd p[2 + METRICS_CONNS];
	struct scrape *polled[METRICS_CONNS];

	p[0] = (struct pollfd){ .fd = m->listen_fd, .events = POLLIN };
	p[1] = (struct pollfd){ .fd = m->stop_fd, .events = POLLIN };
	for (;;) {
		uint64_t now = clock_ms(), wait = UINT64_MAX;
		nfds_t n = 0;

		for (unsigned i = 0; i < METRICS_CONNS; i++) {
			struct scrape *c = &m->conns[i];

			if (c->state == SCRAPE_FREE)
				continue;
			if (c->deadline_ms <= now) {
				scrape_close(c); /* too slow */
				continue;
			}
			if (c->deadline_ms - now < wait)
				wait = c->deadline_ms - now;
			p[2 + n] = (struct pollfd){
				.fd = c->fd,
				.events = c->state == SCRAPE_WRITE ? POLLOUT :
								     POLLIN,
			};
			polled[n++] = c;
		}
		/* The coarse clock may lag by a tick: poll a little longer. */
		if (poll(p, 2 + n, wait == UINT64_MAX ? -1 : (int)wait + 10) <
		    0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (p[1].revents)
			break;
		now = clock_ms();
		for (nfds_t i = 0; i < n; i++)
			if (p[2 + i].revents && polled[i]->state != SCRAPE_FREE)
				scrape_step(m, polled[i], now);
		if (p[0].revents)
			scrape_accept(m, now);
	}
	for (unsigned i = 0; i < METRICS_CONNS; i++)
		if (m->conns[i].state != SCRAPE_FREE)
			scrape_close(&m->conns[i]);
	return NULL;
}

int metrics_addr_parse(const char *s, struct listen_addr *a, char *err,
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

struct metrics_server *metrics_open(const struct server *s,
				    struct listen_addr *a, char *where,
				    size_t where_len, char *err, size_t errlen)
{
	struct metrics_server *m = calloc(1, sizeof(*m));
	int fd;

	if (!m) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	m->server = s;
	m->stop_fd = -1;
	if (listeners_open(a, 1, &fd, err, errlen))
		goto fail;
	m->listen_fd = fd;
	listen_addr_format(a, where, where_len);
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
	m->conns = calloc(METRICS_CONNS, sizeof(*m->conns));
	if (!m->conns || pthread_create(&m->thread, NULL, metrics_run, m))
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
	free(m->conns);
	free(m);
}
