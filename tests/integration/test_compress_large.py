"""Files above the cache's per-file limit compressed as they are sent
(sehttpd): chunked (HTTP/1.0: ended by the close), each coding decoding to
the file, a weak ETag of their own, conditionals, ranges from the identity
bytes, the compressed form kept when it fits, a size beyond which files go
as they are, bounded memory, a file cut short while it is sent, and a
request made just before its keep-alive connection's timeout."""

import os
import random
import subprocess
import time
import unittest

from codings import DECODERS, HAVE_DECODERS, coding_of, decode
from httpraw import build_request, Conn, ConnectionClosed, ProtocolError
from target import needs_process, start_server, temp_dir

LARGE = 3 << 20  # over the cache's 1 MiB per file
CODED_MAX = 64 << 20  # RESPOND_CODED_MAX, src/sehttpd/respond_coded.h
KEEP_MAX = 1 << 20  # RESPOND_CODED_KEEP_MAX
STREAMS_MAX = 32  # RESPOND_CODED_STREAMS_MAX
CACHE_ONE = 1 << 20  # CACHE_FILE_MAX: the largest file cached
WORDS = ('alpha beta gamma delta epsilon zeta eta theta iota kappa lambda '
         'mu nu xi omicron pi rho sigma tau upsilon phi chi psi omega').split()


def text(size, seed):
    """size bytes of lines of words: compresses about 4:1."""
    rng = random.Random(seed)
    out, n = [], 0
    while n < size:
        line = ' '.join(rng.choice(WORDS) for _ in range(12)) + ' %d\n' % n
        out.append(line)
        n += len(line)
    return ''.join(out).encode()[:size]


def hex_text(size, seed):
    """size bytes of random hex: compresses to about half, so a large
    one's compressed form is beyond what is kept."""
    return random.Random(seed).randbytes(size // 2).hex().encode()[:size]


def rss_kib(pid):
    with open('/proc/%d/status' % pid) as f:
        for line in f:
            if line.startswith('VmRSS:'):
                return int(line.split()[1])
    return 0


@needs_process('serves a tree of its own with large files')
class CompressLargeTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.root = temp_dir()
        cls.files = {
            '/big.txt': text(LARGE, 1),
            '/data.json': b'[' + b','.join(
                b'{"n": %d, "s": "%s"}' % (i, WORDS[i % len(WORDS)].encode())
                for i in range(120000)) + b']',
            '/hex.txt': hex_text(6 << 20, 2),
            '/small.txt': text(600, 3),
            '/cond.txt': text(LARGE, 4),
        }
        for url, data in cls.files.items():
            with open(os.path.join(cls.root, url[1:]), 'wb') as f:
                f.write(data)
        # Beyond the bound, sparse: never read whole.
        with open(os.path.join(cls.root, 'huge.txt'), 'wb') as f:
            f.truncate(CODED_MAX + 1)
        cls.target = start_server(['-t', '1'], root=cls.root, tree=None)
        cls.addClassCleanup(cls.target.stop)

    def get(self, url, headers=(), method='GET', version='HTTP/1.1'):
        return self.target.get(url, method=method, version=version,
                               headers=list(headers))

    def assert_streamed(self, resp, url, coding):
        self.assertEqual(resp.status, 200, resp.describe())
        self.assertEqual(coding_of(resp), coding, resp.describe())
        self.assertEqual(resp.framing, 'chunked', resp.describe())
        self.assertIsNone(resp.header('Content-Length'))
        self.assertIn('accept-encoding',
                      (resp.header('Vary') or '').lower())
        self.assertRegex(resp.header('ETag') or '',
                         r'^W/"[^"]+-%s"$' % {'gzip': 'gz', 'deflate': 'df',
                                              'br': 'br',
                                              'zstd': 'zst'}[coding])
        self.assertEqual(decode(resp), self.files[url])
        self.assertLess(len(resp.body), len(self.files[url]) * 3 // 4)

    def test_each_coding_then_kept(self):
        """The first answer is made as it is sent; the next comes from the
        copy kept, the same bytes under the same tag, with a length."""
        codings = ['gzip', 'deflate'] + (['br', 'zstd'] if HAVE_DECODERS
                                         else [])
        for url in ('/big.txt', '/data.json'):
            for coding in codings:
                with self.subTest(url=url, coding=coding):
                    first = self.get(url, [('Accept-Encoding', coding)])
                    self.assert_streamed(first, url, coding)
                    again = self.get(url, [('Accept-Encoding', coding)])
                    self.assertEqual(again.status, 200)
                    self.assertEqual(again.framing, 'length')
                    self.assertEqual(again.body, first.body)
                    self.assertEqual(again.header('ETag'),
                                     first.header('ETag'))

    def test_identity_when_not_asked(self):
        resp = self.get('/big.txt')
        self.assertEqual(coding_of(resp), 'identity')
        self.assertEqual(resp.header('Content-Length'), str(LARGE))
        self.assertTrue(resp.body == self.files['/big.txt'])

    def test_preference_among_codings(self):
        resp = self.get('/hex.txt', [('Accept-Encoding', 'br;q=0.5, gzip')])
        self.assertEqual(coding_of(resp), 'gzip')
        resp = self.get('/hex.txt', [('Accept-Encoding',
                                      'gzip;q=0.5, deflate')])
        self.assertEqual(coding_of(resp), 'deflate')

    def test_conditionals(self):
        ae = ('Accept-Encoding', 'gzip')
        tag = self.get('/cond.txt', [ae], method='HEAD').header('ETag')
        self.assertTrue(tag.startswith('W/'), tag)
        for inm in (tag, tag[2:], '"x", ' + tag):
            with self.subTest(if_none_match=inm):
                resp = self.get('/cond.txt', [ae, ('If-None-Match', inm)])
                self.assertEqual(resp.status, 304, resp.describe())
                self.assertEqual(resp.header('ETag'), tag)
        # If-Match compares strongly: a weak tag never holds.
        resp = self.get('/cond.txt', [ae, ('If-Match', tag)])
        self.assertEqual(resp.status, 412, resp.describe())
        resp = self.get('/cond.txt', [ae, ('If-None-Match', '"other"')])
        self.assertEqual(resp.status, 200)
        self.assertEqual(decode(resp), self.files['/cond.txt'])

    def test_range_from_identity(self):
        data = self.files['/hex.txt']
        for rng, first, last in (('bytes=100-199', 100, 199),
                                 ('bytes=-50', len(data) - 50,
                                  len(data) - 1)):
            with self.subTest(range=rng):
                resp = self.get('/hex.txt', [('Accept-Encoding', 'gzip'),
                                             ('Range', rng)])
                self.assertEqual(resp.status, 206, resp.describe())
                self.assertEqual(coding_of(resp), 'identity')
                self.assertTrue(resp.body == data[first:last + 1])

    def test_http10_ends_with_close(self):
        resp = self.get('/hex.txt', [('Accept-Encoding', 'gzip')],
                        version='HTTP/1.0')
        self.assertEqual(resp.status, 200)
        self.assertEqual(coding_of(resp), 'gzip')
        self.assertEqual(resp.framing, 'close')
        self.assertEqual(decode(resp), self.files['/hex.txt'])

    def test_head(self):
        resp = self.get('/hex.txt', [('Accept-Encoding', 'zstd')],
                        method='HEAD')
        self.assertEqual(resp.status, 200)
        self.assertEqual(coding_of(resp), 'zstd')
        self.assertEqual(resp.header('Transfer-Encoding'), 'chunked')
        self.assertEqual(resp.body, b'')

    def test_too_large_to_keep(self):
        """Compressed beyond 1 MiB: made again for every request."""
        for i in range(2):
            resp = self.get('/hex.txt', [('Accept-Encoding', 'gzip')])
            self.assertGreater(len(resp.body), KEEP_MAX)
            self.assert_streamed(resp, '/hex.txt', 'gzip')

    def test_beyond_the_bound_as_it_is(self):
        resp = self.get('/huge.txt', [('Accept-Encoding', 'gzip')],
                        method='HEAD')
        self.assertEqual(resp.status, 200)
        self.assertEqual(coding_of(resp), 'identity')
        self.assertEqual(resp.header('Content-Length'), str(CODED_MAX + 1))

    def test_small_file_from_the_cache(self):
        resp = self.get('/small.txt', [('Accept-Encoding', 'gzip')])
        self.assertEqual(coding_of(resp), 'gzip')
        self.assertEqual(resp.framing, 'length')

    def test_pipelined_after_a_streamed_body(self):
        with Conn(self.target.host, self.target.port) as c:
            c.send(build_request('GET', '/hex.txt',
                                 headers=[('Accept-Encoding', 'br')]) +
                   build_request('GET', '/small.txt'))
            first = c.read_response()
            self.assertEqual(coding_of(first), 'br')
            if HAVE_DECODERS:
                self.assertEqual(decode(first), self.files['/hex.txt'])
            second = c.read_response()
            self.assertTrue(second.body == self.files['/small.txt'])

    def test_memory_stays_bounded(self):
        """A 24 MiB text compressed for two clients at once: the server
        grows by far less than one copy of it."""
        path = os.path.join(self.root, 'many.txt')
        with open(path, 'wb') as f:
            chunk = text(1 << 20, 9)
            for _ in range(24):
                f.write(chunk)
        self.addCleanup(os.unlink, path)
        pid = self.target.server.proc.pid
        before = rss_kib(pid)
        conns = [Conn(self.target.host, self.target.port, timeout=60)
                 for _ in range(2)]
        peak = before
        try:
            for c in conns:
                c.send(build_request('GET', '/many.txt',
                                     headers=[('Accept-Encoding', 'gzip')]))
            for c in conns:
                resp = c.read_response(body=False)
                self.assertEqual(resp.header('Transfer-Encoding'),
                                 'chunked')
            done = [False] * len(conns)
            while not all(done):
                for i, c in enumerate(conns):
                    if not done[i]:
                        line = c.read_until(b'\r\n', 64)
                        size = int(line, 16)
                        c.read_exact(size + 2)
                        done[i] = size == 0
                peak = max(peak, rss_kib(pid))
        finally:
            for c in conns:
                c.close()
        self.assertLess(peak - before, 16 * 1024,
                        'RSS grew from %d to %d KiB' % (before, peak))

    def test_coder_memory_given_back(self):
        """Each response codes /hex.txt afresh (its coded form is too large
        to keep), with zstd's and brotli's large tables: a thread that has
        coded keeps none of them afterwards.  Before, glibc kept them in
        the heap from the second response on, 13 MiB for zstd alone."""
        target = start_server(['-t', '1'], root=self.root, tree=None)
        self.addCleanup(target.stop)
        pid = target.server.proc.pid
        with open('/proc/%d/maps' % pid) as f:
            if 'libasan' in f.read():
                self.skipTest('ASan keeps freed memory in its quarantine')

        def fetch(coding):
            resp = target.get('/hex.txt', headers=[('Accept-Encoding',
                                                    coding)])
            self.assertEqual(resp.status, 200, resp.describe())
            self.assertEqual(coding_of(resp), coding, resp.describe())

        fetch('zstd')
        before = rss_kib(pid)
        for coding in ('zstd', 'br', 'zstd', 'br'):
            fetch(coding)
        after = rss_kib(pid)
        self.assertLess(after - before, 4 * 1024,
                        'RSS grew from %d to %d KiB' % (before, after))

    def test_many_slow_readers_bounded(self):
        """Clients that ask for zstd and read nothing each hold a stream:
        its state stays near 2 MiB, and beyond STREAMS_MAX at once on a
        thread the file goes as it is.  Before, each held 13 MiB of
        zstd's tables, without a limit: 40 of them took over 500 MiB."""
        if not HAVE_DECODERS:
            self.skipTest('no zstd decoder')
        target = start_server(['-t', '1'], root=self.root, tree=None)
        self.addCleanup(target.stop)
        pid = target.server.proc.pid
        asan = 'libasan' in open('/proc/%d/maps' % pid).read()
        extra = 8
        before = rss_kib(pid)
        conns = []
        try:
            for _ in range(STREAMS_MAX + extra):
                c = Conn(target.host, target.port, rcvbuf=4096)
                conns.append(c)
                c.send(build_request('GET', '/hex.txt',
                                     headers=[('Accept-Encoding', 'zstd')]))
                # In order: the server takes them one at a time.
                resp = c.read_response(body=False)
                self.assertEqual(resp.status, 200, resp.describe())
                c.coding = coding_of(resp)
            time.sleep(0.5)  # each stalled on its window
            grown = rss_kib(pid) - before
            codings = [c.coding for c in conns]
        finally:
            for c in conns:
                c.close()
        self.assertEqual(codings, ['zstd'] * STREAMS_MAX +
                         ['identity'] * extra)
        # 2 MiB of state, a 64 KiB input buffer, ASan's shadow and
        # redzones beside.
        bound = STREAMS_MAX * (4 if asan else 3) << 10
        self.assertLess(grown, bound, 'RSS grew by %d KiB for %d streams'
                        % (grown, STREAMS_MAX))
        # Their ends gave the places back.
        deadline = time.monotonic() + 5
        while True:
            resp = target.get('/hex.txt',
                              headers=[('Accept-Encoding', 'zstd')])
            if coding_of(resp) == 'zstd' or time.monotonic() > deadline:
                break
            time.sleep(0.1)
        self.assertEqual(coding_of(resp), 'zstd', resp.describe())
        self.assertEqual(decode(resp), self.files['/hex.txt'])

    def test_file_cut_short_while_sent(self):
        """A file truncated under the compression ends the response
        without its last chunk, and the connection closes: never a whole
        body of the wrong content."""
        path = os.path.join(self.root, 'shrinks.txt')
        data = hex_text(24 << 20, 5)
        with open(path, 'wb') as f:
            f.write(data)
        self.addCleanup(os.unlink, path)
        with Conn(self.target.host, self.target.port, timeout=20,
                  rcvbuf=16384) as c:
            c.send(build_request('GET', '/shrinks.txt',
                                 headers=[('Accept-Encoding', 'gzip')]))
            resp = c.read_response(body=False)
            self.assertEqual(resp.header('Transfer-Encoding'), 'chunked')
            time.sleep(0.3)  # the server is blocked on our window
            os.truncate(path, 1 << 20)
            with self.assertRaises((ConnectionClosed, ProtocolError,
                                    ConnectionError)):
                c.read_chunked(resp, 64 << 20)


if __name__ == '__main__':
    unittest.main()


LATE_TIMEOUT = 2  # the late requests' server's --timeout


def start_late_request_server(cls):
    """A server with --timeout LATE_TIMEOUT over cls.files, for the late
    requests over HTTP/1.1 and HTTP/2 (test_http2.py)."""
    cls.root = temp_dir()
    block = text(1 << 20, 5)
    cls.files = {
        '/warm.txt': b'warm\n',
        # Cached, and compressed in steps with turns between them.
        '/one.txt': block[:CACHE_ONE],
        # Compressed as it is sent, for longer than the margin.
        '/big.txt': block * 24,
    }
    for url, data in cls.files.items():
        with open(os.path.join(cls.root, url[1:]), 'wb') as f:
            f.write(data)
    cls.target = start_server(['--timeout', str(LATE_TIMEOUT)],
                              root=cls.root, tree=None)
    cls.addClassCleanup(cls.target.stop)


@needs_process('times its requests against its own --timeout')
class LateRequestTest(unittest.TestCase):
    """A request that comes just before a keep-alive connection's idle
    timeout is answered whole: the timer set for the wait is not the
    response's deadline, though it fires while the server compresses."""

    TIMEOUT = LATE_TIMEOUT

    @classmethod
    def setUpClass(cls):
        start_late_request_server(cls)

    def late_request(self, url, coding, margin):
        """Asks for url on a connection idle until margin seconds before
        its timeout, and reads the answer as fast as it comes.  Where the
        timeout came first after all (no answer at all: a busy machine
        woke the client late), that is not the case under test: again."""
        for _ in range(3):
            with self.target.conn() as c:
                c.send(build_request('GET', '/warm.txt'))
                self.assertEqual(c.read_response().status, 200)
                time.sleep(self.TIMEOUT - margin)
                start = time.monotonic()
                try:
                    c.send(build_request(
                        'GET', url, headers=[('Accept-Encoding', coding)]))
                    resp = c.read_response()
                except (BrokenPipeError, ConnectionResetError):
                    continue
                except ConnectionClosed as e:
                    if 'with no response' in str(e):
                        continue
                    raise
                took = time.monotonic() - start
                break
        else:
            self.fail('the idle timeout came first 3 times')
        self.assertEqual(resp.status, 200, resp.describe())
        self.assertEqual(coding_of(resp), coding, resp.describe())
        self.assertEqual(decode(resp), self.files[url])
        return took

    def test_body_compressed_as_sent_outlasts_the_idle_timer(self):
        took = self.late_request('/big.txt', 'gzip', 0.15)
        print('\n24 MiB gzip on the fly after a late request: %.2f s' % took)

    @unittest.skipUnless(HAVE_DECODERS, 'needs brotli to decode')
    def test_cached_coding_made_after_a_late_request(self):
        """The coding made in steps for the cache is made whole, and the
        next clients get it too (it was given up and never tried again)."""
        self.late_request('/one.txt', 'br', 0.03)
        for _ in range(2):
            resp = self.target.get('/one.txt',
                                   headers=[('Accept-Encoding', 'br')])
            self.assertEqual(coding_of(resp), 'br', resp.describe())
            self.assertEqual(resp.framing, 'length')
            self.assertEqual(decode(resp), self.files['/one.txt'])
