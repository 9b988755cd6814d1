/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One client connection: a state machine driven by socket callbacks and a
 * timer, each of which only queues the connection's work item.
 */
#ifndef KHTTPD_CONN_H
#define KHTTPD_CONN_H

#include <linux/list.h>
#include <linux/timer.h>
#include <linux/workqueue.h>

#include "http/body.h"
#include "http/parser.h"
#include "http/route.h"
#include "khttpd.h"
#include "outq.h"

/* Request bytes: a whole head within limits, with room to spare. */
#define KHTTPD_CONN_BUF 32768
/* The receive buffer's first size; it doubles up to KHTTPD_CONN_BUF. */
#define KHTTPD_CONN_BUF_MIN 2048
/* The request path, with room for an index name or a listing's key. */
#define KHTTPD_PATH_BUF HTTP_SERVE_PATH_BUF
/* Response heads without a Location (redirects allocate their own). */
#define KHTTPD_HEAD_BUF 1024

struct sock;

enum khttpd_conn_state {
	KHTTPD_HEAD, /* reading a request head */
	KHTTPD_SEND, /* sending its response */
	KHTTPD_BODY, /* stepping over the body of an answered request */
	KHTTPD_LINGER, /* half-closed, draining until the client's FIN */
};

/* What follows once the current response has been sent. */
enum khttpd_conn_next {
	KHTTPD_NEXT_BODY, /* the request's body, then the next request */
	KHTTPD_NEXT_LINGER, /* a refused head: drain until the client's FIN */
	KHTTPD_NEXT_END, /* close, lingering only if more may come */
	KHTTPD_NEXT_CLOSE,
};

struct khttpd_conn {
	struct list_head node; /* in srv->conns, under srv->lock */
	struct work_struct work;
	struct timer_list timer; /* at deadline: queues work */
	struct khttpd_server *srv;
	struct socket *sock;
	void (*saved_data_ready)(struct sock *sk);
	void (*saved_write_space)(struct sock *sk);
	void (*saved_state_change)(struct sock *sk);
	unsigned long deadline; /* jiffies: see conn.c */
	/* SEND and BODY: when the transfer began and last made progress. */
	unsigned long xfer_start, xfer_last;
	u64 xfer_base; /* SEND: the socket's bytes_acked when it began */
	u64 xfer_bytes; /* SEND: bytes_acked last seen; BODY: bytes skipped */
	enum khttpd_conn_state state;
	enum khttpd_conn_next next;
	bool dead; /* torn down; the work item only frees it */
	bool first_pass; /* run by the accept work: cache hits only */
	long budget; /* bytes the current run may still move (conn.c) */
	int cpu; /* where the work item runs: the accepting CPU */
	char *buf; /* NULL while nothing is buffered */
	size_t cap;
	size_t start; /* first unconsumed byte of buf */
	size_t end; /* one past the last byte received */
	size_t lingered; /* bytes drained while lingering */
	char *path; /* KHTTPD_PATH_BUF bytes while a request is answered */
	struct http_parser parser;
	struct http_request req;
	struct http_body_skipper body;
	struct khttpd_out out;
	char head[KHTTPD_HEAD_BUF];
};

/*
 * Takes over an accepted socket: answers what has arrived, then leaves the
 * rest to the callbacks and the work item, which runs on cpu.
 */
void khttpd_conn_start(struct khttpd_server *srv, struct socket *sock, int cpu);

/*
 * Unloading, once srv->stopping is set and nothing accepts any more:
 * closes every connection in one pass and frees them all (conn_unload.c).
 */
void khttpd_conns_close_all(struct khttpd_server *srv);

/* Frees a connection whose socket is released; the last wakes drained. */
void khttpd_conn_free(struct khttpd_conn *c);

/*
 * What the socket callbacks and the timer do.  Always on the connection's
 * CPU (given in turn by the accept work): the per-CPU pool runs one worker
 * at a time there, which takes the next connection's work item without a
 * switch, instead of waking a worker per item as an unbound pool does
 * (doc/benchmarks.md).
 */
static inline void khttpd_conn_queue(struct khttpd_conn *c)
{
	queue_work_on(c->cpu, c->srv->wq, &c->work);
}

#endif /* KHTTPD_CONN_H */
