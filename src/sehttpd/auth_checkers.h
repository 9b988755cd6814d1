/* SPDX-License-Identifier: MIT */
/*
 * Password checks off the event loops.  A bcrypt check takes tens of
 * milliseconds of CPU, which on a loop thread would stall every other
 * connection of that thread; so a small pool of threads runs them
 * (htpasswd_check()) and posts each result to the inbox of the worker that
 * asked.  The inbox is an eventfd in the worker's epoll set: the coroutine
 * waiting for the result is resumed from the loop as one waiting for its
 * socket is, and the thread serves its other connections meanwhile.
 * The checkers run at a lower priority than the loops, so that a flood of
 * wrong passwords slows logins rather than serving.
 */
#ifndef SEHTTPD_AUTH_CHECKERS_H
#define SEHTTPD_AUTH_CHECKERS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include "http/basic_auth.h"

struct conn;
struct htpasswd;

/* Checker threads at most; there are as many as workers up to this. */
#define AUTH_CHECKERS_MAX 4
/* Checks waiting at most; beyond, requests get 503 and Retry-After. */
#define AUTH_QUEUE_MAX 256
/* The checkers' nice value above the loops'. */
#define AUTH_CHECKER_NICE 5

struct auth_inbox;

struct auth_check {
	/* Set by the worker before it submits; then read by a checker. */
	struct htpasswd *file; /* referenced, released with the check */
	struct auth_inbox *inbox;
	size_t user_len;
	char user[HTTP_BASIC_MAX + 1]; /* user, NUL, password, NUL */
	const char *password; /* in user[] */
	/* The checker's answer, read by the worker once the check is back. */
	bool ok;
	/* In the queue, then in the inbox: one owner at a time. */
	struct auth_check *next;
	/* The worker's alone. */
	struct conn *waiter; /* NULL once the request gave up on it */
	bool done; /* back in the inbox and taken */
};

struct auth_inbox {
	_Atomic(struct auth_check *) posted; /* a stack the checkers push */
	int fd; /* eventfd, readable once something is posted; -1: none */
};

/* Returns 0, or -1 with errno. */
int auth_inbox_init(struct auth_inbox *in);
/* What has been posted since the last call (resets the eventfd). */
struct auth_check *auth_inbox_take(struct auth_inbox *in);
/* Frees what is left in it, and closes it; the checkers have stopped. */
void auth_inbox_destroy(struct auth_inbox *in);

/*
 * A check of user:password (as Basic credentials gave them) against file,
 * whose reference it takes; its answer goes to inbox.  NULL when out of
 * memory (the reference is dropped then).
 */
struct auth_check *auth_check_new(struct htpasswd *file,
				  struct auth_inbox *inbox, const char *user,
				  size_t user_len, const char *password,
				  size_t password_len);
/* Wipes the password and frees the check. */
void auth_check_free(struct auth_check *job);

/* Starts n checker threads (1 to AUTH_CHECKERS_MAX); 0 or -1. */
int auth_checkers_start(unsigned n);
/* Stops them once they finish the check in hand; frees what is queued.
 * The workers have stopped first: no request waits any more. */
void auth_checkers_stop(void);
/* Queues job; -1 when AUTH_QUEUE_MAX wait already. */
int auth_checkers_submit(struct auth_check *job);

#endif /* SEHTTPD_AUTH_CHECKERS_H */
