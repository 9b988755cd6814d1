// SPDX-License-Identifier: GPL-2.0
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include "mime_map.h"

#include <linux/errno.h>
#include <linux/slab.h>
#include <linux/string.h>

/*
 * type (len bytes) as responses carry it: an ERR_PTR(-EINVAL) when it is
 * not a media type, NULL when memory runs out.
 */
static char *khttpd_mime_type_copy(const char *type, size_t len)
{
	if (len > KHTTPD_MIME_TYPE_MAX || !http_mime_type_valid(type, len))
		return ERR_PTR(-EINVAL);
	return kasprintf(
		GFP_KERNEL, "%.*s%s", (int)len, type,
		http_mime_wants_charset(type, len) ? HTTP_MIME_CHARSET : "");
}

static int khttpd_mime_map_add(struct khttpd_mime_map *m, const char *arg)
{
	struct khttpd_mime_override *o = &m->overrides[m->count];
	const char *eq = strchr(arg, '=');
	char *type;

	if (!eq || !http_mime_ext_copy(o->ext, arg, eq - arg)) {
		pr_err("mime: '%s' is not EXT=TYPE with an extension of 1 to %d bytes\n",
		       arg, HTTP_MIME_EXT_MAX);
		return -EINVAL;
	}
	type = khttpd_mime_type_copy(eq + 1, strlen(eq + 1));
	if (IS_ERR_OR_NULL(type)) {
		if (!type)
			return -ENOMEM;
		pr_err("mime: '%s': not a media type (type/subtype[; param=value])\n",
		       arg);
		return -EINVAL;
	}
	o->type = type;
	m->count++;
	return 0;
}

int khttpd_mime_map_build(struct khttpd_mime_map *m, const char *mime,
			  const char *default_type)
{
	size_t n = 1;
	char *list, *copy, *arg;
	const char *p;
	int err = 0;

	memset(m, 0, sizeof(*m));
	if (default_type && *default_type) {
		m->default_type = khttpd_mime_type_copy(default_type,
							strlen(default_type));
		if (IS_ERR_OR_NULL(m->default_type)) {
			err = m->default_type ? -EINVAL : -ENOMEM;
			m->default_type = NULL;
			if (err == -EINVAL)
				pr_err("default_type: '%s' is not a media type\n",
				       default_type);
			return err;
		}
	}
	if (!mime || !*mime)
		return 0;
	for (p = mime; *p; p++)
		n += *p == ',';
	m->overrides = kcalloc(n, sizeof(*m->overrides), GFP_KERNEL);
	list = copy = kstrdup(mime, GFP_KERNEL);
	if (!m->overrides || !copy) {
		kfree(copy);
		return -ENOMEM;
	}
	while (!err && (arg = strsep(&list, ",")))
		err = khttpd_mime_map_add(m, arg);
	kfree(copy);
	return err;
}

void khttpd_mime_map_free(struct khttpd_mime_map *m)
{
	size_t i;

	for (i = 0; i < m->count; i++)
		kfree(m->overrides[i].type);
	kfree(m->overrides);
	kfree(m->default_type);
	memset(m, 0, sizeof(*m));
}

const char *khttpd_mime_map_type(const struct khttpd_mime_map *m,
				 const char *name, size_t len)
{
	char ext[HTTP_MIME_EXT_MAX + 1];
	const char *type;
	size_t i;

	if (m->count && http_mime_extension(name, len, ext)) {
		for (i = m->count; i--;) {
			if (!strcmp(m->overrides[i].ext, ext))
				return m->overrides[i].type;
		}
	}
	type = http_mime_builtin(name, len);
	if (type)
		return type;
	return m->default_type ? m->default_type : HTTP_MIME_DEFAULT;
}
