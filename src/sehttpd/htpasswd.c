// SPDX-License-Identifier: MIT
#include "htpasswd.h"

#include <crypt.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "clock_ms.h"

/* The schemes taken: a prefix, and the length after the hash's last '$'. */
static const struct scheme {
	const char *prefix;
	size_t tail;
} schemes[] = {
	{ "$2b$", 53 }, /* bcrypt: salt and hash; htpasswd -B writes $2y$ */
	{ "$2y$", 53 }, { "$2a$", 53 }, { "$6$", 86 }, /* SHA-512-crypt */
	{ "$5$", 43 }, /* SHA-256-crypt */
	{ "$y$", 43 }, /* yescrypt */
};

#define ADVICE "; make one with htpasswd -B or openssl passwd -6"

static uint64_t next_serial(void)
{
	static atomic_uint_fast64_t serial;

	return atomic_fetch_add(&serial, 1) + 1;
}

void htpasswd_digest(const char *s, size_t n,
		     unsigned char out[HTPASSWD_DIGEST_LEN])
{
	EVP_Digest(s, n, out, NULL, EVP_sha256(), NULL);
}

/* crypt(3)'s alphabet, and '$' and the '=' of "rounds=". */
static bool hash_bytes_ok(const char *h)
{
	for (; *h; h++) {
		if (!strchr("./$=", *h) && !(*h >= '0' && *h <= '9') &&
		    !(*h >= 'a' && *h <= 'z') && !(*h >= 'A' && *h <= 'Z'))
			return false;
	}
	return true;
}

/* NULL when hash is one this server checks against, else why not. */
static const char *hash_refused(const char *hash)
{
	const char *last = strrchr(hash, '$');
	int salt;

	if (!strncmp(hash, "$1$", 3) || !strncmp(hash, "$apr1$", 6))
		return "MD5-crypt is too weak" ADVICE;
	if (!strncmp(hash, "{SHA}", 5))
		return "unsalted SHA-1 is too weak" ADVICE;
	if (hash[0] != '$')
		return "not a crypt(3) hash (plain text or DES crypt, "
		       "which are refused)" ADVICE;
	for (size_t i = 0; i < sizeof(schemes) / sizeof(schemes[0]); i++) {
		if (strncmp(hash, schemes[i].prefix, strlen(schemes[i].prefix)))
			continue;
		salt = crypt_checksalt(hash);
		if (!hash_bytes_ok(hash) ||
		    strlen(last + 1) != schemes[i].tail ||
		    salt == CRYPT_SALT_INVALID ||
		    salt == CRYPT_SALT_METHOD_DISABLED)
			return "a malformed or truncated hash";
		return NULL;
	}
	return "an unknown hash scheme (bcrypt $2b$/$2y$, SHA-crypt "
	       "$5$/$6$ or yescrypt $y$ are taken)";
}

/* A user name: not empty, no control bytes (nor ':', which ended it). */
static const char *user_refused(const char *user, size_t n)
{
	if (!n)
		return "an empty user name";
	if (n > HTPASSWD_USER_MAX)
		return "a user name longer than 255 bytes";
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)user[i];

		if (c < 0x20 || c == 0x7f)
			return "a control character in the user name";
	}
	return NULL;
}

/*
 * yescrypt's number in crypt(3)'s alphabet (decode64_uint32() in
 * libxcrypt): the first byte says how many follow.  Returns what is
 * after it, or NULL when malformed.
 */
static const char *yescrypt_number(const char *s, uint64_t min, uint64_t *out)
{
	static const char alphabet[] = "./0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
				       "abcdefghijklmnopqrstuvwxyz";
	uint64_t start = 0, end = 47, bits = 0, c;
	unsigned chars = 1;
	const char *at = *s ? strchr(alphabet, *s++) : NULL;

	if (!at)
		return NULL;
	c = (uint64_t)(at - alphabet);
	*out = min;
	while (c > end) {
		*out += (end + 1 - start) << bits;
		start = end + 1;
		end = start + (62 - end) / 2;
		chars++;
		bits += 6;
	}
	*out += (c - start) << bits;
	while (--chars) {
		at = *s ? strchr(alphabet, *s++) : NULL;
		if (!at)
			return NULL;
		bits -= 6;
		*out += (uint64_t)(at - alphabet) << bits;
	}
	return s;
}

/*
 * About how many microseconds a check against hash takes, from its scheme
 * and cost, as measured on x86-64 (bcrypt cost 12: 260 ms; SHA-512-crypt
 * 5000 rounds: 2 ms; yescrypt N=4096 r=32: 32 ms).  Only the order
 * matters: it picks the hash an unknown user is checked against.
 */
static double hash_cost(const char *hash)
{
	uint64_t flavor, n_log2 = 0, r = 1, have = 0, p = 1, t = 0;
	double per_round = hash[1] == '6' ? 0.4 : 0.6;
	const char *s = hash + 3;
	unsigned long rounds = 5000;

	if (hash[1] == '2') /* "$2y$12$": 2^cost rounds of Blowfish set-up */
		return ldexp(64, (hash[4] - '0') * 10 + (hash[5] - '0'));
	if (hash[1] == '5' || hash[1] == '6') {
		if (!strncmp(s, "rounds=", 7))
			rounds = strtoul(s + 7, NULL, 10);
		rounds = rounds < 1000 ? 1000 : rounds;
		return per_round *
		       (double)(rounds > 999999999 ? 999999999 : rounds);
	}
	/* yescrypt, "$y$" flavor N r [have [p] [t] ...]: N r p (t + 1). */
	s = yescrypt_number(s, 0, &flavor);
	if (s)
		s = yescrypt_number(s, 1, &n_log2);
	if (s)
		s = yescrypt_number(s, 1, &r);
	if (s && *s != '$')
		s = yescrypt_number(s, 1, &have);
	if (s && (have & 1))
		s = yescrypt_number(s, 2, &p);
	if (s && (have & 2))
		yescrypt_number(s, 1, &t);
	return ldexp(0.25 * (double)r * (double)p * (double)(t + 1),
		     (int)(n_log2 > 63 ? 63 : n_log2));
}

static int digest_order(const void *a, const void *b)
{
	const struct htpasswd_user *x = a, *y = b;

	return memcmp(x->name_digest, y->name_digest, HTPASSWD_DIGEST_LEN);
}

/*
 * Parses one line (NUL-terminated, without its end) into u; NULL, or why
 * it is refused.  The line is cut in place: the hash ends at its NUL.
 */
static const char *parse_line(char *line, struct htpasswd_user *u)
{
	char *colon = strchr(line, ':'), *end;
	const char *why;

	if (!colon)
		return "no ':' between user name and hash";
	why = user_refused(line, (size_t)(colon - line));
	if (why)
		return why;
	/* nginx's "name:hash:comment". */
	end = strchr(colon + 1, ':');
	if (end)
		*end = '\0';
	if (strlen(colon + 1) > HTPASSWD_HASH_MAX)
		return "a hash longer than 255 bytes";
	why = hash_refused(colon + 1);
	if (why)
		return why;
	htpasswd_digest(line, (size_t)(colon - line), u->name_digest);
	u->hash = colon + 1;
	return NULL;
}

/* Every line counted, so that an error names the right one. */
static size_t count_lines(const char *text, size_t len)
{
	size_t n = 1;

	for (const char *p = text;
	     (p = memchr(p, '\n', len - (size_t)(p - text))); p++)
		n++;
	return n;
}

/*
 * A user given twice: its second line, with the first in why; or 0.
 * Sorted by digest, so that a file of many users is checked quickly.
 */
static unsigned duplicate(const struct htpasswd *h, char *why, size_t cap)
{
	struct htpasswd_user *sorted = malloc(h->nusers * sizeof(*sorted));
	unsigned line = 0;

	if (!sorted)
		return 0;
	memcpy(sorted, h->users, h->nusers * sizeof(*sorted));
	qsort(sorted, h->nusers, sizeof(*sorted), digest_order);
	for (size_t i = 1; i < h->nusers; i++) {
		const struct htpasswd_user *a = &sorted[i - 1], *b = &sorted[i];

		if (digest_order(a, b))
			continue;
		if (a->line > b->line) {
			const struct htpasswd_user *t = a;

			a = b;
			b = t;
		}
		if (!line || b->line < line) {
			line = b->line;
			snprintf(why, cap, "the user of line %u again",
				 a->line);
		}
	}
	free(sorted);
	return line;
}

static struct htpasswd *fail(struct htpasswd *h, char *text, char *why,
			     size_t cap, const char *reason)
{
	if (reason)
		snprintf(why, cap, "%s", reason);
	if (h) {
		free(h->users);
		free(h);
	}
	free(text);
	return NULL;
}

struct htpasswd *htpasswd_parse(char *text, size_t len, unsigned *line,
				char *why, size_t cap)
{
	struct htpasswd *h = calloc(1, sizeof(*h));
	char *p = text, *next;
	const char *reason;
	double most;

	*line = 0;
	if (!h)
		return fail(h, text, why, cap, "out of memory");
	if (memchr(text, '\0', len))
		return fail(h, text, why, cap, "a NUL byte: not a text file");
	h->users = calloc(count_lines(text, len), sizeof(*h->users));
	if (!h->users)
		return fail(h, text, why, cap, "out of memory");
	for (; p < text + len; p = next) {
		char *end = memchr(p, '\n', (size_t)(text + len - p));

		next = end ? end + 1 : text + len;
		if (!end)
			end = text + len;
		++*line;
		*end = '\0';
		if (end > p && end[-1] == '\r')
			*--end = '\0';
		if (p == end || p[0] == '#')
			continue;
		reason = parse_line(p, &h->users[h->nusers]);
		if (reason)
			return fail(h, text, why, cap, reason);
		h->users[h->nusers++].line = *line;
	}
	*line = 0;
	if (!h->nusers)
		return fail(h, text, why, cap, "no users");
	*line = duplicate(h, why, cap);
	if (*line)
		return fail(h, text, why, cap, NULL);
	/*
	 * An unknown user is checked against the file's slowest hash, not
	 * its first: in a file that mixes schemes or costs, a quicker one
	 * would let every user with a slower hash be told apart from names
	 * not in the file by the time a refusal takes.  The estimate is
	 * made once, here, rather than by timing checks, so it is the same
	 * on every load of the same file.
	 */
	most = hash_cost(h->users[0].hash);
	for (size_t i = 1; i < h->nusers; i++) {
		double cost = hash_cost(h->users[i].hash);

		if (cost > most) {
			most = cost;
			h->slowest = i;
		}
	}
	atomic_init(&h->refs, 1);
	atomic_init(&h->slowest_us, 0);
	h->serial = next_serial();
	h->text = text;
	h->text_len = len;
	return h;
}

struct htpasswd *htpasswd_load(const char *path, char *err, size_t cap)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	struct htpasswd *h;
	struct stat st;
	char why[160];
	size_t got = 0;
	unsigned line;
	char *text;

	if (fd < 0 || fstat(fd, &st)) {
		snprintf(err, cap, "%s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	if (!S_ISREG(st.st_mode) || st.st_size > HTPASSWD_FILE_MAX) {
		snprintf(err, cap, "%s: %s", path,
			 S_ISREG(st.st_mode) ? "larger than 16 MiB" :
					       "not a regular file");
		close(fd);
		return NULL;
	}
	text = malloc((size_t)st.st_size + 1);
	while (text && got < (size_t)st.st_size) {
		ssize_t n = read(fd, text + got, (size_t)st.st_size - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	if (!text || got < (size_t)st.st_size) {
		snprintf(err, cap, "%s: %s", path,
			 text ? "cannot be read whole" : "out of memory");
		free(text);
		return NULL;
	}
	text[got] = '\0';
	h = htpasswd_parse(text, got, &line, why, sizeof(why));
	if (!h && line)
		snprintf(err, cap, "%s:%u: %s", path, line, why);
	else if (!h)
		snprintf(err, cap, "%s: %s", path, why);
	return h;
}

struct htpasswd *htpasswd_get(struct htpasswd *h)
{
	atomic_fetch_add_explicit(&h->refs, 1, memory_order_relaxed);
	return h;
}

void htpasswd_put(struct htpasswd *h)
{
	if (!h ||
	    atomic_fetch_sub_explicit(&h->refs, 1, memory_order_acq_rel) != 1)
		return;
	/* The hashes are secrets of a kind: no copy left behind. */
	OPENSSL_cleanse(h->text, h->text_len);
	free(h->text);
	free(h->users);
	free(h);
}

/*
 * The quickest a check of the slowest hash has taken, with one that took
 * took_us: a time stretched by scheduling or steal, or by a client's
 * load, is never the one refusals wait for.
 */
static uint64_t slowest_time(struct htpasswd *h, uint64_t took_us)
{
	uint64_t t = atomic_load(&h->slowest_us);

	if (!took_us)
		took_us = 1; /* 0 means "not timed yet" */
	while (t == 0 || took_us < t) {
		if (atomic_compare_exchange_weak(&h->slowest_us, &t, took_us))
			return took_us;
	}
	return t;
}

/*
 * A refusal begun at start_us ends no sooner than a check of the slowest
 * hash does: a user whose hash is quicker (a file mixing schemes or
 * costs) is refused in the time an unknown name is.  Until one has been
 * timed, one is made for it.
 */
static void refusal_wait(struct htpasswd *h, const char *password,
			 struct crypt_data *scratch, uint64_t start_us)
{
	uint64_t target = atomic_load(&h->slowest_us), took;
	struct timespec ts;

	if (!target) {
		uint64_t t = clock_us();

		crypt_r(password, h->users[h->slowest].hash, scratch);
		target = slowest_time(h, clock_us() - t);
	}
	took = clock_us() - start_us;
	if (took >= target)
		return;
	target -= took;
	ts.tv_sec = (time_t)(target / 1000000u);
	ts.tv_nsec = (long)(target % 1000000u) * 1000;
	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

bool htpasswd_check(struct htpasswd *h, const char *user, size_t user_len,
		    const char *password, struct crypt_data *scratch)
{
	unsigned char digest[HTPASSWD_DIGEST_LEN];
	size_t pick = h->slowest, found = 0, n;
	uint64_t start = clock_us();
	const char *hash, *out;
	bool ok;

	htpasswd_digest(user, user_len, digest);
	/* Every name, selected by mask: no branch says which one matched. */
	for (size_t i = 0; i < h->nusers; i++) {
		size_t eq = (size_t)0 - (size_t)!CRYPTO_memcmp(
						digest, h->users[i].name_digest,
						HTPASSWD_DIGEST_LEN);

		pick = (pick & ~eq) | (i & eq);
		found |= eq;
	}
	/* Unknown: the slowest hash, to take as long as any user. */
	hash = h->users[pick].hash;
	n = strlen(hash);
	out = crypt_r(password, hash, scratch);
	ok = (found & 1) && out && strlen(out) == n &&
	     !CRYPTO_memcmp(out, hash, n);
	/* The slowest hash, for a user or for a name that is none: timed
	 * either way, which tells nothing. */
	if (pick == h->slowest)
		slowest_time(h, clock_us() - start);
	if (!ok)
		refusal_wait(h, password, scratch, start);
	return ok;
}
