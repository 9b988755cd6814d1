// SPDX-License-Identifier: MIT
/*
 * Path decoding and normalisation: fixed cases from the specification, then
 * random paths compared with a deliberately different reference (a stack of
 * segments) and checked for the invariants the file lookup relies on.
 */
#include "harness.h"

#include <ctype.h>

#include "http/path.h"

/* Normalises s; returns the result as a static string or NULL for -1. */
static const char *norm_n(const char *s, size_t n)
{
	static char out[4096];
	int r;

	if (n + 1 > sizeof(out))
		return NULL;
	r = http_path_normalize(s, n, out, n + 1);
	if (r < 0)
		return NULL;
	if ((size_t)r > n + 1) {
		fprintf(stderr, "  result longer than the buffer\n");
		return "(overflow)";
	}
	out[r] = '\0';
	return out;
}

static const char *norm(const char *s)
{
	return norm_n(s, strlen(s));
}

#define CHECK_NORM(in, want) CHECK_EQ_STR(norm(in), want)
#define CHECK_REFUSED(in)                                                  \
	do {                                                               \
		const char *r_ = norm(in);                                 \
		if (r_) {                                                  \
			fprintf(stderr, "  \"%s\" gave \"%s\"\n", in, r_); \
			test_failures_in_case++;                           \
		}                                                          \
	} while (0)

TEST(matchable_paths)
{
	static const char *const yes[] = { "/",
					   "/admin/",
					   "/a",
					   "/my docs/",
					   "/a.b/",
					   "/.well-known/",
					   "/a/.."
					   "x" };
	static const char *const no[] = { "",	     "a/",     "//a",	"/a//",
					  "/./a",    "/a/.",   "/a/..", "/../a",
					  "/a/../b", "/a%20b", "/a?",	"/a#b",
					  "/a\tb",   "/a\x7f" };

	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++)
		CHECK(http_path_matchable(yes[i], strlen(yes[i])));
	for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++)
		CHECK(!http_path_matchable(no[i], strlen(no[i])));
	/* Each one a request can have, normalised, is matchable. */
	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		char out[64];
		int n = http_path_normalize(yes[i], strlen(yes[i]), out,
					    sizeof(out));

		CHECK(n == (int)strlen(yes[i]) && !memcmp(out, yes[i], n));
	}
}

TEST(plain_paths)
{
	CHECK_NORM("/", "/");
	CHECK_NORM("", "/");
	CHECK_NORM("/index.html", "/index.html");
	CHECK_NORM("/a/b/c.txt", "/a/b/c.txt");
	CHECK_NORM("/dir/", "/dir/");
	CHECK_NORM("/..foo", "/..foo");
	CHECK_NORM("/a/..b/c..", "/a/..b/c..");
	CHECK_NORM("/.../", "/.../");
	CHECK_NORM("/.hidden", "/.hidden");
}

TEST(percent_decoding_once)
{
	CHECK_NORM("/%41", "/A");
	CHECK_NORM("/%61%62c", "/abc");
	CHECK_NORM("/%2541", "/%41");
	CHECK_NORM("/%25", "/%");
	CHECK_NORM("/a%20b", "/a b");
	CHECK_NORM("/%7e%7E", "/~~");
	CHECK_NORM("/%c3%bc", "/\xc3\xbc");
	CHECK_NORM("/%FF%fe", "/\xff\xfe");
	CHECK_NORM("/%3F%23", "/?#");
	CHECK_NORM("/%2F", "/");
	CHECK_NORM("/a%2fb", "/a/b");
}

TEST(nul_refused)
{
	CHECK_REFUSED("/%00");
	CHECK_REFUSED("/a%00b");
	CHECK_REFUSED("/a/%00/");
	CHECK(norm_n("/a\0b", 4) == NULL);
	CHECK(norm_n("/\0", 2) == NULL);
}

TEST(bad_escapes_refused)
{
	CHECK_REFUSED("/%zz");
	CHECK_REFUSED("/%4");
	CHECK_REFUSED("/%");
	CHECK_REFUSED("/a%");
	CHECK_REFUSED("/%4g");
	CHECK_REFUSED("/%g4");
	CHECK_REFUSED("/%%41");
	CHECK_REFUSED("/% 41");
	CHECK_REFUSED("/%-1");
	CHECK_REFUSED("/%+1");
	CHECK_REFUSED("/%0x");
	/* "%4" at the very end of the buffer, with a valid digit after it. */
	CHECK(norm_n("/%4A", 3) == NULL);
	CHECK(norm_n("/%", 2) == NULL);
}

TEST(dot_segments)
{
	CHECK_NORM("/a/./b/../c", "/a/c");
	CHECK_NORM("/.", "/");
	CHECK_NORM("/./", "/");
	CHECK_NORM("/./.", "/");
	CHECK_NORM("/a/.", "/a/");
	CHECK_NORM("/a/./", "/a/");
	CHECK_NORM("/a/..", "/");
	CHECK_NORM("/a/../", "/");
	CHECK_NORM("/a/b/..", "/a/");
	CHECK_NORM("/a/b/../..", "/");
	CHECK_NORM("/a/b/../../c", "/c");
	CHECK_NORM("/a/./././b", "/a/b");
	CHECK_NORM("/a/b/./../c/", "/a/c/");
	CHECK_NORM("/aa/bb/../cc", "/aa/cc");
	CHECK_NORM("/a/%2e/b", "/a/b");
	CHECK_NORM("/a/%2E%2e/b", "/b");
	CHECK_NORM("/a/b/%2e%2e%2f", "/a/");
}

TEST(climbing_above_root_refused)
{
	CHECK_REFUSED("/..");
	CHECK_REFUSED("/../");
	CHECK_REFUSED("/../x");
	CHECK_REFUSED("/a/../../x");
	CHECK_REFUSED("/a/../..");
	CHECK_REFUSED("/./..");
	CHECK_REFUSED("//..");
	CHECK_REFUSED("/a//..//..");
	CHECK_REFUSED("/%2e%2e/");
	CHECK_REFUSED("/%2E%2E");
	CHECK_REFUSED("/.%2e/x");
	CHECK_REFUSED("/..%2f..%2f");
	CHECK_REFUSED("/..%2fetc%2fpasswd");
	CHECK_REFUSED("/%2e%2e%2fetc%2fpasswd");
	CHECK_REFUSED("/a%2f..%2f..%2fetc");
	CHECK_REFUSED("/%2f..");
}

TEST(repeated_slashes_collapse)
{
	CHECK_NORM("//index.html", "/index.html");
	CHECK_NORM("///a////b", "/a/b");
	CHECK_NORM("/a//", "/a/");
	CHECK_NORM("//", "/");
	CHECK_NORM("////", "/");
	CHECK_NORM("/a/%2f/b", "/a/b");
	CHECK_NORM("//dir", "/dir");
}

TEST(trailing_slash_rules)
{
	CHECK_NORM("/dir", "/dir");
	CHECK_NORM("/dir/", "/dir/");
	CHECK_NORM("/dir//", "/dir/");
	CHECK_NORM("/dir/.", "/dir/");
	CHECK_NORM("/dir/x/..", "/dir/");
	CHECK_NORM("/dir%2f", "/dir/");
	CHECK_NORM("/dir/.hid", "/dir/.hid");
}

TEST(relative_or_short_buffer_refused)
{
	char out[16];

	CHECK_REFUSED("a/b");
	CHECK_REFUSED(".");
	CHECK_REFUSED("%2fa");
	/* out must have room for len + 1 bytes. */
	CHECK_EQ_INT(http_path_normalize("/abc", 4, out, 4), -1);
	CHECK_EQ_INT(http_path_normalize("/abc", 4, out, 5), 4);
	CHECK_EQ_INT(http_path_normalize("", 0, out, 1), 1);
	CHECK_EQ_INT(out[0], '/');
	CHECK_EQ_INT(http_path_normalize("", 0, out, 0), -1);
}

TEST(does_not_write_past_len_plus_one)
{
	/* Exact-size heap buffers, so ASan sees any stray byte. */
	static const char *const in[] = { "",	"/",	 "/a/.",       "/a/..",
					  "//", "/%41/", "/x/y/z/../", "/." };

	for (size_t i = 0; i < ARRAY_SIZE(in); i++) {
		size_t n = strlen(in[i]);
		char *out = malloc(n + 1);

		CHECK(http_path_normalize(in[i], n, out, n + 1) > 0);
		free(out);
	}
}

/* The reference: decode, split into segments, and keep a stack. */
static int reference(const char *s, size_t n, char *out)
{
	char dec[512];
	size_t dn = 0, segs[256], seg_len[256], depth = 0, o = 0, i = 0;
	bool trailing = false;

	if (n > 0 && s[0] != '/')
		return -1;
	for (i = 0; i < n; i++) {
		unsigned v;

		if (s[i] != '%') {
			if (!s[i])
				return -1;
			dec[dn++] = s[i];
			continue;
		}
		if (i + 2 >= n || !isxdigit((unsigned char)s[i + 1]) ||
		    !isxdigit((unsigned char)s[i + 2]))
			return -1;
		sscanf(s + i + 1, "%2x", &v);
		if (v == 0)
			return -1;
		dec[dn++] = (char)v;
		i += 2;
	}
	for (i = 0; i < dn;) {
		size_t start, len;

		if (dec[i] == '/') {
			i++;
			trailing = true;
			continue;
		}
		start = i;
		while (i < dn && dec[i] != '/')
			i++;
		len = i - start;
		if (len == 1 && dec[start] == '.') {
			trailing = true;
		} else if (len == 2 && dec[start] == '.' &&
			   dec[start + 1] == '.') {
			if (depth == 0)
				return -1;
			depth--;
			trailing = true;
		} else {
			segs[depth] = start;
			seg_len[depth++] = len;
			trailing = false;
		}
	}
	for (size_t d = 0; d < depth; d++) {
		out[o++] = '/';
		memcpy(out + o, dec + segs[d], seg_len[d]);
		o += seg_len[d];
	}
	if (trailing || o == 0)
		out[o++] = '/';
	return (int)o;
}

TEST(random_paths_match_reference)
{
	static const char alphabet[] = "//..a%2eEfF0";
	unsigned seed = 4242;
	char in[200], got[256], want[512];

	for (int round = 0; round < 200000; round++) {
		size_t n;
		int r, w;

		seed = seed * 1103515245u + 12345u;
		n = 1 + (seed >> 16) % 40;
		in[0] = '/';
		for (size_t i = 1; i < n; i++) {
			seed = seed * 1103515245u + 12345u;
			in[i] = alphabet[(seed >> 16) % (sizeof(alphabet) - 1)];
		}
		r = http_path_normalize(in, n, got, n + 1);
		w = reference(in, n, want);
		if (r != w || (r > 0 && memcmp(got, want, (size_t)r))) {
			fprintf(stderr,
				"  \"%.*s\": got %d \"%.*s\", want %d \"%.*s\"\n",
				(int)n, in, r, r > 0 ? r : 0, got, w,
				w > 0 ? w : 0, want);
			test_failures_in_case++;
			return;
		}
		if (r < 0)
			continue;
		got[r] = '\0';
		/* The invariants the file lookup relies on. */
		CHECK(got[0] == '/');
		CHECK(!strstr(got, "//"));
		CHECK(!strstr(got, "/./"));
		CHECK(!strstr(got, "/../"));
		CHECK(!(r >= 2 && !strcmp(got + r - 2, "/.")));
		CHECK(!(r >= 3 && !strcmp(got + r - 3, "/..")));
		CHECK((size_t)r <= n + 1);
	}
}

TEST(join_into_a_separate_buffer)
{
	const char dir[] = "/docs/";
	char out[16];

	CHECK_EQ_INT(http_path_join(out, sizeof(out), dir + 1, 5, "index.html"),
		     15);
	CHECK_EQ_STR(out, "docs/index.html");
	CHECK_EQ_STR(dir, "/docs/"); /* the original is left alone */
	CHECK_EQ_INT(http_path_join(out, sizeof(out), "a.txt", 5, ".gz"), 8);
	CHECK_EQ_STR(out, "a.txt.gz");
	/* Only len bytes of base count. */
	CHECK_EQ_INT(http_path_join(out, sizeof(out), "a.txt.gz", 5, ""), 5);
	CHECK_EQ_STR(out, "a.txt");
	CHECK_EQ_INT(http_path_join(out, sizeof(out), "", 0, ""), 0);
	CHECK_EQ_STR(out, "");
}

TEST(join_refuses_what_does_not_fit)
{
	char out[8] = "keep";

	/* 7 bytes and the NUL fit exactly; one more does not. */
	CHECK_EQ_INT(http_path_join(out, sizeof(out), "abcd", 4, "efg"), 7);
	CHECK_EQ_STR(out, "abcdefg");
	memcpy(out, "keep", 5);
	CHECK_EQ_INT(http_path_join(out, sizeof(out), "abcd", 4, "efgh"), -1);
	CHECK_EQ_INT(http_path_join(out, sizeof(out), "abcdefgh", 8, ""), -1);
	CHECK_EQ_INT(http_path_join(out, 0, "", 0, ""), -1);
	CHECK_EQ_STR(out, "keep");
}
