// SPDX-License-Identifier: MIT
#include "harness.h"
#include "http/negotiate.h"
#include "http/parser.h"

#define BOTH                                 \
	(HTTP_CODING_BIT(HTTP_CODING_GZIP) | \
	 HTTP_CODING_BIT(HTTP_CODING_DEFLATE))

#define ALL                                       \
	(BOTH | HTTP_CODING_BIT(HTTP_CODING_BR) | \
	 HTTP_CODING_BIT(HTTP_CODING_ZSTD))

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
	CHECK_EQ_STR(http_coding_name(HTTP_CODING_BR), "br");
	CHECK_EQ_STR(http_coding_name(HTTP_CODING_ZSTD), "zstd");
	CHECK(http_coding_name(HTTP_CODING_IDENTITY) == NULL);
}

static enum http_coding choose_fav(const char *accept, unsigned favoured)
{
	return http_choose_coding_favouring(accept, strlen(accept), ALL,
					    favoured);
}

TEST(br_and_zstd_by_name)
{
	CHECK_EQ_INT(choose("br", ALL), HTTP_CODING_BR);
	CHECK_EQ_INT(choose("BR", ALL), HTTP_CODING_BR);
	CHECK_EQ_INT(choose("zstd", ALL), HTTP_CODING_ZSTD);
	CHECK_EQ_INT(choose("Zstd", ALL), HTTP_CODING_ZSTD);
	/* Names are whole tokens. */
	CHECK_EQ_INT(choose("brotli, zst, b", ALL), HTTP_CODING_IDENTITY);
	CHECK_EQ_INT(choose("br", BOTH), HTTP_CODING_IDENTITY);
	CHECK_EQ_INT(choose("zstd", BOTH), HTTP_CODING_IDENTITY);
}

TEST(highest_q_wins)
{
	CHECK_EQ_INT(choose("br;q=0.5, gzip", ALL), HTTP_CODING_GZIP);
	CHECK_EQ_INT(choose("br;q=0.5, zstd;q=0.6, gzip;q=0.4", ALL),
		     HTTP_CODING_ZSTD);
	CHECK_EQ_INT(choose("gzip;q=0.9, zstd;q=0.8, br;q=0.7", ALL),
		     HTTP_CODING_GZIP);
	CHECK_EQ_INT(choose("deflate, br;q=0.999", ALL), HTTP_CODING_DEFLATE);
	CHECK_EQ_INT(choose("*;q=0.5, zstd", ALL), HTTP_CODING_ZSTD);
	CHECK_EQ_INT(choose("br;q=0.1, *;q=0.2", ALL), HTTP_CODING_ZSTD);
}

TEST(ties_go_to_the_smallest_output)
{
	CHECK_EQ_INT(choose("gzip, deflate, br, zstd", ALL), HTTP_CODING_BR);
	CHECK_EQ_INT(choose("zstd, gzip", ALL), HTTP_CODING_ZSTD);
	CHECK_EQ_INT(choose("gzip;q=0.8, zstd;q=0.8", ALL), HTTP_CODING_ZSTD);
	CHECK_EQ_INT(choose("deflate, gzip", ALL), HTTP_CODING_GZIP);
	CHECK_EQ_INT(choose("*", ALL), HTTP_CODING_BR);
	/* What is not available is passed over, not answered identity. */
	CHECK_EQ_INT(choose("br, zstd, gzip", BOTH), HTTP_CODING_GZIP);
	CHECK_EQ_INT(choose("*", BOTH), HTTP_CODING_GZIP);
}

TEST(q_zero_refuses)
{
	CHECK_EQ_INT(choose("br;q=0, gzip", ALL), HTTP_CODING_GZIP);
	CHECK_EQ_INT(choose("br;q=0, zstd;q=0, gzip;q=0", ALL),
		     HTTP_CODING_IDENTITY);
	CHECK_EQ_INT(choose("br;q=0, *", ALL), HTTP_CODING_ZSTD);
	CHECK_EQ_INT(choose("*;q=0, zstd;q=0.1", ALL), HTTP_CODING_ZSTD);
	CHECK_EQ_INT(choose("*;q=0", ALL), HTTP_CODING_IDENTITY);
	/* A parameter after q leaves it: before, it made the weight 1. */
	CHECK_EQ_INT(choose("gzip;q=0;x=1", BOTH), HTTP_CODING_IDENTITY);
	CHECK_EQ_INT(choose("gzip;q=0;x=1, *;q=0.1", BOTH),
		     HTTP_CODING_DEFLATE);
	CHECK_EQ_INT(choose("gzip;q=0;level=9, deflate;q=0", BOTH),
		     HTTP_CODING_IDENTITY);
	CHECK_EQ_INT(choose("gzip;x=1;q=0.5, deflate;q=0.4", BOTH),
		     HTTP_CODING_GZIP);
}

TEST(identity_by_its_q_value)
{
	unsigned gzip_only = HTTP_CODING_BIT(HTTP_CODING_GZIP);

	/* Ranked above every available coding: identity. */
	CHECK_EQ_INT(choose("identity;q=1, br;q=0.2", ALL),
		     HTTP_CODING_IDENTITY);
	CHECK_EQ_INT(choose("identity, gzip;q=0.5", BOTH),
		     HTTP_CODING_IDENTITY);
	CHECK_EQ_INT(choose("identity, br;q=0.5", ALL), HTTP_CODING_IDENTITY);
	CHECK_EQ_INT(choose("IDENTITY;q=0.6, gzip;q=0.5", BOTH),
		     HTTP_CODING_IDENTITY);
	CHECK_EQ_INT(choose("identity;q=0.5, *;q=0.1", ALL),
		     HTTP_CODING_IDENTITY);
	CHECK_EQ_INT(choose("br, identity;q=0.9, gzip;q=0.5", gzip_only),
		     HTTP_CODING_IDENTITY);
	/* "*" ranks it when "identity" is not listed. */
	CHECK_EQ_INT(choose("*, gzip;q=0.5", gzip_only), HTTP_CODING_IDENTITY);
	CHECK_EQ_INT(choose("*;q=0.5, gzip", gzip_only), HTTP_CODING_GZIP);
	CHECK_EQ_INT(choose("identity;q=0.1, *, gzip;q=0.5", gzip_only),
		     HTTP_CODING_GZIP);
	/* Ties, lower ranks, q=0 and no rank at all: the coding. */
	CHECK_EQ_INT(choose("identity, br", ALL), HTTP_CODING_BR);
	CHECK_EQ_INT(choose("identity;q=0.5, gzip;q=0.5", BOTH),
		     HTTP_CODING_GZIP);
	CHECK_EQ_INT(choose("gzip;q=1.0, identity;q=0.5", BOTH),
		     HTTP_CODING_GZIP);
	CHECK_EQ_INT(choose("identity;q=0, gzip;q=0.1", BOTH),
		     HTTP_CODING_GZIP);
	CHECK_EQ_INT(choose("gzip;q=0.1", BOTH), HTTP_CODING_GZIP);
	CHECK_EQ_INT(choose("*;q=0, gzip;q=0.1", BOTH), HTTP_CODING_GZIP);
	/* Only what is available counts against it. */
	CHECK_EQ_INT(choose("br, identity;q=0.5, gzip;q=0.4", gzip_only),
		     HTTP_CODING_IDENTITY);
}

TEST(favoured_codings_win_ties_only)
{
	unsigned gz = HTTP_CODING_BIT(HTTP_CODING_GZIP);
	unsigned zs = HTTP_CODING_BIT(HTTP_CODING_ZSTD);

	CHECK_EQ_INT(choose_fav("br, gzip", gz), HTTP_CODING_GZIP);
	CHECK_EQ_INT(choose_fav("*", gz), HTTP_CODING_GZIP);
	CHECK_EQ_INT(choose_fav("br, gzip;q=0.9", gz), HTTP_CODING_BR);
	CHECK_EQ_INT(choose_fav("br", gz), HTTP_CODING_BR);
	CHECK_EQ_INT(choose_fav("br, zstd, gzip", gz | zs), HTTP_CODING_ZSTD);
	CHECK_EQ_INT(choose_fav("gzip;q=0, *", gz), HTTP_CODING_BR);
	/* Favoured but not available: never chosen. */
	CHECK_EQ_INT(http_choose_coding_favouring("br, zstd", 8, BOTH, zs),
		     HTTP_CODING_IDENTITY);
}

/* "GET / HTTP/1.1" with the header lines extra, through the parser. */
static enum http_coding request(const char *extra, unsigned available,
				unsigned favoured)
{
	static char s[4096];
	struct http_request req;
	struct http_parser parser;
	int n = snprintf(s, sizeof(s), "GET / HTTP/1.1\r\nHost: h\r\n%s\r\n",
			 extra);

	http_parser_init(&parser);
	CHECK_EQ_INT(http_parse_request(&parser, &req, s, (size_t)n), n);
	return http_request_coding(s, &req, available, favoured);
}

TEST(request_coding_reads_every_line)
{
	CHECK_EQ_INT(request("", ALL, 0), HTTP_CODING_IDENTITY);
	CHECK_EQ_INT(request("Accept-Encoding: gzip\r\n", ALL, 0),
		     HTTP_CODING_GZIP);
	/* One list over two lines: br's q=0.5 loses to zstd's 1. */
	CHECK_EQ_INT(request("Accept-Encoding: br;q=0.5\r\n"
			     "Accept-Encoding: zstd\r\n",
			     ALL, 0),
		     HTTP_CODING_ZSTD);
	CHECK_EQ_INT(request("Accept-Encoding: br, gzip\r\n", ALL,
			     HTTP_CODING_BIT(HTTP_CODING_GZIP)),
		     HTTP_CODING_GZIP);
}

TEST(etag_suffix_per_coding)
{
	CHECK_EQ_STR(http_coding_etag_suffix(HTTP_CODING_IDENTITY), "");
	CHECK_EQ_STR(http_coding_etag_suffix(HTTP_CODING_GZIP), "gz");
	CHECK_EQ_STR(http_coding_etag_suffix(HTTP_CODING_DEFLATE), "df");
	CHECK_EQ_STR(http_coding_etag_suffix(HTTP_CODING_BR), "br");
	CHECK_EQ_STR(http_coding_etag_suffix(HTTP_CODING_ZSTD), "zst");
}
