// SPDX-License-Identifier: MIT
/*
 * The access-log writer thread: lines reach the log in order, a reopened
 * log gets the lines that follow, and a log that blocks costs dropped
 * lines, counted, never a wait.
 */
#include "harness.h"

#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include "sehttpd/log_writer.h"

/* Static: a writer abandoned while blocked still reaches its buffers. */
static struct log_writer writer;

static size_t read_all_from(int fd, char *buf, size_t cap)
{
	size_t got = 0;
	ssize_t n;

	while (got < cap && (n = read(fd, buf + got, cap - got)) > 0)
		got += (size_t)n;
	return got;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

TEST(lines_in_order)
{
	static const char a[] = "one\ntwo\n", b[] = "three\n";
	char buf[64];
	int p[2];

	CHECK(pipe(p) == 0);
	CHECK(log_writer_start(&writer, p[1]) == 0);
	log_writer_submit(&writer, a, sizeof(a) - 1, 2);
	log_writer_submit(&writer, b, sizeof(b) - 1, 1);
	CHECK_EQ_INT(log_writer_stop(&writer, 1000), 0);
	/* The writer closed the write end: read to the end. */
	CHECK_EQ_MEM(buf, read_all_from(p[0], buf, sizeof(buf)),
		     "one\ntwo\nthree\n");
	close(p[0]);
}

TEST(reopen_switches_logs)
{
	static const char a[] = "old\n", b[] = "new\n";
	char buf[64];
	int p[2], q[2];

	CHECK(pipe(p) == 0 && pipe(q) == 0);
	CHECK(log_writer_start(&writer, p[1]) == 0);
	log_writer_submit(&writer, a, sizeof(a) - 1, 1);
	log_writer_reopen(&writer, q[1]);
	log_writer_submit(&writer, b, sizeof(b) - 1, 1);
	CHECK_EQ_INT(log_writer_stop(&writer, 1000), 0);
	/* Both write ends are closed by now.  "old", queued before the
	 * reopen, may go to either log, but never be lost. */
	{
		size_t n = read_all_from(p[0], buf, sizeof(buf));

		CHECK(n == 0 || (n == 4 && !memcmp(buf, "old\n", 4)));
		if (n)
			CHECK_EQ_MEM(buf, read_all_from(q[0], buf, sizeof(buf)),
				     "new\n");
		else
			CHECK_EQ_MEM(buf, read_all_from(q[0], buf, sizeof(buf)),
				     "old\nnew\n");
	}
	close(p[0]);
	close(q[0]);
}

/* Must come last: it leaves the writer blocked on a pipe nobody reads. */
TEST(blocked_log_drops_and_counts)
{
	static char line[1000];
	double start, took;
	uint64_t dropped;
	int p[2];

	memset(line, 'x', sizeof(line) - 1);
	line[sizeof(line) - 1] = '\n';
	CHECK(pipe(p) == 0);
	CHECK(log_writer_start(&writer, p[1]) == 0);
	start = now_s();
	/* 1 MB: the pipe (64 KiB) and the writer's buffers fill up. */
	for (int i = 0; i < 1000; i++)
		log_writer_submit(&writer, line, sizeof(line), 1);
	took = now_s() - start;
	CHECK(took < 0.5); /* never waited for the log */
	start = now_s();
	dropped = log_writer_stop(&writer, 200);
	took = now_s() - start;
	CHECK(took > 0.15 && took < 1.0);
	/* At most 64 KiB in the pipe, 2 x 256 KiB queued or being written. */
	CHECK(dropped >= 1000 - (64 + 2 * 256) * 1024 / sizeof(line));
	CHECK(dropped <= 1000);
}
