// SPDX-License-Identifier: MIT
/* The command line of htstress; see options.h. */
#include "options.h"

#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "request.h"
#include "resolve.h"

enum { OPT_JSON = 256, OPT_TIMEOUT, OPT_SOURCE };

static const struct option long_options[] = {
	{ "requests", required_argument, NULL, 'n' },
	{ "duration", required_argument, NULL, 'd' },
	{ "connections", required_argument, NULL, 'c' },
	{ "threads", required_argument, NULL, 't' },
	{ "keep-alive", no_argument, NULL, 'k' },
	{ "header", required_argument, NULL, 'H' },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "timeout", required_argument, NULL, OPT_TIMEOUT },
	{ "source", required_argument, NULL, OPT_SOURCE },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

void hts_options_usage(FILE *out)
{
	fprintf(out,
		"usage: htstress [-n REQUESTS | -d SECONDS] [-c CONNECTIONS] [-t THREADS]\n"
		"                [-k] [-H 'Name: value']... [--timeout SECONDS]\n"
		"                [--source ADDR] [--json] URL\n"
		"\n"
		"Sends GET requests to URL (http://host[:port][/path], host a name, an\n"
		"IPv4 address or a bracketed IPv6 address) and checks every response.\n"
		"\n"
		"  -n, --requests N      complete N requests (default %d)\n"
		"  -d, --duration S      run for S seconds instead (may be fractional)\n"
		"  -c, --connections N   concurrent connections (default %d)\n"
		"  -t, --threads N       threads, each with its own epoll (default %d)\n"
		"  -k, --keep-alive      reuse connections (default: one per request)\n"
		"  -H, --header 'N: v'   add a header to every request (repeatable;\n"
		"                        a Host header replaces the default one)\n"
		"      --timeout S       a response slower than S seconds is an error\n"
		"                        (default %g)\n"
		"      --source ADDR     connect from this local IPv4 or IPv6 address\n"
		"      --json            print one JSON object instead of the report\n"
		"  -h, --help            print this help\n"
		"\n"
		"Exit status: 0 when every request got a 2xx or 3xx response, 1 when\n"
		"any failed (or none completed), 2 on a usage error.\n",
		HTS_DEFAULT_REQUESTS, HTS_DEFAULT_CONNECTIONS,
		HTS_DEFAULT_THREADS, HTS_DEFAULT_TIMEOUT);
}

static enum hts_options_result fail(char *err, size_t errlen, const char *fmt,
				    ...) __attribute__((format(printf, 3, 4)));

static enum hts_options_result fail(char *err, size_t errlen, const char *fmt,
				    ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return HTS_OPTIONS_ERROR;
}

/* Decimal digits only, between 1 and max. */
static int parse_count(const char *s, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;

	if (!*s)
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		if (v > (max - (uint64_t)(*s - '0')) / 10)
			return -1;
		v = v * 10 + (uint64_t)(*s - '0');
	}
	if (v < 1)
		return -1;
	*out = v;
	return 0;
}

/* A positive decimal number of seconds such as 5, 0.5 or 2.25. */
static int parse_seconds(const char *s, double max, double *out)
{
	char *end;
	double v;

	if (!*s || strspn(s, "0123456789.") != strlen(s))
		return -1;
	v = strtod(s, &end);
	if (*end || !isfinite(v) || v <= 0 || v > max)
		return -1;
	*out = v;
	return 0;
}

/*
 * What is wrong with the option getopt refused at argv[optind - 1]: a
 * value given to one that takes none, none given to one that needs it,
 * or no such option.
 */
static enum hts_options_result refused(char **argv, int next, int letter,
				       char *err, size_t errlen)
{
	const char *arg = argv[next - 1];

	if (!strncmp(arg, "--", 2)) {
		const char *name = arg + 2, *eq = strchr(name, '=');
		size_t n = eq ? (size_t)(eq - name) : strlen(name);

		for (const struct option *o = long_options; o->name; o++) {
			if (strlen(o->name) != n || strncmp(o->name, name, n))
				continue;
			if (eq && o->has_arg == no_argument)
				return fail(err, errlen,
					    "option --%s takes no value",
					    o->name);
			if (!eq && o->has_arg == required_argument)
				return fail(err, errlen,
					    "option --%s needs a value",
					    o->name);
		}
		return fail(err, errlen, "unknown option '%.64s'", arg);
	}
	if (letter > 0 && letter < 256 && strchr("ndctH", letter))
		return fail(err, errlen, "option -%c needs a value", letter);
	if (letter > 0 && letter < 256)
		return fail(err, errlen, "unknown option -%c", letter);
	return fail(err, errlen, "bad option '%.64s'", arg);
}

static enum hts_options_result check(struct hts_options *o, bool has_n,
				     bool has_d, char *err, size_t errlen)
{
	if (has_n && has_d)
		return fail(err, errlen, "-n and -d cannot be used together");
	if (!has_n && !has_d)
		o->requests = HTS_DEFAULT_REQUESTS;
	if (o->threads > o->connections)
		return fail(err, errlen,
			    "-t %u is more threads than the %u connections",
			    o->threads, o->connections);
	if (!o->url)
		return fail(err, errlen, "missing URL");
	return HTS_OPTIONS_RUN;
}

enum hts_options_result hts_options_parse(struct hts_options *o, int argc,
					  char **argv, char *err, size_t errlen)
{
	bool has_n = false, has_d = false;
	uint64_t v;
	int c;

	memset(o, 0, sizeof(*o));
	o->connections = HTS_DEFAULT_CONNECTIONS;
	o->threads = HTS_DEFAULT_THREADS;
	o->timeout = HTS_DEFAULT_TIMEOUT;
	o->headers = calloc((size_t)argc + 1, sizeof(*o->headers));
	if (!o->headers)
		return fail(err, errlen, "out of memory");

	optind = 0; /* a full reset of getopt, so tests may call us again */
	opterr = 0;
	while ((c = getopt_long(argc, argv, "n:d:c:t:kH:h", long_options,
				NULL)) != -1) {
		switch (c) {
		case 'n':
			if (parse_count(optarg, UINT64_C(1000000000000), &v))
				return fail(
					err, errlen,
					"bad -n '%s': need a count from 1 to "
					"10^12",
					optarg);
			o->requests = v;
			has_n = true;
			break;
		case 'd':
			if (parse_seconds(optarg, 1e7, &o->duration))
				return fail(err, errlen,
					    "bad -d '%s': need seconds > 0, at "
					    "most 10000000",
					    optarg);
			has_d = true;
			break;
		case 'c':
			if (parse_count(optarg, HTS_MAX_CONNECTIONS, &v))
				return fail(
					err, errlen,
					"bad -c '%s': need 1 to %d connections",
					optarg, HTS_MAX_CONNECTIONS);
			o->connections = (unsigned int)v;
			break;
		case 't':
			if (parse_count(optarg, HTS_MAX_THREADS, &v))
				return fail(err, errlen,
					    "bad -t '%s': need 1 to %d threads",
					    optarg, HTS_MAX_THREADS);
			o->threads = (unsigned int)v;
			break;
		case 'k':
			o->keep_alive = true;
			break;
		case 'H':
			if (hts_header_check(optarg, err, errlen))
				return HTS_OPTIONS_ERROR;
			o->headers[o->nheaders++] = optarg;
			break;
		case OPT_JSON:
			o->json = true;
			break;
		case OPT_TIMEOUT:
			if (parse_seconds(optarg, 86400, &o->timeout))
				return fail(
					err, errlen,
					"bad --timeout '%s': need seconds > 0, "
					"at most 86400",
					optarg);
			break;
		case OPT_SOURCE: {
			struct hts_target src;

			if (hts_source_parse(optarg, &src, err, errlen))
				return HTS_OPTIONS_ERROR;
			o->source = optarg;
			break;
		}
		case 'h':
			return HTS_OPTIONS_HELP;
		case ':':
		case '?':
		default:
			return refused(argv, optind, optopt, err, errlen);
		}
	}
	if (optind < argc)
		o->url = argv[optind++];
	if (optind < argc)
		return fail(err, errlen, "unexpected argument '%.64s'",
			    argv[optind]);
	return check(o, has_n, has_d, err, errlen);
}

void hts_options_free(struct hts_options *o)
{
	free(o->headers);
	o->headers = NULL;
}
