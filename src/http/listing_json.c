// SPDX-License-Identifier: MIT
/*
 * One object per line, so that a listing diffs and greps well.  Names are
 * JSON-escaped, and bytes that are not UTF-8 replaced, so that any name
 * keeps the document valid; the url keeps the name's bytes,
 * percent-encoded as in the HTML page's links.
 */
#include "listing_json.h"
#include "format.h"

void http_listing_json_begin(struct http_out *out)
{
	http_out_puts(out, "[");
}

static const char *entry_type(const struct http_listing_entry *e)
{
	if (e->is_link)
		return "symlink";
	return e->is_dir ? "directory" : "file";
}

void http_listing_json_entry(struct http_out *out,
			     const struct http_listing_entry *e, size_t index)
{
	http_out_puts(out, index ? ",\n{\"name\":\"" : "\n{\"name\":\"");
	http_out_json(out, e->name, e->name_len);
	http_out_puts(out, "\",\"type\":\"");
	http_out_puts(out, entry_type(e));
	http_out_puts(out, "\",\"size\":");
	if (e->has_stat && !e->is_dir)
		http_out_u64(out, e->size);
	else
		http_out_puts(out, "null");
	http_out_puts(out, ",\"mtime\":");
	if (e->has_stat) {
		char when[HTTP_RFC3339_LEN];

		http_format_rfc3339(when, e->mtime);
		http_out_puts(out, "\"");
		http_out_put(out, when, sizeof(when));
		http_out_puts(out, "\"");
	} else {
		http_out_puts(out, "null");
	}
	http_out_puts(out, ",\"url\":\"");
	http_out_url(out, e->name, e->name_len, false);
	http_out_puts(out, e->is_dir ? "/\"}" : "\"}");
}

void http_listing_json_end(struct http_out *out)
{
	http_out_puts(out, "\n]\n");
}
