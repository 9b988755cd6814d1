// SPDX-License-Identifier: GPL-2.0
/*
 * khttpd: the static file server's HTTP core (src/http) serving a directory
 * from inside the kernel.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/init.h>
#include <linux/kernel.h>
#include <linux/kobject.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/sysfs.h>

#include "cache.h"
#include "gzip.h"
#include "khttpd.h"

static ushort port = 8081;
module_param(port, ushort, 0444);
MODULE_PARM_DESC(port, "TCP port to listen on, all IPv4 addresses (8081)");

static char *root = "/var/www";
module_param(root, charp, 0444);
MODULE_PARM_DESC(root, "Directory to serve; must exist (/var/www)");

static int backlog = 128;
module_param(backlog, int, 0444);
MODULE_PARM_DESC(backlog, "Listen backlog (128)");

static uint timeout_ms = 15000;
module_param(timeout_ms, uint, 0444);
MODULE_PARM_DESC(timeout_ms,
		 "Idle, request-head and send-progress timeout in ms (15000)");

static uint max_conns = 10000;
module_param(max_conns, uint, 0444);
MODULE_PARM_DESC(max_conns,
		 "Connections served at once; more are closed at once (10000)");

static bool listing = true;
module_param(listing, bool, 0444);
MODULE_PARM_DESC(listing, "List directories without index.html (on)");

static uint cache_kb = 65536;
module_param(cache_kb, uint, 0444);
MODULE_PARM_DESC(cache_kb, "Content cache size in KiB, 0 to disable (65536)");

static struct khttpd_server server;

/*
 * /sys/module/khttpd/stats: connections open now, and those closed at once
 * because max_conns were open.
 */
static ssize_t connections_show(struct kobject *kobj,
				struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%d\n", atomic_read(&server.nconns));
}

static ssize_t refused_show(struct kobject *kobj, struct kobj_attribute *attr,
			    char *buf)
{
	return sysfs_emit(buf, "%ld\n", atomic_long_read(&server.refused));
}

static struct kobj_attribute connections_attr = __ATTR_RO(connections);
static struct kobj_attribute refused_attr = __ATTR_RO(refused);

static struct attribute *stats_attrs[] = {
	&connections_attr.attr,
	&refused_attr.attr,
	NULL,
};

static const struct attribute_group stats_group = {
	.attrs = stats_attrs,
};

static struct kobject *stats;

static int stats_add(void)
{
	int err;

	stats = kobject_create_and_add("stats", &THIS_MODULE->mkobj.kobj);
	if (!stats)
		return -ENOMEM;
	err = sysfs_create_group(stats, &stats_group);
	if (err) {
		kobject_put(stats);
		stats = NULL;
	}
	return err;
}

/* Waits for readers in progress: none reads the server after this. */
static void stats_remove(void)
{
	kobject_put(stats);
}

static int __init khttpd_init(void)
{
	struct khttpd_config cfg = {
		.root = root,
		.port = port,
		.backlog = backlog,
		.timeout_ms = timeout_ms,
		.max_conns = max_conns,
		.listing = listing,
	};
	int err;

	if (!root || !root[0] || backlog <= 0 || timeout_ms == 0 ||
	    max_conns == 0) {
		pr_err("root must be set, backlog, timeout_ms and max_conns positive\n");
		return -EINVAL;
	}
	err = khttpd_gzip_init();
	if (err)
		return err;
	err = khttpd_cache_init((size_t)cache_kb * 1024);
	if (err)
		goto err_gzip;
	err = khttpd_server_start(&server, &cfg);
	if (err)
		goto err_cache;
	err = stats_add();
	if (err)
		goto err_server;
	pr_info("serving %s on port %u\n", root, port);
	return 0;

err_server:
	khttpd_server_stop(&server);
err_cache:
	khttpd_cache_exit();
err_gzip:
	khttpd_gzip_exit();
	return err;
}

static void __exit khttpd_exit(void)
{
	stats_remove();
	khttpd_server_stop(&server);
	khttpd_cache_exit();
	khttpd_gzip_exit();
	pr_info("stopped\n");
}

module_init(khttpd_init);
module_exit(khttpd_exit);

MODULE_LICENSE("GPL");
MODULE_AUTHOR("sehttpd authors");
MODULE_DESCRIPTION("In-kernel static HTTP/1.1 server");
