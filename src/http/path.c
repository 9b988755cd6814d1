// SPDX-License-Identifier: MIT
/*
 * Decoding happens before dot-segment removal so that "%2e%2e" and "%2f" can
 * never smuggle a ".." past the check; the file system lookup that follows is
 * confined to the root by the kernel as well.
 */
#include "path.h"
#include "token.h"

bool http_path_matchable(const char *path, size_t len)
{
	if (len == 0 || path[0] != '/')
		return false;
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)path[i];

		if (c < 0x20 || c == 0x7f || c == '%' || c == '?' || c == '#')
			return false;
		if (c != '/')
			continue;
		/* The segment after this '/'. */
		if (i + 1 < len && path[i + 1] == '/')
			return false;
		if (i + 1 < len && path[i + 1] == '.' &&
		    (i + 2 == len || path[i + 2] == '/' ||
		     (path[i + 2] == '.' &&
		      (i + 3 == len || path[i + 3] == '/'))))
			return false;
	}
	return true;
}

static int hex_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = http_tolower(c);
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

static int percent_decode(const char *raw, size_t len, char *out)
{
	size_t o = 0;

	for (size_t i = 0; i < len; i++) {
		char c = raw[i];

		if (c == '\0')
			return -1;
		if (c == '%') {
			int hi, lo;

			if (i + 2 >= len)
				return -1;
			hi = hex_value(raw[i + 1]);
			lo = hex_value(raw[i + 2]);
			if (hi < 0 || lo < 0)
				return -1;
			c = (char)(hi << 4 | lo);
			if (c == '\0')
				return -1;
			i += 2;
		}
		out[o++] = c;
	}
	return (int)o;
}

int http_path_normalize(const char *raw, size_t len, char *out, size_t cap)
{
	int n;
	size_t r = 0, w = 0;
	bool trailing_slash = false;

	if (cap < len + 1 || len > 0x7fffffff || (len > 0 && raw[0] != '/'))
		return -1;
	n = percent_decode(raw, len, out);
	if (n < 0)
		return -1;

	/* In place: the write index never passes the read index. */
	while (r < (size_t)n) {
		size_t seg, seg_len;

		while (r < (size_t)n && out[r] == '/')
			r++;
		seg = r;
		while (r < (size_t)n && out[r] != '/')
			r++;
		seg_len = r - seg;
		trailing_slash = r < (size_t)n || seg_len == 0;
		if (seg_len == 0)
			break;
		if (seg_len == 1 && out[seg] == '.') {
			trailing_slash = true;
			continue;
		}
		if (seg_len == 2 && out[seg] == '.' && out[seg + 1] == '.') {
			if (w == 0)
				return -1;
			while (w > 0 && out[w - 1] != '/')
				w--;
			w--; /* drop the slash before the segment */
			trailing_slash = true;
			continue;
		}
		out[w++] = '/';
		memmove(out + w, out + seg, seg_len);
		w += seg_len;
	}
	if (trailing_slash || w == 0)
		out[w++] = '/';
	return (int)w;
}

int http_path_join(char *out, size_t cap, const char *base, size_t len,
		   const char *tail)
{
	size_t tail_len = strlen(tail);

	if (len >= cap || tail_len >= cap - len)
		return -1;
	memmove(out, base, len); /* base may start at out */
	memcpy(out + len, tail, tail_len + 1);
	return (int)(len + tail_len);
}
