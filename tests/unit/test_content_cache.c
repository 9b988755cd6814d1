// SPDX-License-Identifier: MIT
/*
 * The content cache: lookups (missing, fresh, stale) against a fake file
 * system, LRU order and eviction, replacement of a key, growth of the
 * table, entries that outlive the table while a write holds them, and
 * entries holding descriptors instead of bodies.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>

#include "harness.h"
#include "sehttpd/cache.h"
#include "sehttpd/compress.h"

#define NOW 5000000 /* an arbitrary clock value to start from */

/* What the fake file system holds: a file, its FILE.gz, FILE.br and
 * FILE.zst. */
struct fake_fs {
	struct stat file, gz, br, zst;
	bool file_ok, gz_ok, br_ok, zst_ok;
	int calls;
	char last_path[64];
};

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n > k && !strcmp(s + n - k, suffix);
}

static int fake_stat(void *ctx, const char *path, struct stat *st)
{
	struct fake_fs *fs = ctx;
	const struct stat *found = &fs->file;
	bool ok = fs->file_ok;

	fs->calls++;
	snprintf(fs->last_path, sizeof(fs->last_path), "%s", path);
	if (ends_with(path, ".gz")) {
		found = &fs->gz;
		ok = fs->gz_ok;
	} else if (ends_with(path, ".br")) {
		found = &fs->br;
		ok = fs->br_ok;
	} else if (ends_with(path, ".zst")) {
		found = &fs->zst;
		ok = fs->zst_ok;
	}
	if (!ok)
		return -1;
	*st = *found;
	return 0;
}

#define GZ_SLOT http_precompressed_slot(HTTP_CODING_GZIP)

static struct stat file_stat(ino_t ino, off_t size, time_t mtime)
{
	struct stat st = { .st_dev = 1, .st_ino = ino, .st_size = size };

	st.st_mode = S_IFREG | 0644;
	st.st_mtim.tv_sec = st.st_ctim.tv_sec = mtime;
	return st;
}

static char *copy(const char *s)
{
	size_t n = strlen(s);
	char *p = malloc(n + 1);

	memcpy(p, s, n + 1);
	return p;
}

/* A file entry for key, read from path, holding body. */
static struct cache_entry *file_entry(const char *key, const char *path,
				      const char *body, const struct stat *st,
				      uint64_t now)
{
	return cache_entry_new(0, key, strlen(key), CACHE_FILE, copy(body),
			       strlen(body), st, path, "text/plain", false,
			       now);
}

/* Links a new entry and drops the creator's reference. */
static struct cache_entry *add(struct content_cache *c, const char *key,
			       const char *body, uint64_t now)
{
	struct stat st = file_stat(7, (off_t)strlen(body), 1700000000);
	struct cache_entry *e = file_entry(key, key + 1, body, &st, now);

	content_cache_link(c, e);
	content_cache_put(e);
	return e;
}

static enum cache_lookup lookup(struct content_cache *c, const char *key,
				uint64_t now, struct fake_fs *fs,
				struct cache_entry **e)
{
	return content_cache_lookup(c, 0, key, strlen(key), now, fake_stat, fs,
				    e);
}

/* Looks key up and releases it at once: fresh or not. */
static bool present(struct content_cache *c, const char *key)
{
	struct cache_entry *e;

	if (lookup(c, key, NOW, NULL, &e) != CACHE_FRESH)
		return false;
	content_cache_put(e);
	return true;
}

TEST(missing_then_fresh)
{
	struct content_cache *c = content_cache_new(1 << 20);
	struct fake_fs fs = { .file_ok = true };
	struct cache_entry *e, *got;

	CHECK_EQ_INT(lookup(c, "/a.txt", NOW, &fs, &got), CACHE_MISSING);
	CHECK(got == NULL);
	fs.file = file_stat(3, 5, 1700000000);
	e = file_entry("/a.txt", "a.txt", "hello", &fs.file, NOW);
	content_cache_link(c, e);
	CHECK(e->linked);
	CHECK_EQ_INT(e->refs, 2);
	content_cache_put(e);
	CHECK_EQ_INT(lookup(c, "/a.txt", NOW, &fs, &got), CACHE_FRESH);
	CHECK(got == e);
	CHECK_EQ_INT(e->refs, 2);
	CHECK_EQ_MEM(got->rep[HTTP_CODING_IDENTITY].data,
		     got->rep[HTTP_CODING_IDENTITY].len, "hello");
	content_cache_put(got);
	CHECK_EQ_INT(fs.calls, 0); /* not due yet */
	CHECK_EQ_INT(lookup(c, "/b.txt", NOW, &fs, &got), CACHE_MISSING);
	content_cache_free(c);
}

TEST(checked_once_per_interval)
{
	struct content_cache *c = content_cache_new(1 << 20);
	struct fake_fs fs = { .file_ok = true };
	struct cache_entry *e;

	fs.file = file_stat(3, 5, 1700000000);
	e = file_entry("/d/", "d/index.html", "hello", &fs.file, NOW);
	content_cache_link(c, e);
	content_cache_put(e);
	CHECK_EQ_INT(lookup(c, "/d/", NOW + CACHE_CHECK_MS - 1, &fs, &e),
		     CACHE_FRESH);
	content_cache_put(e);
	CHECK_EQ_INT(fs.calls, 0);
	CHECK_EQ_INT(lookup(c, "/d/", NOW + CACHE_CHECK_MS, &fs, &e),
		     CACHE_FRESH);
	content_cache_put(e);
	CHECK_EQ_INT(fs.calls, 1); /* the file; no FILE.gz was ever looked at */
	CHECK_EQ_STR(fs.last_path, "d/index.html");
	/* Checked again a whole interval after the last check only. */
	CHECK_EQ_INT(lookup(c, "/d/", NOW + 2 * CACHE_CHECK_MS - 1, &fs, &e),
		     CACHE_FRESH);
	content_cache_put(e);
	CHECK_EQ_INT(fs.calls, 1);
	content_cache_free(c);
}

/* Caches a file, changes what the fake file system says, and expects the
 * next due lookup to find the entry stale and drop it. */
static void check_stale_after(void (*change)(struct fake_fs *))
{
	struct content_cache *c = content_cache_new(1 << 20);
	struct fake_fs fs = { .file_ok = true };
	struct cache_entry *e;

	fs.file = file_stat(3, 5, 1700000000);
	e = file_entry("/a.txt", "a.txt", "hello", &fs.file, NOW);
	content_cache_link(c, e);
	content_cache_put(e);
	change(&fs);
	CHECK_EQ_INT(lookup(c, "/a.txt", NOW + CACHE_CHECK_MS, &fs, &e),
		     CACHE_STALE);
	CHECK(e == NULL);
	CHECK_EQ_INT(lookup(c, "/a.txt", NOW + CACHE_CHECK_MS, &fs, &e),
		     CACHE_MISSING);
	content_cache_free(c);
}

static void change_nothing(struct fake_fs *fs)
{
	(void)fs;
}

static void change_mtime_ns(struct fake_fs *fs)
{
	fs->file.st_mtim.tv_nsec++;
}

static void change_size(struct fake_fs *fs)
{
	fs->file.st_size++;
}

static void change_inode(struct fake_fs *fs)
{
	fs->file.st_ino++;
}

static void change_mode(struct fake_fs *fs)
{
	fs->file.st_mode = S_IFREG | 0600;
	fs->file.st_ctim.tv_sec++;
}

static void change_ctime_only(struct fake_fs *fs)
{
	fs->file.st_ctim.tv_nsec++;
}

static void make_unreadable(struct fake_fs *fs)
{
	fs->file_ok = false;
}

TEST(stale_when_the_file_changes)
{
	struct content_cache *c = content_cache_new(1 << 20);
	struct fake_fs fs = { .file_ok = true };
	struct cache_entry *e;

	/* The control: nothing changed, still fresh after the check. */
	fs.file = file_stat(3, 5, 1700000000);
	e = file_entry("/a.txt", "a.txt", "hello", &fs.file, NOW);
	content_cache_link(c, e);
	content_cache_put(e);
	change_nothing(&fs);
	CHECK_EQ_INT(lookup(c, "/a.txt", NOW + CACHE_CHECK_MS, &fs, &e),
		     CACHE_FRESH);
	content_cache_put(e);
	content_cache_free(c);

	check_stale_after(change_mtime_ns);
	check_stale_after(change_size);
	check_stale_after(change_inode);
	check_stale_after(change_mode);
	check_stale_after(change_ctime_only);
	check_stale_after(make_unreadable);
}

TEST(sibling_changes_make_stale)
{
	struct content_cache *c = content_cache_new(1 << 20);
	struct fake_fs fs = { .file_ok = true };
	struct cache_entry *e;
	const struct cache_rep *r;

	/* Cached with no FILE.gz: one appearing makes the entry stale. */
	fs.file = file_stat(3, 5, 1700000000);
	e = file_entry("/a.txt", "a.txt", "hello", &fs.file, NOW);
	content_cache_set_sibling(c, e, GZ_SLOT, NULL, NULL, 0);
	content_cache_link(c, e);
	content_cache_put(e);
	CHECK_EQ_INT(lookup(c, "/a.txt", NOW + CACHE_CHECK_MS, &fs, &e),
		     CACHE_FRESH);
	content_cache_put(e);
	CHECK_EQ_INT(fs.calls, 2);
	CHECK_EQ_STR(fs.last_path, "a.txt.gz");
	fs.gz_ok = true;
	fs.gz = file_stat(4, 3, 1700000001);
	CHECK_EQ_INT(lookup(c, "/a.txt", NOW + 2 * CACHE_CHECK_MS, &fs, &e),
		     CACHE_STALE);

	/* Cached with it as the gzip body: its change makes it stale. */
	e = file_entry("/a.txt", "a.txt", "hello", &fs.file, NOW);
	content_cache_set_sibling(c, e, GZ_SLOT, &fs.gz, copy("gzz"), 3);
	content_cache_link(c, e);
	r = content_cache_rep(c, e, HTTP_CODING_GZIP, NULL, NULL, NULL);
	CHECK_EQ_MEM(r->data, r->len, "gzz");
	CHECK(r->etag_len > 4 &&
	      !memcmp(r->etag + r->etag_len - 4, "-gz\"", 4));
	content_cache_put(e);
	CHECK_EQ_INT(lookup(c, "/a.txt", NOW + CACHE_CHECK_MS, &fs, &e),
		     CACHE_FRESH);
	content_cache_put(e);
	fs.gz.st_mtim.tv_sec++;
	CHECK_EQ_INT(lookup(c, "/a.txt", NOW + 2 * CACHE_CHECK_MS, &fs, &e),
		     CACHE_STALE);
	content_cache_free(c);
}

TEST(br_and_zst_siblings)
{
	struct content_cache *c = content_cache_new(1 << 20);
	struct fake_fs fs = { .file_ok = true, .br_ok = true };
	struct cache_entry *e;
	const struct cache_rep *r;
	char br_tag[HTTP_ETAG_MAX];
	size_t br_tag_len;

	fs.file = file_stat(3, 5, 1700000000);
	fs.br = file_stat(5, 2, 1700000001);
	e = file_entry("/a.txt", "a.txt", "hello", &fs.file, NOW);
	content_cache_set_sibling(c, e, http_precompressed_slot(HTTP_CODING_BR),
				  &fs.br, copy("br"), 2);
	content_cache_set_sibling(
		c, e, http_precompressed_slot(HTTP_CODING_ZSTD), NULL, NULL, 0);
	content_cache_set_sibling(c, e, GZ_SLOT, NULL, NULL, 0);
	content_cache_link(c, e);
	CHECK_EQ_INT(content_cache_precompressed(e),
		     HTTP_CODING_BIT(HTTP_CODING_BR));
	r = content_cache_rep(c, e, HTTP_CODING_BR, NULL, NULL, NULL);
	CHECK_EQ_MEM(r->data, r->len, "br");
	CHECK(r->etag_len > 4 &&
	      !memcmp(r->etag + r->etag_len - 4, "-br\"", 4));
	/* Without a compressor or sibling: identity. */
	r = content_cache_rep(c, e, HTTP_CODING_ZSTD, NULL, NULL, NULL);
	CHECK(r == &e->rep[HTTP_CODING_IDENTITY]);
	br_tag_len = e->rep[HTTP_CODING_BR].etag_len;
	memcpy(br_tag, e->rep[HTTP_CODING_BR].etag, br_tag_len);
	CHECK(br_tag_len != e->rep[HTTP_CODING_IDENTITY].etag_len ||
	      memcmp(br_tag, e->rep[HTTP_CODING_IDENTITY].etag, br_tag_len));
	content_cache_put(e);

	/* Every sibling is checked: the file, .br, .zst and .gz. */
	fs.calls = 0;
	CHECK_EQ_INT(lookup(c, "/a.txt", NOW + CACHE_CHECK_MS, &fs, &e),
		     CACHE_FRESH);
	content_cache_put(e);
	CHECK_EQ_INT(fs.calls, 4);
	/* A FILE.zst appearing makes it stale. */
	fs.zst_ok = true;
	fs.zst = file_stat(6, 2, 1700000001);
	CHECK_EQ_INT(lookup(c, "/a.txt", NOW + 2 * CACHE_CHECK_MS, &fs, &e),
		     CACHE_STALE);

	/* So does a change to the FILE.br in use. */
	e = file_entry("/a.txt", "a.txt", "hello", &fs.file, NOW);
	content_cache_set_sibling(c, e, http_precompressed_slot(HTTP_CODING_BR),
				  &fs.br, copy("br"), 2);
	content_cache_link(c, e);
	content_cache_put(e);
	fs.br.st_size = 3;
	CHECK_EQ_INT(lookup(c, "/a.txt", NOW + CACHE_CHECK_MS, &fs, &e),
		     CACHE_STALE);
	content_cache_free(c);
}

/* A yield that says stop at its first call; counts its calls. */
static int stop_at_once(void *ctx)
{
	int *calls = ctx;

	++*calls;
	return -1;
}

static int go_on(void *ctx)
{
	int *calls = ctx;

	++*calls;
	return 0;
}

TEST(compression_stopped_by_its_request_is_tried_again)
{
	struct content_cache *c = content_cache_new(16 << 20);
	struct compressor *z = compressor_new();
	size_t len = 4 * COMPRESS_STEP;
	char *body = malloc(len + 1);
	const struct cache_rep *r;
	struct cache_entry *e;
	struct stat st;
	int calls = 0;

	for (size_t i = 0; i < len; i++)
		body[i] = "compressible text "[i % 18];
	body[len] = '\0';
	st = file_stat(9, (off_t)len, 1700000000);
	e = file_entry("/big.txt", "big.txt", body, &st, NOW);
	free(body);
	content_cache_link(c, e);
	/* A request whose connection ends midway gets identity... */
	r = content_cache_rep(c, e, HTTP_CODING_BR, z, stop_at_once, &calls);
	CHECK_EQ_INT(calls, 1);
	CHECK(r == &e->rep[HTTP_CODING_IDENTITY]);
	/* ...and the coding is still offered to the next, which gets it. */
	CHECK(content_cache_codings(e, COMPRESS_CODINGS) &
	      HTTP_CODING_BIT(HTTP_CODING_BR));
	calls = 0;
	r = content_cache_rep(c, e, HTTP_CODING_BR, z, go_on, &calls);
	CHECK(calls > 0);
	CHECK(r == &e->rep[HTTP_CODING_BR]);
	CHECK(r->data && r->len < len);
	content_cache_put(e);
	compressor_free(z);
	content_cache_free(c);
}

TEST(listing_rebuilt_once_due)
{
	struct content_cache *c = content_cache_new(1 << 20);
	struct fake_fs fs = { .file_ok = true };
	struct stat dir = file_stat(9, 4096, 1700000000);
	struct cache_entry *e;

	dir.st_mode = S_IFDIR | 0755;
	e = cache_entry_new(0, "/d/", 3, CACHE_LISTING, copy("<html>"), 6, &dir,
			    NULL, "text/html", true, NOW);
	content_cache_link(c, e);
	content_cache_put(e);
	CHECK_EQ_INT(lookup(c, "/d/", NOW + CACHE_CHECK_MS - 1, &fs, &e),
		     CACHE_FRESH);
	content_cache_put(e);
	CHECK_EQ_INT(lookup(c, "/d/", NOW + CACHE_CHECK_MS, &fs, &e),
		     CACHE_STALE);
	CHECK_EQ_INT(fs.calls, 0);
	content_cache_free(c);
}

TEST(lru_order_decides_eviction)
{
	struct stat st = file_stat(7, 4, 1700000000);
	struct cache_entry *probe = file_entry("/k0", "k0", "body", &st, NOW);
	size_t bytes = probe->bytes; /* every entry below has this size */
	struct content_cache *c;

	content_cache_put(probe);
	/* Room for three entries, not four. */
	c = content_cache_new(3 * bytes + bytes / 2);
	add(c, "/k0", "body", NOW);
	add(c, "/k1", "body", NOW);
	add(c, "/k2", "body", NOW);
	CHECK(present(c, "/k0")); /* k1 is now the least recently used */
	add(c, "/k3", "body", NOW);
	CHECK(!present(c, "/k1"));
	CHECK(present(c, "/k2")); /* now k0, then k3, are older */
	add(c, "/k4", "body", NOW);
	CHECK(!present(c, "/k0"));
	CHECK(present(c, "/k2"));
	CHECK(present(c, "/k3"));
	CHECK(present(c, "/k4"));
	content_cache_free(c);
}

TEST(too_large_or_disabled_not_linked)
{
	struct stat st = file_stat(7, 4, 1700000000);
	struct content_cache *c = content_cache_new(1000);
	struct content_cache *off = content_cache_new(0);
	struct cache_entry *e = file_entry("/big", "big", "body", &st, NOW);

	CHECK(e->bytes > 1000 / 2);
	content_cache_link(c, e);
	CHECK(!e->linked);
	CHECK_EQ_INT(e->refs, 1);
	CHECK(!content_cache_enabled(off));
	content_cache_link(off, e);
	CHECK(!e->linked);
	CHECK(!present(off, "/big"));
	content_cache_put(e);
	content_cache_free(c);
	content_cache_free(off);
}

TEST(same_key_replaces)
{
	struct content_cache *c = content_cache_new(1 << 20);
	struct stat st = file_stat(7, 3, 1700000000);
	struct cache_entry *old = file_entry("/x", "x", "old", &st, NOW);
	struct cache_entry *e;

	content_cache_link(c, old);
	content_cache_link(c, file_entry("/x", "x", "new", &st, NOW));
	CHECK(!old->linked);
	CHECK_EQ_INT(old->refs, 1); /* only ours is left */
	CHECK_EQ_INT(lookup(c, "/x", NOW, NULL, &e), CACHE_FRESH);
	CHECK(e != old);
	CHECK_EQ_MEM(e->rep[HTTP_CODING_IDENTITY].data,
		     e->rep[HTTP_CODING_IDENTITY].len, "new");
	content_cache_put(e);
	content_cache_put(e); /* the creator's reference */
	content_cache_put(old);
	content_cache_free(c);
}

TEST(table_grows_and_finds_everything)
{
	enum { N = 3000 }; /* well past the initial 256 buckets */
	struct content_cache *c = content_cache_new(256u << 20);
	char key[32];
	int found = 0;

	for (int i = 0; i < N; i++) {
		snprintf(key, sizeof(key), "/f/%d.txt", i);
		add(c, key, "x", NOW);
	}
	for (int i = 0; i < N; i++) {
		snprintf(key, sizeof(key), "/f/%d.txt", i);
		found += present(c, key);
	}
	CHECK_EQ_INT(found, N);
	CHECK(!present(c, "/f/3000.txt"));
	content_cache_free(c);
}

TEST(entry_outlives_the_table_while_written)
{
	struct stat st = file_stat(7, 5, 1700000000);
	struct cache_entry *probe = file_entry("/w", "w", "hello", &st, NOW);
	struct content_cache *c = content_cache_new(2 * probe->bytes + 10);
	struct cache_entry *held, *e;

	content_cache_put(probe);
	add(c, "/w", "hello", NOW);
	/* A response suspended in its write holds this reference. */
	CHECK_EQ_INT(lookup(c, "/w", NOW, NULL, &held), CACHE_FRESH);
	/* Evicted by newer entries (room for two) ... */
	add(c, "/v", "other", NOW);
	add(c, "/u", "third", NOW);
	CHECK(!present(c, "/w"));
	CHECK(!held->linked);
	CHECK_EQ_INT(held->refs, 1);
	CHECK_EQ_MEM(held->rep[HTTP_CODING_IDENTITY].data,
		     held->rep[HTTP_CODING_IDENTITY].len, "hello");
	/* ... or replaced, or stale: the body stays until released. */
	add(c, "/w", "newer", NOW);
	CHECK_EQ_INT(lookup(c, "/w", NOW, NULL, &e), CACHE_FRESH);
	CHECK(e != held);
	content_cache_put(e);
	/* Even the cache going away leaves it alone. */
	content_cache_free(c);
	CHECK_EQ_MEM(held->rep[HTTP_CODING_IDENTITY].data,
		     held->rep[HTTP_CODING_IDENTITY].len, "hello");
	content_cache_put(held); /* freed here: ASan checks the rest */
}

/* A body of n bytes of c, for entries past CACHE_HOLD_SMALL. */
static char *filled(size_t n, char c)
{
	char *b = malloc(n + 1);

	memset(b, c, n);
	b[n] = '\0';
	return b;
}

TEST(entries_held_past_the_table_are_bounded)
{
	const size_t n = 100 * 1024;
	char *body[4] = { filled(n, 'a'), filled(n, 'b'), filled(n, 'c'),
			  filled(n, 'd') };
	struct stat st = file_stat(7, (off_t)n, 1700000000);
	struct cache_entry *probe = file_entry("/p", "p", body[0], &st, NOW);
	struct content_cache *c = content_cache_new(2 * probe->bytes);
	struct cache_entry *a, *b, *d;

	content_cache_put(probe);
	add(c, "/a", body[0], NOW);
	add(c, "/b", body[1], NOW);
	/* Slow readers of both hold them while newer files evict them. */
	CHECK_EQ_INT(lookup(c, "/a", NOW, NULL, &a), CACHE_FRESH);
	CHECK_EQ_INT(lookup(c, "/b", NOW, NULL, &b), CACHE_FRESH);
	CHECK(content_cache_may_hold(c, a));
	add(c, "/c", body[2], NOW);
	CHECK(!a->linked); /* one cache's worth held out of the table */
	CHECK(content_cache_may_hold(c, a)); /* counted already */
	add(c, "/d", body[3], NOW);
	CHECK(!b->linked);
	CHECK_EQ_INT(lookup(c, "/d", NOW, NULL, &d), CACHE_FRESH);
	/* Another cache's worth held: no new holder of a large entry... */
	CHECK(!content_cache_may_hold(c, d));
	CHECK(content_cache_may_hold(c, b));
	/* ... but of a small one. */
	add(c, "/s", "small", NOW);
	{
		struct cache_entry *sm;

		CHECK_EQ_INT(lookup(c, "/s", NOW, NULL, &sm), CACHE_FRESH);
		CHECK(content_cache_may_hold(c, sm));
		content_cache_put(sm);
	}
	/* Once they are read, room again. */
	content_cache_put(a);
	content_cache_put(b);
	CHECK(content_cache_may_hold(c, d));
	content_cache_put(d);
	content_cache_free(c);
	for (int i = 0; i < 4; i++)
		free(body[i]);
}

static bool fd_open(int fd)
{
	return fcntl(fd, F_GETFD) >= 0;
}

/* An entry for a large file: no body, its descriptor instead. */
static struct cache_entry *add_in_file(struct content_cache *c, const char *key,
				       int fd)
{
	struct stat st = file_stat(9, 1 << 20, 1700000000);
	struct cache_entry *e = cache_entry_new(0, key, strlen(key), CACHE_FILE,
						NULL, 0, &st, key + 1,
						"text/plain", true, NOW);

	content_cache_rep_in_file(e, HTTP_CODING_IDENTITY, fd, 1 << 20, NULL);
	content_cache_link(c, e);
	content_cache_put(e);
	return e;
}

TEST(descriptors_bounded_and_closed_with_the_entry)
{
	struct content_cache *c = content_cache_new(1 << 20);
	struct cache_entry *e, *held;
	const struct cache_rep *r;
	int fd[3];

	for (int i = 0; i < 3; i++)
		fd[i] = open("/dev/null", O_RDONLY | O_CLOEXEC);
	content_cache_set_fd_limit(c, 2);
	e = add_in_file(c, "/f0", fd[0]);
	CHECK(e->linked);
	/* Not counted against the memory limit: it holds no body. */
	CHECK(e->bytes < sizeof(*e) + 64);
	/* Sent from the file; nothing to compress without a body. */
	r = content_cache_rep(c, e, HTTP_CODING_GZIP, NULL, NULL, NULL);
	CHECK(r == &e->rep[HTTP_CODING_IDENTITY]);
	CHECK(r->in_file);
	CHECK_EQ_INT(r->fd, fd[0]);
	CHECK_EQ_INT((int)r->len, 1 << 20);
	CHECK(!e->rep[HTTP_CODING_GZIP].data);
	add_in_file(c, "/f1", fd[1]);
	/* A response holds f0 while it is the least recently used. */
	CHECK_EQ_INT(lookup(c, "/f1", NOW, NULL, &held), CACHE_FRESH);
	content_cache_put(held);
	CHECK_EQ_INT(lookup(c, "/f0", NOW, NULL, &held), CACHE_FRESH);
	add_in_file(c, "/f2", fd[2]);
	/* Three descriptors, room for two: f1 went, and closed its. */
	CHECK(!present(c, "/f1"));
	CHECK(!fd_open(fd[1]));
	CHECK(present(c, "/f2"));
	/* f0 stays open while its response holds it, wherever it is. */
	CHECK(present(c, "/f0"));
	content_cache_free(c);
	CHECK(fd_open(fd[0]));
	CHECK(!fd_open(fd[2]));
	content_cache_put(held);
	CHECK(!fd_open(fd[0]));
}

/*
 * An entry whose body is in memory too (a compressible file, sent by
 * sendfile) gives up its descriptor under descriptor pressure or when
 * unused, not its place: its compressed forms would be made again.
 */
TEST(descriptors_shed_where_the_body_is_in_memory)
{
	struct content_cache *c = content_cache_new(4 << 20);
	struct stat st = file_stat(9, 64 << 10, 1700000000);
	char *body = malloc(64 << 10);
	struct cache_entry *e;
	const struct cache_rep *r;
	int fd[2];

	for (int i = 0; i < 2; i++)
		fd[i] = open("/dev/null", O_RDONLY | O_CLOEXEC);
	memset(body, 'a', 64 << 10);
	content_cache_set_fd_limit(c, 1);
	e = cache_entry_new(0, "/mid.css", 8, CACHE_FILE, body, 64 << 10, &st,
			    "mid.css", "text/css", true, NOW);
	content_cache_rep_in_file(e, HTTP_CODING_IDENTITY, fd[0], 64 << 10,
				  NULL);
	content_cache_link(c, e);
	content_cache_put(e);
	/* Pressure: a second descriptor over a limit of one. */
	add_in_file(c, "/big", fd[1]);
	CHECK(present(c, "/mid.css"));
	CHECK(!fd_open(fd[0]));
	CHECK_EQ_INT(lookup(c, "/mid.css", NOW, NULL, &e), CACHE_FRESH);
	r = content_cache_rep(c, e, HTTP_CODING_IDENTITY, NULL, NULL, NULL);
	CHECK(!r->in_file);
	CHECK(r->data != NULL);
	CHECK_EQ_INT((int)r->len, 64 << 10);
	content_cache_put(e);
	/* Unused: the large file's entry, which has nothing else, goes. */
	CHECK(!content_cache_expire_fds(c, NOW + CACHE_FD_IDLE_MS));
	CHECK(!present(c, "/big"));
	CHECK(!fd_open(fd[1]));
	CHECK(present(c, "/mid.css"));
	content_cache_free(c);
}

TEST(unused_descriptors_expire)
{
	struct content_cache *c = content_cache_new(1 << 20);
	struct cache_entry *e;
	int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);

	content_cache_set_fd_limit(c, 8);
	CHECK(!content_cache_expire_fds(c, NOW));
	add_in_file(c, "/old", fd);
	CHECK(content_cache_expire_fds(c, NOW + CACHE_FD_IDLE_MS - 1));
	/* A lookup counts as use. */
	CHECK_EQ_INT(lookup(c, "/old", NOW + 500, NULL, &e), CACHE_FRESH);
	content_cache_put(e);
	CHECK(content_cache_expire_fds(c, NOW + 500 + CACHE_FD_IDLE_MS - 1));
	CHECK(fd_open(fd));
	CHECK(!content_cache_expire_fds(c, NOW + 500 + CACHE_FD_IDLE_MS));
	CHECK(!fd_open(fd));
	CHECK(!present(c, "/old"));
	content_cache_free(c);
}

/* The same path beneath two directories (ROOT and a --vhost's DIR): two
 * entries, neither answering for the other nor replacing it. */
TEST(roots_apart)
{
	struct content_cache *c = content_cache_new(1 << 20);
	struct fake_fs fs = { .file_ok = true };
	struct stat st = file_stat(7, 4, 1700000000);
	struct cache_entry *e, *found;

	add(c, "/index.html", "root", NOW);
	CHECK_EQ_INT(content_cache_lookup(c, 1, "/index.html", 11, NOW,
					  fake_stat, &fs, &found),
		     CACHE_MISSING);
	e = cache_entry_new(1, "/index.html", 11, CACHE_FILE, copy("vhst"), 4,
			    &st, "index.html", "text/html", false, NOW);
	content_cache_link(c, e);
	content_cache_put(e);
	CHECK_EQ_INT(content_cache_lookup(c, 1, "/index.html", 11, NOW,
					  fake_stat, &fs, &found),
		     CACHE_FRESH);
	CHECK_EQ_MEM(found->rep[HTTP_CODING_IDENTITY].data, 4, "vhst");
	content_cache_put(found);
	CHECK_EQ_INT(lookup(c, "/index.html", NOW, &fs, &found), CACHE_FRESH);
	CHECK_EQ_MEM(found->rep[HTTP_CODING_IDENTITY].data, 4, "root");
	content_cache_put(found);
	CHECK_EQ_INT(content_cache_lookup(c, 2, "/index.html", 11, NOW,
					  fake_stat, &fs, &found),
		     CACHE_MISSING);
	content_cache_free(c);
}
