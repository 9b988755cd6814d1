// SPDX-License-Identifier: MIT
#include "authorize.h"

#include <string.h>

#include "auth.h"
#include "auth_cache.h"
#include "auth_checkers.h"
#include "beneath.h"
#include "conn_io.h"
#include "coro.h"
#include "htpasswd.h"
#include "http/basic_auth.h"
#include "server.h"

/* A request's defer: a check still out is left to the worker to free. */
static void release_check(void *arg)
{
	struct auth_check *job = arg;

	if (job->done)
		auth_check_free(job);
	else
		job->waiter = NULL;
}

/*
 * Runs the check on a checker thread and waits for it.  Returns 1 when
 * the credentials match, 0 when not, or a status (503) when it cannot run.
 */
static int check_off_loop(struct exchange *rc, struct htpasswd *file,
			  const struct http_basic_credentials *cred)
{
	struct conn *c = rc->conn;
	struct worker *w = rc->worker;
	struct auth_check *job = auth_check_new(file, &rc->worker->auth_inbox,
						cred->user, cred->user_len,
						cred->password,
						cred->password_len);

	if (!job)
		return 503;
	/* The coroutine may be dropped while it waits (a drain cut off). */
	if (coro_defer(c->coro, release_check, job)) {
		auth_check_free(job);
		return 503;
	}
	job->waiter = c;
	if (auth_checkers_submit(job)) {
		job->done = true; /* never queued: the defer frees it */
		return 503;
	}
	/* The timeout from now: the timer may hold what was left of the idle
	 * time before this request, which need not cover a check. */
	timer_wheel_add(&w->wheel, &c->timer,
			w->now_ms + w->server->timeout_ms);
	while (!job->done) {
		if (conn_wait_wake(c))
			return 503; /* timed out: the answer is cut off */
	}
	return job->ok;
}

int authorize_request(struct exchange *rc, const char *path, size_t len)
{
	struct worker *w = rc->worker;
	struct auth *a = w->server->auth;
	const struct auth_rule *r = auth_rule_for(a, path, len);
	const struct http_request *req = rc->req;
	struct http_basic_credentials cred;
	unsigned char key[AUTH_CACHE_KEY_LEN];
	char decoded[HTTP_BASIC_MAX];
	struct htpasswd *file;
	const char *value;
	int ret;

	if (!r)
		return 0;
	rc->auth_private = true;
	/* Two Authorization lines: which one would be meant? */
	if (!http_has_header(req, HTTP_H_AUTHORIZATION) ||
	    (req->repeated & (1u << HTTP_H_AUTHORIZATION)))
		return 401;
	value = rc->buf + req->header[HTTP_H_AUTHORIZATION].off;
	if (http_basic_parse(value, req->header[HTTP_H_AUTHORIZATION].len,
			     decoded, &cred))
		return 401;
	file = auth_rule_file(a, r);
	auth_cache_key(w->auth_cache, file->serial, value,
		       req->header[HTTP_H_AUTHORIZATION].len, key);
	if (auth_cache_hit(w->auth_cache, key, w->now_ms)) {
		htpasswd_put(file);
		explicit_bzero(decoded, sizeof(decoded));
		rc->auth_rule = r;
		return 0;
	}
	ret = check_off_loop(rc, file, &cred);
	explicit_bzero(decoded, sizeof(decoded));
	if (ret == 1)
		auth_cache_add(w->auth_cache, key, w->now_ms);
	if (ret != 1)
		return ret == 0 ? 401 : ret;
	rc->auth_rule = r;
	return 0;
}

/* Whether a rule other than the one the request met covers where. */
static bool guarded_elsewhere(const struct server *s,
			      const struct auth_rule *met, const char *where,
			      size_t n)
{
	for (unsigned int i = 0; i <= s->nvhosts; i++) {
		const struct auth_rule *r;
		const char *rel;
		ssize_t len = beneath_relative(&s->roots[i], where, n, &rel);

		if (len < 0)
			continue;
		r = auth_rule_for(s->auth, rel, (size_t)len);
		if (r && r != met)
			return true;
	}
	return false;
}

bool authorize_place(const struct exchange *rc, const struct auth_rule *met,
		     const char *where, ssize_t n)
{
	const struct server *s = rc->worker->server;

	/* Not known: a path longer than PATH_MAX, which nothing may pass. */
	return !s->auth ||
	       (n >= 0 && !guarded_elsewhere(s, met, where, (size_t)n));
}
