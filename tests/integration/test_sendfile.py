"""Bodies sent from the page cache (sendfile): precompressed FILE.gz
siblings of any size, with and without the content cache; ranges of such
bodies; and files truncated or replaced while their body is being sent,
which never crash the server or send a wrong length."""

import os
import time

from httpraw import build_request, ConnectionClosed
from target import ServerTestCase, needs_process, start_server, temp_dir
import tree as treemod
from codings import DEFLATE, ae_headers, coding_of, decode, streamed

MIB = 1 << 20
FRESH_WITHIN_S = 2.5  # the cache's promise (test_cache.py), and slack
FD_IDLE_S = 10  # how long the cache keeps a descriptor nobody asks for


def text(size, seed):
    return treemod.english_like(size, seed)


def noise(size, seed):
    """Bytes that do not compress, the same for a seed."""
    out = bytearray()
    x = seed * 2654435761 + 1
    while len(out) < size:
        x = (x * 6364136223846793005 + 1442695040888963407) % (1 << 64)
        out += x.to_bytes(8, 'little')
    return bytes(out[:size])


class SiblingTreeTest:
    """A server over a tree of its own holding large files with .gz
    siblings; the test classes below run it with and without the content
    cache (a mixin, so that it is no test class itself)."""

    server_args = ()
    # 2 MiB of text beside a 2 MiB "sibling" that is not its gzip: the
    # server sends whatever the sibling holds, so the bytes show where an
    # answer came from.
    LARGE = '/sib/large.txt'
    LARGE_SIZE = 2 * MIB
    # Within the cache's per-file limit, with a sibling beyond the size
    # that is held in memory.
    MID = '/sib/mid.txt'
    MID_SIZE = 300 * 1024
    # A sibling older than its file is ignored at any size.
    STALE = '/sib/stale.txt'
    # Another coding's sibling goes the same way.
    LARGE_BR = '/sib/large.css'

    @classmethod
    def setUpClass(cls):
        cls.tree = treemod.make_tree(temp_dir())
        www = cls.tree.www
        os.makedirs(os.path.join(www, 'sib'), exist_ok=True)
        cls.data = {}
        mtime = treemod.FIXED_MTIME
        for url, body, gz, gz_mtime in (
                (cls.LARGE, text(cls.LARGE_SIZE, 80),
                 noise(cls.LARGE_SIZE, 81), mtime + 10),
                (cls.MID, text(cls.MID_SIZE, 82),
                 noise(200 * 1024, 83), mtime + 10),
                (cls.STALE, text(cls.LARGE_SIZE, 84),
                 noise(MIB + 7, 85), mtime - 10),
                (cls.LARGE_BR, text(cls.LARGE_SIZE, 86),
                 noise(3 * MIB // 2, 87), mtime + 10)):
            cls.data[url] = body
            cls.data[url + '.gz'] = gz
            for u, b, t in ((url, body, mtime), (url + '.gz', gz, gz_mtime)):
                if url == cls.LARGE_BR:
                    u = u.replace('.gz', '.br')
                p = os.path.join(www, u.lstrip('/'))
                with open(p, 'wb') as fh:
                    fh.write(b)
                os.utime(p, (t, t))
        cls.target = start_server(cls.server_args, tree=cls.tree)
        cls.addClassCleanup(cls._stop_target)

    def fetch(self, url, ae=None, method='GET', extra=()):
        return self.get(url, method=method, headers=ae_headers(ae, extra))

    def assert_sibling(self, resp, url, what=''):
        gz = self.data[url + '.gz']
        self.assertEqual(resp.status, 200, what + resp.describe())
        self.assertEqual(coding_of(resp), 'gzip', what + resp.describe())
        self.assertEqual(resp.header('Content-Length'), str(len(gz)), what)
        if resp.body != gz:
            self.fail('%s%s: not the sibling\'s %d bytes (%d bytes)'
                      % (what, url, len(gz), len(resp.body)))
        self.assertIn('Accept-Encoding', resp.header('Vary') or '', what)
        self.assertRegex(resp.header('ETag') or '', r'-gz"$', what)

    def assert_identity(self, resp, url, what=''):
        self.assertEqual(resp.status, 200, what + resp.describe())
        self.assertIsNone(resp.header('Content-Encoding'), what)
        self.assertEqual(resp.header('Content-Length'),
                         str(len(self.data[url])), what)
        self.assertTrue(resp.body == self.data[url],
                        '%s%s: wrong body' % (what, url))

    def test_sibling_of_any_size(self):
        for url in (self.LARGE, self.MID):
            for ae in ('gzip', '*', 'deflate;q=0.5, gzip'):
                with self.subTest(url=url, accept_encoding=ae):
                    # Twice: a miss, then whatever the cache made of it.
                    for i in range(2):
                        self.assert_sibling(self.fetch(url, ae), url,
                                            'request %d: ' % i)
                    head = self.fetch(url, ae, 'HEAD')
                    self.assertEqual(head.header('Content-Length'),
                                     str(len(self.data[url + '.gz'])))
                    self.assertEqual(head.header('Content-Encoding'), 'gzip')

    def test_preferred_coding_beats_a_sibling(self):
        """A preferred br or zstd is made as the file is sent (sehttpd)
        rather than the gzip sibling; khttpd, which cannot make it for a
        file this large, must still fall to the sibling, not identity."""
        for ae, coding in (('gzip;q=0.5, br', 'br'),
                           ('zstd, gzip;q=0.1', 'zstd')):
            with self.subTest(accept_encoding=ae):
                for i in range(2):
                    resp = self.fetch(self.LARGE, ae)
                    what = 'request %d: ' % i
                    if streamed(coding) == 'identity':
                        self.assert_sibling(resp, self.LARGE, what)
                        continue
                    self.assertEqual(coding_of(resp), coding,
                                     what + resp.describe())
                    self.assertTrue(decode(resp) == self.data[self.LARGE],
                                    what + 'decodes otherwise')

    def test_identity_beside_sibling(self):
        for url in (self.LARGE, self.MID):
            for ae in (None, 'identity', 'gzip;q=0'):
                with self.subTest(url=url, accept_encoding=ae):
                    self.assert_identity(self.fetch(url, ae), url)

    def test_range_beside_sibling_is_of_the_file(self):
        """A range counts the file's own bytes: no sibling for it."""
        for url in (self.LARGE, self.MID):
            data = self.data[url]
            for rng, first, last in (('bytes=0-99', 0, 99),
                                     ('bytes=-70000', len(data) - 70000,
                                      len(data) - 1),
                                     ('bytes=100000-', 100000,
                                      len(data) - 1)):
                with self.subTest(url=url, range=rng):
                    resp = self.fetch(url, 'gzip', extra=[('Range', rng)])
                    self.assertEqual(resp.status, 206, resp.describe())
                    self.assertIsNone(resp.header('Content-Encoding'))
                    self.assertEqual(resp.header('Content-Range'),
                                     'bytes %d-%d/%d'
                                     % (first, last, len(data)))
                    self.assertTrue(resp.body == data[first:last + 1],
                                    'wrong bytes for %s' % rng)

    def test_stale_sibling_ignored(self):
        for ae in ('gzip', '*'):
            with self.subTest(accept_encoding=ae):
                resp = self.fetch(self.STALE, ae)
                self.assertEqual(resp.status, 200, resp.describe())
                self.assertFalse(resp.body == self.data[self.STALE + '.gz'],
                                 'the older sibling was sent')
                if resp.framing != 'chunked':
                    self.assertEqual(resp.header('Content-Length'),
                                     str(len(resp.body)))
                self.assertTrue(decode(resp) == self.data[self.STALE])

    def test_br_sibling_of_any_size(self):
        url = self.LARGE_BR
        br = self.data[url + '.gz']  # stored as large.css.br
        for ae in ('br', 'gzip, br'):
            with self.subTest(accept_encoding=ae):
                for i in range(2):
                    resp = self.fetch(url, ae)
                    self.assertEqual(resp.status, 200, resp.describe())
                    self.assertEqual(coding_of(resp), 'br',
                                     resp.describe())
                    self.assertEqual(resp.header('Content-Length'),
                                     str(len(br)))
                    self.assertTrue(resp.body == br, 'not the .br bytes')
                    self.assertRegex(resp.header('ETag') or '', r'-br"$')
        resp = self.fetch(url, 'gzip')
        self.assertEqual(resp.status, 200, resp.describe())
        self.assertTrue(decode(resp) == self.data[url])

    def test_deflate_not_from_gz_sibling(self):
        resp = self.fetch(self.MID, 'deflate')
        self.assertEqual(resp.status, 200, resp.describe())
        self.assertIn(coding_of(resp), (DEFLATE, 'identity'))
        self.assertTrue(decode(resp) == self.data[self.MID])


class SiblingTest(SiblingTreeTest, ServerTestCase):
    pass


class SiblingNoCacheTest(SiblingTreeTest, ServerTestCase):
    server_args = ('--cache-size', '0')


@needs_process('changes files under a running sehttpd')
class ChangedWhileSentTest(ServerTestCase):
    """A file truncated or replaced while its body goes out by sendfile:
    the client gets the bytes announced or the connection closes short of
    them, never other bytes or a longer body, and the server serves on."""

    SIZE = 8 * MIB
    RCVBUF = 32 * 1024

    @classmethod
    def setUpClass(cls):
        cls.tree = treemod.make_tree(temp_dir())
        os.makedirs(os.path.join(cls.tree.www, 'chg'), exist_ok=True)
        cls.target = start_server(('-t', '1'), tree=cls.tree)
        cls.addClassCleanup(cls._stop_target)

    def path(self, url):
        return os.path.join(self.tree.www, url.lstrip('/'))

    def write(self, url, data):
        with open(self.path(url), 'wb') as fh:
            fh.write(data)

    def start_slow_get(self, url, ae=None):
        """A GET whose head has arrived while most of the body has not."""
        c = self.conn(rcvbuf=self.RCVBUF, timeout=20)
        c.send(build_request('GET', url, headers=ae_headers(ae)))
        resp = c.read_response(body=False)
        self.assertEqual(resp.status, 200, resp.describe())
        return c, resp

    def read_rest(self, c, limit):
        body = bytearray(c.buf)
        c.buf.clear()
        try:
            while len(body) < limit:
                chunk = c.sock.recv(1 << 16)
                if not chunk:
                    break
                body += chunk
        except (ConnectionResetError, ConnectionClosed):
            pass
        return bytes(body)

    def assert_serving(self, url, data, within=0.0):
        """url answers with data, at the latest after within seconds (the
        cache may serve the file it has open until it checks again); every
        answer meanwhile is whole."""
        deadline = time.monotonic() + within
        while True:
            resp = self.get(url)
            self.assertEqual(resp.status, 200, resp.describe())
            self.assertEqual(resp.header('Content-Length'),
                             str(len(resp.body)))
            if resp.body == data or time.monotonic() > deadline:
                break
            time.sleep(0.1)
        self.assertEqual(resp.header('Content-Length'), str(len(data)))
        self.assertTrue(resp.body == data, 'wrong body after the change')

    def truncate_while_sent(self, url, data, ae=None):
        self.write(url, data)
        self.assert_serving(url, data)  # and cached, where it may be
        c, resp = self.start_slow_get(url, ae)
        with c:
            self.assertEqual(resp.header('Content-Length'), str(len(data)))
            cut = len(data) // 4
            os.truncate(self.path(url), cut)
            body = self.read_rest(c, len(data))
            self.assertLessEqual(len(body), len(data))
            if len(body) < len(data):
                self.assert_closed(c, what=' after a short body')
            # Bytes already queued may come from the file as it was (a
            # page cut in two reads as zeros past the cut): the rest not.
            self.assertTrue(body[:cut] == data[:cut], 'wrong bytes')
        self.assert_serving(url, data[:cut], FRESH_WITHIN_S)

    def test_truncated_while_sent(self):
        self.truncate_while_sent('/chg/trunc.bin', noise(self.SIZE, 90))

    def test_cached_text_truncated_while_sent(self):
        """A text file the cache keeps for its compressed variants; its
        identity body comes from the file."""
        self.truncate_while_sent('/chg/trunc.txt', text(MIB, 91))

    def test_replaced_while_sent(self):
        """Renamed over: the open file is still the old one, sent whole."""
        url = '/chg/repl.bin'
        old, new = noise(self.SIZE, 92), noise(self.SIZE // 2, 93)
        self.write(url, old)
        c, resp = self.start_slow_get(url)
        with c:
            tmp = self.path(url) + '.new'
            with open(tmp, 'wb') as fh:
                fh.write(new)
            os.rename(tmp, self.path(url))
            body = self.read_rest(c, len(old))
            self.assertEqual(len(body), len(old))
            self.assertTrue(body == old, 'not the file that was opened')
        self.assert_serving(url, new, FRESH_WITHIN_S)


@needs_process('looks at the descriptors of its own sehttpd')
class DeletedFileReleasedTest(ServerTestCase):
    """The descriptor the cache keeps for a large file does not keep a
    deleted file's space from the file system for long, even when no
    request comes to notice the deletion."""

    URL = '/del/gone.bin'

    @classmethod
    def setUpClass(cls):
        cls.tree = treemod.make_tree(temp_dir())
        os.makedirs(os.path.join(cls.tree.www, 'del'), exist_ok=True)
        cls.target = start_server(('-t', '1'), tree=cls.tree)
        cls.addClassCleanup(cls._stop_target)

    def open_paths(self):
        pid = self.target.server.proc.pid
        out = []
        for fd in os.listdir('/proc/%d/fd' % pid):
            try:
                out.append(os.readlink('/proc/%d/fd/%s' % (pid, fd)))
            except OSError:
                pass  # closed meanwhile
        return out

    def test_deleted_file_released_when_idle(self):
        path = os.path.join(self.tree.www, self.URL.lstrip('/'))
        data = noise(MIB, 95)
        with open(path, 'wb') as fh:
            fh.write(data)
        resp = self.get(self.URL)
        self.assertTrue(resp.body == data)
        os.unlink(path)
        held = [p for p in self.open_paths() if p.startswith(path)]
        self.assertTrue(held, 'the cache holds no descriptor for %s: '
                        'nothing to test' % path)
        deadline = time.monotonic() + FD_IDLE_S + 3
        while time.monotonic() < deadline:
            if not any(p.startswith(path) for p in self.open_paths()):
                return
            time.sleep(0.25)
        self.fail('%s, deleted, still open after %d s: %r'
                  % (path, FD_IDLE_S + 3, self.open_paths()))

