/* SPDX-License-Identifier: MIT */
/* The characters of an HTTP token (RFC 9110, 5.6.2), such as a field name. */
#ifndef HTSTRESS_TCHAR_H
#define HTSTRESS_TCHAR_H

#include <stdbool.h>
#include <string.h>

static inline bool hts_is_tchar(unsigned char c)
{
	if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9'))
		return true;
	return c && strchr("!#$%&'*+-.^_`|~", c);
}

#endif /* HTSTRESS_TCHAR_H */
