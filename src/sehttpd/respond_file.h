/* SPDX-License-Identifier: MIT */
/*
 * Responses for files and listings, from a cache entry or straight from a
 * file; what to send is chosen by http_select().
 */
#ifndef SEHTTPD_RESPOND_FILE_H
#define SEHTTPD_RESPOND_FILE_H

#include <sys/stat.h>

#include "cache.h"
#include "http/negotiate.h"
#include "http/select.h"
#include "exchange.h"

/*
 * Bodies larger than this leave from the page cache with sendfile(2) instead
 * of being copied from user memory: the measured crossover, where sendfile's
 * fixed cost (open, fstat, a separate write for the head) is repaid by the
 * copy it saves.
 */
#ifndef FILE_SENDFILE_MIN
#define FILE_SENDFILE_MIN (16 * 1024)
#endif

/* What identifies the file st describes, for its ETag. */
static inline struct http_file_id respond_file_id(const struct stat *st)
{
	return (struct http_file_id){
		.ino = (uint64_t)st->st_ino,
		.size = (uint64_t)st->st_size,
		.mtime_sec = st->st_mtim.tv_sec,
		.mtime_nsec = st->st_mtim.tv_nsec,
	};
}

/* Answers from e; takes over the caller's reference to it. */
int respond_entry(struct exchange *rc, struct cache_entry *e);

/*
 * Answers with the body of an open regular file (sendfile beyond
 * FILE_SENDFILE_MIN): the resource itself (identity), or a precompressed
 * sibling standing for it in coding; compressible: other responses for its
 * path may be compressed.
 */
int respond_file(struct exchange *rc, int fd, const struct stat *st,
		 const char *content_type, bool compressible,
		 enum http_coding coding);

#endif /* SEHTTPD_RESPOND_FILE_H */
