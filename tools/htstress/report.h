/* SPDX-License-Identifier: MIT */
/* The results of a run: the human report, the JSON object, progress. */
#ifndef HTSTRESS_REPORT_H
#define HTSTRESS_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "stats.h"

struct hts_report {
	const char *url;
	unsigned int connections;
	unsigned int threads;
	bool keep_alive;
	double seconds;
	const struct hts_stats *stats; /* merged over the workers */
};

void hts_report_text(FILE *out, const struct hts_report *r);
/* One JSON object on one line. */
void hts_report_json(FILE *out, const struct hts_report *r);
void hts_report_progress(FILE *out, double elapsed, uint64_t requests,
			 uint64_t failed, double rate);

#endif /* HTSTRESS_REPORT_H */
