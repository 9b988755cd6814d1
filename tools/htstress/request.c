// SPDX-License-Identifier: MIT
/* Building the request bytes; see request.h. */
#include "request.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "tchar.h"

static bool is_ows(char c)
{
	return c == ' ' || c == '\t';
}

static size_t name_length(const char *header)
{
	size_t n = 0;

	while (hts_is_tchar((unsigned char)header[n]))
		n++;
	return n;
}

/* The value of a checked header without its surrounding whitespace. */
static const char *value_of(const char *header, size_t *len)
{
	const char *v = header + name_length(header) + 1;
	size_t n;

	while (is_ows(*v))
		v++;
	n = strlen(v);
	while (n && is_ows(v[n - 1]))
		n--;
	*len = n;
	return v;
}

int hts_header_check(const char *header, char *err, size_t errlen)
{
	size_t n = name_length(header);
	const char *why = NULL;

	if (n == 0)
		why = "missing or bad header name";
	else if (header[n] != ':')
		why = "header must be 'Name: value'";
	for (const char *p = header + n + 1; !why && *p; p++) {
		unsigned char c = (unsigned char)*p;

		if (c != '\t' && (c < ' ' || c == 0x7f))
			why = "control character in header value";
	}
	if (!why && strlen(header) > HTS_REQUEST_MAX / 2)
		why = "header too long";
	if (why) {
		snprintf(err, errlen, "bad -H: %s", why);
		return -1;
	}
	return 0;
}

static bool header_is(const char *header, const char *name)
{
	size_t n = strlen(name);

	return name_length(header) == n && strncasecmp(header, name, n) == 0;
}

/* Whether a Connection header's value lists "close". */
static bool lists_close(const char *v, size_t n)
{
	size_t i = 0;

	while (i < n) {
		size_t start, end;

		while (i < n && (v[i] == ',' || v[i] == ' ' || v[i] == '\t'))
			i++;
		start = i;
		while (i < n && v[i] != ',')
			i++;
		end = i;
		while (end > start && (v[end - 1] == ' ' || v[end - 1] == '\t'))
			end--;
		if (end - start == 5 && !strncasecmp(v + start, "close", 5))
			return true;
	}
	return false;
}

static bool append(char *buf, size_t *off, const char *s, size_t n)
{
	if (n > HTS_REQUEST_MAX - *off)
		return false;
	memcpy(buf + *off, s, n);
	*off += n;
	return true;
}

static bool append_str(char *buf, size_t *off, const char *s)
{
	return append(buf, off, s, strlen(s));
}

int hts_request_build(struct hts_request *req, const struct hts_url *url,
		      const char *const *headers, size_t nheaders,
		      bool keep_alive, char *err, size_t errlen)
{
	bool has_host = false, has_connection = false, ok;
	size_t off = 0;
	char *buf;

	req->data = NULL;
	req->len = 0;
	req->closes = !keep_alive;
	for (size_t i = 0; i < nheaders; i++) {
		has_host |= header_is(headers[i], "host");
		if (header_is(headers[i], "connection")) {
			size_t vlen;
			const char *v = value_of(headers[i], &vlen);

			has_connection = true;
			req->closes = lists_close(v, vlen);
		}
	}
	buf = malloc(HTS_REQUEST_MAX);
	if (!buf) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	ok = append_str(buf, &off, "GET ") &&
	     append_str(buf, &off, url->path) &&
	     append_str(buf, &off, " HTTP/1.1\r\n");
	if (!has_host)
		ok = ok && append_str(buf, &off, "Host: ") &&
		     append_str(buf, &off, url->authority) &&
		     append_str(buf, &off, "\r\n");
	for (size_t i = 0; ok && i < nheaders; i++) {
		size_t vlen;
		const char *v = value_of(headers[i], &vlen);

		ok = append(buf, &off, headers[i], name_length(headers[i])) &&
		     append_str(buf, &off, ": ") &&
		     append(buf, &off, v, vlen) &&
		     append_str(buf, &off, "\r\n");
	}
	if (!keep_alive && !has_connection)
		ok = ok && append_str(buf, &off, "Connection: close\r\n");
	ok = ok && append_str(buf, &off, "\r\n");
	if (!ok) {
		free(buf);
		snprintf(err, errlen, "request longer than %d bytes",
			 HTS_REQUEST_MAX);
		return -1;
	}
	req->data = buf;
	req->len = off;
	return 0;
}

void hts_request_free(struct hts_request *req)
{
	free(req->data);
	req->data = NULL;
	req->len = 0;
}
