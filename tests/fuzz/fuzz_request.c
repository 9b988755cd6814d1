// SPDX-License-Identifier: MIT
/*
 * libFuzzer target for the HTTP core.  The input is parsed as a request head
 * in one call and again split in two at a point derived from the input (and
 * byte by byte when short): every way must reach the same verdict.  Then the
 * parts of the input go through routing, path normalisation, the chunked
 * decoder, the escapers, Accept and the listing (HTML and JSON), each
 * checked against invariants;
 * so do the values of the fields the servers act on (Host, Transfer-Encoding,
 * Range, the dates and the preconditions), both from a parsed request and
 * as the raw input.
 *
 * Linked with replay.c instead of libFuzzer, it runs the files named on
 * its command line, for machines without libFuzzer.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "http/accept.h"
#include "http/body.h"
#include "http/chunked.h"
#include "http/conditional.h"
#include "http/escape.h"
#include "http/format.h"
#include "http/host.h"
#include "http/listing.h"
#include "http/mime.h"
#include "http/parser.h"
#include "http/path.h"
#include "http/range.h"
#include "http/route.h"
#include "http/select.h"

static bool span_in(struct http_span s, size_t limit)
{
	return s.off <= limit && s.len <= limit - s.off;
}

static bool same_span(struct http_span a, struct http_span b)
{
	return a.off == b.off && a.len == b.len;
}

static void assert_same_request(const struct http_request *a,
				const struct http_request *b)
{
	FUZZ_ASSERT(a->method == b->method);
	FUZZ_ASSERT(a->version_minor == b->version_minor);
	FUZZ_ASSERT(a->keep_alive == b->keep_alive);
	FUZZ_ASSERT(a->target_ok == b->target_ok);
	FUZZ_ASSERT(a->has_query == b->has_query);
	FUZZ_ASSERT(a->chunked_body == b->chunked_body);
	FUZZ_ASSERT(a->content_length == b->content_length);
	FUZZ_ASSERT(same_span(a->method_name, b->method_name));
	FUZZ_ASSERT(same_span(a->target, b->target));
	FUZZ_ASSERT(!a->target_ok || same_span(a->path, b->path));
	FUZZ_ASSERT(!a->has_query || same_span(a->query, b->query));
	FUZZ_ASSERT(a->present == b->present);
	FUZZ_ASSERT(a->nfields == b->nfields);
	FUZZ_ASSERT(a->head_len == b->head_len);
	for (int id = 0; id < HTTP_H_COUNT; id++) {
		if (http_has_header(a, id))
			FUZZ_ASSERT(same_span(a->header[id], b->header[id]));
	}
}

static int parse_once(const char *buf, size_t n, struct http_request *req)
{
	struct http_parser p;

	http_parser_init(&p);
	return http_parse_request(&p, req, buf, n);
}

/* Two calls, the second on a different copy of the bytes. */
static int parse_split(const char *buf, size_t n, size_t at,
		       struct http_request *req)
{
	struct http_parser p;
	char *first = dup_exact(buf, at);
	int r;

	http_parser_init(&p);
	r = http_parse_request(&p, req, first, at);
	free(first);
	if (r == HTTP_PARSE_AGAIN)
		r = http_parse_request(&p, req, buf, n);
	return r;
}

static int parse_bytewise(const char *buf, size_t n, struct http_request *req)
{
	struct http_parser p;
	int r = HTTP_PARSE_AGAIN;

	http_parser_init(&p);
	for (size_t k = 1; k <= n && r == HTTP_PARSE_AGAIN; k++)
		r = http_parse_request(&p, req, buf, k);
	return r;
}

static void check_request(const struct http_request *req, int r, size_t n)
{
	size_t head = (size_t)r;

	FUZZ_ASSERT(head == req->head_len && head <= n);
	FUZZ_ASSERT(head <= HTTP_MAX_HEAD);
	FUZZ_ASSERT(req->method != HTTP_METHOD_UNKNOWN);
	FUZZ_ASSERT(req->version_minor <= 1);
	FUZZ_ASSERT(req->nfields <= HTTP_MAX_HEADER_FIELDS);
	FUZZ_ASSERT(req->method_name.len > 0);
	FUZZ_ASSERT(span_in(req->method_name, head));
	FUZZ_ASSERT(req->target.len > 0 && span_in(req->target, head));
	FUZZ_ASSERT(req->target.off + req->target.len <=
		    (size_t)HTTP_MAX_REQUEST_LINE);
	if (req->target_ok) {
		FUZZ_ASSERT(req->path.off >= req->target.off);
		FUZZ_ASSERT(req->path.off + req->path.len <=
			    req->target.off + req->target.len);
	}
	if (req->has_query) {
		FUZZ_ASSERT(req->target_ok);
		FUZZ_ASSERT(req->query.off > req->target.off);
		FUZZ_ASSERT(req->query.off + req->query.len ==
			    req->target.off + req->target.len);
	}
	for (int id = 0; id < HTTP_H_COUNT; id++) {
		if (http_has_header(req, id))
			FUZZ_ASSERT(span_in(req->header[id], head));
	}
	FUZZ_ASSERT(!(req->chunked_body &&
		      http_has_header(req, HTTP_H_CONTENT_LENGTH)));
	FUZZ_ASSERT(req->version_minor == 0 ||
		    http_has_header(req, HTTP_H_HOST));
	/* A CONNECT closes: what follows its head is no request. */
	if (req->method == HTTP_CONNECT)
		FUZZ_ASSERT(!req->keep_alive);
	else if (req->version_minor == 1 &&
		 !http_has_header(req, HTTP_H_CONNECTION))
		FUZZ_ASSERT(req->keep_alive);
	if (req->version_minor == 0 && !http_has_header(req, HTTP_H_CONNECTION))
		FUZZ_ASSERT(!req->keep_alive);
	/* An accepted Transfer-Encoding is chunked, and ends HTTP/1.0. */
	FUZZ_ASSERT(req->chunked_body ==
		    http_has_header(req, HTTP_H_TRANSFER_ENCODING));
	if (req->chunked_body && req->version_minor == 0)
		FUZZ_ASSERT(!req->keep_alive);
	/* Range and the dates on two lines are dropped, not last-wins. */
	if (req->repeated & (1u << HTTP_H_RANGE | 1u << HTTP_H_IF_RANGE))
		FUZZ_ASSERT(!http_has_header(req, HTTP_H_RANGE));
	if (req->repeated & (1u << HTTP_H_IF_MODIFIED_SINCE))
		FUZZ_ASSERT(!http_has_header(req, HTTP_H_IF_MODIFIED_SINCE));
}

/* A Host the parser accepts: no byte that cannot be in uri-host [:port]. */
static void check_host(const char *s, size_t n)
{
	if (!http_host_valid(s, n))
		return;
	for (size_t i = 0; i < n; i++) {
		uint8_t c = (uint8_t)s[i];

		FUZZ_ASSERT(c > 0x20 && c < 0x7f && c != '/' && c != '?' &&
			    c != '#' && c != '@' && c != '"' && c != '\\');
	}
	if (n && s[0] == '[')
		FUZZ_ASSERT(memchr(s, ']', n));
	else
		FUZZ_ASSERT(!memchr(s, '[', n) && !memchr(s, ']', n));
}

static void check_range(const char *v, size_t n, uint64_t size)
{
	uint64_t first = 0, last = 0;

	switch (http_parse_range(v, n, size, &first, &last)) {
	case HTTP_RANGE_OK:
		FUZZ_ASSERT(size > 0 && first <= last && last < size);
		break;
	case HTTP_RANGE_UNSATISFIABLE:
	case HTTP_RANGE_NONE:
		break;
	default:
		FUZZ_ASSERT(0);
	}
}

/*
 * A date the parser accepts is a real calendar date: formatted again it
 * reads back the same, and an IMF-fixdate keeps its day of the month.
 */
static void check_date(const char *s, size_t n)
{
	char again[HTTP_DATE_LEN];
	struct http_tm tm;
	int64_t t, t2;

	/* Two-digit years are read as at 2026-11-29. */
	if (http_parse_date(s, n, 1795910400, &t))
		return;
	FUZZ_ASSERT(t >= -62167219200LL && t <= 253402300800LL); /* 0-9999 */
	http_time_to_tm(t, &tm);
	if (n == HTTP_DATE_LEN && s[3] == ',' && s[23] != '6')
		FUZZ_ASSERT(tm.day == (s[5] - '0') * 10 + (s[6] - '0'));
	if (t >= 0) {
		http_format_date(again, t);
		FUZZ_ASSERT(!http_parse_date(again, sizeof(again), 1795910400,
					     &t2));
		FUZZ_ASSERT(t2 == t);
	}
}

/* The values of the fields that select a representation. */
static void check_fields(const char *buf, const struct http_request *req,
			 uint64_t size)
{
	static const char etag[] = "\"1-2-3\"";
	char tmp[HTTP_LIST_JOIN_MAX];
	const char *list;
	size_t n;

	/* An absolute-form target names a valid, non-empty host. */
	if (req->target_ok && buf[req->target.off] != '/') {
		const char *a =
			memchr(buf + req->target.off, '/', req->target.len);
		size_t alen;

		FUZZ_ASSERT(a && a[1] == '/');
		a += 2;
		alen = (size_t)(buf + req->path.off - a);
		FUZZ_ASSERT(alen > 0 && http_host_valid(a, alen));
	}

	if (http_has_header(req, HTTP_H_HOST)) {
		struct http_span h = req->header[HTTP_H_HOST];

		FUZZ_ASSERT(http_host_valid(buf + h.off, h.len));
	}
	if (http_has_header(req, HTTP_H_RANGE)) {
		struct http_span r = req->header[HTTP_H_RANGE];

		check_range(buf + r.off, r.len, size);
		check_range(buf + r.off, r.len, 0);
	}
	if (http_has_header(req, HTTP_H_IF_MODIFIED_SINCE)) {
		struct http_span d = req->header[HTTP_H_IF_MODIFIED_SINCE];

		check_date(buf + d.off, d.len);
	}
	if (http_has_header(req, HTTP_H_IF_RANGE)) {
		struct http_span d = req->header[HTTP_H_IF_RANGE];

		check_date(buf + d.off, d.len);
	}
	n = http_header_list(buf, req, HTTP_H_IF_NONE_MATCH, tmp, sizeof(tmp),
			     &list);
	if (list)
		http_etag_list_matches(list, n, etag, sizeof(etag) - 1);
	n = http_header_list(buf, req, HTTP_H_TRANSFER_ENCODING, tmp,
			     sizeof(tmp), &list);
	if (list)
		FUZZ_ASSERT(http_list_has_token(list, n, "chunked"));
}

/* Preconditions and Range against a file of size bytes and a listing. */
static void check_select(const char *buf, const struct http_request *req,
			 uint64_t size)
{
	static const char tag[] = "\"e-1\"";
	const struct http_representation reps[] = {
		{ .etag = tag,
		  .etag_len = sizeof(tag) - 1,
		  .last_modified = 1700000000,
		  .size = size,
		  .ranges = true,
		  .varies = true,
		  .coding = "gzip" },
		/* Compressed as sent: a weak tag, which If-Range never holds. */
		{ .etag = tag,
		  .etag_len = sizeof(tag) - 1,
		  .weak = true,
		  .last_modified = 1700000000,
		  .size = size,
		  .ranges = true,
		  .varies = true,
		  .coding = "br" },
		{ .last_modified = HTTP_NO_TIME, .size = size, .varies = true },
	};
	char out[HTTP_SELECT_HEADERS_MAX];

	for (size_t i = 0; i < ARRAY_SIZE(reps); i++) {
		struct http_selection sel;

		/* A Date 100 s after the modification. */
		http_select(buf, req, &reps[i], 1700000100, &sel);
		FUZZ_ASSERT(sel.status == 200 || sel.status == 206 ||
			    sel.status == 304 || sel.status == 412 ||
			    sel.status == 416);
		FUZZ_ASSERT(reps[i].ranges ||
			    (sel.status != 206 && sel.status != 416));
		if (sel.status == 200)
			FUZZ_ASSERT(sel.first == 0 && sel.len == size);
		if (sel.status == 206)
			FUZZ_ASSERT(sel.len > 0 && sel.first < size &&
				    sel.len <= size - sel.first);
		FUZZ_ASSERT(http_select_headers(out, sizeof(out), &reps[i],
						&sel, INT64_MAX) > 0);
	}
}

static void check_normalized(const char *p, size_t n)
{
	FUZZ_ASSERT(n >= 1 && p[0] == '/');
	FUZZ_ASSERT(!memchr(p, '\0', n));
	for (size_t i = 0; i + 1 < n; i++) {
		FUZZ_ASSERT(!(p[i] == '/' && p[i + 1] == '/'));
		if (p[i] != '/' || p[i + 1] != '.')
			continue;
		/* "/." and "/.." are whole segments only as part of a name. */
		FUZZ_ASSERT(!(i + 2 == n || p[i + 2] == '/'));
		if (p[i + 2] == '.')
			FUZZ_ASSERT(!(i + 3 == n || p[i + 3] == '/'));
	}
}

static void check_path_normalize(const char *raw, size_t n)
{
	char *out = malloc(n + 1), *again;
	int r = http_path_normalize(raw, n, out, n + 1);

	if (r >= 0) {
		FUZZ_ASSERT((size_t)r <= n + 1);
		check_normalized(out, (size_t)r);
		/* Idempotent, unless a '%' would be decoded a second time. */
		if (!memchr(out, '%', (size_t)r)) {
			again = malloc((size_t)r + 1);
			FUZZ_ASSERT(http_path_normalize(out, (size_t)r, again,
							(size_t)r + 1) == r);
			FUZZ_ASSERT(!memcmp(again, out, (size_t)r));
			free(again);
		}
	}
	free(out);
}

static void check_route(const char *buf, const struct http_request *req)
{
	char *path = malloc(HTTP_PATH_MAX);
	int r = http_route(buf, req, path);
	bool routed = http_method_allowed_on_static(req->method) ||
		      req->method == HTTP_OPTIONS;

	if (r < 0) {
		FUZZ_ASSERT(r == -400 || r == -405);
		FUZZ_ASSERT((r == -405) == !routed);
	} else if (r == 0) {
		/* Only OPTIONS *: the server as a whole, no path. */
		FUZZ_ASSERT(req->method == HTTP_OPTIONS);
		FUZZ_ASSERT(req->target.len == 1 &&
			    buf[req->target.off] == '*' && path[0] == '\0');
	} else {
		/* The path and the query may each be percent-encoded whole. */
		size_t cap = (size_t)r * 3 + 2 + (size_t)req->query.len * 3;
		char *loc;
		size_t n;

		FUZZ_ASSERT(routed);
		FUZZ_ASSERT(r > 0 && r < HTTP_PATH_MAX);
		FUZZ_ASSERT(path[r] == '\0' && strlen(path) == (size_t)r);
		check_normalized(path, (size_t)r);
		/* The redirect is for directories asked for without a '/'. */
		if (path[r - 1] == '/') {
			free(path);
			return;
		}
		loc = malloc(cap);
		n = http_dir_redirect_location(loc, cap, buf, req, path,
					       (size_t)r);
		FUZZ_ASSERT(n > 0 && n <= cap);
		/* Path-absolute, never protocol-relative, one line. */
		FUZZ_ASSERT(loc[0] == '/' && (n == 1 || loc[1] != '/'));
		/* A URI: printable ASCII, no space, quote or angle. */
		for (size_t i = 0; i < n; i++)
			FUZZ_ASSERT(loc[i] > ' ' && loc[i] < 0x7f &&
				    loc[i] != '"' && loc[i] != '<' &&
				    loc[i] != '>');
		/* Too small by one byte: refused, not truncated. */
		FUZZ_ASSERT(http_dir_redirect_location(loc, n - 1, buf, req,
						       path, (size_t)r) == 0);
		free(loc);
	}
	free(path);
}

/* Feeds the decoder all at once and split at `at`; both must agree. */
static void check_chunked(const char *s, size_t n, size_t at)
{
	struct http_chunked_decoder d;
	size_t used1 = 0, used2 = 0, u = 0;
	int r1, r2;

	http_chunked_init(&d);
	r1 = http_chunked_decode(&d, s, n, &used1);
	if (r1 != HTTP_CHUNKED_ERROR)
		FUZZ_ASSERT(used1 <= n);
	if (r1 == HTTP_CHUNKED_AGAIN)
		FUZZ_ASSERT(used1 == n);

	http_chunked_init(&d);
	r2 = http_chunked_decode(&d, s, at, &u);
	if (r2 == HTTP_CHUNKED_AGAIN) {
		FUZZ_ASSERT(u == at);
		used2 = u;
		r2 = http_chunked_decode(&d, s + at, n - at, &u);
		if (r2 != HTTP_CHUNKED_ERROR) {
			FUZZ_ASSERT(u <= n - at);
			used2 += u;
		}
	} else if (r2 == HTTP_CHUNKED_DONE) {
		used2 = u;
	}
	FUZZ_ASSERT(r1 == r2);
	if (r1 != HTTP_CHUNKED_ERROR)
		FUZZ_ASSERT(used1 == used2);
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static void check_escapers(const char *s, size_t n)
{
	size_t hcap = n * HTTP_HTML_ESCAPE_MAX, ucap = n * HTTP_URL_ENCODE_MAX;
	char *h = malloc(hcap ? hcap : 1), *u = malloc(ucap ? ucap : 1);
	size_t hn = http_html_escape(s, n, h, hcap);
	size_t un = http_url_encode(s, n, u, ucap, true);
	size_t k = 0;

	FUZZ_ASSERT(n == 0 || (hn >= n && un >= n));
	for (size_t i = 0; i < hn; i++)
		FUZZ_ASSERT(h[i] != '<' && h[i] != '>' && h[i] != '"' &&
			    h[i] != '\'');
	/* Percent-decoding the URL form gives the input back. */
	for (size_t i = 0; i < un; i++, k++) {
		FUZZ_ASSERT(k < n);
		if (u[i] == '%') {
			int hi, lo;

			FUZZ_ASSERT(i + 2 < un);
			hi = hexval(u[i + 1]);
			lo = hexval(u[i + 2]);
			FUZZ_ASSERT(hi >= 0 && lo >= 0);
			FUZZ_ASSERT((char)(hi << 4 | lo) == s[k]);
			i += 2;
		} else {
			FUZZ_ASSERT(u[i] == s[k]);
		}
	}
	FUZZ_ASSERT(k == n);
	free(h);
	free(u);
}

struct sink {
	char *data;
	size_t len, cap;
};

static int sink_flush(struct http_out *out)
{
	struct sink *s = out->ctx;

	if (s->len + out->len > s->cap)
		return -1;
	memcpy(s->data + s->len, out->buf, out->len);
	s->len += out->len;
	out->len = 0;
	return 0;
}

static size_t render_listing(struct sink *s, size_t bufcap,
			     const struct http_listing_entry *e,
			     enum http_listing_format form)
{
	char *buf = malloc(bufcap);
	struct http_out out = {
		.buf = buf, .cap = bufcap, .flush = sink_flush, .ctx = s
	};

	s->len = 0;
	http_listing_write_begin(&out, form, "/d/", 3,
				 HTTP_LISTING_ORDER_DEFAULT);
	http_listing_write_entry(&out, form, e, 0);
	http_listing_write_entry(&out, form, e, 1);
	http_listing_write_end(&out, form);
	FUZZ_ASSERT(http_out_flush(&out) == 0);
	free(buf);
	return s->len;
}

static size_t count(const char *s, size_t n, char c)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		k += s[i] == c;
	return k;
}

/* Quotes that open or close JSON strings: those no backslash escapes. */
static size_t json_quotes(const char *s, size_t n)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\\')
			i++;
		else
			k += s[i] == '"';
	}
	return k;
}

/* A JSON listing is UTF-8 without raw control characters but its newlines,
 * and a name never opens or closes a string of its own. */
static void check_json_listing(const struct sink *a, const struct sink *plain)
{
	for (size_t i = 0; i < a->len;) {
		bool valid;
		size_t k = http_utf8_sequence(a->data + i, a->len - i, &valid);

		FUZZ_ASSERT(valid);
		FUZZ_ASSERT(a->data[i] == '\n' || (uint8_t)a->data[i] >= 0x20);
		FUZZ_ASSERT(a->data[i] != 0x7f);
		i += k;
	}
	FUZZ_ASSERT(json_quotes(a->data, a->len) ==
		    json_quotes(plain->data, plain->len));
}

/* The input as a file name: markup-neutral, same bytes at any buffer size,
 * in either form. */
static void check_listing(const char *name, size_t n, uint64_t v,
			  enum http_listing_format form)
{
	struct http_listing_entry e = { .name = name,
					.name_len = n,
					.is_dir = v & 1,
					.is_link = v & 4,
					.has_stat = v & 2,
					.size = v,
					.mtime = (int64_t)v };
	struct http_listing_entry plain = e;
	size_t cap = 4096 + n * 20;
	struct sink a = { malloc(cap), 0, cap }, b = { malloc(cap), 0, cap };
	struct sink c = { malloc(cap), 0, cap };

	plain.name = "x";
	plain.name_len = 1;
	render_listing(&a, 64, &e, form);
	render_listing(&b, cap, &e, form);
	FUZZ_ASSERT(a.len == b.len && !memcmp(a.data, b.data, a.len));
	render_listing(&c, cap, &plain, form);
	if (form == HTTP_LISTING_JSON) {
		check_json_listing(&a, &c);
	} else {
		FUZZ_ASSERT(count(a.data, a.len, '<') ==
			    count(c.data, c.len, '<'));
		FUZZ_ASSERT(count(a.data, a.len, '>') ==
			    count(c.data, c.len, '>'));
		FUZZ_ASSERT(count(a.data, a.len, '"') ==
			    count(c.data, c.len, '"'));
	}
	free(a.data);
	free(b.data);
	free(c.data);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const size_t edges[] = { 0, HTTP_MAX_REQUEST_LINE - 1,
					HTTP_MAX_REQUEST_LINE,
					HTTP_MAX_REQUEST_LINE + 1 };
	char *buf = dup_exact((const char *)data, size);
	uint32_t h = fnv1a(data, size);
	size_t at = size ? h % (size + 1) : 0;
	struct http_request one, two;
	int r1, r2;

	r1 = parse_once(buf, size, &one);
	r2 = parse_split(buf, size, at, &two);
	FUZZ_ASSERT(r1 == r2);
	/* Splits right at the edges of the limits, and before the end. */
	for (size_t i = 0; i < ARRAY_SIZE(edges); i++) {
		size_t e = edges[i] ? edges[i] : size - 1;

		if (e < size) {
			FUZZ_ASSERT(parse_split(buf, size, e, &two) == r1);
			if (r1 > 0)
				assert_same_request(&one, &two);
		}
	}
	if (size <= 4096) {
		r2 = parse_bytewise(buf, size, &two);
		FUZZ_ASSERT(r1 == r2);
	}
	if (r1 > 0)
		assert_same_request(&one, &two);
	FUZZ_ASSERT(r1 >= 0 || r1 == -400 || r1 == -414 || r1 == -431 ||
		    r1 == -501 || r1 == -505);
	/* A full buffer always gets a verdict. */
	FUZZ_ASSERT(r1 != HTTP_PARSE_AGAIN || size < HTTP_MAX_HEAD);

	if (r1 > 0) {
		check_request(&one, r1, size);
		check_fields(buf, &one, h);
		check_route(buf, &one);
		/* The Expect walk stays within the head and needs a body. */
		if (http_body_expects_continue(buf, &one))
			FUZZ_ASSERT(!http_body_none(&one) &&
				    one.version_minor == 1);
		check_select(buf, &one, h % 5000);
		FUZZ_ASSERT(http_listing_format_of(buf, &one) ==
				    HTTP_LISTING_HTML ||
			    http_has_header(&one, HTTP_H_ACCEPT));
		if (one.chunked_body)
			check_chunked(buf + r1, size - (size_t)r1,
				      (size - (size_t)r1) / 2);
	}
	check_path_normalize(buf, size);
	check_chunked(buf, size, at);
	if (size <= 1024) {
		uint64_t v = (uint64_t)h << 32 | fnv1a(data, size / 2);
		char date[HTTP_DATE_LEN + 1];

		check_escapers(buf, size);
		check_listing(buf, size, v, HTTP_LISTING_HTML);
		check_listing(buf, size, v, HTTP_LISTING_JSON);
		/* The input as an Accept value: a weight, whatever it holds. */
		FUZZ_ASSERT(http_accept_weight(buf, size, "application/json") <=
			    1000);
		FUZZ_ASSERT(http_accept_weight(buf, size, "text/html") >= 0);
		check_host(buf, size);
		check_range(buf, size, v >> (h & 63));
		check_date(buf, size);
		FUZZ_ASSERT(http_mime_type(buf, size) != NULL);
		FUZZ_ASSERT(http_listing_order_parse(buf, size).key <=
			    HTTP_LISTING_BY_DATE);
		{
			char human[HTTP_SIZE_LEN + 1];

			human[HTTP_SIZE_LEN] = '#';
			FUZZ_ASSERT(http_format_size(human, v) <=
				    HTTP_SIZE_LEN);
			FUZZ_ASSERT(human[HTTP_SIZE_LEN] == '#');
		}
		date[HTTP_DATE_LEN] = '#';
		http_format_date(date, (int64_t)v);
		FUZZ_ASSERT(date[HTTP_DATE_LEN] == '#');
	}
	free(buf);
	return 0;
}
