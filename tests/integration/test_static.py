"""Static files: MIME types, headers, HEAD, byte-exact bodies, large
files (a sparse one over 4 GiB on its own server)."""

import email.utils
import os
import re
import time

from httpraw import build_request
from target import ServerTestCase, needs_process, start_server, temp_dir
import tree as treemod

IMF_FIXDATE = re.compile(r'^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d\d '
                         r'(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) '
                         r'\d{4} \d\d:\d\d:\d\d GMT$')
DATE_SLACK_S = 10


def imf_fixdate(epoch):
    return email.utils.formatdate(epoch, usegmt=True)


class StaticTest(ServerTestCase):

    def test_mime_types(self):
        for url, types in sorted(self.tree.mime.items()):
            with self.subTest(url=url):
                resp = self.get(url)
                self.assert_file(resp, url)
                self.assertIn(resp.header('Content-Type'), types,
                              'Content-Type of ' + url)

    def test_txt_and_html_types(self):
        resp = self.get('/a.txt')
        self.assertEqual(resp.header('Content-Type'),
                         'text/plain; charset=utf-8')
        resp = self.get('/index.html')
        self.assertEqual(resp.header('Content-Type'),
                         'text/html; charset=utf-8')
        self.assertEqual(self.get('/big/1m.bin').header('Content-Type'),
                         'application/octet-stream')

    def test_headers(self):
        for url in ('/a.txt', '/mime/image.png', '/empty.txt',
                    '/dir_noindex/size777.txt'):
            with self.subTest(url=url):
                resp = self.get(url)
                self.assert_file(resp, url)
                self.assert_server_header(resp)
                lm = resp.header('Last-Modified')
                self.assertIsNotNone(lm, 'no Last-Modified')
                self.assertRegex(lm, IMF_FIXDATE)
                self.assertEqual(lm, imf_fixdate(self.tree.mtimes[url]),
                                 'Last-Modified is not the file mtime')
                date = resp.header('Date')
                self.assertIsNotNone(date, 'no Date')
                self.assertRegex(date, IMF_FIXDATE)
                when = email.utils.parsedate_to_datetime(date).timestamp()
                self.assertLess(abs(when - time.time()), DATE_SLACK_S,
                                'Date %s is not now' % date)

    def test_empty_file(self):
        resp = self.get('/empty.txt')
        self.assertEqual(resp.status, 200)
        self.assertEqual(resp.header('Content-Length'), '0')
        self.assertEqual(resp.body, b'')

    def test_head_matches_get(self):
        compared = ('Content-Type', 'Content-Length', 'Last-Modified',
                    'Server')
        urls = ['/a.txt', '/empty.txt', '/big/1m.bin', '/index.html'] + \
            sorted(self.tree.mime)
        with self.conn() as c:
            for url in urls:
                with self.subTest(url=url):
                    c.send(build_request('GET', url))
                    get = c.read_response()
                    c.send(build_request('HEAD', url))
                    head = c.read_response('HEAD')
                    self.assertEqual(head.status, 200)
                    for name in compared:
                        self.assertEqual(head.header(name), get.header(name),
                                         '%s differs between GET and HEAD'
                                         % name)
            # Any body sent after a HEAD would be taken as this response.
            c.send(build_request('GET', '/b.txt'))
            self.assert_file(c.read_response(), '/b.txt',
                             ' after HEAD requests')
            self.assert_open(c)

    def test_head_then_close(self):
        with self.conn() as c:
            c.send(build_request('HEAD', '/big/10m.bin',
                                 headers=[('Connection', 'close')]))
            resp = c.read_response('HEAD')
            self.assertEqual(resp.header('Content-Length'), str(10 << 20))
            self.assert_closed(c, what=' (HEAD sent a body?)')

    def test_large_files_exact(self):
        for url in ('/big/1m.bin', '/big/10m.bin'):
            for version in ('HTTP/1.1', 'HTTP/1.0'):
                with self.subTest(url=url, version=version):
                    resp = self.get(url, version=version)
                    self.assert_file(resp, url)

    def test_large_files_keep_alive_sequence(self):
        with self.conn() as c:
            for url in ('/big/10m.bin', '/a.txt', '/big/1m.bin',
                        '/big/10m.bin', '/mime/image.png'):
                c.send(build_request('GET', url))
                self.assert_file(c.read_response(), url)

    def test_partial_reads_of_large_file(self):
        """A slow reader with a small receive buffer still gets every
        byte in order."""
        with self.conn(rcvbuf=16384) as c:
            c.send(build_request('GET', '/big/1m.bin'))
            resp = c.read_response(body=False)
            self.assertEqual(resp.status, 200)
            body = bytearray(c.buf)
            c.buf.clear()
            while len(body) < (1 << 20):
                time.sleep(0.002)
                chunk = c.sock.recv(4096)
                if not chunk:
                    break
                body += chunk
            self.assertEqual(bytes(body), self.tree.files['/big/1m.bin'])


@needs_process('serves a 4 GiB sparse file from its own tree')
class HugeFileTest(ServerTestCase):
    SIZE = (4 << 30) + (1 << 20)
    # Markers straddling the 4 GiB boundary and at the very end.
    MARKS = {(4 << 30) - 16: b'<<marker across the 4 GiB line>>',
             SIZE - 32: b'<<marker at the very end, 32 B>>'}

    @classmethod
    def setUpClass(cls):
        base = temp_dir()
        cls.tree = treemod.make_tree(base)
        cls.huge = os.path.join(cls.tree.www, 'huge.bin')
        with open(cls.huge, 'wb') as fh:
            fh.truncate(cls.SIZE)
            for off, mark in cls.MARKS.items():
                fh.seek(off)
                fh.write(mark)
        cls.target = start_server(tree=cls.tree)
        cls.addClassCleanup(cls._stop_target)
        cls.addClassCleanup(os.unlink, cls.huge)

    def expected(self, start, n):
        out = bytearray(n)
        for off, mark in self.MARKS.items():
            lo, hi = max(off, start), min(off + len(mark), start + n)
            if lo < hi:
                out[lo - start:hi - start] = mark[lo - off:hi - off]
        return out

    def test_head_huge(self):
        resp = self.get('/huge.bin', method='HEAD')
        self.assertEqual(resp.status, 200)
        self.assertEqual(resp.header('Content-Length'), str(self.SIZE))

    def test_get_huge(self):
        with self.conn(timeout=30) as c:
            c.send(build_request('GET', '/huge.bin'))
            resp = c.read_response(body=False)
            self.assertEqual(resp.status, 200, resp.describe())
            self.assertEqual(resp.header('Content-Length'), str(self.SIZE))
            # Fill whole 8 MiB blocks before comparing: comparing a full
            # bytearray with bytes is one memcmp, slices would copy.
            block = 8 << 20
            buf = bytearray(block)
            view = memoryview(buf)
            zeros = bytes(block)
            got = len(c.buf)
            self.assertEqual(bytes(c.buf), bytes(self.expected(0, got)))
            c.buf.clear()
            marks = [(o, o + len(m)) for o, m in self.MARKS.items()]
            while got < self.SIZE:
                want = min(block, self.SIZE - got)
                filled = 0
                while filled < want:
                    n = c.sock.recv_into(view[filled:want])
                    if n == 0:
                        self.fail('connection closed after %d of %d bytes'
                                  % (got + filled, self.SIZE))
                    filled += n
                if want == block and not any(lo < got + want and got < hi
                                             for lo, hi in marks):
                    ok = buf == zeros
                else:
                    ok = buf[:want] == self.expected(got, want)
                if not ok:
                    self.fail('wrong bytes in [%d, %d)' % (got, got + want))
                got += want
            c.send(build_request('GET', '/a.txt'))
            self.assert_file(c.read_response(), '/a.txt',
                             ' after the huge file')
