// SPDX-License-Identifier: MIT
#include "body.h"

void http_body_skip_init(struct http_body_skipper *b,
			 const struct http_request *req)
{
	b->chunked = req->chunked_body;
	b->left = req->chunked_body ? 0 : req->content_length;
	http_chunked_init(&b->chunks);
}

int http_body_skip(struct http_body_skipper *b, const char *buf, size_t len,
		   size_t *used)
{
	if (b->chunked) {
		int r = http_chunked_decode(&b->chunks, buf, len, used);

		if (r == HTTP_CHUNKED_ERROR)
			return HTTP_BODY_ERROR;
		return r == HTTP_CHUNKED_DONE ? HTTP_BODY_DONE :
						HTTP_BODY_AGAIN;
	}
	*used = len < b->left ? len : (size_t)b->left;
	b->left -= *used;
	return b->left == 0 ? HTTP_BODY_DONE : HTTP_BODY_AGAIN;
}

bool http_body_expects_continue(const char *buf, const struct http_request *req)
{
	static const char name[] = "expect";
	uint32_t pos = req->fields_off;

	/* HTTP/1.0 clients know no 100 (RFC 9110 15.2). */
	if (http_body_none(req) || req->version_minor == 0)
		return false;
	/* Expect is not a field the parser records: walk the (validated)
	 * field lines, as http_header_list() does for repeated fields. */
	while (pos < req->head_len) {
		uint32_t start = pos, vs, ve;

		while (buf[pos] != '\n')
			pos++;
		ve = pos++;
		if (ve > start && buf[ve - 1] == '\r')
			ve--;
		if (ve == start)
			break; /* the empty line ending the head */
		if (ve - start <= sizeof(name) - 1 ||
		    buf[start + sizeof(name) - 1] != ':' ||
		    !http_eq_lower(buf + start, name, sizeof(name) - 1))
			continue;
		vs = start + sizeof(name);
		if (http_list_has_token(buf + vs, ve - vs, "100-continue"))
			return true;
	}
	return false;
}
