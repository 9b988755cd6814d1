// SPDX-License-Identifier: MIT
/*
 * The settings are Mozilla's "intermediate" profile narrowed to ECDHE:
 * TLS 1.2 and 1.3 only, AEAD ciphers only, the server's order for 1.2 so
 * that a client offering a weak suite first still gets a strong one.
 * Resumption works both ways clients ask: TLS 1.2 session IDs from a
 * per-process cache, and tickets (1.2 and 1.3) sealed by rotating keys
 * (tls_tickets.h).  kTLS is asked for; OpenSSL uses it when the kernel
 * takes the "tls" ULP and the cipher is one the kernel knows.
 */
#include "tls.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#define TLS12_CIPHERS                    \
	"ECDHE-ECDSA-AES128-GCM-SHA256:" \
	"ECDHE-RSA-AES128-GCM-SHA256:"   \
	"ECDHE-ECDSA-AES256-GCM-SHA384:" \
	"ECDHE-RSA-AES256-GCM-SHA384:"   \
	"ECDHE-ECDSA-CHACHA20-POLY1305:" \
	"ECDHE-RSA-CHACHA20-POLY1305"
#define TLS_GROUPS "X25519:prime256v1:secp384r1"
#define TLS_SESSION_CACHE 20480
#define TLS_SESSION_ID_CONTEXT "sehttpd"

/* A pair as loaded from its files. */
struct tls_cert {
	X509 *cert;
	STACK_OF(X509) * chain;
	EVP_PKEY *key;
};

/* The contexts of one load, owned by the first (see set_free). */
struct tls_ctx_set {
	unsigned n;
	SSL_CTX *ctx[TLS_PAIRS_MAX];
};

/* The callbacks OpenSSL calls take no argument of ours that reaches the
 * ring; there is one per process. */
static struct tls_ticket_ring *ticket_ring;
static int set_index = -1;

static void cert_free(struct tls_cert *c)
{
	if (!c)
		return;
	X509_free(c->cert);
	sk_X509_pop_free(c->chain, X509_free);
	EVP_PKEY_free(c->key);
	free(c);
}

/* OpenSSL's reason for the last failure, or the system's. */
static const char *last_error(void)
{
	unsigned long e = ERR_peek_last_error();
	const char *r = e ? ERR_reason_error_string(e) : NULL;

	return r ? r : strerror(errno ? errno : EINVAL);
}

static BIO *pem_open(const char *flag, const char *path, char *err,
		     size_t errlen)
{
	BIO *b;

	errno = 0;
	b = BIO_new_file(path, "r");
	if (!b)
		snprintf(err, errlen, "%s %s: %s", flag, path,
			 errno ? strerror(errno) : last_error());
	return b;
}

/* The certificate, then the chain: every further certificate in the file. */
static int cert_read(struct tls_cert *c, const char *path, char *err,
		     size_t errlen)
{
	BIO *b = pem_open("--tls-cert", path, err, errlen);
	X509 *x;

	if (!b)
		return -1;
	c->cert = PEM_read_bio_X509_AUX(b, NULL, NULL, NULL);
	c->chain = sk_X509_new_null();
	while (c->cert && c->chain &&
	       (x = PEM_read_bio_X509(b, NULL, NULL, NULL))) {
		if (!sk_X509_push(c->chain, x)) {
			X509_free(x);
			break;
		}
	}
	BIO_free(b);
	if (!c->cert || !c->chain) {
		snprintf(err, errlen, "--tls-cert %s: no PEM certificate (%s)",
			 path, last_error());
		return -1;
	}
	ERR_clear_error(); /* the end of the file, as a PEM "error" */
	return 0;
}

/* Where in the chain the key's certificate is (1 for the first after the
 * server's own), or 0: a file with its chain in the wrong order is told
 * apart from a key of another certificate. */
static int key_place_in_chain(const struct tls_cert *c)
{
	for (int i = 0; i < sk_X509_num(c->chain); i++) {
		if (X509_check_private_key(sk_X509_value(c->chain, i),
					   c->key) == 1)
			return i + 1;
	}
	return 0;
}

static int key_read(struct tls_cert *c, const char *cert_path, const char *path,
		    char *err, size_t errlen)
{
	BIO *b = pem_open("--tls-key", path, err, errlen);
	int place;

	if (!b)
		return -1;
	c->key = PEM_read_bio_PrivateKey(b, NULL, NULL, NULL);
	BIO_free(b);
	if (!c->key) {
		snprintf(err, errlen, "--tls-key %s: no PEM private key (%s)",
			 path, last_error());
		return -1;
	}
	if (X509_check_private_key(c->cert, c->key) == 1)
		return 0;
	place = key_place_in_chain(c);
	if (place)
		snprintf(err, errlen,
			 "--tls-key %s is the key of certificate %d of %d in "
			 "--tls-cert %s: the server's own certificate comes "
			 "first, then the chain",
			 path, place + 1, sk_X509_num(c->chain) + 1, cert_path);
	else
		snprintf(err, errlen,
			 "--tls-key %s does not match the first certificate "
			 "in --tls-cert %s",
			 path, cert_path);
	return -1;
}

static struct tls_cert *cert_load(const struct tls_pair *p, char *err,
				  size_t errlen)
{
	struct tls_cert *c = calloc(1, sizeof(*c));

	if (!c) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	ERR_clear_error();
	if (cert_read(c, p->cert_path, err, errlen) ||
	    key_read(c, p->cert_path, p->key_path, err, errlen)) {
		cert_free(c);
		ERR_clear_error();
		return NULL;
	}
	return c;
}

static int seal_or_open_ticket(SSL *ssl, unsigned char *name, unsigned char *iv,
			       EVP_CIPHER_CTX *cipher, EVP_MAC_CTX *mac,
			       int enc)
{
	struct tls_ticket_key k;
	OSSL_PARAM params[3];
	int64_t now = time(NULL);
	int ret = 1;

	(void)ssl;
	if (enc) {
		if (tls_tickets_seal_key(ticket_ring, now, &k) ||
		    RAND_bytes(iv, EVP_CIPHER_iv_length(EVP_aes_256_cbc())) <=
			    0)
			return 0; /* no ticket this time */
		memcpy(name, k.name, TLS_TICKET_NAME_LEN);
		if (!EVP_EncryptInit_ex(cipher, EVP_aes_256_cbc(), NULL, k.aes,
					iv))
			ret = -1;
	} else {
		enum tls_ticket_match m =
			tls_tickets_open_key(ticket_ring, name, now, &k);

		if (m == TLS_TICKET_UNKNOWN)
			return 0; /* a full handshake, and a new ticket */
		if (!EVP_DecryptInit_ex(cipher, EVP_aes_256_cbc(), NULL, k.aes,
					iv))
			ret = -1;
		else if (m == TLS_TICKET_RENEW)
			ret = 2;
	}
	params[0] = OSSL_PARAM_construct_octet_string(OSSL_MAC_PARAM_KEY,
						      k.hmac, sizeof(k.hmac));
	params[1] = OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST,
						     (char *)"SHA256", 0);
	params[2] = OSSL_PARAM_construct_end();
	if (ret > 0 && !EVP_MAC_CTX_set_params(mac, params))
		ret = -1;
	explicit_bzero(&k, sizeof(k));
	return ret;
}

/*
 * ALPN: HTTP/2 when the client offers it, else HTTP/1.1 when it offers
 * that; no ALPN answer otherwise.  Our preference wins, as in nginx and h2o.
 */
static int select_alpn(SSL *ssl, const unsigned char **out,
		       unsigned char *outlen, const unsigned char *in,
		       unsigned int inlen, void *arg)
{
	static const unsigned char ours[] = "\x02h2\x08http/1.1";
	unsigned char *sel;

	(void)ssl;
	(void)arg;
	if (SSL_select_next_proto(&sel, outlen, ours, sizeof(ours) - 1, in,
				  inlen) != OPENSSL_NPN_NEGOTIATED)
		return SSL_TLSEXT_ERR_NOACK;
	*out = sel;
	return SSL_TLSEXT_ERR_OK;
}

/* SNI: the first pair whose certificate names the host; else the first. */
static int select_cert(SSL *ssl, int *alert, void *arg)
{
	const struct tls_ctx_set *set = arg;
	const char *host = SSL_get_servername(ssl, TLSEXT_NAMETYPE_host_name);

	(void)alert;
	if (!host || set->n < 2)
		return SSL_TLSEXT_ERR_OK;
	for (unsigned i = 0; i < set->n; i++) {
		X509 *x = SSL_CTX_get0_certificate(set->ctx[i]);

		if (X509_check_host(x, host, 0, 0, NULL) == 1) {
			if (i > 0 && !SSL_set_SSL_CTX(ssl, set->ctx[i]))
				return SSL_TLSEXT_ERR_ALERT_FATAL;
			break;
		}
	}
	return SSL_TLSEXT_ERR_OK;
}

static SSL_CTX *ctx_new(const struct tls_cert *c)
{
	SSL_CTX *ctx = SSL_CTX_new(TLS_server_method());

	if (!ctx)
		return NULL;
	SSL_CTX_set_options(
		ctx, SSL_OP_CIPHER_SERVER_PREFERENCE | SSL_OP_NO_RENEGOTIATION |
			     SSL_OP_NO_COMPRESSION | SSL_OP_ENABLE_KTLS |
			     SSL_OP_IGNORE_UNEXPECTED_EOF);
	/* Writes report progress record by record, and a retry may come
	 * from a buffer that moved; idle connections keep no buffers. */
	SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE |
				      SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER |
				      SSL_MODE_RELEASE_BUFFERS);
	SSL_CTX_set_read_ahead(ctx, 1); /* a record in one read, not two */
	SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_SERVER);
	SSL_CTX_sess_set_cache_size(ctx, TLS_SESSION_CACHE);
	SSL_CTX_set_timeout(ctx, TLS_TICKET_ROTATE_S);
	if (!SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION) ||
	    !SSL_CTX_set_cipher_list(ctx, TLS12_CIPHERS) ||
	    !SSL_CTX_set1_groups_list(ctx, TLS_GROUPS) ||
	    !SSL_CTX_set_session_id_context(
		    ctx, (const unsigned char *)TLS_SESSION_ID_CONTEXT,
		    sizeof(TLS_SESSION_ID_CONTEXT) - 1) ||
	    !SSL_CTX_set_tlsext_ticket_key_evp_cb(ctx, seal_or_open_ticket) ||
	    SSL_CTX_use_certificate(ctx, c->cert) != 1 ||
	    SSL_CTX_use_PrivateKey(ctx, c->key) != 1 ||
	    !SSL_CTX_set1_chain(ctx, c->chain)) {
		SSL_CTX_free(ctx);
		return NULL;
	}
	SSL_CTX_set_alpn_select_cb(ctx, select_alpn, NULL);
	return ctx;
}

/* The first context owns the set: it goes when the last connection that
 * began on it has gone. */
static void set_free(void *parent, void *ptr, CRYPTO_EX_DATA *ad, int idx,
		     long argl, void *argp)
{
	struct tls_ctx_set *set = ptr;

	(void)parent, (void)ad, (void)idx, (void)argl, (void)argp;
	if (!set)
		return;
	for (unsigned i = 1; i < set->n; i++)
		SSL_CTX_free(set->ctx[i]);
	free(set);
}

/* The contexts for certs; returns the first, which holds the others. */
static SSL_CTX *set_build(struct tls_cert *const *certs, unsigned n)
{
	struct tls_ctx_set *set = calloc(1, sizeof(*set));

	if (!set)
		return NULL;
	for (set->n = 0; set->n < n; set->n++) {
		set->ctx[set->n] = ctx_new(certs[set->n]);
		if (!set->ctx[set->n])
			break;
	}
	if (set->n < n || !SSL_CTX_set_ex_data(set->ctx[0], set_index, set)) {
		for (unsigned i = 0; i < set->n; i++)
			SSL_CTX_free(set->ctx[i]);
		free(set);
		return NULL;
	}
	SSL_CTX_set_tlsext_servername_callback(set->ctx[0], select_cert);
	SSL_CTX_set_tlsext_servername_arg(set->ctx[0], set);
	return set->ctx[0];
}

int tls_open(struct tls *t, const struct tls_pair *pairs, unsigned npairs,
	     char *err, size_t errlen)
{
	memset(t, 0, sizeof(*t));
	t->pairs = pairs;
	t->npairs = npairs;
	if (set_index < 0)
		set_index =
			SSL_CTX_get_ex_new_index(0, NULL, NULL, NULL, set_free);
	if (tls_tickets_init(&t->tickets, time(NULL))) {
		snprintf(err, errlen, "no randomness for ticket keys: %s",
			 strerror(errno));
		return -1;
	}
	ticket_ring = &t->tickets;
	pthread_mutex_init(&t->lock, NULL);
	for (unsigned i = 0; i < npairs; i++) {
		t->certs[i] = cert_load(&pairs[i], err, errlen);
		if (!t->certs[i]) {
			tls_close(t);
			return -1;
		}
	}
	t->current = set_build(t->certs, npairs);
	if (!t->current) {
		snprintf(err, errlen, "cannot set up TLS: %s", last_error());
		tls_close(t);
		return -1;
	}
	return 0;
}

void tls_reload(struct tls *t)
{
	struct tls_cert *certs[TLS_PAIRS_MAX];
	char err[512];
	SSL_CTX *next, *old;

	for (unsigned i = 0; i < t->npairs; i++) {
		certs[i] = cert_load(&t->pairs[i], err, sizeof(err));
		if (!certs[i])
			fprintf(stderr,
				"sehttpd: reload: %s; keeping the "
				"certificate loaded before\n",
				err);
	}
	for (unsigned i = 0; i < t->npairs; i++) {
		if (!certs[i]) {
			certs[i] = t->certs[i];
			t->certs[i] = NULL;
		}
	}
	next = set_build(certs, t->npairs);
	if (!next) {
		fprintf(stderr,
			"sehttpd: reload: %s; keeping the "
			"certificates loaded before\n",
			last_error());
		ERR_clear_error();
		for (unsigned i = 0; i < t->npairs; i++) {
			if (!t->certs[i])
				t->certs[i] = certs[i];
			else
				cert_free(certs[i]);
		}
		return;
	}
	for (unsigned i = 0; i < t->npairs; i++) {
		cert_free(t->certs[i]);
		t->certs[i] = certs[i];
	}
	pthread_mutex_lock(&t->lock);
	old = t->current;
	t->current = next;
	pthread_mutex_unlock(&t->lock);
	SSL_CTX_free(old); /* open connections hold their own reference */
}

void tls_close(struct tls *t)
{
	SSL_CTX_free(t->current);
	t->current = NULL;
	for (unsigned i = 0; i < t->npairs; i++) {
		cert_free(t->certs[i]);
		t->certs[i] = NULL;
	}
	if (ticket_ring == &t->tickets)
		ticket_ring = NULL;
	tls_tickets_destroy(&t->tickets);
	pthread_mutex_destroy(&t->lock);
}

struct ssl_st *tls_session_new(struct tls *t, int fd)
{
	SSL *ssl;

	pthread_mutex_lock(&t->lock);
	ssl = SSL_new(t->current);
	pthread_mutex_unlock(&t->lock);
	if (!ssl)
		return NULL;
	if (!SSL_set_fd(ssl, fd)) {
		SSL_free(ssl);
		ERR_clear_error();
		return NULL;
	}
	SSL_set_accept_state(ssl);
	return ssl;
}
