// SPDX-License-Identifier: GPL-2.0
/*
 * khttpd: the static file server's HTTP core (src/http) serving a directory
 * from inside the kernel.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/err.h>
#include <linux/init.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>

#include "cache.h"
#include "compress.h"
#include "config.h"
#include "http/body.h"
#include "khttpd.h"
#include "mime_map.h"
#include "offload.h"
#include "stats.h"

static ushort port = 8081;
module_param(port, ushort, 0444);
MODULE_PARM_DESC(port, "TCP port to listen on, all IPv4 addresses; 0: one the "
		       "kernel picks, shown here once loaded (8081)");

static char *root = "/var/www";
module_param(root, charp, 0444);
MODULE_PARM_DESC(
	root,
	"Directory to serve; must exist, looked up again every second (/var/www)");

static int backlog = 128;
module_param(backlog, int, 0444);
MODULE_PARM_DESC(backlog, "Listen backlog (128)");

static uint timeout_ms = 15000;
module_param(timeout_ms, uint, 0444);
MODULE_PARM_DESC(timeout_ms,
		 "Idle, request-head and send-progress timeout in ms (15000)");

static uint min_rate = HTTP_MIN_RATE_DEFAULT;
module_param(min_rate, uint, 0444);
MODULE_PARM_DESC(min_rate,
		 "Bytes per second a response or skipped body must average "
		 "after the timeout; 0: any rate (1024)");

static uint max_conns = 10000;
module_param(max_conns, uint, 0444);
MODULE_PARM_DESC(max_conns,
		 "Connections served at once; more are closed at once (10000)");

static bool listing = true;
module_param(listing, bool, 0444);
MODULE_PARM_DESC(listing, "List directories without an index (on)");

static bool dotfiles;
module_param(dotfiles, bool, 0444);
MODULE_PARM_DESC(dotfiles,
		 "Serve and list names starting with '.' (off: 404 and hidden, "
		 "but /.well-known/ is served)");

static bool follow_symlinks;
module_param(follow_symlinks, bool, 0444);
MODULE_PARM_DESC(follow_symlinks,
		 "Follow symlinks that lead out of root (off: 403), as "
		 "sehttpd's --follow-symlinks");

static bool compress = true;
module_param(compress, bool, 0444);
MODULE_PARM_DESC(compress,
		 "Compress responses and send precompressed siblings (on; "
		 "compress=0 is sehttpd's --no-compress)");

static char *index_names;
module_param(index_names, charp, 0444);
MODULE_PARM_DESC(index_names,
		 "Index file names, comma-separated, first found wins "
		 "(index.html,index.htm)");

static char *error_pages;
module_param(error_pages, charp, 0444);
MODULE_PARM_DESC(error_pages,
		 "Pages for error statuses: CODE=/PATH, comma-separated, "
		 "PATH beneath root (none)");

static char *spa;
module_param(spa, charp, 0444);
MODULE_PARM_DESC(spa,
		 "Page (/PATH) for missing paths without a file extension, "
		 "with 200, for single-page apps (off)");

static char *cors;
module_param(cors, charp, 0444);
MODULE_PARM_DESC(cors,
		 "Access-Control-Allow-Origin on every response (an origin "
		 "scheme://host[:port] or '*') and CORS preflights (off)");

static char *headers;
module_param(headers, charp, 0444);
MODULE_PARM_DESC(headers,
		 "Header lines for successful responses, '|' between them: "
		 "'Name: value', or '/PREFIX/:Name: value' for paths under "
		 "PREFIX, as sehttpd's --header (none)");

static char *mime;
module_param(mime, charp, 0444);
MODULE_PARM_DESC(mime, "Media types by extension over the built-in table, "
		       "'EXT=TYPE,...' as sehttpd's --mime (none)");

static char *default_type;
module_param(default_type, charp, 0444);
MODULE_PARM_DESC(default_type, "Media type of files the table does not know "
			       "(application/octet-stream)");

static uint cache_kb = 65536;
module_param(cache_kb, uint, 0444);
MODULE_PARM_DESC(cache_kb, "Content cache size in KiB, 0 to disable (65536)");

static struct khttpd_server server;
/* The lists above, split by khttpd_site_build(): the site points in. */
static char *index_copy, *pages_copy;
static struct khttpd_header_rules rules;
static struct khttpd_mime_map mime_map;

static int __init khttpd_init(void)
{
	struct khttpd_config cfg = {
		.root = root,
		.port = port,
		.backlog = backlog,
		.timeout_ms = timeout_ms,
		.min_rate = min_rate,
		.max_conns = max_conns,
		.site = { .listing = listing, .dotfiles = dotfiles },
		.compress = compress,
		.follow_symlinks = follow_symlinks,
	};
	int err;

	if (!root || !root[0] || backlog <= 0 || timeout_ms == 0 ||
	    max_conns == 0) {
		pr_err("root must be set, backlog, timeout_ms and max_conns positive\n");
		return -EINVAL;
	}
	index_copy = kstrdup(index_names ? index_names : "", GFP_KERNEL);
	pages_copy = kstrdup(error_pages ? error_pages : "", GFP_KERNEL);
	err = index_copy && pages_copy ? 0 : -ENOMEM;
	if (!err)
		err = khttpd_site_build(&cfg.site, index_copy, pages_copy, spa);
	if (err)
		goto err_site;
	err = khttpd_header_rules_build(&rules, headers, cors);
	if (err)
		goto err_site;
	cfg.rules = &rules;
	err = khttpd_mime_map_build(&mime_map, mime, default_type);
	if (err)
		goto err_site;
	cfg.mime = &mime_map;
	err = khttpd_offload_init();
	if (err)
		goto err_site;
	err = khttpd_gzip_init();
	if (err)
		goto err_offload;
	err = khttpd_cache_init((size_t)cache_kb * 1024);
	if (err)
		goto err_gzip;
	err = khttpd_stats_init();
	if (err)
		goto err_cache;
	err = khttpd_server_start(&server, &cfg);
	if (err)
		goto err_stats;
	/* For port=0, the one the kernel picked, in the parameter too. */
	port = server.port;
	pr_info("serving %s on port %u\n", root, port);
	return 0;

err_stats:
	khttpd_stats_exit();
err_cache:
	khttpd_cache_exit();
err_gzip:
	khttpd_gzip_exit();
err_offload:
	khttpd_offload_exit();
err_site:
	khttpd_mime_map_free(&mime_map);
	khttpd_header_rules_free(&rules);
	kfree(pages_copy);
	kfree(index_copy);
	return err;
}

static void __exit khttpd_exit(void)
{
	khttpd_server_stop(&server);
	khttpd_stats_exit();
	khttpd_cache_exit();
	khttpd_gzip_exit();
	khttpd_offload_exit();
	khttpd_mime_map_free(&mime_map);
	khttpd_header_rules_free(&rules);
	kfree(pages_copy);
	kfree(index_copy);
	pr_info("stopped\n");
}

module_init(khttpd_init);
module_exit(khttpd_exit);

MODULE_LICENSE("GPL");
MODULE_AUTHOR("sehttpd authors");
MODULE_DESCRIPTION("In-kernel static HTTP/1.1 server");
