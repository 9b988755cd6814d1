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
 * True when an object opened for path (from '/', len bytes) really lies at
 * real (real_len bytes, from beneath_path(); -1: not known) under a
 * password rule other than path's: reached through a link such as
 * "pub/notes -> ../private", which would pass by the password the place
 * it leads to asks for.  Such objects are not there for path.
 */
bool authorize_elsewhere(struct exchange *rc, const char *path, size_t len,
			 const char *real, ssize_t real_len);

#endif /* SEHTTPD_AUTHORIZE_H */
