/* SPDX-License-Identifier: MIT */
/*
 * The media types sehttpd sends: --mime EXT=TYPE first, then the core's
 * built-in table's extensions (as khttpd sends them), then the system's
 * /etc/mime.types (Debian's media-types), then the built-in README,
 * LICENSE and the like, then --default-type.
 * Built once at start-up; read-only while threads serve.
 */
#ifndef SEHTTPD_MIME_MAP_H
#define SEHTTPD_MIME_MAP_H

#include <stdbool.h>
#include <stddef.h>

#define MIME_TYPES_DEFAULT "/etc/mime.types"
/* The longest type accepted from the command line or a mime.types line. */
#define MIME_TYPE_MAX 255

struct mime_map;

/*
 * Checks a --mime argument, "EXT=TYPE" (EXT with or without its leading
 * dot, 1 to HTTP_MIME_EXT_MAX bytes, no '/' or '.' inside); false when it
 * is malformed.
 */
bool mime_map_arg_valid(const char *arg);
/* Checks a --default-type value. */
bool mime_map_type_valid(const char *type);

/*
 * Builds the map: types_file (NULL: none; a missing MIME_TYPES_DEFAULT is
 * no error) read first, then the count --mime arguments (already checked),
 * later ones overriding earlier; default_type NULL for HTTP_MIME_DEFAULT.
 * Returns NULL with a message in err when the file cannot be read or
 * memory runs out.
 */
struct mime_map *mime_map_build(const char *types_file, const char *const *args,
				size_t count, const char *default_type,
				char *err, size_t errlen);
void mime_map_free(struct mime_map *m);

/* The type to send for a file name or path (m NULL: the core's table). */
const char *mime_map_type(const struct mime_map *m, const char *name,
			  size_t len);

#endif /* SEHTTPD_MIME_MAP_H */
