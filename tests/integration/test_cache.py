"""The content cache: files changed, replaced or deleted on disk are
served fresh within two seconds (identity, gzip and precompressed), new
files show in listings, a tiny cache evicts correctly, and --cache-size
is validated.  Every test here changes files, so it serves a tree of its
own: against khttpd in the test guest, a copy there that each change
reaches through the guest's control channel (target.py)."""

import os
import subprocess
import time
import unittest

from httpraw import build_request, Conn
from target import (ServerTestCase, needs_process, nobody_bin, only_local,
                    sehttpd_bin, start_server, temp_dir)
import tree as treemod
from codings import coding_of, decode, streamed

FRESH_WITHIN_S = 2.0  # what the server promises
POLL_S = 3.0  # how long a test waits for a first fresh response
# When every thread's cache must be fresh: the promise plus some slack.
ALL_FRESH_AT_S = 2.5
CONNECTIONS = 8  # new connections spread over the server's threads


def text(size, seed):
    return treemod.english_like(size, seed)


class OwnTreeTestCase(ServerTestCase):
    """A server over a fresh copy of the tree, which the tests change."""

    server_args = ()
    # Whether a big text file must come gzip-coded when gzip is accepted.
    expect_gzip = True

    @classmethod
    def setUpClass(cls):
        cls.tree = treemod.make_tree(temp_dir())
        cls.target = start_server(cls.server_args, tree=cls.tree)
        cls.addClassCleanup(cls._stop_target)

    def setUp(self):
        srv = self.target.server
        if not srv.alive():
            type(self).target = start_server(self.server_args,
                                             tree=self.tree)

    def path(self, url):
        return os.path.join(self.tree.www, url.lstrip('/'))

    def write(self, url, data, mtime, sync=True):
        """Writes url's file; sync=False leaves copying it to the server
        (in the test guest) to the caller, with others at once, and its
        removal at the end where the server's copy is."""
        p = self.path(url)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, 'wb') as fh:
            fh.write(data)
        os.utime(p, (mtime, mtime))
        if sync:
            self.target.sync(url.lstrip('/'))
        self.addCleanup(self.remove, url, sync)

    def remove(self, url, sync=True):
        try:
            os.unlink(self.path(url))
        except FileNotFoundError:
            pass
        if sync:
            self.target.sync(url.lstrip('/'))

    def fetch(self, url, ae=None, conn=None, method='GET'):
        headers = [] if ae is None else [('Accept-Encoding', ae)]
        data = build_request(method, url, headers=headers)
        if conn is None:
            return self.send(data, method)
        conn.send(data)
        return conn.read_response(method)

    def check(self, resp, want, ae):
        """None when resp is the fresh answer want (bytes, or an int
        status), else what is wrong with it."""
        if isinstance(want, int):
            return None if resp.status == want else \
                'status %d, not %d' % (resp.status, want)
        if resp.status != 200:
            return 'status %d' % resp.status
        # Beyond the cache's per-file limit only sehttpd compresses.
        large = len(want) > 1 << 20
        if ae == 'gzip' and self.expect_gzip and len(want) > 1000 and \
                coding_of(resp) != (streamed('gzip') if large else 'gzip'):
            return 'not gzip-coded: %s' % coding_of(resp)
        try:
            body = decode(resp)
        except AssertionError as e:
            return str(e)
        if body != want:
            return 'stale or wrong body (%d bytes, expected %d)' \
                % (len(body), len(want))
        return None

    def warm(self, url, want, codings=(None, 'gzip')):
        """Gets url over several connections so that every thread caches
        it; checks each answer."""
        for i in range(CONNECTIONS):
            for ae in codings:
                err = self.check(self.fetch(url, ae), want, ae)
                self.assertIsNone(err, '%s %s before the change' % (url, ae))

    def wait_fresh(self, url, want, changed_at, codings=(None, 'gzip'),
                   kept=()):
        """Polls until url answers want in every coding (failing after
        POLL_S), then checks that answers over new connections and over
        the connections kept (opened before the change) are all fresh
        once ALL_FRESH_AT_S has passed since changed_at."""
        for ae in codings:
            while True:
                resp = self.fetch(url, ae)
                err = self.check(resp, want, ae)
                if err is None:
                    break
                waited = time.monotonic() - changed_at
                if waited > POLL_S:
                    self.fail('%s (Accept-Encoding %s) still not fresh %.1f '
                              's after the change: %s\n%s'
                              % (url, ae, waited, err, resp.describe()))
                time.sleep(0.05)
        time.sleep(max(0.0, changed_at + ALL_FRESH_AT_S - time.monotonic()))
        for i in range(CONNECTIONS):
            for ae in codings:
                resp = self.fetch(url, ae)
                err = self.check(resp, want, ae)
                self.assertIsNone(err, '%s (Accept-Encoding %s) on new '
                                  'connection %d, %.1f s after the change\n%s'
                                  % (url, ae, i, ALL_FRESH_AT_S,
                                     resp.describe()))
        for i, c in enumerate(kept):
            for ae in codings:
                resp = self.fetch(url, ae, c)
                err = self.check(resp, want, ae)
                self.assertIsNone(err, '%s (Accept-Encoding %s) on kept '
                                  'connection %d\n%s'
                                  % (url, ae, i, resp.describe()))
        return resp

    def open_kept(self, n=4):
        conns = [Conn(self.target.host, self.target.port) for _ in range(n)]
        for c in conns:
            self.addCleanup(c.close)
        return conns


class CacheFreshnessTest(OwnTreeTestCase):
    # Connections kept idle across a change and the wait for it (sehttpd's
    # default; khttpd runs with a short one in the test guest).
    server_args = ('--timeout', '15')
    MTIME = treemod.FIXED_MTIME

    def test_changed_same_size(self):
        url = '/fresh/same.txt'
        old, new = text(20000, 41), text(20000, 42)
        self.assertNotEqual(old, new)
        self.write(url, old, self.MTIME)
        kept = self.open_kept()
        for c in kept:
            for ae in (None, 'gzip'):
                self.assertIsNone(self.check(self.fetch(url, ae, c), old, ae))
        self.warm(url, old)
        tags = {ae: self.fetch(url, ae).header('ETag')
                for ae in (None, 'gzip')}
        self.write(url, new, self.MTIME + 10)
        changed_at = time.monotonic()
        self.wait_fresh(url, new, changed_at, kept=kept)
        for ae in (None, 'gzip'):
            resp = self.fetch(url, ae)
            self.assertNotEqual(resp.header('ETag'), tags[ae],
                                'ETag unchanged after the file changed')
            self.assertEqual(resp.header('Last-Modified'),
                             'Tue, 14 Nov 2023 22:13:30 GMT')
            # The old tag no longer matches.
            resp = self.send(build_request('GET', url, headers=[
                ('If-None-Match', tags[ae])] + ([] if ae is None else [
                    ('Accept-Encoding', ae)])))
            self.assertIsNone(self.check(resp, new, ae), resp.describe())

    def test_changed_size(self):
        grow, shrink = '/fresh/grow.txt', '/fresh/shrink.txt'
        self.write(grow, text(8000, 43), self.MTIME)
        self.write(shrink, text(30000, 44), self.MTIME)
        self.warm(grow, text(8000, 43))
        self.warm(shrink, text(30000, 44))
        self.write(grow, text(30000, 45), self.MTIME + 20)
        self.write(shrink, text(3000, 46), self.MTIME + 20)
        changed_at = time.monotonic()
        self.wait_fresh(grow, text(30000, 45), changed_at)
        self.wait_fresh(shrink, text(3000, 46), changed_at)

    @only_local('changes a file in place within its second: a copy in '
                'the guest (busybox tar) is a new file with whole seconds')
    def test_changed_without_new_size_or_second(self):
        """Same size, mtime moved by a fraction of a second only."""
        url = '/fresh/subsecond.txt'
        old, new = text(6000, 47), text(6000, 48)
        self.write(url, old, self.MTIME)
        self.warm(url, old)
        p = self.path(url)
        with open(p, 'wb') as fh:
            fh.write(new)
        os.utime(p, ns=(self.MTIME * 10**9 + 500000000,
                        self.MTIME * 10**9 + 500000000))
        self.wait_fresh(url, new, time.monotonic())

    def test_replaced_by_rename(self):
        url = '/fresh/renamed.txt'
        old, new = text(12000, 49), text(12000, 50)
        self.write(url, old, self.MTIME)
        self.warm(url, old)
        tmp = self.path('/fresh/.renamed.tmp')
        with open(tmp, 'wb') as fh:
            fh.write(new)
        os.utime(tmp, (self.MTIME + 30, self.MTIME + 30))
        os.rename(tmp, self.path(url))
        self.target.sync(url.lstrip('/'), 'fresh/.renamed.tmp')
        self.wait_fresh(url, new, time.monotonic())

    def test_deleted(self):
        url = '/fresh/deleted.txt'
        self.write(url, text(9000, 51), self.MTIME)
        self.warm(url, text(9000, 51))
        kept = self.open_kept()
        for c in kept:
            self.assertEqual(self.fetch(url, 'gzip', c).status, 200)
        self.remove(url)
        self.wait_fresh(url, 404, time.monotonic(), kept=kept)
        resp = self.fetch(url, 'gzip', method='HEAD')
        self.assertEqual(resp.status, 404)

    def test_new_file_in_listing(self):
        d = '/fresh/listed/'
        self.write(d + 'first.txt', b'first\n', self.MTIME)
        os.utime(self.path(d), (self.MTIME, self.MTIME))
        listing = {ae: self.fetch(d, ae) for ae in (None, 'gzip')}
        for ae, resp in listing.items():
            self.assertEqual(resp.status, 200, resp.describe())
            self.assertIn(b'first.txt', decode(resp))
            self.assertNotIn(b'second-new.txt', decode(resp))
        for _ in range(CONNECTIONS):
            for ae in (None, 'gzip'):
                self.fetch(d, ae)
        self.write(d + 'second-new.txt', b'second\n', self.MTIME + 5)
        changed_at = time.monotonic()
        for ae in (None, 'gzip'):
            while True:
                resp = self.fetch(d, ae)
                self.assertEqual(resp.status, 200)
                if b'second-new.txt' in decode(resp):
                    break
                if time.monotonic() - changed_at > POLL_S:
                    self.fail('new file not in the listing (%s) after %.1f '
                              's' % (ae, POLL_S))
                time.sleep(0.05)
        time.sleep(max(0.0, changed_at + ALL_FRESH_AT_S - time.monotonic()))
        for i in range(CONNECTIONS):
            for ae in (None, 'gzip'):
                body = decode(self.fetch(d, ae))
                self.assertIn(b'second-new.txt', body, 'connection %d, %s'
                              % (i, ae))
                self.assertIn(b'first.txt', body)

    def test_gz_sibling_replaced(self):
        """A new FILE.gz is sent (its exact bytes) within two seconds."""
        url = '/fresh/sib.txt'
        data = text(15000, 52)
        gz1 = treemod._gzip_bytes(data, 1, 1000000001, 'one')
        gz2 = treemod._gzip_bytes(data, 9, 1000000002, 'two')
        self.write(url, data, self.MTIME)
        self.write(url + '.gz', gz1, self.MTIME + 100)
        self.warm(url, data, ('gzip',))
        resp = self.fetch(url, 'gzip')
        self.assertEqual(resp.body, gz1, 'the .gz sibling not sent')
        tag1 = resp.header('ETag')
        self.write(url + '.gz', gz2, self.MTIME + 200)
        changed_at = time.monotonic()
        while True:
            resp = self.fetch(url, 'gzip')
            if resp.body == gz2:
                break
            if time.monotonic() - changed_at > POLL_S:
                self.fail('the replaced %s.gz is not sent %.1f s later '
                          '(got %d bytes, header %r; the old one is %d '
                          'bytes)' % (url, POLL_S, len(resp.body),
                                      resp.body[:20], len(gz1)))
            time.sleep(0.05)
        self.assertNotEqual(resp.header('ETag'), tag1,
                            'other gzip bytes under the same strong ETag')

    def test_index_gz_sibling_replaced(self):
        """The same for a directory's index.html.gz, asked for as /dir/."""
        url = '/fresh/idx/'
        data = text(15000, 54)
        gz1 = treemod._gzip_bytes(data, 1, 1000000004, 'one')
        gz2 = treemod._gzip_bytes(data, 9, 1000000005, 'two')
        self.write(url + 'index.html', data, self.MTIME)
        self.write(url + 'index.html.gz', gz1, self.MTIME + 100)
        self.warm(url, data, ('gzip',))  # every thread caches gz1
        self.write(url + 'index.html.gz', gz2, self.MTIME + 200)
        time.sleep(ALL_FRESH_AT_S)
        for i in range(CONNECTIONS):
            self.assertEqual(self.fetch(url, 'gzip').body, gz2,
                             'the replaced index.html.gz is not sent %.1f s '
                             'later (connection %d)' % (ALL_FRESH_AT_S, i))

    def test_gz_sibling_removed(self):
        url = '/fresh/sibgone.txt'
        data = text(15000, 53)
        gz = treemod._gzip_bytes(data, 1, 1000000003, 'gone')
        self.write(url, data, self.MTIME)
        self.write(url + '.gz', gz, self.MTIME + 100)
        for _ in range(CONNECTIONS):
            self.assertEqual(self.fetch(url, 'gzip').body, gz)
        self.remove(url + '.gz')
        changed_at = time.monotonic()
        while True:
            resp = self.fetch(url, 'gzip')
            if resp.body != gz:
                break
            if time.monotonic() - changed_at > POLL_S:
                self.fail('the removed %s.gz is still sent %.1f s later'
                          % (url, POLL_S))
            time.sleep(0.05)
        self.assertIsNone(self.check(resp, data, 'gzip'), resp.describe())


class TinyCacheTest(OwnTreeTestCase):
    server_args = ('--cache-size', '1')
    FILES = 24
    SIZE = 200 * 1024

    def test_eviction_keeps_bodies_exact(self):
        """Many distinct 200 KB files through a 1 MiB cache, twice each,
        identity and gzip: every answer is exact."""
        urls = []
        for i in range(self.FILES):
            url = '/evict/f%02d.txt' % i
            self.write(url, text(self.SIZE, 1000 + i), treemod.FIXED_MTIME,
                       sync=False)
            urls.append(url)
        self.target.sync(*[url.lstrip('/') for url in urls])
        with self.conn() as c:
            for rnd in range(2):
                for i, url in enumerate(urls):
                    want = text(self.SIZE, 1000 + i)
                    for ae in ((None, 'gzip') if (i + rnd) % 2 else
                               ('gzip', None)):
                        resp = self.fetch(url, ae, c)
                        err = self.check(resp, want, ae)
                        self.assertIsNone(err, 'round %d %s %s: %s'
                                          % (rnd, url, ae, err))
        # And over new connections, which land on other threads.
        for i in range(0, self.FILES, 3):
            for ae in (None, 'gzip'):
                resp = self.fetch(urls[i], ae)
                self.assertIsNone(self.check(resp, text(self.SIZE, 1000 + i),
                                             ae))

    def test_large_file_through_tiny_cache(self):
        url = '/content/large.txt'
        for ae in (None, 'gzip'):
            resp = self.fetch(url, ae)
            self.assertIsNone(self.check(resp, self.tree.files[url], ae),
                              resp.describe())


class NoCacheTest(OwnTreeTestCase):
    server_args = ('--cache-size', '0')
    expect_gzip = False  # unspecified without a cache

    def test_serves_and_compresses_exactly(self):
        for url in ('/content/big.txt', '/content/app.js', '/a.txt',
                    '/content/image.png', '/big/1m.bin'):
            for ae in (None, 'gzip', 'deflate'):
                with self.subTest(url=url, accept_encoding=ae):
                    resp = self.fetch(url, ae)
                    self.assertIsNone(self.check(resp, self.tree.files[url],
                                                 None), resp.describe())
                    if resp.framing != 'chunked':
                        self.assertEqual(resp.header('Content-Length'),
                                         str(len(resp.body)))

    def test_changes_seen(self):
        url = '/fresh/nocache.txt'
        self.write(url, text(5000, 54), treemod.FIXED_MTIME)
        self.warm(url, text(5000, 54))
        self.write(url, text(5000, 55), treemod.FIXED_MTIME + 1)
        self.wait_fresh(url, text(5000, 55), time.monotonic())


class SiblingTimeTests:
    """A precompressed sibling dated the file's time cut to the second (as
    Debian's brotli -k leaves it) or to the microsecond (utimes()) stands
    for the file; one from an earlier second does not (a mixin: the plan
    without a cache and the cache's look at siblings decide apart)."""

    FILE_NS = treemod.FIXED_MTIME * 10**9 + 123456789

    def write_dated(self, url, data, ns):
        self.write(url, data, treemod.FIXED_MTIME)
        os.utime(self.path(url), ns=(ns, ns))

    @only_local('dates files to the nanosecond: a copy in the guest '
                '(busybox tar) has whole seconds')
    def test_sibling_dated_to_a_coarser_time(self):
        br = treemod._brotli_bytes(text(12000, 80))
        if br is None:
            self.skipTest('the brotli tool is not installed')
        second = self.FILE_NS // 10**9 * 10**9
        for name, sib_ns in (('second', second),
                             ('micro', self.FILE_NS // 1000 * 1000)):
            url = '/sibtime/%s.txt' % name
            self.write_dated(url, text(12000, 80), self.FILE_NS)
            self.write_dated(url + '.br', br, sib_ns)
            with self.subTest(sibling_ns=sib_ns):
                resp = self.fetch(url, 'br')
                self.assertEqual(resp.header('Content-Encoding'), 'br',
                                 resp.describe())
                self.assertEqual(resp.body, br, url + '.br not sent')
        url = '/sibtime/older.txt'
        self.write_dated(url, text(12000, 81), self.FILE_NS)
        stale = treemod._brotli_bytes(treemod.STALE_GZ_TEXT * 100)
        self.write_dated(url + '.br', stale, second - 10**9)
        resp = self.fetch(url, 'br')
        self.assertNotEqual(resp.body, stale, 'a sibling a second older sent')
        self.assertIsNone(self.check(resp, text(12000, 81), 'br'),
                          resp.describe())


class SiblingTimeTest(SiblingTimeTests, OwnTreeTestCase):
    pass


class NoCacheSiblingTimeTest(SiblingTimeTests, OwnTreeTestCase):
    server_args = ('--cache-size', '0')
    expect_gzip = False


@needs_process('runs sehttpd with bad --cache-size values')
class CacheSizeFlagTest(unittest.TestCase):

    def run_sehttpd(self, args):
        """Runs sehttpd expecting it to exit at once: (rc, out, err)."""
        p = subprocess.run([sehttpd_bin()] + args, stdin=subprocess.DEVNULL,
                           capture_output=True, timeout=5)
        return p.returncode, p.stdout.decode(), p.stderr.decode()

    def test_invalid_values(self):
        www = treemod.make_tree(temp_dir()).www
        for args in (['--cache-size', '-1'], ['--cache-size', 'abc'],
                     ['--cache-size', ''], ['--cache-size', '12abc'],
                     ['--cache-size', '-0x10']):
            with self.subTest(args=args):
                rc, out, err = self.run_sehttpd(['-b', '127.0.0.1', '-p', '0']
                                                + args + [www])
                self.assertEqual(rc, 2, 'exit %s; stderr %r' % (rc, err))
                lines = err.splitlines()
                self.assertEqual(len(lines), 1, err)
                self.assertTrue(lines[0].startswith('sehttpd: '), err)
                self.assertNotIn('listening', out)
        rc, out, err = self.run_sehttpd(['-b', '127.0.0.1', '-p', '0', www,
                                         '--cache-size'])
        self.assertEqual(rc, 2, 'a missing value: exit %s, %r' % (rc, err))
        self.assertTrue(err.startswith('sehttpd: '), err)


def read_chars(pid):
    """Bytes the process has passed to read() and pread() so far (rchar of
    /proc/PID/io): a cached file served again adds nothing to it."""
    with open('/proc/%d/io' % pid) as fh:
        for line in fh:
            if line.startswith('rchar:'):
                return int(line.split()[1])
    raise AssertionError('no rchar in /proc/%d/io' % pid)


NOBODY = 65534


def drop_to_nobody():
    os.setgroups([])
    os.setgid(NOBODY)
    os.setuid(NOBODY)


@needs_process('watches the server process read files')
class CacheRevalidationTest(OwnTreeTestCase):
    """An entry checked against its file once a second stays in the cache
    while the file is unchanged, and leaves it when a request for the file
    would now be answered otherwise (say, it became unreadable).  One
    thread, so that every request meets the same cache.  Run as root, the
    server drops to nobody (over a tree it may traverse) so that a file can
    be made unreadable to it."""

    server_args = ('-t', '1')
    SIZE = 200 * 1024
    SPACING_S = 1.1  # past the second after which an entry is checked
    MTIME = treemod.FIXED_MTIME

    @classmethod
    def setUpClass(cls):
        base = temp_dir()
        cls.tree = treemod.make_tree(base)
        kw = {}
        if os.geteuid() == 0:
            cls.open_to_all(base)
            kw['preexec_fn'] = drop_to_nobody
            kw['exe'] = nobody_bin()
        cls.start_kw = kw
        cls.target = start_server(cls.server_args, tree=cls.tree, **kw)
        cls.addClassCleanup(cls._stop_target)

    def setUp(self):
        if not self.target.server.alive():
            type(self).target = start_server(self.server_args,
                                             tree=self.tree, **self.start_kw)

    @staticmethod
    def open_to_all(top):
        """Lets everyone read top and everything beneath it, whatever
        umask the suite runs with."""
        os.chmod(top, 0o755)
        for d, dirs, files in os.walk(top):
            for names, mode in ((dirs, 0o755), (files, 0o644)):
                for name in names:
                    p = os.path.join(d, name)
                    if not os.path.islink(p):  # never what links reach
                        os.chmod(p, mode)

    def write(self, url, data, mtime):
        super().write(url, data, mtime)
        if os.geteuid() == 0:
            self.open_to_all(self.tree.www)
            os.utime(self.path(url), (mtime, mtime))

    def test_unchanged_file_not_read_again(self):
        """Requests spaced past the check interval are answered from the
        cache: the server reads far less than the file each time.  Only
        the gzip answers count: an identity body this large goes from the
        page cache by sendfile, which rchar counts too."""
        url = '/reval/unchanged.txt'
        data = text(self.SIZE, 60)
        self.write(url, data, self.MTIME)
        pid = self.target.server.proc.pid
        for ae in (None, 'gzip'):
            self.assertIsNone(self.check(self.fetch(url, ae), data, ae))
        read = 0
        for i in range(3):
            time.sleep(self.SPACING_S)
            # gzip first: a rebuilt entry would read the file for it.
            for ae in ('gzip', None):
                before = read_chars(pid)
                resp = self.fetch(url, ae)
                self.assertIsNone(self.check(resp, data, ae),
                                  resp.describe())
                if ae:
                    read += read_chars(pid) - before
        self.assertLess(read, self.SIZE // 2, 'the server read %d bytes for '
                        '3 requests %.1f s apart to an unchanged %d-byte '
                        'file: the cached entry is not revalidated'
                        % (read, self.SPACING_S, self.SIZE))

    def test_index_answers_any_listing_order(self):
        """A sort query on a directory with an index page gets the cached
        index: it neither misses the cache nor replaces the entry (which
        would read the file and compress it again for the next client)."""
        url = '/reval/withindex/'
        data = text(self.SIZE, 62)
        self.write(url + 'index.html', data, self.MTIME)
        pid = self.target.server.proc.pid
        for ae in (None, 'gzip'):
            self.assertIsNone(self.check(self.fetch(url, ae), data, ae))
        before = read_chars(pid)
        for query in ('?sort=size', '', '?sort=date&order=desc', ''):
            resp = self.fetch(url + query, 'gzip')
            self.assertIsNone(self.check(resp, data, 'gzip'),
                              resp.describe())
        read = read_chars(pid) - before
        self.assertLess(read, self.SIZE // 2, 'the server read %d bytes for '
                        '4 requests to a cached index page' % read)

    def test_mode_change_revalidated(self):
        """A cached file the server may no longer read is no longer
        served, as an uncached one would not be."""
        url = '/reval/private.txt'
        data = text(20000, 61)
        self.write(url, data, self.MTIME)
        for ae in (None, 'gzip'):
            self.assertIsNone(self.check(self.fetch(url, ae), data, ae))
        # Owned by another user (root) when the server runs as nobody.
        os.chmod(self.path(url), 0o600 if os.geteuid() == 0 else 0)
        self.addCleanup(os.chmod, self.path(url), 0o644)
        self.wait_fresh(url, 403, time.monotonic())


@needs_process('dates files of a tree of its own')
class FarFutureDateTest(OwnTreeTestCase):
    """Files dated after 2262, when nanoseconds since 1970 no longer fit
    in 63 bits (tar keeps such dates): served, and tagged by their time."""

    server_args = ('-t', '1')  # one cache: each answer follows the last
    Y2400_NS = 13569465600 * 10**9  # 2400-01-01 00:00:00 UTC
    Y2401_NS = 13601088000 * 10**9

    def date(self, url, ns):
        os.utime(self.path(url), ns=(ns, ns))

    def tag_after(self, url, ae, old):
        """The ETag url gets once it differs from old (POLL_S at most)."""
        start = time.monotonic()
        while True:
            resp = self.fetch(url, ae)
            self.assertEqual(resp.status, 200, resp.describe())
            tag = resp.header('ETag')
            if tag != old or time.monotonic() - start > POLL_S:
                return tag
            time.sleep(0.05)

    def test_mtime_after_2262(self):
        for url, data in (('/future/small.txt', text(5000, 70)),
                          ('/future/large.txt', b'x' * (1536 * 1024))):
            self.write(url, data, treemod.FIXED_MTIME)
            self.date(url, self.Y2400_NS)
            for ae in (None, 'gzip'):
                with self.subTest(url=url, accept_encoding=ae):
                    resp = self.fetch(url, ae)
                    self.assertIsNone(self.check(resp, data, ae),
                                      resp.describe())
                    tag = resp.header('ETag')
                    # Compressed as sent, a large file's tag is weak.
                    self.assertRegex(tag or '', r'^(W/)?"[0-9a-z-]+"$')
                    resp = self.send(build_request('GET', url, headers=[
                        ('If-None-Match', tag)] + ([] if ae is None else [
                            ('Accept-Encoding', ae)])))
                    self.assertEqual(resp.status, 304, resp.describe())
                    # A year later, same inode and size: another tag.
                    self.date(url, self.Y2401_NS)
                    later = self.tag_after(url, ae, tag)
                    self.assertNotEqual(later, tag,
                                        'the ETag did not follow the date')
                    self.date(url, self.Y2400_NS)
                    self.assertEqual(self.tag_after(url, ae, later), tag)
