// SPDX-License-Identifier: MIT
#include "respond_file.h"

#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "beneath.h"
#include "compress.h"
#include "compress_stream.h"
#include "conn_io.h"
#include "coro.h"
#include "http/select.h"
#include "respond.h"
#include "respond_coded.h"
#include "server.h"

static void put_entry(void *arg)
{
	content_cache_put(arg);
}

/* Between steps of a large compression: the thread's others get a turn. */
static int yield_turn(void *conn)
{
	return conn_yield_turn(conn);
}

/*
 * The codings e can answer rc in: those it holds or can make from its body
 * in memory, and for a file too large to hold, those made as it is sent.
 */
static unsigned entry_codings(const struct exchange *rc,
			      const struct cache_entry *e)
{
	unsigned codings = content_cache_codings(e, COMPRESS_CODINGS);

	if (e->kind == CACHE_FILE && !e->rep[HTTP_CODING_IDENTITY].data &&
	    respond_coded_allowed(rc, (uint64_t)e->file.st_size))
		codings |= COMPRESS_STREAM_CODINGS;
	return codings;
}

/*
 * What the file of rep, held open by e, is now: so that a file truncated
 * in place since e was checked is announced at the length that can be
 * sent.  For the entry's own file, fstat once per return of epoll_wait:
 * under load one return brings several requests for the same file, and
 * fstat was 0.4 us of a 15 us 100 KiB response, while a request sent
 * after a change is read after a later return (unless its connection
 * was already reading on in that turn).
 */
static int rep_stat(struct exchange *rc, struct cache_entry *e,
		    const struct cache_rep *rep, struct stat *st)
{
	uint64_t poll = rc->worker->polls;

	if (rep != &e->rep[HTTP_CODING_IDENTITY])
		return fstat(rep->fd, st);
	if (e->fd_st_poll != poll) {
		if (fstat(rep->fd, &e->fd_st))
			return -1;
		e->fd_st_poll = poll;
	}
	*st = e->fd_st;
	return 0;
}

/*
 * Answers with a representation of e whose body stays in its file (the
 * entry's own, or a precompressed sibling), held open by e, with a head
 * built from what the file is now (rep_stat()).
 */
static int respond_rep_file(struct exchange *rc, struct cache_entry *e,
			    const struct cache_rep *rep,
			    enum http_coding coding)
{
	struct stat st;

	if (rep_stat(rc, e, rep, &st))
		return respond_status(rc, 500, NULL, 0);
	/* A coding it does not hold: made as the body is sent. */
	if (rep == &e->rep[HTTP_CODING_IDENTITY] &&
	    coding != HTTP_CODING_IDENTITY)
		return respond_file_coded(rc, rep->fd, &st, e->content_type,
					  coding, e);
	return respond_file(rc, rep->fd, &st, e->content_type, e->compressible,
			    (enum http_coding)(rep - e->rep));
}

/*
 * Past the bound on entries held (content_cache_may_hold()): the body from
 * a descriptor of the request's own, as with no cache, and e let go at
 * once, so that a reader that stalls holds a descriptor, not e's memory.
 * A coded body e holds only in memory goes as it is in the file instead,
 * from the file opened again when e gave its descriptor up (shed_fds()).
 */
static int respond_unheld(struct exchange *rc, struct cache_entry *e,
			  const struct cache_rep *rep, enum http_coding coding)
{
	const char *type = e->content_type;
	bool compressible = e->compressible;
	enum http_coding in_file;
	struct stat st;
	int fd, status;

	if (!rep->in_file) {
		rep = &e->rep[HTTP_CODING_IDENTITY];
		coding = HTTP_CODING_IDENTITY;
	}
	in_file = (enum http_coding)(rep - e->rep);
	if (rep->in_file)
		fd = fcntl(rep->fd, F_DUPFD_CLOEXEC, 0);
	else if (e->kind == CACHE_FILE && e->file_path)
		fd = open_beneath(rc->root->fd, e->file_path,
				  O_RDONLY | O_NONBLOCK);
	else
		fd = -1;
	if (fd < 0)
		return respond_status(rc, 503, NULL, 0);
	status = exchange_keep_fd(rc, fd, &st);
	if (status)
		return respond_status(rc, status, NULL, 0);
	/* Opened again: the file e was checked to be, else not known. */
	if (!rep->in_file &&
	    (st.st_ino != e->file.st_ino || st.st_dev != e->file.st_dev))
		return respond_status(rc, 503, NULL, 0);
	coro_undefer(rc->conn->coro, put_entry, e);
	content_cache_put(e);
	if (in_file == HTTP_CODING_IDENTITY && coding != HTTP_CODING_IDENTITY)
		return respond_file_coded(rc, fd, &st, type, coding, NULL);
	return respond_file(rc, fd, &st, type, compressible, in_file);
}

int respond_entry(struct exchange *rc, struct cache_entry *e)
{
	struct worker *w = rc->worker;
	enum http_coding coding = HTTP_CODING_IDENTITY;
	const struct cache_rep *rep;
	struct http_representation r;
	struct http_response_head h;
	struct http_selection sel;
	char extra[HTTP_SELECT_HEADERS_MAX];
	struct http_layout l;

	if (coro_defer(rc->conn->coro, put_entry, e)) {
		content_cache_put(e);
		return respond_status(rc, 503, NULL, 0);
	}
	/* On a tie, what a sibling holds beats what we would make. */
	if (e->compressible &&
	    !(e->kind == CACHE_FILE && exchange_range_requested(rc)))
		coding = http_request_coding(rc->buf, rc->req,
					     entry_codings(rc, e),
					     content_cache_precompressed(e));
	rep = content_cache_rep(w->cache, e, coding, w->compressor, yield_turn,
				rc->conn);
	if (rep != &e->rep[HTTP_CODING_IDENTITY])
		stats_add(&w->stats.cache_compressed_hits, 1);
	if (rep->in_file) {
		if (!rc->head_only && !content_cache_may_hold(w->cache, e))
			return respond_unheld(rc, e, rep, coding);
		return respond_rep_file(rc, e, rep, coding);
	}
	r = (struct http_representation){
		.etag = rep->etag_len ? rep->etag : NULL,
		.etag_len = rep->etag_len,
		.weak = rep->etag_weak,
		.last_modified = e->kind == CACHE_FILE ?
					 e->file.st_mtim.tv_sec :
					 HTTP_NO_TIME,
		.size = rep->len,
		.ranges = e->kind == CACHE_FILE,
		.varies = e->compressible,
		/* A listing is HTML or JSON as Accept asks. */
		.varies_by_type = e->kind == CACHE_LISTING,
		.coding = http_coding_name((enum http_coding)(rep - e->rep)),
	};
	http_select(rc->buf, rc->req, &r, w->date.second, &sel);
	respond_head_init(rc, &h, sel.status);
	http_select_head(&h, e->content_type, extra, &r, &sel, w->date.second);
	if (http_selection_bodyless(&sel))
		return respond_bodyless(rc, &h);
	if (!rc->head_only && !content_cache_may_hold(w->cache, e))
		return respond_unheld(rc, e, rep, coding);

	/* Listings keep the chunked framing HTTP/1.1 clients get for them. */
	h.chunked = e->kind == CACHE_LISTING && rc->req->version_minor >= 1 &&
		    !rc->http2;
	if (http_layout_response(&l, rc->scratch, EXCHANGE_SCRATCH, &h,
				 rep->data + sel.first, sel.len, rc->head_only))
		return -1;
	rc->body_entry = e;
	return respond_layout(rc, &l, sel.status, false);
}

int respond_file(struct exchange *rc, int fd, const struct stat *st,
		 const char *content_type, bool compressible,
		 enum http_coding coding)
{
	struct http_response_head h;
	char extra[HTTP_SELECT_HEADERS_MAX], etag[HTTP_ETAG_MAX];
	const struct http_file_id f = respond_file_id(st);
	struct http_representation r;
	struct http_selection sel;
	size_t hlen;

	/* Its smaller siblings are compressed, so it varies too. */
	http_select_file(rc->buf, rc->req, &f, coding, compressible, etag,
			 rc->worker->date.second, &r, &sel);
	respond_head_init(rc, &h, sel.status);
	http_select_head(&h, content_type, extra, &r, &sel,
			 rc->worker->date.second);
	if (http_selection_bodyless(&sel))
		return respond_bodyless(rc, &h);
	h.content_length = (int64_t)sel.len;
	hlen = http_response_head_build(rc->scratch, EXCHANGE_SCRATCH, &h);
	if (hlen == 0)
		return -1;
	rc->status = sel.status;
	if (rc->head_only || sel.len == 0)
		return exchange_write(rc, rc->scratch, hlen, false);
	if (sel.len <= FILE_SENDFILE_MIN &&
	    sel.len <= EXCHANGE_SCRATCH - hlen) {
		/* Small: head and body leave in one write. */
		ssize_t got = pread(fd, rc->scratch + hlen, sel.len,
				    (off_t)sel.first);

		if (got != (ssize_t)sel.len)
			return -1; /* changed under us; nothing was sent */
		rc->body_bytes = sel.len;
		return exchange_write(rc, rc->scratch, hlen + sel.len, false);
	}
	if (exchange_write(rc, rc->scratch, hlen, true) ||
	    exchange_sendfile(rc, fd, (off_t)sel.first, sel.len))
		return -1;
	rc->body_bytes = sel.len;
	return 0;
}
