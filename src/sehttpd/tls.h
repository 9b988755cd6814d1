/* SPDX-License-Identifier: MIT */
/*
 * HTTPS contexts: the certificate and key pairs of --tls-cert/--tls-key,
 * the protocol settings every connection shares, and their reload on
 * SIGHUP.  The first pair answers clients whose SNI names no other pair's
 * certificate.  Connections take a reference on the contexts current when
 * they were accepted, so a reload changes what new connections get while
 * open ones go on with what they have.
 */
#ifndef SEHTTPD_TLS_H
#define SEHTTPD_TLS_H

#include <pthread.h>
#include <stddef.h>

#include "tls_tickets.h"

struct ssl_st;
struct ssl_ctx_st;
struct tls_cert;

/* --tls-cert and --tls-key may be given this many times. */
#define TLS_PAIRS_MAX 16

struct tls_pair {
	const char *cert_path; /* PEM: the certificate, then its chain */
	const char *key_path; /* PEM: its private key */
};

struct tls {
	const struct tls_pair *pairs;
	unsigned npairs;
	struct tls_cert *certs[TLS_PAIRS_MAX]; /* as last loaded */
	pthread_mutex_t lock; /* guards current against a reload */
	struct ssl_ctx_st *current; /* the first pair's; holds the others */
	struct tls_ticket_ring tickets;
};

/*
 * Loads every pair and builds the contexts.  Returns 0, or -1 with one
 * line (no "sehttpd: " prefix, no newline) in err.
 */
int tls_open(struct tls *t, const struct tls_pair *pairs, unsigned npairs,
	     char *err, size_t errlen);
/* Loads every pair again; one that fails keeps what it had and says why on
 * stderr.  New connections get the result. */
void tls_reload(struct tls *t);
void tls_close(struct tls *t);

/* A server-side session on the connected socket fd, or NULL. */
struct ssl_st *tls_session_new(struct tls *t, int fd);

#endif /* SEHTTPD_TLS_H */
