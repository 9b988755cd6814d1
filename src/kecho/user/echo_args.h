/* SPDX-License-Identifier: MIT */
/* Argument parsing shared by user-echo-server and echo-bench. */
#ifndef ECHO_ARGS_H
#define ECHO_ARGS_H

#include <errno.h>
#include <stdlib.h>

#define ECHO_VERSION "0.1.0"
#define ECHO_DEFAULT_PORT 12345

/* A decimal in [min, max] and nothing else: 0, or -1 with *out untouched. */
static inline int echo_parse_uint(const char *s, unsigned long min,
				  unsigned long max, unsigned long *out)
{
	char *end;
	unsigned long v;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

#endif /* ECHO_ARGS_H */
