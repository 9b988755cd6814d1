/* SPDX-License-Identifier: MIT */
/*
 * --metrics: every worker's counters (stats.h), summed, served from a
 * thread and a listener of its own.
 */
#ifndef SEHTTPD_METRICS_H
#define SEHTTPD_METRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct listen_addr;
struct server;

/*
 * Writes every worker's stats, summed, in the Prometheus text format
 * (version 0.0.4) into buf; returns the length, or 0 if it does not fit.
 */
size_t metrics_format(const struct server *s, char *buf, size_t len);

struct metrics_server;

/* --metrics' "HOST:PORT", "[V6]:PORT" or ":PORT" (all addresses) into a;
 * 0, or -1 with a message in err. */
int metrics_addr_parse(const char *s, struct listen_addr *a, char *err,
		       size_t errlen);

/*
 * Listens on a (metrics_addr_parse()), before privileges are dropped; where
 * gets the address (LISTEN_ADDR_STRLEN bytes).  Returns NULL with a message
 * in err.
 */
struct metrics_server *metrics_open(const struct server *s,
				    struct listen_addr *a, char *where,
				    size_t where_len, char *err, size_t errlen);
/* Serves GET /metrics from a thread of its own, once the workers run. */
int metrics_start(struct metrics_server *m);
/* Stops the thread if it runs and frees m (NULL: nothing). */
void metrics_stop(struct metrics_server *m);

#endif /* SEHTTPD_METRICS_H */
