/* SPDX-License-Identifier: MIT */
/* The listening sockets: one per thread, sharing a port with SO_REUSEPORT. */
#ifndef SEHTTPD_LISTENER_H
#define SEHTTPD_LISTENER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

struct listen_addr {
	struct sockaddr_storage ss;
	socklen_t len;
};

/*
 * Parses an IPv4 or IPv6 address (brackets optional) or host name.
 * Returns 0, or -1 with a message in err.
 */
int listen_addr_resolve(struct listen_addr *a, const char *host, uint16_t port,
			char *err, size_t errlen);

/*
 * Opens n non-blocking listeners on a.  The port must be free: SO_REUSEPORT
 * would otherwise let a second server silently share it, so it is claimed
 * first by a socket without that option.  Port 0 picks a free port, stored
 * back into a.  Returns 0, or -1 with a message in err.
 */
int listeners_open(struct listen_addr *a, unsigned n, int *fds, char *err,
		   size_t errlen);

/*
 * Takes the passed listening sockets (socket_activation.h) for n threads:
 * thread i listens on passed socket i % passed, through a descriptor of its
 * own.  The first socket's address goes into a.  Returns 0, or -1 with a
 * message in err.
 */
int listeners_adopt(unsigned passed, unsigned n, int *fds,
		    struct listen_addr *a, char *err, size_t errlen);

uint16_t listen_addr_port(const struct listen_addr *a);
/* "127.0.0.1:8080" or "[::1]:8080"; LISTEN_ADDR_STRLEN bytes suffice. */
#define LISTEN_ADDR_STRLEN 56
void listen_addr_format(const struct listen_addr *a, char *out, size_t len);
/*
 * Where clients reach a: "http://127.0.0.1:8080/", or for a passed Unix
 * socket "unix:/run/sehttpd.sock"; LISTEN_URL_STRLEN bytes suffice.
 */
#define LISTEN_URL_STRLEN 128
void listen_addr_url(const struct listen_addr *a, char *out, size_t len);

#endif /* SEHTTPD_LISTENER_H */
