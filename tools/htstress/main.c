// SPDX-License-Identifier: MIT
/*
 * htstress: an HTTP/1.1 load generator that checks every response.
 * The command line is in options.c, the event loop in worker.c.
 */
#include <stdio.h>
#include <stdlib.h>

#include "options.h"
#include "report.h"
#include "request.h"
#include "resolve.h"
#include "runner.h"
#include "url.h"
#include "worker.h"

#define EXIT_USAGE 2

static int usage_error(const char *why)
{
	fprintf(stderr, "htstress: %s (see --help)\n", why);
	return EXIT_USAGE;
}

int main(int argc, char **argv)
{
	static struct hts_url url;
	static struct hts_runner_result result;
	struct hts_options opt;
	struct hts_request req;
	struct hts_run run = { 0 };
	struct hts_report report;
	char err[256];
	int rc;

	switch (hts_options_parse(&opt, argc, argv, err, sizeof(err))) {
	case HTS_OPTIONS_HELP:
		hts_options_usage(stdout);
		hts_options_free(&opt);
		return 0;
	case HTS_OPTIONS_ERROR:
		hts_options_free(&opt);
		return usage_error(err);
	default:
		break;
	}
	if (hts_url_parse(opt.url, &url, err, sizeof(err)) ||
	    hts_request_build(&req, &url, opt.headers, opt.nheaders,
			      opt.keep_alive, err, sizeof(err))) {
		hts_options_free(&opt);
		return usage_error(err);
	}
	if (hts_resolve(&url, &run.target, err, sizeof(err))) {
		fprintf(stderr, "htstress: %s\n", err);
		rc = EXIT_USAGE;
		goto out;
	}
	if (opt.source &&
	    (hts_source_parse(opt.source, &run.source, err, sizeof(err)) ||
	     run.source.addr.ss_family != run.target.addr.ss_family)) {
		fprintf(stderr,
			"htstress: --source %s is not of the URL's "
			"address family\n",
			opt.source);
		rc = EXIT_USAGE;
		goto out;
	}
	run.request = req.data;
	run.request_len = req.len;
	/* Not when the request itself says close (-H "Connection: close"). */
	run.keep_alive = opt.keep_alive && !req.closes;
	run.requests = opt.requests;
	run.timeout_ns = (uint64_t)(opt.timeout * 1e9);
	if (hts_runner_run(&run, opt.threads, opt.connections, opt.duration,
			   !opt.json, &result, err, sizeof(err))) {
		fprintf(stderr, "htstress: %s\n", err);
		rc = EXIT_USAGE;
		goto out;
	}

	report.url = opt.url;
	report.connections = opt.connections;
	report.threads = opt.threads;
	report.keep_alive = run.keep_alive;
	report.seconds = result.seconds;
	report.stats = &result.stats;
	if (opt.json)
		hts_report_json(stdout, &report);
	else
		hts_report_text(stdout, &report);
	rc = 0;
	if (hts_stats_failed(&result.stats) ||
	    !hts_stats_requests(&result.stats)) {
		rc = 1;
		if (!hts_stats_requests(&result.stats))
			fprintf(stderr, "htstress: no request completed\n");
	}
out:
	hts_request_free(&req);
	hts_options_free(&opt);
	return rc;
}
