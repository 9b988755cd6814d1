// SPDX-License-Identifier: MIT
#include "harness.h"
#include "http/negotiate.h"

#define BOTH                                 \
	(HTTP_CODING_BIT(HTTP_CODING_GZIP) | \
	 HTTP_CODING_BIT(HTTP_CODING_DEFLATE))

static enum http_coding choose(const char *accept, unsigned available)
{
	return http_choose_coding(accept, accept ? strlen(accept) : 0,
				  available);
}

TEST(absent_or_empty_is_identity)
{
	CHECK_EQ_INT(choose(NULL, BOTH), HTTP_CODING_IDENTITY);
	CHECK_EQ_INT(choose("", BOTH), HTTP_CODING_IDENTITY);
	CHECK_EQ_INT(choose("  ,  ", BOTH), HTTP_CODING_IDENTITY);
}

TEST(plain_codings)
{
	CHECK_EQ_INT(choose("gzip", BOTH), HTTP_CODING_GZIP);
	CHECK_EQ_INT(choose("GZIP", BOTH), HTTP_CODING_GZIP);
	CHECK_EQ_INT(choose("x-gzip", BOTH), HTTP_CODING_GZIP);
	CHECK_EQ_INT(choose("deflate", BOTH), HTTP_CODING_DEFLATE);
	CHECK_EQ_INT(choose("br", BOTH), HTTP_CODING_IDENTITY);
	CHECK_EQ_INT(choose("identity", BOTH), HTTP_CODING_IDENTITY);
	CHECK_EQ_INT(choose("gzip, deflate, br", BOTH), HTTP_CODING_GZIP);
	CHECK_EQ_INT(choose("deflate, gzip", BOTH), HTTP_CODING_GZIP);
}

TEST(q_values)
{
	CHECK_EQ_INT(choose("gzip;q=0", BOTH), HTTP_CODING_IDENTITY);
	CHECK_EQ_INT(choose("gzip;q=0.000", BOTH), HTTP_CODING_IDENTITY);
	CHECK_EQ_INT(choose("gzip; Q=0", BOTH), HTTP_CODING_IDENTITY);
	CHECK_EQ_INT(choose("gzip;q=0, deflate", BOTH), HTTP_CODING_DEFLATE);
	CHECK_EQ_INT(choose("gzip;q=0.5, deflate;q=1.0", BOTH),
		     HTTP_CODING_DEFLATE);
	CHECK_EQ_INT(choose("gzip;q=1.0, deflate;q=0.5", BOTH),
		     HTTP_CODING_GZIP);
	CHECK_EQ_INT(choose("gzip;q=0.001", BOTH), HTTP_CODING_GZIP);
	CHECK_EQ_INT(choose("gzip ; q=0.8 , deflate;q=0.8", BOTH),
		     HTTP_CODING_GZIP);
}

TEST(star)
{
	CHECK_EQ_INT(choose("*", BOTH), HTTP_CODING_GZIP);
	CHECK_EQ_INT(choose("*;q=0, identity", BOTH), HTTP_CODING_IDENTITY);
	CHECK_EQ_INT(choose("gzip;q=0, *", BOTH), HTTP_CODING_DEFLATE);
	/* A listed coding's own weight wins over "*". */
	CHECK_EQ_INT(choose("*;q=0, gzip", BOTH), HTTP_CODING_GZIP);
}

TEST(only_available_codings)
{
	unsigned gzip_only = HTTP_CODING_BIT(HTTP_CODING_GZIP);

	CHECK_EQ_INT(choose("deflate", gzip_only), HTTP_CODING_IDENTITY);
	CHECK_EQ_INT(choose("gzip, deflate", gzip_only), HTTP_CODING_GZIP);
	CHECK_EQ_INT(choose("gzip", 0), HTTP_CODING_IDENTITY);
}

TEST(hostile_values)
{
	char big[4096];

	memset(big, ',', sizeof(big));
	CHECK_EQ_INT(http_choose_coding(big, sizeof(big), BOTH),
		     HTTP_CODING_IDENTITY);
	memset(big, ';', sizeof(big));
	CHECK_EQ_INT(http_choose_coding(big, sizeof(big), BOTH),
		     HTTP_CODING_IDENTITY);
	CHECK_EQ_INT(choose("gzip;q=", BOTH), HTTP_CODING_GZIP);
	CHECK_EQ_INT(choose("gzip;;;q=0", BOTH), HTTP_CODING_IDENTITY);
	CHECK_EQ_INT(choose(";q=0", BOTH), HTTP_CODING_IDENTITY);
	/* Not NUL-terminated: only len bytes are read (ASan checks it). */
	CHECK_EQ_INT(http_choose_coding("gzipx", 4, BOTH), HTTP_CODING_GZIP);
}

TEST(coding_names)
{
	CHECK_EQ_STR(http_coding_name(HTTP_CODING_GZIP), "gzip");
	CHECK_EQ_STR(http_coding_name(HTTP_CODING_DEFLATE), "deflate");
	CHECK(http_coding_name(HTTP_CODING_IDENTITY) == NULL);
}
