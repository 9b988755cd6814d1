// SPDX-License-Identifier: MIT
#include "auth.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "htpasswd.h"
#include "http/path.h"

/* Splits "[/PREFIX:]FILE": a leading '/' up to the first ':' is a prefix. */
static void split_arg(const char *arg, const char **prefix, size_t *prefix_len,
		      const char **path)
{
	const char *colon = arg[0] == '/' ? strchr(arg, ':') : NULL;

	*prefix = colon ? arg : "";
	*prefix_len = colon ? (size_t)(colon - arg) : 0;
	*path = colon ? colon + 1 : arg;
}

int auth_check_file_arg(const char *arg, char *why, size_t cap)
{
	const char *prefix, *path;
	size_t prefix_len;

	split_arg(arg, &prefix, &prefix_len, &path);
	if (prefix_len && !http_path_matchable(prefix, prefix_len)) {
		snprintf(why, cap, "the prefix is not %s",
			 HTTP_PATH_MATCHABLE_RULE);
		return -1;
	}
	if (!*path) {
		snprintf(why, cap, "no password file named");
		return -1;
	}
	return 0;
}

int auth_check_realm(const char *realm, char *why, size_t cap)
{
	if (strlen(realm) > AUTH_REALM_MAX) {
		snprintf(why, cap, "longer than %d bytes", AUTH_REALM_MAX);
		return -1;
	}
	for (const char *p = realm; *p; p++) {
		unsigned char c = (unsigned char)*p;

		if (c < 0x20 || c == 0x7f) {
			snprintf(why, cap, "a control character");
			return -1;
		}
	}
	return 0;
}

/* The challenge, with realm as a quoted-string (RFC 9110 5.6.4). */
static char *build_challenge(const char *realm, size_t *len)
{
	static const char head[] = "WWW-Authenticate: Basic realm=\"",
			  tail[] = "\", charset=\"UTF-8\"\r\n";
	char *s = malloc(sizeof(head) + 2 * strlen(realm) + sizeof(tail)), *p;

	if (!s)
		return NULL;
	p = stpcpy(s, head);
	for (; *realm; realm++) {
		if (*realm == '"' || *realm == '\\')
			*p++ = '\\';
		*p++ = *realm;
	}
	p = stpcpy(p, tail);
	*len = (size_t)(p - s);
	return s;
}

int auth_open(struct auth *a, const char *const *args, unsigned n,
	      const char *realm, char *err, size_t cap)
{
	char host[AUTH_REALM_MAX + 1] = "";

	memset(a, 0, sizeof(*a));
	pthread_mutex_init(&a->lock, NULL);
	if (!realm) {
		/* Never a control byte (a realm may not hold one). */
		if (gethostname(host, sizeof(host) - 1) ||
		    auth_check_realm(host, err, cap))
			snprintf(host, sizeof(host), "sehttpd");
		realm = host;
	}
	a->challenge = build_challenge(realm, &a->challenge_len);
	if (!a->challenge) {
		snprintf(err, cap, "out of memory");
		return -1;
	}
	for (unsigned i = 0; i < n && i < AUTH_FILES_MAX; i++) {
		struct auth_rule *r = &a->rules[a->nrules];

		split_arg(args[i], &r->prefix, &r->prefix_len, &r->path);
		for (unsigned j = 0; j < a->nrules; j++) {
			const struct auth_rule *o = &a->rules[j];

			/* "" and "/" both mean every path. */
			if ((o->prefix_len <= 1 && r->prefix_len <= 1) ||
			    (o->prefix_len == r->prefix_len &&
			     !memcmp(o->prefix, r->prefix, r->prefix_len))) {
				snprintf(err, cap,
					 "--auth-file %s: a second file for "
					 "the same paths",
					 args[i]);
				return -1;
			}
		}
		r->file = htpasswd_load(r->path, err, cap);
		if (!r->file)
			return -1;
		a->nrules++;
	}
	return 0;
}

void auth_reload(struct auth *a)
{
	char err[512];

	for (unsigned i = 0; i < a->nrules; i++) {
		struct htpasswd *h = htpasswd_load(a->rules[i].path, err,
						   sizeof(err)),
				*old;

		if (!h) {
			fprintf(stderr,
				"sehttpd: reload: %s; keeping the password "
				"file loaded before\n",
				err);
			continue;
		}
		pthread_mutex_lock(&a->lock);
		old = a->rules[i].file;
		a->rules[i].file = h;
		pthread_mutex_unlock(&a->lock);
		htpasswd_put(old); /* checks in progress hold their own */
	}
}

void auth_close(struct auth *a)
{
	for (unsigned i = 0; i < a->nrules; i++)
		htpasswd_put(a->rules[i].file);
	a->nrules = 0;
	free(a->challenge);
	a->challenge = NULL;
	pthread_mutex_destroy(&a->lock);
}

static bool rule_covers(const struct auth_rule *r, const char *path, size_t len)
{
	size_t n = r->prefix_len;

	if (len >= n)
		return !memcmp(path, r->prefix, n);
	/* "/admin" is the directory "/admin/" protects (its redirect). */
	return len + 1 == n && r->prefix[n - 1] == '/' &&
	       !memcmp(path, r->prefix, len);
}

const struct auth_rule *auth_rule_for(const struct auth *a, const char *path,
				      size_t len)
{
	const struct auth_rule *best = NULL;

	for (unsigned i = 0; a && i < a->nrules; i++) {
		const struct auth_rule *r = &a->rules[i];

		if (rule_covers(r, path, len) &&
		    (!best || r->prefix_len > best->prefix_len))
			best = r;
	}
	return best;
}

struct htpasswd *auth_rule_file(struct auth *a, const struct auth_rule *r)
{
	struct htpasswd *h;

	pthread_mutex_lock(&a->lock);
	h = htpasswd_get(r->file);
	pthread_mutex_unlock(&a->lock);
	return h;
}
