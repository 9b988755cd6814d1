/* SPDX-License-Identifier: MIT */
/*
 * Password protection (--auth-file, --auth-realm): which paths need which
 * password file, the files as last loaded (SIGHUP loads them again), and
 * the challenge a 401 carries.  Set up before the threads start; the rules
 * are read-only afterwards, and each rule's file is swapped under a lock
 * that requests hold only to take a reference.
 */
#ifndef SEHTTPD_AUTH_H
#define SEHTTPD_AUTH_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

struct htpasswd;

/* --auth-file may be given this many times. */
#define AUTH_FILES_MAX 16
/* The longest realm; it goes into every 401. */
#define AUTH_REALM_MAX 256

struct auth_rule {
	const char *prefix; /* a decoded path from '/'; "" for all */
	size_t prefix_len;
	const char *path; /* the password file */
	struct htpasswd *file; /* as last loaded; under auth->lock */
};

struct auth {
	struct auth_rule rules[AUTH_FILES_MAX];
	unsigned nrules;
	pthread_mutex_t lock;
	/* "WWW-Authenticate: Basic realm=..., charset="UTF-8"\r\n" */
	char *challenge;
	size_t challenge_len;
};

/*
 * The checks of --auth-file's "[/PREFIX:]FILE" and --auth-realm's text as
 * the command line gives them: 0, or -1 with a one-line reason in why.
 */
int auth_check_file_arg(const char *arg, char *why, size_t cap);
int auth_check_realm(const char *realm, char *why, size_t cap);

/*
 * Loads every --auth-file (args, checked) and builds the challenge for
 * realm (NULL: the host name).  Returns 0, or -1 with one line in err:
 * "FILE:LINE: why" for a line of a file that is refused.
 */
int auth_open(struct auth *a, const char *const *args, unsigned n,
	      const char *realm, char *err, size_t cap);
/* Loads every file again; one that fails keeps what it had and says why on
 * stderr.  Checks that begin afterwards use the new files. */
void auth_reload(struct auth *a);
void auth_close(struct auth *a);

/*
 * The rule for a request's decoded, normalised path: the one with the
 * longest prefix the path starts with (a prefix ending in '/' also covers
 * the path without it, "/admin" for "/admin/"), or NULL: not protected.
 */
const struct auth_rule *auth_rule_for(const struct auth *a, const char *path,
				      size_t len);
/* The rule's file as last loaded, referenced for the caller. */
struct htpasswd *auth_rule_file(struct auth *a, const struct auth_rule *r);

#endif /* SEHTTPD_AUTH_H */
