/* SPDX-License-Identifier: MIT */
/*
 * One HTTP/2 stream: its request, made into the HTTP/1.1 head the core's
 * parser reads (so both framings meet the same limits and decisions), and
 * its response, which the exchange writer records while the response code
 * runs and nghttp2 then sends as HEADERS and DATA frames, file bodies
 * straight from the file (sendfile) and cached ones from the cache entry.
 */
#ifndef SEHTTPD_H2_STREAM_H
#define SEHTTPD_H2_STREAM_H

#include <nghttp2/nghttp2.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "exchange.h"
#include "http/parser.h"
#include "list.h"

struct conn;

/* Header fields in a response head, pseudo-header included. */
#define H2_RESPONSE_FIELDS 48
/* Pieces of a response body: a copied or cached run, or a file's. */
#define H2_BODY_SEGMENTS 4

enum h2_segment_kind {
	H2_SEG_MEMORY, /* in a cache entry the stream holds */
	H2_SEG_COPY, /* in the stream's copy, from off */
	H2_SEG_FILE, /* in fd (the stream's duplicate), from off */
	H2_SEG_CODED, /* made as it goes by the stream's coded body */
};

struct h2_segment {
	enum h2_segment_kind kind;
	const char *data;
	int fd;
	uint64_t off;
	uint64_t len;
};

/* A buffer a stream keeps while it waits in the pool for its next use. */
struct h2_buf {
	char *p;
	size_t len, cap;
};

struct h2_stream {
	int32_t id;
	struct list_head link; /* in the connection's streams, or the pool */
	struct list_head ready_link; /* in its ready list, once complete */
	bool ready;
	bool answered; /* the response was submitted */
	int refused; /* a status for a request beyond limits (414, 431) */
	size_t decoded; /* header list size so far (RFC 9113 6.5.2) */
	uint64_t deadline_ms; /* reset when no progress by then */

	/* The request: pseudo-header values (offsets into pseudo), the other
	 * fields as "name: value\r\n" lines but for the cookies, joined
	 * with "; " in cookie (RFC 9113 8.2.3), then the head built from
	 * them (req's offsets are into head.p). */
	struct h2_span {
		uint32_t off, len;
		bool set;
	} method, path, authority;
	unsigned int nfields;
	struct http_request req;

	/* The response, as the writer recorded it. */
	int status; /* for the access log */
	/* The --auth-file rule the credentials met (the rules live as long
	 * as the server), for the log's user; NULL: none. */
	const struct auth_rule *auth_rule;
	uint64_t body_sent;
	uint64_t start_us; /* as an exchange's; logged at the stream's close */
	size_t nnv;
	bool head_done;
	bool failed; /* the writer could not take the response */
	bool holds_file; /* counted in its connection's file_streams */
	/* Set beyond the connection's first file stream: a descriptor
	 * takes a place in the server's pool (stream_fds), or, the pool
	 * full, the stream is refused (REFUSED_STREAM: clients retry). */
	atomic_uint *fd_pool;
	unsigned int fd_pool_max;
	bool pooled_fd; /* holds a place */
	bool fd_refused; /* found the pool full */
	struct h2_segment seg[H2_BODY_SEGMENTS];
	unsigned int nseg, cur; /* segments, and the one being sent */
	uint64_t cur_off; /* sent of seg[cur] */
	uint64_t frame_len; /* the DATA payload chosen, not yet written */
	bool body_ended; /* its last DATA frame is chosen */
	/* Where its last frame ends in what the connection sent: acknowledged
	 * bytes beyond it are not its progress. */
	uint64_t sent_upto;
	struct cache_entry *entry; /* referenced while its bytes are sent */
	/* A body compressed as its frames go (respond_coded.h): what it
	 * made last, in coded_out, and what of that was sent. */
	struct coded_body *coded;
	char *coded_out;
	size_t coded_len, coded_at;
	bool coded_ended;
	uint64_t coded_in_seen; /* its input, counted toward turns */

	/* Kept from one use to the next: the bytes above point into them. */
	struct h2_buf pseudo, fields, cookie, head, resp, copy;
	nghttp2_nv nv[H2_RESPONSE_FIELDS]; /* into resp.p; never cleared */
};

/*
 * Streams done with, kept by a worker for its next ones: a stream and its
 * buffers cost no allocation in the steady state.
 */
struct h2_stream_pool {
	struct list_head free;
	unsigned int count;
};

#define H2_POOL_KEEP 256

void h2_stream_pool_init(struct h2_stream_pool *pool);
void h2_stream_pool_drain(struct h2_stream_pool *pool);

/* A stream, from the pool or new (NULL when out of memory). */
struct h2_stream *h2_stream_get(struct h2_stream_pool *pool, int32_t id);
/* Closes what the stream holds (files, cache entry) and gives it back. */
void h2_stream_put(struct h2_stream_pool *pool, struct h2_stream *st);

/* The request head h2_stream_parse() built. */
static inline const char *h2_stream_head(const struct h2_stream *st)
{
	return st->head.p;
}

/*
 * Whether the stream's :method is HEAD, also when its request is refused:
 * then no DATA follows its answer's HEADERS.
 */
static inline bool h2_stream_method_is_head(const struct h2_stream *st)
{
	return st->method.set && st->method.len == 4 &&
	       !memcmp(st->pseudo.p + st->method.off, "HEAD", 4);
}

/*
 * How far a header block may decode past HTTP_MAX_HEADER_SECTION, the
 * size that gets a 431: HPACK lets a 1-byte field stand for a 4 KiB one,
 * and a block decoded to its end after the limit costs thousands of times
 * what it took to send.  Beyond this, the stream is reset instead.
 */
#define H2_HEADER_LIST_MAX (4 * HTTP_MAX_HEADER_SECTION)

/*
 * Counts a field of the stream's header blocks (the request's and its
 * trailers) into its header list size: 1 once that is past
 * H2_HEADER_LIST_MAX, else 0.
 */
int h2_stream_count_field(struct h2_stream *st, size_t namelen,
			  size_t valuelen);

/*
 * A request header field (pseudo-headers first, as nghttp2 checks).
 * Returns 0, -1 when out of memory, or 1 when the block decodes to more
 * than H2_HEADER_LIST_MAX; fields beyond the HTTP/1.1 limits mark the
 * stream refused (414, 431) instead of growing it.
 */
int h2_stream_add_field(struct h2_stream *st, const uint8_t *name,
			size_t namelen, const uint8_t *value, size_t valuelen);

/*
 * Builds the head from the fields and parses it as the HTTP/1.1 parser
 * does.  Returns 0, or the status to answer with (400, 414, 431...).
 */
int h2_stream_parse(struct h2_stream *st);

/* The writer an exchange for st uses (out_ctx: st). */
extern const struct exchange_writer h2_stream_writer;

/*
 * Submits what the writer recorded: HEADERS, then DATA from the recorded
 * segments.  Returns 0, or a nghttp2 error.
 */
int h2_stream_submit(nghttp2_session *session, struct h2_stream *st);

/*
 * Frames on their way to the socket: nghttp2's small frames gather here
 * and leave in one write with what follows them.
 */
struct h2_out {
	struct conn *c;
	char *buf;
	size_t len, cap;
	uint64_t since_turn; /* bytes sent since the thread's others ran */
	bool held; /* the last write said more: the socket may hold it */
};

/* Appends (flushing first when full).  Returns 0 or -1. */
int h2_out_append(struct h2_out *o, const void *p, size_t len);
/* Writes what is gathered, and then body (len bytes; body may be NULL). */
int h2_out_flush(struct h2_out *o, const void *body, size_t len, bool more);

/*
 * For nghttp2's send_data_callback: the 9-byte frame head and the payload
 * read_callback chose.  Returns 0, H2_STREAM_SHRANK when the file is now
 * too short for the payload and nothing of the frame was sent (the stream
 * is reset, the connection goes on), or -1 (the connection fails).
 */
#define H2_STREAM_SHRANK 1
int h2_stream_send_data(struct h2_out *o, struct h2_stream *st,
			const uint8_t *framehd, size_t length);

#endif /* SEHTTPD_H2_STREAM_H */
