// SPDX-License-Identifier: MIT
/*
 * man-options: copies sehttpd(1) from standard input to standard output
 * with its OPTIONS section written anew from the option table, which
 * --help prints too (src/sehttpd/options.c).  `make man` runs it on
 * doc/sehttpd.1; the install suite checks that it changes nothing.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sehttpd/options.h"

int main(void)
{
	char *line = NULL;
	size_t cap = 0;
	bool in_options = false, found = false;

	while (getline(&line, &cap, stdin) > 0) {
		/* The old section's lines, up to the next section. */
		if (in_options && strncmp(line, ".SH ", 4))
			continue;
		in_options = !strcmp(line, ".SH OPTIONS\n");
		fputs(line, stdout);
		if (in_options) {
			options_write_man(stdout);
			found = true;
		}
	}
	free(line);
	if (!found) {
		fputs("man-options: no .SH OPTIONS line in the input\n",
		      stderr);
		return 1;
	}
	return fflush(stdout) ? 1 : 0;
}
