// SPDX-License-Identifier: MIT
/* Threads, progress and totals of a run; see runner.h. */
#include "runner.h"

#include <errno.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "clock.h"
#include "report.h"

#define SPARE_FDS 32 /* stdio, epoll instances, resolver */

/* Holds the workers until all exist, so that they start together. */
struct start_gate {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool open;
};

struct worker_thread {
	struct hts_worker worker;
	struct start_gate *gate;
	sem_t *done;
};

static struct hts_run *interrupted_run;

static void on_sigint(int sig)
{
	(void)sig;
	__atomic_store_n(&interrupted_run->stop, 1, __ATOMIC_RELAXED);
}

static int raise_fd_limit(unsigned int connections, unsigned int threads,
			  char *err, size_t errlen)
{
	rlim_t need = (rlim_t)connections + threads + SPARE_FDS;
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl))
		return 0;
	if (rl.rlim_cur >= need)
		return 0;
	if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < need) {
		snprintf(
			err, errlen,
			"%u connections need %llu file descriptors, the limit is %llu",
			connections, (unsigned long long)need,
			(unsigned long long)rl.rlim_max);
		return -1;
	}
	rl.rlim_cur = need;
	if (setrlimit(RLIMIT_NOFILE, &rl)) {
		snprintf(err, errlen, "cannot raise the file limit: %s",
			 strerror(errno));
		return -1;
	}
	return 0;
}

static void *worker_thread_main(void *arg)
{
	struct worker_thread *t = arg;

	pthread_mutex_lock(&t->gate->lock);
	while (!t->gate->open)
		pthread_cond_wait(&t->gate->cond, &t->gate->lock);
	pthread_mutex_unlock(&t->gate->lock);
	hts_worker_main(&t->worker);
	sem_post(t->done);
	return NULL;
}

static uint64_t completed(const struct worker_thread *t, unsigned int n,
			  uint64_t *failed)
{
	uint64_t sum = 0;

	*failed = 0;
	for (unsigned int i = 0; i < n; i++) {
		sum += hts_stats_requests(&t[i].worker.stats);
		*failed += hts_stats_failed(&t[i].worker.stats);
	}
	return sum;
}

/*
 * Waits for the workers, printing a line every second from the first
 * second of a timed run longer than 2 s, or from the second second of a
 * counted run (which could be short).
 */
static void wait_for_workers(sem_t *done, struct worker_thread *t,
			     unsigned int n, uint64_t start, double duration,
			     bool progress)
{
	unsigned int tick = (duration > 2) ? 1 : 2, last_tick = 0;
	unsigned int running = n;
	uint64_t last_count = 0;

	while (running) {
		uint64_t at = start + tick * HTS_NS_PER_SEC, failed, count;
		struct timespec ts = { (time_t)(at / HTS_NS_PER_SEC),
				       (long)(at % HTS_NS_PER_SEC) };

		if (sem_clockwait(done, CLOCK_MONOTONIC, &ts) == 0) {
			running--;
			continue;
		}
		if (errno != ETIMEDOUT)
			continue;
		count = completed(t, n, &failed);
		if (progress)
			hts_report_progress(stderr, tick, count, failed,
					    (double)(count - last_count) /
						    (tick - last_tick));
		last_count = count;
		last_tick = tick++;
	}
}

int hts_runner_run(struct hts_run *run, unsigned int threads,
		   unsigned int connections, double duration, bool progress,
		   struct hts_runner_result *result, char *err, size_t errlen)
{
	struct sigaction sa = { .sa_handler = on_sigint,
				.sa_flags = SA_RESETHAND };
	struct start_gate gate = { PTHREAD_MUTEX_INITIALIZER,
				   PTHREAD_COND_INITIALIZER, false };
	struct worker_thread *t;
	unsigned int started = 0;
	uint64_t start, end = 0;
	sem_t done;
	int rc = 0;

	memset(result, 0, sizeof(*result));
	hts_stats_init(&result->stats);
	if (raise_fd_limit(connections, threads, err, errlen))
		return -1;
	t = calloc(threads, sizeof(*t));
	if (!t || sem_init(&done, 0, 0)) {
		free(t);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (unsigned int i = 0; i < threads; i++) {
		/* The first connections % threads workers take one more. */
		unsigned int share =
			connections / threads + (i < connections % threads);

		t[i].done = &done;
		t[i].gate = &gate;
		if (hts_worker_init(&t[i].worker, run, share, err, errlen)) {
			threads = i;
			rc = -1;
			goto out;
		}
	}
	interrupted_run = run;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);

	for (; started < threads; started++) {
		int e = pthread_create(&t[started].worker.thread, NULL,
				       worker_thread_main, &t[started]);

		if (e) {
			snprintf(err, errlen, "cannot start a thread: %s",
				 strerror(e));
			__atomic_store_n(&run->stop, 1, __ATOMIC_RELAXED);
			rc = -1;
			break;
		}
	}
	/* The gate's lock publishes end_ns to the workers. */
	pthread_mutex_lock(&gate.lock);
	start = hts_now_ns();
	if (duration > 0)
		run->end_ns = start + (uint64_t)(duration * 1e9);
	gate.open = true;
	pthread_cond_broadcast(&gate.cond);
	pthread_mutex_unlock(&gate.lock);
	wait_for_workers(&done, t, started, start, duration, progress);
	for (unsigned int i = 0; i < started; i++) {
		pthread_join(t[i].worker.thread, NULL);
		hts_stats_merge(&result->stats, &t[i].worker.stats);
		if (t[i].worker.end_ns > end)
			end = t[i].worker.end_ns;
	}
	result->seconds = started ? (double)(end - start) / 1e9 : 0;
	signal(SIGINT, SIG_DFL);
out:
	for (unsigned int i = 0; i < threads; i++)
		hts_worker_destroy(&t[i].worker);
	sem_destroy(&done);
	free(t);
	return rc;
}
