// SPDX-License-Identifier: MIT
#include "listener.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/un.h>
#include <unistd.h>

#include "socket_activation.h"

#define LISTEN_BACKLOG 4096

int listen_addr_resolve(struct listen_addr *a, const char *host, uint16_t port,
			char *err, size_t errlen)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_PASSIVE | AI_NUMERICSERV };
	struct addrinfo *res;
	char name[256], service[8];
	size_t n = strlen(host);
	int rc;

	if (n >= 2 && host[0] == '[' && host[n - 1] == ']') {
		host++;
		n -= 2;
	}
	if (n == 0 || n >= sizeof(name)) {
		snprintf(err, errlen, "invalid bind address");
		return -1;
	}
	memcpy(name, host, n);
	name[n] = '\0';
	snprintf(service, sizeof(service), "%u", port);
	rc = getaddrinfo(name, service, &hints, &res);
	if (rc) {
		snprintf(err, errlen, "invalid bind address '%s': %s", name,
			 gai_strerror(rc));
		return -1;
	}
	memcpy(&a->ss, res->ai_addr, res->ai_addrlen);
	a->len = res->ai_addrlen;
	freeaddrinfo(res);
	return 0;
}

uint16_t listen_addr_port(const struct listen_addr *a)
{
	if (a->ss.ss_family == AF_INET6)
		return ntohs(((const struct sockaddr_in6 *)&a->ss)->sin6_port);
	return ntohs(((const struct sockaddr_in *)&a->ss)->sin_port);
}

void listen_addr_format(const struct listen_addr *a, char *out, size_t len)
{
	char host[INET6_ADDRSTRLEN];

	if (a->ss.ss_family == AF_INET6) {
		inet_ntop(AF_INET6,
			  &((const struct sockaddr_in6 *)&a->ss)->sin6_addr,
			  host, sizeof(host));
		snprintf(out, len, "[%s]:%u", host, listen_addr_port(a));
	} else {
		inet_ntop(AF_INET,
			  &((const struct sockaddr_in *)&a->ss)->sin_addr, host,
			  sizeof(host));
		snprintf(out, len, "%s:%u", host, listen_addr_port(a));
	}
}

void listen_addr_url(const struct listen_addr *a, char *out, size_t len)
{
	const struct sockaddr_un *un = (const struct sockaddr_un *)&a->ss;
	size_t off = offsetof(struct sockaddr_un, sun_path);
	char where[LISTEN_ADDR_STRLEN];

	if (a->ss.ss_family != AF_UNIX) {
		listen_addr_format(a, where, sizeof(where));
		snprintf(out, len, "http://%s/", where);
	} else if (a->len <= off) {
		snprintf(out, len, "an unnamed unix socket");
	} else if (un->sun_path[0]) {
		snprintf(out, len, "unix:%.*s",
			 (int)strnlen(un->sun_path, a->len - off),
			 un->sun_path);
	} else { /* abstract: '@' as ss(8) writes it */
		snprintf(out, len, "unix:@%.*s", (int)(a->len - off - 1),
			 un->sun_path + 1);
	}
}

static int bound_socket(const struct listen_addr *a, bool reuseport)
{
	int one = 1;
	int fd = socket(a->ss.ss_family,
			SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -1;
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    (reuseport &&
	     setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one))) ||
	    bind(fd, (const struct sockaddr *)&a->ss, a->len)) {
		int saved = errno;

		close(fd);
		errno = saved;
		return -1;
	}
	return fd;
}

int listeners_open(struct listen_addr *a, unsigned n, int *fds, char *err,
		   size_t errlen)
{
	char where[LISTEN_ADDR_STRLEN];
	int probe = bound_socket(a, false);
	unsigned i;
	int saved;

	if (probe < 0)
		goto fail;
	if (listen_addr_port(a) == 0) {
		socklen_t len = a->len;

		if (getsockname(probe, (struct sockaddr *)&a->ss, &len)) {
			close(probe);
			goto fail;
		}
	}
	close(probe);

	for (i = 0; i < n; i++) {
		fds[i] = bound_socket(a, true);
		if (fds[i] < 0)
			goto unwind;
		if (listen(fds[i], LISTEN_BACKLOG)) {
			i++;
			goto unwind;
		}
	}
	return 0;
unwind:
	saved = errno;
	while (i-- > 0)
		close(fds[i]);
	errno = saved;
fail:
	listen_addr_format(a, where, sizeof(where));
	if (errno == EADDRINUSE)
		snprintf(err, errlen,
			 "cannot listen on %s: port already in use", where);
	else
		snprintf(err, errlen, "cannot listen on %s: %s", where,
			 strerror(errno));
	return -1;
}

int listeners_adopt(unsigned passed, unsigned n, int *fds,
		    struct listen_addr *a, char *err, size_t errlen)
{
	unsigned i;

	a->len = sizeof(a->ss);
	if (getsockname(SOCKET_ACTIVATION_FIRST_FD, (struct sockaddr *)&a->ss,
			&a->len)) {
		snprintf(err, errlen, "passed socket: %s", strerror(errno));
		return -1;
	}
	for (i = 0; i < n; i++) {
		int fd = SOCKET_ACTIVATION_FIRST_FD + (int)(i % passed);

		/* Threads sharing a socket each close their own descriptor. */
		fds[i] = i < passed ? fd : fcntl(fd, F_DUPFD_CLOEXEC, 0);
		if (fds[i] < 0) {
			snprintf(err, errlen, "passed socket: %s",
				 strerror(errno));
			while (i-- > passed)
				close(fds[i]);
			return -1;
		}
	}
	return 0;
}
