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
