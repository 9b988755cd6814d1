// SPDX-License-Identifier: MIT
#include "log_writer.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void write_all(int fd, const char *buf, size_t len)
{
	size_t off = 0;

	while (off < len) {
		ssize_t n = write(fd, buf + off, len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return; /* a full disk must not stop the server */
		off += (size_t)n;
	}
}

static void *writer_main(void *arg)
{
	struct log_writer *lw = arg;

	pthread_mutex_lock(&lw->lock);
	for (;;) {
		char *batch;
		size_t len;
		int fd;

		while (!lw->len && lw->next_fd < 0 && !lw->stop)
			pthread_cond_wait(&lw->wake, &lw->lock);
		if (lw->next_fd >= 0) {
			close(lw->fd);
			lw->fd = lw->next_fd;
			lw->next_fd = -1;
		}
		if (!lw->len) {
			if (lw->stop)
				break;
			continue;
		}
		/* Swap buffers: the loops fill one while this one drains. */
		batch = lw->pending;
		lw->pending = lw->writing;
		lw->writing = batch;
		len = lw->len;
		lw->len = 0;
		lw->writing_lines = lw->pending_lines;
		lw->pending_lines = 0;
		fd = lw->fd;
		pthread_mutex_unlock(&lw->lock);
		write_all(fd, batch, len);
		pthread_mutex_lock(&lw->lock);
		lw->writing_lines = 0;
		if (lw->dropped > lw->reported) {
			uint64_t dropped = lw->dropped;

			/*
			 * Once per episode, from the thread that may block,
			 * and outside the lock: a blocked stderr must not
			 * hold up the loops' submissions.
			 */
			lw->reported = dropped;
			pthread_mutex_unlock(&lw->lock);
			fprintf(stderr,
				"sehttpd: access log too slow: %" PRIu64
				" lines dropped so far\n",
				dropped);
			pthread_mutex_lock(&lw->lock);
		}
	}
	lw->exited = true;
	pthread_cond_broadcast(&lw->exited_cond);
	pthread_mutex_unlock(&lw->lock);
	return NULL;
}

int log_writer_start(struct log_writer *lw, int fd)
{
	pthread_condattr_t attr;
	int err;

	memset(lw, 0, sizeof(*lw));
	lw->fd = fd;
	lw->next_fd = -1;
	lw->pending = malloc(LOG_WRITER_BUFFER);
	lw->writing = malloc(LOG_WRITER_BUFFER);
	if (!lw->pending || !lw->writing)
		goto fail;
	pthread_mutex_init(&lw->lock, NULL);
	pthread_cond_init(&lw->wake, NULL);
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&lw->exited_cond, &attr);
	pthread_condattr_destroy(&attr);
	err = pthread_create(&lw->thread, NULL, writer_main, lw);
	if (!err)
		return 0;
	errno = err;
fail:
	free(lw->pending);
	free(lw->writing);
	lw->pending = lw->writing = NULL;
	return -1;
}

unsigned log_writer_submit(struct log_writer *lw, const char *buf, size_t len,
			   unsigned lines)
{
	unsigned dropped = 0;

	pthread_mutex_lock(&lw->lock);
	if (len > LOG_WRITER_BUFFER - lw->len) {
		lw->dropped += lines;
		dropped = lines;
	} else {
		memcpy(lw->pending + lw->len, buf, len);
		lw->len += len;
		lw->pending_lines += lines;
		pthread_cond_signal(&lw->wake);
	}
	pthread_mutex_unlock(&lw->lock);
	return dropped;
}

void log_writer_reopen(struct log_writer *lw, int fd)
{
	pthread_mutex_lock(&lw->lock);
	if (lw->next_fd >= 0)
		close(lw->next_fd);
	lw->next_fd = fd;
	pthread_cond_signal(&lw->wake);
	pthread_mutex_unlock(&lw->lock);
}

uint64_t log_writer_stop(struct log_writer *lw, unsigned wait_ms)
{
	struct timespec deadline;
	uint64_t dropped;
	bool exited;

	clock_gettime(CLOCK_MONOTONIC, &deadline);
	deadline.tv_sec += wait_ms / 1000;
	deadline.tv_nsec += (long)(wait_ms % 1000) * 1000000;
	if (deadline.tv_nsec >= 1000000000) {
		deadline.tv_sec++;
		deadline.tv_nsec -= 1000000000;
	}
	pthread_mutex_lock(&lw->lock);
	lw->stop = true;
	pthread_cond_signal(&lw->wake);
	while (!lw->exited &&
	       pthread_cond_timedwait(&lw->exited_cond, &lw->lock, &deadline) !=
		       ETIMEDOUT)
		;
	exited = lw->exited;
	if (!exited)
		lw->dropped += lw->pending_lines + lw->writing_lines;
	dropped = lw->dropped;
	pthread_mutex_unlock(&lw->lock);
	if (!exited)
		return dropped; /* blocked in write(): left to exit() */
	pthread_join(lw->thread, NULL);
	if (lw->next_fd >= 0)
		close(lw->next_fd);
	if (lw->fd > STDOUT_FILENO)
		close(lw->fd);
	free(lw->pending);
	free(lw->writing);
	return dropped;
}
