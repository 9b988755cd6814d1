/* SPDX-License-Identifier: MIT */
/*
 * Whether a request may have a path --auth-file protects: the serving
 * plan's authorize step (http/serve.h), run in the connection's coroutine.
 */
#ifndef SEHTTPD_AUTHORIZE_H
#define SEHTTPD_AUTHORIZE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "exchange.h"

/*
 * 0 when path (decoded, len bytes) is public or the request's Basic
 * credentials match its password file; else the status to answer: 401
 * (no, malformed, repeated or wrong credentials), 503 (too many checks
 * waiting).  A check not remembered from before runs on a checker thread
 * while this coroutine waits; the thread serves others meanwhile.  Marks
 * the exchange protected (Cache-Control: private).
 */
int authorize_request(struct exchange *rc, const char *path, size_t len);

/*
 * The user-id of the Basic credentials that met rc->auth_rule, for the
 * access log: copied to out (HTTP_BASIC_MAX bytes), the password never;
 * returns its length, 0 when no rule was met.
 */
size_t authorize_user(const struct exchange *rc, char *out);

/*
 * Whether the object fd, opened for the request, may be shown to it by
 * where it really is (one look at /proc), and in *hidden whether it is a
 * hidden name there while dotfiles are off (a link such as "innocent ->
 * .git/config").  The rule that guards it is the one whose place (root +
 * prefix) lies deepest among those covering it as seen from ROOT and from
 * every --vhost DIR holding it, a rule for all paths counting as the
 * shallowest; two as deep guard it against everyone.  It must be met (the
 * rule the request met, rc->auth_rule, or for the 401 page its own
 * path's), or, in the request's own root, hold met's prefix.  A link such
 * as "pub/notes -> ../private", a --vhost DIR inside or around a protected
 * place, an index file, --spa or --error-page page a rule names: each
 * would otherwise pass by the password its place asks for.  Such objects
 * are not there for the request.  What decides is fixed by the root, the
 * request path and the object, as the caches need.  Where is not known
 * (longer than PATH_MAX), the object is guarded and hidden.
 */
bool authorize_object(const struct exchange *rc, const struct auth_rule *met,
		      int fd, bool *hidden);

#endif /* SEHTTPD_AUTHORIZE_H */
