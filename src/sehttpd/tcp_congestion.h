/* SPDX-License-Identifier: MIT */
/*
 * Which TCP congestion control a connection uses.  A loopback connection
 * never meets a congested link, yet a pacing algorithm (BBR, the default
 * of many systems) still spaces its segments with a timer and cuts them
 * small: on these machines a 100 KiB response cost 58 us of server CPU
 * under BBR and 27 us under Reno, the client's cost unchanged.  So a
 * connection from a loopback address (a reverse proxy or a test on the
 * same host) uses Reno, and every other keeps the system's choice
 * (net.ipv4.tcp_congestion_control), unless --tcp-congestion names one
 * for all ("system": the system's for all).
 *
 * BBR marks a connection for pacing when the connection starts, and a
 * switch to Reno after accept() leaves the mark: a loopback peer of a
 * wildcard listener still paid 27 us per 100 KiB response against 16 us
 * on a 127.0.0.1 listener.  So when the system's algorithm paces, such a
 * listener is Reno, and each connection from any other peer is moved to
 * the system's algorithm as it is accepted.
 */
#ifndef SEHTTPD_TCP_CONGESTION_H
#define SEHTTPD_TCP_CONGESTION_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>

#define TCP_CONGESTION_LOOPBACK "reno"
#define TCP_CONGESTION_SYSTEM "system"
#define TCP_CONGESTION_NAME_MAX 16 /* the kernel's TCP_CA_NAME_MAX */

/* What a listener's connections need as they are accepted, by peer. */
struct tcp_congestion_accept {
	bool loopback_reno; /* a loopback peer is moved to Reno */
	/* A peer of any other address, still on the listener's Reno, is
	 * moved to this ("": left as it is). */
	char others[TCP_CONGESTION_NAME_MAX];
};

/*
 * Checks a --tcp-congestion value: "system", or an algorithm this kernel
 * has and lets this process choose.  Returns 0, or -1 with the reason in
 * why.
 */
int tcp_congestion_check(const char *name, char *why, size_t len);

/* Whether sa is a loopback address (127.0.0.0/8, ::1, or 127/8 mapped). */
bool tcp_congestion_is_loopback(const struct sockaddr *sa);

/*
 * Sets up listening socket fd, bound at bound, for --tcp-congestion's
 * value opt (NULL: not given): what it sets there its connections
 * inherit.  Fills acc with what each connection needs on top, from the
 * address of its peer (a wildcard or other address that loopback peers
 * may reach as well as remote ones).
 */
void tcp_congestion_listener(int fd, const struct sockaddr *bound,
			     const char *opt,
			     struct tcp_congestion_accept *acc);

/* Whether a connection accepted with acc needs tcp_congestion_accepted(). */
static inline bool
tcp_congestion_per_peer(const struct tcp_congestion_accept *acc)
{
	return acc->loopback_reno || acc->others[0];
}

/* A connection accepted from peer on a listener that filled acc. */
void tcp_congestion_accepted(int fd, const struct sockaddr *peer,
			     const struct tcp_congestion_accept *acc);

#endif /* SEHTTPD_TCP_CONGESTION_H */
