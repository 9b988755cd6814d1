/* SPDX-License-Identifier: MIT */
/*
 * A whole run: one worker thread per -t with its share of the connections,
 * a progress line while they work, their counts summed at the end.
 */
#ifndef HTSTRESS_RUNNER_H
#define HTSTRESS_RUNNER_H

#include <stdbool.h>
#include <stddef.h>

#include "stats.h"
#include "worker.h"

struct hts_runner_result {
	struct hts_stats stats;
	double seconds; /* from the start to the end of the last worker */
};

/*
 * Runs run (its end_ns is set here for a timed run of duration seconds).
 * SIGINT ends the run early with the counts so far.  Returns 0, or -1 with
 * a reason in err when the run could not start.
 */
int hts_runner_run(struct hts_run *run, unsigned int threads,
		   unsigned int connections, double duration, bool progress,
		   struct hts_runner_result *result, char *err, size_t errlen);

#endif /* HTSTRESS_RUNNER_H */
