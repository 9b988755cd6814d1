// SPDX-License-Identifier: MIT
/* sehttpd's site built from checked options: header lines, index names,
 * error pages and the start-up check of the pages. */
#include <errno.h>

#include "harness.h"
#include "sehttpd/config.h"

static int opens;

static int page_exists(void *ctx, const char *path, uint64_t *size)
{
	(void)ctx;
	opens++;
	if (!strcmp(path, "missing.html")) {
		errno = ENOENT;
		return -1;
	}
	*size = !strncmp(path, "big", 3) ? SITE_ERROR_PAGE_MAX + 1 : 100;
	if (!strcmp(path, "big-edge.html"))
		*size = SITE_ERROR_PAGE_MAX;
	return 0;
}

static bool rule_is(const struct http_header_rule *r, const char *prefix,
		    const char *lines, bool always)
{
	return r->prefix_len == strlen(prefix) &&
	       !memcmp(r->prefix, prefix, r->prefix_len) &&
	       r->lines_len == strlen(lines) &&
	       !memcmp(r->lines, lines, r->lines_len) && r->always == always;
}

TEST(defaults)
{
	struct site_options opt = { 0 };
	struct site s;
	char err[256];

	CHECK_EQ_INT(site_build(&s, &opt, page_exists, NULL, err, sizeof(err)),
		     0);
	CHECK_EQ_INT(s.nrules, 0);
	CHECK(!s.cors && !s.http.dotfiles && !s.http.spa);
	CHECK_EQ_INT(s.http.nindex, 2);
	CHECK_EQ_STR(s.http.index[0], "index.html");
	CHECK_EQ_STR(s.http.index[1], "index.htm");
	CHECK(http_site_error_page(&s.http, 404) == NULL);
	site_free(&s);
}

TEST(rules_and_pages)
{
	struct site_options opt = {
		.headers = { "X-A:1", "/assets/:Cache-Control:  max-age=9  " },
		.nheaders = 2,
		.cors = "https://a.example",
		.index = { "home.htm" },
		.nindex = 1,
		.error_pages = { "404=/e/404.html", "404=/e/other.html",
				 "500=/e/500.html" },
		.nerror_pages = 3,
		.spa = "/app.html",
		.dotfiles = true,
	};
	struct site s;
	char err[256];

	opens = 0;
	CHECK_EQ_INT(site_build(&s, &opt, page_exists, NULL, err, sizeof(err)),
		     0);
	CHECK_EQ_INT(opens, 4);
	CHECK_EQ_INT(s.nrules, 3);
	CHECK(rule_is(&s.rules[0], "", "X-A: 1\r\n", false));
	CHECK(rule_is(&s.rules[1], "/assets/", "Cache-Control: max-age=9\r\n",
		      false));
	CHECK(rule_is(&s.rules[2], "",
		      "Access-Control-Allow-Origin: https://a.example\r\n"
		      "Vary: Origin\r\n",
		      true));
	CHECK(s.cors && s.http.dotfiles);
	CHECK_EQ_INT(s.http.nindex, 1);
	CHECK_EQ_STR(s.http.index[0], "home.htm");
	CHECK_EQ_STR(http_site_error_page(&s.http, 404), "/e/other.html");
	CHECK_EQ_STR(http_site_error_page(&s.http, 500), "/e/500.html");
	CHECK(http_site_error_page(&s.http, 403) == NULL);
	CHECK_EQ_STR(s.http.spa, "/app.html");
	site_free(&s);

	opt = (struct site_options){ .cors = "*" };
	CHECK_EQ_INT(site_build(&s, &opt, page_exists, NULL, err, sizeof(err)),
		     0);
	CHECK(rule_is(&s.rules[0], "", "Access-Control-Allow-Origin: *\r\n",
		      true));
	site_free(&s);
}

TEST(missing_page_named)
{
	struct site_options opt = {
		.error_pages = { "404=/missing.html" },
		.nerror_pages = 1,
	};
	struct site s;
	char err[256];

	CHECK_EQ_INT(site_build(&s, &opt, page_exists, NULL, err, sizeof(err)),
		     -1);
	CHECK_EQ_STR(err, "--error-page 404=/missing.html: No such file or "
			  "directory");
	site_free(&s);
	opt = (struct site_options){ .spa = "/missing.html" };
	CHECK_EQ_INT(site_build(&s, &opt, page_exists, NULL, err, sizeof(err)),
		     -1);
	CHECK_EQ_STR(err, "--spa /missing.html: No such file or directory");
	site_free(&s);
}

TEST(error_page_size_bounded)
{
	struct site_options opt = {
		.error_pages = { "404=/big-edge.html" },
		.nerror_pages = 1,
	};
	struct site s;
	char err[256];

	CHECK_EQ_INT(site_build(&s, &opt, page_exists, NULL, err, sizeof(err)),
		     0);
	site_free(&s);
	opt.error_pages[0] = "500=/big.html";
	CHECK_EQ_INT(site_build(&s, &opt, page_exists, NULL, err, sizeof(err)),
		     -1);
	CHECK_EQ_STR(err, "--error-page 500=/big.html: larger than 1 MiB, the "
			  "most an error page may be");
	site_free(&s);
	/* A single-page app's page is sent as any file: no limit. */
	opt = (struct site_options){ .spa = "/big.html" };
	CHECK_EQ_INT(site_build(&s, &opt, page_exists, NULL, err, sizeof(err)),
		     0);
	site_free(&s);
}

TEST(total_bounded)
{
	static char big[SITE_HEADER_MAX + 1];
	struct site_options opt = { .nheaders = 9 };
	struct site s;
	char err[256];

	memset(big, 'v', SITE_HEADER_MAX);
	memcpy(big, "X-Big: ", 7);
	for (unsigned int i = 0; i < opt.nheaders; i++)
		opt.headers[i] = big;
	CHECK_EQ_INT(site_build(&s, &opt, page_exists, NULL, err, sizeof(err)),
		     -1);
	CHECK(strstr(err, "more than 8192 bytes") != NULL);
	site_free(&s);
	opt.nheaders = 7;
	CHECK_EQ_INT(site_build(&s, &opt, page_exists, NULL, err, sizeof(err)),
		     0);
	site_free(&s);
}

TEST(checks)
{
	char err[256];

	CHECK_EQ_INT(site_check_header("X-Ok: a\tb \xc3\xa9", err, sizeof(err)),
		     0);
	CHECK_EQ_INT(site_check_header("X-Empty:", err, sizeof(err)), 0);
	CHECK_EQ_INT(site_check_header("X: a\rb", err, sizeof(err)), -1);
	CHECK_EQ_INT(site_check_header("X : a", err, sizeof(err)), -1);
	CHECK_EQ_INT(site_check_header("Server: x", err, sizeof(err)), -1);
	CHECK_EQ_INT(site_check_cors("*", err, sizeof(err)), 0);
	CHECK_EQ_INT(site_check_cors("http://localhost:3000", err, sizeof(err)),
		     0);
	CHECK_EQ_INT(site_check_cors("null", err, sizeof(err)), -1);
	CHECK_EQ_INT(site_check_cors("https://[::1]:8443", err, sizeof(err)),
		     0);
	CHECK_EQ_INT(site_check_cors("app+x-y.z://a.example", err, sizeof(err)),
		     0);
	/* Nothing but scheme://host[:port]. */
	CHECK_EQ_INT(site_check_cors("https://a.example?x=1", err, sizeof(err)),
		     -1);
	CHECK_EQ_INT(site_check_cors("https://a.example#f", err, sizeof(err)),
		     -1);
	CHECK_EQ_INT(site_check_cors("https://u@a.example", err, sizeof(err)),
		     -1);
	CHECK_EQ_INT(site_check_cors("https://u:p@a.example", err, sizeof(err)),
		     -1);
	CHECK_EQ_INT(site_check_cors("https://a.example/", err, sizeof(err)),
		     -1);
	CHECK_EQ_INT(site_check_cors("https://a.example:", err, sizeof(err)),
		     -1);
	CHECK_EQ_INT(site_check_cors("https://a.example:x", err, sizeof(err)),
		     -1);
	CHECK_EQ_INT(site_check_cors("1https://a.example", err, sizeof(err)),
		     -1);
	CHECK_EQ_INT(site_check_cors("://a.example", err, sizeof(err)), -1);
	CHECK_EQ_INT(site_check_cors("https://", err, sizeof(err)), -1);
	CHECK_EQ_INT(site_check_index("index.php", err, sizeof(err)), 0);
	CHECK_EQ_INT(site_check_index(".", err, sizeof(err)), -1);
	CHECK_EQ_INT(site_check_error_page("599=/x", err, sizeof(err)), 0);
	CHECK_EQ_INT(site_check_error_page("600=/x", err, sizeof(err)), -1);
	CHECK_EQ_INT(site_check_error_page("404=/", err, sizeof(err)), -1);
	CHECK_EQ_INT(site_check_page_path("/a/b.html", err, sizeof(err)), 0);
	CHECK_EQ_INT(site_check_page_path("/a//b", err, sizeof(err)), -1);
	CHECK_EQ_INT(site_check_page_path("/a/..", err, sizeof(err)), -1);
}
