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

/* A rule as it applies beneath one root: root->real + prefix is its place
 * ("/" for a rule for all paths). */
struct guarded_place {
	const struct auth_rule *rule;
	const struct beneath_root *root;
};

static size_t place_len(const struct guarded_place *g)
{
	return g->root->real_len +
	       (g->rule->prefix_len ? g->rule->prefix_len : 1);
}

static char place_char(const struct guarded_place *g, size_t i)
{
	if (i < g->root->real_len)
		return g->root->real[i];
	i -= g->root->real_len;
	return g->rule->prefix_len ? g->rule->prefix[i] : '/';
}

/* Whether inner's place lies within outer's, as its prefixes match. */
static bool place_within(const struct guarded_place *outer,
			 const struct guarded_place *inner)
{
	size_t n = place_len(outer);

	if (n > place_len(inner))
		return false;
	for (size_t i = 0; i < n; i++) {
		if (place_char(outer, i) != place_char(inner, i))
			return false;
	}
	return true;
}

/*
 * The rule that guards where: of those that cover it as seen from ROOT
 * and from each --vhost DIR holding it, the one whose place lies deepest,
 * as within one root the longest prefix wins.
 */
static struct guarded_place guard_of(const struct server *s, const char *where,
				     size_t n)
{
	struct guarded_place g = { NULL, NULL };

	for (unsigned int i = 0; i <= s->nvhosts; i++) {
		struct guarded_place here = { NULL, &s->roots[i] };
		const char *rel;
		ssize_t len = beneath_relative(here.root, where, n, &rel);

		if (len < 0)
			continue;
		here.rule = auth_rule_for(s->auth, rel, (size_t)len);
		if (here.rule && (!g.rule || place_len(&here) > place_len(&g)))
			g = here;
	}
	return g;
}

/*
 * Whether the rule that guards where is one the request did not meet: not
 * met itself, nor one whose place holds met's (a rule for all paths
 * besides met's /admin/: what lies outside /admin/ is no secret from
 * those who may see inside it, as for an --spa page).
 */
static bool guarded_elsewhere(const struct exchange *rc,
			      const struct auth_rule *met, const char *where,
			      size_t n)
{
	struct guarded_place g = guard_of(rc->worker->server, where, n);
	struct guarded_place m = { met, rc->root };

	return g.rule && g.rule != met && !(met && place_within(&g, &m));
}

bool authorize_place(const struct exchange *rc, const struct auth_rule *met,
		     const char *where, ssize_t n)
{
	const struct server *s = rc->worker->server;

	/* Not known: a path longer than PATH_MAX, which nothing may pass. */
	return !s->auth ||
	       (n >= 0 && !guarded_elsewhere(rc, met, where, (size_t)n));
}
