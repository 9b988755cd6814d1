/* SPDX-License-Identifier: MIT */
/*
 * The keys that seal TLS session tickets.  A client resumes a session by
 * handing back a ticket it was given; the ticket is sealed with a key only
 * the server knows.  Keys rotate: a new one seals tickets every
 * TLS_TICKET_ROTATE_S, and the one before it still opens those it sealed
 * (the sessions themselves last one period: SSL_CTX_set_timeout).  One ring
 * serves the whole process (every thread, every certificate, every reload),
 * so a client resumes whichever thread accepts it.
 */
#ifndef SEHTTPD_TLS_TICKETS_H
#define SEHTTPD_TLS_TICKETS_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#define TLS_TICKET_ROTATE_S 3600
#define TLS_TICKET_NAME_LEN 16
#define TLS_TICKET_KEY_LEN 32

struct tls_ticket_key {
	uint8_t name[TLS_TICKET_NAME_LEN]; /* sent in the clear: which key */
	uint8_t aes[TLS_TICKET_KEY_LEN]; /* seals (AES-256-CBC) */
	uint8_t hmac[TLS_TICKET_KEY_LEN]; /* authenticates (HMAC-SHA256) */
	int64_t created_s;
	bool valid;
};

struct tls_ticket_ring {
	pthread_mutex_t lock;
	struct tls_ticket_key current; /* seals and opens */
	struct tls_ticket_key previous; /* only opens */
};

/* Returns 0, or -1 with errno when no randomness could be had. */
int tls_tickets_init(struct tls_ticket_ring *r, int64_t now_s);
void tls_tickets_destroy(struct tls_ticket_ring *r);

/* Copies the key that seals a new ticket at now_s, rotating first if it is
 * due.  Returns 0, or -1 when a new key could not be made (the ticket is
 * then not issued). */
int tls_tickets_seal_key(struct tls_ticket_ring *r, int64_t now_s,
			 struct tls_ticket_key *out);

enum tls_ticket_match {
	TLS_TICKET_UNKNOWN, /* no key of that name: full handshake */
	TLS_TICKET_CURRENT, /* opened with the current key */
	TLS_TICKET_RENEW, /* opened with the previous key: issue a new one */
};

/* Finds the key named name that may open a ticket at now_s. */
enum tls_ticket_match tls_tickets_open_key(struct tls_ticket_ring *r,
					   const uint8_t *name, int64_t now_s,
					   struct tls_ticket_key *out);

#endif /* SEHTTPD_TLS_TICKETS_H */
