/* SPDX-License-Identifier: MIT */
/* File name extension to media type. */
#ifndef HTTP_MIME_H
#define HTTP_MIME_H

#include "compat.h"

#define HTTP_MIME_DEFAULT "application/octet-stream"

/*
 * The media type for a file name or path (only the part after the last '/'
 * and its last '.' matter, case-insensitively); HTTP_MIME_DEFAULT when the
 * extension is unknown or absent.  Text types carry "; charset=utf-8".
 */
const char *http_mime_type(const char *name, size_t len);

/* True for types worth compressing (text, JSON, JavaScript, SVG, wasm...). */
bool http_mime_compressible(const char *type);

#endif /* HTTP_MIME_H */
