// SPDX-License-Identifier: MIT
/*
 * The fuzz targets' main where clang's libFuzzer is missing: runs each file
 * named on the command line through LLVMFuzzerTestOneInput() once, so the
 * seeds still guard the code (mk/fuzz.mk's replay_NAME).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "fuzz.h"

int main(int argc, char **argv)
{
	int ran = 0;

	for (int i = 1; i < argc; i++) {
		FILE *f = fopen(argv[i], "rb");
		uint8_t *data;
		long n;

		if (!f) {
			perror(argv[i]);
			return 2;
		}
		fseek(f, 0, SEEK_END);
		n = ftell(f);
		fseek(f, 0, SEEK_SET);
		data = malloc(n > 0 ? (size_t)n : 1);
		if (!data || fread(data, 1, (size_t)n, f) != (size_t)n) {
			perror(argv[i]);
			return 2;
		}
		fclose(f);
		LLVMFuzzerTestOneInput(data, (size_t)n);
		free(data);
		ran++;
	}
	printf("replayed %d inputs\n", ran);
	return 0;
}
