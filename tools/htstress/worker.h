/* SPDX-License-Identifier: MIT */
/*
 * A worker thread: its own epoll instance and its share of the
 * connections, all non-blocking and edge-triggered.  A connection carries
 * one request at a time; without keep-alive each request opens a new one.
 */
#ifndef HTSTRESS_WORKER_H
#define HTSTRESS_WORKER_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "resolve.h"
#include "stats.h"

/* What every worker of a run shares. */
struct hts_run {
	struct hts_target target;
	struct hts_target source; /* addrlen 0: the kernel chooses */
	const char *request;
	size_t request_len;
	bool keep_alive;
	uint64_t requests; /* to complete; 0 when running until end_ns */
	uint64_t end_ns; /* monotonic end of a timed run, or 0 */
	uint64_t timeout_ns;
	uint64_t issued; /* requests handed out so far (atomic) */
	int stop; /* set to end the run early (atomic) */
};

struct hts_conn;

struct hts_worker {
	struct hts_run *run;
	struct hts_conn *conns;
	unsigned int nconns;
	unsigned int active; /* connections still issuing requests */
	unsigned int restarts; /* connections waiting to be replaced */
	int epfd;
	char *buf; /* receive buffer shared by the worker's connections */
	size_t bufsize;
	uint64_t end_ns; /* when this worker stopped */
	pthread_t thread;
	struct hts_stats stats;
};

/* Returns 0, or -1 with a reason in err. */
int hts_worker_init(struct hts_worker *w, struct hts_run *run,
		    unsigned int nconns, char *err, size_t errlen);
/* The thread function: runs the loop until the run is over. */
void *hts_worker_main(void *worker);
void hts_worker_destroy(struct hts_worker *w);

#endif /* HTSTRESS_WORKER_H */
