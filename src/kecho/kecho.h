/* SPDX-License-Identifier: GPL-2.0 */
/* kecho: a TCP echo server served on a concurrency-managed workqueue. */
#ifndef KECHO_H
#define KECHO_H

#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/timer.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

struct socket;
struct sock;
struct task_struct;

/* Bytes echoed per receive; also the most one connection holds at once. */
#define KECHO_BUF 4096

struct kecho_server {
	struct socket *listener;
	unsigned short port; /* listened on: port=, or the kernel's pick for 0 */
	struct task_struct *thread;
	struct workqueue_struct *wq;
	bool event_driven; /* else one sleeping work item per connection */
	unsigned long timeout; /* jiffies a client may stay silent */
	unsigned int max_conns; /* more are closed as soon as accepted */
	struct mutex lock; /* protects conns, nr_conns and stopping */
	struct list_head conns;
	unsigned int nr_conns;
	unsigned long refused; /* connections closed at max_conns */
	bool stopping;
	wait_queue_head_t drained; /* woken as nr_conns drops */
};

struct kecho_conn {
	struct list_head node; /* in srv->conns, under srv->lock */
	struct work_struct work;
	struct kecho_server *srv;
	struct socket *sock;
	/* The event-driven form only. */
	void (*saved_data_ready)(struct sock *sk);
	void (*saved_write_space)(struct sock *sk);
	void (*saved_state_change)(struct sock *sk);
	char *buf; /* bytes received, held only until they are echoed */
	size_t len, sent;
	struct timer_list timer; /* queues the work at the idle deadline */
	unsigned long last; /* jiffies of the last byte moved */
	bool closed; /* socket released; the next run frees the conn */
};

struct kecho_config {
	unsigned short port;
	int backlog;
	bool bound; /* a per-CPU workqueue, else unbound */
	bool event_driven;
	unsigned int timeout_ms;
	unsigned int max_conns;
};

int kecho_server_start(struct kecho_server *srv,
		       const struct kecho_config *cfg);
void kecho_server_stop(struct kecho_server *srv);

/* Removes c from the server and releases its socket (process context). */
void kecho_conn_close(struct kecho_conn *c);

/* The two ways of serving a connection; each takes over c. */
void kecho_blocking_start(struct kecho_conn *c);
void kecho_event_start(struct kecho_conn *c);

#endif /* KECHO_H */
