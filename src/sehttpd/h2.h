/* SPDX-License-Identifier: MIT */
/*
 * HTTP/2 on a connection (RFC 9113), framed by libnghttp2: ALPN "h2" on
 * the TLS port, prior knowledge (the client's preface) on the cleartext
 * one.  Each stream's request becomes an exchange answered by the same
 * code as HTTP/1.1's (serve.h); only the writer differs (h2_stream.h).
 */
#ifndef SEHTTPD_H2_H
#define SEHTTPD_H2_H

#include <stdbool.h>
#include <stddef.h>

struct conn;

/* A frame's head (RFC 9113, 4.1): a length of 24 bits, a type, flags and
 * a stream; nghttp2 hands it to send_data and we read it in feed(). */
#define H2_FRAME_HEAD_LEN 9

/* Streams a client may have open at once (SETTINGS_MAX_CONCURRENT_STREAMS). */
#define H2_MAX_STREAMS 100
/*
 * Streams of a connection answered with a file's descriptor at once (a
 * file beyond what the cache holds in memory): each holds a duplicate
 * until its body is sent, and a client can keep a hundred streams
 * waiting on windows it opens slowly.  Further requests are answered as
 * those end, in the order they came, as over 16 HTTP/1.1 connections.
 */
#define H2_FILE_STREAMS_MAX 16
/*
 * Client behaviour that costs us and serves nobody (streams reset by the
 * client, or by the server for the client's error, empty DATA frames) is
 * paid from a bucket of this many, refilled at H2_CALM_PER_S; an empty
 * bucket gets GOAWAY ENHANCE_YOUR_CALM (the rapid-reset attack,
 * CVE-2023-44487, MadeYouReset, CVE-2025-8671, and empty-frame floods).
 */
#define H2_CALM_BURST 400
#define H2_CALM_PER_S 100

/* The client's first bytes are HTTP/2's connection preface (as far as they
 * go: a request head the HTTP/1 parser refused begins with it). */
bool h2_is_preface(const char *buf, size_t len);

/*
 * Runs HTTP/2 on c, in its coroutine, starting with the session kept from
 * an earlier run or a new one; pending: bytes already read (the preface).
 * Returns when the connection idles (the session stays on c) or must
 * close (c->close_after).
 */
void h2_conn_serve(struct conn *c, const char *pending, size_t len);

/* The connection closes: says GOAWAY if it can and frees the session. */
void h2_conn_end(struct conn *c);

#endif /* SEHTTPD_H2_H */
