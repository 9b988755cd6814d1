// SPDX-License-Identifier: MIT
#include "harness.h"

#include "http/layout.h"

static char head[512];

/* The pieces of l from piece from on, joined. */
static const char *joined(const struct http_layout *l, unsigned int from)
{
	static char out[1024];
	size_t n = 0;

	for (unsigned int i = from; i < l->n; i++) {
		memcpy(out + n, l->piece[i].base, l->piece[i].len);
		n += l->piece[i].len;
	}
	out[n] = '\0';
	return out;
}

static struct http_response_head make_head(int status)
{
	return (struct http_response_head){
		.status = status,
		.version_minor = 1,
		.keep_alive = true,
		.server = "t",
		.date = "Sun, 06 Nov 1994 08:49:37 GMT",
		.content_length = HTTP_NO_LENGTH,
		.last_modified = HTTP_NO_TIME,
	};
}

TEST(plain_body)
{
	struct http_response_head h = make_head(200);
	struct http_layout l;

	CHECK_EQ_INT(http_layout_response(&l, head, sizeof(head), &h, "hello",
					  5, false),
		     0);
	CHECK_EQ_INT(l.n, 2);
	CHECK_EQ_INT(l.body_len, 5);
	CHECK(strstr(joined(&l, 0), "\r\nContent-Length: 5\r\n"));
	CHECK_EQ_STR(joined(&l, 1), "hello");
	/* HEAD: the head alone, with the body's length. */
	CHECK_EQ_INT(http_layout_response(&l, head, sizeof(head), &h, "hello",
					  5, true),
		     0);
	CHECK_EQ_INT(l.n, 1);
	CHECK_EQ_INT(l.body_len, 0);
	CHECK(strstr(joined(&l, 0), "\r\nContent-Length: 5\r\n"));
	/* An empty body adds no piece. */
	CHECK_EQ_INT(http_layout_response(&l, head, sizeof(head), &h, "", 0,
					  false),
		     0);
	CHECK_EQ_INT(l.n, 1);
	CHECK_EQ_INT(http_layout_response(&l, head, 10, &h, "x", 1, false), -1);
}

TEST(chunked_body)
{
	struct http_response_head h = make_head(200);
	struct http_layout l;

	h.chunked = true;
	CHECK_EQ_INT(http_layout_response(&l, head, sizeof(head), &h,
					  "0123456789abcdefX", 17, false),
		     0);
	CHECK_EQ_INT(l.n, 4);
	CHECK_EQ_INT(l.body_len, 17);
	CHECK(!strstr(joined(&l, 0), "Content-Length"));
	CHECK_EQ_STR(joined(&l, 1), "11\r\n0123456789abcdefX\r\n0\r\n\r\n");
	/* An empty chunked body is the last-chunk alone. */
	CHECK_EQ_INT(http_layout_response(&l, head, sizeof(head), &h, "", 0,
					  false),
		     0);
	CHECK_EQ_INT(l.n, 2);
	CHECK_EQ_STR(joined(&l, 1), "0\r\n\r\n");
}

TEST(pieces_of_a_streamed_body)
{
	struct http_layout l;

	http_layout_piece(&l, "abc", 3, true, false);
	CHECK_EQ_STR(joined(&l, 0), "3\r\nabc\r\n");
	CHECK_EQ_INT(l.body_len, 3);
	http_layout_piece(&l, "abc", 3, true, true);
	CHECK_EQ_STR(joined(&l, 0), "3\r\nabc\r\n0\r\n\r\n");
	http_layout_piece(&l, "", 0, true, true);
	CHECK_EQ_STR(joined(&l, 0), "0\r\n\r\n");
	http_layout_piece(&l, "", 0, true, false);
	CHECK_EQ_INT(l.n, 0);
	http_layout_piece(&l, "abc", 3, false, true);
	CHECK_EQ_STR(joined(&l, 0), "abc");
}

TEST(bodyless)
{
	struct http_response_head h = make_head(304);
	struct http_layout l;
	size_t page_len;
	const char *page;

	h.content_type = "text/plain";
	CHECK_EQ_INT(http_layout_bodyless(&l, head, sizeof(head), &h, false),
		     0);
	CHECK_EQ_INT(l.n, 1);
	CHECK(strncmp(joined(&l, 0), "HTTP/1.1 304 ", 13) == 0);
	CHECK(!strstr(joined(&l, 0), "Content-Length"));
	CHECK(!strstr(joined(&l, 0), "Content-Type"));
	/* A 204 (OPTIONS) is a head alone too. */
	h = make_head(204);
	CHECK_EQ_INT(http_layout_bodyless(&l, head, sizeof(head), &h, false),
		     0);
	CHECK_EQ_INT(l.n, 1);
	CHECK(strncmp(joined(&l, 0), "HTTP/1.1 204 No Content\r\n", 25) == 0);
	CHECK(!strstr(joined(&l, 0), "Content-Length"));
	CHECK(!strstr(joined(&l, 0), "Content-Type"));
	for (int status = 412; status <= 416; status += 4) {
		h = make_head(status);
		page = http_error_body(status, &page_len);
		CHECK_EQ_INT(http_layout_bodyless(&l, head, sizeof(head), &h,
						  false),
			     0);
		CHECK_EQ_INT(l.n, 2);
		CHECK(strstr(joined(&l, 0),
			     "Content-Type: text/html; charset=utf-8\r\n"));
		CHECK(l.piece[1].base == page && l.piece[1].len == page_len);
		CHECK_EQ_INT(http_layout_bodyless(&l, head, sizeof(head), &h,
						  true),
			     0);
		CHECK_EQ_INT(l.n, 1);
	}
}
