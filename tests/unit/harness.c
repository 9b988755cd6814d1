// SPDX-License-Identifier: MIT
/* Runs every registered test case; see harness.h. */
#include "harness.h"

struct test_case *test_list;
int test_failures_in_case;

int main(int argc, char **argv)
{
	const char *suite = strrchr(argv[0], '/');
	int passed = 0, failed = 0;

	suite = suite ? suite + 1 : argv[0];
	for (struct test_case *t = test_list; t; t = t->next) {
		if (argc > 1 && strcmp(argv[1], t->name) != 0)
			continue;
		test_failures_in_case = 0;
		t->fn();
		if (test_failures_in_case) {
			fprintf(stderr, "FAIL %s.%s\n", suite, t->name);
			failed++;
		} else {
			passed++;
		}
	}
	printf("%s: %d passed, %d failed\n", suite, passed, failed);
	return failed ? 1 : 0;
}
