/* SPDX-License-Identifier: MIT */
/* The command line of htstress. */
#ifndef HTSTRESS_OPTIONS_H
#define HTSTRESS_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define HTS_DEFAULT_REQUESTS 10000
#define HTS_DEFAULT_CONNECTIONS 1
#define HTS_DEFAULT_THREADS 1
#define HTS_DEFAULT_TIMEOUT 10.0
#define HTS_MAX_CONNECTIONS 1000000
#define HTS_MAX_THREADS 1024

struct hts_options {
	uint64_t requests; /* -n, 0 when running for a duration */
	double duration; /* -d, in seconds, 0 when counting requests */
	unsigned int connections;
	unsigned int threads;
	bool keep_alive;
	bool json;
	double timeout; /* seconds a response may take before it is an error */
	const char **headers; /* -H arguments, pointers into argv */
	size_t nheaders;
	const char *url;
	const char *source; /* --source: local address to connect from */
};

enum hts_options_result {
	HTS_OPTIONS_RUN,
	HTS_OPTIONS_HELP,
	HTS_OPTIONS_ERROR, /* err holds a one-line reason */
};

/* Parses argv (and may reorder it); hts_options_free() afterwards. */
enum hts_options_result hts_options_parse(struct hts_options *o, int argc,
					  char **argv, char *err,
					  size_t errlen);
void hts_options_free(struct hts_options *o);
void hts_options_usage(FILE *out);

#endif /* HTSTRESS_OPTIONS_H */
