// SPDX-License-Identifier: MIT
/*
 * Names come from the file system and may hold any byte but '/' and NUL:
 * they are HTML-escaped where shown and percent-encoded in links, so a file
 * name can neither inject markup nor turn a relative link into a scheme.
 * The page needs no script: the column headers are links to the other
 * orders, and long names wrap instead of widening the table.
 */
#include "listing.h"
#include "accept.h"
#include "format.h"
#include "listing_json.h"

static int by_name(const struct http_listing_entry *x,
		   const struct http_listing_entry *y)
{
	size_t n = x->name_len < y->name_len ? x->name_len : y->name_len;
	int cmp = memcmp(x->name, y->name, n);

	if (cmp)
		return cmp;
	return x->name_len < y->name_len ? -1 : x->name_len > y->name_len;
}

/* A directory's size means nothing: directories compare equal by size. */
static int by_size(const struct http_listing_entry *x,
		   const struct http_listing_entry *y)
{
	uint64_t a = x->has_stat && !x->is_dir ? x->size : 0;
	uint64_t b = y->has_stat && !y->is_dir ? y->size : 0;

	return a < b ? -1 : a > b;
}

/* Entries without a known time come first, as the oldest. */
static int by_date(const struct http_listing_entry *x,
		   const struct http_listing_entry *y)
{
	int64_t a = x->has_stat ? x->mtime : INT64_MIN;
	int64_t b = y->has_stat ? y->mtime : INT64_MIN;

	return a < b ? -1 : a > b;
}

static int dirs_first(const struct http_listing_entry *x,
		      const struct http_listing_entry *y)
{
	if (x->is_dir != y->is_dir)
		return x->is_dir ? -1 : 1;
	return 0;
}

int http_listing_entry_cmp(const void *a, const void *b)
{
	return dirs_first(a, b) ?: by_name(a, b);
}

static int name_desc(const void *a, const void *b)
{
	return dirs_first(a, b) ?: by_name(b, a);
}

#define KEYED_CMP(key)                                                 \
	static int key##_asc(const void *a, const void *b)             \
	{                                                              \
		return dirs_first(a, b) ?: key(a, b) ?: by_name(a, b); \
	}                                                              \
	static int key##_desc(const void *a, const void *b)            \
	{                                                              \
		return dirs_first(a, b) ?: key(b, a) ?: by_name(a, b); \
	}

KEYED_CMP(by_size)
KEYED_CMP(by_date)

http_listing_cmp_fn http_listing_comparator(struct http_listing_order o)
{
	switch (o.key) {
	case HTTP_LISTING_BY_SIZE:
		return o.desc ? by_size_desc : by_size_asc;
	case HTTP_LISTING_BY_DATE:
		return o.desc ? by_date_desc : by_date_asc;
	default:
		return o.desc ? name_desc : http_listing_entry_cmp;
	}
}

static bool param_is(const char *p, size_t n, const char *s)
{
	return n == strlen(s) && !memcmp(p, s, n);
}

struct http_listing_order http_listing_order_parse(const char *query,
						   size_t len)
{
	struct http_listing_order o = HTTP_LISTING_ORDER_DEFAULT;
	size_t i = 0;

	while (i < len) {
		const char *p = query + i;
		size_t n = 0;

		while (i + n < len && p[n] != '&' && p[n] != ';')
			n++;
		if (param_is(p, n, "sort=name"))
			o.key = HTTP_LISTING_BY_NAME;
		else if (param_is(p, n, "sort=size"))
			o.key = HTTP_LISTING_BY_SIZE;
		else if (param_is(p, n, "sort=date"))
			o.key = HTTP_LISTING_BY_DATE;
		else if (param_is(p, n, "order=asc"))
			o.desc = false;
		else if (param_is(p, n, "order=desc"))
			o.desc = true;
		i += n + 1;
	}
	return o;
}

enum http_listing_format http_listing_format_of(const char *buf,
						const struct http_request *req)
{
	char tmp[HTTP_LIST_JOIN_MAX];
	const char *accept;
	size_t len;

	if (!http_has_header(req, HTTP_H_ACCEPT))
		return HTTP_LISTING_HTML;
	/* On several lines, one list (RFC 9110 5.3); too long: the page. */
	len = http_header_list(buf, req, HTTP_H_ACCEPT, tmp, sizeof(tmp),
			       &accept);
	return http_accept_prefers(accept, len, "application/json",
				   "text/html") ?
		       HTTP_LISTING_JSON :
		       HTTP_LISTING_HTML;
}

const char *http_listing_content_type(enum http_listing_format f)
{
	/* JSON has no charset parameter: it is UTF-8 (RFC 8259 11). */
	return f == HTTP_LISTING_JSON ? "application/json" :
					"text/html; charset=utf-8";
}

size_t http_listing_cache_key(char *key, const char *dir, size_t len,
			      struct http_listing_order o,
			      enum http_listing_format f)
{
	static const char letters[] = "nsd";

	if (key != dir)
		memmove(key, dir, len);
	if (http_listing_order_is_default(o) && f == HTTP_LISTING_HTML)
		return len;
	key[len] = '\0';
	key[len + 1] = o.desc ? (char)(letters[o.key % 3] - 32) :
				letters[o.key % 3];
	if (f == HTTP_LISTING_HTML)
		return len + 2;
	key[len + 2] = 'j';
	return len + 3;
}

/* Wraps long names anywhere rather than widen the page past the screen. */
static const char listing_style[] =
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
	"background:none;color:LinkText;cursor:pointer}</style>";

/*
 * A column header: a way to its order, ascending unless it is current.
 * The default order is a link to "./" (no query: the canonical URL); the
 * others are GET forms, which crawlers (wget --mirror) do not submit, so
 * they fetch each listing once, not once per order (rel="nofollow" on a
 * link does not stop wget).
 */
static void column(struct http_out *out, struct http_listing_order cur,
		   enum http_listing_key key, const char *param,
		   const char *label)
{
	bool active = cur.key == key;
	struct http_listing_order to = { .key = key,
					 .desc = active && !cur.desc };
	bool is_link = http_listing_order_is_default(to);

	http_out_puts(out, key == HTTP_LISTING_BY_SIZE ? "<th class=\"size\"" :
							 "<th");
	if (active)
		http_out_puts(out, cur.desc ? " aria-sort=\"descending\"" :
					      " aria-sort=\"ascending\"");
	if (is_link) {
		http_out_puts(out, "><a href=\"./\">");
	} else {
		http_out_puts(out, "><form><input type=\"hidden\" "
				   "name=\"sort\" value=\"");
		http_out_puts(out, param);
		http_out_puts(out, to.desc ? "\"><button name=\"order\" "
					     "value=\"desc\">" :
					     "\"><button name=\"order\" "
					     "value=\"asc\">");
	}
	http_out_puts(out, label);
	if (active) /* U+25BC and U+25B2, down and up */
		http_out_puts(out,
			      cur.desc ? " \xe2\x96\xbc" : " \xe2\x96\xb2");
	http_out_puts(out, is_link ? "</a></th>" : "</button></form></th>");
}

void http_listing_begin(struct http_out *out, const char *dir, size_t len,
			struct http_listing_order order)
{
	http_out_puts(out,
		      "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">\n"
		      "<meta name=\"viewport\" "
		      "content=\"width=device-width, initial-scale=1\">\n"
		      "<title>Index of ");
	http_out_html(out, dir, len);
	http_out_puts(out, "</title>\n");
	/* Another order of the same entries: the default's URL is the one. */
	if (!http_listing_order_is_default(order))
		http_out_puts(out, "<link rel=\"canonical\" href=\"./\">\n");
	http_out_puts(out, listing_style);
	http_out_puts(out, "</head>\n<body>\n<h1>Index of ");
	http_out_html(out, dir, len);
	http_out_puts(out, "</h1>\n<table>\n<tr>");
	column(out, order, HTTP_LISTING_BY_NAME, "name", "Name");
	column(out, order, HTTP_LISTING_BY_SIZE, "size", "Size");
	column(out, order, HTTP_LISTING_BY_DATE, "date", "Modified (UTC)");
	http_out_puts(out, "</tr>\n");
	if (len > 1)
		http_out_puts(out, "<tr><td class=\"name\"><a href=\"../\">"
				   "../</a></td><td></td><td></td></tr>\n");
}

void http_listing_entry(struct http_out *out,
			const struct http_listing_entry *e)
{
	const char *slash = e->is_dir ? "/" : "";

	http_out_puts(out, "<tr><td class=\"name\"><a href=\"");
	http_out_url(out, e->name, e->name_len, false);
	http_out_puts(out, slash);
	http_out_puts(out, "\">");
	http_out_html(out, e->name, e->name_len);
	http_out_puts(out, slash);
	http_out_puts(out, "</a></td><td class=\"size\"");
	if (e->has_stat && !e->is_dir) {
		char human[HTTP_SIZE_LEN];

		http_out_puts(out, " title=\"");
		http_out_u64(out, e->size);
		http_out_puts(out, e->size == 1 ? " byte\">" : " bytes\">");
		http_out_put(out, human, http_format_size(human, e->size));
	} else {
		http_out_puts(out, ">-");
	}
	http_out_puts(out, "</td><td class=\"date\">");
	if (e->has_stat) {
		char when[HTTP_LISTING_TIME_LEN];

		http_format_listing_time(when, e->mtime);
		http_out_put(out, when, sizeof(when));
		http_out_puts(out, " UTC");
	}
	http_out_puts(out, "</td></tr>\n");
}

void http_listing_end(struct http_out *out)
{
	http_out_puts(out, "</table>\n</body></html>\n");
}

void http_listing_write_begin(struct http_out *out, enum http_listing_format f,
			      const char *dir, size_t len,
			      struct http_listing_order order)
{
	if (f == HTTP_LISTING_JSON)
		http_listing_json_begin(out);
	else
		http_listing_begin(out, dir, len, order);
}

void http_listing_write_entry(struct http_out *out, enum http_listing_format f,
			      const struct http_listing_entry *e, size_t index)
{
	if (f == HTTP_LISTING_JSON)
		http_listing_json_entry(out, e, index);
	else
		http_listing_entry(out, e);
}

void http_listing_write_end(struct http_out *out, enum http_listing_format f)
{
	if (f == HTTP_LISTING_JSON)
		http_listing_json_end(out);
	else
		http_listing_end(out);
}
