// SPDX-License-Identifier: MIT
#include "precompressed.h"

const struct precompressed precompressed[PRECOMPRESSED_COUNT] = {
	{ HTTP_CODING_BR, ".br" },
	{ HTTP_CODING_ZSTD, ".zst" },
	{ HTTP_CODING_GZIP, ".gz" },
};
