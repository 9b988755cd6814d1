// SPDX-License-Identifier: MIT
/*
 * A sorted array of extensions, each with its type; a type without
 * parameters that is text gets "; charset=utf-8" (http_mime_wants_charset),
 * as the built-in table's do.  Types are kept once each: mime.types names
 * hundreds of extensions for a few hundred types.
 */
#include "mime_map.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "http/mime.h"

struct mime_ext {
	char ext[HTTP_MIME_EXT_MAX + 1]; /* lower case */
	size_t seq; /* order of definition: the last one wins */
	bool forced; /* from --mime: over the built-in table */
	const char *type;
};

struct mime_map {
	struct mime_ext *exts;
	size_t count, cap;
	char **types; /* owned strings */
	size_t ntypes, types_cap;
	const char *default_type;
};

bool mime_map_type_valid(const char *type)
{
	size_t len = strlen(type);

	return len <= MIME_TYPE_MAX && http_mime_type_valid(type, len);
}

bool mime_map_arg_valid(const char *arg)
{
	const char *eq = strchr(arg, '=');
	char ext[HTTP_MIME_EXT_MAX + 1];

	return eq && http_mime_ext_copy(ext, arg, (size_t)(eq - arg)) &&
	       mime_map_type_valid(eq + 1);
}

/* The map's copy of type (len bytes), with a charset added when due. */
static const char *intern(struct mime_map *m, const char *type, size_t len)
{
	static const char charset[] = HTTP_MIME_CHARSET;
	bool add = http_mime_wants_charset(type, len);
	size_t n = len + (add ? sizeof(charset) - 1 : 0);
	char *s;

	for (size_t i = 0; i < m->ntypes; i++) {
		if (!strncmp(m->types[i], type, len) &&
		    (add ? !strcmp(m->types[i] + len, charset) :
			   !m->types[i][len]))
			return m->types[i];
	}
	if (m->ntypes == m->types_cap) {
		size_t cap = m->types_cap ? 2 * m->types_cap : 64;
		char **t = realloc(m->types, cap * sizeof(*t));

		if (!t)
			return NULL;
		m->types = t;
		m->types_cap = cap;
	}
	s = malloc(n + 1);
	if (!s)
		return NULL;
	memcpy(s, type, len);
	if (add)
		memcpy(s + len, charset, sizeof(charset) - 1);
	s[n] = '\0';
	m->types[m->ntypes++] = s;
	return s;
}

static int add(struct mime_map *m, const char *ext, size_t ext_len,
	       const char *type, bool forced)
{
	struct mime_ext *e;

	if (m->count == m->cap) {
		size_t cap = m->cap ? 2 * m->cap : 256;
		struct mime_ext *p = realloc(m->exts, cap * sizeof(*p));

		if (!p)
			return -1;
		m->exts = p;
		m->cap = cap;
	}
	e = &m->exts[m->count];
	if (!http_mime_ext_copy(e->ext, ext, ext_len))
		return 0; /* a mime.types extension too long to look up */
	e->seq = m->count++;
	e->forced = forced;
	e->type = type;
	return 0;
}

/* One line of mime.types: "type ext ext ...", '#' starting a comment. */
static int add_line(struct mime_map *m, char *line)
{
	static const char space[] = " \t\r\n";
	char *save = NULL, *type = strtok_r(line, space, &save), *ext;
	const char *t;

	if (!type || type[0] == '#' || !mime_map_type_valid(type))
		return 0;
	t = NULL;
	while ((ext = strtok_r(NULL, space, &save)) && ext[0] != '#') {
		if (!t && !(t = intern(m, type, strlen(type))))
			return -1;
		if (add(m, ext, strlen(ext), t, false))
			return -1;
	}
	return 0;
}

static int load_file(struct mime_map *m, const char *path, bool optional,
		     char *err, size_t errlen)
{
	FILE *f = fopen(path, "re");
	char *line = NULL;
	size_t cap = 0;
	int ret = 0;

	if (!f) {
		if (optional && errno == ENOENT)
			return 0;
		snprintf(err, errlen, "cannot read %s: %s", path,
			 strerror(errno));
		return -1;
	}
	while (getline(&line, &cap, f) > 0) {
		if (add_line(m, line)) {
			snprintf(err, errlen, "out of memory");
			ret = -1;
			break;
		}
	}
	if (!ret && ferror(f)) {
		snprintf(err, errlen, "cannot read %s", path);
		ret = -1;
	}
	free(line);
	fclose(f);
	return ret;
}

static int by_ext_then_seq(const void *a, const void *b)
{
	const struct mime_ext *x = a, *y = b;
	int cmp = strcmp(x->ext, y->ext);

	if (cmp)
		return cmp;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Sorts by extension and keeps the last definition of each. */
static void finish(struct mime_map *m)
{
	size_t out = 0;

	if (!m->count)
		return;
	qsort(m->exts, m->count, sizeof(*m->exts), by_ext_then_seq);
	for (size_t i = 0; i < m->count; i++) {
		if (out && !strcmp(m->exts[out - 1].ext, m->exts[i].ext))
			out--;
		m->exts[out++] = m->exts[i];
	}
	m->count = out;
}

struct mime_map *mime_map_build(const char *types_file, const char *const *args,
				size_t count, const char *default_type,
				char *err, size_t errlen)
{
	struct mime_map *m = calloc(1, sizeof(*m));

	if (!m) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	if (types_file &&
	    load_file(m, types_file, !strcmp(types_file, MIME_TYPES_DEFAULT),
		      err, errlen)) {
		mime_map_free(m);
		return NULL;
	}
	for (size_t i = 0; i < count; i++) {
		const char *eq = strchr(args[i], '=');
		const char *t = eq ? intern(m, eq + 1, strlen(eq + 1)) : NULL;

		if (!t || add(m, args[i], (size_t)(eq - args[i]), t, true)) {
			snprintf(err, errlen, "out of memory");
			mime_map_free(m);
			return NULL;
		}
	}
	m->default_type = HTTP_MIME_DEFAULT;
	if (default_type && !(m->default_type = intern(m, default_type,
						       strlen(default_type)))) {
		snprintf(err, errlen, "out of memory");
		mime_map_free(m);
		return NULL;
	}
	finish(m);
	return m;
}

void mime_map_free(struct mime_map *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->ntypes; i++)
		free(m->types[i]);
	free(m->types);
	free(m->exts);
	free(m);
}

const char *mime_map_type(const struct mime_map *m, const char *name,
			  size_t len)
{
	char ext[HTTP_MIME_EXT_MAX + 1];
	const struct mime_ext *found = NULL;
	const char *type;

	if (!m)
		return http_mime_type(name, len);
	if (m->count && http_mime_extension(name, len, ext)) {
		size_t lo = 0, hi = m->count;

		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			int cmp = strcmp(ext, m->exts[mid].ext);

			if (cmp == 0) {
				found = &m->exts[mid];
				break;
			}
			if (cmp < 0)
				hi = mid;
			else
				lo = mid + 1;
		}
	}
	if (found && found->forced)
		return found->type;
	/*
	 * The built-in table's web types (.ts video/mp2t, .mjs) over the
	 * system file's (Debian: .ts a Qt translation): both servers agree.
	 */
	if (found && (type = http_mime_by_extension(ext)))
		return type;
	if (found)
		return found->type;
	type = http_mime_builtin(name, len);
	return type ? type : m->default_type;
}
