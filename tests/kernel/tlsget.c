// SPDX-License-Identifier: MIT
/*
 * tlsget HOST PORT PATH [1.2|1.3 [slow]]: a TLS client for the test guest,
 * linked statically with OpenSSL.  GETs PATH, writes the body to standard
 * output and "VERSION CIPHER" to standard error; slow: after the first
 * MiB, reads 4 KiB per millisecond from a 4 KiB receive buffer, so that
 * the server's last records fill its socket.  An end without close_notify
 * is a failure ("cut").  It does not verify the server: the integration
 * suite does that; here only the path the records take is under test.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/ssl.h>

static int fail(const char *what)
{
	fprintf(stderr, "tlsget: %s\n", what);
	ERR_print_errors_fp(stderr);
	return 1;
}

/* Writes what follows the response head; the status must be 200. */
static int body_out(SSL *ssl, bool slow)
{
	static const struct timespec ms = { 0, 1000000 };
	static char buf[1 << 16];
	size_t have = 0, n, total = 0;
	char *end = NULL;

	while (!end) {
		if (have == sizeof(buf) - 1 ||
		    !SSL_read_ex(ssl, buf + have, sizeof(buf) - 1 - have, &n))
			return fail("no response head");
		have += n;
		buf[have] = '\0';
		end = strstr(buf, "\r\n\r\n");
	}
	if (strncmp(buf, "HTTP/1.1 200 ", 13))
		return fail("status is not 200");
	fwrite(end + 4, 1, have - (size_t)(end + 4 - buf), stdout);
	while (SSL_read_ex(ssl, buf, slow ? 4096 : sizeof(buf), &n)) {
		fwrite(buf, 1, n, stdout);
		total += n;
		if (slow && total > (1 << 20))
			nanosleep(&ms, NULL);
	}
	return SSL_get_error(ssl, 0) == SSL_ERROR_ZERO_RETURN ? 0 : fail("cut");
}

int main(int argc, char **argv)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	char req[512];
	SSL_CTX *ctx;
	SSL *ssl;
	int fd, v = 0, small = 4096;
	bool slow = argc > 5 && !strcmp(argv[5], "slow");

	if (argc < 4 || inet_pton(AF_INET, argv[1], &sa.sin_addr) != 1)
		return fail("usage: tlsget IPV4 PORT PATH [1.2|1.3]");
	sa.sin_port = htons((uint16_t)atoi(argv[2]));
	if (argc > 4)
		v = strcmp(argv[4], "1.2") ? TLS1_3_VERSION : TLS1_2_VERSION;
	ctx = SSL_CTX_new(TLS_client_method());
	if (!ctx || (v && (!SSL_CTX_set_min_proto_version(ctx, v) ||
			   !SSL_CTX_set_max_proto_version(ctx, v))))
		return fail("context");
	/* AES-GCM: what the guest kernel's tls module has loaded for it. */
	SSL_CTX_set_cipher_list(ctx, "ECDHE+AESGCM");
	SSL_CTX_set_ciphersuites(ctx, "TLS_AES_128_GCM_SHA256");
	fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd >= 0 && slow)
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof(small));
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)))
		return fail("connect");
	ssl = SSL_new(ctx);
	if (!ssl || !SSL_set_fd(ssl, fd) || SSL_connect(ssl) != 1)
		return fail("handshake");
	fprintf(stderr, "%s %s\n", SSL_get_version(ssl),
		SSL_get_cipher_name(ssl));
	snprintf(req, sizeof(req),
		 "GET %s HTTP/1.1\r\nHost: guest\r\nConnection: close\r\n\r\n",
		 argv[3]);
	if (SSL_write(ssl, req, (int)strlen(req)) <= 0)
		return fail("request");
	return body_out(ssl, slow);
}
