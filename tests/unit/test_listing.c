// SPDX-License-Identifier: MIT
/* The directory listing: order, escaping, links, and streaming. */
#include "harness.h"

#include "http/listing.h"

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

static void out_init(struct http_out *out, char *buf, size_t cap,
		     struct sink *s)
{
	s->len = 0;
	*out = (struct http_out){
		.buf = buf, .cap = cap, .flush = sink_flush, .ctx = s
	};
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

static struct http_listing_entry dir(const char *name, int64_t mtime)
{
	return (struct http_listing_entry){ .name = name,
					    .name_len = strlen(name),
					    .is_dir = true,
					    .has_stat = true,
					    .mtime = mtime };
}

/* Renders a whole listing in an order through a buffer of cap bytes. */
static size_t render_in(struct sink *s, size_t cap, const char *path,
			const struct http_listing_entry *e, size_t n,
			struct http_listing_order order)
{
	struct http_out out;
	char *buf = malloc(cap);

	out_init(&out, buf, cap, s);
	http_listing_begin(&out, path, strlen(path), order);
	for (size_t i = 0; i < n; i++)
		http_listing_entry(&out, &e[i]);
	http_listing_end(&out);
	if (http_out_flush(&out))
		s->len = 0;
	free(buf);
	s->data[s->len] = '\0';
	return s->len;
}

static size_t render(struct sink *s, size_t cap, const char *path,
		     const struct http_listing_entry *e, size_t n)
{
	return render_in(s, cap, path, e, n, HTTP_LISTING_ORDER_DEFAULT);
}

static bool contains(const struct sink *s, const char *needle)
{
	return strstr(s->data, needle) != NULL;
}

TEST(exact_document)
{
	static struct sink s;
	struct http_listing_entry e[] = {
		dir("sub", 784111777),
		file("a b.txt", 12, 1795153200), /* 2026-11-20 05:40 */
		{ .name = "nostat", .name_len = 6 },
	};

	render(&s, 4096, "/docs/", e, ARRAY_SIZE(e));
	CHECK_EQ_STR(
		s.data,
		"<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">\n"
		"<meta name=\"viewport\" "
		"content=\"width=device-width, initial-scale=1\">\n"
		"<title>Index of /docs/</title>\n"
		"<style>body{font-family:sans-serif;margin:1em}"
		"h1{font-size:1.4em}"
		"h1,td.name{overflow-wrap:anywhere;word-break:break-word}"
		"table{border-collapse:collapse;max-width:100%}"
		"th,td{padding:.15em 1em .15em 0;text-align:left;"
		"vertical-align:top}"
		"th.size,td.size{text-align:right}"
		"td.size,td.date{white-space:nowrap}"
		"th a{text-decoration:none}th form{margin:0}"
		"th button{font:inherit;font-weight:bold;border:0;padding:0;"
		"background:none;color:LinkText;cursor:pointer}</style>"
		"</head>\n<body>\n<h1>Index of /docs/</h1>\n<table>\n"
		"<tr><th aria-sort=\"ascending\"><form>"
		"<input type=\"hidden\" name=\"sort\" value=\"name\">"
		"<button name=\"order\" value=\"desc\">Name \xe2\x96\xb2"
		"</button></form></th><th class=\"size\"><form>"
		"<input type=\"hidden\" name=\"sort\" value=\"size\">"
		"<button name=\"order\" value=\"asc\">Size</button></form>"
		"</th><th><form>"
		"<input type=\"hidden\" name=\"sort\" value=\"date\">"
		"<button name=\"order\" value=\"asc\">Modified (UTC)"
		"</button></form></th></tr>\n"
		"<tr><td class=\"name\"><a href=\"../\">../</a></td>"
		"<td></td><td></td></tr>\n"
		"<tr><td class=\"name\"><a href=\"sub/\">sub/</a></td>"
		"<td class=\"size\">-</td>"
		"<td class=\"date\">1994-11-06 08:49 UTC</td></tr>\n"
		"<tr><td class=\"name\"><a href=\"a%20b.txt\">a b.txt</a></td>"
		"<td class=\"size\" title=\"12 bytes\">12 B</td>"
		"<td class=\"date\">2026-11-20 05:40 UTC</td></tr>\n"
		"<tr><td class=\"name\"><a href=\"nostat\">nostat</a></td>"
		"<td class=\"size\">-</td><td class=\"date\"></td></tr>\n"
		"</table>\n</body></html>\n");
}

TEST(parent_link_except_at_root)
{
	static struct sink s;

	render(&s, 4096, "/", NULL, 0);
	CHECK(!contains(&s, "href=\"../\""));
	CHECK(contains(&s, "<title>Index of /</title>"));
	render(&s, 4096, "/a/", NULL, 0);
	CHECK(contains(&s, "<a href=\"../\">../</a>"));
	render(&s, 4096, "/a/b/c/", NULL, 0);
	CHECK(contains(&s, "<a href=\"../\">../</a>"));
}

TEST(hostile_names_are_escaped_and_encoded)
{
	static struct sink s;
	struct http_listing_entry e[] = {
		file("<b>&\"x'.txt", 1, 0),
		file("space name.txt", 2, 0),
		file("percent%41.txt", 3, 0),
		file("\xc3\xbcn\xc3\xaf"
		     "c\xc3\xb6"
		     "d\xc3\xa9.txt",
		     4, 0),
		file("#hash?.txt", 5, 0),
		file("javascript:alert(1)", 6, 0),
		file("\"><script>x</script>", 7, 0),
		file("line\r\nbreak", 8, 0),
		dir("<i>dir", 0),
	};

	render(&s, 4096, "/<p>&\"'/", e, ARRAY_SIZE(e));
	CHECK(contains(&s, "<a href=\"%3Cb%3E%26%22x%27.txt\">"
			   "&lt;b&gt;&amp;&quot;x&#39;.txt</a>"));
	CHECK(contains(&s, "<a href=\"space%20name.txt\">space name.txt</a>"));
	CHECK(contains(&s, "<a href=\"percent%2541.txt\">percent%41.txt</a>"));
	CHECK(contains(&s, "<a href=\"%C3%BCn%C3%AFc%C3%B6d%C3%A9.txt\">"
			   "\xc3\xbcn\xc3\xaf"
			   "c\xc3\xb6"
			   "d\xc3\xa9.txt</a>"));
	CHECK(contains(&s, "<a href=\"%23hash%3F.txt\">#hash?.txt</a>"));
	CHECK(contains(&s, "<a href=\"javascript%3Aalert%281%29\">"));
	CHECK(contains(&s, "<a href=\"%22%3E%3Cscript%3Ex%3C%2Fscript%3E\">"
			   "&quot;&gt;&lt;script&gt;x&lt;/script&gt;</a>"));
	/* Control characters show as U+FFFD; the href keeps the bytes. */
	CHECK(contains(&s, "<a href=\"line%0D%0Abreak\">line\xef\xbf\xbd"
			   "\xef\xbf\xbd"
			   "break</a>"));
	CHECK(contains(&s, "<a href=\"%3Ci%3Edir/\">&lt;i&gt;dir/</a>"));
	CHECK(contains(&s, "<title>Index of /&lt;p&gt;&amp;&quot;&#39;/"));
	/* No markup from a name gets through raw. */
	CHECK(!contains(&s, "<b>"));
	CHECK(!contains(&s, "<i>"));
	CHECK(!contains(&s, "<script"));
	CHECK(!contains(&s, "<p>"));
}

TEST(sizes_and_times)
{
	static struct sink s;
	struct http_listing_entry e[] = {
		file("zero", 0, -1),
		file("big", 4295016448ull, 253402300799ll),
		file("max", UINT64_MAX, 0),
	};

	render(&s, 4096, "/", e, ARRAY_SIZE(e));
	CHECK(contains(&s, "\">zero</a></td><td class=\"size\" "
			   "title=\"0 bytes\">0 B</td>"
			   "<td class=\"date\">1969-12-31 23:59 UTC</td>"));
	CHECK(contains(&s, "\">big</a></td><td class=\"size\" "
			   "title=\"4295016448 bytes\">4.0 GiB</td>"
			   "<td class=\"date\">9999-12-31 23:59 UTC</td>"));
	CHECK(contains(&s, "<td class=\"size\" "
			   "title=\"18446744073709551615 bytes\">16 EiB</td>"
			   "<td class=\"date\">1970-01-01 00:00 UTC</td>"));
}

static int cmp(const char *a, bool adir, const char *b, bool bdir)
{
	struct http_listing_entry x = { .name = a,
					.name_len = strlen(a),
					.is_dir = adir };
	struct http_listing_entry y = { .name = b,
					.name_len = strlen(b),
					.is_dir = bdir };

	return http_listing_entry_cmp(&x, &y);
}

TEST(comparator)
{
	CHECK(cmp("a", false, "b", false) < 0);
	CHECK(cmp("b", false, "a", false) > 0);
	CHECK(cmp("a", false, "a", false) == 0);
	CHECK(cmp("z", true, "a", false) < 0);
	CHECK(cmp("a", false, "z", true) > 0);
	CHECK(cmp("B", false, "a", false) < 0);
	CHECK(cmp("a", false, "a.txt", false) < 0);
	CHECK(cmp("a.txt", false, "a", false) > 0);
	CHECK(cmp("z", false, "\xc3\xbc", false) < 0); /* bytes unsigned */
	CHECK(cmp("\x7f", false, "\x80", false) < 0);
	CHECK(cmp("", false, "a", false) < 0);
	/* The length counts, not a NUL: "ab" cut to "a" equals "a". */
	{
		struct http_listing_entry x = { .name = "ab", .name_len = 1 };
		struct http_listing_entry y = { .name = "a", .name_len = 1 };

		CHECK(http_listing_entry_cmp(&x, &y) == 0);
	}
}

TEST(sorted_order)
{
	static const char *const names[] = {
		"b.txt", "A",	  "a",	  "..foo", "\xc3\xbc", "a.txt",
		"_x",	 "B.txt", "zeta", "a b",   "10",       "9",
	};
	static const char *const want[] = {
		/* directories (odd indices above) first, by byte order */
		"..foo",
		"9",
		"A",
		"B.txt",
		"a b",
		"a.txt",
		/* then files */
		"10",
		"_x",
		"a",
		"b.txt",
		"zeta",
		"\xc3\xbc",
	};
	struct http_listing_entry e[ARRAY_SIZE(names)];

	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		e[i] = file(names[i], 0, 0);
		e[i].is_dir = i % 2 == 1;
	}
	qsort(e, ARRAY_SIZE(e), sizeof(e[0]), http_listing_entry_cmp);
	for (size_t i = 0; i < ARRAY_SIZE(want); i++)
		CHECK_EQ_STR(e[i].name, want[i]);
}

TEST(tiny_buffer_streams_the_same_bytes)
{
	static struct sink small, big;
	struct http_listing_entry e[120];
	char names[120][64];
	unsigned seed = 31337;

	for (size_t i = 0; i < ARRAY_SIZE(e); i++) {
		static const char pool[] = "<>&\"' %az.\xc3\xbc#?";
		size_t n = 1 + i % 60;

		for (size_t k = 0; k < n; k++) {
			seed = seed * 1103515245u + 12345u;
			names[i][k] = pool[(seed >> 16) % (sizeof(pool) - 1)];
		}
		names[i][n] = '\0';
		e[i] = file(names[i], (uint64_t)seed * i, (int64_t)seed * 97);
		e[i].is_dir = i % 3 == 0;
		e[i].has_stat = i % 5 != 0;
	}
	qsort(e, ARRAY_SIZE(e), sizeof(e[0]), http_listing_entry_cmp);
	for (size_t cap = 64; cap <= 80; cap++) {
		render(&small, cap, "/a<b>/", e, ARRAY_SIZE(e));
		render(&big, 1 << 19, "/a<b>/", e, ARRAY_SIZE(e));
		CHECK(small.len > 10000);
		CHECK_EQ_INT(small.len, big.len);
		CHECK(small.len == big.len &&
		      !memcmp(small.data, big.data, small.len));
	}
}

TEST(order_from_query)
{
	static const struct {
		const char *query;
		enum http_listing_key key;
		bool desc;
	} cases[] = {
		{ "", HTTP_LISTING_BY_NAME, false },
		{ "sort=size", HTTP_LISTING_BY_SIZE, false },
		{ "sort=size&order=desc", HTTP_LISTING_BY_SIZE, true },
		{ "order=desc;sort=date", HTTP_LISTING_BY_DATE, true },
		{ "sort=name&order=desc", HTTP_LISTING_BY_NAME, true },
		{ "order=desc", HTTP_LISTING_BY_NAME, true },
		{ "sort=date&sort=size", HTTP_LISTING_BY_SIZE, false },
		/* unknown or bad values: the default */
		{ "sort=SIZE&order=DESC", HTTP_LISTING_BY_NAME, false },
		{ "sort=size%00&order=up", HTTP_LISTING_BY_NAME, false },
		{ "sort=<script>&order=desc\"", HTTP_LISTING_BY_NAME, false },
		{ "sort=sizex", HTTP_LISTING_BY_NAME, false },
		{ "xsort=size", HTTP_LISTING_BY_NAME, false },
		{ "sort=", HTTP_LISTING_BY_NAME, false },
		{ "&&;;=", HTTP_LISTING_BY_NAME, false },
		{ "utm_source=x&sort=date", HTTP_LISTING_BY_DATE, false },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct http_listing_order o = http_listing_order_parse(
			cases[i].query, strlen(cases[i].query));

		CHECK_EQ_INT(o.key, cases[i].key);
		CHECK_EQ_INT(o.desc, cases[i].desc);
	}
	/* The length counts: "sort=size" cut short is no order. */
	CHECK_EQ_INT(http_listing_order_parse("sort=size", 8).key,
		     HTTP_LISTING_BY_NAME);
	CHECK_EQ_INT(http_listing_order_parse(NULL, 0).key,
		     HTTP_LISTING_BY_NAME);
}

static const char *sorted_names(struct http_listing_order o, char *out)
{
	struct http_listing_entry e[] = {
		file("b", 300, 50),  file("a", 100, 300),
		file("c", 100, 100), dir("zdir", 10),
		dir("adir", 20),     { .name = "nostat", .name_len = 6 },
	};

	qsort(e, ARRAY_SIZE(e), sizeof(e[0]), http_listing_comparator(o));
	out[0] = '\0';
	for (size_t i = 0; i < ARRAY_SIZE(e); i++) {
		strcat(out, e[i].name);
		strcat(out, " ");
	}
	return out;
}

TEST(comparators_for_each_order)
{
	char buf[128];
	struct http_listing_order o = HTTP_LISTING_ORDER_DEFAULT;

	CHECK(http_listing_comparator(o) == http_listing_entry_cmp);
	CHECK_EQ_STR(sorted_names(o, buf), "adir zdir a b c nostat ");
	o.desc = true;
	CHECK_EQ_STR(sorted_names(o, buf), "zdir adir nostat c b a ");
	o = (struct http_listing_order){ .key = HTTP_LISTING_BY_SIZE };
	CHECK_EQ_STR(sorted_names(o, buf), "adir zdir nostat a c b ");
	o.desc = true;
	CHECK_EQ_STR(sorted_names(o, buf), "adir zdir b a c nostat ");
	o = (struct http_listing_order){ .key = HTTP_LISTING_BY_DATE };
	CHECK_EQ_STR(sorted_names(o, buf), "zdir adir nostat b c a ");
	o.desc = true;
	CHECK_EQ_STR(sorted_names(o, buf), "adir zdir a c b nostat ");
}

#define ORDER_FORM(key, dir)                                            \
	"<form><input type=\"hidden\" name=\"sort\" value=\"" key "\">" \
	"<button name=\"order\" value=\"" dir "\">"

/*
 * The default order is a link to ./ without a query, the others GET forms
 * (not followed by crawlers such as wget --mirror, which ignores
 * rel="nofollow"), and the other orders name ./ canonical: a crawler
 * fetches each listing once, not once per order.
 */
TEST(headers_link_to_the_other_orders)
{
	static struct sink s;
	struct http_listing_order o = { .key = HTTP_LISTING_BY_SIZE,
					.desc = true };

	render_in(&s, 4096, "/", NULL, 0, o);
	CHECK(contains(&s, "<th><a href=\"./\">Name</a></th>"));
	CHECK(contains(
		&s, "<th class=\"size\" aria-sort=\"descending\">" ORDER_FORM(
			    "size", "asc") "Size \xe2\x96\xbc"
					   "</button></form></th>"));
	CHECK(contains(&s, "<th>" ORDER_FORM("date", "asc")));
	CHECK(contains(&s, "<link rel=\"canonical\" href=\"./\">"));
	o.desc = false;
	render_in(&s, 4096, "/", NULL, 0, o);
	CHECK(contains(&s,
		       "aria-sort=\"ascending\">" ORDER_FORM(
			       "size", "desc") "Size \xe2\x96\xb2</button>"));
	CHECK(!contains(&s, "aria-sort=\"descending\""));
	o = (struct http_listing_order){ .key = HTTP_LISTING_BY_NAME,
					 .desc = true };
	render_in(&s, 4096, "/", NULL, 0, o);
	CHECK(contains(&s, "<a href=\"./\">Name \xe2\x96\xbc</a>"));
	CHECK(contains(&s, "<link rel=\"canonical\" href=\"./\">"));
	/* The default order is the canonical page itself; no link has a
	 * query. */
	render_in(&s, 4096, "/", NULL, 0, HTTP_LISTING_ORDER_DEFAULT);
	CHECK(!contains(&s, "canonical"));
	CHECK(!contains(&s, "href=\"?"));
}

TEST(cache_keys_tell_orders_and_forms_apart)
{
	char key[16], seen[12][HTTP_LISTING_KEY_EXTRA];
	struct http_listing_order o = HTTP_LISTING_ORDER_DEFAULT;
	size_t n = 0, len;

	CHECK_EQ_INT(
		http_listing_cache_key(key, "/d/", 3, o, HTTP_LISTING_HTML), 3);
	CHECK(!memcmp(key, "/d/", 3));
	for (int f = HTTP_LISTING_HTML; f <= HTTP_LISTING_JSON; f++) {
		for (int k = HTTP_LISTING_BY_NAME; k <= HTTP_LISTING_BY_DATE;
		     k++) {
			for (int desc = 0; desc < 2; desc++) {
				o = (struct http_listing_order){
					.key = (uint8_t)k, .desc = desc
				};
				if (http_listing_order_is_default(o) &&
				    f == HTTP_LISTING_HTML)
					continue;
				len = http_listing_cache_key(
					key, "/d/", 3, o,
					(enum http_listing_format)f);
				CHECK_EQ_INT(len,
					     f == HTTP_LISTING_JSON ? 6 : 5);
				CHECK(len <= 3 + HTTP_LISTING_KEY_EXTRA);
				CHECK(!memcmp(key, "/d/\0", 4));
				memset(seen[n], 0, sizeof(seen[n]));
				memcpy(seen[n], key + 3, len - 3);
				for (size_t i = 0; i < n; i++)
					CHECK(memcmp(seen[i], seen[n],
						     sizeof(seen[n])));
				n++;
			}
		}
	}
	CHECK_EQ_INT(n, 11);
	/* In place, as sehttpd does with its path buffer. */
	memcpy(key, "/x/", 4);
	o = (struct http_listing_order){ .key = HTTP_LISTING_BY_DATE };
	CHECK_EQ_INT(http_listing_cache_key(key, key, 3, o, HTTP_LISTING_HTML),
		     5);
	CHECK(!memcmp(key, "/x/\0d", 5));
	memcpy(key, "/x/", 4);
	CHECK_EQ_INT(http_listing_cache_key(key, key, 3,
					    HTTP_LISTING_ORDER_DEFAULT,
					    HTTP_LISTING_JSON),
		     6);
	CHECK(!memcmp(key, "/x/\0nj", 6));
}

/* Parses a GET with the given header lines into req (buf holds it). */
static void parse_get(const char *lines, char *buf, size_t cap,
		      struct http_request *req)
{
	struct http_parser p;
	int n = snprintf(buf, cap, "GET /d/ HTTP/1.1\r\nHost: h\r\n%s\r\n",
			 lines);

	http_parser_init(&p);
	CHECK(n > 0 && http_parse_request(&p, req, buf, (size_t)n) == n);
}

TEST(form_from_accept)
{
	static const struct {
		const char *lines;
		enum http_listing_format want;
	} cases[] = {
		{ "", HTTP_LISTING_HTML },
		{ "Accept: */*\r\n", HTTP_LISTING_HTML },
		{ "Accept: text/html,application/xhtml+xml,application/xml;"
		  "q=0.9,*/*;q=0.8\r\n",
		  HTTP_LISTING_HTML },
		{ "Accept: application/json\r\n", HTTP_LISTING_JSON },
		{ "accept:   APPLICATION/JSON  \r\n", HTTP_LISTING_JSON },
		{ "Accept: application/json;q=0\r\n", HTTP_LISTING_HTML },
		{ "Accept: application/json;q=x\r\n", HTTP_LISTING_HTML },
		/* Lines of one list, joined. */
		{ "Accept: text/html;q=0.5\r\nAccept: application/json\r\n",
		  HTTP_LISTING_JSON },
		{ "Accept: application/json;q=0.5\r\nAccept: text/html\r\n",
		  HTTP_LISTING_HTML },
		{ "Accept-Encoding: application/json\r\n", HTTP_LISTING_HTML },
	};
	char buf[1024];
	struct http_request req;

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		parse_get(cases[i].lines, buf, sizeof(buf), &req);
		if (http_listing_format_of(buf, &req) != cases[i].want)
			fprintf(stderr, "  case %zu\n", i);
		CHECK_EQ_INT(http_listing_format_of(buf, &req), cases[i].want);
	}
	CHECK_EQ_STR(http_listing_content_type(HTTP_LISTING_HTML),
		     "text/html; charset=utf-8");
	CHECK_EQ_STR(http_listing_content_type(HTTP_LISTING_JSON),
		     "application/json");
}

/* Joined lines beyond what can be joined give the page. */
TEST(form_from_an_accept_too_long_to_join)
{
	static char buf[8192];
	char lines[4096];
	struct http_request req;
	size_t n = 0;

	for (int i = 0; i < 40; i++)
		n += (size_t)snprintf(lines + n, sizeof(lines) - n,
				      "Accept: text/plain;q=0.%d\r\n", i % 10);
	snprintf(lines + n, sizeof(lines) - n, "Accept: application/json\r\n");
	parse_get(lines, buf, sizeof(buf), &req);
	CHECK_EQ_INT(http_listing_format_of(buf, &req), HTTP_LISTING_HTML);
}

TEST(long_names_wrap)
{
	static struct sink s;

	render(&s, 4096, "/", NULL, 0);
	CHECK(contains(&s, "td.name{overflow-wrap:anywhere"));
	CHECK(contains(&s, "<meta name=\"viewport\""));
}
