// SPDX-License-Identifier: MIT
/*
 * systemd passes sockets it opened (the .socket unit, or
 * systemd-socket-activate) as descriptors 3, 4, ... with LISTEN_PID and
 * LISTEN_FDS in the environment.  The protocol is a few lines, so it is read
 * here rather than linking libsystemd for sd_listen_fds().
 */
#include "socket_activation.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* More would be a mistake in the unit file, not a server. */
#define MAX_PASSED 64

/*
 * The decimal value of variable name into *v; 1 when it is not set, -1
 * (with a message in err) when it is set to anything but a number, as
 * sd_listen_fds() refuses it: a passed socket must never be left unserved.
 */
static int env_number(const char *name, long *v, char *err, size_t errlen)
{
	const char *s = getenv(name);
	char *end;

	if (!s)
		return 1;
	errno = 0;
	*v = strtol(s, &end, 10);
	if (*s < '0' || *s > '9' || errno || *end) {
		snprintf(err, errlen,
			 "%s='%.32s' is not a number (systemd socket "
			 "activation)",
			 name, s);
		return -1;
	}
	return 0;
}

static int check_listener(int fd, char *err, size_t errlen)
{
	int type = 0, listening = 0, flags;
	socklen_t len = sizeof(type);

	if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) ||
	    type != SOCK_STREAM) {
		snprintf(err, errlen,
			 "passed descriptor %d is not a stream socket", fd);
		return -1;
	}
	len = sizeof(listening);
	if (getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &len) ||
	    !listening) {
		snprintf(err, errlen, "passed socket %d is not listening", fd);
		return -1;
	}
	flags = fcntl(fd, F_GETFL);
	if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) ||
	    fcntl(fd, F_SETFD, FD_CLOEXEC)) {
		snprintf(err, errlen, "passed socket %d: %s", fd,
			 strerror(errno));
		return -1;
	}
	return 0;
}

int socket_activation_fds(char *err, size_t errlen)
{
	long pid, n;
	int r = env_number("LISTEN_PID", &pid, err, errlen);

	if (r)
		return r < 0 ? -1 : 0;
	if (pid != (long)getpid())
		return 0;
	r = env_number("LISTEN_FDS", &n, err, errlen);
	if (r < 0)
		return -1;
	unsetenv("LISTEN_PID");
	unsetenv("LISTEN_FDS");
	unsetenv("LISTEN_FDNAMES");
	if (r || n == 0)
		return 0;
	if (n > MAX_PASSED) {
		snprintf(err, errlen, "LISTEN_FDS=%ld: too many sockets", n);
		return -1;
	}
	for (long i = 0; i < n; i++)
		if (check_listener(SOCKET_ACTIVATION_FIRST_FD + (int)i, err,
				   errlen))
			return -1;
	return (int)n;
}
