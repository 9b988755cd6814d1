// SPDX-License-Identifier: MIT
#include "auth_checkers.h"

#include <crypt.h>
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <unistd.h>

#include "htpasswd.h"

/* The queue, shared by every worker and checker. */
static struct {
	pthread_mutex_t lock;
	pthread_cond_t ready;
	struct auth_check *head, **tail;
	unsigned queued;
	bool stop;
	unsigned nthreads;
	pthread_t threads[AUTH_CHECKERS_MAX];
} pool = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.ready = PTHREAD_COND_INITIALIZER,
	.tail = &pool.head,
};

int auth_inbox_init(struct auth_inbox *in)
{
	atomic_init(&in->posted, NULL);
	in->fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	return in->fd < 0 ? -1 : 0;
}

/* Lock-free: checkers push, the worker takes the whole stack at once. */
static void inbox_post(struct auth_inbox *in, struct auth_check *job)
{
	struct auth_check *head = atomic_load(&in->posted);
	uint64_t one = 1;

	do {
		job->next = head;
	} while (!atomic_compare_exchange_weak(&in->posted, &head, job));
	/* Cannot fail short of a counter at 2^64 - 1. */
	if (write(in->fd, &one, sizeof(one)) < 0)
		perror("sehttpd: auth inbox");
}

struct auth_check *auth_inbox_take(struct auth_inbox *in)
{
	uint64_t n;

	/* Reset first: a post after it raises a new edge. */
	if (read(in->fd, &n, sizeof(n)) < 0 && errno != EAGAIN)
		perror("sehttpd: auth inbox");
	return atomic_exchange(&in->posted, NULL);
}

void auth_inbox_destroy(struct auth_inbox *in)
{
	struct auth_check *job, *next;

	if (in->fd < 0)
		return;
	for (job = atomic_exchange(&in->posted, NULL); job; job = next) {
		next = job->next;
		auth_check_free(job);
	}
	close(in->fd);
	in->fd = -1;
}

struct auth_check *auth_check_new(struct htpasswd *file,
				  struct auth_inbox *inbox, const char *user,
				  size_t user_len, const char *password,
				  size_t password_len)
{
	struct auth_check *job;

	if (user_len + password_len + 2 > sizeof(job->user) ||
	    !(job = calloc(1, sizeof(*job)))) {
		htpasswd_put(file);
		return NULL;
	}
	job->file = file;
	job->inbox = inbox;
	job->user_len = user_len;
	memcpy(job->user, user, user_len);
	memcpy(job->user + user_len + 1, password, password_len);
	job->password = job->user + user_len + 1;
	return job;
}

void auth_check_free(struct auth_check *job)
{
	htpasswd_put(job->file);
	explicit_bzero(job->user, sizeof(job->user));
	free(job);
}

int auth_checkers_submit(struct auth_check *job)
{
	int ret = -1;

	pthread_mutex_lock(&pool.lock);
	if (pool.queued < AUTH_QUEUE_MAX && !pool.stop) {
		job->next = NULL;
		*pool.tail = job;
		pool.tail = &job->next;
		pool.queued++;
		pthread_cond_signal(&pool.ready);
		ret = 0;
	}
	pthread_mutex_unlock(&pool.lock);
	return ret;
}

/* The next check to run, or NULL once stopping. */
static struct auth_check *next_check(void)
{
	struct auth_check *job = NULL;

	pthread_mutex_lock(&pool.lock);
	while (!pool.stop && !pool.head)
		pthread_cond_wait(&pool.ready, &pool.lock);
	if (!pool.stop) {
		job = pool.head;
		pool.head = job->next;
		if (!pool.head)
			pool.tail = &pool.head;
		pool.queued--;
	}
	pthread_mutex_unlock(&pool.lock);
	return job;
}

static void *checker_run(void *arg)
{
	/* crypt_r's state: 32 KiB, so not on the stack. */
	struct crypt_data *scratch = calloc(1, sizeof(*scratch));
	struct auth_check *job;

	(void)arg;
	/* Linux's nice is per thread. */
	setpriority(PRIO_PROCESS, 0, AUTH_CHECKER_NICE);
	while ((job = next_check())) {
		job->ok = scratch &&
			  htpasswd_check(job->file, job->user, job->user_len,
					 job->password, scratch);
		inbox_post(job->inbox, job);
	}
	if (scratch)
		explicit_bzero(scratch, sizeof(*scratch));
	free(scratch);
	return NULL;
}

int auth_checkers_start(unsigned n)
{
	pool.stop = false;
	for (pool.nthreads = 0; pool.nthreads < n; pool.nthreads++) {
		if (pthread_create(&pool.threads[pool.nthreads], NULL,
				   checker_run, NULL))
			return -1;
	}
	return 0;
}

void auth_checkers_stop(void)
{
	struct auth_check *job, *next;

	pthread_mutex_lock(&pool.lock);
	pool.stop = true;
	pthread_cond_broadcast(&pool.ready);
	pthread_mutex_unlock(&pool.lock);
	for (unsigned i = 0; i < pool.nthreads; i++)
		pthread_join(pool.threads[i], NULL);
	pool.nthreads = 0;
	for (job = pool.head; job; job = next) {
		next = job->next;
		auth_check_free(job);
	}
	pool.head = NULL;
	pool.tail = &pool.head;
	pool.queued = 0;
}
