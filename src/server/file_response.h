/* SPDX-License-Identifier: MIT */
/*
 * Responses for files and listings: content negotiation, validators (304),
 * single byte ranges (206/416), from a cache entry or straight from a file.
 */
#ifndef SERVER_FILE_RESPONSE_H
#define SERVER_FILE_RESPONSE_H

#include <sys/stat.h>

#include "content_cache.h"
#include "http_conn.h"

/* Answers from e; takes over the caller's reference to it. */
int respond_from_entry(struct request_ctx *rc, struct cache_entry *e);

/* Answers with the identity body of an open regular file (sendfile). */
int respond_from_file(struct request_ctx *rc, int fd, const struct stat *st,
		      const char *content_type);

#endif /* SERVER_FILE_RESPONSE_H */
