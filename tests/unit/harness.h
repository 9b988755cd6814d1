/* SPDX-License-Identifier: MIT */
/*
 * A minimal unit-test harness: each test is a function registered with
 * TEST(); CHECK() records a failure and carries on so one run reports every
 * broken expectation.  main() prints one line "NAME: N passed, N failed".
 */
#ifndef TESTS_UNIT_HARNESS_H
#define TESTS_UNIT_HARNESS_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct test_case {
	const char *name;
	void (*fn)(void);
	struct test_case *next;
};

extern struct test_case *test_list;
extern int test_failures_in_case;

#define TEST(name)                                                         \
	static void test_##name(void);                                     \
	static struct test_case test_case_##name = { #name, test_##name }; \
	__attribute__((constructor)) static void register_##name(void)     \
	{                                                                  \
		struct test_case **p = &test_list;                         \
		while (*p)                                                 \
			p = &(*p)->next;                                   \
		*p = &test_case_##name;                                    \
	}                                                                  \
	static void test_##name(void)

#define CHECK(cond)                                                    \
	do {                                                           \
		if (!(cond)) {                                         \
			fprintf(stderr, "  %s:%d: CHECK(%s) failed\n", \
				__FILE__, __LINE__, #cond);            \
			test_failures_in_case++;                       \
		}                                                      \
	} while (0)

#define CHECK_EQ_INT(a, b)                                                  \
	do {                                                                \
		long long a_ = (long long)(a), b_ = (long long)(b);         \
		if (a_ != b_) {                                             \
			fprintf(stderr,                                     \
				"  %s:%d: %s == %s failed: %lld != %lld\n", \
				__FILE__, __LINE__, #a, #b, a_, b_);        \
			test_failures_in_case++;                            \
		}                                                           \
	} while (0)

#define CHECK_EQ_STR(a, b)                                               \
	do {                                                             \
		const char *a_ = (a), *b_ = (b);                         \
		if (!a_ || !b_ || strcmp(a_, b_) != 0) {                 \
			fprintf(stderr,                                  \
				"  %s:%d: %s == %s failed:\n"            \
				"    got      \"%s\"\n"                  \
				"    expected \"%s\"\n",                 \
				__FILE__, __LINE__, #a, #b,              \
				a_ ? a_ : "(null)", b_ ? b_ : "(null)"); \
			test_failures_in_case++;                         \
		}                                                        \
	} while (0)

/* Compare a buffer of known length with a C string. */
#define CHECK_EQ_MEM(p, n, s)                                        \
	do {                                                         \
		size_t n_ = (n);                                     \
		const char *s_ = (s);                                \
		if (n_ != strlen(s_) || memcmp((p), s_, n_) != 0) {  \
			fprintf(stderr,                              \
				"  %s:%d: %s == %s failed:\n"        \
				"    got      \"%.*s\"\n"            \
				"    expected \"%s\"\n",             \
				__FILE__, __LINE__, #p, #s, (int)n_, \
				(const char *)(p), s_);              \
			test_failures_in_case++;                     \
		}                                                    \
	} while (0)

#endif /* TESTS_UNIT_HARNESS_H */
