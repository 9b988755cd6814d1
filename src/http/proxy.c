// SPDX-License-Identifier: MIT
/*
 * The PROXY protocol header, as HAProxy's specification (proxy-protocol.txt,
 * 2020/03/05) defines it.  Version 1 is a text line, version 2 a binary
 * block; their first bytes differ, so the first byte decides.  Anything the
 * specification does not allow is refused: the header is only accepted from
 * a trusted balancer, which never sends one that is malformed.
 */
#include "proxy.h"

#include "token.h"

static const char v1_sig[] = "PROXY ";
#define V1_SIG_LEN (sizeof(v1_sig) - 1)
static const uint8_t v2_sig[12] = { '\r', '\n', '\r', '\n', '\0', '\r',
				    '\n', 'Q',	'U',  'I',  'T',  '\n' };

/* v2 byte 12: version (high nibble) and command; byte 13: family, proto. */
#define V2_VERSION 2
#define V2_CMD_LOCAL 0
#define V2_CMD_PROXY 1
#define V2_AF_UNSPEC 0
#define V2_AF_INET 1
#define V2_AF_INET6 2
#define V2_AF_UNIX 3
#define V2_PROTO_STREAM 1
#define V2_PROTO_MAX 2

void proxy_parser_init(struct proxy_parser *p)
{
	p->pos = 0;
}

/* Decimal without leading zeros ("0" itself is fine), at most max. */
static bool parse_decimal(const char *s, size_t n, uint32_t max, uint32_t *v)
{
	uint32_t x = 0;

	if (n == 0 || n > 5 || (n > 1 && s[0] == '0'))
		return false;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		x = x * 10 + (uint32_t)(s[i] - '0');
	}
	if (x > max)
		return false;
	*v = x;
	return true;
}

/* Dotted quad, exactly four decimal octets, as inet_pton() accepts. */
static bool parse_ip4(const char *s, size_t n, uint8_t out[4])
{
	size_t start = 0;
	int k = 0;

	for (size_t i = 0; i <= n; i++) {
		uint32_t v;

		if (i < n && s[i] != '.')
			continue;
		if (k == 4 || i - start > 3 ||
		    !parse_decimal(s + start, i - start, 255, &v))
			return false;
		out[k++] = (uint8_t)v;
		start = i + 1;
	}
	return k == 4;
}

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = http_tolower(c);
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* RFC 4291 2.2 text forms: groups, one "::", a dotted-quad tail. */
static bool parse_ip6(const char *s, size_t n, uint8_t out[16])
{
	uint16_t words[8];
	int nw = 0, gap = -1;
	size_t i = 0;

	if (n >= 2 && s[0] == ':' && s[1] == ':') {
		gap = 0;
		i = 2;
	} else if (n == 0 || s[0] == ':') {
		return false;
	}
	while (i < n) {
		uint32_t v = 0;
		size_t j = i;
		int d;

		while (j < n && j - i < 5 && (d = hex_digit(s[j])) >= 0) {
			v = v * 16 + (uint32_t)d;
			j++;
		}
		if (j < n && s[j] == '.') {
			uint8_t q[4];

			if (nw > 6 || !parse_ip4(s + i, n - i, q))
				return false;
			words[nw++] = (uint16_t)(q[0] << 8 | q[1]);
			words[nw++] = (uint16_t)(q[2] << 8 | q[3]);
			break;
		}
		if (j == i || j - i > 4 || nw == 8)
			return false;
		words[nw++] = (uint16_t)v;
		i = j;
		if (i == n)
			break;
		if (s[i++] != ':' || i == n)
			return false;
		if (s[i] == ':') {
			if (gap >= 0)
				return false;
			gap = nw;
			i++;
		}
	}
	if (gap >= 0 ? nw > 7 : nw != 8)
		return false;
	for (int k = 0, w = 0; k < 8; k++) {
		uint16_t x = 0;

		if (gap < 0 || k < gap || k >= gap + 8 - nw)
			x = words[w++];
		out[2 * k] = (uint8_t)(x >> 8);
		out[2 * k + 1] = (uint8_t)x;
	}
	return true;
}

/* The next space-separated field of s[*pos..end); never empty. */
static bool next_field(const char *s, size_t end, size_t *pos, const char **f,
		       size_t *n)
{
	size_t i = *pos;

	while (i < end && s[i] != ' ')
		i++;
	if (i == *pos)
		return false;
	*f = s + *pos;
	*n = i - *pos;
	/* One space between fields, none after the last. */
	if (i < end && ++i == end)
		return false;
	*pos = i;
	return true;
}

/* "TCP4 SRC DST SPORT DPORT", "TCP6 ..." or "UNKNOWN ...", before CR. */
static bool parse_v1_line(struct proxy_header *h, const char *s, size_t end)
{
	size_t pos = V1_SIG_LEN, n;
	const char *f;
	bool (*addr)(const char *, size_t, uint8_t *);
	uint32_t sport, dport;

	if (end - pos >= 7 && !memcmp(s + pos, "UNKNOWN", 7) &&
	    (end - pos == 7 || s[pos + 7] == ' '))
		return true; /* the rest of the line is to be ignored */
	if (!next_field(s, end, &pos, &f, &n) || n != 4 || pos == end)
		return false;
	if (!memcmp(f, "TCP4", 4)) {
		h->family = PROXY_AF_INET;
		addr = parse_ip4;
	} else if (!memcmp(f, "TCP6", 4)) {
		h->family = PROXY_AF_INET6;
		addr = parse_ip6;
	} else {
		return false;
	}
	if (!next_field(s, end, &pos, &f, &n) || !addr(f, n, h->src_addr) ||
	    !next_field(s, end, &pos, &f, &n) || !addr(f, n, h->dst_addr) ||
	    !next_field(s, end, &pos, &f, &n) ||
	    !parse_decimal(f, n, 65535, &sport) ||
	    !next_field(s, end, &pos, &f, &n) ||
	    !parse_decimal(f, n, 65535, &dport) || pos != end)
		return false;
	h->src_port = (uint16_t)sport;
	h->dst_port = (uint16_t)dport;
	return true;
}

static int parse_v1(struct proxy_parser *p, struct proxy_header *h,
		    const char *buf, size_t len)
{
	for (size_t i = p->pos; i < len; i++) {
		char c = buf[i];

		if (i < V1_SIG_LEN) {
			if (c != v1_sig[i])
				return PROXY_PARSE_ERROR;
			continue;
		}
		if (c == '\r') {
			if (i + 1 == len) {
				p->pos = (uint32_t)i;
				return PROXY_PARSE_AGAIN;
			}
			if (buf[i + 1] != '\n')
				return PROXY_PARSE_ERROR;
			*h = (struct proxy_header){ .version = 1,
						    .len = (uint32_t)i + 2 };
			if (!parse_v1_line(h, buf, i))
				return PROXY_PARSE_ERROR;
			return (int)h->len;
		}
		/* Printable ASCII only; the CRLF must end byte 107 at the
		 * latest, so a CR is due by byte 106. */
		if (c < 0x20 || c > 0x7e || i >= PROXY_V1_MAX - 2)
			return PROXY_PARSE_ERROR;
	}
	p->pos = (uint32_t)len;
	return PROXY_PARSE_AGAIN;
}

static uint16_t be16(const uint8_t *b)
{
	return (uint16_t)(b[0] << 8 | b[1]);
}

/* Type, 16-bit length, value; they must fill b[0..n) exactly. */
static bool count_tlvs(const uint8_t *b, size_t n, uint16_t *count)
{
	size_t i = 0;
	uint16_t k = 0;

	while (i < n) {
		if (n - i < 3 || n - i - 3 < be16(b + i + 1))
			return false;
		i += 3 + (size_t)be16(b + i + 1);
		k++;
	}
	*count = k;
	return true;
}

/* The 16-byte head is valid; b[0..total) is the whole header. */
static bool parse_v2_block(struct proxy_header *h, const uint8_t *b,
			   size_t total)
{
	static const uint8_t addr_len[] = { [V2_AF_UNSPEC] = 0,
					    [V2_AF_INET] = 12,
					    [V2_AF_INET6] = 36,
					    [V2_AF_UNIX] = 216 };
	const uint8_t *block = b + PROXY_V2_HEAD;
	size_t n = total - PROXY_V2_HEAD;
	unsigned af = b[13] >> 4, proto = b[13] & 0xf;
	size_t alen = addr_len[af];

	*h = (struct proxy_header){ .version = 2, .len = (uint32_t)total };
	if ((b[12] & 0xf) == V2_CMD_LOCAL) {
		/* The receiver uses the real endpoints and discards the
		 * rest; well-formed TLVs are counted, for the curious. */
		h->local = true;
		if (n >= alen)
			count_tlvs(block + alen, n - alen, &h->ntlvs);
		return true;
	}
	if (n < alen || !count_tlvs(block + alen, n - alen, &h->ntlvs))
		return false;
	if (proto != V2_PROTO_STREAM)
		return true; /* not TCP: the real endpoints apply */
	if (af == V2_AF_INET) {
		h->family = PROXY_AF_INET;
		memcpy(h->src_addr, block, 4);
		memcpy(h->dst_addr, block + 4, 4);
		h->src_port = be16(block + 8);
		h->dst_port = be16(block + 10);
	} else if (af == V2_AF_INET6) {
		h->family = PROXY_AF_INET6;
		memcpy(h->src_addr, block, 16);
		memcpy(h->dst_addr, block + 16, 16);
		h->src_port = be16(block + 32);
		h->dst_port = be16(block + 34);
	}
	return true;
}

static int parse_v2(struct proxy_parser *p, struct proxy_header *h,
		    const uint8_t *b, size_t len)
{
	size_t i, total;

	for (i = p->pos; i < len && i < PROXY_V2_HEAD; i++) {
		if (i < sizeof(v2_sig) && b[i] != v2_sig[i])
			return PROXY_PARSE_ERROR;
		if (i == 12 &&
		    ((b[i] >> 4) != V2_VERSION || (b[i] & 0xf) > V2_CMD_PROXY))
			return PROXY_PARSE_ERROR;
		if (i == 13 &&
		    ((b[i] >> 4) > V2_AF_UNIX || (b[i] & 0xf) > V2_PROTO_MAX))
			return PROXY_PARSE_ERROR;
	}
	p->pos = (uint32_t)i;
	if (len < PROXY_V2_HEAD)
		return PROXY_PARSE_AGAIN;
	total = PROXY_V2_HEAD + (size_t)be16(b + 14);
	if (total > PROXY_V2_MAX)
		return PROXY_PARSE_ERROR;
	if (len < total)
		return PROXY_PARSE_AGAIN;
	if (!parse_v2_block(h, b, total))
		return PROXY_PARSE_ERROR;
	return (int)total;
}

int proxy_parse(struct proxy_parser *p, struct proxy_header *h, const char *buf,
		size_t len)
{
	if (len == 0)
		return PROXY_PARSE_AGAIN;
	if (buf[0] == v1_sig[0])
		return parse_v1(p, h, buf, len);
	if (buf[0] == (char)v2_sig[0])
		return parse_v2(p, h, (const uint8_t *)buf, len);
	return PROXY_PARSE_ERROR;
}
