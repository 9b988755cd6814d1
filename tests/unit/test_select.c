// SPDX-License-Identifier: MIT
#include "harness.h"

#include "http/conditional.h"
#include "http/format.h"
#include "http/select.h"

#define TAG "\"e1\""
#define MTIME 784111777 /* Sun, 06 Nov 1994 08:49:37 GMT */
#define MTIME_DATE "Sun, 06 Nov 1994 08:49:37 GMT"
#define EARLIER_DATE "Sun, 06 Nov 1994 08:49:36 GMT"

static char head_buf[1024];
static struct http_request req;
/* The response's Date, as http_select() is given it. */
static int64_t now = MTIME + 10;

/* Parses "METHOD /a" with extra header lines into req. */
static void request(const char *method, const char *lines)
{
	struct http_parser p;

	snprintf(head_buf, sizeof(head_buf),
		 "%s /a HTTP/1.1\r\nHost: x\r\n%s\r\n", method, lines);
	http_parser_init(&p);
	CHECK(http_parse_request(&p, &req, head_buf, strlen(head_buf)) > 0);
}

static const struct http_representation file = {
	.etag = TAG,
	.etag_len = sizeof(TAG) - 1,
	.last_modified = MTIME,
	.size = 1000,
	.ranges = true,
};

static const struct http_representation listing = {
	.last_modified = HTTP_NO_TIME,
	.size = 500,
};

static int status_of(const char *method, const char *lines,
		     const struct http_representation *rep)
{
	struct http_selection sel;

	request(method, lines);
	http_select(head_buf, &req, rep, now, &sel);
	return sel.status;
}

static int get(const char *lines)
{
	return status_of("GET", lines, &file);
}

TEST(unconditional)
{
	struct http_selection sel;

	request("GET", "");
	http_select(head_buf, &req, &file, now, &sel);
	CHECK_EQ_INT(sel.status, 200);
	CHECK_EQ_INT(sel.first, 0);
	CHECK_EQ_INT(sel.len, 1000);
}

TEST(if_none_match)
{
	CHECK_EQ_INT(get("If-None-Match: " TAG "\r\n"), 304);
	CHECK_EQ_INT(get("If-None-Match: W/" TAG "\r\n"), 304);
	CHECK_EQ_INT(get("If-None-Match: \"x\", " TAG "\r\n"), 304);
	CHECK_EQ_INT(get("If-None-Match: \"x\"\r\nIf-None-Match: " TAG "\r\n"),
		     304);
	CHECK_EQ_INT(get("If-None-Match: *\r\n"), 304);
	CHECK_EQ_INT(get("If-None-Match: \"x\"\r\n"), 200);
	CHECK_EQ_INT(status_of("HEAD", "If-None-Match: " TAG "\r\n", &file),
		     304);
	/* Not GET or HEAD: a matching tag fails the request instead. */
	CHECK_EQ_INT(status_of("POST", "If-None-Match: " TAG "\r\n", &file),
		     412);
}

TEST(if_modified_since)
{
	CHECK_EQ_INT(get("If-Modified-Since: " MTIME_DATE "\r\n"), 304);
	CHECK_EQ_INT(get("If-Modified-Since: " EARLIER_DATE "\r\n"), 200);
	CHECK_EQ_INT(get("If-Modified-Since: garbage\r\n"), 200);
	/* If-None-Match, when present, decides alone. */
	CHECK_EQ_INT(get("If-None-Match: \"x\"\r\n"
			 "If-Modified-Since: " MTIME_DATE "\r\n"),
		     200);
	CHECK_EQ_INT(get("If-Modified-Since: " EARLIER_DATE "\r\n"
			 "If-None-Match: " TAG "\r\n"),
		     304);
	CHECK_EQ_INT(status_of("POST", "If-Modified-Since: " MTIME_DATE "\r\n",
			       &file),
		     200);
}

TEST(if_match)
{
	CHECK_EQ_INT(get("If-Match: " TAG "\r\n"), 200);
	CHECK_EQ_INT(get("If-Match: \"x\", " TAG "\r\n"), 200);
	CHECK_EQ_INT(get("If-Match: *\r\n"), 200);
	CHECK_EQ_INT(get("If-Match: \"x\"\r\n"), 412);
	/* Strong comparison: a weak tag never matches. */
	CHECK_EQ_INT(get("If-Match: W/" TAG "\r\n"), 412);
	CHECK_EQ_INT(get("If-Match: \"x\"\r\nIf-Match: " TAG "\r\n"), 200);
}

TEST(if_unmodified_since)
{
	CHECK_EQ_INT(get("If-Unmodified-Since: " MTIME_DATE "\r\n"), 200);
	CHECK_EQ_INT(get("If-Unmodified-Since: " EARLIER_DATE "\r\n"), 412);
	CHECK_EQ_INT(get("If-Unmodified-Since: garbage\r\n"), 200);
	/* Ignored when If-Match is there (RFC 9110 13.1.4). */
	CHECK_EQ_INT(get("If-Match: " TAG "\r\n"
			 "If-Unmodified-Since: " EARLIER_DATE "\r\n"),
		     200);
}

TEST(evaluation_order)
{
	/* 412 conditions come before 304 ones (RFC 9110 13.2.2). */
	CHECK_EQ_INT(get("If-None-Match: " TAG "\r\nIf-Match: \"x\"\r\n"), 412);
	CHECK_EQ_INT(get("If-None-Match: " TAG "\r\n"
			 "If-Unmodified-Since: " EARLIER_DATE "\r\n"),
		     412);
	CHECK_EQ_INT(get("If-Match: " TAG "\r\nIf-None-Match: " TAG "\r\n"),
		     304);
	/* And before Range. */
	CHECK_EQ_INT(get("Range: bytes=0-9\r\nIf-Match: \"x\"\r\n"), 412);
	CHECK_EQ_INT(get("Range: bytes=0-9\r\nIf-None-Match: " TAG "\r\n"),
		     304);
	CHECK_EQ_INT(get("Range: bytes=5000-\r\nIf-Match: \"x\"\r\n"), 412);
}

TEST(ranges)
{
	struct http_selection sel;

	request("GET", "Range: bytes=10-19\r\n");
	http_select(head_buf, &req, &file, now, &sel);
	CHECK_EQ_INT(sel.status, 206);
	CHECK_EQ_INT(sel.first, 10);
	CHECK_EQ_INT(sel.len, 10);
	request("GET", "Range: bytes=-100\r\n");
	http_select(head_buf, &req, &file, now, &sel);
	CHECK_EQ_INT(sel.status, 206);
	CHECK_EQ_INT(sel.first, 900);
	CHECK_EQ_INT(sel.len, 100);
	CHECK_EQ_INT(get("Range: bytes=1000-\r\n"), 416);
	CHECK_EQ_INT(get("Range: bytes=0-1,5-6\r\n"), 200);
	CHECK_EQ_INT(get("Range: bytes=0-9\r\nIf-Range: " TAG "\r\n"), 206);
	CHECK_EQ_INT(get("Range: bytes=0-9\r\nIf-Range: \"x\"\r\n"), 200);
	CHECK_EQ_INT(get("Range: bytes=0-9\r\nIf-Range: " MTIME_DATE "\r\n"),
		     206);
	CHECK_EQ_INT(get("Range: bytes=0-9\r\nIf-Range: " EARLIER_DATE "\r\n"),
		     200);
	/* A representation without ranges is sent whole. */
	CHECK_EQ_INT(status_of("GET", "Range: bytes=0-9\r\n", &listing), 200);
}

TEST(listing_without_validators)
{
	/* "*" matches any current representation, tags never match. */
	CHECK_EQ_INT(status_of("GET", "If-None-Match: *\r\n", &listing), 304);
	CHECK_EQ_INT(status_of("GET", "If-None-Match: \"x\"\r\n", &listing),
		     200);
	CHECK_EQ_INT(status_of("GET", "If-Match: *\r\n", &listing), 200);
	CHECK_EQ_INT(status_of("GET", "If-Match: \"x\"\r\n", &listing), 412);
	/* Dates need a Last-Modified to compare with: ignored. */
	CHECK_EQ_INT(status_of("GET", "If-Modified-Since: " MTIME_DATE "\r\n",
			       &listing),
		     200);
	CHECK_EQ_INT(status_of("GET",
			       "If-Unmodified-Since: " EARLIER_DATE "\r\n",
			       &listing),
		     200);
}

static size_t headers(const struct http_representation *rep, const char *lines,
		      int64_t date, char *out, size_t cap)
{
	struct http_selection sel;

	request("GET", lines);
	http_select(head_buf, &req, rep, date, &sel);
	return http_select_headers(out, cap, rep, &sel, date);
}

TEST(header_lines)
{
	struct http_representation gz = file;
	char out[HTTP_SELECT_HEADERS_MAX + 1];
	size_t n;

	n = headers(&file, "", MTIME + 10, out, sizeof(out));
	out[n] = '\0';
	CHECK_EQ_STR(out, "ETag: " TAG "\r\nLast-Modified: " MTIME_DATE
			  "\r\nAccept-Ranges: bytes\r\n");
	n = headers(&file, "Range: bytes=10-19\r\n", MTIME + 10, out,
		    sizeof(out));
	out[n] = '\0';
	CHECK(strstr(out, "\r\nContent-Range: bytes 10-19/1000\r\n"));
	n = headers(&file, "Range: bytes=2000-\r\n", MTIME + 10, out,
		    sizeof(out));
	out[n] = '\0';
	CHECK(strstr(out, "\r\nContent-Range: bytes */1000\r\n"));
	gz.varies = true;
	gz.coding = "gzip";
	n = headers(&gz, "", MTIME, out, sizeof(out));
	out[n] = '\0';
	CHECK(strstr(out, "\r\nVary: Accept-Encoding\r\n"
			  "Content-Encoding: gzip\r\n"));
	/* A 304 or 412 carries no body, so no Content-Encoding. */
	n = headers(&gz, "If-None-Match: " TAG "\r\n", MTIME, out, sizeof(out));
	out[n] = '\0';
	CHECK(strstr(out, "Vary: Accept-Encoding\r\n"));
	CHECK(!strstr(out, "Content-Encoding"));
	n = headers(&listing, "", MTIME, out, sizeof(out));
	CHECK_EQ_INT(n, 0);
	CHECK_EQ_INT(headers(&gz, "Range: bytes=1-2\r\n", MTIME, out, 20), 0);
}

TEST(weak_tag)
{
	struct http_representation weak = file;
	char out[HTTP_SELECT_HEADERS_MAX + 1];
	size_t n;

	weak.weak = true;
	/* If-None-Match compares weakly: either form matches. */
	CHECK_EQ_INT(status_of("GET", "If-None-Match: " TAG "\r\n", &weak),
		     304);
	CHECK_EQ_INT(status_of("GET", "If-None-Match: W/" TAG "\r\n", &weak),
		     304);
	/* If-Match and If-Range compare strongly: never with a weak tag. */
	CHECK_EQ_INT(status_of("GET", "If-Match: " TAG "\r\n", &weak), 412);
	CHECK_EQ_INT(status_of("GET", "If-Match: W/" TAG "\r\n", &weak), 412);
	CHECK_EQ_INT(status_of("GET",
			       "Range: bytes=0-9\r\nIf-Range: " TAG "\r\n",
			       &weak),
		     200);
	CHECK_EQ_INT(status_of("GET", "Range: bytes=0-9\r\n", &weak), 206);
	n = headers(&weak, "", MTIME + 10, out, sizeof(out));
	out[n] = '\0';
	CHECK(!strncmp(out, "ETag: W/" TAG "\r\n", strlen("ETag: W/" TAG) + 2));
}

TEST(last_modified_clamped_to_date)
{
	char out[HTTP_SELECT_HEADERS_MAX + 1];
	size_t n;

	/* A file dated after the response: the Date is sent instead. */
	n = headers(&file, "", MTIME - 1, out, sizeof(out));
	out[n] = '\0';
	CHECK(strstr(out, "Last-Modified: " EARLIER_DATE "\r\n"));
	n = headers(&file, "", MTIME, out, sizeof(out));
	out[n] = '\0';
	CHECK(strstr(out, "Last-Modified: " MTIME_DATE "\r\n"));
}

/*
 * A file dated after the response's Date is taken as modified at the Date,
 * as its Last-Modified says: its own Last-Modified sent back holds.
 * Before, If-Unmodified-Since with it got 412 and If-Modified-Since 200.
 */
TEST(future_modification_taken_as_the_date)
{
	now = MTIME - 100;
	CHECK_EQ_INT(get("If-Unmodified-Since: Sun, 06 Nov 1994 08:47:57 "
			 "GMT\r\n"),
		     200);
	CHECK_EQ_INT(get("If-Modified-Since: Sun, 06 Nov 1994 08:47:57 "
			 "GMT\r\n"),
		     304);
	CHECK_EQ_INT(get("If-Unmodified-Since: Sun, 06 Nov 1994 08:47:56 "
			 "GMT\r\n"),
		     412);
	now = MTIME + 10;
}

/*
 * If-Range's date holds only for a modification a second or more before
 * the Date: one in the same second may have been followed by another
 * write in it, and a range of the new bytes would be spliced onto the
 * old (before, 206).
 */
TEST(if_range_date_must_be_strong)
{
	static const char lines[] = "Range: bytes=0-9\r\nIf-Range: " MTIME_DATE
				    "\r\n";

	now = MTIME;
	CHECK_EQ_INT(get(lines), 200);
	now = MTIME + 1; /* a whole second apart, maybe less in time */
	CHECK_EQ_INT(get(lines), 200);
	now = MTIME + 2;
	CHECK_EQ_INT(get(lines), 206);
	/* A tag is strong whenever it was made. */
	now = MTIME;
	CHECK_EQ_INT(get("Range: bytes=0-9\r\nIf-Range: " TAG "\r\n"), 206);
	now = MTIME + 10;
}

TEST(vary_names_what_the_representation_varies_by)
{
	char out[HTTP_SELECT_HEADERS_MAX + 1];
	struct http_representation r = listing;
	size_t n;

	/* A listing: Accept chooses HTML or JSON, Accept-Encoding a coding. */
	r.varies_by_type = true;
	n = headers(&r, "", MTIME, out, sizeof(out));
	out[n] = '\0';
	CHECK_EQ_STR(out, "Vary: Accept\r\n");
	r.varies = true;
	n = headers(&r, "", MTIME, out, sizeof(out));
	out[n] = '\0';
	CHECK_EQ_STR(out, "Vary: Accept, Accept-Encoding\r\n");
	/* And on a 304, which stands for either. */
	n = headers(&r, "If-None-Match: *\r\n", MTIME, out, sizeof(out));
	out[n] = '\0';
	CHECK_EQ_STR(out, "Vary: Accept, Accept-Encoding\r\n");
	r.varies_by_type = false;
	n = headers(&r, "", MTIME, out, sizeof(out));
	out[n] = '\0';
	CHECK_EQ_STR(out, "Vary: Accept-Encoding\r\n");
}

/* Every header at its longest still fits HTTP_SELECT_HEADERS_MAX. */
TEST(longest_headers_fit)
{
	char out[HTTP_SELECT_HEADERS_MAX + 1];
	char tag[HTTP_ETAG_MAX + 1];
	struct http_representation r = file;
	size_t n;

	memset(tag, 'x', HTTP_ETAG_MAX);
	tag[0] = tag[HTTP_ETAG_MAX - 1] = '"';
	r.etag = tag;
	r.etag_len = HTTP_ETAG_MAX;
	r.size = UINT64_MAX - 1;
	r.varies = r.varies_by_type = true;
	r.weak = true;
	r.coding = "deflate";
	n = headers(&r, "Range: bytes=18446744073709551000-\r\n", MTIME, out,
		    HTTP_SELECT_HEADERS_MAX);
	out[n] = '\0';
	CHECK(n > 0);
	CHECK(strstr(out, "Content-Range: bytes 18446744073709551000-"));
}
