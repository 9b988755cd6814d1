// SPDX-License-Identifier: MIT
/*
 * Names come from the file system and may hold any byte but '/' and NUL:
 * they are HTML-escaped where shown and percent-encoded in links, so a file
 * name can neither inject markup nor turn a relative link into a scheme.
 */
#include "listing.h"
#include "format.h"

int http_listing_entry_cmp(const void *a, const void *b)
{
	const struct http_listing_entry *x = a, *y = b;
	size_t n = x->name_len < y->name_len ? x->name_len : y->name_len;
	int cmp;

	if (x->is_dir != y->is_dir)
		return x->is_dir ? -1 : 1;
	cmp = memcmp(x->name, y->name, n);
	if (cmp)
		return cmp;
	return x->name_len < y->name_len ? -1 : x->name_len > y->name_len;
}

void http_listing_begin(struct http_out *out, const char *dir, size_t len)
{
	http_out_puts(out,
		      "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">"
		      "<title>Index of ");
	http_out_html(out, dir, len);
	http_out_puts(out,
		      "</title>\n<style>body{font-family:sans-serif}"
		      "td{padding:0 1em 0 0}td.size{text-align:right}</style>"
		      "</head>\n<body>\n<h1>Index of ");
	http_out_html(out, dir, len);
	http_out_puts(out, "</h1>\n<table>\n<tr><th>Name</th><th>Size</th>"
			   "<th>Modified</th></tr>\n");
	if (len > 1)
		http_out_puts(out, "<tr><td><a href=\"../\">../</a></td>"
				   "<td></td><td></td></tr>\n");
}

void http_listing_entry(struct http_out *out,
			const struct http_listing_entry *e)
{
	const char *slash = e->is_dir ? "/" : "";

	http_out_puts(out, "<tr><td><a href=\"");
	http_out_url(out, e->name, e->name_len, false);
	http_out_puts(out, slash);
	http_out_puts(out, "\">");
	http_out_html(out, e->name, e->name_len);
	http_out_puts(out, slash);
	http_out_puts(out, "</a></td><td class=\"size\">");
	if (e->has_stat && !e->is_dir)
		http_out_u64(out, e->size);
	else
		http_out_puts(out, "-");
	http_out_puts(out, "</td><td>");
	if (e->has_stat) {
		char when[HTTP_LISTING_TIME_LEN];

		http_format_listing_time(when, e->mtime);
		http_out_put(out, when, sizeof(when));
	}
	http_out_puts(out, "</td></tr>\n");
}

void http_listing_end(struct http_out *out)
{
	http_out_puts(out, "</table>\n</body></html>\n");
}
