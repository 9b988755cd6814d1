// SPDX-License-Identifier: MIT
#include "tcp_congestion.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int set_algorithm(int fd, const char *name)
{
	return setsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, name,
			  (socklen_t)strlen(name));
}

int tcp_congestion_check(const char *name, char *why, size_t len)
{
	int fd, saved;

	if (!strcmp(name, TCP_CONGESTION_SYSTEM))
		return 0;
	/* The kernel's own limit on a name (TCP_CA_NAME_MAX). */
	if (!*name || strlen(name) >= 16) {
		snprintf(why, len, "not an algorithm's name");
		return -1;
	}
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		snprintf(why, len, "cannot make a socket: %s", strerror(errno));
		return -1;
	}
	saved = set_algorithm(fd, name) ? errno : 0;
	close(fd);
	if (saved == ENOENT)
		snprintf(
			why, len,
			"this kernel has no such algorithm (see "
			"/proc/sys/net/ipv4/tcp_available_congestion_control)");
	else if (saved == EPERM)
		snprintf(why, len,
			 "not allowed without CAP_NET_ADMIN (see "
			 "/proc/sys/net/ipv4/tcp_allowed_congestion_control)");
	else if (saved)
		snprintf(why, len, "%s", strerror(saved));
	return saved ? -1 : 0;
}

bool tcp_congestion_is_loopback(const struct sockaddr *sa)
{
	if (sa->sa_family == AF_INET) {
		const struct sockaddr_in *in = (const struct sockaddr_in *)sa;

		return (ntohl(in->sin_addr.s_addr) >> 24) == 127;
	}
	if (sa->sa_family == AF_INET6) {
		const struct in6_addr *a =
			&((const struct sockaddr_in6 *)sa)->sin6_addr;

		return IN6_IS_ADDR_LOOPBACK(a) ||
		       (IN6_IS_ADDR_V4MAPPED(a) && a->s6_addr[12] == 127);
	}
	return false;
}

/* The algorithm of socket fd into name; false when it cannot be read. */
static bool get_algorithm(int fd, char name[TCP_CONGESTION_NAME_MAX])
{
	socklen_t len = TCP_CONGESTION_NAME_MAX;

	if (getsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, name, &len))
		return false;
	if (len >= TCP_CONGESTION_NAME_MAX)
		len = TCP_CONGESTION_NAME_MAX - 1;
	name[len] = '\0';
	return true;
}

/*
 * The system's algorithm, read from a new socket: a listening socket
 * passed by systemd may carry what an earlier instance set on it.
 */
static bool system_algorithm(sa_family_t family,
			     char name[TCP_CONGESTION_NAME_MAX])
{
	int fd = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	bool ok;

	if (fd < 0)
		return false;
	ok = get_algorithm(fd, name);
	close(fd);
	return ok;
}

/* Of the kernel's algorithms only BBR (and its out-of-tree versions,
 * named bbr2, bbr3...) marks its connections for pacing. */
static bool paces(const char *name)
{
	return !strncmp(name, "bbr", 3);
}

void tcp_congestion_listener(int fd, const struct sockaddr *bound,
			     const char *opt, struct tcp_congestion_accept *acc)
{
	char system[TCP_CONGESTION_NAME_MAX], now[TCP_CONGESTION_NAME_MAX];
	bool known;

	*acc = (struct tcp_congestion_accept){ 0 };
	if (opt && strcmp(opt, TCP_CONGESTION_SYSTEM)) {
		set_algorithm(fd, opt); /* checked at start */
		return;
	}
	known = system_algorithm(bound->sa_family, system);
	/* A passed socket may carry what an earlier instance set on it. */
	if (known && get_algorithm(fd, now) && strcmp(now, system))
		set_algorithm(fd, system);
	if (opt)
		return;
	if (tcp_congestion_is_loopback(bound)) {
		/* Reno is always there and allowed: no error to report. */
		set_algorithm(fd, TCP_CONGESTION_LOOPBACK);
		return;
	}
	if (!known) {
		acc->loopback_reno = true;
		return;
	}
	if (!strcmp(system, TCP_CONGESTION_LOOPBACK))
		return;
	if (!paces(system) || set_algorithm(fd, TCP_CONGESTION_LOOPBACK)) {
		acc->loopback_reno = true;
		return;
	}
	memcpy(acc->others, system, sizeof(system));
}

void tcp_congestion_accepted(int fd, const struct sockaddr *peer,
			     const struct tcp_congestion_accept *acc)
{
	char now[TCP_CONGESTION_NAME_MAX];

	if (tcp_congestion_is_loopback(peer)) {
		if (acc->loopback_reno)
			set_algorithm(fd, TCP_CONGESTION_LOOPBACK);
		return;
	}
	/* A route's own algorithm (ip-route(8) congctl) is left alone. */
	if (acc->others[0] && get_algorithm(fd, now) &&
	    !strcmp(now, TCP_CONGESTION_LOOPBACK))
		set_algorithm(fd, acc->others);
}
