/* SPDX-License-Identifier: MIT */
/*
 * Where the workers accept: every -b address (or every socket systemd
 * passed) and --http-redirect's, as a table of each worker's listeners.
 */
#ifndef SEHTTPD_LISTEN_SET_H
#define SEHTTPD_LISTEN_SET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "listener.h"
#include "options.h"

struct listen_set {
	struct listen_addr *addrs; /* -b's in order, or the passed sockets' */
	unsigned naddrs;
	unsigned nworkers;
	unsigned per_worker; /* a row: one per address, then redirects */
	/* Worker i's row at i * per_worker; fd -1: none, or taken by it. */
	struct listener *table;
	uint16_t https_port; /* the first TCP address's, for the redirect */
	/* --http-redirect's addresses, for the line that announces each. */
	struct listen_addr redirects[LISTEN_ADDRS_MAX];
	unsigned nredirects;
	const char *tcp_congestion; /* --tcp-congestion's, or NULL */
};

/*
 * Opens every listener for nworkers workers: the passed sockets when
 * systemd passed some (socket_activation.h; worker i then takes passed
 * socket i % passed), else each -b address (0.0.0.0 when none) at its own
 * port or -p's; with --http-redirect, the same addresses at its port.
 * Returns 0, or -1 with a message in err; listen_set_close() releases
 * what it opened either way.
 */
int listen_set_open(struct listen_set *set, const struct options *opt,
		    unsigned passed, unsigned nworkers, char *err,
		    size_t errlen);

/* Whether one of the set's TCP addresses (-b's or redirects') is at port. */
bool listen_set_has_tcp_port(const struct listen_set *set, uint16_t port);

/* Worker i's per_worker listeners. */
static inline struct listener *listen_set_row(struct listen_set *set,
					      unsigned i)
{
	return &set->table[(size_t)i * set->per_worker];
}

/*
 * Closes the listeners no worker took and removes the Unix socket files
 * made (still there as made): after the workers are gone.
 */
void listen_set_close(struct listen_set *set);

#endif /* SEHTTPD_LISTEN_SET_H */
