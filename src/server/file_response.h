/* SPDX-License-Identifier: MIT */
/*
 * Responses for files and listings, from a cache entry or straight from a
 * file; what to send is chosen by http_select().
 */
#ifndef SERVER_FILE_RESPONSE_H
#define SERVER_FILE_RESPONSE_H

#include <sys/stat.h>

#include "content_cache.h"
#include "http_conn.h"

/* Answers from e; takes over the caller's reference to it. */
int respond_entry(struct exchange *rc, struct cache_entry *e);

/*
 * Answers with the identity body of an open regular file (sendfile);
 * compressible: other responses for its path may be compressed.
 */
int respond_file(struct exchange *rc, int fd, const struct stat *st,
		 const char *content_type, bool compressible);

#endif /* SERVER_FILE_RESPONSE_H */
