// SPDX-License-Identifier: GPL-2.0
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include "config.h"

#include <linux/err.h>
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "http/site.h"

static int khttpd_site_index(struct http_site *site, char *list)
{
	char *name;

	if (!list || !*list) {
		for (site->nindex = 0; site->nindex < HTTP_DEFAULT_INDEX_COUNT;
		     site->nindex++)
			site->index[site->nindex] =
				http_default_index[site->nindex];
		return 0;
	}
	while ((name = strsep(&list, ","))) {
		if (!http_site_index_name_ok(name)) {
			pr_err("index_names: '%s' is not a file name\n", name);
			return -EINVAL;
		}
		if (site->nindex == HTTP_SITE_MAX_INDEX) {
			pr_err("index_names: at most %d names\n",
			       HTTP_SITE_MAX_INDEX);
			return -EINVAL;
		}
		site->index[site->nindex++] = name;
	}
	return 0;
}

static int khttpd_site_error_pages(struct http_site *site, char *list)
{
	char *arg;

	while (list && *list && (arg = strsep(&list, ","))) {
		struct http_error_page *p;

		if (site->nerror_pages == HTTP_SITE_MAX_ERROR_PAGES) {
			pr_err("error_pages: at most %d pages\n",
			       HTTP_SITE_MAX_ERROR_PAGES);
			return -EINVAL;
		}
		p = &site->error_pages[site->nerror_pages++];
		if (http_site_split_error_page(arg, &p->status, &p->path) ||
		    !http_site_page_path_ok(p->path)) {
			pr_err("error_pages: '%s' is not CODE=/PATH with a 4xx or 5xx CODE and a path beneath root\n",
			       arg);
			return -EINVAL;
		}
	}
	return 0;
}

int khttpd_site_build(struct http_site *site, char *index_names,
		      char *error_pages, const char *spa)
{
	int err = khttpd_site_index(site, index_names);

	if (!err)
		err = khttpd_site_error_pages(site, error_pages);
	if (err)
		return err;
	if (spa && *spa) {
		if (!http_site_page_path_ok(spa)) {
			pr_err("spa: '%s' is not a path beneath root, from '/'\n",
			       spa);
			return -EINVAL;
		}
		site->spa = spa;
	}
	return 0;
}

char *khttpd_cors_lines(const char *origin)
{
	char *lines;

	if (!origin || !*origin)
		return NULL;
	if (http_site_cors_origin_check(origin) != HTTP_ORIGIN_OK) {
		pr_err("cors: '%s' is not '*' or scheme://host[:port]\n",
		       origin);
		return ERR_PTR(-EINVAL);
	}
	/* The answer names one origin: caches must not share it. */
	lines = kasprintf(GFP_KERNEL, "Access-Control-Allow-Origin: %s\r\n%s",
			  origin,
			  strcmp(origin, "*") ? "Vary: Origin\r\n" : "");
	return lines ? lines : ERR_PTR(-ENOMEM);
}
