// SPDX-License-Identifier: MIT
#include "auth_cache.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <stdlib.h>
#include <string.h>

struct auth_cache *auth_cache_new(void)
{
	struct auth_cache *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->md = EVP_MD_CTX_new();
	if (!c->md || RAND_bytes(c->secret, sizeof(c->secret)) != 1) {
		auth_cache_free(c);
		return NULL;
	}
	return c;
}

void auth_cache_free(struct auth_cache *c)
{
	if (!c)
		return;
	EVP_MD_CTX_free(c->md);
	OPENSSL_cleanse(c, sizeof(*c));
	free(c);
}

void auth_cache_key(struct auth_cache *c, uint64_t serial, const char *value,
		    size_t len, unsigned char key[AUTH_CACHE_KEY_LEN])
{
	/* EVP_sha256() is a constant: nothing is fetched per request. */
	if (EVP_DigestInit_ex(c->md, EVP_sha256(), NULL) != 1 ||
	    EVP_DigestUpdate(c->md, c->secret, sizeof(c->secret)) != 1 ||
	    EVP_DigestUpdate(c->md, &serial, sizeof(serial)) != 1 ||
	    EVP_DigestUpdate(c->md, value, len) != 1 ||
	    EVP_DigestFinal_ex(c->md, key, NULL) != 1)
		/* A key nothing was added under: the check runs. */
		memset(key, 0, AUTH_CACHE_KEY_LEN);
}

/* Direct-mapped: a collision only costs a check again. */
static unsigned slot_of(const unsigned char key[AUTH_CACHE_KEY_LEN])
{
	return key[0] & (AUTH_CACHE_SLOTS - 1);
}

bool auth_cache_hit(const struct auth_cache *c,
		    const unsigned char key[AUTH_CACHE_KEY_LEN],
		    uint64_t now_ms)
{
	unsigned i = slot_of(key);

	return c->slot[i].expires_ms > now_ms &&
	       !CRYPTO_memcmp(c->slot[i].key, key, AUTH_CACHE_KEY_LEN);
}

void auth_cache_add(struct auth_cache *c,
		    const unsigned char key[AUTH_CACHE_KEY_LEN],
		    uint64_t now_ms)
{
	unsigned i = slot_of(key);
	static const unsigned char zero[AUTH_CACHE_KEY_LEN];

	if (!memcmp(key, zero, sizeof(zero)))
		return; /* the digest failed: remember nothing */
	memcpy(c->slot[i].key, key, AUTH_CACHE_KEY_LEN);
	c->slot[i].expires_ms = now_ms + AUTH_CACHE_TTL_MS;
}
