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
	{ "atom", "application/atom+xml" },
	{ "avi", "video/x-msvideo" },
	{ "avif", "image/avif" },
	{ "bin", "application/octet-stream" },
	{ "bmp", "image/bmp" },
	{ "bz2", "application/x-bzip2" },
	{ "c", "text/plain; charset=utf-8" },
	{ "cjs", "text/javascript; charset=utf-8" },
	{ "conf", "text/plain; charset=utf-8" },
	{ "css", "text/css; charset=utf-8" },
	{ "csv", "text/csv; charset=utf-8" },
	{ "deb", "application/vnd.debian.binary-package" },
	{ "doc", "application/msword" },
	{ "docx", "application/vnd.openxmlformats-officedocument."
		  "wordprocessingml.document" },
	{ "eot", "application/vnd.ms-fontobject" },
	{ "epub", "application/epub+zip" },
	{ "flac", "audio/flac" },
	{ "gif", "image/gif" },
	{ "gz", "application/gzip" },
	{ "h", "text/plain; charset=utf-8" },
	{ "heic", "image/heic" },
	{ "htm", "text/html; charset=utf-8" },
	{ "html", "text/html; charset=utf-8" },
	{ "ico", "image/x-icon" },
	{ "ics", "text/calendar; charset=utf-8" },
	{ "iso", "application/x-iso9660-image" },
	{ "jar", "application/java-archive" },
	{ "jpeg", "image/jpeg" },
	{ "jpg", "image/jpeg" },
	{ "js", "text/javascript; charset=utf-8" },
	{ "json", "application/json" },
	{ "jsonld", "application/ld+json" },
	{ "log", "text/plain; charset=utf-8" },
	{ "m3u8", "application/vnd.apple.mpegurl" },
	{ "m4a", "audio/mp4" },
	{ "m4v", "video/mp4" },
	{ "manifest", "text/cache-manifest; charset=utf-8" },
	{ "map", "application/json" },
	{ "md", "text/markdown; charset=utf-8" },
	{ "mid", "audio/midi" },
	{ "midi", "audio/midi" },
	{ "mjs", "text/javascript; charset=utf-8" },
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
	{ "pdf", "application/pdf" },
	{ "png", "image/png" },
	{ "ppt", "application/vnd.ms-powerpoint" },
	{ "pptx", "application/vnd.openxmlformats-officedocument."
		  "presentationml.presentation" },
	{ "ps", "application/postscript" },
	{ "rar", "application/vnd.rar" },
	{ "rss", "application/rss+xml" },
	{ "rtf", "application/rtf" },
	{ "sh", "text/x-shellscript; charset=utf-8" },
	{ "svg", "image/svg+xml" },
	{ "tar", "application/x-tar" },
	{ "tgz", "application/gzip" },
	{ "tif", "image/tiff" },
	{ "tiff", "image/tiff" },
	{ "toml", "application/toml" },
	{ "ts", "video/mp2t" },
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
	{ "xz", "application/x-xz" },
	{ "yaml", "application/yaml" },
	{ "yml", "application/yaml" },
	{ "zip", "application/zip" },
	{ "zst", "application/zstd" },
};

#define MIME_EXT_MAX 16

const char *http_mime_type(const char *name, size_t len)
{
	char ext[MIME_EXT_MAX];
	size_t dot = len, n, lo = 0, hi = ARRAY_SIZE(mime_table);

	for (size_t i = len; i > 0; i--) {
		if (name[i - 1] == '/')
			break;
		if (name[i - 1] == '.') {
			dot = i - 1;
			break;
		}
	}
	n = len - dot;
	if (n < 2 || n > MIME_EXT_MAX)
		return HTTP_MIME_DEFAULT;
	n--; /* without the dot */
	for (size_t i = 0; i < n; i++) {
		ext[i] = http_tolower(name[dot + 1 + i]);
		if (ext[i] == '\0') /* would cut the strcmp() short */
			return HTTP_MIME_DEFAULT;
	}
	ext[n] = '\0';

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
	return HTTP_MIME_DEFAULT;
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
