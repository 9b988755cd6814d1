/* SPDX-License-Identifier: MIT */
/* Serving HTTP/1.1 requests on one connection, inside its coroutine. */
#ifndef SEHTTPD_CONN_H
#define SEHTTPD_CONN_H

#include "exchange.h"

/* Memory beside each coroutine stack: the read buffer, then scratch. */
#define HTTP_CONN_READ_BUF 32768
#define HTTP_CONN_EXTRA (HTTP_CONN_READ_BUF + EXCHANGE_SCRATCH)
/* Requests answered back to back before the others on the thread run. */
#define CONN_PIPELINE_TURN 32
/* Reads of a request body being skipped between two turns (128 KiB). */
#define CONN_BODY_TURN_READS 4

_Static_assert(HTTP_CONN_READ_BUF > HTTP_MAX_HEAD,
	       "a request head within limits must fit the read buffer");

/* Counts the exchange's response and writes its access-log line. */
void conn_log_request(struct exchange *rc);

#endif /* SEHTTPD_CONN_H */
