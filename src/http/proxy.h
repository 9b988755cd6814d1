/* SPDX-License-Identifier: MIT */
/*
 * Incremental parser for the PROXY protocol header (versions 1 and 2), which
 * a load balancer sends before the first request to say whom it relays.
 *
 * Like the request parser it never copies and never allocates: the caller's
 * buffer holds the connection's bytes from the first one at offset 0, and
 * proxy_parse() may be called again with the same bytes plus more after
 * every read.  Bytes that cannot start or continue a valid header are
 * refused as soon as they arrive, so a client that sends a request without
 * a header is not kept waiting for a timeout.
 */
#ifndef HTTP_PROXY_H
#define HTTP_PROXY_H

#include "compat.h"

/* Version 1: one line, CRLF included (the specification's limit). */
#define PROXY_V1_MAX 107
/* Version 2: 16 bytes, then addresses and TLVs; ours is bounded tighter
 * than the 16-bit length allows, so any header fits the read buffer. */
#define PROXY_V2_HEAD 16
#define PROXY_V2_MAX 4096
#define PROXY_MAX PROXY_V2_MAX

/* The relayed connection's address family, when there is one. */
enum proxy_family {
	PROXY_AF_NONE, /* v1 UNKNOWN, v2 LOCAL, or not TCP over IP */
	PROXY_AF_INET,
	PROXY_AF_INET6,
};

struct proxy_header {
	uint8_t version; /* 1 or 2 */
	bool local; /* v2 LOCAL: the balancer's own connection (a check) */
	uint8_t family; /* enum proxy_family */
	uint8_t src_addr[16]; /* network order: 4 bytes for INET */
	uint8_t dst_addr[16];
	uint16_t src_port;
	uint16_t dst_port;
	uint16_t ntlvs; /* v2: type-length-value entries after the addresses */
	uint32_t len; /* of the whole header */
};

struct proxy_parser {
	uint32_t pos; /* bytes examined */
};

/* Results other than a header length. */
enum {
	PROXY_PARSE_AGAIN = 0,
	PROXY_PARSE_ERROR = -1,
};

void proxy_parser_init(struct proxy_parser *p);

/*
 * Examines buf[0..len) and returns the length of the header once it is
 * complete (filling h), PROXY_PARSE_AGAIN when more bytes are needed, or
 * PROXY_PARSE_ERROR when the bytes are not a valid header (or exceed the
 * limits); the connection must then be closed without an answer.
 */
int proxy_parse(struct proxy_parser *p, struct proxy_header *h, const char *buf,
		size_t len);

#endif /* HTTP_PROXY_H */
