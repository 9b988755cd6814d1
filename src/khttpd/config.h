/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The site as module parameters give it (index_names=, error_pages=, spa=,
 * listing=, dotfiles=), checked by the core's rules as sehttpd's flags are.
 */
#ifndef KHTTPD_CONFIG_H
#define KHTTPD_CONFIG_H

#include "http/response.h"
#include "http/serve.h"

/*
 * Fills site from the parameters.  index_names and error_pages are lists
 * separated by ',' ("index.html,index.htm"; "404=/e/404.html,500=/e.html")
 * that are split in place, so site points into them.  Returns 0, or
 * -EINVAL after saying what is wrong in the kernel log.
 */
int khttpd_site_build(struct http_site *site, char *index_names,
		      char *error_pages, const char *spa);

/* What headers= and cors= add to responses, as sehttpd's --header, --cors. */
struct khttpd_header_rules {
	struct http_header_rule *rules; /* headers=' lines, then cors=' */
	size_t count;
	char *args; /* headers= split in place: prefixes point in */
	char *lines; /* the formatted lines, which rules point in */
	bool cors;
};

/* All the rules together add at most this much to a response head. */
#define KHTTPD_HEADER_RULES_MAX 384

/*
 * Builds r from headers= (lines "[/prefix/:]Name: value" separated by
 * '|', since a value may hold commas) and cors= (an origin or '*', or
 * NULL).  Returns 0, or -EINVAL (or -ENOMEM) after saying what is wrong in
 * the kernel log; khttpd_header_rules_free() in both cases.
 */
int khttpd_header_rules_build(struct khttpd_header_rules *r,
			      const char *headers, const char *cors);
void khttpd_header_rules_free(struct khttpd_header_rules *r);

#endif /* KHTTPD_CONFIG_H */
