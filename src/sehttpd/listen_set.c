// SPDX-License-Identifier: MIT
#include "listen_set.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "socket_activation.h"
#include "tcp_congestion.h"

static bool is_tcp(const struct listen_addr *a)
{
	return a->ss.ss_family == AF_INET || a->ss.ss_family == AF_INET6;
}

static int alloc_addrs(struct listen_set *set, unsigned n, char *err,
		       size_t errlen)
{
	set->addrs = calloc(n, sizeof(*set->addrs));
	if (!set->addrs) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	set->naddrs = n;
	return 0;
}

/* The table, every cell closed (fd -1). */
static int alloc_table(struct listen_set *set, unsigned per_worker, char *err,
		       size_t errlen)
{
	size_t cells = (size_t)set->nworkers * per_worker;

	set->table = calloc(cells, sizeof(*set->table));
	if (!set->table) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	set->per_worker = per_worker;
	for (size_t i = 0; i < cells; i++)
		set->table[i].fd = -1;
	return 0;
}

/*
 * One socket for every worker in column col: each worker gets a
 * descriptor of its own, which it closes when it stops accepting.
 */
static int share(struct listen_set *set, unsigned col, int fd,
		 const struct listener *like, char *err, size_t errlen)
{
	for (unsigned w = 0; w < set->nworkers; w++) {
		struct listener *l = &listen_set_row(set, w)[col];

		*l = *like;
		l->fd = w == 0 ? fd : fcntl(fd, F_DUPFD_CLOEXEC, 0);
		l->shared = set->nworkers > 1;
		if (l->fd < 0) {
			snprintf(err, errlen, "cannot share a listener: %s",
				 strerror(errno));
			return -1;
		}
	}
	return 0;
}

/* Column col: a's listeners, a Unix socket shared, else SO_REUSEPORT's. */
static int open_column(struct listen_set *set, unsigned col,
		       struct listen_addr *a, bool redirect, char *err,
		       size_t errlen)
{
	struct listener like = { .redirect = redirect, .tcp = is_tcp(a) };
	int *fds;

	if (!is_tcp(a)) {
		int fd = listener_open_unix(a, err, errlen);

		return fd < 0 ? -1 : share(set, col, fd, &like, err, errlen);
	}
	fds = calloc(set->nworkers, sizeof(*fds));
	if (!fds) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (listeners_open(a, set->nworkers, fds, err, errlen)) {
		free(fds);
		return -1;
	}
	for (unsigned w = 0; w < set->nworkers; w++) {
		like.fd = fds[w];
		tcp_congestion_listener(fds[w], (struct sockaddr *)&a->ss,
					set->tcp_congestion, &like.congestion);
		listen_set_row(set, w)[col] = like;
	}
	free(fds);
	return 0;
}

/* a at another port. */
static struct listen_addr at_port(const struct listen_addr *a, uint16_t port)
{
	struct listen_addr b = *a;

	if (b.ss.ss_family == AF_INET6)
		((struct sockaddr_in6 *)&b.ss)->sin6_port = htons(port);
	else
		((struct sockaddr_in *)&b.ss)->sin_port = htons(port);
	return b;
}

/* Whether one of the site's own TCP addresses is at port. */
static bool site_at_port(const struct listen_set *set, uint16_t port)
{
	for (unsigned i = 0; i < set->naddrs; i++) {
		if (is_tcp(&set->addrs[i]) &&
		    listen_addr_port(&set->addrs[i]) == port)
			return true;
	}
	return false;
}

/* --http-redirect's listeners, from column col on: at the first max of
 * the TCP addresses, at port. */
static int open_redirects(struct listen_set *set, unsigned col, unsigned max,
			  uint16_t port, char *err, size_t errlen)
{
	for (unsigned i = 0; i < set->naddrs && max > 0; i++) {
		struct listen_addr a;

		if (!is_tcp(&set->addrs[i]))
			continue;
		a = at_port(&set->addrs[i], port);
		if (open_column(set, col++, &a, true, err, errlen)) {
			/* Not "already in use": in use by this server. */
			if (site_at_port(set, port))
				snprintf(err, errlen,
					 "--http-redirect %u: port %u is "
					 "where this server serves its site; "
					 "the redirect needs a port of its own",
					 (unsigned)port, (unsigned)port);
			return -1;
		}
		if (set->nredirects < LISTEN_ADDRS_MAX)
			set->redirects[set->nredirects++] = a;
		max--;
	}
	return 0;
}

/* The first TCP address's port: where the redirect sends clients. */
static int find_https_port(struct listen_set *set, char *err, size_t errlen)
{
	for (unsigned i = 0; i < set->naddrs; i++) {
		if (is_tcp(&set->addrs[i])) {
			set->https_port = listen_addr_port(&set->addrs[i]);
			return 0;
		}
	}
	snprintf(err, errlen, "--http-redirect needs a TCP listener");
	return -1;
}

/*
 * The passed sockets: worker i on passed socket i % passed, sharing it
 * with workers i + passed... through descriptors of their own.  With
 * --http-redirect, its listeners at the first passed TCP socket's address.
 */
static int adopt_passed(struct listen_set *set, unsigned passed,
			uint16_t redirect, char *err, size_t errlen)
{
	if (alloc_addrs(set, passed, err, errlen) ||
	    alloc_table(set, passed + (redirect ? 1 : 0), err, errlen))
		return -1;
	for (unsigned j = 0; j < passed; j++) {
		if (listener_adopt(SOCKET_ACTIVATION_FIRST_FD + (int)j,
				   &set->addrs[j], err, errlen))
			return -1;
	}
	for (unsigned w = 0; w < set->nworkers; w++) {
		unsigned j = w % passed;
		int fd = SOCKET_ACTIVATION_FIRST_FD + (int)j;
		struct listener *l = &listen_set_row(set, w)[j];

		*l = (struct listener){
			.fd = w < passed ? fd : fcntl(fd, F_DUPFD_CLOEXEC, 0),
			.shared = set->nworkers > j + passed,
			.tcp = is_tcp(&set->addrs[j]),
		};
		/* Set on the socket itself: its duplicates share it. */
		if (w < passed && l->tcp)
			tcp_congestion_listener(
				fd, (struct sockaddr *)&set->addrs[j].ss,
				set->tcp_congestion, &l->congestion);
		else if (l->tcp)
			l->congestion = listen_set_row(set, j)[j].congestion;
		if (l->fd < 0) {
			snprintf(err, errlen, "passed socket: %s",
				 strerror(errno));
			return -1;
		}
	}
	if (redirect && (find_https_port(set, err, errlen) ||
			 open_redirects(set, passed, 1, redirect, err, errlen)))
		return -1;
	return 0;
}

/*
 * Beside an IPv4 address, an IPv6 wildcard ([::]) that also took IPv4
 * connections would claim the IPv4 address's port too: IPv6 addresses
 * then take IPv6 alone, as nginx's listen [::] does.
 */
static void split_families(struct listen_set *set)
{
	bool v4 = false;

	for (unsigned i = 0; i < set->naddrs; i++)
		v4 |= set->addrs[i].ss.ss_family == AF_INET;
	for (unsigned i = 0; v4 && i < set->naddrs; i++)
		set->addrs[i].v6only = set->addrs[i].ss.ss_family == AF_INET6;
}

/*
 * Each -b address (0.0.0.0 when none), at its own port or -p's; with
 * --http-redirect, each TCP one at its port too.
 */
static int bind_addresses(struct listen_set *set, const struct options *opt,
			  char *err, size_t errlen)
{
	unsigned n = opt->nbinds ? opt->nbinds : 1, tcp = 0;

	if (alloc_addrs(set, n, err, errlen))
		return -1;
	for (unsigned i = 0; i < n; i++) {
		if (listen_addr_parse(&set->addrs[i],
				      opt->nbinds ? opt->binds[i] : "0.0.0.0",
				      opt->port, err, errlen))
			return -1;
		tcp += is_tcp(&set->addrs[i]);
	}
	split_families(set);
	if (alloc_table(set, n + (opt->http_redirect ? tcp : 0), err, errlen))
		return -1;
	for (unsigned i = 0; i < n; i++) {
		if (open_column(set, i, &set->addrs[i], false, err, errlen))
			return -1;
	}
	if (opt->http_redirect &&
	    (find_https_port(set, err, errlen) ||
	     open_redirects(set, n, tcp, opt->http_redirect, err, errlen)))
		return -1;
	return 0;
}

int listen_set_open(struct listen_set *set, const struct options *opt,
		    unsigned passed, unsigned nworkers, char *err,
		    size_t errlen)
{
	memset(set, 0, sizeof(*set));
	set->nworkers = nworkers;
	set->tcp_congestion = opt->tcp_congestion;
	if (passed)
		return adopt_passed(set, passed, opt->http_redirect, err,
				    errlen);
	return bind_addresses(set, opt, err, errlen);
}

bool listen_set_has_tcp_port(const struct listen_set *set, uint16_t port)
{
	const struct listen_addr *a;

	for (unsigned i = 0; i < set->naddrs + set->nredirects; i++) {
		a = i < set->naddrs ? &set->addrs[i] :
				      &set->redirects[i - set->naddrs];
		if ((a->ss.ss_family == AF_INET ||
		     a->ss.ss_family == AF_INET6) &&
		    listen_addr_port(a) == port)
			return true;
	}
	return false;
}

void listen_set_close(struct listen_set *set)
{
	size_t cells = (size_t)set->nworkers * set->per_worker;

	for (size_t i = 0; set->table && i < cells; i++) {
		if (set->table[i].fd >= 0)
			close(set->table[i].fd);
	}
	for (unsigned i = 0; i < set->naddrs; i++)
		listener_unix_remove(&set->addrs[i]);
	free(set->table);
	free(set->addrs);
	memset(set, 0, sizeof(*set));
}
