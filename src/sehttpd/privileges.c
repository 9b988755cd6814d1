// SPDX-License-Identifier: MIT
/*
 * Files are opened with the process's own credentials, so a server left
 * running as root would serve anything root can read (a mode-000 file, a
 * private key) to anyone.  Binding a port below 1024 is the only reason to
 * start as root; after that the server becomes an unprivileged user, as
 * nginx's workers and khttpd's reads (as nobody) do.
 */
#include "privileges.h"

#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int privileges_drop(const char *user, bool explicit_user, char *err,
		    size_t errlen)
{
	struct passwd *pw;

	if (geteuid() != 0) {
		pw = getpwuid(geteuid());
		if (explicit_user && (!pw || strcmp(pw->pw_name, user)))
			fprintf(stderr,
				"sehttpd: warning: --user %s ignored: not "
				"started as root\n",
				user);
		return 0;
	}
	if (!strcmp(user, "root")) {
		fprintf(stderr, "sehttpd: warning: running as root: every file "
				"root can read under ROOT will be served\n");
		return 0;
	}
	errno = 0;
	pw = getpwnam(user);
	if (!pw) {
		snprintf(err, errlen, "unknown user '%s' for --user", user);
		return -1;
	}
	/*
	 * Groups first: after setuid() there is no right to change them.  The
	 * user's own supplementary groups (/etc/group), as nginx gives them;
	 * root's inherited ones go.
	 */
	if (initgroups(pw->pw_name, pw->pw_gid) || setgid(pw->pw_gid) ||
	    setuid(pw->pw_uid)) {
		snprintf(err, errlen, "cannot become user '%s': %s", user,
			 strerror(errno));
		return -1;
	}
	/* Belt and braces: the way back must be closed. */
	if (pw->pw_uid != 0 && setuid(0) == 0) {
		snprintf(err, errlen, "could regain root after becoming '%s'",
			 user);
		return -1;
	}
	return 0;
}

/* Whether pw (its groups as initgroups() gives them) may write to st. */
static bool may_write(const struct passwd *pw, const struct stat *st)
{
	gid_t groups[64];
	int n = (int)(sizeof(groups) / sizeof(groups[0]));

	if (st->st_uid == pw->pw_uid)
		return st->st_mode & S_IWUSR;
	if (st->st_mode & S_IWOTH)
		return true;
	if (!(st->st_mode & S_IWGRP))
		return false;
	if (getgrouplist(pw->pw_name, pw->pw_gid, groups, &n) < 0)
		return false;
	for (int i = 0; i < n; i++) {
		if (groups[i] == st->st_gid)
			return true;
	}
	return false;
}

void privileges_hand_over(int fd, bool created, const char *path,
			  const char *user)
{
	struct passwd *pw;
	struct stat st;

	if (geteuid() != 0 || !strcmp(user, "root") || !(pw = getpwnam(user)) ||
	    fstat(fd, &st) || !S_ISREG(st.st_mode))
		return;
	if (created) {
		if (fchown(fd, pw->pw_uid, pw->pw_gid) == 0)
			return;
	} else if (may_write(pw, &st)) {
		return;
	}
	fprintf(stderr,
		"sehttpd: warning: %s is not writable by user %s: after a "
		"rotation, SIGHUP or SIGUSR1 cannot open it again (make it "
		"theirs; logrotate: 'create 0640 %s adm')\n",
		path, user, user);
}
