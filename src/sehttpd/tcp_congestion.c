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

bool tcp_congestion_listener(int fd, const struct sockaddr *bound,
			     const char *opt)
{
	if (opt) {
		/* Checked at start; "system" leaves the kernel's choice. */
		if (strcmp(opt, TCP_CONGESTION_SYSTEM))
			set_algorithm(fd, opt);
		return false;
	}
	if (tcp_congestion_is_loopback(bound)) {
		/* Reno is always there and allowed: no error to report. */
		set_algorithm(fd, TCP_CONGESTION_LOOPBACK);
		return false;
	}
	return true;
}

void tcp_congestion_accepted(int fd, const struct sockaddr *peer)
{
	if (tcp_congestion_is_loopback(peer))
		set_algorithm(fd, TCP_CONGESTION_LOOPBACK);
}
