/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A connection's socket callbacks (conn_sock.c): installed once the first
 * pass is done, restored when the connection closes or unloading closes it.
 */
#ifndef KHTTPD_CONN_SOCK_H
#define KHTTPD_CONN_SOCK_H

#include <linux/types.h>

struct khttpd_conn;

/*
 * Hooks c's work item to its socket's callbacks and arms c's timer; queues
 * the work item at once if the socket already has news for it, or if
 * again (the first pass gave way with work left).
 */
void khttpd_conn_sock_install(struct khttpd_conn *c, bool again);

/* Gives the socket back its own callbacks: nothing of it queues c again. */
void khttpd_conn_sock_restore(struct khttpd_conn *c);

#endif /* KHTTPD_CONN_SOCK_H */
