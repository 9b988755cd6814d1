/* SPDX-License-Identifier: MIT */
/*
 * The directory listing as JSON: an array with an object per entry, in
 * the order listed,
 *   {"name":"a.txt","type":"file","size":12,
 *    "mtime":"2026-11-25T09:14:20Z","url":"a.txt"}
 * type "file", "directory" or "symlink" (a link's size and mtime are its
 * target's); size null for a directory and where unknown, mtime null where
 * unknown; url the link the HTML page has for it.
 */
#ifndef HTTP_LISTING_JSON_H
#define HTTP_LISTING_JSON_H

#include "listing.h"
#include "out.h"

void http_listing_json_begin(struct http_out *out);
/* index counts the entries written before this one. */
void http_listing_json_entry(struct http_out *out,
			     const struct http_listing_entry *e, size_t index);
void http_listing_json_end(struct http_out *out);

#endif /* HTTP_LISTING_JSON_H */
