/* SPDX-License-Identifier: MIT */
/* What every fuzz target (and replay.c) shares. */
#ifndef FUZZ_FUZZ_H
#define FUZZ_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* libFuzzer's entry point; it has no header of its own. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_ASSERT(cond)                                                \
	do {                                                             \
		if (!(cond)) {                                           \
			fprintf(stderr, "%s:%d: assertion failed: %s\n", \
				__FILE__, __LINE__, #cond);              \
			abort();                                         \
		}                                                        \
	} while (0)

/* Copies into an exact-size heap block, so ASan sees any overread. */
static inline char *dup_exact(const void *s, size_t n)
{
	char *p = malloc(n ? n : 1);

	FUZZ_ASSERT(p);
	memcpy(p, s, n);
	return p;
}

/* A hash of the input, to derive choices (split points, values) from. */
static inline uint32_t fnv1a(const uint8_t *d, size_t n)
{
	uint32_t h = 2166136261u;

	for (size_t i = 0; i < n; i++)
		h = (h ^ d[i]) * 16777619u;
	return h;
}

#endif /* FUZZ_FUZZ_H */
