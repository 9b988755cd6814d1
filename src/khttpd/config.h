/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The site as module parameters give it (index_names=, error_pages=, spa=,
 * listing=, dotfiles=), checked by the core's rules as sehttpd's flags are.
 */
#ifndef KHTTPD_CONFIG_H
#define KHTTPD_CONFIG_H

#include "http/serve.h"

/*
 * Fills site from the parameters.  index_names and error_pages are lists
 * separated by ',' ("index.html,index.htm"; "404=/e/404.html,500=/e.html")
 * that are split in place, so site points into them.  Returns 0, or
 * -EINVAL after saying what is wrong in the kernel log.
 */
int khttpd_site_build(struct http_site *site, char *index_names,
		      char *error_pages, const char *spa);

/*
 * The header lines cors= adds to every response (as sehttpd's --cors):
 * Access-Control-Allow-Origin, and Vary: Origin for one origin.  NULL
 * with no origin; an ERR_PTR for a bad one, said in the kernel log.
 */
char *khttpd_cors_lines(const char *origin);

#endif /* KHTTPD_CONFIG_H */
