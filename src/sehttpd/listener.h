/* SPDX-License-Identifier: MIT */
/*
 * The listening sockets: for a TCP address one per thread, sharing the
 * port with SO_REUSEPORT; for a Unix socket one that every thread shares.
 */
#ifndef SEHTTPD_LISTENER_H
#define SEHTTPD_LISTENER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

#include "tcp_congestion.h"

/* How often -b may be given. */
#define LISTEN_ADDRS_MAX 16

struct listen_addr {
	struct sockaddr_storage ss;
	socklen_t len;
	/* An IPv6 address that takes no IPv4 connections (IPV6_V6ONLY), so
	 * that an IPv4 address may listen on the same port beside it. */
	bool v6only;
	/* A Unix socket's file as this server made it: removed at exit
	 * while it is still that file. */
	dev_t dev;
	ino_t ino;
};

/*
 * Where a worker accepts connections: a listening descriptor of its own
 * (a duplicate when the socket is shared) and what comes in on it.
 */
struct listener {
	int fd;
	bool redirect; /* --http-redirect's: answered with 308 to https:// */
	bool shared; /* one socket for several workers: EPOLLEXCLUSIVE */
	bool tcp; /* TCP: TCP-level options apply to its connections */
	/* Per peer, as each connection is accepted (tcp_congestion.h). */
	struct tcp_congestion_accept congestion;
};

/*
 * Checks a -b value as the command line gives it: "unix:PATH", or an
 * address (a host name, an IPv4 address, an IPv6 one bare or in brackets)
 * with an optional ":PORT" ("[IPV6]:PORT" for IPv6).  On error writes a
 * one-line reason (no program name, no newline) to err.
 */
int listen_arg_check(const char *arg, char *err, size_t errlen);

/*
 * A checked -b value into a, with port for an address given without one.
 * Returns 0, or -1 with a message in err (a name that does not resolve).
 */
int listen_addr_parse(struct listen_addr *a, const char *arg, uint16_t port,
		      char *err, size_t errlen);

/*
 * Parses an IPv4 or IPv6 address (brackets optional) or host name.
 * Returns 0, or -1 with a message in err.
 */
int listen_addr_resolve(struct listen_addr *a, const char *host, uint16_t port,
			char *err, size_t errlen);

/*
 * Opens n non-blocking TCP listeners on a, with TCP_NODELAY for their
 * connections to inherit.  The port must be free: SO_REUSEPORT would
 * otherwise let a second server silently share it, so it is claimed first
 * by a socket without that option.  Port 0 picks a free port, stored back
 * into a.  Returns 0, or -1 with a message in err.
 */
int listeners_open(struct listen_addr *a, unsigned n, int *fds, char *err,
		   size_t errlen);

/*
 * Opens a non-blocking listener on the Unix socket a names, mode 0660.  A
 * stale socket file there (nothing accepts on it) is replaced; a live one,
 * or a file that is not a socket, is refused.  Records the file in a for
 * listener_unix_remove().  Returns the descriptor, or -1 with a message in
 * err.
 */
int listener_open_unix(struct listen_addr *a, char *err, size_t errlen);

/* Removes a's socket file if it is still the one listener_open_unix()
 * made (not one another server put there since); a no-op otherwise. */
void listener_unix_remove(const struct listen_addr *a);

/*
 * Takes the passed listening socket fd (socket_activation.h): its address
 * into a, and TCP_NODELAY set when it is TCP.  Returns 0, or -1 with a
 * message in err.
 */
int listener_adopt(int fd, struct listen_addr *a, char *err, size_t errlen);

uint16_t listen_addr_port(const struct listen_addr *a);
/* "127.0.0.1:8080" or "[::1]:8080"; LISTEN_ADDR_STRLEN bytes suffice. */
#define LISTEN_ADDR_STRLEN 56
void listen_addr_format(const struct listen_addr *a, char *out, size_t len);
/*
 * Where clients reach a: "http://127.0.0.1:8080/", or for a Unix socket
 * "unix:/run/sehttpd.sock"; LISTEN_URL_STRLEN bytes suffice.
 */
#define LISTEN_URL_STRLEN 128
void listen_addr_url(const struct listen_addr *a, char *out, size_t len);

#endif /* SEHTTPD_LISTENER_H */
