/* SPDX-License-Identifier: MIT */
/* Giving up root once the listeners are open. */
#ifndef SEHTTPD_PRIVILEGES_H
#define SEHTTPD_PRIVILEGES_H

#include <stdbool.h>
#include <stddef.h>

/* The account a server started as root switches to unless told otherwise. */
#define PRIVILEGES_DEFAULT_USER "nobody"

/*
 * Started as root: becomes user (its uid, its primary group, no
 * supplementary groups), or stays root, with a warning on stderr, when user
 * is "root".  Started as anyone else: nothing changes; an explicit user
 * other than the current one only draws a warning.  Returns 0, or -1 with a
 * message in err (unknown user, or a switch the kernel refused).
 */
int privileges_drop(const char *user, bool explicit_user, char *err,
		    size_t errlen);

/*
 * Before privileges_drop(): fd, a file opened to write to (path, the access
 * log), will be opened again as user after a rotation (SIGHUP, SIGUSR1).
 * One the server just created becomes user's; one user may not write to
 * draws a warning on stderr, since that reopen would fail.  Nothing unless
 * started as root and becoming another user.
 */
void privileges_hand_over(int fd, bool created, const char *path,
			  const char *user);

#endif /* SEHTTPD_PRIVILEGES_H */
