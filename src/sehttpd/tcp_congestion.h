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
 */
#ifndef SEHTTPD_TCP_CONGESTION_H
#define SEHTTPD_TCP_CONGESTION_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>

#define TCP_CONGESTION_LOOPBACK "reno"
#define TCP_CONGESTION_SYSTEM "system"

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
 * inherit.  Returns true when each connection's peer must be looked at
 * (tcp_congestion_accepted()): a wildcard or other address that loopback
 * peers may reach as well as remote ones.
 */
bool tcp_congestion_listener(int fd, const struct sockaddr *bound,
			     const char *opt);

/* A connection accepted from peer on such a listener: Reno if loopback. */
void tcp_congestion_accepted(int fd, const struct sockaddr *peer);

#endif /* SEHTTPD_TCP_CONGESTION_H */
