// SPDX-License-Identifier: MIT
/*
 * Chunked framing: what the encoder writes, the decoder reads back, at any
 * split; extensions, trailers and every framing error.
 */
#include "harness.h"

#include "http/chunked.h"

#define S(lit) lit, sizeof(lit) - 1

/* Decodes s in one call; returns the result and sets *used. */
static int decode(const char *s, size_t n, size_t *used)
{
	struct http_chunked_decoder d;

	http_chunked_init(&d);
	*used = (size_t)-1;
	return http_chunked_decode(&d, s, n, used);
}

/*
 * Decodes s in pieces of the given sizes (cycled), the way a server reads;
 * returns the result and the total number of body bytes.
 */
static int decode_pieces(const char *s, size_t n, const size_t *piece,
			 size_t npiece, size_t *total)
{
	struct http_chunked_decoder d;
	size_t off = 0, k = 0;
	int r = HTTP_CHUNKED_AGAIN;

	http_chunked_init(&d);
	*total = 0;
	while (off < n && r == HTTP_CHUNKED_AGAIN) {
		size_t len = piece[k++ % npiece], used = (size_t)-1;

		if (len > n - off)
			len = n - off;
		r = http_chunked_decode(&d, s + off, len, &used);
		if (r == HTTP_CHUNKED_ERROR)
			break;
		if (used > len || (r == HTTP_CHUNKED_AGAIN && used != len)) {
			fprintf(stderr, "  used %zu of %zu\n", used, len);
			return -99;
		}
		off += used;
		*total += used;
	}
	return r;
}

TEST(chunk_header)
{
	char out[HTTP_CHUNK_HEADER_MAX + 1];
	size_t n;

	n = http_chunk_header(out, 0);
	CHECK_EQ_MEM(out, n, "0\r\n");
	n = http_chunk_header(out, 1);
	CHECK_EQ_MEM(out, n, "1\r\n");
	n = http_chunk_header(out, 255);
	CHECK_EQ_MEM(out, n, "ff\r\n");
	n = http_chunk_header(out, 0x10000);
	CHECK_EQ_MEM(out, n, "10000\r\n");
	memset(out, '#', sizeof(out));
	n = http_chunk_header(out, UINT64_MAX);
	CHECK_EQ_MEM(out, n, "ffffffffffffffff\r\n");
	CHECK_EQ_INT(n, HTTP_CHUNK_HEADER_MAX);
	CHECK_EQ_INT(out[HTTP_CHUNK_HEADER_MAX], '#');
	CHECK_EQ_MEM(HTTP_LAST_CHUNK, strlen(HTTP_LAST_CHUNK), "0\r\n\r\n");
	CHECK_EQ_MEM(HTTP_CHUNK_END, strlen(HTTP_CHUNK_END), "\r\n");
}

TEST(simple_bodies)
{
	size_t used;

	CHECK_EQ_INT(decode(S("0\r\n\r\n"), &used), HTTP_CHUNKED_DONE);
	CHECK_EQ_INT(used, 5);
	CHECK_EQ_INT(decode(S("5\r\nhello\r\n0\r\n\r\n"), &used),
		     HTTP_CHUNKED_DONE);
	CHECK_EQ_INT(used, 15);
	CHECK_EQ_INT(decode(S("5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n"), &used),
		     HTTP_CHUNKED_DONE);
	CHECK_EQ_INT(used, 26);
	CHECK_EQ_INT(decode(S("A\r\n0123456789\r\n0\r\n\r\n"), &used),
		     HTTP_CHUNKED_DONE);
	CHECK_EQ_INT(decode(S("a\r\n0123456789\r\n0\r\n\r\n"), &used),
		     HTTP_CHUNKED_DONE);
	CHECK_EQ_INT(decode(S("000\r\n\r\n"), &used), HTTP_CHUNKED_DONE);
	/* Data bytes may be anything, CR LF and NUL included. */
	CHECK_EQ_INT(decode(S("4\r\n\r\n\0\r\r\n0\r\n\r\n"), &used),
		     HTTP_CHUNKED_DONE);
	CHECK_EQ_INT(used, 14);
}

TEST(stops_at_the_end_of_the_body)
{
	static const char s[] = "3\r\nabc\r\n0\r\n\r\nGET / HTTP/1.1\r\n";
	size_t used;

	CHECK_EQ_INT(decode(S(s), &used), HTTP_CHUNKED_DONE);
	CHECK_EQ_INT(used, 13);
}

TEST(incomplete_bodies_need_more)
{
	static const char *const partial[] = {
		"",
		"5",
		"5\r",
		"5\r\n",
		"5\r\nhel",
		"5\r\nhello",
		"5\r\nhello\r",
		"5\r\nhello\r\n",
		"5\r\nhello\r\n0",
		"5\r\nhello\r\n0\r\n",
		"5\r\nhello\r\n0\r\n\r",
		"0\r\nX: y\r\n",
		"5;ext=1",
		"ffffffffffffffff\r\n",
	};

	for (size_t i = 0; i < ARRAY_SIZE(partial); i++) {
		size_t n = strlen(partial[i]), used;

		CHECK_EQ_INT(decode(partial[i], n, &used), HTTP_CHUNKED_AGAIN);
		CHECK_EQ_INT(used, n);
	}
}

TEST(extensions)
{
	size_t used;

	CHECK_EQ_INT(decode(S("5;name=value\r\nhello\r\n0\r\n\r\n"), &used),
		     HTTP_CHUNKED_DONE);
	CHECK_EQ_INT(decode(S("5;a;b=\"q;x\"\r\nhello\r\n0;last\r\n\r\n"),
			    &used),
		     HTTP_CHUNKED_DONE);
	CHECK_EQ_INT(used, 30);
	CHECK_EQ_INT(decode(S("5 ;a=b\r\nhello\r\n0\t;z\r\n\r\n"), &used),
		     HTTP_CHUNKED_DONE);
	/* Whitespace around ';' and '=', quoted pairs, obs-text. */
	CHECK_EQ_INT(decode(S("5 ; a = b ;c\t=\t\"x\\\"y\" ; d\r\nhello\r\n"
			      "0;e=\"\xe9\\\xff\"\r\n\r\n"),
			    &used),
		     HTTP_CHUNKED_DONE);
	CHECK_EQ_INT(decode(S("5;!#$%&'*+-.^_`|~09aZ=!#$%&'*+-.^_`|~09aZ\r\n"
			      "hello\r\n0\r\n\r\n"),
			    &used),
		     HTTP_CHUNKED_DONE);
}

TEST(extension_syntax_errors)
{
	static const char *const bad[] = {
		"5;\r\n", /* no name */
		"5;;a\r\n", /* empty element */
		"5;=b\r\n", /* a value without a name */
		"5;a=\r\n", /* '=' without a value */
		"5;a b\r\n", /* two names */
		"5;a=b c\r\n", /* junk after a token value */
		"5;a=\"b\"c\r\n", /* junk after a quoted value */
		"5;a=\"b\x01\"\r\n", /* a control in a quoted value */
		"5;a=\"b\x7f\"\r\n", /* DEL in a quoted value */
		"5;a=\"b\\\x01\"\r\n", /* a control after a backslash */
		"5;a@b\r\n", /* not a tchar in a name */
		"5;a=b@c\r\n", /* not a tchar in a token value */
		"5 \r\n", /* whitespace without an extension */
		"5;a \r\n", /* whitespace at the end of the line */
		"5;a=b\t\r\n", /* whitespace at the end of the line */
		"5;a=\"b\"\r\r\n", /* bare CR */
	};

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		size_t used;

		if (decode(bad[i], strlen(bad[i]), &used) != HTTP_CHUNKED_ERROR)
			fprintf(stderr, "  accepted: %s\n", bad[i]);
		CHECK_EQ_INT(decode(bad[i], strlen(bad[i]), &used),
			     HTTP_CHUNKED_ERROR);
	}
}

TEST(bare_lf_refused)
{
	static const char *const bad[] = {
		"5\nhello\r\n0\r\n\r\n", /* ending a size line */
		"5;a=b\nhello\r\n0\r\n\r\n", /* after an extension */
		"5\r\nhello\n0\r\n\r\n", /* after the data */
		"0\n\r\n", /* ending the last chunk's line */
		"0\r\n\n", /* ending the body */
		"0\r\nX: 1\n\r\n", /* ending a trailer line */
		"5\nhello\n0\n\n", /* everywhere */
	};

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		size_t used;

		if (decode(bad[i], strlen(bad[i]), &used) != HTTP_CHUNKED_ERROR)
			fprintf(stderr, "  accepted case %zu\n", i);
		CHECK_EQ_INT(decode(bad[i], strlen(bad[i]), &used),
			     HTTP_CHUNKED_ERROR);
	}
}

TEST(trailers)
{
	size_t used;

	CHECK_EQ_INT(decode(S("0\r\nX-T: 1\r\nY: 2\r\n\r\n"), &used),
		     HTTP_CHUNKED_DONE);
	CHECK_EQ_INT(used, 19);
	CHECK_EQ_INT(decode(S("1\r\na\r\n0\r\nChecksum: abc\r\n\r\nrest"),
			    &used),
		     HTTP_CHUNKED_DONE);
	CHECK_EQ_INT(used, 26);
}

TEST(trailer_field_syntax)
{
	static const char *const bad[] = {
		"0\r\n X: 1\r\n\r\n", /* obs-fold */
		"0\r\nX: 1\r\n\tmore\r\n\r\n", /* obs-fold */
		"0\r\nno colon\r\n\r\n",       "0\r\n: empty name\r\n\r\n",
		"0\r\nX : 1\r\n\r\n", /* whitespace before the colon */
		"0\r\nX: a\x01b\r\n\r\n", /* a control in the value */
		"0\r\nX: a\x7f\r\n\r\n", /* DEL */
		"0\r\nX: a\rb\r\n\r\n", /* bare CR */
	};
	size_t used;

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		if (decode(bad[i], strlen(bad[i]), &used) != HTTP_CHUNKED_ERROR)
			fprintf(stderr, "  accepted case %zu\n", i);
		CHECK_EQ_INT(decode(bad[i], strlen(bad[i]), &used),
			     HTTP_CHUNKED_ERROR);
	}
	CHECK_EQ_INT(decode(S("0\r\nX-E:\r\nX:\t a \xff\t\r\n"
			      "!#$%&'*+-.^_`|~09aZ: \"q\"\r\n\r\n"),
			    &used),
		     HTTP_CHUNKED_DONE);
}

TEST(framing_errors)
{
	static const char *const bad[] = {
		"g\r\n", /* not hex */
		"\r\n", /* no digits */
		";x\r\n", /* extension without a size */
		"-5\r\n", /* sign */
		"0x5\r\n", /* prefix */
		"5x\r\n", /* junk after the size */
		"5\rX", /* CR without LF */
		"5;a\rb\r\n", /* bare CR in an extension */
		"5;a\0b\r\n", /* NUL in an extension */
		"5\r\nhelloX", /* data not followed by CRLF */
		"5\r\nhello\rX", /* data followed by a bare CR */
		"5\r\nhello\r\r\n", /* two CRs */
		"5\r\nhelloo\r\n", /* a chunk longer than it says */
		"10000000000000000\r\n", /* more than 64 bits */
		"000010000000000000000\r\n", /* the same after zeros */
		"0\r\n\rX", /* bad end of the trailer section */
		"0\r\nX: 1\rY", /* bare CR in a trailer */
		"0\r\nX: a\0b\r\n\r\n", /* NUL in a trailer */
		"0\r\n\0\r\n\r\n", /* NUL starting a trailer */
	};

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		/* Explicit lengths: some cases hold a NUL. */
		size_t n = strlen(bad[i]), used;

		if (i == 8 || i == 17 || i == 18)
			n += 1 + strlen(bad[i] + n + 1);
		if (decode(bad[i], n, &used) != HTTP_CHUNKED_ERROR)
			fprintf(stderr, "  case %zu accepted\n", i);
		CHECK_EQ_INT(decode(bad[i], n, &used), HTTP_CHUNKED_ERROR);
	}
}

TEST(sixteen_hex_digits_accepted)
{
	size_t used;

	CHECK_EQ_INT(decode(S("0000000000000005\r\nhello\r\n0\r\n\r\n"), &used),
		     HTTP_CHUNKED_DONE);
	CHECK_EQ_INT(decode(S("FFFFFFFFFFFFFFFF\r\nabc"), &used),
		     HTTP_CHUNKED_AGAIN);
	CHECK_EQ_INT(used, 21);
}

TEST(leading_zeros_are_not_significant)
{
	size_t used;

	CHECK_EQ_INT(decode(S("00000000000000000005\r\nhello\r\n"
			      "000000000000000000000000\r\n\r\n"),
			    &used),
		     HTTP_CHUNKED_DONE);
	CHECK_EQ_INT(used, 57);
	CHECK_EQ_INT(decode(S("0000FFFFFFFFFFFFFFFF\r\nabc"), &used),
		     HTTP_CHUNKED_AGAIN);
	CHECK_EQ_INT(used, 25);
}

TEST(oversized_lines)
{
	char *s = malloc(40000);
	size_t n, used;

	/* A size line with a 5000-byte extension. */
	n = (size_t)sprintf(s, "5;");
	memset(s + n, 'e', 5000);
	n += 5000;
	memcpy(s + n, "\r\nhello\r\n0\r\n\r\n", 14);
	CHECK_EQ_INT(decode(s, n + 14, &used), HTTP_CHUNKED_ERROR);
	/* Refused before the line ends. */
	CHECK_EQ_INT(decode(s, n, &used), HTTP_CHUNKED_ERROR);
	/* An extension of 4000 bytes is fine. */
	n = (size_t)sprintf(s, "5;");
	memset(s + n, 'e', 4000);
	n += 4000;
	memcpy(s + n, "\r\nhello\r\n0\r\n\r\n", 14);
	CHECK_EQ_INT(decode(s, n + 14, &used), HTTP_CHUNKED_DONE);

	/* One 5000-byte trailer line. */
	n = (size_t)sprintf(s, "0\r\nX: ");
	memset(s + n, 't', 5000);
	n += 5000;
	memcpy(s + n, "\r\n\r\n", 4);
	CHECK_EQ_INT(decode(s, n + 4, &used), HTTP_CHUNKED_ERROR);

	/* Many short trailer lines adding up to more than 16 KiB. */
	n = (size_t)sprintf(s, "0\r\n");
	while (n < 20000)
		n += (size_t)sprintf(s + n, "X-Trailer: 0123456789\r\n");
	memcpy(s + n, "\r\n", 2);
	CHECK_EQ_INT(decode(s, n + 2, &used), HTTP_CHUNKED_ERROR);
	/* ...while 8 KiB of them are fine. */
	n = (size_t)sprintf(s, "0\r\n");
	while (n < 8000)
		n += (size_t)sprintf(s + n, "X-Trailer: 0123456789\r\n");
	memcpy(s + n, "\r\n", 2);
	CHECK_EQ_INT(decode(s, n + 2, &used), HTTP_CHUNKED_DONE);
	CHECK_EQ_INT(used, n + 2);
	free(s);
}

/* Encodes data in chunks of the given sizes, like the server's listing. */
static size_t encode(char *out, const char *data, size_t n, const size_t *sizes,
		     size_t nsizes, const char *trailer)
{
	size_t o = 0, off = 0, k = 0;

	while (off < n) {
		size_t c = sizes[k++ % nsizes];

		if (c > n - off)
			c = n - off;
		if (c == 0)
			continue;
		o += http_chunk_header(out + o, c);
		memcpy(out + o, data + off, c);
		o += c;
		off += c;
		memcpy(out + o, HTTP_CHUNK_END, 2);
		o += 2;
	}
	if (trailer) {
		memcpy(out + o, "0\r\n", 3);
		o += 3;
		o += (size_t)sprintf(out + o, "%s\r\n", trailer);
	} else {
		memcpy(out + o, HTTP_LAST_CHUNK, 5);
		o += 5;
	}
	return o;
}

TEST(round_trip_at_every_split)
{
	static const size_t sizes[][4] = {
		{ 1, 1, 1, 1 },
		{ 7, 300, 1, 16 },
		{ 4096, 4096, 4096, 4096 },
		{ 255, 256, 257, 65536 },
	};
	static const char *const trailers[] = { NULL, "X: 1\r\n", NULL,
						"A: b\r\nC: d\r\n" };
	size_t dn = 5000;
	char *data = malloc(dn), *enc = malloc(64 * 1024);

	for (size_t i = 0; i < dn; i++)
		data[i] = (char)(i * 7 + (i >> 8));
	for (size_t v = 0; v < ARRAY_SIZE(sizes); v++) {
		size_t n = encode(enc, data, v == 0 ? 40 : dn, sizes[v], 4,
				  trailers[v]);
		size_t total, used;

		/* Bytes after the body must not be taken. */
		memcpy(enc + n, "NEXT", 4);
		CHECK_EQ_INT(decode(enc, n + 4, &used), HTTP_CHUNKED_DONE);
		CHECK_EQ_INT(used, n);
		for (size_t at = 0; at <= n; at++) {
			size_t piece[2] = { at, n + 4 - at };
			int r = decode_pieces(enc, n + 4, piece, 2, &total);

			if (r != HTTP_CHUNKED_DONE || total != n) {
				fprintf(stderr, "  split at %zu: %d, %zu\n", at,
					r, total);
				test_failures_in_case++;
				break;
			}
		}
		{
			size_t one = 1;

			CHECK_EQ_INT(decode_pieces(enc, n + 4, &one, 1, &total),
				     HTTP_CHUNKED_DONE);
			CHECK_EQ_INT(total, n);
		}
	}
	free(data);
	free(enc);
}

TEST(errors_found_at_any_split)
{
	static const char *const bad[] = {
		"5\r\nhelloX\r\n0\r\n\r\n",
		"3\r\nabc\r\n00010000000000000000\r\nx\r\n0\r\n\r\n",
		"3\r\nabc\n0\r\n\r\n",
		"3;a=\"b\"c\r\nabc\r\n0\r\n\r\n",
		"3\r\nabc\r\nzz\r\n",
		"0\r\nT: 1\r\n\rQ",
	};

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		size_t n = strlen(bad[i]), total;

		for (size_t at = 0; at <= n; at++) {
			size_t piece[2] = { at, n - at };

			CHECK_EQ_INT(decode_pieces(bad[i], n, piece, 2, &total),
				     HTTP_CHUNKED_ERROR);
		}
	}
}
