// SPDX-License-Identifier: MIT
/* File name extension to media type. */
#include "harness.h"

#include <ctype.h>

#include "http/mime.h"

static const char *mime(const char *name)
{
	return http_mime_type(name, strlen(name));
}

TEST(types_the_specification_names)
{
	CHECK_EQ_STR(mime("index.html"), "text/html; charset=utf-8");
	CHECK_EQ_STR(mime("a.txt"), "text/plain; charset=utf-8");
	CHECK_EQ_STR(mime("s.css"), "text/css; charset=utf-8");
	CHECK_EQ_STR(mime("app.js"), "text/javascript; charset=utf-8");
	CHECK_EQ_STR(mime("d.json"), "application/json");
	CHECK_EQ_STR(mime("i.svg"), "image/svg+xml");
	CHECK_EQ_STR(mime("i.png"), "image/png");
	CHECK_EQ_STR(mime("i.jpg"), "image/jpeg");
	CHECK_EQ_STR(mime("i.jpeg"), "image/jpeg");
	CHECK_EQ_STR(mime("i.gif"), "image/gif");
	CHECK_EQ_STR(mime("i.webp"), "image/webp");
	CHECK_EQ_STR(mime("favicon.ico"), "image/x-icon");
	CHECK_EQ_STR(mime("f.woff2"), "font/woff2");
	CHECK_EQ_STR(mime("v.mp4"), "video/mp4");
	CHECK_EQ_STR(mime("a.mp3"), "audio/mpeg");
	CHECK_EQ_STR(mime("d.pdf"), "application/pdf");
	CHECK_EQ_STR(mime("a.zip"), "application/zip");
	CHECK_EQ_STR(mime("a.gz"), "application/gzip");
	CHECK_EQ_STR(mime("m.wasm"), "application/wasm");
	CHECK_EQ_STR(mime("d.xml"), "application/xml");
	CHECK_EQ_STR(mime("x.unknownext"), HTTP_MIME_DEFAULT);
	CHECK_EQ_STR(mime("noextension"), HTTP_MIME_DEFAULT);
	CHECK_EQ_STR(HTTP_MIME_DEFAULT, "application/octet-stream");
}

/* Every entry of the table, so an unsorted table cannot go unnoticed. */
static const struct {
	const char *ext;
	const char *type;
} table[] = {
	{ "7z", "application/x-7z-compressed" },
	{ "aac", "audio/aac" },
	{ "apng", "image/apng" },
	{ "asc", "text/plain; charset=utf-8" },
	{ "atom", "application/atom+xml" },
	{ "avi", "video/x-msvideo" },
	{ "avif", "image/avif" },
	{ "bash", "text/x-shellscript; charset=utf-8" },
	{ "bat", "text/plain; charset=utf-8" },
	{ "bib", "text/plain; charset=utf-8" },
	{ "bin", "application/octet-stream" },
	{ "bmp", "image/bmp" },
	{ "bz2", "application/x-bzip2" },
	{ "c", "text/plain; charset=utf-8" },
	{ "cc", "text/plain; charset=utf-8" },
	{ "cfg", "text/plain; charset=utf-8" },
	{ "cjs", "text/javascript; charset=utf-8" },
	{ "cmake", "text/plain; charset=utf-8" },
	{ "conf", "text/plain; charset=utf-8" },
	{ "cpp", "text/plain; charset=utf-8" },
	{ "cs", "text/plain; charset=utf-8" },
	{ "css", "text/css; charset=utf-8" },
	{ "csv", "text/csv; charset=utf-8" },
	{ "cxx", "text/plain; charset=utf-8" },
	{ "deb", "application/vnd.debian.binary-package" },
	{ "desktop", "text/plain; charset=utf-8" },
	{ "diff", "text/x-diff; charset=utf-8" },
	{ "doc", "application/msword" },
	{ "docx", "application/vnd.openxmlformats-officedocument."
		  "wordprocessingml.document" },
	{ "el", "text/plain; charset=utf-8" },
	{ "eot", "application/vnd.ms-fontobject" },
	{ "epub", "application/epub+zip" },
	{ "flac", "audio/flac" },
	{ "gif", "image/gif" },
	{ "go", "text/plain; charset=utf-8" },
	{ "gz", "application/gzip" },
	{ "h", "text/plain; charset=utf-8" },
	{ "heic", "image/heic" },
	{ "hh", "text/plain; charset=utf-8" },
	{ "hpp", "text/plain; charset=utf-8" },
	{ "hs", "text/plain; charset=utf-8" },
	{ "htm", "text/html; charset=utf-8" },
	{ "html", "text/html; charset=utf-8" },
	{ "ico", "image/x-icon" },
	{ "ics", "text/calendar; charset=utf-8" },
	{ "in", "text/plain; charset=utf-8" },
	{ "ini", "text/plain; charset=utf-8" },
	{ "iso", "application/x-iso9660-image" },
	{ "jar", "application/java-archive" },
	{ "java", "text/plain; charset=utf-8" },
	{ "jpeg", "image/jpeg" },
	{ "jpg", "image/jpeg" },
	{ "js", "text/javascript; charset=utf-8" },
	{ "json", "application/json" },
	{ "jsonld", "application/ld+json" },
	{ "jsx", "text/plain; charset=utf-8" },
	{ "kt", "text/plain; charset=utf-8" },
	{ "log", "text/plain; charset=utf-8" },
	{ "lua", "text/plain; charset=utf-8" },
	{ "m3u8", "application/vnd.apple.mpegurl" },
	{ "m4", "text/plain; charset=utf-8" },
	{ "m4a", "audio/mp4" },
	{ "m4v", "video/mp4" },
	{ "manifest", "text/cache-manifest; charset=utf-8" },
	{ "map", "application/json" },
	{ "md", "text/markdown; charset=utf-8" },
	{ "mid", "audio/midi" },
	{ "midi", "audio/midi" },
	{ "mjs", "text/javascript; charset=utf-8" },
	{ "mk", "text/plain; charset=utf-8" },
	{ "mkv", "video/x-matroska" },
	{ "mov", "video/quicktime" },
	{ "mp3", "audio/mpeg" },
	{ "mp4", "video/mp4" },
	{ "mpeg", "video/mpeg" },
	{ "mpg", "video/mpeg" },
	{ "odp", "application/vnd.oasis.opendocument.presentation" },
	{ "ods", "application/vnd.oasis.opendocument.spreadsheet" },
	{ "odt", "application/vnd.oasis.opendocument.text" },
	{ "oga", "audio/ogg" },
	{ "ogg", "audio/ogg" },
	{ "ogv", "video/ogg" },
	{ "opus", "audio/opus" },
	{ "otf", "font/otf" },
	{ "patch", "text/x-diff; charset=utf-8" },
	{ "pdf", "application/pdf" },
	{ "pl", "text/plain; charset=utf-8" },
	{ "pm", "text/plain; charset=utf-8" },
	{ "png", "image/png" },
	{ "po", "text/plain; charset=utf-8" },
	{ "pot", "text/plain; charset=utf-8" },
	{ "ppt", "application/vnd.ms-powerpoint" },
	{ "pptx", "application/vnd.openxmlformats-officedocument."
		  "presentationml.presentation" },
	{ "properties", "text/plain; charset=utf-8" },
	{ "proto", "text/plain; charset=utf-8" },
	{ "ps", "application/postscript" },
	{ "py", "text/plain; charset=utf-8" },
	{ "pyi", "text/plain; charset=utf-8" },
	{ "rar", "application/vnd.rar" },
	{ "rb", "text/plain; charset=utf-8" },
	{ "rs", "text/plain; charset=utf-8" },
	{ "rss", "application/rss+xml" },
	{ "rst", "text/plain; charset=utf-8" },
	{ "rtf", "application/rtf" },
	{ "s", "text/plain; charset=utf-8" },
	{ "service", "text/plain; charset=utf-8" },
	{ "sh", "text/x-shellscript; charset=utf-8" },
	{ "sql", "text/plain; charset=utf-8" },
	{ "srt", "text/plain; charset=utf-8" },
	{ "svg", "image/svg+xml" },
	{ "swift", "text/plain; charset=utf-8" },
	{ "tar", "application/x-tar" },
	{ "tcl", "text/plain; charset=utf-8" },
	{ "tex", "text/plain; charset=utf-8" },
	{ "text", "text/plain; charset=utf-8" },
	{ "tgz", "application/gzip" },
	{ "tif", "image/tiff" },
	{ "tiff", "image/tiff" },
	{ "toml", "text/plain; charset=utf-8" },
	{ "ts", "video/mp2t" },
	{ "tsv", "text/tab-separated-values; charset=utf-8" },
	{ "tsx", "text/plain; charset=utf-8" },
	{ "ttf", "font/ttf" },
	{ "txt", "text/plain; charset=utf-8" },
	{ "vtt", "text/vtt; charset=utf-8" },
	{ "wasm", "application/wasm" },
	{ "wav", "audio/wav" },
	{ "weba", "audio/webm" },
	{ "webm", "video/webm" },
	{ "webmanifest", "application/manifest+json" },
	{ "webp", "image/webp" },
	{ "woff", "font/woff" },
	{ "woff2", "font/woff2" },
	{ "xhtml", "application/xhtml+xml" },
	{ "xls", "application/vnd.ms-excel" },
	{ "xlsx", "application/vnd.openxmlformats-officedocument."
		  "spreadsheetml.sheet" },
	{ "xml", "application/xml" },
	{ "xsl", "application/xml" },
	{ "xz", "application/x-xz" },
	{ "yaml", "text/plain; charset=utf-8" },
	{ "yml", "text/plain; charset=utf-8" },
	{ "zip", "application/zip" },
	{ "zsh", "text/x-shellscript; charset=utf-8" },
	{ "zst", "application/zstd" },
};

/* The expected type of an extension given by length, from the table. */
static const char *lookup(const char *ext, size_t n)
{
	for (size_t i = 0; i < ARRAY_SIZE(table); i++) {
		if (strlen(table[i].ext) == n && !memcmp(table[i].ext, ext, n))
			return table[i].type;
	}
	return HTTP_MIME_DEFAULT;
}

TEST(every_table_entry_is_found)
{
	for (size_t i = 0; i < ARRAY_SIZE(table); i++) {
		char name[64], upper[64];
		size_t n;

		n = (size_t)snprintf(name, sizeof(name), "/d.x/f.%s",
				     table[i].ext);
		CHECK_EQ_STR(http_mime_type(name, n), table[i].type);
		for (size_t k = 0; k <= n; k++)
			upper[k] = (char)toupper((unsigned char)name[k]);
		CHECK_EQ_STR(http_mime_type(upper, n), table[i].type);
		/* Only the exact extension matches, not a prefix of it. */
		name[n] = '0';
		CHECK_EQ_STR(http_mime_type(name, n + 1), HTTP_MIME_DEFAULT);
		CHECK_EQ_STR(http_mime_type(name, n - 1),
			     lookup(table[i].ext, strlen(table[i].ext) - 1));
	}
}

TEST(only_the_last_extension_of_the_last_segment_counts)
{
	CHECK_EQ_STR(mime("archive.tar.gz"), "application/gzip");
	CHECK_EQ_STR(mime("page.html.bak"), HTTP_MIME_DEFAULT);
	CHECK_EQ_STR(mime("/dir.html/file"), HTTP_MIME_DEFAULT);
	CHECK_EQ_STR(mime("/dir.html/"), HTTP_MIME_DEFAULT);
	CHECK_EQ_STR(mime("/a/b/c.CSS"), "text/css; charset=utf-8");
	CHECK_EQ_STR(mime("/a/b/c.Html"), "text/html; charset=utf-8");
	CHECK_EQ_STR(mime(".html"), "text/html; charset=utf-8");
	CHECK_EQ_STR(mime("file."), HTTP_MIME_DEFAULT);
	CHECK_EQ_STR(mime("."), HTTP_MIME_DEFAULT);
	CHECK_EQ_STR(mime(""), HTTP_MIME_DEFAULT);
	CHECK_EQ_STR(mime("/"), HTTP_MIME_DEFAULT);
	CHECK_EQ_STR(mime("..foo"), HTTP_MIME_DEFAULT);
	CHECK_EQ_STR(mime("a.ht"), HTTP_MIME_DEFAULT);
	CHECK_EQ_STR(mime("a.htmlx"), HTTP_MIME_DEFAULT);
	CHECK_EQ_STR(mime("a. html"), HTTP_MIME_DEFAULT);
	/* The length bounds the name: "a.html" cut to "a.htm". */
	CHECK_EQ_STR(http_mime_type("a.html", 5), "text/html; charset=utf-8");
	CHECK_EQ_STR(http_mime_type("a.jsonld", 6), "application/json");
	CHECK_EQ_STR(http_mime_type("a.txt", 0), HTTP_MIME_DEFAULT);
}

TEST(long_and_hostile_extensions)
{
	char name[300];

	/* Extensions of every length up to far beyond the longest known. */
	for (size_t len = 0; len < 280; len++) {
		char *buf = malloc(len + 2); /* exact, for ASan */

		buf[0] = '.';
		memset(buf + 1, 'w', len);
		CHECK_EQ_STR(http_mime_type(buf, len + 1), HTTP_MIME_DEFAULT);
		free(buf);
	}
	memset(name, 'x', sizeof(name));
	memcpy(name + sizeof(name) - 12, ".webmanifest", 12);
	CHECK_EQ_STR(http_mime_type(name, sizeof(name)),
		     "application/manifest+json");
	/* High bytes and NUL inside an extension are just unknown. */
	CHECK_EQ_STR(mime("a.\xc3\xbc"), HTTP_MIME_DEFAULT);
	CHECK_EQ_STR(http_mime_type("a.h\0ml", 6), HTTP_MIME_DEFAULT);
	CHECK_EQ_STR(http_mime_type("a.txt\0", 6), HTTP_MIME_DEFAULT);
}

TEST(compressible)
{
	static const char *const yes[] = {
		"text/html; charset=utf-8",
		"text/plain; charset=utf-8",
		"text/css; charset=utf-8",
		"text/javascript; charset=utf-8",
		"application/json",
		"image/svg+xml",
		"application/wasm",
		"application/xml",
		"image/x-icon",
		"application/manifest+json",
	};
	static const char *const no[] = {
		"image/png",
		"image/jpeg",
		"image/gif",
		"image/webp",
		"font/woff2",
		"video/mp4",
		"audio/mpeg",
		"application/pdf",
		"application/zip",
		"application/gzip",
		HTTP_MIME_DEFAULT,
		"",
		"text",
	};

	for (size_t i = 0; i < ARRAY_SIZE(yes); i++)
		CHECK(http_mime_compressible(yes[i]));
	for (size_t i = 0; i < ARRAY_SIZE(no); i++) {
		if (http_mime_compressible(no[i]))
			fprintf(stderr, "  \"%s\"\n", no[i]);
		CHECK(!http_mime_compressible(no[i]));
	}
}

TEST(source_and_text_files_are_text)
{
	static const char *const names[] = {
		"x.py",	 "x.rst", "x.ini",  "x.md",   "x.txt",	"x.c",
		"x.h",	 "x.sh",  "x.toml", "x.yaml", "x.conf", "x.log",
		"x.csv", "x.cfg", "x.go",   "x.rs",   "x.diff", "x.tsv",
	};

	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		const char *t = mime(names[i]);

		if (strncmp(t, "text/", 5) || !strstr(t, "; charset=utf-8"))
			fprintf(stderr, "  %s: %s\n", names[i], t);
		CHECK(!strncmp(t, "text/", 5));
		CHECK(strstr(t, "; charset=utf-8") != NULL);
	}
}

TEST(well_known_names_are_text)
{
	static const char *const text[] = {
		"README",	"copyright",
		"LICENSE",	"Makefile",
		"changelog",	"/usr/share/doc/x/copyright",
		"COPYING",	"AUTHORS",
		"NEWS",		"INSTALL",
		"TODO",		"README.Debian",
		"LICENSE.MIT",	"changelog.Debian",
		"Licence",	"GNUmakefile",
		"Kconfig",	"Kbuild",
		"Dockerfile",	"THANKS",
		"NOTICE",	"HACKING",
		"CONTRIBUTING", "MAINTAINERS",
		"CREDITS",	"BUGS",
		"CHANGES",	"HISTORY",
		"FAQ",		"VERSION",
		"CONTRIBUTORS", "PATENTS",
		"readme.xyz",
	};
	static const char *const other[] = {
		"README.gz",  "changelog.Debian.gz",
		"README.pdf", "READMEX",
		"xREADME",    "README/",
		"/README/x",  "Makefile2",
		".readme",    "LICENSE.html",
	};

	for (size_t i = 0; i < ARRAY_SIZE(text); i++) {
		if (strcmp(mime(text[i]), HTTP_MIME_TEXT_NAME))
			fprintf(stderr, "  %s\n", text[i]);
		CHECK_EQ_STR(mime(text[i]), HTTP_MIME_TEXT_NAME);
	}
	for (size_t i = 0; i < ARRAY_SIZE(other); i++) {
		if (!strcmp(mime(other[i]), HTTP_MIME_TEXT_NAME))
			fprintf(stderr, "  %s\n", other[i]);
		CHECK(strcmp(mime(other[i]), HTTP_MIME_TEXT_NAME));
	}
	CHECK_EQ_STR(mime("LICENSE.html"), "text/html; charset=utf-8");
	CHECK(http_mime_builtin("READMEX", 7) == NULL);
	CHECK(http_mime_builtin("x.unknownext", 12) == NULL);
	/* The length counts, and a NUL ends no name early. */
	CHECK(http_mime_builtin("READMEX", 6) != NULL);
	CHECK(http_mime_builtin("README\0", 7) == NULL);
}

TEST(extensions)
{
	char ext[HTTP_MIME_EXT_MAX + 1];

	CHECK_EQ_INT(http_mime_extension("a/b.TXT", 7, ext), 3);
	CHECK_EQ_STR(ext, "txt");
	CHECK_EQ_INT(http_mime_extension("a.b.c", 5, ext), 1);
	CHECK_EQ_STR(ext, "c");
	CHECK_EQ_INT(http_mime_extension("a.d/b", 5, ext), 0);
	CHECK_EQ_INT(http_mime_extension("a.", 2, ext), 0);
	CHECK_EQ_INT(http_mime_extension("noext", 5, ext), 0);
	CHECK_EQ_INT(http_mime_extension(".bashrc", 7, ext), 6);
	CHECK_EQ_INT(http_mime_extension("x.123456789012345", 17, ext), 15);
	CHECK_EQ_INT(http_mime_extension("x.1234567890123456", 18, ext), 0);
	CHECK_EQ_INT(http_mime_extension("x.a\0b", 5, ext), 0);
}

TEST(operator_extensions)
{
	char ext[HTTP_MIME_EXT_MAX + 1];

	CHECK(http_mime_ext_copy(ext, ".XYZZY", 6));
	CHECK_EQ_STR(ext, "xyzzy");
	CHECK(http_mime_ext_copy(ext, "py=text/x", 2));
	CHECK_EQ_STR(ext, "py");
	CHECK(http_mime_ext_copy(ext, "123456789012345", 15));
	CHECK(!http_mime_ext_copy(ext, "1234567890123456", 16));
	CHECK(!http_mime_ext_copy(ext, "", 0));
	CHECK(!http_mime_ext_copy(ext, ".", 1));
	CHECK(!http_mime_ext_copy(ext, "a/b", 3));
	CHECK(!http_mime_ext_copy(ext, "a.b", 3));
	CHECK(!http_mime_ext_copy(ext, "a b", 3));
	CHECK(!http_mime_ext_copy(ext, "a=b", 3));
	CHECK(!http_mime_ext_copy(ext, "a\x7f", 2));
	CHECK(!http_mime_ext_copy(ext, "\xc3\xa9", 2));
}

TEST(type_syntax)
{
	static const char *const good[] = {
		"text/plain",
		"text/plain; charset=utf-8",
		"text/plain;charset=utf-8",
		"application/vnd.oasis.opendocument.text",
		"image/svg+xml",
		"text/html; charset=\"utf-8\"",
		"a/b; x=y; z=\"q \\\" r\"",
	};
	static const char *const bad[] = {
		"",
		"text",
		"text/",
		"/plain",
		"text/plain;",
		"text/plain; charset",
		"text/pl ain",
		"text/plain\r\nX: y",
		"text/plain; a=\"x",
		"text/plain; a=",
		"te xt/plain",
		"text/plain/x",
		"text/plain; =x",
		"text/plain; a=\"\x01\"",
	};

	for (size_t i = 0; i < ARRAY_SIZE(good); i++) {
		if (!http_mime_type_valid(good[i], strlen(good[i])))
			fprintf(stderr, "  %s\n", good[i]);
		CHECK(http_mime_type_valid(good[i], strlen(good[i])));
	}
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		if (http_mime_type_valid(bad[i], strlen(bad[i])))
			fprintf(stderr, "  %s\n", bad[i]);
		CHECK(!http_mime_type_valid(bad[i], strlen(bad[i])));
	}
	/* Every built-in type is valid. */
	for (size_t i = 0; i < ARRAY_SIZE(table); i++)
		CHECK(http_mime_type_valid(table[i].type,
					   strlen(table[i].type)));
}

static bool wants(const char *t)
{
	return http_mime_wants_charset(t, strlen(t));
}

TEST(charset_on_text_types)
{
	CHECK(wants("text/plain"));
	CHECK(wants("text/x-python"));
	CHECK(wants("TEXT/HTML"));
	CHECK(wants("application/javascript"));
	CHECK(!wants("text/plain; charset=iso-8859-1"));
	CHECK(!wants("application/json"));
	CHECK(!wants("image/svg+xml"));
	CHECK(!wants("application/xml"));
	CHECK(!wants("application/javascripts"));
	CHECK(!wants("image/png"));
	CHECK(!wants("text/"));
}
