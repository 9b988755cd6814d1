// SPDX-License-Identifier: MIT
/*
 * The HTTP/2 rows' floor: a cleartext HTTP/2 server (prior knowledge) on
 * libnghttp2 that answers every stream with one fixed response, so its CPU
 * time per request is the kernel's TCP work plus nghttp2's framing, HPACK
 * and stream bookkeeping, and nothing else.  What sehttpd pays above it is
 * its own; what h2o pays below it, no server on libnghttp2 can reach.
 *
 * Usage: bench-floor-h2 PORT [BODY_BYTES]   (127.0.0.1, one thread)
 *
 * The session is set up as sehttpd's (src/sehttpd/h2.c): the same
 * SETTINGS, the same reset-rate limit and HPACK table size, the same
 * response fields, names and values not copied by nghttp2.
 */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <nghttp2/nghttp2.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAX_EVENTS 256
#define READ_BUF 16384
#define MAX_BODY (1 << 20)

struct floor_h2_conn {
	int fd;
	nghttp2_session *session;
	char *out; /* frames not yet written */
	size_t out_len, out_start, out_cap;
	int want_out; /* EPOLLOUT is armed */
};

static char *body;
static size_t body_len;
static char body_len_text[24];
static char date_text[40];
static int epoll_fd;

static void die(const char *what)
{
	perror(what);
	exit(1);
}

/* The Date field, formatted again only when the second changes. */
static void date_update(void)
{
	static time_t last;
	time_t now = time(NULL);
	struct tm tm;

	if (now == last)
		return;
	last = now;
	gmtime_r(&now, &tm);
	strftime(date_text, sizeof(date_text), "%a, %d %b %Y %H:%M:%S GMT",
		 &tm);
}

static ssize_t read_body(nghttp2_session *session, int32_t stream_id,
			 uint8_t *buf, size_t length, uint32_t *data_flags,
			 nghttp2_data_source *source, void *user_data)
{
	size_t *sent = source->ptr;
	size_t n = body_len - *sent;

	(void)session;
	(void)stream_id;
	(void)user_data;
	if (n > length)
		n = length;
	memcpy(buf, body + *sent, n);
	*sent += n;
	if (*sent == body_len)
		*data_flags |= NGHTTP2_DATA_FLAG_EOF;
	return (ssize_t)n;
}

/* A stream's progress through the body is freed with the stream. */
static int on_stream_close(nghttp2_session *session, int32_t stream_id,
			   uint32_t error_code, void *user_data)
{
	(void)error_code;
	(void)user_data;
	free(nghttp2_session_get_stream_user_data(session, stream_id));
	return 0;
}

#define NV(n, v)                                                  \
	{                                                         \
		(uint8_t *)(n), (uint8_t *)(v), sizeof(n) - 1, 0, \
			NGHTTP2_NV_FLAG_NO_COPY_NAME |            \
				NGHTTP2_NV_FLAG_NO_COPY_VALUE     \
	}

static int answer(nghttp2_session *session, int32_t stream_id)
{
	nghttp2_nv nv[] = {
		NV(":status", "200"),
		NV("server", "floor"),
		NV("date", date_text),
		NV("content-type", "text/plain; charset=utf-8"),
		NV("content-length", body_len_text),
		NV("etag", "\"a8421b-c-18ebfdf359889141\""),
		NV("last-modified", "Fri, 27 Nov 2026 19:34:58 GMT"),
		NV("accept-ranges", "bytes"),
		NV("vary", "Accept-Encoding"),
	};
	nghttp2_data_provider data = { .read_callback = read_body };
	size_t i, *sent = calloc(1, sizeof(*sent));

	if (!sent)
		return NGHTTP2_ERR_CALLBACK_FAILURE;
	for (i = 0; i < sizeof(nv) / sizeof(nv[0]); i++)
		nv[i].valuelen = strlen((const char *)nv[i].value);
	data.source.ptr = sent;
	if (nghttp2_session_set_stream_user_data(session, stream_id, sent) ||
	    nghttp2_submit_response(session, stream_id, nv,
				    sizeof(nv) / sizeof(nv[0]), &data)) {
		free(sent);
		return NGHTTP2_ERR_CALLBACK_FAILURE;
	}
	return 0;
}

static int on_frame_recv(nghttp2_session *session, const nghttp2_frame *frame,
			 void *user_data)
{
	(void)user_data;
	if ((frame->hd.type == NGHTTP2_HEADERS ||
	     frame->hd.type == NGHTTP2_DATA) &&
	    (frame->hd.flags & NGHTTP2_FLAG_END_STREAM))
		return answer(session, frame->hd.stream_id);
	return 0;
}

static ssize_t on_send(nghttp2_session *session, const uint8_t *data,
		       size_t length, int flags, void *user_data)
{
	struct floor_h2_conn *c = user_data;

	(void)session;
	(void)flags;
	if (c->out_len + length > c->out_cap) {
		size_t cap = c->out_cap ? c->out_cap : 16384;
		char *p;

		while (cap < c->out_len + length)
			cap *= 2;
		p = realloc(c->out, cap);
		if (!p)
			return NGHTTP2_ERR_CALLBACK_FAILURE;
		c->out = p;
		c->out_cap = cap;
	}
	memcpy(c->out + c->out_len, data, length);
	c->out_len += length;
	return (ssize_t)length;
}

static nghttp2_session *session_new(struct floor_h2_conn *c)
{
	nghttp2_settings_entry settings[] = {
		{ NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, 100 },
		{ NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE, 16384 },
	};
	nghttp2_session_callbacks *cb;
	nghttp2_session *session = NULL;
	nghttp2_option *opt;

	if (nghttp2_session_callbacks_new(&cb))
		return NULL;
	if (nghttp2_option_new(&opt)) {
		nghttp2_session_callbacks_del(cb);
		return NULL;
	}
	nghttp2_session_callbacks_set_on_frame_recv_callback(cb, on_frame_recv);
	nghttp2_session_callbacks_set_on_stream_close_callback(cb,
							       on_stream_close);
	nghttp2_session_callbacks_set_send_callback(cb, on_send);
	nghttp2_option_set_stream_reset_rate_limit(opt, 1000, 33);
	nghttp2_option_set_max_deflate_dynamic_table_size(opt, 4096);
	if (nghttp2_session_server_new2(&session, cb, c, opt) == 0 &&
	    nghttp2_submit_settings(session, NGHTTP2_FLAG_NONE, settings,
				    sizeof(settings) / sizeof(settings[0]))) {
		nghttp2_session_del(session);
		session = NULL;
	}
	nghttp2_option_del(opt);
	nghttp2_session_callbacks_del(cb);
	return session;
}

static void conn_close(struct floor_h2_conn *c)
{
	close(c->fd);
	nghttp2_session_del(c->session);
	free(c->out);
	free(c);
}

/* Writes what is queued; arms EPOLLOUT for the rest.  -1: close. */
static int flush(struct floor_h2_conn *c)
{
	struct epoll_event ev = { .data.ptr = c };

	while (c->out_start < c->out_len) {
		ssize_t n = write(c->fd, c->out + c->out_start,
				  c->out_len - c->out_start);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN)
				return -1;
			break;
		}
		c->out_start += (size_t)n;
	}
	if (c->out_start == c->out_len)
		c->out_start = c->out_len = 0;
	if ((c->out_len != 0) != c->want_out) {
		c->want_out = c->out_len != 0;
		ev.events = EPOLLIN | (c->want_out ? EPOLLOUT : 0);
		if (epoll_ctl(epoll_fd, EPOLL_CTL_MOD, c->fd, &ev))
			return -1;
	}
	return 0;
}

/* Reads all there is, answers it.  -1: close. */
static int serve(struct floor_h2_conn *c)
{
	char buf[READ_BUF];

	for (;;) {
		ssize_t n = read(c->fd, buf, sizeof(buf));

		if (n == 0)
			return -1;
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN)
				return -1;
			break;
		}
		if (nghttp2_session_mem_recv(c->session, (uint8_t *)buf,
					     (size_t)n) < 0)
			return -1;
	}
	date_update();
	if (nghttp2_session_send(c->session))
		return -1;
	if (flush(c))
		return -1;
	if (!nghttp2_session_want_read(c->session) &&
	    !nghttp2_session_want_write(c->session) && !c->out_len)
		return -1;
	return 0;
}

static void accept_all(int lfd)
{
	for (;;) {
		int fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		struct epoll_event ev = { .events = EPOLLIN };
		struct floor_h2_conn *c;
		int one = 1;

		if (fd < 0)
			return;
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		c = calloc(1, sizeof(*c));
		if (!c) {
			close(fd);
			continue;
		}
		c->fd = fd;
		c->session = session_new(c);
		ev.data.ptr = c;
		if (!c->session ||
		    epoll_ctl(epoll_fd, EPOLL_CTL_ADD, fd, &ev)) {
			if (c->session)
				nghttp2_session_del(c->session);
			free(c);
			close(fd);
		}
	}
}

int main(int argc, char **argv)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	struct epoll_event events[MAX_EVENTS], ev = { .events = EPOLLIN };
	int lfd, one = 1;
	long port, size = 12;
	char *end;

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: %s PORT [BODY_BYTES]\n", argv[0]);
		return 2;
	}
	port = strtol(argv[1], &end, 10);
	if (*end || port < 0 || port > 65535) {
		fprintf(stderr, "bench-floor-h2: bad port '%s'\n", argv[1]);
		return 2;
	}
	if (argc == 3) {
		size = strtol(argv[2], &end, 10);
		if (*end || size < 0 || size > MAX_BODY) {
			fprintf(stderr, "bench-floor-h2: bad body size '%s'\n",
				argv[2]);
			return 2;
		}
	}
	body_len = (size_t)size;
	body = malloc(body_len + 1);
	if (!body)
		die("malloc");
	memset(body, 'x', body_len);
	snprintf(body_len_text, sizeof(body_len_text), "%zu", body_len);
	date_update();
	signal(SIGPIPE, SIG_IGN);

	lfd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (lfd < 0)
		die("socket");
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	sa.sin_port = htons((uint16_t)port);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(lfd, (struct sockaddr *)&sa, sizeof(sa)) || listen(lfd, 4096))
		die("bind/listen");
	epoll_fd = epoll_create1(EPOLL_CLOEXEC);
	if (epoll_fd < 0)
		die("epoll_create1");
	ev.data.ptr = NULL; /* the listener */
	if (epoll_ctl(epoll_fd, EPOLL_CTL_ADD, lfd, &ev))
		die("epoll_ctl");
	printf("bench-floor-h2 listening on 127.0.0.1:%ld\n", port);
	fflush(stdout);
	for (;;) {
		int n = epoll_wait(epoll_fd, events, MAX_EVENTS, -1);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			die("epoll_wait");
		}
		for (int i = 0; i < n; i++) {
			struct floor_h2_conn *c = events[i].data.ptr;

			if (!c) {
				accept_all(lfd);
				continue;
			}
			if (events[i].events & (EPOLLERR | EPOLLHUP)) {
				conn_close(c);
				continue;
			}
			if ((events[i].events & EPOLLOUT) && flush(c)) {
				conn_close(c);
				continue;
			}
			if ((events[i].events & EPOLLIN) && serve(c))
				conn_close(c);
		}
	}
}
