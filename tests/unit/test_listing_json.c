// SPDX-License-Identifier: MIT
/* The JSON listing: the exact document, types, escaping and streaming. */
#include "harness.h"

#include "http/listing.h"
#include "http/listing_json.h"

struct sink {
	char data[1 << 20];
	size_t len;
};

static int sink_flush(struct http_out *out)
{
	struct sink *s = out->ctx;

	if (s->len + out->len > sizeof(s->data))
		return -1;
	memcpy(s->data + s->len, out->buf, out->len);
	s->len += out->len;
	out->len = 0;
	return 0;
}

static struct http_listing_entry file(const char *name, uint64_t size,
				      int64_t mtime)
{
	return (struct http_listing_entry){ .name = name,
					    .name_len = strlen(name),
					    .has_stat = true,
					    .size = size,
					    .mtime = mtime };
}

/* Renders a whole JSON listing through a buffer of cap bytes, as the
 * servers do: through the form's dispatch. */
static size_t render(struct sink *s, size_t cap,
		     const struct http_listing_entry *e, size_t n)
{
	char *buf = malloc(cap);
	struct http_out out = {
		.buf = buf, .cap = cap, .flush = sink_flush, .ctx = s
	};

	s->len = 0;
	http_listing_write_begin(&out, HTTP_LISTING_JSON, "/d/", 3,
				 HTTP_LISTING_ORDER_DEFAULT);
	for (size_t i = 0; i < n; i++)
		http_listing_write_entry(&out, HTTP_LISTING_JSON, &e[i], i);
	http_listing_write_end(&out, HTTP_LISTING_JSON);
	if (http_out_flush(&out))
		s->len = 0;
	free(buf);
	s->data[s->len] = '\0';
	return s->len;
}

TEST(exact_document)
{
	static struct sink s;
	struct http_listing_entry e[] = {
		file("sub", 4096, 784111777),
		file("a b.txt", 12, 1795598060),
		file("link", 777, 1614834367),
		file("dirlink", 4096, 0),
		{ .name = "nostat", .name_len = 6 },
		{ .name = "brokenlink", .name_len = 10, .is_link = true },
	};

	e[0].is_dir = true;
	e[2].is_link = true;
	e[3].is_dir = e[3].is_link = true;
	render(&s, 4096, e, ARRAY_SIZE(e));
	CHECK_EQ_STR(s.data,
		     "[\n"
		     "{\"name\":\"sub\",\"type\":\"directory\",\"size\":null,"
		     "\"mtime\":\"1994-11-06T08:49:37Z\",\"url\":\"sub/\"},\n"
		     "{\"name\":\"a b.txt\",\"type\":\"file\",\"size\":12,"
		     "\"mtime\":\"2026-11-25T09:14:20Z\","
		     "\"url\":\"a%20b.txt\"},\n"
		     "{\"name\":\"link\",\"type\":\"symlink\",\"size\":777,"
		     "\"mtime\":\"2021-03-04T05:06:07Z\",\"url\":\"link\"},\n"
		     "{\"name\":\"dirlink\",\"type\":\"symlink\",\"size\":null,"
		     "\"mtime\":\"1970-01-01T00:00:00Z\","
		     "\"url\":\"dirlink/\"},\n"
		     "{\"name\":\"nostat\",\"type\":\"file\",\"size\":null,"
		     "\"mtime\":null,\"url\":\"nostat\"},\n"
		     "{\"name\":\"brokenlink\",\"type\":\"symlink\","
		     "\"size\":null,\"mtime\":null,\"url\":\"brokenlink\"}\n"
		     "]\n");
}

TEST(empty_directory)
{
	static struct sink s;

	render(&s, 64, NULL, 0);
	CHECK_EQ_STR(s.data, "[\n]\n");
}

TEST(hostile_names_are_escaped_and_encoded)
{
	static struct sink s;
	struct http_listing_entry e[] = {
		file("quote\"back\\slash.txt", 1, 0),
		file("tab\tnl\ncr\r\x01\x1f\x7f.txt", 2, 0),
		file("bad\xff\xfe.txt", 3, 0),
		file("\xc3\xbcn\xc3\xaf.txt", 4, 0),
		file("</script><b>&'.txt", 5, 0),
		file("\xe2\x80\xa8sep", 6, 0),
	};

	render(&s, 4096, e, ARRAY_SIZE(e));
	CHECK(strstr(s.data, "{\"name\":\"quote\\\"back\\\\slash.txt\","));
	CHECK(strstr(s.data, "\"url\":\"quote%22back%5Cslash.txt\"}"));
	CHECK(strstr(s.data, "{\"name\":\"tab\\tnl\\ncr\\r"
			     "\\u0001\\u001f\\u007f.txt\","));
	CHECK(strstr(s.data, "\"url\":\"tab%09nl%0Acr%0D%01%1F%7F.txt\"}"));
	/* Replaced in the name, kept (encoded) in the url. */
	CHECK(strstr(s.data, "{\"name\":\"bad\\ufffd\\ufffd.txt\","));
	CHECK(strstr(s.data, "\"url\":\"bad%FF%FE.txt\"}"));
	CHECK(strstr(s.data, "{\"name\":\"\xc3\xbcn\xc3\xaf.txt\","));
	CHECK(strstr(s.data, "\"url\":\"%C3%BCn%C3%AF.txt\"}"));
	CHECK(strstr(s.data, "{\"name\":\"</script><b>&'.txt\","));
	/* U+2028 ends a line in JavaScript: escaped, as json.c does. */
	CHECK(strstr(s.data, "{\"name\":\"\\u2028sep\","));
	/* Nothing raw but what is valid UTF-8 and no control character. */
	for (size_t i = 0; i < s.len; i++) {
		unsigned char c = (unsigned char)s.data[i];

		CHECK(c == '\n' || (c >= 0x20 && c != 0x7f));
		CHECK(c != 0xff && c != 0xfe);
	}
}

TEST(extreme_sizes_and_times)
{
	static struct sink s;
	struct http_listing_entry e[] = {
		file("max", UINT64_MAX, INT64_MAX),
		file("zero", 0, INT64_MIN),
		file("old", 1, -1),
	};

	render(&s, 4096, e, ARRAY_SIZE(e));
	CHECK(strstr(s.data, "\"size\":18446744073709551615,"
			     "\"mtime\":\"9999-"));
	CHECK(strstr(s.data, "\"size\":0,\"mtime\":\"0000-"));
	CHECK(strstr(s.data, "\"size\":1,"
			     "\"mtime\":\"1969-12-31T23:59:59Z\""));
}

TEST(tiny_buffer_streams_the_same_bytes)
{
	static struct sink small, big;
	struct http_listing_entry e[120];
	char names[120][64];
	unsigned seed = 4242;

	for (size_t i = 0; i < ARRAY_SIZE(e); i++) {
		static const char pool[] = "\"\\\t\x01 %az.\xc3\xbc\xff#?";
		size_t n = 1 + i % 60;

		for (size_t k = 0; k < n; k++) {
			seed = seed * 1103515245u + 12345u;
			names[i][k] = pool[(seed >> 16) % (sizeof(pool) - 1)];
		}
		names[i][n] = '\0';
		e[i] = file(names[i], (uint64_t)seed * i, (int64_t)seed * 97);
		e[i].is_dir = i % 3 == 0;
		e[i].is_link = i % 7 == 0;
		e[i].has_stat = i % 5 != 0;
	}
	for (size_t cap = 64; cap <= 80; cap++) {
		render(&small, cap, e, ARRAY_SIZE(e));
		render(&big, 1 << 19, e, ARRAY_SIZE(e));
		CHECK(small.len > 10000);
		CHECK_EQ_INT(small.len, big.len);
		CHECK(small.len == big.len &&
		      !memcmp(small.data, big.data, small.len));
	}
}

/* The dispatch writes the HTML page for the other form. */
TEST(html_through_the_same_calls)
{
	static struct sink s;
	char buf[4096];
	struct http_out out = {
		.buf = buf, .cap = sizeof(buf), .flush = sink_flush, .ctx = &s
	};
	struct http_listing_entry e = file("a.txt", 1, 0);

	s.len = 0;
	http_listing_write_begin(&out, HTTP_LISTING_HTML, "/d/", 3,
				 HTTP_LISTING_ORDER_DEFAULT);
	http_listing_write_entry(&out, HTTP_LISTING_HTML, &e, 0);
	http_listing_write_end(&out, HTTP_LISTING_HTML);
	CHECK_EQ_INT(http_out_flush(&out), 0);
	s.data[s.len] = '\0';
	CHECK(!strncmp(s.data, "<!DOCTYPE html>", 15));
	CHECK(strstr(s.data, "<a href=\"a.txt\">a.txt</a>"));
	CHECK(strstr(s.data, "</table>\n</body></html>\n"));
}
