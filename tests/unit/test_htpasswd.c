// SPDX-License-Identifier: MIT
/*
 * htpasswd files: the lines taken, every line refused with its number and
 * why, and checks against bcrypt, SHA-crypt and yescrypt hashes.
 */
#include "harness.h"

#include <crypt.h>
#include <dlfcn.h>
#include <time.h>
#include <unistd.h>

#include "sehttpd/htpasswd.h"

#define BCRYPT "$2y$04$r0GwKVKK35x7DJGAQcTGfOrr1fl1GDjCZf71dWflZ0pbIJ9kF14ue"
#define SHA512                                                           \
	"$6$saltsalt$vqfwhgbpDQsmrvB6w5/8F5c4CO40.Qu2BBSXMRAH03mtpJ3D3U" \
	"ncG8x1f8qam566S8Gqa9EQmwIXTEp9knEjA."
#define SHA256 "$5$saltsalt$zOFVkp0Kz29x0a6a4dSx8FZisA8Iwb0KzzvoRDFTN/8"
#define YESCRYPT \
	"$y$j9T$XnixdmLHb0zgTsjBUwlbk/$aNmiUMIfotNa9j.lu7ymteogthA5tpEe1/PKLwX.uR2"

/* Hashes of "pw" at other costs, to mix with those above. */
#define BCRYPT_12 "$2y$12$eKdFLNBAXtoKCv62HL6f9ug24BfrdarOPCvb6UOKBs1ZUfMUz1Jde"
#define BCRYPT_10 "$2y$10$9i/1eAr2.cRTv3RS02vwZuAUmRp2gYaQL4krqw.7jU/APnh2aHQju"
#define BCRYPT_05 "$2y$05$62GEuuP7oiEsu4J0lnVMEeVdF1s7SoSzh6WDckQv4aSovaxbdqcOe"
#define SHA512_200K                                                        \
	"$6$rounds=200000$R26j1GAqwPikTggc$3mOM8UMgJQRNpLVNGXMYY6TVQfZMqC" \
	"g.FfqZYY50E404I72nhZ/yX2d6oqSkLGcZNV30i1d/eM2icXO3xN.O8/"
#define SHA256_900K \
	"$5$rounds=900000$9dAQ0HfsDSOqbI7D$Z3pDdWNR7YI10Vi9FH7haxZqlR.9ynpfOiyrVaEOp4A"
#define SHA256_1K \
	"$5$rounds=1000$2u/XP0L0n/xwkQMc$QiVvOoH0fwYMXxDA2nwVsMrMm3BfzKJeldJkYRnBqgB"
#define YESCRYPT_1 \
	"$y$j75$EguY4QPL51dLsoGkDgrl90$DP5uhrk1wVIjlbg9Qh2z7XPNvWv8SU7tlP3y6toEG47"

static char why[160];
static unsigned line;

/*
 * libcrypt's crypt_r() as htpasswd_check() calls it: the hash it was
 * given is kept in hashed_with, and while only_note is set nothing is
 * hashed (NULL, as crypt_r() fails), so that a slow cost takes no time.
 */
static char hashed_with[HTPASSWD_HASH_MAX + 1];
static bool only_note;
/* While set, a hash with this setting takes slow_ms (as if hashed). */
static const char *slow_setting;
static unsigned slow_ms, hashes;

char *crypt_r(const char *phrase, const char *setting,
	      struct crypt_data *restrict data)
{
	static char *(*real)(const char *, const char *,
			     struct crypt_data *restrict);

	snprintf(hashed_with, sizeof(hashed_with), "%s", setting);
	hashes++;
	if (slow_setting && !strcmp(setting, slow_setting))
		usleep(slow_ms * 1000u);
	if (only_note)
		return NULL;
	if (!real)
		*(void **)&real = dlsym(RTLD_NEXT, "crypt_r");
	return real ? real(phrase, setting, data) : NULL;
}

/* Parses a copy of s (the parser takes its text over). */
static struct htpasswd *parse(const char *s)
{
	size_t n = strlen(s);
	char *text = malloc(n + 1);

	memcpy(text, s, n + 1);
	why[0] = '\0';
	return htpasswd_parse(text, n, &line, why, sizeof(why));
}

/* s is refused on line want_line, with why containing want. */
static void refused(const char *s, unsigned want_line, const char *want)
{
	struct htpasswd *h = parse(s);

	CHECK(h == NULL);
	htpasswd_put(h);
	CHECK_EQ_INT(line, want_line);
	if (!strstr(why, want))
		fprintf(stderr, "  why '%s' lacks '%s'\n", why, want);
	CHECK(strstr(why, want) != NULL);
}

TEST(lines_taken)
{
	struct htpasswd *h =
		parse("# users\n"
		      "alice:" BCRYPT "\r\n"
		      "\n"
		      "bob:" SHA512 ":a comment, as nginx allows\n"
		      "carol:" SHA256 "\n"
		      "dave:" YESCRYPT "\n"
		      "\xc3\xa9mile:" BCRYPT); /* no final newline */

	CHECK(h != NULL);
	if (!h)
		return;
	CHECK_EQ_INT(h->nusers, 5);
	CHECK_EQ_STR(h->users[0].hash, BCRYPT);
	CHECK_EQ_INT(h->users[0].line, 2);
	CHECK_EQ_STR(h->users[1].hash, SHA512);
	CHECK_EQ_INT(h->users[1].line, 4);
	CHECK_EQ_STR(h->users[3].hash, YESCRYPT);
	CHECK_EQ_INT(h->users[4].line, 7);
	htpasswd_put(h);
}

TEST(serials_differ)
{
	struct htpasswd *a = parse("a:" BCRYPT "\n"),
			*b = parse("a:" BCRYPT "\n");

	CHECK(a && b && a->serial != b->serial);
	CHECK(htpasswd_get(a) == a);
	CHECK_EQ_INT(atomic_load(&a->refs), 2);
	htpasswd_put(a);
	htpasswd_put(a);
	htpasswd_put(b);
}

TEST(lines_refused)
{
	refused("a:" BCRYPT "\nnocolon\n", 2, "no ':'");
	refused(":" BCRYPT "\n", 1, "empty user name");
	refused("a\tb:" BCRYPT "\n", 1, "control character");
	refused("a:$1$s$eSlDmdCX8nqs9SNxRTvrN.\n", 1, "MD5-crypt");
	refused("a:$apr1$s$bHQMM1UunWFj8XWEuTGlW.\n", 1, "MD5-crypt");
	refused("a:{SHA}EfatjsUqKYSrqv18O1FlA3hcIHI=\n", 1, "SHA-1");
	refused("a:iq2yldCtiPo9Q\n", 1, "plain text or DES");
	refused("a:secret\n", 1, "plain text");
	refused("a:\n", 1, "plain text");
	refused("a:$2x$04$r0GwKVKK35x7DJGAQcTGfOrr1fl1GDjCZf71dWflZ0pbIJ9kF1"
		"4ue\n",
		1, "unknown hash scheme");
	refused("a:$7$abc\n", 1, "unknown hash scheme");
	/* Truncated, or with bytes crypt(3) never writes. */
	refused("a:$2y$04$r0GwKVKK35x7DJGAQcTGfOrr1fl1GDjCZf71dWflZ0pbIJ9kF1"
		"4u\n",
		1, "malformed");
	refused("a:" SHA256 " \n", 1, "malformed");
	refused("a:$6$\n", 1, "malformed");
	refused("a:" BCRYPT "\n\nb:" SHA512 "\na:" SHA256 "\n", 4,
		"the user of line 1 again");
	refused("", 0, "no users");
	refused("# only a comment\n\n", 0, "no users");
	{
		static const char nul[] = "a:" BCRYPT "\n\0\n";
		char *text = malloc(sizeof(nul));

		memcpy(text, nul, sizeof(nul));
		CHECK(htpasswd_parse(text, sizeof(nul) - 1, &line, why,
				     sizeof(why)) == NULL);
		CHECK(strstr(why, "NUL") != NULL);
	}
}

TEST(long_names_and_hashes_refused)
{
	char s[1024];

	memset(s, 'u', 256);
	snprintf(s + 256, sizeof(s) - 256, ":%s\n", BCRYPT);
	refused(s, 1, "longer than 255");
	memset(s, 'u', 255);
	snprintf(s + 255, sizeof(s) - 255, ":%s\n", BCRYPT);
	htpasswd_put(parse(s));
	CHECK_EQ_STR(why, "");
	snprintf(s, sizeof(s), "a:$6$%0300d\n", 0);
	refused(s, 1, "hash longer than 255");
}

TEST(checks)
{
	struct crypt_data *cd = calloc(1, sizeof(*cd));
	struct htpasswd *h = parse("alice:" BCRYPT "\n"
				   "bob:" SHA512 "\n"
				   "carol:" SHA256 "\n"
				   "dave:" YESCRYPT "\n");

	CHECK(h != NULL);
	if (!h)
		return;
	CHECK(htpasswd_check(h, "alice", 5, "open sesame", cd));
	CHECK(!htpasswd_check(h, "alice", 5, "open sesamE", cd));
	CHECK(!htpasswd_check(h, "alice", 5, "", cd));
	CHECK(htpasswd_check(h, "bob", 3, "pw6", cd));
	CHECK(htpasswd_check(h, "carol", 5, "pw5", cd));
	CHECK(htpasswd_check(h, "dave", 4, "pwy", cd));
	CHECK_EQ_STR(hashed_with, YESCRYPT);
	/* Another user's password, a prefix of a name, an unknown name:
	 * the last is hashed as dave's, the slowest, and still refused. */
	CHECK(!htpasswd_check(h, "bob", 3, "open sesame", cd));
	CHECK_EQ_STR(hashed_with, SHA512);
	CHECK(!htpasswd_check(h, "alic", 4, "open sesame", cd));
	CHECK(!htpasswd_check(h, "alicea", 6, "open sesame", cd));
	CHECK(!htpasswd_check(h, "mallory", 7, "open sesame", cd));
	CHECK_EQ_STR(hashed_with, YESCRYPT);
	CHECK(!htpasswd_check(h, "mallory", 7, "pwy", cd));
	CHECK(!htpasswd_check(h, "Alice", 5, "open sesame", cd));
	htpasswd_put(h);
	free(cd);
}

/* The hash an unknown user of a file of lines is checked against. */
static void unknown_hashed_with(const char *lines, const char *want)
{
	struct crypt_data *cd = calloc(1, sizeof(*cd));
	struct htpasswd *h = parse(lines);

	CHECK(h != NULL);
	if (h) {
		hashed_with[0] = '\0';
		only_note = true;
		CHECK(!htpasswd_check(h, "nobody", 6, "pw", cd));
		only_note = false;
		if (strcmp(hashed_with, want))
			fprintf(stderr, "  in:\n%s", lines);
		CHECK_EQ_STR(hashed_with, want);
	}
	htpasswd_put(h);
	free(cd);
}

/*
 * An unknown user is checked against the file's slowest hash, by scheme
 * and cost, wherever it is: were it a quicker one, the users of the slow
 * one would take longer than names that are not in the file.
 */
TEST(unknown_user_checked_against_slowest)
{
	/* bcrypt cost 12 (260 ms) after SHA-512-crypt's default (2 ms). */
	unknown_hashed_with("fast:" SHA512 "\nslow:" BCRYPT_12 "\n", BCRYPT_12);
	unknown_hashed_with("slow:" BCRYPT_12 "\nfast:" SHA512 "\n", BCRYPT_12);
	/* bcrypt's cost, SHA-crypt's rounds=, yescrypt's N and r. */
	unknown_hashed_with("a:" BCRYPT_05 "\nb:" BCRYPT "\nc:" BCRYPT_10
			    "\nd:" BCRYPT "\n",
			    BCRYPT_10);
	unknown_hashed_with("a:" SHA256_1K "\nb:" SHA512 "\nc:" SHA512_200K
			    "\n",
			    SHA512_200K);
	unknown_hashed_with("a:" SHA512_200K "\nb:" BCRYPT_10 "\nc:" SHA256_900K
			    "\n",
			    SHA256_900K);
	unknown_hashed_with("a:" YESCRYPT_1 "\nb:" SHA256 "\n", SHA256);
	unknown_hashed_with("a:" YESCRYPT_1 "\nb:" YESCRYPT "\nc:" BCRYPT_05
			    "\n",
			    YESCRYPT);
	unknown_hashed_with("a:" YESCRYPT "\nb:" BCRYPT_10 "\n", BCRYPT_10);
	/* One user, or all alike: the first. */
	unknown_hashed_with("a:" BCRYPT "\n", BCRYPT);
	unknown_hashed_with("a:" SHA512 "\nb:" SHA512 "\n", SHA512);
}

static double check_ms(struct htpasswd *h, const char *user,
		       struct crypt_data *scratch, bool *ok)
{
	struct timespec a, b;

	clock_gettime(CLOCK_MONOTONIC, &a);
	*ok = htpasswd_check(h, user, strlen(user), "wrong", scratch);
	clock_gettime(CLOCK_MONOTONIC, &b);
	return (double)(b.tv_sec - a.tv_sec) * 1e3 +
	       (double)(b.tv_nsec - a.tv_nsec) / 1e6;
}

/*
 * A user whose hash is quicker than the file's slowest is refused in the
 * time a name that is none is: the slowest is timed once (at the first
 * refusal, unless a check of it came first), and every refusal waits that
 * long.  Before, the quick user's refusal took its own hash's time (4 ms
 * against 270 ms with SHA-512-crypt beside bcrypt cost 12).
 */
TEST(refusals_take_the_slowest_time)
{
	static const char *const orders[] = {
		"fast:" SHA512 "\nslow:" BCRYPT_12 "\n",
		"slow:" BCRYPT_12 "\nfast:" SHA512 "\n",
	};
	struct crypt_data *scratch = calloc(1, sizeof(*scratch));

	only_note = true;
	slow_setting = BCRYPT_12;
	slow_ms = 60;
	for (size_t i = 0; i < sizeof(orders) / sizeof(orders[0]); i++) {
		struct htpasswd *h = parse(orders[i]);
		bool ok;

		CHECK(h != NULL);
		/* First the quick user: its refusal times the slowest. */
		hashes = 0;
		CHECK(check_ms(h, "fast", scratch, &ok) >= 59.0 && !ok);
		CHECK_EQ_INT(hashes, 2);
		/* Then it waits as long, without hashing it again. */
		hashes = 0;
		CHECK(check_ms(h, "fast", scratch, &ok) >= 59.0 && !ok);
		CHECK_EQ_INT(hashes, 1);
		CHECK(check_ms(h, "nobody", scratch, &ok) >= 59.0 && !ok);
		CHECK(check_ms(h, "slow", scratch, &ok) >= 59.0 && !ok);
		htpasswd_put(h);
	}
	slow_setting = NULL;
	only_note = false;
	free(scratch);
}

/*
 * A check slowed by load (here the slow hash taking 1 s once) does not
 * make every refusal after it wait that long: the quickest check of the
 * slowest hash is the one waited for.  The review's case: with the
 * longest check kept, every refusal of the load took it.
 */
TEST(a_slowed_check_does_not_stretch_refusals)
{
	struct htpasswd *h = parse("fast:" SHA512 "\nslow:" BCRYPT_12 "\n");
	struct crypt_data *scratch = calloc(1, sizeof(*scratch));
	double ms;
	bool ok;

	only_note = true;
	slow_setting = BCRYPT_12;
	slow_ms = 1000;
	CHECK(check_ms(h, "nobody", scratch, &ok) >= 999.0 && !ok);
	slow_ms = 50;
	CHECK(check_ms(h, "nobody", scratch, &ok) >= 49.0 && !ok);
	/* Well under the slowed check's second, at least the 50 ms. */
	ms = check_ms(h, "fast", scratch, &ok);
	CHECK(ms >= 49.0 && ms < 600.0 && !ok);
	slow_setting = NULL;
	only_note = false;
	htpasswd_put(h);
	free(scratch);
}

TEST(load_names_file_and_line)
{
	char path[] = "/tmp/test_htpasswd_XXXXXX", err[256];
	int fd = mkstemp(path);
	static const char text[] = "a:" BCRYPT "\nb:$apr1$s$bHQMM1UunWFj8X\n";
	struct htpasswd *h;

	CHECK(fd >= 0);
	CHECK(write(fd, text, sizeof(text) - 1) == sizeof(text) - 1);
	close(fd);
	h = htpasswd_load(path, err, sizeof(err));
	CHECK(h == NULL);
	CHECK(!strncmp(err, path, strlen(path)));
	CHECK(!strncmp(err + strlen(path), ":2: MD5-crypt", 13));
	unlink(path);
	CHECK(htpasswd_load(path, err, sizeof(err)) == NULL);
	CHECK(strstr(err, "No such file") != NULL);
	CHECK(htpasswd_load("/tmp", err, sizeof(err)) == NULL);
	CHECK(strstr(err, "not a regular file") != NULL);
}
