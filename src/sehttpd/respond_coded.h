/* SPDX-License-Identifier: MIT */
/*
 * A file's body compressed as it is sent: for compressible files the cache
 * does not hold compressed (above CACHE_FILE_MAX, or with the cache off),
 * framed chunked (HTTP/1.0: ended by closing), read and compressed in
 * steps through buffers of a fixed size, whatever the file's size.
 */
#ifndef SEHTTPD_RESPOND_CODED_H
#define SEHTTPD_RESPOND_CODED_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>

#include "cache.h"
#include "exchange.h"
#include "http/negotiate.h"

/*
 * Files beyond this go uncompressed.  Level 6 gzip costs about 25 ms of
 * CPU per MB here, so 64 MiB is a second and a half for each download;
 * beyond that sendfile's zero copy and a download that can resume (ranges
 * come from the identity bytes) serve better than the bytes saved.
 */
#define RESPOND_CODED_MAX (64ull << 20)
/* And below this the framing would eat the gain. */
#define RESPOND_CODED_MIN 256

/* Input read per step; the output goes out in pieces of scratch's size. */
#define RESPOND_CODED_STEP (64u << 10)

/*
 * Bodies a thread compresses as they are sent at once; beyond, files go as
 * they are.  A slow reader holds its stream (up to 2 MiB, compress_stream.h)
 * and its input buffer for as long as it reads, so this bounds what a crowd
 * of them can take: 32 streams, about 70 MiB a thread.
 */
#define RESPOND_CODED_STREAMS_MAX 32

/*
 * Whether a compressible file of size bytes may be compressed as it is
 * sent to rc: a size within bounds, no range asked for, and fewer than
 * RESPOND_CODED_STREAMS_MAX being compressed on its thread.
 */
bool respond_coded_allowed(const struct exchange *rc, uint64_t size);

/*
 * The coding in which to send a file of size bytes to rc as it is read,
 * or HTTP_CODING_IDENTITY: none (not compressible, a range asked for, a
 * size out of bounds, too many streams, or no coding accepted).
 */
enum http_coding respond_coded_choice(const struct exchange *rc, uint64_t size,
				      bool compressible);

/*
 * Answers with open file fd (st) compressed in coding as it is read.  Its
 * ETag is the identity's with the coding's suffix, weak: another server
 * or level may make other bytes of the same content.  With e (the cache
 * entry fd belongs to, which the caller holds), a copy of what was sent is
 * kept as e's representation in coding when it is at most
 * RESPOND_CODED_KEEP_MAX and the file did not change meanwhile, so that
 * the next request for it costs a write from memory.  A writer with a
 * coded operation (HTTP/2's) takes the body as a coded_body and pulls it
 * as its frames go; HTTP/1.1's gets it pushed here, piece by piece.
 */
int respond_file_coded(struct exchange *rc, int fd, const struct stat *st,
		       const char *content_type, enum http_coding coding,
		       struct cache_entry *e);

/*
 * A body being compressed: its own descriptor of the file, the compressor,
 * an input buffer of RESPOND_CODED_STEP bytes, a slot among its thread's
 * RESPOND_CODED_STREAMS_MAX, and the copy on its way to the cache.
 */
struct coded_body;

/* What coded_body_next() says. */
enum coded_body_state {
	CODED_BODY_ERROR = -1, /* the file shrank or could not be read */
	CODED_BODY_MORE, /* out is full: call again */
	CODED_BODY_STEPPED, /* an input step was used up: a turn, then more */
	CODED_BODY_ENDED, /* every byte made */
};

/*
 * Makes the next bytes of b into out[0..out_cap), setting *made.  At the
 * end, the copy goes to the cache when the file did not change.
 */
enum coded_body_state coded_body_next(struct coded_body *b, char *out,
				      size_t out_cap, size_t *made);

/* Input bytes compressed so far: the work done, for fair turns. */
uint64_t coded_body_consumed(const struct coded_body *b);

void coded_body_free(struct coded_body *b);

/* The largest compressed body kept: the cache's own limit for a body. */
#define RESPOND_CODED_KEEP_MAX CACHE_FILE_MAX

#endif /* SEHTTPD_RESPOND_CODED_H */
