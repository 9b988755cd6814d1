// SPDX-License-Identifier: MIT
/*
 * sehttpd's command line: defaults, each option's value and range, and a
 * clear one-line error for every bad flag or value.
 */
#include <getopt.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

#include "harness.h"
#include "sehttpd/options.h"

/* The result of one parse and what it printed to stderr. */
struct parsed {
	enum options_result result;
	struct options opt;
	char out[8192], err[512];
};

/* Points fd at a new temporary file; returns the saved original. */
static int capture(int fd, FILE **tmp)
{
	int saved = dup(fd);

	*tmp = tmpfile();
	dup2(fileno(*tmp), fd);
	return saved;
}

/* Puts fd back and reads what was written to it into buf. */
static void release(int fd, int saved, FILE *tmp, char *buf, size_t size)
{
	size_t n;

	dup2(saved, fd);
	close(saved);
	rewind(tmp);
	n = fread(buf, 1, size - 1, tmp);
	buf[n] = '\0';
	fclose(tmp);
}

/* Parses a NULL-terminated argument list (after "sehttpd"), capturing what
 * goes to stdout and stderr. */
static struct parsed parse(const char *first, ...)
{
	struct parsed p = { .err = "" };
	char *argv[32] = { "sehttpd" };
	int argc = 1, saved_out, saved_err;
	FILE *out, *err;
	va_list ap;

	va_start(ap, first);
	for (const char *a = first; a && argc < 31;
	     a = va_arg(ap, const char *))
		argv[argc++] = (char *)a;
	va_end(ap);
	argv[argc] = NULL;

	fflush(stdout);
	fflush(stderr);
	saved_out = capture(STDOUT_FILENO, &out);
	saved_err = capture(STDERR_FILENO, &err);
	optind = 0; /* getopt starts afresh, as for a new process */
	p.result = options_parse(&p.opt, argc, argv);
	fflush(stdout);
	fflush(stderr);
	release(STDOUT_FILENO, saved_out, out, p.out, sizeof(p.out));
	release(STDERR_FILENO, saved_err, err, p.err, sizeof(p.err));
	return p;
}

/* A usage error: one line on stderr, naming the program and mentioning
 * every word of what. */
static void check_usage_error(const struct parsed *p, const char *what)
{
	CHECK_EQ_INT(p->result, OPTIONS_EXIT_USAGE);
	CHECK(!strncmp(p->err, "sehttpd: ", 9));
	CHECK(strchr(p->err, '\n') == p->err + strlen(p->err) - 1);
	if (!strstr(p->err, what))
		fprintf(stderr, "  expected \"%s\" in \"%s\"\n", what, p->err);
	CHECK(strstr(p->err, what) != NULL);
}

TEST(defaults)
{
	struct parsed p = parse(NULL);

	CHECK_EQ_INT(p.result, OPTIONS_RUN);
	CHECK_EQ_STR(p.opt.root, "./www");
	CHECK_EQ_INT(p.opt.nbinds, 0);
	CHECK_EQ_INT(p.opt.port, 8080);
	CHECK(p.opt.threads >= 1);
	CHECK_EQ_INT(p.opt.timeout_ms, 15000);
	CHECK(p.opt.site.listing);
	CHECK(p.opt.compress);
	CHECK_EQ_INT(p.opt.cache_mib, 64);
	CHECK(p.opt.access_log == NULL);
	CHECK_EQ_STR(p.err, "");
}

TEST(every_option)
{
	struct parsed p = parse("-p", "0", "-b", "::1", "-t", "3", "--timeout",
				"0.25", "--no-listing", "--no-compress",
				"--cache-size", "0", "--access-log", "-",
				"/srv/www", NULL);

	CHECK_EQ_INT(p.result, OPTIONS_RUN);
	CHECK_EQ_INT(p.opt.port, 0);
	CHECK_EQ_INT(p.opt.nbinds, 1);
	CHECK_EQ_STR(p.opt.binds[0], "::1");
	CHECK_EQ_INT(p.opt.threads, 3);
	CHECK_EQ_INT(p.opt.timeout_ms, 250);
	CHECK(!p.opt.site.listing);
	CHECK(!p.opt.compress);
	CHECK_EQ_INT(p.opt.cache_mib, 0);
	CHECK_EQ_STR(p.opt.access_log, "-");
	CHECK_EQ_STR(p.opt.root, "/srv/www");
	p = parse("--port=65535", "--threads=1024", "--cache-size=1048576",
		  "--timeout=86400", NULL);
	CHECK_EQ_INT(p.result, OPTIONS_RUN);
	CHECK_EQ_INT(p.opt.port, 65535);
	CHECK_EQ_INT(p.opt.threads, 1024);
	CHECK_EQ_INT(p.opt.cache_mib, 1048576);
	CHECK_EQ_INT(p.opt.timeout_ms, 86400000);
}

/* Each number lands in its member, whatever that member's size, and
 * leaves the members beside it as they were. */
TEST(numbers_fill_their_members)
{
	struct parsed p = parse("--http-redirect", "65535", "--min-rate",
				"1073741824", "-p", "1", "--tls-cert", "c.pem",
				"--tls-key", "k.pem", "--max-connections",
				"4194304", NULL);

	CHECK_EQ_INT(p.result, OPTIONS_RUN);
	CHECK_EQ_INT(p.opt.http_redirect, 65535);
	CHECK_EQ_INT(p.opt.max_connections, 1u << 22);
	CHECK_EQ_INT(p.opt.threads, parse(NULL).opt.threads);
	CHECK_EQ_INT(p.opt.min_rate, 1u << 30);
	CHECK_EQ_INT(p.opt.port, 1);
	CHECK_EQ_INT(p.opt.cache_mib, 64);
	CHECK_EQ_INT(p.opt.timeout_ms, 15000);
}

TEST(help_and_version_exit)
{
	struct parsed p;

	p = parse("--help", NULL);
	CHECK_EQ_INT(p.result, OPTIONS_EXIT_OK);
	CHECK(!strncmp(p.out, "Usage: sehttpd", 14));
	CHECK_EQ_STR(p.err, "");
	CHECK_EQ_INT(parse("-h", NULL).result, OPTIONS_EXIT_OK);
	p = parse("--version", NULL);
	CHECK_EQ_INT(p.result, OPTIONS_EXIT_OK);
	CHECK(!strncmp(p.out, "sehttpd ", 8));
	CHECK_EQ_INT(parse("-V", NULL).result, OPTIONS_EXIT_OK);
}

/* The options the table has beyond every_option's, and getopt's forms. */
TEST(table_options)
{
	struct parsed p;

	p = parse("-p0", "-t2", "-bfe80::1", "--thr=5", "--user", "www",
		  "--metrics", ":9100", "--drain-timeout", "1.5", NULL);
	CHECK_EQ_INT(p.result, OPTIONS_RUN);
	CHECK_EQ_INT(p.opt.port, 0);
	CHECK_EQ_INT(p.opt.threads, 5);
	CHECK_EQ_STR(p.opt.binds[0], "fe80::1");
	CHECK_EQ_STR(p.opt.user, "www");
	CHECK(p.opt.user_given);
	CHECK_EQ_STR(p.opt.metrics, ":9100");
	CHECK_EQ_INT(p.opt.drain_ms, 1500);
	CHECK(!parse(NULL).opt.user_given);
	/* --he: --header, --health, --health-grace or --help. */
	p = parse("--he", NULL);
	check_usage_error(&p, "unknown option '--he'");
	p = parse("--user", "", NULL);
	check_usage_error(&p, "invalid user ''");
	p = parse("-hx", NULL);
	CHECK_EQ_INT(p.result, OPTIONS_EXIT_OK);
}

/* Each line of --help fits a terminal; each option's text at column 25. */
TEST(help_layout)
{
	struct parsed p = parse("--help", NULL);
	unsigned int options = 0;

	for (char *line = p.out, *end; *line; line = end + 1) {
		end = strchr(line, '\n');
		CHECK(end != NULL);
		if (!end)
			break;
		CHECK(end - line < 80);
		if (!strncmp(line, "  -", 3) || !strncmp(line, "      --", 8))
			options++;
		if (!strncmp(line, "      --port", 12) ||
		    !strncmp(line, "  -p, --port PORT ", 18))
			CHECK(!strncmp(line + 17, "        port to", 15));
	}
	CHECK_EQ_INT(options, 36);
	CHECK(strstr(p.out, "  -V, --version          show the version and "
			    "exit\n") != NULL);
	CHECK(strstr(p.out,
		     "      --metrics ADDR:PORT  serve Prometheus "
		     "metrics at\n                         http://") != NULL);
}

/* sehttpd(1)'s entries: one per option of --help, in its order. */
TEST(man_entries)
{
	static const char port[] =
		".TP\n.BR \\-p \", \" \\-\\-port \" \\fIPORT\\fR\"\n";
	FILE *f = tmpfile();
	static char man[32768];
	size_t n;
	unsigned int entries = 0;
	const char *s;

	options_write_man(f);
	rewind(f);
	n = fread(man, 1, sizeof(man) - 1, f);
	man[n] = '\0';
	fclose(f);
	CHECK(n < sizeof(man) - 1);
	for (s = man; (s = strstr(s, ".TP\n")); s++)
		entries++;
	CHECK_EQ_INT(entries, 36);
	CHECK(!strncmp(man, port, strlen(port)));
	CHECK(strstr(man, ".TP\n.BI \\-\\-timeout \" SECONDS\"\n") != NULL);
	CHECK(strstr(man, ".TP\n.B \\-\\-no\\-listing\n") != NULL);
	CHECK(strstr(man, ".TP\n.BR \\-V \", \" \\-\\-version\n") != NULL);
	CHECK(man[n - 1] == '\n');
}

TEST(bad_values_named)
{
	struct parsed p;

	p = parse("-p", "65536", NULL);
	check_usage_error(&p, "invalid port '65536'");
	p = parse("--port", "-1", NULL);
	check_usage_error(&p, "invalid port '-1'");
	p = parse("-p", "80x", NULL);
	check_usage_error(&p, "invalid port '80x'");
	p = parse("-p", "", NULL);
	check_usage_error(&p, "invalid port ''");
	p = parse("-t", "0", NULL);
	check_usage_error(&p, "invalid thread count '0'");
	p = parse("-t", "1025", NULL);
	check_usage_error(&p, "invalid thread count '1025'");
	p = parse("--timeout", "0", NULL);
	check_usage_error(&p, "invalid timeout '0'");
	p = parse("--timeout", "nan", NULL);
	check_usage_error(&p, "invalid timeout 'nan'");
	p = parse("--timeout", "1e9", NULL);
	check_usage_error(&p, "invalid timeout '1e9'");
	p = parse("--cache-size", "-0x10", NULL);
	check_usage_error(&p, "invalid cache size '-0x10'");
	p = parse("--cache-size", "1048577", NULL);
	check_usage_error(&p, "invalid cache size '1048577'");
	p = parse("--cache-size", "99999999999999999999999", NULL);
	check_usage_error(&p, "invalid cache size");
	/* Every one of them points to --help. */
	check_usage_error(&p, "(try --help)");
}

TEST(bad_flags_named)
{
	struct parsed p;

	p = parse("--nope", NULL);
	check_usage_error(&p, "unknown option '--nope'");
	p = parse("-x", NULL);
	check_usage_error(&p, "unknown option '-x'");
	p = parse("--no-listing=yes", NULL);
	check_usage_error(&p, "--no-listing=yes");
	p = parse("-p", NULL);
	check_usage_error(&p, "option '-p' needs a value");
	p = parse("www", "--timeout", NULL);
	check_usage_error(&p, "option '--timeout' needs a value");
	p = parse("a", "b", NULL);
	check_usage_error(&p, "unexpected argument 'b'");
}

TEST(long_values_quoted_in_part)
{
	static char arg[20001];
	char want[128];
	struct parsed p;

	memcpy(arg, "X-Long: ", 8);
	memset(arg + 8, 'v', sizeof(arg) - 9);
	p = parse("--header", arg, NULL);
	snprintf(want, sizeof(want), "'%.64s...': longer than", arg);
	check_usage_error(&p, want);
	CHECK(strlen(p.err) < 160);
	/* Cut before a character, not inside one. */
	memset(arg, 'a', 63);
	memcpy(arg + 63, "\xc3\xa9/b", 5);
	p = parse("--index", arg, NULL);
	snprintf(want, sizeof(want), "'%.63s...'", arg);
	check_usage_error(&p, want);
	p = parse("--nope", arg, NULL);
	check_usage_error(&p, "unknown option '--nope'");
	p = parse("-p", arg, NULL);
	check_usage_error(&p, want);
	/* Up to the limit, whole. */
	arg[64] = '\0';
	memset(arg, 'x', 64);
	p = parse("--timeout", arg, NULL);
	snprintf(want, sizeof(want), "'%.64s' (try --help)", arg);
	check_usage_error(&p, want);
}

TEST(balancer_options)
{
	struct parsed p = parse(NULL);

	CHECK(!p.opt.proxy_protocol);
	CHECK(p.opt.health == NULL);
	CHECK_EQ_INT(p.opt.health_grace_ms, 3000);
	p = parse("--proxy-protocol", "--health", "/healthz", "--health-grace",
		  "0.5", NULL);
	CHECK_EQ_INT(p.result, OPTIONS_RUN);
	CHECK(p.opt.proxy_protocol);
	CHECK_EQ_STR(p.opt.health, "/healthz");
	CHECK_EQ_INT(p.opt.health_grace_ms, 500);
	p = parse("--health", "healthz", NULL);
	check_usage_error(&p,
			  "invalid --health 'healthz': a path as requests'");
	/* No request's decoded, normalised path is any of these. */
	p = parse("--health", "/h?x", NULL);
	check_usage_error(&p, "invalid --health '/h?x'");
	p = parse("--health", "/a/../h", NULL);
	check_usage_error(&p, "invalid --health '/a/../h'");
	p = parse("--health", "//h", NULL);
	check_usage_error(&p, "invalid --health '//h'");
	p = parse("--health", "/h%2Fx", NULL);
	check_usage_error(&p, "invalid --health '/h%2Fx'");
	p = parse("--health", "/a\tb", NULL);
	check_usage_error(&p, "invalid --health '/a\\x09b'");
	p = parse("--health-grace", "-1", NULL);
	check_usage_error(&p, "invalid health grace '-1'");
	p = parse("--proxy-protocol=yes", NULL);
	check_usage_error(&p, "--proxy-protocol=yes");
	p = parse("--help", NULL);
	CHECK(strstr(p.out, "--proxy-protocol") && strstr(p.out, "--health "));
}

TEST(site_options)
{
	struct parsed p = parse(NULL);

	CHECK_EQ_INT(p.opt.site.nheaders, 0);
	CHECK(p.opt.site.cors == NULL);
	CHECK_EQ_INT(p.opt.site.nindex, 0);
	CHECK_EQ_INT(p.opt.site.nerror_pages, 0);
	CHECK(p.opt.site.spa == NULL);
	CHECK(!p.opt.site.dotfiles);
	CHECK(!p.opt.follow_symlinks);
	p = parse("--header", "X-A: 1", "--header",
		  "/s/:Cache-Control: no-cache", "--cors", "*", "--index",
		  "home.html", "--index", "index.html", "--error-page",
		  "404=/e/404.html", "--error-page", "503=/e/503.html", "--spa",
		  "/app.html", "--dotfiles", "--follow-symlinks", NULL);
	CHECK_EQ_INT(p.result, OPTIONS_RUN);
	CHECK_EQ_INT(p.opt.site.nheaders, 2);
	CHECK_EQ_STR(p.opt.site.headers[1], "/s/:Cache-Control: no-cache");
	CHECK_EQ_STR(p.opt.site.cors, "*");
	CHECK_EQ_INT(p.opt.site.nindex, 2);
	CHECK_EQ_STR(p.opt.site.index[0], "home.html");
	CHECK_EQ_INT(p.opt.site.nerror_pages, 2);
	CHECK_EQ_STR(p.opt.site.error_pages[1], "503=/e/503.html");
	CHECK_EQ_STR(p.opt.site.spa, "/app.html");
	CHECK(p.opt.site.dotfiles);
	CHECK(p.opt.follow_symlinks);
	p = parse("--help", NULL);
	CHECK(strstr(p.out, "--header") && strstr(p.out, "--cors") &&
	      strstr(p.out, "--index") && strstr(p.out, "--error-page") &&
	      strstr(p.out, "--spa") && strstr(p.out, "--dotfiles") &&
	      strstr(p.out, "--follow-symlinks"));
}

TEST(site_values_named)
{
	struct parsed p;

	p = parse("--header", "X A: 1", NULL);
	check_usage_error(&p, "invalid --header 'X A: 1': a header name");
	p = parse("--header", "X: a\r\nY: b", NULL);
	check_usage_error(&p, "'X: a\\x0d\\x0aY: b'");
	p = parse("--header", "Connection: close", NULL);
	check_usage_error(&p, "sets Connection itself");
	p = parse("--cors", "https://a.example/", NULL);
	check_usage_error(&p, "invalid --cors 'https://a.example/'");
	/* Headers --cors sends, in either order; other Access-Control-*
	 * are the operator's, and all of them without --cors. */
	p = parse("--header", "access-control-allow-origin: *", "--cors",
		  "https://a.example", NULL);
	check_usage_error(&p, "invalid --header 'access-control-allow-origin: "
			      "*': --cors sets Access-Control-Allow-Origin");
	p = parse("--cors", "*", "--header", "/api/:Access-Control-Max-Age: 60",
		  NULL);
	check_usage_error(&p, "--cors sets Access-Control-Max-Age itself");
	p = parse("--cors", "*", "--header", "Access-Control-Allow-Methods: *",
		  NULL);
	check_usage_error(&p, "--cors sets Access-Control-Allow-Methods");
	p = parse("--cors", "*", "--header", "Access-Control-Allow-Headers: *",
		  NULL);
	check_usage_error(&p, "--cors sets Access-Control-Allow-Headers");
	p = parse("--cors", "*", "--header",
		  "Access-Control-Expose-Headers: X-Id", NULL);
	CHECK_EQ_INT(p.result, OPTIONS_RUN);
	p = parse("--header", "/fonts/:Access-Control-Allow-Origin: *", NULL);
	CHECK_EQ_INT(p.result, OPTIONS_RUN);
	p = parse("--index", "a/b", NULL);
	check_usage_error(&p, "invalid --index 'a/b'");
	p = parse("--error-page", "302=/x.html", NULL);
	check_usage_error(&p, "invalid --error-page '302=/x.html'");
	p = parse("--error-page", "404=x.html", NULL);
	check_usage_error(&p, "invalid --error-page '404=x.html'");
	p = parse("--spa", "/a/../b", NULL);
	check_usage_error(&p, "invalid --spa '/a/../b'");
	p = parse("--index", "1", "--index", "2", "--index", "3", "--index",
		  "4", "--index", "5", "--index", "6", "--index", "7",
		  "--index", "8", "--index", "9", NULL);
	check_usage_error(&p, "at most 8 --index options");
}

TEST(mime_options)
{
	struct parsed p = parse(NULL);

	CHECK_EQ_INT(p.opt.mime_count, 0);
	CHECK(p.opt.default_type == NULL);
	CHECK_EQ_STR(p.opt.mime_types, "/etc/mime.types");
	p = parse("--mime", "py=text/x-python", "--mime", ".MD=text/plain",
		  "--default-type", "text/plain; charset=iso-8859-1",
		  "--mime-types", "/srv/mime.types", NULL);
	CHECK_EQ_INT(p.result, OPTIONS_RUN);
	CHECK_EQ_INT(p.opt.mime_count, 2);
	CHECK_EQ_STR(p.opt.mime[0], "py=text/x-python");
	CHECK_EQ_STR(p.opt.mime[1], ".MD=text/plain");
	CHECK_EQ_STR(p.opt.default_type, "text/plain; charset=iso-8859-1");
	CHECK_EQ_STR(p.opt.mime_types, "/srv/mime.types");
	p = parse("--mime-types", "", NULL);
	CHECK_EQ_INT(p.result, OPTIONS_RUN);
	CHECK(p.opt.mime_types == NULL);
}

TEST(bad_mime_options_named)
{
	static const char *const bad_maps[] = {
		"py",
		"=text/plain",
		"py=",
		"py=text",
		"a/b=text/plain",
		"a.b=text/plain",
		"py=text/plain\r\nX-Evil: 1",
		".=text/plain",
		"p y=text/plain",
		"1234567890123456=text/plain",
		"py=text/plain; charset",
	};
	struct parsed p;

	for (size_t i = 0; i < sizeof(bad_maps) / sizeof(bad_maps[0]); i++) {
		char what[128];

		p = parse("--mime", bad_maps[i], NULL);
		snprintf(what, sizeof(what),
			 "invalid MIME mapping (EXT=TYPE) '%s'", bad_maps[i]);
		if (!strchr(bad_maps[i], '\n'))
			check_usage_error(&p, what);
		else
			CHECK_EQ_INT(p.result, OPTIONS_EXIT_USAGE);
	}
	p = parse("--default-type", "plain", NULL);
	check_usage_error(&p, "invalid media type 'plain'");
	p = parse("--default-type", "", NULL);
	check_usage_error(&p, "invalid media type ''");
	/* Control bytes are shown escaped: the message stays one line. */
	p = parse("--default-type", "text/plain\r\n", NULL);
	check_usage_error(&p, "'text/plain\\x0d\\x0a'");
	p = parse("--mime", "py=text/plain\r\nX-Evil: 1", NULL);
	check_usage_error(&p, "'py=text/plain\\x0d\\x0aX-Evil: 1'");
	p = parse("--mime", NULL);
	check_usage_error(&p, "option '--mime' needs a value");
}

TEST(vhost_options)
{
	static const char *const bad[][2] = {
		{ "a.test", "expected NAME=DIR" },
		{ "=/srv/a", "NAME is a host name" },
		{ "*=/srv/a", "NAME is a host name" },
		{ "*.=/srv/a", "NAME is a host name" },
		{ "a.*.test=/srv/a", "NAME is a host name" },
		{ "a..test=/srv/a", "NAME is a host name" },
		{ "[::1]=/srv/a", "NAME is a host name" },
		{ "a b=/srv/a", "NAME is a host name" },
		{ "a.test:80=/srv/a", "NAME is a host name" },
		{ "a.test=", "expected a directory after '='" },
	};
	struct parsed p = parse(NULL);
	char many[65][24];
	char *argv[2 * 65 + 2] = { "sehttpd" };
	struct options opt;
	FILE *err;
	int saved;

	CHECK_EQ_INT(p.opt.nvhosts, 0);
	p = parse("--vhost", "a.test=/srv/a", "--vhost", "*.B.test.=/srv/b=c",
		  NULL);
	CHECK_EQ_INT(p.result, OPTIONS_RUN);
	CHECK_EQ_INT(p.opt.nvhosts, 2);
	CHECK_EQ_STR(p.opt.vhosts[0], "a.test=/srv/a");
	CHECK_EQ_STR(p.opt.vhosts[1], "*.B.test.=/srv/b=c");
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char what[128];

		p = parse("--vhost", bad[i][0], NULL);
		snprintf(what, sizeof(what), "invalid --vhost '%s': %s",
			 bad[i][0], bad[i][1]);
		check_usage_error(&p, what);
	}
	/* At most VHOSTS_MAX; parse() takes fewer arguments than that. */
	for (int i = 0; i < 65; i++) {
		snprintf(many[i], sizeof(many[i]), "h%d.test=/", i);
		argv[1 + 2 * i] = "--vhost";
		argv[2 + 2 * i] = many[i];
	}
	fflush(stderr);
	saved = capture(STDERR_FILENO, &err);
	optind = 0;
	CHECK_EQ_INT(options_parse(&opt, 1 + 2 * 65, argv), OPTIONS_EXIT_USAGE);
	fflush(stderr);
	release(STDERR_FILENO, saved, err, p.err, sizeof(p.err));
	CHECK_EQ_STR(p.err, "sehttpd: at most 64 --vhost options\n");
}

TEST(bind_options)
{
	static const char *const bad[][2] = {
		{ "127.0.0.1:", "the port is a number up to 65535" },
		{ "127.0.0.1:65536", "the port is a number up to 65535" },
		{ "127.0.0.1:80x", "the port is a number up to 65535" },
		{ "127.0.0.1:-1", "the port is a number up to 65535" },
		{ "h:+80", "the port is a number up to 65535" },
		{ ":8080", "expected an address before the port" },
		{ "", "expected an address before the port" },
		{ "[]:80", "expected an address before the port" },
		{ "[::1", "expected [IPV6] or [IPV6]:PORT" },
		{ "[::1]x", "expected [IPV6] or [IPV6]:PORT" },
		{ "[::1]:", "the port is a number up to 65535" },
		{ "unix:", "a Unix socket's path is 1 to 107 bytes" },
	};
	static char long_path[200];
	struct parsed p;

	p = parse("-b", "127.0.0.1", "-b", "[::1]:8081", "--bind",
		  "unix:/run/s.sock", "-b", "::", "-b", "localhost:0", "-p",
		  "80", NULL);
	CHECK_EQ_INT(p.result, OPTIONS_RUN);
	CHECK_EQ_INT(p.opt.nbinds, 5);
	CHECK_EQ_STR(p.opt.binds[0], "127.0.0.1");
	CHECK_EQ_STR(p.opt.binds[1], "[::1]:8081");
	CHECK_EQ_STR(p.opt.binds[2], "unix:/run/s.sock");
	CHECK_EQ_STR(p.opt.binds[4], "localhost:0");
	CHECK_EQ_INT(p.opt.port, 80);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char what[160];

		p = parse("-b", bad[i][0], NULL);
		snprintf(what, sizeof(what), "invalid --bind '%s': %s",
			 bad[i][0], bad[i][1]);
		check_usage_error(&p, what);
	}
	memcpy(long_path, "unix:/", 6);
	memset(long_path + 6, 'x', 107 - 1);
	p = parse("-b", long_path, NULL); /* 107 bytes of path */
	CHECK_EQ_INT(p.result, OPTIONS_RUN);
	long_path[6 + 106] = 'x';
	p = parse("-b", long_path, NULL);
	check_usage_error(&p, "a Unix socket's path is 1 to 107 bytes");
	p = parse("-b", "1", "-b", "2", "-b", "3", "-b", "4", "-b", "5", "-b",
		  "6", "-b", "7", "-b", "8", "-b", "9", "-b", "10", "-b", "11",
		  "-b", "12", "-b", "13", "-b", "14", "-b", "15", NULL);
	CHECK_EQ_INT(p.result, OPTIONS_RUN);
	CHECK_EQ_INT(p.opt.nbinds, 15);
}

TEST(auth_options)
{
	struct parsed p = parse(NULL);

	CHECK_EQ_INT(p.opt.auth_nfiles, 0);
	CHECK(p.opt.auth_realm == NULL);
	p = parse("--auth-file", "/etc/sehttpd/all", "--auth-file",
		  "/admin/:/etc/sehttpd/admin", "--auth-file", "rel:ative",
		  "--auth-realm", "Staff \"only\"", NULL);
	CHECK_EQ_INT(p.result, OPTIONS_RUN);
	CHECK_EQ_INT(p.opt.auth_nfiles, 3);
	CHECK_EQ_STR(p.opt.auth_files[1], "/admin/:/etc/sehttpd/admin");
	CHECK_EQ_STR(p.opt.auth_realm, "Staff \"only\"");
	/* A prefix no normalised path starts with would protect nothing. */
	p = parse("--auth-file", "/a/../b:/f", NULL);
	check_usage_error(&p, "invalid --auth-file '/a/../b:/f': the prefix");
	p = parse("--auth-file", "/a//:/f", NULL);
	check_usage_error(&p, "the prefix is not a path as requests'");
	p = parse("--auth-file", "/a/.:/f", NULL);
	check_usage_error(&p, "the prefix is not a path as requests'");
	/* Written as a URL has it, a request's decoded path never is it. */
	p = parse("--auth-file", "/my%20docs/:/f", NULL);
	check_usage_error(&p, "'%' escapes");
	p = parse("--auth-file", "/admin/?:/f", NULL);
	check_usage_error(&p, "the prefix is not");
	p = parse("--auth-file", "/my docs/:/f", NULL);
	CHECK_EQ_INT(p.result, OPTIONS_RUN);
	p = parse("--auth-file", "/a/:", NULL);
	check_usage_error(&p, "no password file named");
	p = parse("--auth-file", "", NULL);
	check_usage_error(&p, "no password file named");
	p = parse("--auth-realm", "a\r\nX-Evil: 1", NULL);
	check_usage_error(&p, "'a\\x0d\\x0aX-Evil: 1': a control character");
	p = parse("--help", NULL);
	CHECK(strstr(p.out, "--auth-file [/PREFIX:]FILE") &&
	      strstr(p.out, "--auth-realm TEXT"));
}

TEST(log_format)
{
	struct parsed p = parse(NULL);

	CHECK(!p.opt.log_json);
	p = parse("--access-log", "-", "--log-format", "json", NULL);
	CHECK_EQ_INT(p.result, OPTIONS_RUN);
	CHECK(p.opt.log_json);
	p = parse("--log-format", "json", "--log-format", "combined",
		  "--access-log", "x.log", NULL);
	CHECK_EQ_INT(p.result, OPTIONS_RUN);
	CHECK(!p.opt.log_json);
	p = parse("--log-format", "JSON", NULL);
	check_usage_error(&p, "invalid log format (combined or json) 'JSON'");
	p = parse("--log-format", "", NULL);
	check_usage_error(&p, "invalid log format");
	/* JSON lines need a log to go to. */
	p = parse("--log-format", "json", NULL);
	check_usage_error(&p, "--log-format json needs --access-log");
}
