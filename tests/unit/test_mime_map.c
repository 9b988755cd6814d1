// SPDX-License-Identifier: MIT
/* sehttpd's media types: --mime over mime.types over the built-in table. */
#include "harness.h"

#include <stdio.h>
#include <unistd.h>

#include "http/mime.h"
#include "sehttpd/mime_map.h"

static const char *type(const struct mime_map *m, const char *name)
{
	return mime_map_type(m, name, strlen(name));
}

/* A mime.types file with the given text, in a temporary file. */
static void write_types(char *path, const char *text)
{
	int fd;
	FILE *f;

	strcpy(path, "/tmp/test_mime_map.XXXXXX");
	fd = mkstemp(path);
	CHECK(fd >= 0);
	f = fdopen(fd, "w");
	fputs(text, f);
	fclose(f);
}

TEST(builtin_only)
{
	char err[128];
	struct mime_map *m =
		mime_map_build(NULL, NULL, 0, NULL, err, sizeof(err));

	CHECK(m != NULL);
	CHECK_EQ_STR(type(m, "a.html"), "text/html; charset=utf-8");
	CHECK_EQ_STR(type(m, "x.py"), "text/plain; charset=utf-8");
	CHECK_EQ_STR(type(m, "README"), HTTP_MIME_TEXT_NAME);
	CHECK_EQ_STR(type(m, "x.unknownext"), HTTP_MIME_DEFAULT);
	CHECK_EQ_STR(type(NULL, "x.unknownext"), HTTP_MIME_DEFAULT);
	mime_map_free(m);
	mime_map_free(NULL);
}

TEST(types_file_then_args_then_builtin)
{
	static const char *const args[] = {
		".PY=application/x-mine",
		"weird=text/x-weird",
		"weird=text/x-weirder",
		"svg=image/svg+xml",
		"latin=text/plain; charset=iso-8859-1",
	};
	char path[64], err[128];
	struct mime_map *m;

	write_types(path, "# comment line\n"
			  "text/x-python\tpy pyw\n"
			  "\n"
			  "application/x-sh sh\n"
			  "text/x-sh sh # the later one wins\n"
			  "text/html html htm\n"
			  "application/json json\n"
			  "bad type line\n"
			  "text/x-long averyveryverylongextension ok\n"
			  "image/x-noext\n"
			  "text/x-trail\tTrail\r\n");
	m = mime_map_build(path, args, ARRAY_SIZE(args), NULL, err,
			   sizeof(err));
	unlink(path);
	CHECK(m != NULL);
	/* --mime over the file; its extension case-insensitive. */
	CHECK_EQ_STR(type(m, "a.py"), "application/x-mine");
	CHECK_EQ_STR(type(m, "A.PY"), "application/x-mine");
	CHECK_EQ_STR(type(m, "a.pyw"), "text/x-python; charset=utf-8");
	/* The built-in table's extensions over the file's. */
	CHECK_EQ_STR(type(m, "a.sh"), "text/x-shellscript; charset=utf-8");
	CHECK_EQ_STR(type(m, "a.html"), "text/html; charset=utf-8");
	CHECK_EQ_STR(type(m, "a.json"), "application/json");
	CHECK_EQ_STR(type(m, "a.ok"), "text/x-long; charset=utf-8");
	CHECK_EQ_STR(type(m, "a.trail"), "text/x-trail; charset=utf-8");
	CHECK_EQ_STR(type(m, "a.weird"), "text/x-weirder; charset=utf-8");
	CHECK_EQ_STR(type(m, "a.svg"), "image/svg+xml");
	CHECK_EQ_STR(type(m, "a.latin"), "text/plain; charset=iso-8859-1");
	/* Not in the file: the built-in table, then the default. */
	CHECK_EQ_STR(type(m, "a.png"), "image/png");
	CHECK_EQ_STR(type(m, "copyright"), HTTP_MIME_TEXT_NAME);
	CHECK_EQ_STR(type(m, "a.type"), HTTP_MIME_DEFAULT);
	CHECK_EQ_STR(type(m, "a.line"), HTTP_MIME_DEFAULT);
	mime_map_free(m);
}

/* Debian's mime.types names .ts a Qt translation and .rs an XML type. */
TEST(builtin_web_types_over_types_file)
{
	static const char *const args[] = { "rs=text/x-rust" };
	char path[64], err[128];
	struct mime_map *m;

	write_types(path, "text/vnd.trolltech.linguist ts\n"
			  "application/rls-services+xml rs\n"
			  "text/javascript es js mjs\n"
			  "application/font-woff2 woff2\n"
			  "application/x-dvi dvi\n");
	m = mime_map_build(path, args, ARRAY_SIZE(args), NULL, err,
			   sizeof(err));
	unlink(path);
	CHECK(m != NULL);
	CHECK_EQ_STR(type(m, "seg0.ts"), "video/mp2t");
	CHECK_EQ_STR(type(m, "seg0.TS"), "video/mp2t");
	CHECK_EQ_STR(type(m, "a.mjs"), "text/javascript; charset=utf-8");
	CHECK_EQ_STR(type(m, "a.woff2"), "font/woff2");
	/* What the table does not know comes from the file... */
	CHECK_EQ_STR(type(m, "a.es"), "text/javascript; charset=utf-8");
	CHECK_EQ_STR(type(m, "a.dvi"), "application/x-dvi");
	/* ...and --mime is over everything. */
	CHECK_EQ_STR(type(m, "main.rs"), "text/x-rust; charset=utf-8");
	/* Every extension the table knows gets the table's type. */
	for (const char *const *e =
		     (const char *const[]){ "ts", "mjs", "js", "woff2", NULL };
	     *e; e++) {
		char name[32];

		snprintf(name, sizeof(name), "x.%s", *e);
		CHECK_EQ_STR(type(m, name), http_mime_by_extension(*e));
	}
	mime_map_free(m);
}

TEST(default_type)
{
	char err[128];
	struct mime_map *m =
		mime_map_build(NULL, NULL, 0, "text/plain", err, sizeof(err));

	CHECK_EQ_STR(type(m, "a.unknownext"), "text/plain; charset=utf-8");
	CHECK_EQ_STR(type(m, "noext"), "text/plain; charset=utf-8");
	CHECK_EQ_STR(type(m, "a.png"), "image/png");
	mime_map_free(m);
	m = mime_map_build(NULL, NULL, 0, "application/x-thing", err,
			   sizeof(err));
	CHECK_EQ_STR(type(m, "noext"), "application/x-thing");
	mime_map_free(m);
}

TEST(missing_files)
{
	char err[128] = "";
	struct mime_map *m;

	m = mime_map_build("/nonexistent/mime.types", NULL, 0, NULL, err,
			   sizeof(err));
	CHECK(m == NULL);
	CHECK(strstr(err, "/nonexistent/mime.types") != NULL);
	/* The default file may be missing. */
	if (access(MIME_TYPES_DEFAULT, F_OK)) {
		m = mime_map_build(MIME_TYPES_DEFAULT, NULL, 0, NULL, err,
				   sizeof(err));
		CHECK(m != NULL);
		mime_map_free(m);
	}
}

TEST(argument_syntax)
{
	CHECK(mime_map_arg_valid("py=text/plain"));
	CHECK(mime_map_arg_valid(".py=text/plain"));
	CHECK(mime_map_arg_valid("py=text/plain; charset=utf-8"));
	CHECK(!mime_map_arg_valid("py"));
	CHECK(!mime_map_arg_valid("py=text/pl ain"));
	CHECK(!mime_map_arg_valid("..py=text/plain"));
	CHECK(!mime_map_arg_valid("p=y=text/plain"));
	CHECK(mime_map_type_valid("text/plain"));
	CHECK(!mime_map_type_valid("text/plain\n"));
	{
		char big[MIME_TYPE_MAX + 2];

		memset(big, 'a', sizeof(big) - 1);
		big[1] = '/';
		big[sizeof(big) - 1] = '\0';
		CHECK(!mime_map_type_valid(big));
		big[sizeof(big) - 2] = '\0';
		CHECK(mime_map_type_valid(big));
	}
}
