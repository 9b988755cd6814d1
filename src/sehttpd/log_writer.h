/* SPDX-License-Identifier: MIT */
/*
 * The thread that writes the access log, so that a log that blocks (a FIFO
 * nobody reads, standard output into a slow pipe, a stalled disk) never
 * stalls an event loop: the loops hand over whole lines without waiting, and
 * what does not fit in a bounded buffer is dropped and counted.
 */
#ifndef SEHTTPD_LOG_WRITER_H
#define SEHTTPD_LOG_WRITER_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Lines waiting for the writer; more are dropped. */
#define LOG_WRITER_BUFFER (256 * 1024)

struct log_writer {
	pthread_mutex_t lock;
	pthread_cond_t wake; /* lines, a reopened log or the stop */
	pthread_cond_t exited_cond;
	pthread_t thread;
	int fd; /* the writer's own, except before start */
	int next_fd; /* a reopened log to switch to, or -1 */
	char *pending; /* filled by the loops */
	char *writing; /* being written, outside the lock */
	size_t len;
	uint64_t pending_lines, writing_lines;
	uint64_t dropped, reported; /* lines */
	bool stop;
	bool exited;
};

/* Starts the thread writing to fd, which it then owns. */
int log_writer_start(struct log_writer *lw, int fd);

/* Queues complete lines; never waits for I/O.  Returns how many of the
 * lines were dropped (all or none). */
unsigned log_writer_submit(struct log_writer *lw, const char *buf, size_t len,
			   unsigned lines);

/* Writes to fd from the next batch on; the old descriptor is closed. */
void log_writer_reopen(struct log_writer *lw, int fd);

/*
 * Lets the writer finish what is queued for at most wait_ms, then stops it
 * (a writer still blocked is abandoned, its lines counted as dropped).
 * Returns how many lines were dropped in all.
 */
uint64_t log_writer_stop(struct log_writer *lw, unsigned wait_ms);

#endif /* SEHTTPD_LOG_WRITER_H */
