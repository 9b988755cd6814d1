/* SPDX-License-Identifier: MIT */
/* File name extension to media type. */
#ifndef HTTP_MIME_H
#define HTTP_MIME_H

#include "compat.h"

#define HTTP_MIME_DEFAULT "application/octet-stream"
/* What well-known extensionless text files (README, LICENSE...) are. */
#define HTTP_MIME_TEXT_NAME "text/plain; charset=utf-8"
/* The longest extension looked up, without its dot. */
#define HTTP_MIME_EXT_MAX 15

/*
 * The media type for a file name or path (only the part after the last '/'
 * and its last '.' matter, case-insensitively); HTTP_MIME_DEFAULT when the
 * extension is unknown or absent.  Text types carry "; charset=utf-8".
 */
const char *http_mime_type(const char *name, size_t len);

/*
 * The built-in table's type, NULL when it has none: by the extension, else
 * HTTP_MIME_TEXT_NAME for README, LICENSE, Makefile, copyright, changelog
 * and the like (also README.Debian, LICENSE.MIT: with an extension that
 * is not in the table).
 */
const char *http_mime_builtin(const char *name, size_t len);

/* The built-in table's type for a lower-case extension, NULL if none. */
const char *http_mime_by_extension(const char *ext);

/*
 * The extension of the last path segment of name, lower case and
 * NUL-terminated in ext (HTTP_MIME_EXT_MAX + 1 bytes); returns its
 * length, 0 when there is none of 1 to HTTP_MIME_EXT_MAX bytes.
 */
size_t http_mime_extension(const char *name, size_t len, char *ext);

/*
 * An extension an operator names (sehttpd --mime and mime.types, khttpd
 * mime=): len bytes at ext, a leading dot dropped, into out (HTTP_MIME_EXT_MAX
 * + 1 bytes) in lower case.  False when it is empty, too long, or holds a
 * space, a control byte, '/', '.' or '='.
 */
bool http_mime_ext_copy(char *out, const char *ext, size_t len);

/* What a text type given without parameters gets (http_mime_wants_charset). */
#define HTTP_MIME_CHARSET "; charset=utf-8"

/* A media type as a Content-Type value may be (RFC 9110 8.3.1). */
bool http_mime_type_valid(const char *type, size_t len);

/*
 * Whether a type given without parameters should get "; charset=utf-8":
 * text/... and application/javascript.  Not JSON (RFC 8259 defines no
 * charset: it is UTF-8) nor XML types such as image/svg+xml (the document
 * declares its encoding, and a charset parameter would override it).
 */
bool http_mime_wants_charset(const char *type, size_t len);

/* True for types worth compressing (text, JSON, JavaScript, SVG, wasm...). */
bool http_mime_compressible(const char *type);

#endif /* HTTP_MIME_H */
