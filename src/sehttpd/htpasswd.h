/* SPDX-License-Identifier: MIT */
/*
 * A password file in the htpasswd format: "user:hash" lines (and an
 * optional ":comment", as nginx allows), as `htpasswd -B` (bcrypt) and
 * `openssl passwd -5` or `-6` (SHA-crypt) write them; libcrypt's
 * yescrypt ($y$, what Debian's mkpasswd writes) is taken too.  Anything
 * weaker (MD5-crypt, DES crypt, {SHA}, plain text) is refused when the file
 * is read, so that no request is ever checked against it.  A loaded file
 * is shared by reference: a reload (SIGHUP) makes a new one while checks
 * in progress finish with the old.
 */
#ifndef SEHTTPD_HTPASSWD_H
#define SEHTTPD_HTPASSWD_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct crypt_data;

/* The longest user name and hash taken, and the largest file. */
#define HTPASSWD_USER_MAX 255
#define HTPASSWD_HASH_MAX 255
#define HTPASSWD_FILE_MAX (16u << 20)
#define HTPASSWD_DIGEST_LEN 32

struct htpasswd_user {
	/* SHA-256 of the name: every name is compared in the same time. */
	unsigned char name_digest[HTPASSWD_DIGEST_LEN];
	const char *hash; /* NUL-terminated, in the file's text */
	unsigned line; /* in the file, for messages */
};

struct htpasswd {
	atomic_uint refs;
	uint64_t serial; /* unique to this load: cached checks name it */
	size_t nusers;
	struct htpasswd_user *users;
	size_t slowest; /* the user whose hash costs most: see check */
	/* The quickest check of users[slowest] so far, in us (0: none yet):
	 * what every refusal takes at least. */
	atomic_uint_least64_t slowest_us;
	char *text; /* the file's bytes, which the hashes point into */
	size_t text_len;
};

/*
 * Parses a file's text (len bytes, NUL-terminated at len), which the
 * result takes over.  Returns it with one reference, or NULL with the
 * reason in why and the line it is on in *line (0: the file as a whole);
 * text is freed then too.
 */
struct htpasswd *htpasswd_parse(char *text, size_t len, unsigned *line,
				char *why, size_t cap);

/*
 * Reads and parses the file at path.  Returns it with one reference, or
 * NULL with "PATH:LINE: why" (or "PATH: why") in err.
 */
struct htpasswd *htpasswd_load(const char *path, char *err, size_t cap);

struct htpasswd *htpasswd_get(struct htpasswd *h);
void htpasswd_put(struct htpasswd *h);

/*
 * Whether user (user_len bytes) has a line whose hash password (a C
 * string) matches.  Slow by design (a bcrypt check takes tens of
 * milliseconds): never on an event loop.  Its time does not tell whether
 * the user exists: every name is compared, and an unknown user's password
 * is hashed like the user's whose scheme and cost make the slowest check
 * (users[slowest]), then refused; and a refusal waits until it has taken
 * as long as the quickest check of that hash so far, so a user of a
 * quicker scheme or cost is not told apart either (the first refusal
 * times the slowest hash for that).  scratch is libcrypt's crypt_r() state, one per thread.
 */
bool htpasswd_check(struct htpasswd *h, const char *user, size_t user_len,
		    const char *password, struct crypt_data *scratch);

/* SHA-256 of n bytes of s. */
void htpasswd_digest(const char *s, size_t n,
		     unsigned char out[HTPASSWD_DIGEST_LEN]);

#endif /* SEHTTPD_HTPASSWD_H */
