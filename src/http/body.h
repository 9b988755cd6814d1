/* SPDX-License-Identifier: MIT */
/*
 * What a server does with the bytes that follow a request head it has
 * answered: a static server never reads request bodies, it steps over them
 * so the next request on the connection can be parsed, and before closing it
 * lingers (drains what the client still sends) for a bounded time.
 */
#ifndef HTTP_BODY_H
#define HTTP_BODY_H

#include "chunked.h"
#include "parser.h"

/*
 * After a final response that ends the connection, at most this many bytes
 * are read, for at most this long (and never longer than the server's own
 * timeout), while waiting for the client's FIN.
 */
#define HTTP_LINGER_MAX_BYTES (256 * 1024)
#define HTTP_LINGER_MAX_MS 2000

/*
 * The slowest a transfer may go by default, in bytes per second (sehttpd's
 * --min-rate, khttpd's min_rate): a response being sent or a request body
 * being skipped.  A transfer that began at start may go on until start +
 * timeout + (its bytes so far) / rate, besides going no longer than the
 * timeout without progress.  So one that trickles (a byte or a segment per
 * timeout) ends about a timeout after it began, and one at a rate r below
 * the minimum m ends after timeout / (1 - r/m) whatever its size, where
 * progress alone would let it hold its file and connection for ever.
 * 1 KiB/s (8 kbit/s) is below any link still in use (GPRS gives 5 KiB/s or
 * more), so real slow clients finish, as with nginx; holding N responses
 * open still costs a client N KiB/s of its own bandwidth.  Apache's
 * mod_reqtimeout asks 500 B/s of request bodies.  0 turns the rule off.
 */
#define HTTP_MIN_RATE_DEFAULT 1024

/*
 * How far past start + timeout a transfer's deadline lies, in ms: the time
 * from its start to its last progress (so the timeout runs from there),
 * but no more than its bytes so far earn at min_rate bytes per second
 * (0: no minimum, progress alone counts).
 */
static inline uint64_t http_transfer_extension_ms(uint64_t progress_ms,
						  uint64_t bytes,
						  uint32_t min_rate)
{
	uint64_t earned;

	if (min_rate == 0)
		return progress_ms;
	earned = bytes / min_rate * 1000 + bytes % min_rate * 1000 / min_rate;

	return progress_ms < earned ? progress_ms : earned;
}

/* Steps over one request body, Content-Length or chunked, in any pieces. */
struct http_body_skipper {
	struct http_chunked_decoder chunks;
	uint64_t left; /* Content-Length bytes still to come */
	bool chunked;
};

enum {
	HTTP_BODY_ERROR = -1, /* malformed chunked framing: close */
	HTTP_BODY_AGAIN = 0, /* more body bytes are to come */
	HTTP_BODY_DONE = 1, /* the body ended; the next request may follow */
};

void http_body_skip_init(struct http_body_skipper *b,
			 const struct http_request *req);

/* True when the request has no body at all (nothing to skip). */
static inline bool http_body_none(const struct http_request *req)
{
	return !req->chunked_body && req->content_length == 0;
}

/*
 * After a response to a parsed request that ends the connection: whether
 * to linger before closing.  Only when the client may still be sending (a
 * body, or bytes read or waiting beyond the request: unread), since a close
 * with unread data resets the connection under the response; otherwise the
 * close is at once, with no wait for the client's FIN.  A request the
 * parser refused always lingers: nothing is known of what follows it.
 */
static inline bool http_close_lingers(const struct http_request *req,
				      bool unread)
{
	return unread || !http_body_none(req);
}

/*
 * Consumes the body's bytes at the front of buf[0..len): sets *used to how
 * many of them belong to the body (all of them unless it ended inside buf)
 * and returns HTTP_BODY_DONE, HTTP_BODY_AGAIN or HTTP_BODY_ERROR.
 */
int http_body_skip(struct http_body_skipper *b, const char *buf, size_t len,
		   size_t *used);

/*
 * The interim response a server sends before reading a body the client holds
 * back until told to go on (RFC 9110 10.1.1).  Without it, a client that
 * waits would never send the body, and the server would take its next
 * request for the body.
 */
#define HTTP_CONTINUE_RESPONSE "HTTP/1.1 100 Continue\r\n\r\n"

/*
 * True when req (whose head is at buf) has a body and, as HTTP/1.1, an
 * Expect field with "100-continue": the server must send
 * HTTP_CONTINUE_RESPONSE before it reads the body.
 */
bool http_body_expects_continue(const char *buf,
				const struct http_request *req);

#endif /* HTTP_BODY_H */
