// SPDX-License-Identifier: MIT
/*
 * An HTTP/2 stream's two translations: request fields into the HTTP/1.1
 * head the core's parser reads (with its limits), and the response code's
 * HTTP/1.1 head and body into HEADERS fields and body segments.
 */
#include "harness.h"

#include <fcntl.h>
#include <unistd.h>

#include "sehttpd/h2_stream.h"

static struct h2_stream_pool pool = { .free = { &pool.free, &pool.free } };

static int add(struct h2_stream *st, const char *name, const char *value)
{
	return h2_stream_add_field(st, (const uint8_t *)name, strlen(name),
				   (const uint8_t *)value, strlen(value));
}

static struct h2_stream *get(const char *path)
{
	struct h2_stream *st = h2_stream_get(&pool, 1);

	CHECK(st != NULL);
	CHECK(add(st, ":method", "GET") == 0);
	CHECK(add(st, ":scheme", "https") == 0);
	CHECK(add(st, ":authority", "example.test") == 0);
	CHECK(add(st, ":path", path) == 0);
	return st;
}

static const char *header(const struct h2_stream *st, enum http_header_id id)
{
	static char v[256];
	struct http_span s = st->req.header[id];

	if (!http_has_header(&st->req, id) || s.len >= sizeof(v))
		return NULL;
	memcpy(v, st->head.p + s.off, s.len);
	v[s.len] = '\0';
	return v;
}

TEST(request_becomes_a_head_the_parser_reads)
{
	struct h2_stream *st = get("/a/b.css?x=1");

	CHECK(add(st, "accept-encoding", "gzip, br") == 0);
	CHECK(add(st, "range", "bytes=0-9") == 0);
	CHECK_EQ_INT(h2_stream_parse(st), 0);
	CHECK_EQ_INT(st->req.method, HTTP_GET);
	CHECK_EQ_MEM(st->head.p + st->req.path.off, st->req.path.len,
		     "/a/b.css");
	CHECK(st->req.has_query);
	CHECK_EQ_STR(header(st, HTTP_H_HOST), "example.test");
	CHECK_EQ_STR(header(st, HTTP_H_ACCEPT_ENCODING), "gzip, br");
	CHECK_EQ_STR(header(st, HTTP_H_RANGE), "bytes=0-9");
	h2_stream_put(&pool, st);
}

/*
 * :authority is the Host; a host field beside it naming the same does not
 * make two, and one naming another makes the request malformed (RFC 9113
 * 8.3.1: a server SHOULD).  Before, the other was dropped unseen.
 */
TEST(authority_stands_for_host)
{
	struct h2_stream *st = get("/");

	CHECK(add(st, "host", "Example.TEST") == 0);
	CHECK_EQ_INT(h2_stream_parse(st), 0);
	CHECK_EQ_STR(header(st, HTTP_H_HOST), "example.test");
	CHECK(!(st->req.repeated & (1u << HTTP_H_HOST)));
	h2_stream_put(&pool, st);

	st = get("/");
	CHECK(add(st, "host", "other.test") == 0);
	CHECK_EQ_INT(h2_stream_parse(st), 400);
	h2_stream_put(&pool, st);
}

TEST(missing_pseudo_headers_are_400)
{
	struct h2_stream *st = h2_stream_get(&pool, 3);

	CHECK(add(st, ":path", "/") == 0);
	CHECK_EQ_INT(h2_stream_parse(st), 400);
	h2_stream_put(&pool, st);
}

/* The parser's answers carry over: a target it refuses is its status. */
TEST(parser_refusals_carry_over)
{
	struct h2_stream *st = get("/a b");

	CHECK_EQ_INT(h2_stream_parse(st), 400);
	h2_stream_put(&pool, st);
	st = get("/");
	CHECK(add(st, "content-length", "1, 2") == 0);
	CHECK_EQ_INT(h2_stream_parse(st), 400);
	h2_stream_put(&pool, st);
}

/* The same limits as HTTP/1.1: 100 fields, 16 KiB of them, 8 KiB target. */
TEST(limits_are_http1s)
{
	char big[HTTP_MAX_HEADER_SECTION];
	struct h2_stream *st = get("/");

	/* The Host that :authority becomes is one of them. */
	for (int i = 0; i < HTTP_MAX_HEADER_FIELDS - 1; i++)
		CHECK(add(st, "x-a", "1") == 0);
	CHECK_EQ_INT(h2_stream_parse(st), 0);
	h2_stream_put(&pool, st);

	st = get("/");
	for (int i = 0; i < HTTP_MAX_HEADER_FIELDS; i++)
		CHECK(add(st, "x-a", "1") == 0);
	CHECK_EQ_INT(h2_stream_parse(st), 431);
	h2_stream_put(&pool, st);

	memset(big, 'v', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	st = get("/");
	CHECK(add(st, "x-big", big) == 0);
	CHECK_EQ_INT(h2_stream_parse(st), 431);
	h2_stream_put(&pool, st);

	memset(big, 'p', HTTP_MAX_REQUEST_LINE + 1);
	big[0] = '/';
	big[HTTP_MAX_REQUEST_LINE + 1] = '\0';
	st = get(big);
	CHECK_EQ_INT(h2_stream_parse(st), 414);
	h2_stream_put(&pool, st);
}

static bool field(const struct h2_stream *st, const char *name,
		  const char *value)
{
	for (size_t i = 0; i < st->nnv; i++)
		if (st->nv[i].namelen == strlen(name) &&
		    !memcmp(st->nv[i].name, name, st->nv[i].namelen))
			return st->nv[i].valuelen == strlen(value) &&
			       !memcmp(st->nv[i].value, value,
				       st->nv[i].valuelen);
	return false;
}

static bool named(const struct h2_stream *st, const char *name)
{
	for (size_t i = 0; i < st->nnv; i++)
		if (st->nv[i].namelen == strlen(name) &&
		    !memcmp(st->nv[i].name, name, st->nv[i].namelen))
			return true;
	return false;
}

/* The head becomes lowercase fields without the connection's own. */
TEST(response_head_becomes_fields)
{
	static const char head[] = "HTTP/1.1 206 Partial Content\r\n"
				   "Server: sehttpd\r\n"
				   "Content-Type: text/css\r\n"
				   "Content-Length: 10\r\n"
				   "Connection: close\r\n"
				   "Keep-Alive: timeout=5\r\n"
				   "Content-Range: bytes 0-9/100\r\n"
				   "\r\n"
				   "0123456789";
	struct h2_stream *st = h2_stream_get(&pool, 1);
	struct exchange rc = { .out = &h2_stream_writer, .out_ctx = st };

	CHECK_EQ_INT(exchange_write(&rc, head, sizeof(head) - 1, false), 0);
	CHECK(st->head_done);
	CHECK(field(st, ":status", "206"));
	CHECK(field(st, "server", "sehttpd"));
	CHECK(field(st, "content-type", "text/css"));
	CHECK(field(st, "content-length", "10"));
	CHECK(field(st, "content-range", "bytes 0-9/100"));
	CHECK(!named(st, "connection"));
	CHECK(!named(st, "keep-alive"));
	/* The body was copied: the caller's buffer may go. */
	CHECK_EQ_INT(st->nseg, 1);
	CHECK_EQ_INT(st->seg[0].kind, H2_SEG_COPY);
	CHECK_EQ_MEM(st->copy.p + st->seg[0].off, st->seg[0].len, "0123456789");
	h2_stream_put(&pool, st);
}

/* A file body is a segment of a descriptor of the stream's own. */
TEST(file_body_keeps_its_own_descriptor)
{
	static const char head[] =
		"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n";
	struct h2_stream *st = h2_stream_get(&pool, 1);
	struct exchange rc = { .out = &h2_stream_writer, .out_ctx = st };
	int fd = open("/dev/null", O_RDONLY);

	CHECK(fd >= 0);
	/* Nothing may precede the head. */
	CHECK(exchange_sendfile(&rc, fd, 0, 5) != 0);
	h2_stream_put(&pool, st);

	st = h2_stream_get(&pool, 1);
	rc.out_ctx = st;
	CHECK_EQ_INT(exchange_write(&rc, head, sizeof(head) - 1, true), 0);
	CHECK_EQ_INT(exchange_sendfile(&rc, fd, 7, 5), 0);
	close(fd);
	CHECK_EQ_INT(st->nseg, 1);
	CHECK_EQ_INT(st->seg[0].kind, H2_SEG_FILE);
	CHECK(st->seg[0].fd >= 0 && st->seg[0].fd != fd);
	CHECK(st->seg[0].off == 7 && st->seg[0].len == 5);
	CHECK(fcntl(st->seg[0].fd, F_GETFD) >= 0);
	h2_stream_put(&pool, st);
}

TEST(not_a_head_fails)
{
	struct h2_stream *st = h2_stream_get(&pool, 1);
	struct exchange rc = { .out = &h2_stream_writer, .out_ctx = st };

	CHECK(exchange_write(&rc, "garbage\r\n\r\n", 11, false) != 0);
	CHECK(st->failed);
	h2_stream_put(&pool, st);
}

/*
 * Cookie crumbs, one field each as browsers send them, are one field of
 * the head (RFC 9113 8.2.3); before, 120 cookies were 120 fields, a 431.
 */
TEST(cookie_crumbs_are_joined)
{
	struct h2_stream *st = get("/");
	char crumb[16];

	CHECK(add(st, "cookie", "a=1") == 0);
	CHECK(add(st, "accept", "*/*") == 0);
	CHECK(add(st, "cookie", "b=2") == 0);
	CHECK_EQ_INT(h2_stream_parse(st), 0);
	CHECK(memmem(st->head.p, st->head.len, "\r\ncookie: a=1; b=2\r\n",
		     20) != NULL);
	CHECK_EQ_INT(st->nfields, 2);
	h2_stream_put(&pool, st);

	st = get("/");
	for (int i = 0; i < 2 * HTTP_MAX_HEADER_FIELDS; i++) {
		snprintf(crumb, sizeof(crumb), "c%d=v", i);
		CHECK(add(st, "cookie", crumb) == 0);
	}
	CHECK_EQ_INT(h2_stream_parse(st), 0);
	h2_stream_put(&pool, st);

	/* Joined, they still meet the section's size. */
	st = get("/");
	for (int i = 0; i < HTTP_MAX_HEADER_SECTION / 40; i++)
		CHECK(add(st, "cookie",
			  "c=vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv") == 0);
	CHECK_EQ_INT(h2_stream_parse(st), 431);
	h2_stream_put(&pool, st);
}

/* A stream from the pool starts afresh: nothing of the last request shows. */
TEST(reused_stream_starts_afresh)
{
	struct h2_stream *st = get("/old");
	struct h2_stream *again;

	CHECK(add(st, "range", "bytes=0-1") == 0);
	CHECK(add(st, "cookie", "old=1") == 0);
	CHECK_EQ_INT(h2_stream_parse(st), 0);
	h2_stream_put(&pool, st);
	again = h2_stream_get(&pool, 5);
	CHECK(again == st);
	CHECK(!again->method.set && !again->path.set && again->nfields == 0);
	CHECK(add(again, ":method", "HEAD") == 0);
	CHECK(add(again, ":path", "/new") == 0);
	CHECK(add(again, ":authority", "b.test") == 0);
	CHECK_EQ_INT(h2_stream_parse(again), 0);
	CHECK_EQ_INT(again->req.method, HTTP_HEAD);
	CHECK_EQ_MEM(again->head.p + again->req.path.off, again->req.path.len,
		     "/new");
	CHECK(!http_has_header(&again->req, HTTP_H_RANGE));
	CHECK(memmem(again->head.p, again->head.len, "cookie", 6) == NULL);
	CHECK_EQ_STR(header(again, HTTP_H_HOST), "b.test");
	h2_stream_put(&pool, again);
	h2_stream_pool_drain(&pool);
}
