/* SPDX-License-Identifier: MIT */
/*
 * Combined Log Format lines, gathered per thread and handed to the log
 * writer thread once per event-loop pass, so logging costs no syscall per
 * request and never waits for the log.
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

/* req is NULL when no request line could be parsed; http2: it came over
 * HTTP/2 (the line says HTTP/2.0, as nginx's and h2o's do). */
void access_log_append(struct access_log_buffer *log, struct log_writer *lw,
		       const struct client_addr *peer, const char *clf_time,
		       const char *reqbuf, const struct http_request *req,
		       bool http2, int status, uint64_t body_bytes);
void access_log_flush(struct access_log_buffer *log, struct log_writer *lw);

#endif /* SEHTTPD_ACCESS_LOG_H */
