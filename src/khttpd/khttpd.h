/* SPDX-License-Identifier: GPL-2.0 */
/* The server as a whole: its settings, listener and live connections. */
#ifndef KHTTPD_KHTTPD_H
#define KHTTPD_KHTTPD_H

#include <linux/atomic.h>
#include <linux/list.h>
#include <linux/spinlock.h>
#include <linux/path.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include "http/response.h"
#include "http/serve.h"

#define KHTTPD_SERVER_TOKEN "khttpd"

struct khttpd_header_rules;
struct khttpd_root;
struct mem_cgroup;
struct khttpd_mime_map;
struct socket;
struct sock;
struct kmem_cache;

struct khttpd_config {
	const char *root;
	unsigned short port;
	int backlog;
	unsigned int timeout_ms;
	unsigned int min_rate; /* bytes/s (src/http/body.h); 0: any */
	unsigned int max_conns;
	struct http_site site;
	const struct khttpd_header_rules *rules; /* headers= and cors= */
	const struct khttpd_mime_map *mime; /* mime= and default_type= */
	bool compress; /* gzip and precompressed siblings (compress=) */
	bool follow_symlinks; /* links may lead out of the root */
};

struct khttpd_server {
	struct khttpd_root *root; /* root=, followed as a deploy turns it */
	struct socket *listener;
	unsigned short port; /* listened on: port=, or the kernel's pick for 0 */
	void (*saved_data_ready)(struct sock *sk); /* the listener's */
	struct delayed_work accept; /* queued when connections wait */
	int last_cpu; /* of the last connection accepted; the accept work's */
	struct workqueue_struct *wq;
	struct kmem_cache *conn_cache;
	struct kmem_cache *path_cache; /* a request's path, while answered */
	spinlock_t lock; /* protects conns and stopping; never sleeps */
	struct list_head conns;
	bool stopping;
	atomic_t nconns; /* connections not yet freed */
	wait_queue_head_t drained; /* woken when nconns drops to 0 */
	unsigned int max_conns;
	long timeout; /* jiffies: idle, request head and send progress */
	u32 min_rate; /* bytes/s a transfer must average (0: any) */
	/*
	 * Work items run as "nobody" without capabilities, so the VFS checks
	 * permissions on every path component as for any web server user:
	 * kworkers otherwise read any file, whatever its mode.
	 */
	const struct cred *cred;
	struct http_site site; /* index names, error pages, listings... */
	/* headers= and cors=: lines added to responses (rules' own terms). */
	const struct http_header_rule *rules;
	size_t nrules;
	bool cors; /* cors= given: preflights are answered */
	const struct khttpd_mime_map *mime;
	bool compress; /* off: never a coding but identity (compress=0) */
	bool follow_symlinks; /* follow_symlinks=1: links may leave the root */
};

int khttpd_server_start(struct khttpd_server *srv,
			const struct khttpd_config *cfg);
void khttpd_server_stop(struct khttpd_server *srv);

/*
 * True once unloading began: no new work; every connection is reset
 * (conn_unload.c), one in the middle of a reply too.
 */
static inline bool khttpd_stopping(const struct khttpd_server *srv)
{
	return READ_ONCE(srv->stopping);
}

#endif /* KHTTPD_KHTTPD_H */
