"""Byte ranges: single ranges (206), unsatisfiable ones (416), ranges
ignored (several, malformed, on listings), If-Range, ranges of large
files sent with sendfile and of a sparse file over 4 GiB."""

import email.utils
import os

from httpraw import build_request
from target import ServerTestCase, needs_process, start_server, temp_dir
import tree as treemod
from codings import (BIG, LARGE, PNG, SMALL, TEN_MIB, ae_headers, coding_of,
                     fetch_prefix, varies_on_ae)

# Header fields that HEAD and GET must agree on for a 206.
HEAD_FIELDS = ('Content-Type', 'Content-Length', 'Content-Range', 'ETag',
               'Last-Modified', 'Vary', 'Accept-Ranges')


def imf_fixdate(t):
    return email.utils.formatdate(t, usegmt=True)


class RangeTest(ServerTestCase):

    def fetch(self, url, rng=None, headers=(), method='GET', ae=None):
        h = list(headers)
        if rng is not None:
            h.append(('Range', rng))
        if url in (TEN_MIB, LARGE):
            return fetch_prefix(self.target, url, method, ae_headers(ae, h))
        return self.get(url, method=method, headers=ae_headers(ae, h))

    def assert_whole(self, resp, url, what=''):
        """A 200 with all of url (a prefix checked for big files)."""
        if getattr(resp, 'partial', False):
            data = self.tree.files[url]
            self.assertEqual(resp.status, 200, resp.describe())
            self.assertEqual(resp.header('Content-Length'), str(len(data)))
            self.assertEqual(resp.body, data[:len(resp.body)], what)
        else:
            self.assert_file(resp, url, what)

    def assert_206(self, resp, url, first, last, what=''):
        """A 206 carrying bytes first..last (inclusive) of url."""
        data = self.tree.files[url]
        what = '%s %s' % (url, what)
        self.assertEqual(resp.status, 206, '%s\n%s' % (what, resp.describe()))
        self.assertEqual(resp.header('Content-Range'),
                         'bytes %d-%d/%d' % (first, last, len(data)), what)
        self.assertEqual(resp.header('Content-Length'),
                         str(last - first + 1), what)
        self.assertIsNone(resp.header('Content-Encoding'), what)
        self.assertIsNone(resp.header('Transfer-Encoding'), what)
        if resp.body != data[first:last + 1]:
            self.fail('%s: wrong bytes (%d, starting %r)'
                      % (what, len(resp.body), resp.body[:32]))

    def assert_416(self, resp, url, method='GET'):
        what = '%s %s' % (method, url)
        self.assertEqual(resp.status, 416, '%s\n%s' % (what, resp.describe()))
        self.assertEqual(resp.header('Content-Range'),
                         'bytes */%d' % len(self.tree.files[url]), what)
        if method == 'GET':
            self.assertEqual(resp.header('Content-Length'),
                             str(len(resp.body)))

    def test_accept_ranges(self):
        for url in (BIG, SMALL, PNG, LARGE, TEN_MIB, '/a.txt',
                    '/content/pre.txt'):
            for method in ('GET', 'HEAD'):
                with self.subTest(url=url, method=method):
                    resp = self.fetch(url, method=method)
                    self.assertEqual(resp.status, 200)
                    self.assertEqual(resp.header('Accept-Ranges'), 'bytes')

    def test_single_ranges(self):
        for url in (BIG, SMALL, PNG, LARGE):
            size = len(self.tree.files[url])
            cases = [('bytes=0-9', 0, 9), ('bytes=5-', 5, size - 1),
                     ('bytes=-5', size - 5, size - 1),
                     ('bytes=0-999999999', 0, size - 1),
                     ('bytes=0-0', 0, 0),
                     ('bytes=%d-%d' % (size - 1, size - 1), size - 1,
                      size - 1),
                     ('bytes=%d-' % (size - 1), size - 1, size - 1),
                     ('bytes=-%d' % size, 0, size - 1),
                     ('bytes=-%d' % (size + 1000), 0, size - 1),
                     ('bytes=0-%d' % (size - 1), 0, size - 1),
                     ('bytes=%d-%d' % (size // 3, size // 2), size // 3,
                      size // 2),
                     ('bytes=17-%d' % (size + 5), 17, size - 1)]
            for rng, first, last in cases:
                with self.subTest(url=url, range=rng):
                    self.assert_206(self.fetch(url, rng), url, first, last)

    def test_unsatisfiable(self):
        for url in (BIG, SMALL, TEN_MIB):
            size = len(self.tree.files[url])
            for rng in ('bytes=%d-' % size, 'bytes=%d-%d' % (size, size + 5),
                        'bytes=%d-' % (size + 1000), 'bytes=-0'):
                for method in ('GET', 'HEAD'):
                    with self.subTest(url=url, range=rng, method=method):
                        self.assert_416(self.fetch(url, rng, method=method),
                                        url, method)

    def test_ignored_ranges(self):
        """Several ranges, malformed ranges and other units: the whole
        file with 200."""
        for url in (BIG, SMALL):
            for rng in ('bytes=0-1,5-6', 'bytes=0-1, 5-6', 'bytes=-5,0-1',
                        'bytes=abc', 'bytes=5-1', 'items=0-1', 'bytes=',
                        'bytes=-', 'bytes=1-2-3', 'bytes=0x1-5',
                        'bytes 0-5'):
                with self.subTest(url=url, range=rng):
                    resp = self.fetch(url, rng)
                    self.assert_file(resp, url, ' (Range: %s)' % rng)
                    self.assertIsNone(resp.header('Content-Range'))

    def test_numbers_past_64_bits(self):
        # RFC 9110 14.1.2: a last position past the end is clamped however
        # large; a first position past it is unsatisfiable.
        for url in (BIG, SMALL):
            size = len(self.tree.files[url])
            with self.subTest(url=url):
                self.assert_206(self.fetch(url, 'bytes=0-18446744073709551616'),
                                url, 0, size - 1)
                self.assert_206(self.fetch(url, 'bytes=7-%s' % ('9' * 40)),
                                url, 7, size - 1)
                self.assert_206(self.fetch(url, 'bytes=-99999999999999999999'),
                                url, 0, size - 1)
                self.assert_416(self.fetch(url, 'bytes=99999999999999999999-'),
                                url)

    def test_two_range_fields_ignored(self):
        # Range is not a list field: two lines are not last-wins.
        for url in (BIG, SMALL):
            with self.subTest(url=url):
                resp = self.get(url, headers=[('Range', 'bytes=0-9'),
                                              ('Range', 'bytes=5-')])
                self.assert_file(resp, url, ' (two Range fields)')
                self.assertIsNone(resp.header('Content-Range'))

    def test_two_if_range_fields_send_all(self):
        # If-Range is not a list: two lines cannot be judged, so the
        # condition fails and the whole file is sent (RFC 9110 13.1.5).
        for url in (BIG, SMALL):
            tag = self.fetch(url, method='HEAD').header('ETag')
            with self.subTest(url=url):
                resp = self.get(url, headers=[('Range', 'bytes=0-9'),
                                              ('If-Range', '"other"'),
                                              ('If-Range', tag)])
                self.assert_file(resp, url, ' (two If-Range fields)')

    def test_range_with_gzip_accepted(self):
        """The range is of the identity bytes."""
        for ae in ('gzip', 'deflate', 'gzip, deflate'):
            with self.subTest(accept_encoding=ae):
                resp = self.fetch(BIG, 'bytes=100-1099', ae=ae)
                self.assert_206(resp, BIG, 100, 1099)
                self.assertEqual(coding_of(resp), 'identity')
                self.assertTrue(varies_on_ae(resp), 'no Vary on a 206\n'
                                + resp.describe())
                resp = self.fetch(BIG, 'bytes=-20', ae=ae)
                size = len(self.tree.files[BIG])
                self.assert_206(resp, BIG, size - 20, size - 1)

    def test_range_of_precompressed_file(self):
        """A range of pre.txt is of pre.txt, not of pre.txt.gz, and
        carries the identity ETag."""
        url = '/content/pre.txt'
        plain = self.fetch(url, method='HEAD').header('ETag')
        for ae in (None, 'gzip'):
            with self.subTest(accept_encoding=ae):
                resp = self.fetch(url, 'bytes=2-41', ae=ae)
                self.assert_206(resp, url, 2, 41)
                self.assertEqual(resp.header('ETag'), plain)

    def test_if_range(self):
        # The last is dated a Wednesday ("Wed, ..." looked like "W/").
        for url in (BIG, PNG, TEN_MIB, '/dotlinks/wednesday.bin'):
            tag = self.fetch(url, method='HEAD').header('ETag')
            self.assertIsNotNone(tag)
            mtime = self.tree.mtimes[url]
            cases = [(tag, True), ('"other"', False), ('W/' + tag, False),
                     (imf_fixdate(mtime), True),
                     (imf_fixdate(mtime - 1), False),
                     (imf_fixdate(mtime - 86400), False),
                     ('not a validator', False)]
            for value, honoured in cases:
                with self.subTest(url=url, if_range=value):
                    resp = self.fetch(url, 'bytes=10-19',
                                      [('If-Range', value)])
                    if honoured:
                        self.assert_206(resp, url, 10, 19)
                    else:
                        self.assert_whole(resp, url, ' (If-Range: %s)'
                                          % value)

    def test_if_range_gzip_tag(self):
        """If-Range compares with the identity representation's tag."""
        gz = self.fetch(BIG, method='HEAD', ae='gzip').header('ETag')
        plain = self.fetch(BIG, method='HEAD').header('ETag')
        self.assertNotEqual(gz, plain)
        resp = self.fetch(BIG, 'bytes=0-9', [('If-Range', plain)], ae='gzip')
        self.assert_206(resp, BIG, 0, 9)

    def test_ten_mib_file(self):
        size = 10 << 20
        cases = [(5 << 20, (5 << 20) + 999), (size - 1, size - 1),
                 (3, (4 << 20) + 3), (size - 100, size - 1)]
        for first, last in cases:
            with self.subTest(first=first, last=last):
                resp = self.fetch(TEN_MIB, 'bytes=%d-%d' % (first, last))
                self.assert_206(resp, TEN_MIB, first, last)
        resp = self.fetch(TEN_MIB, 'bytes=-1')
        self.assert_206(resp, TEN_MIB, size - 1, size - 1)
        resp = self.fetch(TEN_MIB, 'bytes=%d-' % (size - 4096))
        self.assert_206(resp, TEN_MIB, size - 4096, size - 1)

    def test_head_206(self):
        for url, rng in ((BIG, 'bytes=10-19'), (TEN_MIB, 'bytes=-100'),
                         (PNG, 'bytes=0-')):
            with self.subTest(url=url, range=rng):
                with self.conn() as c:
                    c.send(build_request('GET', url, headers=[('Range', rng)]))
                    get = c.read_response()
                    c.send(build_request('HEAD', url,
                                         headers=[('Range', rng)]))
                    head = c.read_response('HEAD')
                    self.assertEqual(get.status, 206)
                    self.assertEqual(head.status, 206)
                    for name in HEAD_FIELDS:
                        self.assertEqual(head.header(name), get.header(name),
                                         name)
                    c.send(build_request('GET', '/a.txt'))
                    self.assert_file(c.read_response(), '/a.txt',
                                     ' after HEAD with Range')

    def test_keep_alive_after_206_304_416(self):
        tag = self.fetch(BIG, method='HEAD').header('ETag')
        size = len(self.tree.files[BIG])
        plan = [('GET', BIG, [('Range', 'bytes=0-9')], 206),
                ('GET', BIG, [('If-None-Match', tag)], 304),
                ('GET', BIG, [('Range', 'bytes=%d-' % size)], 416),
                ('GET', TEN_MIB, [('Range', 'bytes=1000-1999')], 206),
                ('HEAD', BIG, [('Range', 'bytes=-0')], 416),
                ('GET', BIG, [('Range', 'bytes=0-9'),
                              ('If-None-Match', tag)], 304),
                ('GET', SMALL, [('Range', 'bytes=-10')], 206),
                ('GET', '/b.txt', [], 200)]
        with self.conn() as c:
            c.send(b''.join(build_request(m, u, headers=h)
                            for m, u, h, _ in plan))
            for i, (method, url, headers, status) in enumerate(plan):
                resp = c.read_response(method)
                self.assertEqual(resp.status, status, '%d: %s %s %r\n%s'
                                 % (i, method, url, headers,
                                    resp.describe()))
            self.assertEqual(resp.body, self.tree.files['/b.txt'])
            self.assert_open(c, ' after 206, 304 and 416')

    def test_listing_ignores_range(self):
        with self.conn() as c:
            c.send(build_request('GET', '/many/',
                                 headers=[('Range', 'bytes=0-9')]))
            resp = c.read_response()
            self.assertEqual(resp.status, 200, resp.describe())
            self.assertIsNone(resp.header('Content-Range'))
            self.assertIn(b'file_099.txt', resp.body)

    def test_http10_range(self):
        resp = self.get(BIG, version='HTTP/1.0',
                        headers=[('Range', 'bytes=10-29')])
        self.assert_206(resp, BIG, 10, 29)


@needs_process('serves a sparse file over 4 GiB from its own tree')
class HugeRangeTest(ServerTestCase):
    SIZE = (4 << 30) + 4096
    MARK_AT = (4 << 30) + 100
    MARK = b'<<range marker past 4 GiB>>'

    @classmethod
    def setUpClass(cls):
        cls.tree = treemod.make_tree(temp_dir())
        cls.huge = os.path.join(cls.tree.www, 'huge-range.bin')
        with open(cls.huge, 'wb') as fh:
            fh.truncate(cls.SIZE)
            fh.seek(cls.MARK_AT)
            fh.write(cls.MARK)
        cls.addClassCleanup(os.unlink, cls.huge)
        cls.target = start_server(tree=cls.tree)
        cls.addClassCleanup(cls._stop_target)

    def test_range_past_4gib(self):
        first = self.MARK_AT
        last = first + len(self.MARK) - 1
        resp = self.get('/huge-range.bin',
                        headers=[('Range', 'bytes=%d-%d' % (first, last))])
        self.assertEqual(resp.status, 206, resp.describe())
        self.assertEqual(resp.header('Content-Range'), 'bytes %d-%d/%d'
                         % (first, last, self.SIZE))
        self.assertEqual(resp.body, self.MARK)

    def test_range_straddling_mark_and_suffix(self):
        first = self.MARK_AT - 10
        resp = self.get('/huge-range.bin',
                        headers=[('Range', 'bytes=%d-%d'
                                  % (first, first + 49))])
        self.assertEqual(resp.status, 206, resp.describe())
        want = bytes(10) + self.MARK + bytes(50 - 10 - len(self.MARK))
        self.assertEqual(resp.body, want)
        resp = self.get('/huge-range.bin', headers=[('Range', 'bytes=-16')])
        self.assertEqual(resp.status, 206, resp.describe())
        self.assertEqual(resp.header('Content-Range'), 'bytes %d-%d/%d'
                         % (self.SIZE - 16, self.SIZE - 1, self.SIZE))
        self.assertEqual(resp.body, bytes(16))
        resp = self.get('/huge-range.bin',
                        headers=[('Range', 'bytes=%d-' % self.SIZE)])
        self.assertEqual(resp.status, 416, resp.describe())
        self.assertEqual(resp.header('Content-Range'),
                         'bytes */%d' % self.SIZE)
