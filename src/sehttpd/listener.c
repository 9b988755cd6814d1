// SPDX-License-Identifier: MIT
#include "listener.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#define LISTEN_BACKLOG 4096
#define UNIX_PREFIX "unix:"
#define UNIX_PREFIX_LEN (sizeof(UNIX_PREFIX) - 1)
/* A host name's most (RFC 1035), and room for the NUL. */
#define HOST_MAX 256

/* A -b value's parts: an address (brackets taken off) and a port. */
struct bind_arg {
	char host[HOST_MAX];
	bool has_port;
	uint16_t port;
};

/* "PORT": 1 to 5 digits, at most 65535. */
static int parse_port(const char *s, uint16_t *port)
{
	unsigned long v = 0;
	size_t n = strlen(s);

	if (n == 0 || n > 5 || strspn(s, "0123456789") != n)
		return -1;
	v = strtoul(s, NULL, 10);
	if (v > 65535)
		return -1;
	*port = (uint16_t)v;
	return 0;
}

/*
 * "[V6]", "[V6]:PORT", "HOST", "HOST:PORT", or a bare IPv6 address (two
 * colons or more: no port can follow it) into b.
 */
static int split_bind(const char *arg, struct bind_arg *b, char *err,
		      size_t errlen)
{
	const char *colon, *end;
	size_t n;

	*b = (struct bind_arg){ 0 };
	if (arg[0] == '[') {
		end = strchr(arg, ']');
		if (!end || (end[1] && end[1] != ':')) {
			snprintf(err, errlen, "expected [IPV6] or [IPV6]:PORT");
			return -1;
		}
		arg++;
		n = (size_t)(end - arg);
		colon = end[1] ? end + 1 : NULL;
	} else {
		colon = strchr(arg, ':');
		if (colon && strchr(colon + 1, ':'))
			colon = NULL; /* a bare IPv6 address */
		n = colon ? (size_t)(colon - arg) : strlen(arg);
	}
	if (n == 0 || n >= sizeof(b->host)) {
		snprintf(err, errlen, "expected an address before the port");
		return -1;
	}
	memcpy(b->host, arg, n);
	b->host[n] = '\0';
	if (colon && parse_port(colon + 1, &b->port)) {
		snprintf(err, errlen, "the port is a number up to 65535");
		return -1;
	}
	b->has_port = colon != NULL;
	return 0;
}

/* "unix:PATH": PATH fits sun_path with its NUL. */
static int check_unix_path(const char *path, char *err, size_t errlen)
{
	size_t n = strlen(path);

	if (n == 0 || n >= sizeof(((struct sockaddr_un *)0)->sun_path)) {
		snprintf(err, errlen, "a Unix socket's path is 1 to %zu bytes",
			 sizeof(((struct sockaddr_un *)0)->sun_path) - 1);
		return -1;
	}
	return 0;
}

int listen_arg_check(const char *arg, char *err, size_t errlen)
{
	struct bind_arg b;

	if (!strncmp(arg, UNIX_PREFIX, UNIX_PREFIX_LEN))
		return check_unix_path(arg + UNIX_PREFIX_LEN, err, errlen);
	return split_bind(arg, &b, err, errlen);
}

int listen_addr_parse(struct listen_addr *a, const char *arg, uint16_t port,
		      char *err, size_t errlen)
{
	struct sockaddr_un *un = (struct sockaddr_un *)&a->ss;
	struct bind_arg b;

	memset(a, 0, sizeof(*a));
	if (!strncmp(arg, UNIX_PREFIX, UNIX_PREFIX_LEN)) {
		arg += UNIX_PREFIX_LEN;
		if (check_unix_path(arg, err, errlen))
			return -1;
		un->sun_family = AF_UNIX;
		strcpy(un->sun_path, arg);
		a->len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) +
				     strlen(arg) + 1);
		return 0;
	}
	if (split_bind(arg, &b, err, errlen))
		return -1;
	return listen_addr_resolve(a, b.host, b.has_port ? b.port : port, err,
				   errlen);
}

int listen_addr_resolve(struct listen_addr *a, const char *host, uint16_t port,
			char *err, size_t errlen)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_PASSIVE | AI_NUMERICSERV };
	struct addrinfo *res;
	char name[256], service[8];
	size_t n = strlen(host);
	int rc;

	memset(a, 0, sizeof(*a));
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
	    (a->v6only &&
	     setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one))) ||
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
		int one = 1;

		fds[i] = bound_socket(a, true);
		if (fds[i] < 0)
			goto unwind;
		/* Accepted sockets inherit it: no setsockopt per connection. */
		if (setsockopt(fds[i], IPPROTO_TCP, TCP_NODELAY, &one,
			       sizeof(one)) ||
		    listen(fds[i], LISTEN_BACKLOG)) {
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

/* The path of a's Unix socket, NUL-terminated within a->ss. */
static const char *unix_path(const struct listen_addr *a)
{
	return ((const struct sockaddr_un *)&a->ss)->sun_path;
}

/*
 * Makes room for a's socket: a socket file nothing accepts on (left by a
 * server that was killed) is removed; a live one is refused, as is any
 * other file, which is never ours to remove.
 */
static int clear_stale(const struct listen_addr *a, char *err, size_t errlen)
{
	const char *path = unix_path(a);
	struct stat st;
	int probe, r, saved;

	if (lstat(path, &st)) {
		if (errno == ENOENT)
			return 0;
		snprintf(err, errlen, "cannot listen on unix:%s: %s", path,
			 strerror(errno));
		return -1;
	}
	if (!S_ISSOCK(st.st_mode)) {
		snprintf(err, errlen,
			 "cannot listen on unix:%s: a file that is not a "
			 "socket is there",
			 path);
		return -1;
	}
	probe = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (probe < 0) {
		snprintf(err, errlen, "cannot listen on unix:%s: %s", path,
			 strerror(errno));
		return -1;
	}
	/* Non-blocking: a full backlog (EAGAIN) is a live server too. */
	r = connect(probe, (const struct sockaddr *)&a->ss, a->len);
	saved = errno;
	close(probe);
	if (r == 0 || saved == EAGAIN) {
		snprintf(err, errlen,
			 "cannot listen on unix:%s: a server is listening "
			 "there",
			 path);
		return -1;
	}
	if (saved != ECONNREFUSED) {
		snprintf(err, errlen, "cannot listen on unix:%s: %s", path,
			 strerror(saved));
		return -1;
	}
	if (unlink(path) && errno != ENOENT) {
		snprintf(err, errlen, "cannot replace the stale unix:%s: %s",
			 path, strerror(errno));
		return -1;
	}
	return 0;
}

int listener_open_unix(struct listen_addr *a, char *err, size_t errlen)
{
	const char *path = unix_path(a);
	struct stat st;
	mode_t umask_was;
	int fd, r = -1;

	if (clear_stale(a, err, errlen))
		return -1;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		goto fail;
	/*
	 * The file is made by bind, with the umask applied: 0660 from the
	 * start, so no one else can connect before a chmod.  Only the main
	 * thread and the log writer run now; the writer makes no files.
	 */
	umask_was = umask(0117);
	r = bind(fd, (const struct sockaddr *)&a->ss, a->len);
	umask(umask_was);
	if (r || lstat(path, &st) || listen(fd, LISTEN_BACKLOG))
		goto fail;
	a->dev = st.st_dev;
	a->ino = st.st_ino;
	return fd;
fail:
	snprintf(err, errlen, "cannot listen on unix:%s: %s", path,
		 strerror(errno));
	if (fd >= 0) {
		if (!r)
			unlink(path);
		close(fd);
	}
	return -1;
}

void listener_unix_remove(const struct listen_addr *a)
{
	struct stat st;

	if (a->ss.ss_family != AF_UNIX || !a->ino)
		return;
	/* Started as root and serving as another user, it may lack the right
	 * to: the next start then replaces the file as stale. */
	if (!lstat(unix_path(a), &st) && st.st_dev == a->dev &&
	    st.st_ino == a->ino)
		unlink(unix_path(a));
}

int listener_adopt(int fd, struct listen_addr *a, char *err, size_t errlen)
{
	int one = 1;

	memset(a, 0, sizeof(*a));
	a->len = sizeof(a->ss);
	if (getsockname(fd, (struct sockaddr *)&a->ss, &a->len)) {
		snprintf(err, errlen, "passed socket: %s", strerror(errno));
		return -1;
	}
	if (a->ss.ss_family == AF_INET || a->ss.ss_family == AF_INET6)
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return 0;
}
