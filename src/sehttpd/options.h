/* SPDX-License-Identifier: MIT */
/* The command line of sehttpd. */
#ifndef SEHTTPD_OPTIONS_H
#define SEHTTPD_OPTIONS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "auth.h"
#include "config.h"
#include "listener.h"
#include "tls.h"
#include "vhosts.h"
/* --mime may be given this many times. */
#define OPTIONS_MIME_MAX 64

struct options {
	const char *root;
	const char *binds[LISTEN_ADDRS_MAX]; /* -b, checked; none: 0.0.0.0 */
	unsigned int nbinds;
	uint16_t port; /* for the -b addresses given without one */
	unsigned threads;
	unsigned int max_connections; /* 0: as many as descriptors allow */
	uint32_t timeout_ms;
	unsigned int min_rate; /* --min-rate, bytes per second; 0: any */
	const char
		*tcp_congestion; /* NULL: Reno on loopback (tcp_congestion.h) */
	uint32_t drain_ms; /* after SIGINT/SIGTERM, for in-flight responses */
	bool compress;
	uint32_t cache_mib;
	const char *access_log; /* NULL: off; "-": stdout */
	bool log_json; /* --log-format json; else combined */
	const char *user; /* whom to serve as when started as root */
	bool user_given; /* --user was on the command line */
	const char *metrics; /* NULL: off; else HOST:PORT to serve them on */
	bool proxy_protocol; /* connections start with a PROXY header */
	const char *health; /* NULL: off; else the path of the health check */
	uint32_t health_grace_ms; /* 503 to checks before the stop */
	struct site_options site; /* --header, --index ... (config.h) */
	bool follow_symlinks; /* --follow-symlinks */
	const char *vhosts[VHOSTS_MAX]; /* --vhost NAME=DIR, checked */
	unsigned int nvhosts;
	const char *mime[OPTIONS_MIME_MAX]; /* --mime EXT=TYPE, checked */
	unsigned int mime_count;
	const char *default_type; /* NULL: application/octet-stream */
	const char *mime_types; /* the mime.types file; NULL: none */
	const char *tls_certs[TLS_PAIRS_MAX]; /* --tls-cert */
	const char *tls_keys[TLS_PAIRS_MAX]; /* --tls-key, in the same order */
	unsigned int tls_ncerts, tls_nkeys;
	struct tls_pair tls_pairs[TLS_PAIRS_MAX]; /* the two, paired */
	unsigned int tls_npairs;
	uint16_t http_redirect; /* --http-redirect PORT; 0: off */
	const char *auth_files[AUTH_FILES_MAX]; /* --auth-file, checked */
	unsigned int auth_nfiles;
	const char *auth_realm; /* --auth-realm; NULL: the host name */
};

enum options_result {
	OPTIONS_RUN,
	OPTIONS_EXIT_OK, /* --help or --version was printed */
	OPTIONS_EXIT_USAGE, /* an error line was printed to stderr */
};

enum options_result options_parse(struct options *opt, int argc, char **argv);
/* The entries of sehttpd(1)'s OPTIONS section (troff), as --help lists them. */
void options_write_man(FILE *out);

#endif /* SEHTTPD_OPTIONS_H */
