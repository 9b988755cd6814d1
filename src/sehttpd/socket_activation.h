/* SPDX-License-Identifier: MIT */
/* Listening sockets passed by systemd (or systemd-socket-activate). */
#ifndef SEHTTPD_SOCKET_ACTIVATION_H
#define SEHTTPD_SOCKET_ACTIVATION_H

#include <stddef.h>

/* Descriptors passed start here (sd_listen_fds(3)). */
#define SOCKET_ACTIVATION_FIRST_FD 3

/*
 * The protocol of sd_listen_fds(): when LISTEN_PID names this process,
 * LISTEN_FDS sockets start at fd 3.  Each is made non-blocking and
 * close-on-exec; the variables are removed so that children do not see
 * them.  Returns how many sockets were passed (0 when none), or -1 with a
 * message in err when LISTEN_PID or LISTEN_FDS is not a number or the
 * environment names descriptors that are not listening stream sockets.
 */
int socket_activation_fds(char *err, size_t errlen);

#endif /* SEHTTPD_SOCKET_ACTIVATION_H */
