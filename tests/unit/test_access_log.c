// SPDX-License-Identifier: MIT
/*
 * Access-log lines: the Combined Log Format, escaping of what the client
 * sent, and the cutting of long fields, which must never cut the line's
 * structure.
 */
#include "harness.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdlib.h>

#include "sehttpd/access_log.h"

#define CLF_TIME "[10/Oct/2000:13:55:36 +0000]"

static struct access_log_buffer log_buf;
/* The user-id the next line is for (--auth-file); NULL: none. */
static const char *log_user;

static struct client_addr ipv4(const char *text)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	struct client_addr peer;

	inet_pton(AF_INET, text, &sa.sin_addr);
	client_addr_set(&peer, (struct sockaddr *)&sa);
	return peer;
}

/*
 * Logs one request (head, which must be complete; NULL for none) and
 * returns its line, NUL-terminated in place of the newline.
 */
static const char *line_over(const struct client_addr *peer, const char *head,
			     bool http2, int status, uint64_t bytes)
{
	struct http_parser p;
	struct http_request req;
	char *line;

	if (head) {
		http_parser_init(&p);
		CHECK(http_parse_request(&p, &req, head, strlen(head)) > 0);
	}
	log_buf.len = 0;
	log_buf.lines = 0;
	/* An empty buffer is never flushed: no writer is needed. */
	access_log_append(&log_buf, NULL, CLF_TIME,
			  &(struct access_log_record){
				  .peer = peer,
				  .reqbuf = head,
				  .req = head ? &req : NULL,
				  .user = log_user,
				  .user_len = log_user ? strlen(log_user) : 0,
				  .http2 = http2,
				  .status = status,
				  .body_bytes = bytes,
			  });
	CHECK_EQ_INT(log_buf.lines, 1);
	CHECK(log_buf.len > 0 && log_buf.buf[log_buf.len - 1] == '\n');
	CHECK(memchr(log_buf.buf, '\n', log_buf.len) ==
	      log_buf.buf + log_buf.len - 1);
	line = log_buf.buf;
	line[log_buf.len - 1] = '\0';
	return line;
}

static const char *line_for(const struct client_addr *peer, const char *head,
			    int status, uint64_t bytes)
{
	return line_over(peer, head, false, status, bytes);
}

TEST(combined_log_format)
{
	struct client_addr peer = ipv4("192.0.2.7");

	CHECK_EQ_STR(line_for(&peer,
			      "GET /a.txt?q=1 HTTP/1.1\r\nHost: h\r\n"
			      "User-Agent: curl/8.0\r\n"
			      "Referer: http://r.test/\r\n\r\n",
			      200, 12),
		     "192.0.2.7 - - " CLF_TIME " \"GET /a.txt?q=1 HTTP/1.1\" "
		     "200 12 \"http://r.test/\" \"curl/8.0\"");
	CHECK_EQ_STR(line_for(&peer, "HEAD / HTTP/1.0\r\n\r\n", 304, 0),
		     "192.0.2.7 - - " CLF_TIME " \"HEAD / HTTP/1.0\" 304 0 "
		     "\"-\" \"-\"");
}

TEST(no_request_and_other_addresses)
{
	struct sockaddr_in6 sa6 = { .sin6_family = AF_INET6 };
	struct client_addr peer;

	inet_pton(AF_INET6, "2001:db8::1", &sa6.sin6_addr);
	client_addr_set(&peer, (struct sockaddr *)&sa6);
	CHECK_EQ_STR(line_for(&peer, NULL, 408, 0),
		     "2001:db8::1 - - " CLF_TIME " \"-\" 408 0 \"-\" \"-\"");
	/* A Unix socket's client, as nginx's $remote_addr shows it. */
	peer = (struct client_addr){ .family = AF_UNIX };
	CHECK_EQ_STR(line_for(&peer, NULL, 400, 0),
		     "unix: - - " CLF_TIME " \"-\" 400 0 \"-\" \"-\"");
	peer = (struct client_addr){ .family = AF_UNSPEC };
	CHECK_EQ_STR(line_for(&peer, NULL, 400, 0),
		     "- - - " CLF_TIME " \"-\" 400 0 \"-\" \"-\"");
}

TEST(escaping)
{
	struct client_addr peer = ipv4("10.0.0.1");

	/* Quotes, backslashes, tabs and bytes above 0x7f. */
	CHECK_EQ_STR(line_for(&peer,
			      "GET /\xc3\xa9 HTTP/1.1\r\nHost: h\r\n"
			      "User-Agent: a\"b\\c\td\xff\r\n"
			      "Referer: \"\r\n\r\n",
			      404, 5),
		     "10.0.0.1 - - " CLF_TIME " \"GET /\\xC3\\xA9 HTTP/1.1\" "
		     "404 5 \"\\x22\" \"a\\x22b\\x5Cc\\x09d\\xFF\"");
}

/* The user who authenticated is the third field, escaped as one word. */
TEST(authenticated_user)
{
	struct client_addr peer = ipv4("192.0.2.7");
	static const char head[] = "GET /a HTTP/1.1\r\nHost: h\r\n\r\n";

	log_user = "alice";
	CHECK_EQ_STR(line_for(&peer, head, 200, 1),
		     "192.0.2.7 - alice " CLF_TIME " \"GET /a HTTP/1.1\" 200 1 "
		     "\"-\" \"-\"");
	/* A space, a quote, a backslash, a control byte, not UTF-8. */
	log_user = "a b\"c\\d\te\xc3(";
	CHECK_EQ_STR(line_for(&peer, head, 200, 1),
		     "192.0.2.7 - a\\x20b\\x22c\\x5Cd\\x09e\\xC3( " CLF_TIME
		     " \"GET /a HTTP/1.1\" 200 1 \"-\" \"-\"");
	/* Without a request line too (it cannot have one, but the field is
	 * the record's). */
	log_user = "";
	CHECK_EQ_STR(line_for(&peer, NULL, 408, 0),
		     "192.0.2.7 - - " CLF_TIME " \"-\" 408 0 \"-\" \"-\"");
	log_user = NULL;
}

TEST(long_user_is_cut_not_the_line)
{
	struct client_addr peer = ipv4("10.0.0.1");
	char *user = malloc(1001);
	const char *line;

	memset(user, '"', 1000);
	user[1000] = '\0';
	log_user = user;
	line = line_for(&peer, "GET /a HTTP/1.1\r\nHost: h\r\n\r\n", 200, 1);
	log_user = NULL;
	CHECK(!strncmp(line, "10.0.0.1 - \\x22", 15));
	CHECK(strstr(line, "\\x22... " CLF_TIME
			   " \"GET /a HTTP/1.1\" 200 1 ") != NULL);
	CHECK(strlen(line) < 400);
	free(user);
}

/* The quoted field that starts after the n-th '"' of line. */
static const char *quoted_field(const char *line, int n, size_t *len)
{
	const char *p = line, *end;

	while (n-- > 0)
		p = strchr(p, '"') + 1;
	end = strchr(p, '"');
	*len = (size_t)(end - p);
	return p;
}

TEST(long_fields_are_cut_not_the_line)
{
	struct client_addr peer = ipv4("10.0.0.1");
	size_t target_len = 6000, ua_len = 3000, len;
	char *head = malloc(target_len + ua_len + 1500 + 100);
	const char *line, *f;
	char *p = head;

	p += sprintf(p, "GET /");
	for (size_t i = 0; i < target_len; i += 3)
		p += sprintf(p, "%%22");
	p += sprintf(p, " HTTP/1.1\r\nHost: h\r\nReferer: ");
	for (size_t i = 0; i < 1500; i++)
		*p++ = '"'; /* each becomes 4 bytes */
	p += sprintf(p, "\r\nUser-Agent: ");
	memset(p, 'u', ua_len);
	p += ua_len;
	sprintf(p, "\r\n\r\n");

	line = line_for(&peer, head, 200, 123456);
	CHECK(strlen(line) < 4096);
	/* The request: cut, marked, and its version kept. */
	f = quoted_field(line, 1, &len);
	CHECK(len > 1000 && len < 2100);
	CHECK(!memcmp(f, "GET /%22%22", 11));
	CHECK(!memcmp(f + len - 12, "... HTTP/1.1", 12));
	/* Status and size. */
	CHECK(!strncmp(f + len, "\" 200 123456 \"", 14));
	/* The Referer is cut between two escapes, never inside one. */
	f = quoted_field(line, 3, &len);
	CHECK(len > 500 && len <= 1024);
	CHECK(!memcmp(f + len - 7, "\\x22...", 7));
	CHECK_EQ_INT((len - 3) % 4, 0);
	/* The User-Agent. */
	f = quoted_field(line, 5, &len);
	CHECK(len > 500 && len <= 1024);
	CHECK(!memcmp(f + len - 4, "u...", 4));
	CHECK(!strcmp(f + len, "\""));
	free(head);
}

TEST(field_that_just_fits_is_whole)
{
	struct client_addr peer = ipv4("10.0.0.1");
	static const char version[] = " HTTP/1.1";
	char head[4096];
	size_t len;
	const char *f;

	/* A target of 2048 bytes, the limit, is whole; one more is cut. */
	for (size_t n = 2048; n <= 2049; n++) {
		memcpy(head, "GET /", 5);
		memset(head + 5, 'a', n - 1);
		sprintf(head + 4 + n, " HTTP/1.1\r\nHost: h\r\n\r\n");
		f = quoted_field(line_for(&peer, head, 404, 0), 1, &len);
		len -= strlen("GET ") + strlen(version);
		f += strlen("GET ");
		if (n == 2048) {
			CHECK_EQ_INT(len, n);
			CHECK(!memchr(f, '.', len));
		} else {
			CHECK_EQ_INT(len, 2048);
			CHECK(!memcmp(f + len - 4, "a...", 4));
		}
	}
}

/* A request that came over HTTP/2 says so, whatever line it was made as. */
TEST(http2_request_says_http2)
{
	struct client_addr peer = ipv4("192.0.2.7");
	const char *line = line_over(
		&peer, "GET /a.css HTTP/1.1\r\nHost: x\r\n\r\n", true, 200, 12);

	CHECK(strstr(line, "\"GET /a.css HTTP/2.0\" 200 12 ") != NULL);
}

#define ISO_TIME "2000-10-10T13:55:36Z"

/* The JSON line for head (NULL: none), NUL-terminated without newline. */
static const char *json_for(const struct client_addr *peer, const char *head,
			    bool http2, int status, uint64_t bytes, uint64_t us)
{
	struct http_parser p;
	struct http_request req;
	char *line;

	if (head) {
		http_parser_init(&p);
		CHECK(http_parse_request(&p, &req, head, strlen(head)) > 0);
	}
	log_buf.len = 0;
	log_buf.lines = 0;
	access_log_append_json(&log_buf, NULL, ISO_TIME,
			       &(struct access_log_record){
				       .peer = peer,
				       .reqbuf = head,
				       .req = head ? &req : NULL,
				       .user = log_user,
				       .user_len = log_user ? strlen(log_user) :
							      0,
				       .http2 = http2,
				       .status = status,
				       .body_bytes = bytes,
				       .duration_us = us,
			       });
	CHECK_EQ_INT(log_buf.lines, 1);
	CHECK(log_buf.len > 0 && log_buf.len < ACCESS_LOG_LINE_MAX);
	CHECK(log_buf.buf[log_buf.len - 1] == '\n');
	CHECK(memchr(log_buf.buf, '\n', log_buf.len) ==
	      log_buf.buf + log_buf.len - 1);
	line = log_buf.buf;
	line[log_buf.len - 1] = '\0';
	return line;
}

TEST(json_lines)
{
	struct client_addr peer = ipv4("192.0.2.7");

	CHECK_EQ_STR(
		json_for(&peer,
			 "GET /a.txt?q=1 HTTP/1.1\r\nHost: example.org\r\n"
			 "User-Agent: curl/8.0\r\n"
			 "Referer: http://r.test/\r\n\r\n",
			 false, 200, 12, 345),
		"{\"time\":\"" ISO_TIME "\",\"remote_addr\":\"192.0.2.7\","
		"\"user\":null,\"method\":\"GET\",\"target\":\"/a.txt?q=1\","
		"\"protocol\":\"HTTP/1.1\",\"status\":200,"
		"\"body_bytes\":12,\"duration_us\":345,"
		"\"referer\":\"http://r.test/\","
		"\"user_agent\":\"curl/8.0\",\"host\":\"example.org\"}");
	/* What the request lacks is null; HTTP/1.0, HTTP/2. */
	CHECK_EQ_STR(json_for(&peer, "HEAD / HTTP/1.0\r\n\r\n", false, 304, 0,
			      0),
		     "{\"time\":\"" ISO_TIME "\",\"remote_addr\":\"192.0.2.7\","
		     "\"user\":null,\"method\":\"HEAD\",\"target\":\"/\","
		     "\"protocol\":\"HTTP/1.0\",\"status\":304,"
		     "\"body_bytes\":0,\"duration_us\":0,\"referer\":null,"
		     "\"user_agent\":null,\"host\":null}");
	CHECK(strstr(json_for(&peer, "GET / HTTP/1.1\r\nHost: h\r\n\r\n", true,
			      200, 1, 1),
		     "\"protocol\":\"HTTP/2.0\"") != NULL);
}

/* The host the request was served for: an absolute-form target's
 * authority over Host (RFC 9112 3.2.2), as the vhost is chosen. */
TEST(json_host_of_absolute_form)
{
	struct client_addr peer = ipv4("192.0.2.7");

	CHECK(strstr(json_for(&peer,
			      "GET http://abs.test:8080/a.txt HTTP/1.1\r\n"
			      "Host: other.test\r\n\r\n",
			      false, 200, 1, 1),
		     ",\"host\":\"abs.test:8080\"}") != NULL);
	CHECK(strstr(json_for(&peer,
			      "GET https://abs.test?x HTTP/1.1\r\n"
			      "Host: other.test\r\n\r\n",
			      false, 200, 1, 1),
		     ",\"host\":\"abs.test\"}") != NULL);
	/* "*" is the server Host names. */
	CHECK(strstr(json_for(&peer,
			      "OPTIONS * HTTP/1.1\r\nHost: h.test\r\n\r\n",
			      false, 200, 1, 1),
		     ",\"host\":\"h.test\"}") != NULL);
}

TEST(json_without_request)
{
	/* No address known (the log is off until a peer is set). */
	struct client_addr peer = { .family = AF_UNSPEC };

	CHECK_EQ_STR(
		json_for(&peer, NULL, false, 400, 50, 7),
		"{\"time\":\"" ISO_TIME "\",\"remote_addr\":null,"
		"\"user\":null,\"method\":null,\"target\":null,\"protocol\":null,"
		"\"status\":400,\"body_bytes\":50,\"duration_us\":7,"
		"\"referer\":null,\"user_agent\":null,\"host\":null}");
	/* A Unix socket's client, as the combined format shows it. */
	peer.family = AF_UNIX;
	CHECK(strstr(json_for(&peer, NULL, false, 400, 50, 7),
		     "\"remote_addr\":\"unix:\",") != NULL);
}

TEST(json_user)
{
	struct client_addr peer = ipv4("10.0.0.1");
	static const char head[] = "GET /a HTTP/1.1\r\nHost: h\r\n\r\n";

	log_user = "alice";
	CHECK(strstr(json_for(&peer, head, false, 200, 1, 1),
		     "\"remote_addr\":\"10.0.0.1\",\"user\":\"alice\","
		     "\"method\":\"GET\"") != NULL);
	log_user = "a b\"c\\d\te\xc3(\xc3\xa9";
	CHECK(strstr(json_for(&peer, head, false, 200, 1, 1),
		     ",\"user\":\"a b\\\"c\\\\d\\te\\ufffd(\xc3\xa9\",") !=
	      NULL);
	log_user = NULL;
}

TEST(json_escaping)
{
	struct client_addr peer = ipv4("10.0.0.1");

	/* UTF-8 kept; bytes that are not UTF-8 replaced, never copied;
	 * quotes, backslashes and tabs (the one control character the
	 * parser lets through) escaped. */
	CHECK_EQ_STR(
		json_for(&peer,
			 "GET /caf\xc3\xa9\xff\"\\ HTTP/1.1\r\nHost: h\r\n"
			 "User-Agent: a\"b\\c\td\xc3(\xed\xa0\x80\r\n\r\n",
			 false, 404, 5, 9),
		"{\"time\":\"" ISO_TIME "\",\"remote_addr\":\"10.0.0.1\","
		"\"user\":null,\"method\":\"GET\",\"target\":\"/caf\xc3\xa9\\ufffd\\\"\\\\\","
		"\"protocol\":\"HTTP/1.1\",\"status\":404,"
		"\"body_bytes\":5,\"duration_us\":9,\"referer\":null,"
		"\"user_agent\":\"a\\\"b\\\\c\\td\\ufffd(\\ufffd\\ufffd\\ufffd\","
		"\"host\":\"h\"}");
}

TEST(json_long_fields_are_cut_not_the_line)
{
	struct client_addr peer = ipv4("10.0.0.1");
	size_t n = 7000;
	char *head = malloc(4 * n + 200), *p = head;
	const char *line;

	/* Every field as long as the parser lets it be, all escapes. */
	p += sprintf(p, "GET /");
	for (size_t i = 0; i < n; i++)
		*p++ = (char)0xff;
	p += sprintf(p, " HTTP/1.1\r\nHost: ");
	memset(p, 'h', 200);
	p += 200;
	p += sprintf(p, "\r\nReferer: r");
	for (size_t i = 0; i < 1000; i++)
		*p++ = '\t';
	p += sprintf(p, "r\r\nUser-Agent: ");
	for (size_t i = 0; i < 1000; i++)
		*p++ = '"';
	sprintf(p, "\r\n\r\n");
	line = json_for(&peer, head, false, 200, 1, 2);
	CHECK(strstr(line, "\\ufffd...\",\"protocol\":\"HTTP/1.1\"") != NULL);
	CHECK(strstr(line, "\\t...\",\"user_agent\":\"\\\"") != NULL);
	CHECK(strstr(line, "\\\"...\",\"host\":\"hhh") != NULL);
	CHECK(!strcmp(line + strlen(line) - 2, "\"}"));
	free(head);
}
