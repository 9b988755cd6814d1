// SPDX-License-Identifier: MIT
/*
 * Basic credentials (RFC 7617) from an Authorization value: base64 as RFC
 * 4648 has it, and everything a client may send instead refused.
 */
#include "harness.h"

#include "http/basic_auth.h"

static char out[HTTP_BASIC_MAX];

/* Decodes s; the result NUL-terminated in out, or NULL when refused. */
static const char *decoded(const char *s)
{
	static char buf[256];
	int n = http_base64_decode(s, strlen(s), buf, sizeof(buf) - 1);

	if (n < 0)
		return NULL;
	buf[n] = '\0';
	return buf;
}

TEST(base64_rfc4648_vectors)
{
	/* RFC 4648 section 10, padded and not. */
	CHECK_EQ_STR(decoded(""), "");
	CHECK_EQ_STR(decoded("Zg=="), "f");
	CHECK_EQ_STR(decoded("Zm8="), "fo");
	CHECK_EQ_STR(decoded("Zm9v"), "foo");
	CHECK_EQ_STR(decoded("Zm9vYg=="), "foob");
	CHECK_EQ_STR(decoded("Zm9vYmE="), "fooba");
	CHECK_EQ_STR(decoded("Zm9vYmFy"), "foobar");
	CHECK_EQ_STR(decoded("Zg"), "f");
	CHECK_EQ_STR(decoded("Zm8"), "fo");
	CHECK_EQ_STR(decoded("+/+/"), "\xfb\xff\xbf");
}

TEST(base64_refused)
{
	static const char *const bad[] = {
		"Z",	"Zg=",	    "Zg===",	"Zm9v=", "=",
		"==",	"Zg==Zg==", "Zm9v\n",	"Zm 9v", "Zm-v",
		"Zm_v", "Zh==", /* low bits set: not canonical */
		"Zm9=", "Z===",	    "Zm9vYmF=",
	};

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		if (decoded(bad[i]))
			fprintf(stderr, "  taken: '%s'\n", bad[i]);
		CHECK(decoded(bad[i]) == NULL);
	}
}

TEST(base64_never_writes_past_cap)
{
	char buf[4] = "xxxx";

	CHECK_EQ_INT(http_base64_decode("Zm9v", 4, buf, 3), 3);
	CHECK_EQ_INT(buf[3], 'x');
	CHECK_EQ_INT(http_base64_decode("Zm9vYg==", 8, buf, 3), -1);
	CHECK_EQ_INT(http_base64_decode("Zm9vYmE", 7, buf, 4), -1);
	CHECK_EQ_INT(http_base64_decode("Zg", 2, buf, 0), -1);
}

/* Parses value; the user and password as "user|password", or NULL. */
static const char *creds(const char *value)
{
	static char buf[2 * HTTP_BASIC_MAX + 2];
	struct http_basic_credentials c;

	if (http_basic_parse(value, strlen(value), out, &c))
		return NULL;
	CHECK(c.user == out);
	snprintf(buf, sizeof(buf), "%.*s|%.*s", (int)c.user_len, c.user,
		 (int)c.password_len, c.password);
	return buf;
}

TEST(basic_credentials)
{
	/* RFC 7617 section 2's example. */
	CHECK_EQ_STR(creds("Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ=="),
		     "Aladdin|open sesame");
	CHECK_EQ_STR(creds("basic QWxhZGRpbjpvcGVuIHNlc2FtZQ=="),
		     "Aladdin|open sesame");
	CHECK_EQ_STR(creds("BASIC   YTpi"), "a|b");
	/* The first colon splits: passwords may hold colons. */
	CHECK_EQ_STR(creds("Basic YTpiOmM="), "a|b:c");
	CHECK_EQ_STR(creds("Basic YTo="), "a|");
	/* UTF-8 user-ids (charset="UTF-8"): "é:x". */
	CHECK_EQ_STR(creds("Basic w6k6eA=="), "\xc3\xa9|x");
}

TEST(basic_refused)
{
	static const char *const bad[] = {
		"",
		"Basic",
		"Basic ",
		"Basic  ",
		"Bearer x",
		"Bearer YTpi",
		"Basi YTpi",
		"Basicx YTpi",
		"Basic\tYTpi",
		"Digest username=\"a\"",
		"Basic YWI=", /* "ab": no colon */
		"Basic OmI=", /* ":b": no user-id */
		"Basic !!!!",
		"Basic YTpi YTpi",
		"Basic YTpi,",
		"Basic YToKYg==", /* "a:\nb" */
		"Basic YQA6Yg==", /* "a\0:b" */
		"Basic YTp/", /* "a:\x7f" */
		"Basic YTpiCg", /* "a:b\n" */
	};

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		if (creds(bad[i]))
			fprintf(stderr, "  taken: '%s'\n", bad[i]);
		CHECK(creds(bad[i]) == NULL);
	}
}

TEST(basic_length_limits)
{
	static char value[4 * HTTP_BASIC_MAX];
	static char plain[2 * HTTP_BASIC_MAX];
	static const char digits[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	struct http_basic_credentials c;
	size_t n;

	/* "u:" and a password of 'A's, encoded at exactly the limit. */
	for (size_t want = HTTP_BASIC_MAX - 1; want <= HTTP_BASIC_MAX + 1;
	     want++) {
		size_t len = 0;

		memset(plain, 'A', want);
		memcpy(plain, "u:", 2);
		n = (size_t)snprintf(value, sizeof(value), "Basic ");
		for (size_t i = 0; i < want; i += 3) {
			uint32_t v = (uint32_t)(unsigned char)plain[i] << 16;
			size_t left = want - i;

			if (left > 1)
				v |= (uint32_t)(unsigned char)plain[i + 1] << 8;
			if (left > 2)
				v |= (unsigned char)plain[i + 2];
			value[n++] = digits[v >> 18 & 63];
			value[n++] = digits[v >> 12 & 63];
			value[n++] = left > 1 ? digits[v >> 6 & 63] : '=';
			value[n++] = left > 2 ? digits[v & 63] : '=';
		}
		len = n;
		CHECK_EQ_INT(http_basic_parse(value, len, out, &c),
			     want <= HTTP_BASIC_MAX ? 0 : -1);
	}
	/* 10 KB of base64: refused before any decoding. */
	memset(value, 'A', sizeof(value));
	memcpy(value, "Basic ", 6);
	CHECK_EQ_INT(http_basic_parse(value, sizeof(value), out, &c), -1);
}
