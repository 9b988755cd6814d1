// SPDX-License-Identifier: MIT
/*
 * The command line of sehttpd, from one table: each option's names, value,
 * setter and texts.  getopt_long's arrays, --help and the OPTIONS section
 * of sehttpd(1) (options_write_man, `make man`) all come from it, so that a
 * new option is one entry.
 */
#include "options.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "http/body.h"
#include "http/path.h"
#include "mime_map.h"
#include "privileges.h"
#include "tcp_congestion.h"
#include "version.h"

/* The most of a bad value an error message quotes. */
#define QUOTE_MAX 64
/* --help's column where the options' texts start. */
#define HELP_TEXT_COLUMN 25

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

/* A site option's value checked by config.c, which says what is wrong. */
static int bad_site(const char *name, const char *value,
		    int (*check)(const char *, char *, size_t))
{
	char why[160];

	if (!check(value, why, sizeof(why)))
		return 0;
	fprintf(stderr, "sehttpd: invalid --%s '", name);
	put_escaped(value);
	fprintf(stderr, "': %s\n", why);
	return -1;
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

static int health_path_check(const char *path, char *why, size_t cap)
{
	size_t len = strlen(path);

	if (len > 1024) {
		snprintf(why, cap, "longer than 1024 bytes");
		return -1;
	}
	if (!http_path_matchable(path, len)) {
		snprintf(why, cap, "%s", HTTP_PATH_MATCHABLE_RULE);
		return -1;
	}
	return 0;
}

static bool not_empty(const char *s)
{
	return *s != '\0';
}

struct option_spec;

/*
 * Stores value (NULL for an option without one) where spec says in opt;
 * on a bad value prints the one-line error and returns OPTIONS_EXIT_USAGE.
 */
typedef enum options_result option_setter(struct options *opt,
					  const struct option_spec *spec,
					  const char *value);

/* One option, as nginx's command tables describe a directive. */
struct option_spec {
	const char *name; /* the long form, without "--" */
	char letter; /* the short form, or 0 */
	const char *arg; /* its value's name in --help; NULL: takes none */
	option_setter *set;
	size_t field; /* offsetof(struct options, the member set writes) */
	size_t width; /* a number's: the size of that member (NUMBER()) */
	size_t count; /* a repeatable option's: offsetof its count */
	unsigned long min, max; /* a number's range; max: how often repeated */
	const char *what; /* a bad value is "invalid WHAT 'VALUE'" ... */
	bool (*valid)(const char *value); /* ... when this says false */
	/* A site option's check, which says why a value is bad (config.h). */
	int (*check)(const char *value, char *why, size_t len);
	const char *help; /* --help's text, "\n" where its lines break */
	const char *man_arg; /* troff of the value in sehttpd(1); NULL: arg */
	const char *man; /* the paragraph in sehttpd(1), troff */
};

#define OPTION(member) offsetof(struct options, member)
/* The member a number option sets, and its size. */
#define NUMBER(m) .field = OPTION(m), .width = sizeof(((struct options *)0)->m)

static void *member(struct options *opt, size_t offset)
{
	return (char *)opt + offset;
}

/* The check spec has for value, if any; prints why value fails it. */
static bool value_ok(const struct option_spec *spec, const char *value)
{
	if (spec->check)
		return !bad_site(spec->name, value, spec->check);
	if (spec->valid && !spec->valid(value))
		return bad(spec->what, value), false;
	return true;
}

/*
 * A whole number within spec's range (which fits its member), stored in a
 * member of spec->width bytes: a port, a count, a size.
 */
static enum options_result set_number(struct options *opt,
				      const struct option_spec *spec,
				      const char *value)
{
	void *field = member(opt, spec->field);
	unsigned long v;

	if (parse_uint(value, spec->min, spec->max, &v))
		return bad(spec->what, value), OPTIONS_EXIT_USAGE;
	/* The members are uint16_t, uint32_t and unsigned int. */
	_Static_assert(sizeof(unsigned int) == sizeof(uint32_t),
		       "an unsigned int member is set as a uint32_t");
	if (spec->width == sizeof(uint16_t))
		*(uint16_t *)field = (uint16_t)v;
	else
		*(uint32_t *)field = (uint32_t)v;
	return OPTIONS_RUN;
}

/* Seconds, fractions allowed, stored as milliseconds. */
static enum options_result set_seconds(struct options *opt,
				       const struct option_spec *spec,
				       const char *value)
{
	if (parse_seconds(value, member(opt, spec->field)))
		return bad(spec->what, value), OPTIONS_EXIT_USAGE;
	return OPTIONS_RUN;
}

static enum options_result set_string(struct options *opt,
				      const struct option_spec *spec,
				      const char *value)
{
	if (!value_ok(spec, value))
		return OPTIONS_EXIT_USAGE;
	*(const char **)member(opt, spec->field) = value;
	return OPTIONS_RUN;
}

/* A repeatable option: value joins the list, up to spec->max of them. */
static enum options_result add_string(struct options *opt,
				      const struct option_spec *spec,
				      const char *value)
{
	const char **list = member(opt, spec->field);
	unsigned int *n = member(opt, spec->count);

	if (!value_ok(spec, value))
		return OPTIONS_EXIT_USAGE;
	if (*n == spec->max) {
		fprintf(stderr, "sehttpd: at most %u --%s options\n",
			(unsigned int)spec->max, spec->name);
		return OPTIONS_EXIT_USAGE;
	}
	list[(*n)++] = value;
	return OPTIONS_RUN;
}

static enum options_result
set_true(struct options *opt, const struct option_spec *spec, const char *value)
{
	(void)value;
	*(bool *)member(opt, spec->field) = true;
	return OPTIONS_RUN;
}

static enum options_result set_false(struct options *opt,
				     const struct option_spec *spec,
				     const char *value)
{
	(void)value;
	*(bool *)member(opt, spec->field) = false;
	return OPTIONS_RUN;
}

/* --log-format: combined or json. */
static enum options_result set_log_format(struct options *opt,
					  const struct option_spec *spec,
					  const char *value)
{
	if (strcmp(value, "combined") && strcmp(value, "json"))
		return bad(spec->what, value), OPTIONS_EXIT_USAGE;
	*(bool *)member(opt, spec->field) = !strcmp(value, "json");
	return OPTIONS_RUN;
}

/* --user: privileges.c tells the default from a root that asked for it. */
static enum options_result
set_user(struct options *opt, const struct option_spec *spec, const char *value)
{
	opt->user_given = true;
	return set_string(opt, spec, value);
}

/* A file to read, where '' means none. */
static enum options_result set_file_or_none(struct options *opt,
					    const struct option_spec *spec,
					    const char *value)
{
	*(const char **)member(opt, spec->field) = *value ? value : NULL;
	return OPTIONS_RUN;
}

static void usage(FILE *out);

static enum options_result show_help(struct options *opt,
				     const struct option_spec *spec,
				     const char *value)
{
	(void)opt, (void)spec, (void)value;
	usage(stdout);
	return OPTIONS_EXIT_OK;
}

static enum options_result show_version(struct options *opt,
					const struct option_spec *spec,
					const char *value)
{
	(void)opt, (void)spec, (void)value;
	printf("sehttpd %s\n", SEHTTPD_VERSION);
	return OPTIONS_EXIT_OK;
}

/* In --help's order, which sehttpd(1) follows. */
static const struct option_spec option_table[] = {
	{
		.name = "port",
		.letter = 'p',
		.arg = "PORT",
		.set = set_number,
		NUMBER(port),
		.max = 65535,
		.what = "port",
		.help = "port to listen on where -b names none\n"
			"(default 8080; 0: any)",
		.man = "Port to listen on at every\n"
		       ".B \\-\\-bind\n"
		       "address given without one (default 8080;\n"
		       "0 picks a free one, for each address its own).\n"
		       "Given again, the last one counts.\n",
	},
	{
		.name = "bind",
		.letter = 'b',
		.arg = "ADDR[:PORT]",
		.set = add_string,
		.field = OPTION(binds),
		.count = OPTION(nbinds),
		.max = LISTEN_ADDRS_MAX,
		.check = listen_arg_check,
		.help = "listen on ADDR, IPv4 or [IPv6], or on\n"
			"unix:PATH; repeatable (default 0.0.0.0)",
		.man_arg = "\" \\fIADDR\\fR[:\\fIPORT\\fR]\"",
		.man = "Listen on\n"
		       ".I ADDR\n"
		       "(an IPv4 address, an IPv6 one, or a host name, whose\n"
		       "first address counts), at\n"
		       ".I PORT\n"
		       "or else\n"
		       ".BR \\-\\-port ;\n"
		       "an IPv6 address with a port goes in brackets\n"
		       ".RB ( [::1]:8080 ).\n"
		       "Repeatable, up to 16: every address given is listened\n"
		       "on (default: 0.0.0.0 alone).\n"
		       "Beside an IPv4 address, an IPv6 one takes IPv6\n"
		       "connections only\n"
		       ".RB ( IPV6_V6ONLY ),\n"
		       "so that\n"
		       ".B \\-b 0.0.0.0 \\-b [::]\n"
		       "share a port; alone,\n"
		       ".B [::]\n"
		       "takes IPv4 too.\n"
		       ".BI unix: PATH\n"
		       "listens on a Unix stream socket made at\n"
		       ".I PATH\n"
		       "with mode 0660 (owned by the user starting\n"
		       ".BR sehttpd )\n"
		       "and removed at exit when the serving user may;\n"
		       "a socket file left by a server that is gone is\n"
		       "replaced, while one a server still listens on, or any\n"
		       "other file, is a usage error.\n"
		       "The access log shows its clients as\n"
		       ".BR unix: .\n"
		       "Every thread accepts on it\n"
		       ".RB ( EPOLLEXCLUSIVE ).\n",
	},
	{
		.name = "threads",
		.letter = 't',
		.arg = "N",
		.set = set_number,
		NUMBER(threads),
		.min = 1,
		.max = 1024,
		.what = "thread count",
		.help = "event-loop threads (default: online CPUs)",
		.man = "Event-loop threads, 1 to 1024 (default: the number\n"
		       "of online CPUs).\n"
		       "Each has its own listening socket on every TCP\n"
		       "address's port\n"
		       ".RB ( SO_REUSEPORT ),\n"
		       "and accepts on every Unix socket too.\n",
	},
	{
		.name = "max-connections",
		.arg = "N",
		.set = set_number,
		NUMBER(max_connections),
		.min = 1,
		.max = 1u << 22,
		.what = "connection limit",
		.help = "connections open at once, over all threads;\n"
			"beyond, new ones are closed at once\n"
			"(default: as many as ulimit -n allows)",
		.man = "The most connections open at once, over all\n"
		       "threads.\n"
		       "A connection beyond them is accepted and closed at\n"
		       "once, and counted\n"
		       ".RB ( sehttpd_connections_refused_total\n"
		       "in\n"
		       ".BR \\-\\-metrics );\n"
		       "the first one a minute is also reported on standard\n"
		       "error.\n"
		       "The default, and the most allowed, is the\n"
		       "descriptor limit\n"
		       ".RB ( \"ulimit \\-n\" ,\n"
		       "raised to its hard limit) less a reserve of an\n"
		       "eighth of it (at least 16) for the files the cache\n"
		       "keeps open, another eighth for HTTP/2 streams\n"
		       "beyond a connection's first, the log and the\n"
		       "threads' own descriptors, halved: each connection\n"
		       "may hold its socket and a file it sends.\n"
		       "A larger value is lowered to it, with a warning.\n",
	},
	{
		.name = "timeout",
		.arg = "SECONDS",
		.set = set_seconds,
		.field = OPTION(timeout_ms),
		.what = "timeout",
		.help = "idle, request-head and transfer timeout\n"
			"(default 15); transfers must also average\n"
			"the rate of --min-rate",
		.man = "Idle, request-head and transfer timeout (default 15;\n"
		       "0.001 to 86400, fractions allowed).\n"
		       "A client that does not complete a request head\n"
		       "within it is answered 408, a head without a body,\n"
		       "and disconnected (one that sent nothing is closed\n"
		       "without an answer).\n"
		       "A response, or a request body being skipped,\n"
		       "may go no longer than it without progress,\n"
		       "and must average at least\n"
		       ".BR \\-\\-min\\-rate :\n"
		       "one that began at\n"
		       ".I start\n"
		       "ends at the latest at\n"
		       ".IR start \" + \" timeout \" +\"\n"
		       ".IR bytes \" / \" min\\-rate ,\n"
		       "where\n"
		       ".I bytes\n"
		       "are, for a response, those the client acknowledged,\n"
		       "and for a body, those received.\n"
		       "A client reading at a rate\n"
		       ".I r\n"
		       "below that is cut off after about\n"
		       ".IR timeout \" / (1 \\- \" r \" / \" min\\-rate ),\n"
		       "whatever the size of the response.\n"
		       "A response cut off ends with a reset;\n"
		       "after a body cut off, the connection closes as after\n"
		       "any last response (the client's remaining bytes are\n"
		       "drained for a bounded time).\n",
	},
	{
		.name = "min-rate",
		.arg = "BYTES_PER_SECOND",
		.set = set_number,
		NUMBER(min_rate),
		.max = 1u << 30,
		.what = "minimum rate",
		.help = "bytes per second a response or skipped\n"
			"body must average after --timeout\n"
			"(default 1024; 0: any rate)",
		.man = "The rate a response, or a request body being\n"
		       "skipped, must average, in bytes per second (default\n"
		       "1024, below any link still in use, so slow clients\n"
		       "finish; 0: no minimum, only the progress timeout\n"
		       "applies; at most 1073741824); see\n"
		       ".BR \\-\\-timeout .\n"
		       "Over HTTP/2 a stream needs only progress; the streams\n"
		       "a connection has open must average the rate together,\n"
		       "with one timeout more of grace, or the connection is\n"
		       "cut.\n",
	},
	{
		.name = "tcp-congestion",
		.arg = "NAME",
		.set = set_string,
		.field = OPTION(tcp_congestion),
		.check = tcp_congestion_check,
		.help = "TCP congestion control for every\n"
			"connection, or 'system' (default: reno\n"
			"from loopback, else the system's)",
		.man = "The TCP congestion control algorithm of every\n"
		       "connection (one of\n"
		       ".IR /proc/sys/net/ipv4/tcp_available_congestion_control ),\n"
		       "or\n"
		       ".B system\n"
		       "for the system's own\n"
		       "(net.ipv4.tcp_congestion_control).\n"
		       "By default a connection from a loopback address uses\n"
		       ".BR reno ,\n"
		       "and every other the system's: a loopback connection\n"
		       "meets no congested link, and a pacing algorithm such\n"
		       "as BBR costs there about twice the CPU per byte sent.\n"
		       "BBR marks a connection for pacing as it starts, so on\n"
		       "a wildcard address under BBR the listening socket is\n"
		       ".B reno\n"
		       "and each connection from another address is moved to\n"
		       "BBR when accepted (unless a route names its own\n"
		       "algorithm).\n",
	},
	{
		.name = "no-listing",
		.set = set_false,
		.field = OPTION(site.listing),
		.help = "answer 403 for directories without an index",
		.man = "Answer 403 for directories without an index file.\n",
	},
	{
		.name = "access-log",
		.arg = "FILE",
		.set = set_string,
		.field = OPTION(access_log),
		.help = "write a line per request to FILE ('-' for\n"
			"standard output; format: --log-format)",
		.man = "Write a line per request to\n"
		       ".I FILE\n"
		       ".RB ( \\- \" for standard output; default off),\"\n"
		       "in the Combined Log Format unless\n"
		       ".B \\-\\-log\\-format\n"
		       "says otherwise.\n"
		       "Its third field is the user whose credentials met\n"
		       "an\n"
		       ".B \\-\\-auth\\-file\n"
		       "rule (spaces escaped too), else\n"
		       ".BR \\- .\n"
		       "With the log on standard output, the server's own\n"
		       "lines (where it listens, the drain) go to standard\n"
		       "error, so that standard output holds log lines only.\n"
		       "Responses cut short (client gone, write stall,\n"
		       "request timeout) are logged too,\n"
		       "with the body bytes written.\n"
		       "Long client fields are cut and end in\n"
		       ".BR ... ,\n"
		       "never the line.\n"
		       "A thread of its own writes the log,\n"
		       "so a log that does not keep up\n"
		       "(a full pipe) never stalls serving:\n"
		       "beyond 256 KiB waiting, lines are dropped and\n"
		       "counted on standard error.\n",
	},
	{
		.name = "log-format",
		.arg = "combined|json",
		.set = set_log_format,
		.field = OPTION(log_json),
		.what = "log format (combined or json)",
		.help = "--access-log's lines: Combined Log\n"
			"Format (default) or JSON objects",
		.man_arg = "\" combined\\fR|\\fPjson\"",
		.man = "The format of\n"
		       ".BR \\-\\-access\\-log 's\n"
		       "lines:\n"
		       ".B combined\n"
		       "(the Combined Log Format, the default) or\n"
		       ".BR json :\n"
		       "one JSON object per line with\n"
		       ".B time\n"
		       "(RFC 3339, UTC),\n"
		       ".BR remote_addr ,\n"
		       ".B user\n"
		       "(as the combined format's third field),\n"
		       ".BR method ,\n"
		       ".BR target ,\n"
		       ".BR protocol ,\n"
		       ".BR status ,\n"
		       ".BR body_bytes ,\n"
		       ".B duration_us\n"
		       "(from the complete request head to the last byte\n"
		       "handed to the socket, in microseconds),\n"
		       ".BR referer ,\n"
		       ".B user_agent\n"
		       "and\n"
		       ".B host\n"
		       "(the host the request was served for, as the\n"
		       "virtual host is chosen: an absolute-form target's\n"
		       "authority, else Host, its port as sent);\n"
		       "what a request lacks is null.\n"
		       "Strings are escaped as JSON requires: control\n"
		       "characters escaped, bytes that are not UTF-8 as\n"
		       ".BR \\eufffd ,\n"
		       "so every line is valid JSON in UTF-8.\n"
		       ".B json\n"
		       "without\n"
		       ".B \\-\\-access\\-log\n"
		       "is a usage error.\n",
	},
	{
		.name = "no-compress",
		.set = set_false,
		.field = OPTION(compress),
		.help = "never compress responses, nor send\n"
			"precompressed siblings (FILE.gz...)",
		.man = "Never compress responses, nor send a precompressed\n"
		       "sibling in a file's place: every response is\n"
		       "the file as it is, without\n"
		       ".BR \"Vary: Accept\\-Encoding\" .\n",
	},
	{
		.name = "cache-size",
		.arg = "MIB",
		.set = set_number,
		NUMBER(cache_mib),
		.max = 1u << 20,
		.what = "cache size",
		.help = "memory for cached files and listings\n"
			"(default 64; 0 disables the cache)",
		.man = "Memory for cached files and listings (default 64;\n"
		       "0 disables the cache; at most 1048576).\n",
	},
	{
		.name = "user",
		.arg = "NAME",
		.set = set_user,
		.field = OPTION(user),
		.what = "user",
		.valid = not_empty,
		.help = "started as root, serve as NAME after\n"
			"binding (default nobody; root: stay root)",
		.man = "Started as root,\n"
		       ".B sehttpd\n"
		       "binds its sockets, then serves as\n"
		       ".I NAME\n"
		       "(default\n"
		       ".BR nobody ),\n"
		       "with that user's primary group and the supplementary\n"
		       "groups\n"
		       ".I /etc/group\n"
		       "gives it, so a file that user cannot read gets 403.\n"
		       ".B \\-\\-user root\n"
		       "keeps root, with a warning.\n"
		       "Started as any other user, it changes nothing\n"
		       "(given, it is ignored with a warning).\n",
	},
	{
		.name = "metrics",
		.arg = "ADDR:PORT",
		.set = set_string,
		.field = OPTION(metrics),
		.help = "serve Prometheus metrics at\n"
			"http://ADDR:PORT/metrics (default off)",
		.man = "Serve counters in the Prometheus text format at\n"
		       ".BI http:// ADDR:PORT /metrics\n"
		       "on a listener and a thread of their own\n"
		       "(default off): responses by status class,\n"
		       "requests by method (GET, HEAD, OPTIONS, other) and\n"
		       "status class, a histogram of request durations\n"
		       ".RB ( sehttpd_request_duration_seconds ,\n"
		       "100 us to 10 s, from the complete request head to\n"
		       "the last byte handed to the socket),\n"
		       "response body bytes, connections accepted,\n"
		       "open and idle, content-cache entries, bytes, hits,\n"
		       "misses and compressed-variant hits,\n"
		       "access-log lines dropped, connections refused\n"
		       "(over\n"
		       ".BR \\-\\-max\\-connections ,\n"
		       "or for a bad PROXY header), listings built,\n"
		       "TLS handshakes (failed, resumed, kTLS) and HTTP/2\n"
		       "connections, requests and streams reset\n"
		       "(these are present, at 0, without TLS or HTTP/2).\n"
		       "Each thread counts its own, summed when scraped.\n"
		       ".I ADDR\n"
		       "may be empty (every IPv4 address), a host name, or\n"
		       "an IPv6 address in brackets;\n"
		       ".I PORT\n"
		       "0 picks a free one, which the line announcing the\n"
		       "metrics shows.\n",
	},
	{
		.name = "drain-timeout",
		.arg = "SECONDS",
		.set = set_seconds,
		.field = OPTION(drain_ms),
		.what = "drain timeout",
		.help = "on SIGINT or SIGTERM, how long\n"
			"in-flight responses may take to\n"
			"finish (default 5); a second\n"
			"signal stops at once",
		.man = "After\n"
		       ".BR SIGINT \" or \" SIGTERM ,\n"
		       "how long responses in flight may take to finish\n"
		       "(default 5; 0.001 to 86400, fractions allowed).\n"
		       "Idle connections are closed at once, except one not\n"
		       "yet answered, which has a second to send its first\n"
		       "request, and one whose last response the client has\n"
		       "not yet all acknowledged, which half-closes (HTTP/2:\n"
		       "after GOAWAY) and waits while the client goes on\n"
		       "reading.\n",
	},
	{
		.name = "proxy-protocol",
		.set = set_true,
		.field = OPTION(proxy_protocol),
		.help = "every connection starts with a PROXY\n"
			"header (v1 or v2) naming the client; only\n"
			"behind a balancer that sends it",
		.man = "Every connection must start with a PROXY protocol\n"
		       "header (version 1 or 2), as a load balancer such as\n"
		       "HAProxy sends it\n"
		       ".RB ( send\\-proxy\\-v2 );\n"
		       "its source address is the client the access log\n"
		       "shows.\n"
		       "A connection without a valid header,\n"
		       "or whose header does not arrive within the timeout,\n"
		       "is closed without an answer.\n"
		       "Only for a listener that nothing but the balancer\n"
		       "can reach.\n",
	},
	{
		.name = "health",
		.arg = "PATH",
		.set = set_string,
		.field = OPTION(health),
		.check = health_path_check,
		.help = "answer GET/HEAD PATH with 200, or with 503\n"
			"once stopping, for load balancers",
		.man = "Answer GET and HEAD of\n"
		       ".I PATH\n"
		       "(the request's path decoded and normalised,\n"
		       "whatever the query, so written decoded, without\n"
		       "\\(aq//\\(aq or dot segments) with 200 and a tiny body,\n"
		       "for load balancers' health checks;\n"
		       "with 503 once a stop signal has come (see\n"
		       ".BR SIGNALS ).\n",
	},
	{
		.name = "health-grace",
		.arg = "SECONDS",
		.set = set_seconds,
		.field = OPTION(health_grace_ms),
		.what = "health grace",
		.help = "after SIGTERM/SIGINT, fail health checks\n"
			"this long before closing the listener\n"
			"(default 3; with --health only)",
		.man = "With\n"
		       ".BR \\-\\-health :\n"
		       "how long health checks answer 503 after a stop\n"
		       "signal, with everything else still served,\n"
		       "before the listener closes (default 3; 0.001 to\n"
		       "86400, fractions allowed).\n"
		       "It should exceed the balancer's check interval times\n"
		       "the failures it needs to take an instance out.\n",
	},
	{
		.name = "header",
		.arg = "[/PREFIX:]'NAME: VALUE'",
		.set = add_string,
		.field = OPTION(site.headers),
		.count = OPTION(site.nheaders),
		.max = SITE_MAX_HEADERS,
		.check = site_check_header,
		.help = "add a header to every\n"
			"response below 400 (under PREFIX only);\n"
			"repeatable",
		.man_arg = "\" \\fR[\\fP/PREFIX:\\fR]\\fP'NAME: VALUE'\"",
		.man = "Add the header line to every response with a status\n"
		       "below 400 (repeatable, up to 32 lines of at most\n"
		       "1024 bytes, which with\n"
		       ".B \\-\\-cors\n"
		       "add at most 8 KiB to a response); with\n"
		       ".IR /PREFIX: ,\n"
		       "only to request paths (decoded) that start with\n"
		       ".IR /PREFIX .\n"
		       "Names must be tokens; values may hold no CR,\n"
		       "LF or other control character;\n"
		       "headers the server sets itself (Content-Length,\n"
		       "Transfer-Encoding, Connection, Date, Server,\n"
		       "Content-Type, Content-Encoding, Content-Range, ETag,\n"
		       "Last-Modified, Location, Allow) are refused,\n"
		       "and with\n"
		       ".B \\-\\-cors\n"
		       "so are the Access\\-Control\\-Allow\\-Origin,\n"
		       "\\-Allow\\-Methods, \\-Allow\\-Headers and\n"
		       "\\-Max\\-Age headers it sends.\n"
		       ".I /PREFIX\n"
		       "is a string prefix: end it with a slash to mean a\n"
		       "directory.\n"
		       "It is written decoded (a space as it is, not %20),\n"
		       "without '//', '.' or '..' segments, '?' or '#':\n"
		       "a prefix no request's path could start with is\n"
		       "refused.\n",
	},
	{
		.name = "cors",
		.arg = "ORIGIN",
		.set = set_string,
		.field = OPTION(site.cors),
		.check = site_check_cors,
		.help = "allow ORIGIN ('*': any) to read responses\n"
			"cross-origin, and answer preflights",
		.man = "Send\n"
		       ".B Access-Control-Allow-Origin:\n"
		       ".I ORIGIN\n"
		       "(a scheme://host[:port], without a path, query,\n"
		       "fragment or user@; or\n"
		       ".BR * )\n"
		       "on every response, with\n"
		       ".B Vary: Origin\n"
		       "for a named origin, and answer CORS preflight\n"
		       "requests (OPTIONS with\n"
		       ".BR Origin \" and\"\n"
		       ".BR Access\\-Control\\-Request\\-Method )\n"
		       "with the methods allowed, the request headers asked\n"
		       "for, and a max age.\n",
	},
	{
		.name = "auth-file",
		.arg = "[/PREFIX:]FILE",
		.set = add_string,
		.field = OPTION(auth_files),
		.count = OPTION(auth_nfiles),
		.max = AUTH_FILES_MAX,
		.check = auth_check_file_arg,
		.help = "ask for a user and password (HTTP Basic)\n"
			"from FILE (bcrypt, SHA-crypt or yescrypt)\n"
			"for paths under PREFIX (all without);\n"
			"repeatable, the longest PREFIX wins",
		.man_arg = "\" \\fR[\\fP/PREFIX:\\fR]\\fPFILE\"",
		.man = "Answer requests for paths (decoded and normalised)\n"
		       "that start with\n"
		       ".I /PREFIX\n"
		       "(all paths without one) with 401 unless they carry\n"
		       "HTTP Basic credentials (RFC 7617) of a user of\n"
		       ".IR FILE .\n"
		       "Repeatable (up to 16), one file per prefix: the\n"
		       "longest prefix\n"
		       "that matches wins.\n"
		       "A prefix is a string prefix, as\n"
		       ".BR \\-\\-header 's:\n"
		       "end it with a slash to mean a directory (which then\n"
		       "also covers the directory's path without it),\n"
		       "written decoded as there.\n"
		       "Prefixes are paths from ROOT and, on a\n"
		       ".BR \\-\\-vhost ,\n"
		       "from its DIR; a file is guarded by the rule whose\n"
		       "place lies deepest of those covering where it really\n"
		       "lies, as seen from ROOT and from every DIR that holds\n"
		       "it (a rule for all paths counts as the shallowest;\n"
		       "two as deep guard it against everyone).\n"
		       "Reached through a path whose rule is neither that one\n"
		       "nor one within its place (a symlink elsewhere,\n"
		       "another root that holds it, a directory whose index\n"
		       "it is, an\n"
		       ".B \\-\\-spa\n"
		       "or\n"
		       ".B \\-\\-error\\-page\n"
		       "page), it is not there (404, or the built-in page)\n"
		       "and is not listed, so it passes no password by; a\n"
		       "page for the whole site is still shown under the\n"
		       "same root's /admin/ password.\n"
		       "The page for 401 is shown to those without the\n"
		       "password, unless it links to a place another rule\n"
		       "guards.\n"
		       "A\n"
		       ".I FILE\n"
		       "that lies beneath ROOT or a\n"
		       ".BR \\-\\-vhost 's\n"
		       "DIR under a name not starting with '.' could be\n"
		       "downloaded, and is warned of at start.\n"
		       ".I FILE\n"
		       "has lines\n"
		       ".IR user : hash\n"
		       "as\n"
		       ".B htpasswd \\-B\n"
		       "(bcrypt),\n"
		       ".B openssl passwd \\-6\n"
		       "or\n"
		       ".B \\-5\n"
		       "(SHA-crypt) or\n"
		       ".B mkpasswd\n"
		       "(yescrypt) write them; blank lines and lines starting\n"
		       "with # are skipped.\n"
		       "A file with a weaker hash (MD5-crypt, DES, {SHA},\n"
		       "plain text), a malformed line or no users is a usage\n"
		       "error naming the file and line.\n"
		       "Files are read before the switch to\n"
		       ".BR \\-\\-user ;\n"
		       "a\n"
		       ".B SIGHUP\n"
		       "reads them again as that user, and one that fails\n"
		       "then keeps what it had (see SIGNALS).\n"
		       "Passwords are checked by a few threads of their own,\n"
		       "off the event loops, and a user's success is\n"
		       "remembered for a minute.\n"
		       "Protected responses carry\n"
		       ".B \"Cache-Control: private\"\n"
		       "(and no\n"
		       ".B \\-\\-header\n"
		       "Cache-Control line);\n"
		       "OPTIONS requests (CORS preflights) are answered\n"
		       "without credentials.\n",
	},
	{
		.name = "auth-realm",
		.arg = "TEXT",
		.set = set_string,
		.field = OPTION(auth_realm),
		.check = auth_check_realm,
		.help = "the realm a 401 names, which browsers\n"
			"show (default: the host name)",
		.man = "The realm of\n"
		       ".BR \\-\\-auth\\-file 's\n"
		       "401 answers\n"
		       ".RB ( \"WWW\\-Authenticate: Basic realm=\\(dq\\fITEXT\\fB\\(dq, "
		       "charset=\\(dqUTF\\-8\\(dq\" ),\n"
		       "which browsers show when they ask for a password\n"
		       "(default: the host name).\n",
	},
	{
		.name = "index",
		.arg = "NAME",
		.set = add_string,
		.field = OPTION(site.index),
		.count = OPTION(site.nindex),
		.max = SITE_MAX_INDEX,
		.check = site_check_index,
		.help = "a directory's index file; repeatable, the\n"
			"first found wins (default index.html,\n"
			"index.htm)",
		.man = "A directory's index file (repeatable, up to 8;\n"
		       "the first that exists wins; default\n"
		       ".IR index.html \", then \" index.htm ).\n",
	},
	{
		.name = "error-page",
		.arg = "CODE=/PATH",
		.set = add_string,
		.field = OPTION(site.error_pages),
		.count = OPTION(site.nerror_pages),
		.max = SITE_MAX_ERROR_PAGES,
		.check = site_check_error_page,
		.help = "answer status CODE (4xx, 5xx) with\n"
			"the file PATH beneath ROOT; repeatable",
		.man = "Answer status\n"
		       ".I CODE\n"
		       "(4xx or 5xx) with the file\n"
		       ".I PATH\n"
		       "beneath ROOT instead of the built-in page\n"
		       "(repeatable, up to 16), whatever gave that status: a\n"
		       "precondition or range (412, 416, their headers\n"
		       "kept), a head refused before it was routed (400,\n"
		       "414, 431, 501, 505: ROOT's page), a shortage (503);\n"
		       "but not 408 (see\n"
		       ".BR \\-\\-timeout ),\n"
		       "which is a head alone.\n"
		       "A page that does not exist at start-up,\n"
		       "or is larger than 1 MiB, is a usage error.\n",
	},
	{
		.name = "spa",
		.arg = "/PATH",
		.set = set_string,
		.field = OPTION(site.spa),
		.check = site_check_page_path,
		.help = "answer GET/HEAD of a missing path without\n"
			"a file extension with PATH, status 200",
		.man = "Answer a GET or HEAD of a missing path whose last\n"
		       "segment has no file extension with the file\n"
		       ".I PATH\n"
		       "and status 200, for single-page applications,\n"
		       "as a request for it by name gets it (compressed,\n"
		       "cached, the same ETag).\n"
		       "A page that does not exist at start-up is a usage\n"
		       "error.\n",
	},
	{
		.name = "dotfiles",
		.set = set_true,
		.field = OPTION(site.dotfiles),
		.help = "serve and list names starting with '.'\n"
			"(default: 404 and hidden, but\n"
			"/.well-known/ is served)",
		.man = "Serve and list names starting with a dot.\n"
		       "By default a path with such a segment is answered\n"
		       "404 and such names are not listed, except\n"
		       ".IR /.well\\-known/ .\n"
		       "A symlink inside ROOT that leads to such a name\n"
		       "(a file, a directory, or a precompressed sibling) is\n"
		       "answered and listed as that name is.\n",
	},
	{
		.name = "follow-symlinks",
		.set = set_true,
		.field = OPTION(follow_symlinks),
		.help = "follow symlinks that lead out of ROOT\n"
			"(default: 403)",
		.man = "Follow symlinks that lead out of ROOT\n"
		       "(by default they are answered 403).\n"
		       "Anyone who can create a symlink under ROOT can then\n"
		       "publish any file the server's user may read.\n",
	},
	{
		.name = "vhost",
		.arg = "NAME=DIR",
		.set = add_string,
		.field = OPTION(vhosts),
		.count = OPTION(nvhosts),
		.max = VHOSTS_MAX,
		.check = vhost_arg_check,
		.help = "serve requests for host NAME ('*.NAME':\n"
			"its subdomains) from DIR; repeatable",
		.man_arg = "\" NAME\" = DIR",
		.man = "Serve requests whose host is\n"
		       ".I NAME\n"
		       "from the directory\n"
		       ".I DIR\n"
		       "instead of ROOT (repeatable, up to 64).\n"
		       "The host is the request's Host (over HTTP/2,\n"
		       ":authority; an absolute URI's host first) without\n"
		       "its port, compared case-insensitively and without a\n"
		       "trailing dot;\n"
		       ".BI *. NAME\n"
		       "stands for one or more labels before\n"
		       ".I NAME\n"
		       "(not\n"
		       ".I NAME\n"
		       "itself).\n"
		       "An exact name wins over a wildcard, and a longer\n"
		       "wildcard over a shorter one.\n"
		       "Other hosts, IP addresses among them, get ROOT.\n"
		       "Each\n"
		       ".I DIR\n"
		       "is confined as ROOT is, has its own cache entries,\n"
		       "and follows the same rules: listings, dotfiles,\n"
		       "index names, symlinks, and the\n"
		       ".B \\-\\-error\\-page\n"
		       "and\n"
		       ".B \\-\\-spa\n"
		       "pages, which must exist beneath it too.\n"
		       "A\n"
		       ".I DIR\n"
		       "that is not a readable directory, or a name given\n"
		       "twice, is a usage error.\n",
	},
	{
		.name = "mime",
		.arg = "EXT=TYPE",
		.set = add_string,
		.field = OPTION(mime),
		.count = OPTION(mime_count),
		.max = OPTIONS_MIME_MAX,
		.what = "MIME mapping (EXT=TYPE)",
		.valid = mime_map_arg_valid,
		.help = "send files ending in .EXT as TYPE\n"
			"(repeatable; over mime.types and the\n"
			"built-in table; text types without a\n"
			"charset get charset=utf-8)",
		.man_arg = "\" EXT\" = TYPE",
		.man = "Send files whose name ends in\n"
		       ".RI . EXT\n"
		       "(case-insensitively; a leading dot in\n"
		       ".I EXT\n"
		       "is allowed) as\n"
		       ".IR TYPE ,\n"
		       "over the\n"
		       ".I mime.types\n"
		       "file and the built-in table.\n"
		       "Repeatable (up to 64), the last one for an extension\n"
		       "winning.\n"
		       "A text type without parameters gets\n"
		       ".BR \"; charset=utf\\-8\" ;\n"
		       "one with parameters is sent as given, so\n"
		       ".B \"\\-\\-mime html=\\(aqtext/html; charset=iso\\-8859\\-1\\(aq\"\n"
		       "names another charset.\n",
	},
	{
		.name = "default-type",
		.arg = "TYPE",
		.set = set_string,
		.field = OPTION(default_type),
		.what = "media type",
		.valid = mime_map_type_valid,
		.help = "for files of no known type (default\n"
			"application/octet-stream)",
		.man = "The type of files that no rule names (default\n"
		       ".BR application/octet\\-stream ).\n",
	},
	{
		.name = "mime-types",
		.arg = "FILE",
		.set = set_file_or_none,
		.field = OPTION(mime_types),
		.help = "extensions and types to read (default\n"
			"/etc/mime.types when present; '': none)",
		.man = "The extensions and types to read (format of\n"
		       ".IR /etc/mime.types :\n"
		       "a type, then its extensions; default\n"
		       ".I /etc/mime.types\n"
		       "when it exists, which Debian's\n"
		       ".B media\\-types\n"
		       "package provides); an empty\n"
		       ".I FILE\n"
		       "reads none.\n"
		       "A\n"
		       ".I FILE\n"
		       "given that cannot be read is a usage error.\n",
	},
	{
		.name = "tls-cert",
		.arg = "FILE",
		.set = add_string,
		.field = OPTION(tls_certs),
		.count = OPTION(tls_ncerts),
		.max = TLS_PAIRS_MAX,
		.what = "certificate file",
		.valid = not_empty,
		.help = "serve HTTPS with the PEM certificate\n"
			"(and chain) in FILE; with --tls-key,\n"
			"repeatable: SNI picks a pair, else the\n"
			"first",
		.man = "Serve HTTPS (TLS 1.2 and 1.3) on the port, with the\n"
		       "PEM certificate in\n"
		       ".I FILE\n"
		       "(followed by its chain, if any).\n"
		       "Given with\n"
		       ".B \\-\\-tls\\-key\n"
		       "in pairs, the n-th key belonging to the n-th\n"
		       "certificate; repeatable (up to 16 pairs): a client's\n"
		       "SNI picks the first pair whose certificate names the\n"
		       "host, and the first pair answers the others.\n"
		       "The files are read before the switch to\n"
		       ".BR \\-\\-user ;\n"
		       "a\n"
		       ".B SIGHUP\n"
		       "reads them again as that user (see SIGNALS).\n",
	},
	{
		.name = "tls-key",
		.arg = "FILE",
		.set = add_string,
		.field = OPTION(tls_keys),
		.count = OPTION(tls_nkeys),
		.max = TLS_PAIRS_MAX,
		.what = "key file",
		.valid = not_empty,
		.help = "the PEM private key of the --tls-cert\n"
			"given in the same position",
		.man = "The PEM private key of the\n"
		       ".B \\-\\-tls\\-cert\n"
		       "in the same position.\n",
	},
	{
		.name = "http-redirect",
		.arg = "PORT",
		.set = set_number,
		NUMBER(http_redirect),
		.min = 1,
		.max = 65535,
		.what = "redirect port",
		.help = "also listen for cleartext HTTP on\n"
			"PORT and answer 308 to https://",
		.man = "Also listen for cleartext HTTP on\n"
		       ".I PORT\n"
		       "(at every TCP address of\n"
		       ".BR \\-\\-bind ,\n"
		       "or the first passed socket's) and answer requests\n"
		       "with 308 to\n"
		       ".BI https:// HOST\n"
		       "(the request's Host, with the first TCP address's\n"
		       "port unless it is 443) and the same path and query;\n"
		       "one naming no\n"
		       "host (HTTP/1.0 without Host, OPTIONS *) gets 400.\n"
		       "Needs\n"
		       ".BR \\-\\-tls\\-cert .\n",
	},
	{
		.name = "help",
		.letter = 'h',
		.set = show_help,
		.help = "show this help and exit",
		.man = "Show the options and exit.\n",
	},
	{
		.name = "version",
		.letter = 'V',
		.set = show_version,
		.help = "show the version and exit",
		.man = "Show the version and exit.\n",
	},

};

#define NOPTIONS (sizeof(option_table) / sizeof(option_table[0]))

static void usage_entry(FILE *out, const struct option_spec *spec)
{
	char form[64];
	const char *text = spec->help, *nl;

	snprintf(form, sizeof(form), "%c%c%c --%s%s%s",
		 spec->letter ? '-' : ' ', spec->letter ? spec->letter : ' ',
		 spec->letter ? ',' : ' ', spec->name, spec->arg ? " " : "",
		 spec->arg ? spec->arg : "");
	/* Indented by two; the text at its column, or two spaces after a
	 * longer form. */
	fprintf(out, "  %-*s  ", HELP_TEXT_COLUMN - 4, form);
	while ((nl = strchr(text, '\n'))) {
		fprintf(out, "%.*s\n%*s", (int)(nl - text), text,
			HELP_TEXT_COLUMN, "");
		text = nl + 1;
	}
	fprintf(out, "%s\n", text);
}

static void usage(FILE *out)
{
	fputs("Usage: sehttpd [OPTIONS] [ROOT]\n"
	      "Serve the directory ROOT (default ./www) over HTTP/1.0, HTTP/1.1\n"
	      "and HTTP/2, in the clear or over HTTPS (--tls-cert).\n"
	      "\n",
	      out);
	for (size_t i = 0; i < NOPTIONS; i++)
		usage_entry(out, &option_table[i]);
}

/* Every '-' as troff's minus, \-, which a hyphen would otherwise be. */
static void put_troff(FILE *out, const char *s)
{
	for (; *s; s++) {
		if (*s == '-')
			fputc('\\', out);
		fputc(*s, out);
	}
}

/* The .TP tag: the option's forms in bold, its value in italics. */
static void write_man_tag(FILE *out, const struct option_spec *spec)
{
	if (spec->letter)
		fprintf(out, ".BR \\-%c \", \" \\-\\-", spec->letter);
	else
		fputs(spec->arg ? ".BI \\-\\-" : ".B \\-\\-", out);
	put_troff(out, spec->name);
	if (spec->man_arg) {
		fprintf(out, " %s", spec->man_arg);
	} else if (spec->arg) {
		fputs(spec->letter ? " \" \\fI" : " \" ", out);
		put_troff(out, spec->arg);
		fputs(spec->letter ? "\\fR\"" : "\"", out);
	}
	fputc('\n', out);
}

void options_write_man(FILE *out)
{
	for (size_t i = 0; i < NOPTIONS; i++) {
		fputs(".TP\n", out);
		write_man_tag(out, &option_table[i]);
		fputs(option_table[i].man, out);
	}
}

static void set_defaults(struct options *opt)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);

	*opt = (struct options){
		.root = "./www",
		.port = 8080,
		.threads = cpus > 0 ? (unsigned)cpus : 1,
		.timeout_ms = 15000,
		.min_rate = HTTP_MIN_RATE_DEFAULT,
		.drain_ms = 5000,
		.site.listing = true,
		.compress = true,
		.cache_mib = 64,
		.user = PRIVILEGES_DEFAULT_USER,
		.health_grace_ms = 3000,
		.mime_types = MIME_TYPES_DEFAULT,
	};
}

/* getopt_long's code for an entry: its letter, else one beyond any byte. */
static int option_code(size_t i)
{
	return option_table[i].letter ? option_table[i].letter : 256 + (int)i;
}

/* getopt_long's arrays, from the table. */
static void getopt_arrays(struct option *longopts, char *shortopts)
{
	*shortopts++ = ':'; /* a missing value is ':', apart from '?' */
	for (size_t i = 0; i < NOPTIONS; i++) {
		const struct option_spec *spec = &option_table[i];

		longopts[i] = (struct option){
			.name = spec->name,
			.has_arg = spec->arg ? required_argument : no_argument,
			.val = option_code(i),
		};
		if (spec->letter) {
			*shortopts++ = spec->letter;
			if (spec->arg)
				*shortopts++ = ':';
		}
	}
	longopts[NOPTIONS] = (struct option){ 0 };
	*shortopts = '\0';
}

static const struct option_spec *spec_for_code(int code)
{
	for (size_t i = 0; i < NOPTIONS; i++) {
		if (option_code(i) == code)
			return &option_table[i];
	}
	return NULL;
}

/* getopt_long's ':' (a value missing) or '?' (an unknown option). */
static enum options_result bad_option(int code, const char *arg)
{
	fputs(code == ':' ? "sehttpd: option '" : "sehttpd: unknown option '",
	      stderr);
	put_escaped(arg);
	fputs(code == ':' ? "' needs a value\n" : "' (try --help)\n", stderr);
	return OPTIONS_EXIT_USAGE;
}

/* Certificates and keys come in pairs; the redirect needs HTTPS. */
static int tls_check(struct options *opt)
{
	if (opt->tls_ncerts != opt->tls_nkeys) {
		fprintf(stderr,
			"sehttpd: %u --tls-cert but %u --tls-key: each "
			"certificate needs its key\n",
			opt->tls_ncerts, opt->tls_nkeys);
		return -1;
	}
	opt->tls_npairs = opt->tls_ncerts;
	for (unsigned int i = 0; i < opt->tls_npairs; i++)
		opt->tls_pairs[i] = (struct tls_pair){ opt->tls_certs[i],
						       opt->tls_keys[i] };
	if (opt->http_redirect && !opt->tls_npairs) {
		fputs("sehttpd: --http-redirect needs --tls-cert and "
		      "--tls-key\n",
		      stderr);
		return -1;
	}
	if (opt->tls_npairs && opt->proxy_protocol) {
		fputs("sehttpd: --proxy-protocol with TLS is not supported "
		      "yet\n",
		      stderr);
		return -1;
	}
	return 0;
}

/* What is checked once every option is in; then ROOT. */
static enum options_result finish(struct options *opt, int argc, char **argv)
{
	if (tls_check(opt))
		return OPTIONS_EXIT_USAGE;
	if (opt->log_json && !opt->access_log) {
		fputs("sehttpd: --log-format json needs --access-log\n",
		      stderr);
		return OPTIONS_EXIT_USAGE;
	}
	/* Either order: --cors may follow the --header it conflicts with. */
	for (unsigned int i = 0; opt->site.cors && i < opt->site.nheaders;
	     i++) {
		if (bad_site("header", opt->site.headers[i],
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

enum options_result options_parse(struct options *opt, int argc, char **argv)
{
	struct option longopts[NOPTIONS + 1];
	char shortopts[2 * NOPTIONS + 2];
	enum options_result result = OPTIONS_RUN;
	int code;

	set_defaults(opt);
	getopt_arrays(longopts, shortopts);
	opterr = 0;
	while (result == OPTIONS_RUN &&
	       (code = getopt_long(argc, argv, shortopts, longopts, NULL)) !=
		       -1) {
		const struct option_spec *spec = spec_for_code(code);

		result = spec ? spec->set(opt, spec, optarg) :
				bad_option(code, argv[optind - 1]);
	}
	return result == OPTIONS_RUN ? finish(opt, argc, argv) : result;
}
