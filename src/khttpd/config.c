// SPDX-License-Identifier: GPL-2.0
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include "config.h"

#include <linux/err.h>
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "http/header_arg.h"
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

static int khttpd_header_rules_cors(struct khttpd_header_rules *r,
				    const char *origin, size_t *used)
{
	if (http_site_cors_origin_check(origin) != HTTP_ORIGIN_OK) {
		pr_err("cors: '%s' is not '*' or scheme://host[:port]\n",
		       origin);
		return -EINVAL;
	}
	*used += http_header_rule_cors(&r->rules[r->count++], r->lines + *used,
				       origin);
	r->cors = true;
	return 0;
}

int khttpd_header_rules_build(struct khttpd_header_rules *r,
			      const char *headers, const char *cors)
{
	size_t n = 1, need = 0, used = 0;
	bool with_cors = cors && *cors;
	char *list, *arg;

	memset(r, 0, sizeof(*r));
	if (headers && *headers) {
		const char *p;

		for (p = headers; *p; p++)
			n += *p == '|';
		need += strlen(headers) + 4 * n;
	}
	if (with_cors)
		need += strlen(cors) + 64;
	if (need > KHTTPD_HEADER_RULES_MAX) {
		pr_err("headers and cors add more than %d bytes to every response\n",
		       KHTTPD_HEADER_RULES_MAX);
		return -EINVAL;
	}
	r->rules = kcalloc(n + 1, sizeof(*r->rules), GFP_KERNEL);
	r->lines = kmalloc(need + 1, GFP_KERNEL);
	r->args = kstrdup(headers ? headers : "", GFP_KERNEL);
	if (!r->rules || !r->lines || !r->args)
		return -ENOMEM;
	list = r->args;
	while (*list && (arg = strsep(&list, "|"))) {
		struct http_header_arg h;
		enum http_header_arg_error e = http_header_arg_split(arg, &h);

		if (e == HTTP_HEADER_ARG_OK && with_cors)
			e = http_header_arg_check_cors(&h);
		if (e != HTTP_HEADER_ARG_OK) {
			pr_err("headers: '%s': %s%s%s\n", arg,
			       http_header_arg_error_text(e),
			       h.managed ? ": " : "",
			       h.managed ? h.managed : "");
			return -EINVAL;
		}
		used += http_header_rule_from_arg(&r->rules[r->count++],
						  r->lines + used, &h);
		if (!list)
			break;
	}
	return with_cors ? khttpd_header_rules_cors(r, cors, &used) : 0;
}

void khttpd_header_rules_free(struct khttpd_header_rules *r)
{
	kfree(r->rules);
	kfree(r->lines);
	kfree(r->args);
	memset(r, 0, sizeof(*r));
}
