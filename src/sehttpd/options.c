// SPDX-License-Identifier: MIT
#include "options.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mime_map.h"
#include "privileges.h"
#include "version.h"

enum {
	OPT_TIMEOUT = 256,
	OPT_NO_LISTING,
	OPT_ACCESS_LOG,
	OPT_NO_COMPRESS,
	OPT_CACHE_SIZE,
	OPT_USER,
	OPT_METRICS,
	OPT_DRAIN_TIMEOUT,
	OPT_PROXY_PROTOCOL,
	OPT_HEALTH,
	OPT_HEALTH_GRACE,
	OPT_HEADER,
	OPT_CORS,
	OPT_INDEX,
	OPT_ERROR_PAGE,
	OPT_SPA,
	OPT_DOTFILES,
	OPT_FOLLOW_SYMLINKS,
	OPT_MIME,
	OPT_DEFAULT_TYPE,
	OPT_MIME_TYPES,
};

static const struct option long_options[] = {
	{ "port", required_argument, NULL, 'p' },
	{ "bind", required_argument, NULL, 'b' },
	{ "threads", required_argument, NULL, 't' },
	{ "timeout", required_argument, NULL, OPT_TIMEOUT },
	{ "no-listing", no_argument, NULL, OPT_NO_LISTING },
	{ "access-log", required_argument, NULL, OPT_ACCESS_LOG },
	{ "no-compress", no_argument, NULL, OPT_NO_COMPRESS },
	{ "cache-size", required_argument, NULL, OPT_CACHE_SIZE },
	{ "drain-timeout", required_argument, NULL, OPT_DRAIN_TIMEOUT },
	{ "user", required_argument, NULL, OPT_USER },
	{ "metrics", required_argument, NULL, OPT_METRICS },
	{ "proxy-protocol", no_argument, NULL, OPT_PROXY_PROTOCOL },
	{ "health", required_argument, NULL, OPT_HEALTH },
	{ "health-grace", required_argument, NULL, OPT_HEALTH_GRACE },
	{ "header", required_argument, NULL, OPT_HEADER },
	{ "cors", required_argument, NULL, OPT_CORS },
	{ "index", required_argument, NULL, OPT_INDEX },
	{ "error-page", required_argument, NULL, OPT_ERROR_PAGE },
	{ "spa", required_argument, NULL, OPT_SPA },
	{ "dotfiles", no_argument, NULL, OPT_DOTFILES },
	{ "follow-symlinks", no_argument, NULL, OPT_FOLLOW_SYMLINKS },
	{ "mime", required_argument, NULL, OPT_MIME },
	{ "default-type", required_argument, NULL, OPT_DEFAULT_TYPE },
	{ "mime-types", required_argument, NULL, OPT_MIME_TYPES },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

static void usage(FILE *out)
{
	fprintf(out,
		"Usage: sehttpd [OPTIONS] [ROOT]\n"
		"Serve the directory ROOT (default ./www) over HTTP/1.1.\n"
		"\n"
		"  -p, --port PORT        port to listen on (default 8080; 0: any)\n"
		"  -b, --bind ADDR        address to bind, IPv4 or IPv6 (default 0.0.0.0)\n"
		"  -t, --threads N        event-loop threads (default: online CPUs)\n"
		"      --timeout SECONDS  idle, request-head and transfer timeout\n"
		"                         (default 15); transfers must also average\n"
		"                         16 KiB/s\n"
		"      --no-listing       answer 403 for directories without an index\n"
		"      --access-log FILE  write a Combined Log Format line per request\n"
		"                         to FILE ('-' for standard output)\n"
		"      --no-compress      never compress responses\n"
		"      --cache-size MIB   memory for cached files and listings\n"
		"                         (default 64; 0 disables the cache)\n"
		"      --user NAME        started as root, serve as NAME after\n"
		"                         binding (default nobody; root: stay root)\n"
		"      --metrics ADDR:PORT  serve Prometheus metrics at\n"
		"                         http://ADDR:PORT/metrics (default off)\n"
		"      --drain-timeout SECONDS  on SIGINT or SIGTERM, how long\n"
		"                         in-flight responses may take to\n"
		"                         finish (default 5); a second\n"
		"                         signal stops at once\n"
		"      --proxy-protocol   every connection starts with a PROXY\n"
		"                         header (v1 or v2) naming the client; only\n"
		"                         behind a balancer that sends it\n"
		"      --health PATH      answer GET/HEAD PATH with 200, or with 503\n"
		"                         once stopping, for load balancers\n"
		"      --health-grace SECONDS  after SIGTERM/SIGINT, fail health checks\n"
		"                         this long before closing the listener\n"
		"                         (default 3; with --health only)\n"
		"      --header [/PREFIX:]'NAME: VALUE'  add a header to every\n"
		"                         response below 400 (under PREFIX only);\n"
		"                         repeatable\n"
		"      --cors ORIGIN      allow ORIGIN ('*': any) to read responses\n"
		"                         cross-origin, and answer preflights\n"
		"      --index NAME       a directory's index file; repeatable, the\n"
		"                         first found wins (default index.html,\n"
		"                         index.htm)\n"
		"      --error-page CODE=/PATH  answer status CODE (4xx, 5xx) with\n"
		"                         the file PATH beneath ROOT; repeatable\n"
		"      --spa /PATH        answer GET/HEAD of a missing path without\n"
		"                         a file extension with PATH, status 200\n"
		"      --dotfiles         serve and list names starting with '.'\n"
		"                         (default: 404 and hidden, but\n"
		"                         /.well-known/ is served)\n"
		"      --follow-symlinks  follow symlinks that lead out of ROOT\n"
		"                         (default: 403)\n"
		"      --mime EXT=TYPE    send files ending in .EXT as TYPE\n"
		"                         (repeatable; over mime.types and the\n"
		"                         built-in table; text types without a\n"
		"                         charset get charset=utf-8)\n"
		"      --default-type TYPE  for files of no known type (default\n"
		"                         application/octet-stream)\n"
		"      --mime-types FILE  extensions and types to read (default\n"
		"                         /etc/mime.types when present; '': none)\n"
		"  -h, --help             show this help and exit\n"
		"  -V, --version          show the version and exit\n");
}

/* The most of a bad value an error message quotes. */
#define QUOTE_MAX 64

/*
 * Writes value to stderr with control bytes as \xHH, so that it is one
 * line always, and at most QUOTE_MAX of its bytes (cut before a UTF-8
 * continuation byte), then "..." when there were more.
 */
static void put_escaped(const char *value)
{
	size_t n = strlen(value), shown = n;

	if (n > QUOTE_MAX) {
		shown = QUOTE_MAX;
		while (shown > 0 &&
		       ((unsigned char)value[shown] & 0xc0) == 0x80)
			shown--;
	}
	for (size_t i = 0; i < shown; i++) {
		unsigned char c = (unsigned char)value[i];

		if (c < 0x20 || c == 0x7f)
			fprintf(stderr, "\\x%02x", c);
		else
			fputc(c, stderr);
	}
	if (shown < n)
		fputs("...", stderr);
}

/* A bad value, which may be long or hold control bytes. */
static int bad(const char *what, const char *value)
{
	fprintf(stderr, "sehttpd: invalid %s '", what);
	put_escaped(value);
	fputs("' (try --help)\n", stderr);
	return -1;
}

/* A site flag's value checked by config.c, which says what is wrong. */
static int bad_site(const char *flag, const char *value,
		    int (*check)(const char *, char *, size_t))
{
	char why[160];

	if (!check(value, why, sizeof(why)))
		return 0;
	fprintf(stderr, "sehttpd: invalid %s '", flag);
	put_escaped(value);
	fprintf(stderr, "': %s\n", why);
	return -1;
}

/* Appends a repeatable flag's value to list, within max. */
static int add_value(const char *flag, const char **list, unsigned int *n,
		     unsigned int max, const char *value)
{
	if (*n == max) {
		fprintf(stderr, "sehttpd: at most %u %s options\n", max, flag);
		return -1;
	}
	list[(*n)++] = value;
	return 0;
}

static int parse_uint(const char *s, unsigned long min, unsigned long max,
		      unsigned long *out)
{
	char *end;
	unsigned long v;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

static int parse_seconds(const char *s, uint32_t *ms)
{
	char *end;
	double v;

	if ((*s < '0' || *s > '9') && *s != '.')
		return -1;
	errno = 0;
	v = strtod(s, &end);
	if (errno || *end || !isfinite(v) || v < 0.001 || v > 86400.0)
		return -1;
	*ms = (uint32_t)(v * 1000.0 + 0.5);
	return 0;
}

enum options_result options_parse(struct options *opt, int argc, char **argv)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	unsigned long v;
	int c;

	*opt = (struct options){
		.root = "./www",
		.bind_addr = "0.0.0.0",
		.port = 8080,
		.threads = cpus > 0 ? (unsigned)cpus : 1,
		.timeout_ms = 15000,
		.drain_ms = 5000,
		.site.listing = true,
		.compress = true,
		.cache_mib = 64,
		.user = PRIVILEGES_DEFAULT_USER,
		.health_grace_ms = 3000,
		.mime_types = MIME_TYPES_DEFAULT,
	};

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":p:b:t:hV", long_options, NULL)) !=
	       -1) {
		switch (c) {
		case 'p':
			if (parse_uint(optarg, 0, 65535, &v))
				return bad("port", optarg), OPTIONS_EXIT_USAGE;
			opt->port = (uint16_t)v;
			break;
		case 'b':
			opt->bind_addr = optarg;
			break;
		case 't':
			if (parse_uint(optarg, 1, 1024, &v))
				return bad("thread count", optarg),
				       OPTIONS_EXIT_USAGE;
			opt->threads = (unsigned)v;
			break;
		case OPT_TIMEOUT:
			if (parse_seconds(optarg, &opt->timeout_ms))
				return bad("timeout", optarg),
				       OPTIONS_EXIT_USAGE;
			break;
		case OPT_DRAIN_TIMEOUT:
			if (parse_seconds(optarg, &opt->drain_ms))
				return bad("drain timeout", optarg),
				       OPTIONS_EXIT_USAGE;
			break;
		case OPT_NO_LISTING:
			opt->site.listing = false;
			break;
		case OPT_NO_COMPRESS:
			opt->compress = false;
			break;
		case OPT_CACHE_SIZE:
			if (parse_uint(optarg, 0, 1u << 20, &v))
				return bad("cache size", optarg),
				       OPTIONS_EXIT_USAGE;
			opt->cache_mib = (uint32_t)v;
			break;
		case OPT_ACCESS_LOG:
			opt->access_log = optarg;
			break;
		case OPT_METRICS:
			opt->metrics = optarg;
			break;
		case OPT_PROXY_PROTOCOL:
			opt->proxy_protocol = true;
			break;
		case OPT_HEALTH:
			if (optarg[0] != '/' || strlen(optarg) > 1024 ||
			    strpbrk(optarg, " \t\r\n"))
				return bad("health path", optarg),
				       OPTIONS_EXIT_USAGE;
			opt->health = optarg;
			break;
		case OPT_HEALTH_GRACE:
			if (parse_seconds(optarg, &opt->health_grace_ms))
				return bad("health grace", optarg),
				       OPTIONS_EXIT_USAGE;
			break;
		case OPT_HEADER:
			if (bad_site("--header", optarg, site_check_header) ||
			    add_value("--header", opt->site.headers,
				      &opt->site.nheaders, SITE_MAX_HEADERS,
				      optarg))
				return OPTIONS_EXIT_USAGE;
			break;
		case OPT_CORS:
			if (bad_site("--cors", optarg, site_check_cors))
				return OPTIONS_EXIT_USAGE;
			opt->site.cors = optarg;
			break;
		case OPT_INDEX:
			if (bad_site("--index", optarg, site_check_index) ||
			    add_value("--index", opt->site.index,
				      &opt->site.nindex, SITE_MAX_INDEX,
				      optarg))
				return OPTIONS_EXIT_USAGE;
			break;
		case OPT_ERROR_PAGE:
			if (bad_site("--error-page", optarg,
				     site_check_error_page) ||
			    add_value("--error-page", opt->site.error_pages,
				      &opt->site.nerror_pages,
				      SITE_MAX_ERROR_PAGES, optarg))
				return OPTIONS_EXIT_USAGE;
			break;
		case OPT_SPA:
			if (bad_site("--spa", optarg, site_check_page_path))
				return OPTIONS_EXIT_USAGE;
			opt->site.spa = optarg;
			break;
		case OPT_DOTFILES:
			opt->site.dotfiles = true;
			break;
		case OPT_FOLLOW_SYMLINKS:
			opt->follow_symlinks = true;
			break;
		case OPT_MIME:
			if (!mime_map_arg_valid(optarg))
				return bad("MIME mapping (EXT=TYPE)", optarg),
				       OPTIONS_EXIT_USAGE;
			if (add_value("--mime", opt->mime, &opt->mime_count,
				      OPTIONS_MIME_MAX, optarg))
				return OPTIONS_EXIT_USAGE;
			break;
		case OPT_DEFAULT_TYPE:
			if (!mime_map_type_valid(optarg))
				return bad("media type", optarg),
				       OPTIONS_EXIT_USAGE;
			opt->default_type = optarg;
			break;
		case OPT_MIME_TYPES:
			opt->mime_types = *optarg ? optarg : NULL;
			break;
		case OPT_USER:
			if (!*optarg)
				return bad("user", optarg), OPTIONS_EXIT_USAGE;
			opt->user = optarg;
			opt->user_given = true;
			break;
		case 'h':
			usage(stdout);
			return OPTIONS_EXIT_OK;
		case 'V':
			printf("sehttpd %s\n", SEHTTPD_VERSION);
			return OPTIONS_EXIT_OK;
		case ':':
			fputs("sehttpd: option '", stderr);
			put_escaped(argv[optind - 1]);
			fputs("' needs a value\n", stderr);
			return OPTIONS_EXIT_USAGE;
		default:
			fputs("sehttpd: unknown option '", stderr);
			put_escaped(argv[optind - 1]);
			fputs("' (try --help)\n", stderr);
			return OPTIONS_EXIT_USAGE;
		}
	}
	/* Either order: --cors may follow the --header it conflicts with. */
	for (unsigned int i = 0; opt->site.cors && i < opt->site.nheaders;
	     i++) {
		if (bad_site("--header", opt->site.headers[i],
			     site_check_header_with_cors))
			return OPTIONS_EXIT_USAGE;
	}
	if (optind < argc)
		opt->root = argv[optind++];
	if (optind < argc) {
		fputs("sehttpd: unexpected argument '", stderr);
		put_escaped(argv[optind]);
		fputs("'\n", stderr);
		return OPTIONS_EXIT_USAGE;
	}
	return OPTIONS_RUN;
}
