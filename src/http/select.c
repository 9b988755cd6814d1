// SPDX-License-Identifier: MIT
#include "select.h"
#include "conditional.h"
#include "format.h"
#include "out.h"
#include "range.h"

/* If-Match: "*", or a list holding the strong tag (strong comparison). */
static bool if_match_holds(const char *buf, const struct http_request *req,
			   const struct http_representation *rep)
{
	char tmp[HTTP_LIST_JOIN_MAX];
	size_t pos = 0, start, end;
	const char *list;
	size_t len = http_header_list(buf, req, HTTP_H_IF_MATCH, tmp,
				      sizeof(tmp), &list);

	/* A list too long to join cannot be shown to hold. */
	if (!list)
		return false;
	while (http_list_next(list, len, &pos, &start, &end)) {
		if (end - start == 1 && list[start] == '*')
			return true;
		/* A weak tag (W/"x", or ours) never matches strongly. */
		if (rep->etag && !rep->weak && end - start == rep->etag_len &&
		    !memcmp(list + start, rep->etag, rep->etag_len))
			return true;
	}
	return false;
}

/* If-None-Match: "*", or a list holding the tag (weak comparison). */
static bool if_none_match_matches(const char *buf,
				  const struct http_request *req,
				  const struct http_representation *rep)
{
	char tmp[HTTP_LIST_JOIN_MAX];
	const char *list;
	size_t len = http_header_list(buf, req, HTTP_H_IF_NONE_MATCH, tmp,
				      sizeof(tmp), &list);

	/* A list too long to join is taken as not matching. */
	return list && http_etag_list_matches(list, len, rep->etag ?: "",
					      rep->etag_len);
}

/* The date of header id, when present, valid and on one line, read as
 * at now. */
static bool header_date(const char *buf, const struct http_request *req,
			enum http_header_id id, int64_t now, int64_t *t)
{
	struct http_span v = req->header[id];

	return http_has_header(req, id) && !(req->repeated & (1u << id)) &&
	       !http_parse_date(buf + v.off, v.len, now, t);
}

/*
 * The status the preconditions answer with, or 0 to carry on; modified:
 * the representation's last modification, as the head gives it.
 */
static int preconditions(const char *buf, const struct http_request *req,
			 const struct http_representation *rep,
			 int64_t modified, int64_t now)
{
	bool get_or_head = req->method == HTTP_GET || req->method == HTTP_HEAD;
	bool dated = modified != HTTP_NO_TIME;
	int64_t t;

	if (http_has_header(req, HTTP_H_IF_MATCH)) {
		if (!if_match_holds(buf, req, rep))
			return 412;
	} else if (dated &&
		   header_date(buf, req, HTTP_H_IF_UNMODIFIED_SINCE, now, &t) &&
		   modified > t) {
		return 412;
	}
	if (http_has_header(req, HTTP_H_IF_NONE_MATCH)) {
		if (if_none_match_matches(buf, req, rep))
			return get_or_head ? 304 : 412;
	} else if (get_or_head && dated &&
		   header_date(buf, req, HTTP_H_IF_MODIFIED_SINCE, now, &t) &&
		   modified <= t) {
		return 304;
	}
	return 0;
}

void http_select(const char *buf, const struct http_request *req,
		 const struct http_representation *rep, int64_t date,
		 struct http_selection *sel)
{
	struct http_span v = req->header[HTTP_H_RANGE];
	/* If-Range compares strongly: a weak tag never lets it hold. */
	const char *strong = rep->weak ? NULL : rep->etag;
	int64_t modified = rep->last_modified;
	/* Two seconds apart in whole seconds: at least one in time. */
	bool strong_date;
	uint64_t first, last;

	if (modified != HTTP_NO_TIME && modified > date)
		modified = date;
	strong_date = modified != HTTP_NO_TIME && modified < date - 1;
	*sel = (struct http_selection){ .status = 200, .len = rep->size };
	sel->status = preconditions(buf, req, rep, modified, date) ?: 200;
	if (sel->status != 200 || !rep->ranges ||
	    !http_has_header(req, HTTP_H_RANGE) ||
	    !http_if_range_allows(buf, req, strong ?: "",
				  strong ? rep->etag_len : 0,
				  strong_date ? modified : HTTP_NO_TIME, date))
		return;
	switch (http_parse_range(buf + v.off, v.len, rep->size, &first,
				 &last)) {
	case HTTP_RANGE_OK:
		sel->status = 206;
		sel->first = first;
		sel->len = last - first + 1;
		break;
	case HTTP_RANGE_UNSATISFIABLE:
		sel->status = 416;
		sel->len = 0;
		break;
	case HTTP_RANGE_NONE:
		break;
	}
}

size_t http_select_headers(char *out, size_t cap,
			   const struct http_representation *rep,
			   const struct http_selection *sel, int64_t date)
{
	struct http_out o = { .buf = out, .cap = cap };

	if (rep->etag) {
		http_out_puts(&o, rep->weak ? "ETag: W/" : "ETag: ");
		http_out_put(&o, rep->etag, rep->etag_len);
		http_out_puts(&o, "\r\n");
	}
	if (rep->last_modified != HTTP_NO_TIME) {
		char when[HTTP_DATE_LEN];

		/* A file dated in the future was not modified after now. */
		http_format_date(when, rep->last_modified < date ?
					       rep->last_modified :
					       date);
		http_out_puts(&o, "Last-Modified: ");
		http_out_put(&o, when, sizeof(when));
		http_out_puts(&o, "\r\n");
	}
	if (rep->ranges)
		http_out_puts(&o, "Accept-Ranges: bytes\r\n");
	if (rep->varies_by_type || rep->varies) {
		http_out_puts(&o, "Vary: ");
		if (rep->varies_by_type)
			http_out_puts(&o, rep->varies ? "Accept, " : "Accept");
		if (rep->varies)
			http_out_puts(&o, "Accept-Encoding");
		http_out_puts(&o, "\r\n");
	}
	if (rep->coding && !http_selection_bodyless(sel)) {
		http_out_puts(&o, "Content-Encoding: ");
		http_out_puts(&o, rep->coding);
		http_out_puts(&o, "\r\n");
	}
	if (sel->status == 206 || sel->status == 416) {
		char range[HTTP_CONTENT_RANGE_MAX];
		size_t n = sel->status == 206 ?
				   http_format_content_range(
					   range, sel->first,
					   sel->first + sel->len - 1,
					   rep->size) :
				   http_format_content_range(range, 1, 0,
							     rep->size);

		http_out_puts(&o, "Content-Range: ");
		http_out_put(&o, range, n);
		http_out_puts(&o, "\r\n");
	}
	return o.error ? 0 : o.len;
}

void http_select_head(struct http_response_head *h, const char *type,
		      char *extra, const struct http_representation *rep,
		      const struct http_selection *sel, int64_t date)
{
	h->content_type = type;
	h->extra = extra;
	h->extra_len = http_select_headers(extra, HTTP_SELECT_HEADERS_MAX, rep,
					   sel, date);
}

void http_file_representation(const struct http_file_id *f,
			      enum http_coding coding, bool varies, char *etag,
			      struct http_representation *rep)
{
	*rep = (struct http_representation){
		.etag = etag,
		.etag_len = http_format_etag(etag, f->ino, f->size,
					     http_etag_time(f->mtime_sec,
							    f->mtime_nsec),
					     http_coding_etag_suffix(coding)),
		.last_modified = f->mtime_sec,
		.size = f->size,
		.ranges = true,
		.varies = varies,
		.coding = http_coding_name(coding),
	};
}

void http_select_file(const char *buf, const struct http_request *req,
		      const struct http_file_id *f, enum http_coding coding,
		      bool varies, char *etag, int64_t date,
		      struct http_representation *rep,
		      struct http_selection *sel)
{
	http_file_representation(f, coding, varies, etag, rep);
	http_select(buf, req, rep, date, sel);
}
