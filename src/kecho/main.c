// SPDX-License-Identifier: GPL-2.0
/*
 * kecho: echoes every byte a TCP client sends until it closes.  The
 * experiment it exists for compares serving each connection as a work item
 * on a concurrency-managed workqueue (bound or unbound, sleeping in recv or
 * driven by socket readiness) with an epoll server in user space.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/string.h>

#include "kecho.h"

static ushort port = 12345;
module_param(port, ushort, 0444);
MODULE_PARM_DESC(port, "TCP port to listen on; 0: one the kernel picks, "
		       "shown here once loaded (default 12345)");

static int backlog = 128;
module_param(backlog, int, 0444);
MODULE_PARM_DESC(backlog, "listen backlog (default 128)");

static bool bench;
module_param(bench, bool, 0444);
MODULE_PARM_DESC(bench,
		 "0: unbound workqueue (default); 1: bound, one pool per CPU");

static char *mode = "event";
module_param(mode, charp, 0444);
MODULE_PARM_DESC(mode,
		 "event: work runs only when a socket is ready (default); "
		 "classic: one work item per connection sleeping in recv");

static uint timeout_ms = 30000;
module_param(timeout_ms, uint, 0444);
MODULE_PARM_DESC(
	timeout_ms,
	"close a connection whose client sends or reads nothing for this long (default 30000)");

static uint max_conns = 4096;
module_param(max_conns, uint, 0444);
MODULE_PARM_DESC(
	max_conns,
	"connections served at once; more are closed when accepted (default 4096)");

static struct kecho_server server;

static int __init kecho_init(void)
{
	struct kecho_config cfg;
	bool event_driven;
	int err;

	if (!strcmp(mode, "event")) {
		event_driven = true;
	} else if (!strcmp(mode, "classic")) {
		event_driven = false;
	} else {
		pr_err("mode=%s: expected event or classic\n", mode);
		return -EINVAL;
	}
	if (backlog < 1) {
		pr_err("backlog=%d: expected at least 1\n", backlog);
		return -EINVAL;
	}
	if (!timeout_ms || !max_conns) {
		pr_err("timeout_ms and max_conns must be positive\n");
		return -EINVAL;
	}
	cfg.port = port;
	cfg.backlog = backlog;
	cfg.bound = bench;
	cfg.event_driven = event_driven;
	cfg.timeout_ms = timeout_ms;
	cfg.max_conns = max_conns;
	err = kecho_server_start(&server, &cfg);
	if (err)
		return err;
	/* For port=0, the one the kernel picked, in the parameter too. */
	port = server.port;
	pr_info("echoing on port %u (%s, %s workqueue)\n", port, mode,
		bench ? "bound" : "unbound");
	return 0;
}

static void __exit kecho_exit(void)
{
	kecho_server_stop(&server);
	pr_info("unloaded\n");
}

module_init(kecho_init);
module_exit(kecho_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("TCP echo server on a concurrency-managed workqueue");
