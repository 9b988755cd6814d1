/* SPDX-License-Identifier: MIT */
/*
 * A worker's memory of credentials that passed a check, so that a page
 * and its 40 assets cost one bcrypt, not 41.  A credential is known by a
 * SHA-256 of a random secret, the password file's load (its serial: a
 * reload forgets everything) and the Authorization value; neither the
 * password nor an unsalted hash of it is kept.  Only this worker's
 * thread uses it; failures are never remembered.
 */
#ifndef SEHTTPD_AUTH_CACHE_H
#define SEHTTPD_AUTH_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define AUTH_CACHE_SLOTS 64 /* a power of two */
#define AUTH_CACHE_TTL_MS 60000
#define AUTH_CACHE_KEY_LEN 32

struct evp_md_ctx_st;

struct auth_cache {
	struct evp_md_ctx_st *md;
	unsigned char secret[32];
	struct {
		unsigned char key[AUTH_CACHE_KEY_LEN];
		uint64_t expires_ms; /* 0: empty */
	} slot[AUTH_CACHE_SLOTS];
};

/* NULL when out of memory or randomness. */
struct auth_cache *auth_cache_new(void);
void auth_cache_free(struct auth_cache *c);

/* The key of the Authorization value (len bytes) for a file's serial. */
void auth_cache_key(struct auth_cache *c, uint64_t serial, const char *value,
		    size_t len, unsigned char key[AUTH_CACHE_KEY_LEN]);
/* Whether key passed a check less than AUTH_CACHE_TTL_MS before now. */
bool auth_cache_hit(const struct auth_cache *c,
		    const unsigned char key[AUTH_CACHE_KEY_LEN],
		    uint64_t now_ms);
/* Remembers that key passed a check now (over whatever had its slot). */
void auth_cache_add(struct auth_cache *c,
		    const unsigned char key[AUTH_CACHE_KEY_LEN],
		    uint64_t now_ms);

#endif /* SEHTTPD_AUTH_CACHE_H */
