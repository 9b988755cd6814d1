// SPDX-License-Identifier: MIT
#include "harness.h"

#include "http/dirents.h"

static size_t resizes, fail_after = (size_t)-1;

static void *resize(void *p, size_t old_size, size_t new_size)
{
	(void)old_size;
	if (resizes++ >= fail_after)
		return NULL;
	return realloc(p, new_size);
}

struct item {
	struct http_listing_entry e;
	int extra;
};

TEST(collects_names_that_survive_growth)
{
	struct http_dirents d;
	char name[32];

	resizes = 0;
	fail_after = (size_t)-1;
	http_dirents_init(&d, sizeof(struct item), resize);
	for (int i = 0; i < 1000; i++) {
		struct item *it;

		snprintf(name, sizeof(name), "file-%d.txt", i);
		it = http_dirents_add(&d, name, strlen(name));
		CHECK(it != NULL);
		if (!it)
			break;
		CHECK_EQ_INT(it->extra, 0);
		it->extra = i;
	}
	http_dirents_done(&d);
	CHECK_EQ_INT(d.count, 1000);
	/* Doubling: few reallocations for many entries. */
	CHECK(resizes < 30);
	for (int i = 0; i < 1000; i += 99) {
		struct item *it = (struct item *)http_dirents_entry(&d, i);

		snprintf(name, sizeof(name), "file-%d.txt", i);
		CHECK_EQ_INT(it->e.name_len, strlen(name));
		CHECK_EQ_STR(it->e.name, name);
		CHECK_EQ_INT(it->extra, i);
	}
	free(d.items);
	free(d.names);
}

TEST(bounds_and_allocation_failure)
{
	struct http_dirents d;

	resizes = 0;
	fail_after = (size_t)-1;
	http_dirents_init(&d, sizeof(struct http_listing_entry), resize);
	d.max_count = 2;
	CHECK(http_dirents_add(&d, "a", 1));
	CHECK(http_dirents_add(&d, "b", 1));
	CHECK(!http_dirents_add(&d, "c", 1));
	d.max_count = 0;
	d.max_names = d.names_len + 3;
	CHECK(!http_dirents_add(&d, "cde", 3));
	CHECK(http_dirents_add(&d, "cd", 2));
	d.max_names = 0;
	fail_after = resizes;
	for (int i = 0; i < 100; i++) {
		if (!http_dirents_add(&d, "x", 1))
			break;
	}
	/* 64 bytes of names, 7 used: 28 more "x" until one must grow. */
	CHECK_EQ_INT(d.count, 31);
	http_dirents_done(&d);
	CHECK_EQ_STR(http_dirents_entry(&d, 2)->name, "cd");
	free(d.items);
	free(d.names);
}
