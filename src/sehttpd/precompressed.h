/* SPDX-License-Identifier: MIT */
/*
 * Precompressed siblings: FILE.br, FILE.zst and FILE.gz beside FILE hold
 * FILE in one content coding each, and are sent as they are when that
 * coding is chosen (and the sibling is not older than FILE).
 */
#ifndef SEHTTPD_PRECOMPRESSED_H
#define SEHTTPD_PRECOMPRESSED_H

#include "http/negotiate.h"

struct precompressed {
	enum http_coding coding;
	const char *suffix; /* appended to FILE's path: ".gz" */
};

#define PRECOMPRESSED_COUNT 3
#define PRECOMPRESSED_SUFFIX_MAX 4 /* the longest suffix's length */

/* By slot: a cache entry keeps what it saw of each sibling by slot. */
extern const struct precompressed precompressed[PRECOMPRESSED_COUNT];

#endif /* SEHTTPD_PRECOMPRESSED_H */
