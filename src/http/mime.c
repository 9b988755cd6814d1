// SPDX-License-Identifier: MIT
#include "mime.h"
#include "token.h"

struct mime_entry {
	const char *ext; /* lower case, sorted by strcmp for binary search */
	const char *type;
};

static const struct mime_entry mime_table[] = {
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

/* Names of text files that have no extension (or an unknown one, as in
 * "README.Debian"); lower case, sorted by strcmp. */
static const char *const text_names[] = {
	"authors",	"bugs",	       "changelog", "changes", "contributing",
	"contributors", "copying",     "copyright", "credits", "dockerfile",
	"faq",		"gnumakefile", "hacking",   "history", "install",
	"kbuild",	"kconfig",     "licence",   "license", "maintainers",
	"makefile",	"news",	       "notice",    "patents", "readme",
	"thanks",	"todo",	       "version",
};

/* The start of the last path segment of name[0..len). */
static size_t basename_at(const char *name, size_t len)
{
	size_t i = len;

	while (i > 0 && name[i - 1] != '/')
		i--;
	return i;
}

size_t http_mime_extension(const char *name, size_t len, char *ext)
{
	size_t base = basename_at(name, len), dot = len, n;

	for (size_t i = len; i > base; i--) {
		if (name[i - 1] == '.') {
			dot = i - 1;
			break;
		}
	}
	n = len - dot;
	if (n < 2 || n > HTTP_MIME_EXT_MAX + 1)
		return 0;
	n--; /* without the dot */
	for (size_t i = 0; i < n; i++) {
		ext[i] = http_tolower(name[dot + 1 + i]);
		if (ext[i] == '\0') /* would cut a strcmp() short */
			return 0;
	}
	ext[n] = '\0';
	return n;
}

bool http_mime_ext_copy(char *out, const char *ext, size_t len)
{
	if (len && ext[0] == '.') {
		ext++;
		len--;
	}
	if (!len || len > HTTP_MIME_EXT_MAX)
		return false;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)ext[i];

		if (c <= ' ' || c >= 0x7f || c == '/' || c == '.' || c == '=')
			return false;
		out[i] = http_tolower((char)c);
	}
	out[len] = '\0';
	return true;
}

const char *http_mime_by_extension(const char *ext)
{
	size_t lo = 0, hi = ARRAY_SIZE(mime_table);

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int cmp = strcmp(ext, mime_table[mid].ext);

		if (cmp == 0)
			return mime_table[mid].type;
		if (cmp < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

/* Whether the segment's part before its first '.' is a text file name. */
static bool is_text_name(const char *name, size_t len)
{
	size_t n = 0, lo = 0, hi = ARRAY_SIZE(text_names);
	char stem[16];

	while (n < len && name[n] != '.') {
		if (n == sizeof(stem) - 1 || name[n] == '\0')
			return false;
		stem[n] = http_tolower(name[n]);
		n++;
	}
	stem[n] = '\0';
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int cmp = strcmp(stem, text_names[mid]);

		if (cmp == 0)
			return true;
		if (cmp < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return false;
}

const char *http_mime_builtin(const char *name, size_t len)
{
	char ext[HTTP_MIME_EXT_MAX + 1];
	size_t base = basename_at(name, len);
	const char *type = NULL;

	if (http_mime_extension(name, len, ext))
		type = http_mime_by_extension(ext);
	if (!type && is_text_name(name + base, len - base))
		type = HTTP_MIME_TEXT_NAME;
	return type;
}

const char *http_mime_type(const char *name, size_t len)
{
	const char *type = http_mime_builtin(name, len);

	return type ? type : HTTP_MIME_DEFAULT;
}

/* RFC 9110 8.3.1: type "/" subtype *( OWS ";" OWS parameter ), where a
 * parameter is token "=" ( token / quoted-string ). */
bool http_mime_type_valid(const char *s, size_t len)
{
	size_t i = 0, n;

	for (n = 0; i < len && http_is_tchar(s[i]); i++)
		n++;
	if (!n || i == len || s[i++] != '/')
		return false;
	for (n = 0; i < len && http_is_tchar(s[i]); i++)
		n++;
	if (!n)
		return false;
	while (i < len) {
		while (i < len && http_is_ows(s[i]))
			i++;
		if (i == len || s[i++] != ';')
			return false;
		while (i < len && http_is_ows(s[i]))
			i++;
		for (n = 0; i < len && http_is_tchar(s[i]); i++)
			n++;
		if (!n || i == len || s[i++] != '=')
			return false;
		if (i < len && s[i] == '"') {
			for (i++; i < len && s[i] != '"'; i++) {
				unsigned char c = (unsigned char)s[i];

				if (c == '\\' && i + 1 < len)
					c = (unsigned char)s[++i];
				if ((c < 0x20 && c != '\t') || c == 0x7f)
					return false;
			}
			if (i++ == len)
				return false;
		} else {
			for (n = 0; i < len && http_is_tchar(s[i]); i++)
				n++;
			if (!n)
				return false;
		}
	}
	return true;
}

bool http_mime_wants_charset(const char *type, size_t len)
{
	static const char js[] = "application/javascript";

	if (memchr(type, ';', len))
		return false;
	return (len > 5 && http_eq_lower(type, "text/", 5)) ||
	       (len == sizeof(js) - 1 && http_eq_lower(type, js, len));
}

bool http_mime_compressible(const char *type)
{
	static const char *const prefixes[] = {
		"text/",
		"application/json",
		"application/ld+json",
		"application/manifest+json",
		"application/xml",
		"application/xhtml+xml",
		"application/atom+xml",
		"application/rss+xml",
		"application/wasm",
		"application/toml",
		"application/yaml",
		"application/rtf",
		"application/postscript",
		"image/svg+xml",
		"image/bmp",
		"image/x-icon",
		"font/ttf",
		"font/otf",
		"application/vnd.ms-fontobject",
	};

	for (size_t i = 0; i < ARRAY_SIZE(prefixes); i++) {
		if (!strncmp(type, prefixes[i], strlen(prefixes[i])))
			return true;
	}
	return false;
}
