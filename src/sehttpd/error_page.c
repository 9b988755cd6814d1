// SPDX-License-Identifier: MIT
#include "error_page.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "auth.h"
#include "authorize.h"
#include "beneath.h"
#include "config.h"
#include "coro.h"
#include "http/site.h"
#include "mime_map.h"
#include "respond.h"
#include "server.h"

static void free_arg(void *arg)
{
	free(arg);
}

/*
 * Whether the page for status (at path, opened as fd) may answer this
 * request: not when a password rule the request did not meet guards it,
 * nor when it is a link to a hidden name while dotfiles are off (a page
 * given by a dot name is the operator's choice).  The page for 401 is for
 * those without the password: only a link from it to a place another rule
 * guards keeps it from them (under a password for the whole site it could
 * be nowhere else).
 */
static bool page_shown(struct exchange *rc, int status, const char *path,
		       int fd)
{
	const struct server *s = rc->worker->server;
	const struct auth_rule *met = rc->auth_rule;
	bool hidden;

	if (status == 401 && s->auth)
		met = auth_rule_for(s->auth, path, strlen(path));
	return authorize_object(rc, met, fd, &hidden) &&
	       (!hidden || http_path_hidden(path, strlen(path)));
}

int error_page_read(struct exchange *rc, int status, struct error_page *page)
{
	const struct server *s = rc->worker->server;
	const char *path =
		s->site ? http_site_error_page(&s->site->http, status) : NULL;
	struct stat st;
	char *body;
	ssize_t got;
	int fd;

	if (!path)
		return -1;
	/* A head refused before it was routed is ROOT's. */
	if (!rc->root)
		rc->root = worker_root(&rc->worker->roots, 0);
	/* O_NONBLOCK: a FIFO left where the page was must not hang. */
	fd = open_beneath(rc->root->fd, path + 1, O_RDONLY | O_NONBLOCK);
	if (fd < 0 || exchange_close_later(rc, fd))
		return -1;
	if (!page_shown(rc, status, path, fd) || fstat(fd, &st) ||
	    !S_ISREG(st.st_mode) || st.st_size > SITE_ERROR_PAGE_MAX)
		return -1;
	body = malloc((size_t)st.st_size + 1);
	if (!body)
		return -1;
	if (coro_defer(rc->conn->coro, free_arg, body)) {
		free(body);
		return -1;
	}
	got = pread(fd, body, (size_t)st.st_size, 0);
	if (got < 0)
		return -1;
	page->body = body;
	page->len = (size_t)got;
	page->content_type = mime_map_type(s->mime, path, strlen(path));
	return 0;
}
