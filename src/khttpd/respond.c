// SPDX-License-Identifier: GPL-2.0
#include "respond.h"

#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>

#include "cache.h"
#include "http/negotiate.h"
#include "http/select.h"
#include "http/route.h"
#include "http/site.h"
#include "khttpd.h"
#include "outq.h"
#include "serve.h"
#include "stats.h"

void khttpd_respond_head_init(const struct khttpd_exchange *x,
			      struct http_response_head *h, int status)
{
	*h = (struct http_response_head){
		.status = status,
		.version_minor = x->req ? x->req->version_minor : 1,
		.keep_alive = x->keep_alive,
		.server = KHTTPD_SERVER_TOKEN,
		.date = x->date,
		.content_length = HTTP_NO_LENGTH,
		.last_modified = HTTP_NO_TIME,
	};
	h->rules = x->srv->rules;
	h->nrules = x->srv->nrules;
	/* Prefixed rules match the routed path, once there is one. */
	if (x->path_len > 0) {
		h->path = x->path;
		h->path_len = x->path_len;
	}
}

/* Pieces inside pin's bodies are queued by reference, not copied. */
static int khttpd_respond_queue_layout(struct khttpd_exchange *x,
				       const struct http_layout *l,
				       const struct khttpd_cache_entry *pin)
{
	struct kvec vec[HTTP_LAYOUT_PIECES];
	unsigned int i;

	for (i = 0; i < l->n; i++)
		vec[i] = (struct kvec){ .iov_base = (void *)l->piece[i].base,
					.iov_len = l->piece[i].len };
	/* Sent at once as far as the socket takes it, the rest queued. */
	return khttpd_out_vec(x->out, vec, l->n, pin);
}

/* h with its status page as the body. */
static int khttpd_respond_html(struct khttpd_exchange *x,
			       struct http_response_head *h, char *head,
			       size_t cap)
{
	size_t blen;
	const char *body = http_error_body(h->status, &blen);
	struct http_layout l;

	h->content_type = KHTTPD_HTML_TYPE;
	if (http_layout_response(&l, head, cap, h, body, blen, x->head_only))
		return -EOVERFLOW;
	return khttpd_respond_queue_layout(x, &l, NULL);
}

int khttpd_respond_status(struct khttpd_exchange *x, int status)
{
	struct http_response_head h;

	if (http_status_closes(status))
		x->keep_alive = false;
	khttpd_respond_head_init(x, &h, status);
	h.allow_get_head = status == 405;
	h.allow_options = true;
	return khttpd_respond_html(x, &h, x->head, x->head_cap);
}

/*
 * Whether page may be pinned for this response, as any cached body is:
 * past the held bytes' bound, the built-in page instead
 * (khttpd_cache_may_pin()).
 */
static bool khttpd_respond_page_pins(struct khttpd_exchange *x,
				     const struct khttpd_cache_entry *page)
{
	if (x->head_only || khttpd_cache_may_pin(page))
		return true;
	khttpd_count(&khttpd_stats.held_refused);
	return false;
}

/* h with page's body, pinned. */
static int khttpd_respond_with_page(struct khttpd_exchange *x,
				    struct http_response_head *h,
				    const struct khttpd_cache_entry *page)
{
	struct http_layout l;

	h->content_type = page->content_type;
	if (http_layout_response(&l, x->head, x->head_cap, h, page->body,
				 page->body_len, x->head_only))
		return -EOVERFLOW;
	return khttpd_respond_queue_layout(x, &l, page);
}

int khttpd_respond_page(struct khttpd_exchange *x, int status,
			struct khttpd_cache_entry *page)
{
	struct http_response_head h;

	if (!khttpd_respond_page_pins(x, page))
		return khttpd_respond_status(x, status);
	if (http_status_closes(status))
		x->keep_alive = false;
	khttpd_respond_head_init(x, &h, status);
	h.allow_get_head = status == 405;
	h.allow_options = true;
	return khttpd_respond_with_page(x, &h, page);
}

int khttpd_respond_options(struct khttpd_exchange *x)
{
	struct http_response_head h;
	char extra[HTTP_CORS_PREFLIGHT_MAX];
	char *head, *own_head = x->head;
	size_t own_cap = x->head_cap;
	int ret;

	khttpd_respond_head_init(x, &h, 204);
	h.allow_get_head = true;
	h.allow_options = true;
	/* Without cors= a preflight gets no Access-Control-*: refused. */
	if (x->srv->cors && http_is_cors_preflight(x->req)) {
		h.extra = extra;
		h.extra_len = http_cors_preflight_headers(extra, sizeof(extra),
							  x->buf, x->req,
							  KHTTPD_CORS_MAX_AGE);
	}
	if (!h.extra_len)
		return khttpd_respond_bodyless(x, &h);
	/*
	 * The request headers a preflight asks for are echoed (up to 512
	 * bytes): with the operator's headers= and cors= lines (up to 384)
	 * they may not fit the connection's KiB, so such a head has room of
	 * its own, as a redirect's has.  It is sent or copied before it goes.
	 */
	head = kmalloc(own_cap + h.extra_len, GFP_KERNEL);
	if (!head)
		return khttpd_respond_status(x, 503);
	x->head = head;
	x->head_cap = own_cap + h.extra_len;
	ret = khttpd_respond_bodyless(x, &h);
	x->head = own_head;
	x->head_cap = own_cap;
	kfree(head);
	return ret;
}

int khttpd_respond_bodyless(struct khttpd_exchange *x,
			    struct http_response_head *h)
{
	struct khttpd_cache_entry *page;
	struct http_layout l;
	int ret;

	/* A 412 or 416 with the operator's page, its head as it is, as
	 * sehttpd sends it (before, the built-in empty body). */
	if (h->status >= 400) {
		page = khttpd_error_page(x, h->status);
		if (IS_ERR(page))
			return 0; /* deferred */
		if (page) {
			bool pins = khttpd_respond_page_pins(x, page);

			ret = pins ? khttpd_respond_with_page(x, h, page) : 0;
			khttpd_cache_put(page);
			if (pins)
				return ret;
		}
	}
	if (http_layout_bodyless(&l, x->head, x->head_cap, h, x->head_only))
		return -EOVERFLOW;
	return khttpd_respond_queue_layout(x, &l, NULL);
}

int khttpd_respond_redirect(struct khttpd_exchange *x, const char *path,
			    size_t len)
{
	/* Every byte may be percent-encoded, the query's too, with a "/"
	 * and a "?" between. */
	size_t loc_cap = 3 * len + 2 + 3 * (size_t)x->req->query.len;
	size_t head_cap = loc_cap + x->head_cap;
	struct http_response_head h;
	char *mem, *head;
	int ret;

	mem = kvmalloc(loc_cap + head_cap, GFP_KERNEL);
	if (!mem)
		return khttpd_respond_status(x, 503);
	head = mem + loc_cap;
	khttpd_respond_head_init(x, &h, 301);
	h.location = mem;
	h.location_len = http_dir_redirect_location(mem, loc_cap, x->buf,
						    x->req, path, len);
	if (h.location_len)
		ret = khttpd_respond_html(x, &h, head, head_cap);
	else
		ret = khttpd_respond_status(x, 500);
	kvfree(mem);
	return ret;
}

/*
 * The coding to answer from e in, when its type is compressible and no
 * Range asks for bytes of the identity representation: a precompressed
 * sibling's that e holds, or gzip unless the entry was found not to
 * shrink; on a tie a sibling's wins.  Only decides: the gzip body is made
 * (by khttpd_cache_gzip) once an answer is going to carry it.
 */
static enum http_coding
khttpd_respond_coding(const struct khttpd_exchange *x,
		      const struct khttpd_cache_entry *e)
{
	unsigned int held = khttpd_cache_siblings(e), available = held;

	if (khttpd_cache_gzip_possible(e))
		available |= HTTP_CODING_BIT(HTTP_CODING_GZIP);
	if (!available ||
	    (!e->listing && http_has_header(x->req, HTTP_H_RANGE)))
		return HTTP_CODING_IDENTITY;
	return http_request_coding(x->buf, x->req, available, held);
}

/*
 * The representation's description and the selection for it.  The gzip
 * representation's ETag and validators do not need its bytes, so a 304 or
 * 412 is decided without compressing; its size is filled in once it is.
 * A sibling's body is there: its size is known.
 */
static void khttpd_respond_select_for(const struct khttpd_exchange *x,
				      const struct khttpd_cache_entry *e,
				      enum http_coding coding,
				      const char **body,
				      struct http_representation *r, char *etag,
				      struct http_selection *sel)
{
	bool sibling = khttpd_cache_siblings(e) & HTTP_CODING_BIT(coding);
	unsigned int slot = http_precompressed_slot(coding);

	*r = (struct http_representation){
		.last_modified = e->last_modified,
		.size = e->body_len,
		.ranges = !e->listing,
		/* A listing's size decides whether it has a gzip form: any
		 * listing may be compressed for another request. */
		.varies = e->compressible || (e->listing && x->srv->compress),
		.varies_by_type = e->listing, /* HTML or JSON, by Accept */
		.coding = http_coding_name(coding),
	};
	*body = e->body;
	if (sibling) {
		*body = e->sib[slot];
		r->size = e->valid.sib[slot].id.size;
	} else if (coding != HTTP_CODING_IDENTITY) {
		*body = NULL;
		r->size = 0; /* gzip's: once it is made */
	}
	if (!e->listing) {
		r->etag = etag;
		r->etag_len = khttpd_cache_etag(e, coding, etag);
	}
	http_select(x->buf, x->req, r, x->now, sel);
}

/*
 * A HEAD for the gzip form compresses too: its Content-Length must be the
 * one a GET would carry (RFC 9110 9.3.2), and the result stays with the
 * entry for the GETs that follow.
 */
int khttpd_respond_entry(struct khttpd_exchange *x,
			 struct khttpd_cache_entry *e)
{
	char etag[HTTP_ETAG_MAX], extra[HTTP_SELECT_HEADERS_MAX];
	struct http_representation r;
	struct http_response_head h;
	struct http_selection sel;
	struct http_layout l;
	enum http_coding coding = khttpd_respond_coding(x, e);
	const char *body;
	size_t gz_len = 0;

	khttpd_respond_select_for(x, e, coding, &body, &r, etag, &sel);
	if (!body && !http_selection_bodyless(&sel)) {
		if (x->inline_only && !khttpd_cache_gzip_made(e)) {
			x->deferred = true;
			return 0;
		}
		/* Ranges are never of the gzip form: this is the 200. */
		body = khttpd_cache_gzip(e, &gz_len);
		if (body) {
			r.size = gz_len;
			sel.len = gz_len;
		} else {
			/* Not smaller, or being made: the identity after all. */
			khttpd_respond_select_for(x, e, HTTP_CODING_IDENTITY,
						  &body, &r, etag, &sel);
		}
	}
	if (!http_selection_bodyless(&sel) && !x->head_only &&
	    !khttpd_cache_may_pin(e)) {
		khttpd_count(&khttpd_stats.held_refused);
		return khttpd_respond_status(x, 503);
	}
	khttpd_respond_head_init(x, &h, sel.status);
	http_select_head(&h, e->content_type, extra, &r, &sel, x->now);
	if (http_selection_bodyless(&sel))
		return khttpd_respond_bodyless(x, &h);
	/* Listings keep the chunked framing HTTP/1.1 clients get for them. */
	h.chunked = e->listing && x->req->version_minor >= 1;
	if (http_layout_response(&l, x->head, x->head_cap, &h, body + sel.first,
				 sel.len, x->head_only))
		return -EOVERFLOW;
	return khttpd_respond_queue_layout(x, &l, e);
}
