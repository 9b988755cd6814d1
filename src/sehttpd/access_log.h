/* SPDX-License-Identifier: MIT */
/*
 * Access-log lines, in the Combined Log Format or as JSON objects
 * (--log-format json), gathered per thread and handed to the log writer
 * thread once per event-loop pass, so logging costs no syscall per request
 * and never waits for the log.
 */
#ifndef SEHTTPD_ACCESS_LOG_H
#define SEHTTPD_ACCESS_LOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "http/parser.h"
#include "log_writer.h"

#define ACCESS_LOG_BUFFER 16384

struct client_addr {
	sa_family_t family;
	uint8_t addr[16];
};

struct access_log_buffer {
	size_t len;
	unsigned lines;
	uint64_t dropped; /* lines the writer had no room for, so far */
	char buf[ACCESS_LOG_BUFFER];
};

void client_addr_set(struct client_addr *peer, const struct sockaddr *sa);
/*
 * The address as logs show it (INET6_ADDRSTRLEN bytes suffice), an
 * IPv4-mapped IPv6 one as IPv4, a Unix socket's client as "unix:"; out is
 * left as it is for other families.
 */
void client_addr_format(const struct client_addr *peer, char *out, size_t len);

/* What a line says about one response. */
struct access_log_record {
	const struct client_addr *peer;
	const char *reqbuf; /* req's offsets are into it */
	const struct http_request *req; /* NULL: no request line parsed */
	/* The user-id whose Basic credentials met an --auth-file rule
	 * (never the password); NULL: none. */
	const char *user;
	size_t user_len;
	bool http2; /* it came over HTTP/2: HTTP/2.0, as nginx and h2o say */
	int status;
	uint64_t body_bytes;
	uint64_t duration_us; /* head parsed to last byte handed to the socket */
};

/* The longest line of either format, its newline included. */
#define ACCESS_LOG_LINE_MAX 5120

/* A Combined Log Format line; clf_time as date_cache.h makes it. */
void access_log_append(struct access_log_buffer *log, struct log_writer *lw,
		       const char *clf_time, const struct access_log_record *r);
/* A JSON line (access_log_json.c); time is RFC 3339, UTC. */
void access_log_append_json(struct access_log_buffer *log,
			    struct log_writer *lw, const char *time,
			    const struct access_log_record *r);
/*
 * Writes r as one JSON object, without a newline, into out (at most cap
 * bytes, which ACCESS_LOG_LINE_MAX - 1 always suffices for); returns its
 * length.
 */
size_t access_log_json_line(char *out, size_t cap, const char *time,
			    const struct access_log_record *r);
void access_log_flush(struct access_log_buffer *log, struct log_writer *lw);

#endif /* SEHTTPD_ACCESS_LOG_H */
