// SPDX-License-Identifier: MIT
#include "authorize.h"

#include <limits.h>
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
#include "config.h"

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

size_t authorize_user(const struct exchange *rc, char *out)
{
	const struct http_request *req = rc->req;
	struct http_basic_credentials cred;
	char decoded[HTTP_BASIC_MAX];
	size_t n = 0;

	/* A rule met: the one Authorization line parsed as Basic. */
	if (!rc->auth_rule || !req ||
	    !http_has_header(req, HTTP_H_AUTHORIZATION))
		return 0;
	if (!http_basic_parse(rc->buf + req->header[HTTP_H_AUTHORIZATION].off,
			      req->header[HTTP_H_AUTHORIZATION].len, decoded,
			      &cred)) {
		n = cred.user_len;
		memcpy(out, cred.user, n);
	}
	explicit_bzero(decoded, sizeof(decoded));
	return n;
}

/* The rule that guards a place, of those seen from the roots holding it. */
struct guard {
	const struct auth_rule *rule;
	size_t depth; /* where its place ends; 0 for a rule for all paths */
	const struct beneath_root *root; /* the request's, when it is one */
	bool ambiguous; /* another rule's place ends as deep */
};

/* The rule for where (n bytes) seen from root, found at dir (len). */
static void guard_view(struct guard *g, const struct exchange *rc,
		       const struct beneath_root *root, const char *dir,
		       size_t len, const char *where, size_t n)
{
	const struct auth_rule *r;
	const char *rel;
	ssize_t rel_len = beneath_relative_to(dir, len, where, n, &rel);
	size_t depth;

	if (rel_len < 0)
		return;
	r = auth_rule_for(rc->worker->server->auth, rel, (size_t)rel_len);
	if (!r)
		return;
	/* A rule for all paths ("" or "/") is the least particular
	 * anywhere: seen from a --vhost DIR inside /intranet/ it guards
	 * nothing deeper. */
	depth = r->prefix_len > 1 ? len + r->prefix_len : 0;
	if (!g->rule || depth > g->depth) {
		*g = (struct guard){ r, depth, root, false };
	} else if (depth == g->depth) {
		if (r != g->rule)
			g->ambiguous = true;
		else if (root == rc->root)
			g->root = root;
	}
}

/*
 * The rule that guards where: of those that cover it, as seen from ROOT
 * and from each --vhost DIR holding it (where the DIR was at start, and
 * where it is now), the one whose place lies deepest, as within one root
 * the longest prefix wins.
 */
static struct guard guard_of(const struct exchange *rc, const char *where,
			     size_t n)
{
	const struct worker_roots *roots = &rc->worker->roots;
	struct guard g = { 0 };
	char now[PATH_MAX];

	for (unsigned int i = 0; i < roots->n; i++) {
		const struct beneath_root *root = &roots->dirs[i];
		ssize_t len = beneath_root_now(root, now, sizeof(now));

		if (root->real)
			guard_view(&g, rc, root, root->real, root->real_len,
				   where, n);
		if (len >= 0 && (!root->real || (size_t)len != root->real_len ||
				 memcmp(now, root->real, (size_t)len)))
			guard_view(&g, rc, root, now, (size_t)len, where, n);
	}
	return g;
}

/* Whether outer's prefix names a directory that holds inner's ("/admin"
 * holds "/admin/x/", not "/adminpanel/"). */
static bool prefix_holds(const struct auth_rule *outer,
			 const struct auth_rule *inner)
{
	size_t n = outer->prefix_len;

	if (n >= inner->prefix_len || memcmp(outer->prefix, inner->prefix, n))
		return false;
	return n <= 1 || outer->prefix[n - 1] == '/' || inner->prefix[n] == '/';
}

/*
 * Whether the rule that guards where is one the request did not meet:
 * neither met itself nor, in the request's own root, a rule whose prefix
 * holds met's (a rule for all paths besides met's /admin/: an --spa page
 * of the whole site is no secret under /admin/).
 */
static bool guarded_elsewhere(const struct exchange *rc,
			      const struct auth_rule *met, const char *where,
			      size_t n)
{
	struct guard g = guard_of(rc, where, n);

	if (!g.rule)
		return false;
	if (g.ambiguous)
		return true;
	if (g.rule == met)
		return false;
	return !met || g.root != rc->root || !prefix_holds(g.rule, met);
}

bool authorize_object(const struct exchange *rc, const struct auth_rule *met,
		      int fd, bool *hidden)
{
	const struct server *s = rc->worker->server;
	bool dotfiles = s->site->http.dotfiles;
	char where[PATH_MAX];
	ssize_t n;

	*hidden = false;
	if (dotfiles && !s->auth)
		return true;
	where[0] = '\0'; /* not read while n < 0 */
	n = beneath_where(fd, where, sizeof(where));
	*hidden = !dotfiles && beneath_hidden(rc->root, where, n);
	/* Not known: a path longer than PATH_MAX, which nothing may pass. */
	return !s->auth ||
	       (n >= 0 && !guarded_elsewhere(rc, met, where, (size_t)n));
}
