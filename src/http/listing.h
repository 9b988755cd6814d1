/* SPDX-License-Identifier: MIT */
/*
 * The directory listing, written through a struct http_out: an HTML page,
 * or a JSON array when the request prefers it (listing_json.c).
 */
#ifndef HTTP_LISTING_H
#define HTTP_LISTING_H

#include "compat.h"
#include "out.h"
#include "parser.h"

struct http_listing_entry {
	const char *name;
	size_t name_len;
	bool is_dir; /* a directory, or a link to one */
	bool is_link; /* a symbolic link, described by what it leads to */
	bool has_stat; /* size and mtime known */
	uint64_t size;
	int64_t mtime;
};

/* Directories first, then names in byte order; a qsort/sort comparator. */
int http_listing_entry_cmp(const void *a, const void *b);

/* The column a listing is sorted by. */
enum http_listing_key {
	HTTP_LISTING_BY_NAME,
	HTTP_LISTING_BY_SIZE,
	HTTP_LISTING_BY_DATE,
};

struct http_listing_order {
	uint8_t key; /* enum http_listing_key */
	bool desc;
};

/* By name, ascending: http_listing_entry_cmp's order. */
#define HTTP_LISTING_ORDER_DEFAULT \
	((struct http_listing_order){ .key = HTTP_LISTING_BY_NAME })

/*
 * The order a directory URL's query asks for: "sort=name|size|date" and
 * "order=asc|desc", separated by '&' or ';'.  A parameter that is missing,
 * unknown or has another value keeps its default; nothing of the query is
 * ever written into the page.
 */
struct http_listing_order http_listing_order_parse(const char *query,
						   size_t len);

/* The order the query of req (whose bytes are in buf) asks for. */
static inline struct http_listing_order
http_listing_order_of(const char *buf, const struct http_request *req)
{
	if (!req->has_query)
		return HTTP_LISTING_ORDER_DEFAULT;
	return http_listing_order_parse(http_span_ptr(buf, req->query),
					req->query.len);
}

static inline bool http_listing_order_is_default(struct http_listing_order o)
{
	return o.key == HTTP_LISTING_BY_NAME && !o.desc;
}

/*
 * The comparator for an order: directories always first, then by the key
 * (ties by name, ascending).  For qsort() and the kernel's sort().
 */
typedef int (*http_listing_cmp_fn)(const void *a, const void *b);
http_listing_cmp_fn http_listing_comparator(struct http_listing_order o);

/* The forms a listing is written in. */
enum http_listing_format {
	HTTP_LISTING_HTML,
	HTTP_LISTING_JSON,
};

/*
 * The form req (whose bytes are in buf) asks for: JSON when its Accept
 * prefers application/json to text/html (accept.h), else HTML: browsers,
 * and curl with its range for any type, get the page.
 */
enum http_listing_format http_listing_format_of(const char *buf,
						const struct http_request *req);

/* Its Content-Type. */
const char *http_listing_content_type(enum http_listing_format f);

/*
 * The key that caches the listing of dir (len bytes) in order o and form f,
 * written to key, which has room for len + HTTP_LISTING_KEY_EXTRA bytes
 * (key may be dir): dir itself for the default order in HTML, else dir, a
 * NUL, a letter naming the order and, for JSON, a 'j' (no request path
 * holds a NUL, so no file's key is ever the same).  Returns its length.
 */
#define HTTP_LISTING_KEY_EXTRA 3
size_t http_listing_cache_key(char *key, const char *dir, size_t len,
			      struct http_listing_order o,
			      enum http_listing_format f);

/*
 * dir is the decoded, normalised directory path, ending in '/'; order is
 * the one the entries were sorted in, marked in the column headers, which
 * link to the other orders.
 */
void http_listing_begin(struct http_out *out, const char *dir, size_t len,
			struct http_listing_order order);
void http_listing_entry(struct http_out *out,
			const struct http_listing_entry *e);
void http_listing_end(struct http_out *out);

/*
 * A listing in form f: begin, each entry (index counting from 0, in the
 * order they are listed), end.  The HTML page's, above, or the JSON
 * array's (listing_json.h).
 */
void http_listing_write_begin(struct http_out *out, enum http_listing_format f,
			      const char *dir, size_t len,
			      struct http_listing_order order);
void http_listing_write_entry(struct http_out *out, enum http_listing_format f,
			      const struct http_listing_entry *e, size_t index);
void http_listing_write_end(struct http_out *out, enum http_listing_format f);

#endif /* HTTP_LISTING_H */
