// SPDX-License-Identifier: MIT
/* Unit tests of htstress's command line (tools/htstress/options.c). */
#include "harness.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdarg.h>

#include "../../tools/htstress/options.h"
#include "../../tools/htstress/resolve.h"

#define MAX_ARGS 16

static struct hts_options opt;
static char err[256];

/* Parses a NULL-ended list of arguments after "htstress". */
static enum hts_options_result parse(const char *first, ...)
	__attribute__((sentinel));

static enum hts_options_result parse(const char *first, ...)
{
	static char copies[MAX_ARGS][128];
	char *argv[MAX_ARGS + 1];
	int argc = 0;
	enum hts_options_result res;
	va_list ap;

	strcpy(copies[argc], "htstress");
	argv[argc] = copies[argc];
	argc++;
	va_start(ap, first);
	for (const char *a = first; a && argc < MAX_ARGS;
	     a = va_arg(ap, const char *)) {
		snprintf(copies[argc], sizeof(copies[argc]), "%s", a);
		argv[argc] = copies[argc];
		argc++;
	}
	va_end(ap);
	argv[argc] = NULL;
	err[0] = '\0';
	hts_options_free(&opt);
	res = hts_options_parse(&opt, argc, argv, err, sizeof(err));
	if (res == HTS_OPTIONS_ERROR)
		CHECK(err[0] != '\0' && !strchr(err, '\n'));
	return res;
}

TEST(defaults)
{
	CHECK_EQ_INT(parse("http://h/", NULL), HTS_OPTIONS_RUN);
	CHECK_EQ_INT(opt.requests, HTS_DEFAULT_REQUESTS);
	CHECK(opt.duration == 0);
	CHECK_EQ_INT(opt.connections, 1);
	CHECK_EQ_INT(opt.threads, 1);
	CHECK(!opt.keep_alive);
	CHECK(!opt.json);
	CHECK(opt.timeout == HTS_DEFAULT_TIMEOUT);
	CHECK_EQ_INT(opt.nheaders, 0);
	CHECK_EQ_STR(opt.url, "http://h/");
}

TEST(everything)
{
	CHECK_EQ_INT(parse("-n", "500", "-c", "8", "-t", "2", "-k", "-H",
			   "X-A: 1", "--header", "X-B: 2", "--json",
			   "--timeout", "0.5", "http://h:1/", NULL),
		     HTS_OPTIONS_RUN);
	CHECK_EQ_INT(opt.requests, 500);
	CHECK_EQ_INT(opt.connections, 8);
	CHECK_EQ_INT(opt.threads, 2);
	CHECK(opt.keep_alive);
	CHECK(opt.json);
	CHECK(opt.timeout == 0.5);
	CHECK_EQ_INT(opt.nheaders, 2);
	CHECK_EQ_STR(opt.headers[0], "X-A: 1");
	CHECK_EQ_STR(opt.headers[1], "X-B: 2");
	CHECK_EQ_STR(opt.url, "http://h:1/");
}

TEST(duration_and_options_after_url)
{
	CHECK_EQ_INT(parse("http://h/", "-d", "1.5", "-kc3", NULL),
		     HTS_OPTIONS_RUN);
	CHECK(opt.duration == 1.5);
	CHECK_EQ_INT(opt.requests, 0);
	CHECK_EQ_INT(opt.connections, 3);
	CHECK(opt.keep_alive);
}

TEST(help)
{
	CHECK_EQ_INT(parse("-h", NULL), HTS_OPTIONS_HELP);
	CHECK_EQ_INT(parse("--help", "http://h/", NULL), HTS_OPTIONS_HELP);
}

TEST(bad_numbers)
{
	CHECK_EQ_INT(parse("-n", "0", "http://h/", NULL), HTS_OPTIONS_ERROR);
	CHECK_EQ_INT(parse("-n", "abc", "http://h/", NULL), HTS_OPTIONS_ERROR);
	CHECK_EQ_INT(parse("-n", "-5", "http://h/", NULL), HTS_OPTIONS_ERROR);
	CHECK_EQ_INT(parse("-n", "", "http://h/", NULL), HTS_OPTIONS_ERROR);
	CHECK_EQ_INT(parse("-n", "99999999999999999999999", "http://h/", NULL),
		     HTS_OPTIONS_ERROR);
	CHECK_EQ_INT(parse("-c", "0", "http://h/", NULL), HTS_OPTIONS_ERROR);
	CHECK_EQ_INT(parse("-c", "10x", "http://h/", NULL), HTS_OPTIONS_ERROR);
	CHECK_EQ_INT(parse("-c", "1000001", "http://h/", NULL),
		     HTS_OPTIONS_ERROR);
	CHECK_EQ_INT(parse("-t", "0", "http://h/", NULL), HTS_OPTIONS_ERROR);
	CHECK_EQ_INT(parse("-d", "0", "http://h/", NULL), HTS_OPTIONS_ERROR);
	CHECK_EQ_INT(parse("-d", "1e3", "http://h/", NULL), HTS_OPTIONS_ERROR);
	CHECK_EQ_INT(parse("-d", "inf", "http://h/", NULL), HTS_OPTIONS_ERROR);
	CHECK_EQ_INT(parse("-d", ".", "http://h/", NULL), HTS_OPTIONS_ERROR);
	CHECK_EQ_INT(parse("--timeout", "-1", "http://h/", NULL),
		     HTS_OPTIONS_ERROR);
}

TEST(conflicts_and_missing)
{
	CHECK_EQ_INT(parse("-n", "5", "-d", "1", "http://h/", NULL),
		     HTS_OPTIONS_ERROR);
	CHECK(strstr(err, "-n") && strstr(err, "-d"));
	CHECK_EQ_INT(parse("-t", "3", "-c", "2", "http://h/", NULL),
		     HTS_OPTIONS_ERROR);
	CHECK_EQ_INT(parse(NULL, NULL), HTS_OPTIONS_ERROR);
	CHECK(strstr(err, "URL") != NULL);
	CHECK_EQ_INT(parse("http://a/", "http://b/", NULL), HTS_OPTIONS_ERROR);
	CHECK_EQ_INT(parse("-n", NULL), HTS_OPTIONS_ERROR);
	CHECK(strstr(err, "-n") != NULL);
	CHECK_EQ_INT(parse("http://h/", "--timeout", NULL), HTS_OPTIONS_ERROR);
}

TEST(unknown_options)
{
	CHECK_EQ_INT(parse("-x", "http://h/", NULL), HTS_OPTIONS_ERROR);
	CHECK(strstr(err, "-x") != NULL);
	CHECK_EQ_INT(parse("--bogus", "http://h/", NULL), HTS_OPTIONS_ERROR);
	CHECK(strstr(err, "--bogus") != NULL);
	CHECK_EQ_INT(parse("--json=yes", "http://h/", NULL), HTS_OPTIONS_ERROR);
	CHECK_EQ_INT(parse("-H", "bad header", "http://h/", NULL),
		     HTS_OPTIONS_ERROR);
}

/*
 * Each refusal says what is wrong.  Before, --keep-alive=1 was "unknown
 * option -k", --source alone "bad option", and -d past its most "need
 * seconds > 0".
 */
TEST(refusals_say_why)
{
	static const struct {
		const char *a, *b, *want;
	} cases[] = {
		{ "--keep-alive=1", NULL,
		  "option --keep-alive takes no value" },
		{ "--help=1", NULL, "option --help takes no value" },
		{ "--json=yes", NULL, "option --json takes no value" },
		{ "http://h/", "--source", "option --source needs a value" },
		{ "http://h/", "--timeout", "option --timeout needs a value" },
		{ "--bogus", NULL, "unknown option '--bogus'" },
		{ "-x", NULL, "unknown option -x" },
		{ "-d", "10000001", "at most 10000000" },
		{ "--timeout", "90000", "at most 86400" },
		{ "-n", "1000000000001", "from 1 to 10^12" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		if (cases[i].b)
			CHECK_EQ_INT(parse(cases[i].a, cases[i].b,
					   strncmp(cases[i].a, "http", 4) ?
						   "http://h/" :
						   NULL,
					   NULL),
				     HTS_OPTIONS_ERROR);
		else
			CHECK_EQ_INT(parse(cases[i].a, "http://h/", NULL),
				     HTS_OPTIONS_ERROR);
		if (!strstr(err, cases[i].want))
			fprintf(stderr, "  %s %s: %s\n", cases[i].a,
				cases[i].b ? cases[i].b : "", err);
		CHECK(strstr(err, cases[i].want) != NULL);
	}
}

TEST(source_address)
{
	CHECK_EQ_INT(parse("http://h/", NULL), HTS_OPTIONS_RUN);
	CHECK(opt.source == NULL);
	CHECK_EQ_INT(parse("--source", "127.0.0.2", "http://h/", NULL),
		     HTS_OPTIONS_RUN);
	CHECK_EQ_STR(opt.source, "127.0.0.2");
	CHECK_EQ_INT(parse("--source", "::1", "http://h/", NULL),
		     HTS_OPTIONS_RUN);
	CHECK_EQ_STR(opt.source, "::1");
	CHECK_EQ_INT(parse("--source", "[2001:db8::2]", "http://h/", NULL),
		     HTS_OPTIONS_RUN);
	/* Numeric only: a name would be resolved per connection. */
	CHECK_EQ_INT(parse("--source", "localhost", "http://h/", NULL),
		     HTS_OPTIONS_ERROR);
	CHECK(strstr(err, "--source") != NULL);
	CHECK_EQ_INT(parse("--source", "127.0.0.256", "http://h/", NULL),
		     HTS_OPTIONS_ERROR);
	CHECK_EQ_INT(parse("--source", "[127.0.0.1]", "http://h/", NULL),
		     HTS_OPTIONS_ERROR);
	CHECK_EQ_INT(parse("--source", "", "http://h/", NULL),
		     HTS_OPTIONS_ERROR);
	CHECK_EQ_INT(parse("http://h/", "--source", NULL), HTS_OPTIONS_ERROR);
}

TEST(source_parse)
{
	struct hts_target t;
	const struct sockaddr_in *in4 = (const struct sockaddr_in *)&t.addr;
	const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)&t.addr;

	CHECK_EQ_INT(hts_source_parse("127.0.0.2", &t, err, sizeof(err)), 0);
	CHECK_EQ_INT(t.addr.ss_family, AF_INET);
	CHECK_EQ_INT(t.addrlen, sizeof(*in4));
	CHECK_EQ_INT(ntohl(in4->sin_addr.s_addr), 0x7f000002);
	CHECK_EQ_INT(in4->sin_port, 0);
	CHECK_EQ_INT(hts_source_parse("[::1]", &t, err, sizeof(err)), 0);
	CHECK_EQ_INT(t.addr.ss_family, AF_INET6);
	CHECK_EQ_INT(t.addrlen, sizeof(*in6));
	CHECK_EQ_INT(in6->sin6_addr.s6_addr[15], 1);
	CHECK_EQ_INT(in6->sin6_port, 0);
	CHECK_EQ_INT(hts_source_parse("1.2.3", &t, err, sizeof(err)), -1);
}
