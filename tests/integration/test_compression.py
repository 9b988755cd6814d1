"""Content codings: Accept-Encoding negotiation, which types are
compressed, Vary, HEAD, precompressed .gz siblings, large files,
compressed listings and --no-compress."""

from httpraw import build_request
from target import ServerTestCase
import tree as treemod
from codings import (BEST, BIG, BR, COMPRESSIBLE, DEFLATE, INCOMPRESSIBLE,
                     IS_KHTTPD, LARGE, PNG, SMALL, ae_headers, coding_of,
                     decode, streamed, varies_on_ae)

# (Accept-Encoding, the coding expected for a big text file)
RULES = [
    ('gzip', 'gzip'),
    ('*', BEST),
    ('gzip;q=0', 'identity'),
    ('gzip; q=0', 'identity'),
    ('gzip;q=0.000', 'identity'),
    ('*;q=0, identity', 'identity'),
    ('br', BR),
    (None, 'identity'),
    ('', 'identity'),
    ('identity', 'identity'),
    ('GZIP', 'gzip'),
    ('Gzip;Q=1', 'gzip'),
    ('gzip, deflate, br', BEST),
    ('br;q=1.0, gzip;q=0.8', BEST),
    ('br;q=0.8, gzip;q=1.0', 'gzip'),
    ('br, gzip;q=0.5', BEST),
    ('deflate;q=0, *', BEST),
    ('compress, gzip', 'gzip'),
    ('gzip;q=1.0, identity;q=0.5', 'gzip'),
    ('gzip;q=0.001', 'gzip'),
    ('*;q=0, gzip', 'gzip'),
    ('identity;q=0.1, *;q=0.5', BEST),
    # identity ranked above every coding there is: sent as it is.
    ('identity;q=0.5, *;q=0.1', 'identity'),
    ('identity, gzip;q=0.5', 'identity'),
    ('identity, deflate;q=0.5, br;q=0.5, zstd;q=0.5, gzip;q=0.5',
     'identity'),
    ('identity;q=0.5, gzip;q=0.5', 'gzip'),
]
DEFLATE_RULES = [
    ('deflate', DEFLATE),
    ('gzip;q=0, deflate', DEFLATE),
    ('gzip;q=0, br;q=0, zstd;q=0, *', DEFLATE),
    ('DEFLATE', DEFLATE),
    ('br;q=0, deflate;q=0.3', DEFLATE),
]
# Header fields that HEAD and GET must agree on.
HEAD_FIELDS = ('Content-Type', 'Content-Length', 'Content-Encoding', 'ETag',
               'Last-Modified', 'Vary', 'Accept-Ranges')


class CompressionTest(ServerTestCase):

    def fetch(self, url, ae=None, method='GET', version='HTTP/1.1',
              extra=()):
        return self.get(url, method=method, version=version,
                        headers=ae_headers(ae, extra))

    def assert_coded(self, resp, url, coding, what='', streamed=False):
        """A 200 for url in the given coding whose body decodes to the
        file, framed by a Content-Length of the coded bytes, or with
        streamed (compressed as it is sent) chunked when coded."""
        what = '%s%s' % (url, what)
        self.assertEqual(resp.status, 200, what + '\n' + resp.describe())
        self.assertEqual(coding_of(resp), coding, '%s: wrong coding\n%s'
                         % (what, resp.describe()))
        if streamed and coding != 'identity' and resp.framing == 'chunked':
            self.assertIsNone(resp.header('Content-Length'), what)
        else:
            self.assertEqual(resp.framing, 'length', what)
            self.assertEqual(resp.header('Content-Length'),
                             str(len(resp.body)), what)
        data = self.tree.files[url]
        got = decode(resp)
        if got != data:
            self.fail('%s: decoded body differs (%d bytes, expected %d)'
                      % (what, len(got), len(data)))
        if coding != 'identity':
            self.assertLess(len(resp.body), len(data),
                            '%s: the coded body is not smaller' % what)

    def assert_vary(self, resp, what=''):
        self.assertTrue(varies_on_ae(resp), 'no Vary: Accept-Encoding%s\n%s'
                        % (what, resp.describe()))

    def test_accept_encoding_rules(self):
        for ae, coding in RULES:
            with self.subTest(accept_encoding=ae):
                resp = self.fetch(BIG, ae)
                self.assert_coded(resp, BIG, coding)
                self.assert_vary(resp)

    def test_accept_encoding_in_several_lines(self):
        """Field lines of one name combine into one list."""
        cases = [(['br', 'gzip'], BEST), (['gzip', 'br'], BEST),
                 (['br;q=0', 'gzip'], 'gzip'),
                 (['br', 'gzip;q=0'], BR),
                 (['gzip;q=0', 'deflate'], DEFLATE)]
        for lines, coding in cases:
            with self.subTest(lines=lines):
                resp = self.get(BIG, headers=[('Accept-Encoding', v)
                                              for v in lines])
                self.assert_coded(resp, BIG, coding)

    def test_deflate_rules(self):
        """Only deflate acceptable: the zlib format (khttpd: identity)."""
        for ae, coding in DEFLATE_RULES:
            with self.subTest(accept_encoding=ae):
                resp = self.fetch(BIG, ae)
                self.assert_coded(resp, BIG, coding)
                self.assert_vary(resp)
                if coding == 'deflate':
                    # RFC 1950: CMF 0x78 (deflate, 32 KiB window), check
                    self.assertEqual(resp.body[0] & 0x0f, 8)
                    self.assertEqual((resp.body[0] << 8 | resp.body[1]) % 31,
                                     0)

    def test_preference_between_codings(self):
        """gzip;q=0.5, deflate;q=1.0: either is fine, not pinned."""
        resp = self.fetch(BIG, 'gzip;q=0.5, deflate;q=1.0')
        self.assertIn(coding_of(resp), ('gzip', 'deflate'),
                      resp.describe())
        self.assert_coded(resp, BIG, coding_of(resp))

    def test_compressible_types(self):
        for url in COMPRESSIBLE:
            with self.subTest(url=url):
                plain = self.fetch(url)
                self.assert_coded(plain, url, 'identity')
                self.assert_vary(plain, ' on the identity response')
                resp = self.fetch(url, 'gzip')
                self.assert_coded(resp, url, 'gzip')
                self.assert_vary(resp)
                self.assertEqual(resp.header('Content-Type'),
                                 plain.header('Content-Type'))

    def test_compressible_types_deflate(self):
        if IS_KHTTPD:
            self.skipTest('khttpd has no deflate')
        for url in COMPRESSIBLE:
            with self.subTest(url=url):
                self.assert_coded(self.fetch(url, 'deflate'), url, 'deflate')

    def test_incompressible_types(self):
        """Already-compressed types are never compressed, even when their
        bytes would shrink."""
        for url in INCOMPRESSIBLE:
            for ae in ('gzip', 'deflate', '*', 'gzip, deflate'):
                with self.subTest(url=url, accept_encoding=ae):
                    resp = self.fetch(url, ae)
                    self.assert_coded(resp, url, 'identity')

    def test_no_vary_on_png(self):
        for ae in (None, 'gzip'):
            with self.subTest(accept_encoding=ae):
                for method in ('GET', 'HEAD'):
                    resp = self.fetch(PNG, ae, method)
                    self.assertEqual(resp.status, 200)
                    self.assertFalse(varies_on_ae(resp),
                                     'Vary: Accept-Encoding on a png\n'
                                     + resp.describe())

    def test_tiny_files(self):
        """A file too small to shrink may come uncompressed; either way
        the body is exact and Vary is there."""
        for url in (SMALL, '/a.txt', '/hello.txt'):
            for ae, coding in (('gzip', 'gzip'), ('deflate', DEFLATE)):
                with self.subTest(url=url, accept_encoding=ae):
                    resp = self.fetch(url, ae)
                    self.assertEqual(resp.status, 200)
                    self.assertIn(coding_of(resp), ('identity', coding),
                                  resp.describe())
                    self.assertEqual(decode(resp), self.tree.files[url])
                    self.assertEqual(resp.header('Content-Length'),
                                     str(len(resp.body)))
                    self.assert_vary(resp)
        resp = self.fetch('/empty.txt', 'gzip')
        self.assert_coded(resp, '/empty.txt', 'identity')

    def test_head_matches_get(self):
        cases = [(BIG, None), (BIG, 'gzip'), (BIG, 'deflate'),
                 ('/content/app.js', 'gzip'), (SMALL, 'gzip'), (PNG, 'gzip'),
                 (LARGE, 'gzip'), ('/content/pre.txt', 'gzip'),
                 ('/content/old.txt', 'gzip')]
        with self.conn() as c:
            for url, ae in cases:
                with self.subTest(url=url, accept_encoding=ae):
                    c.send(build_request('GET', url,
                                         headers=ae_headers(ae)))
                    get = c.read_response()
                    c.send(build_request('HEAD', url,
                                         headers=ae_headers(ae)))
                    head = c.read_response('HEAD')
                    self.assertEqual(get.status, 200)
                    self.assertEqual(head.status, 200)
                    for name in HEAD_FIELDS:
                        # Compressed as it was sent, then kept: the GET
                        # had no length, the HEAD after it may have one.
                        if name == 'Content-Length' and \
                                get.framing == 'chunked':
                            continue
                        self.assertEqual(head.header(name), get.header(name),
                                         '%s differs between GET and HEAD'
                                         % name)
            c.send(build_request('GET', '/b.txt'))
            self.assert_file(c.read_response(), '/b.txt',
                             ' after HEAD requests')
            self.assert_open(c)

    def test_keep_alive_mixed_codings(self):
        """Coded and identity responses back to back on one connection,
        pipelined: every Content-Length must be exact."""
        plan = [(BIG, 'gzip', 'gzip'), (BIG, None, 'identity'),
                ('/content/data.json', 'gzip', 'gzip'),
                (PNG, 'gzip', 'identity'), (BIG, 'deflate', DEFLATE),
                ('/content/page.html', '*', BEST),
                (LARGE, 'gzip', streamed('gzip')), (BIG, 'gzip', 'gzip')]
        with self.conn() as c:
            c.send(b''.join(build_request('GET', url, headers=ae_headers(ae))
                            for url, ae, _ in plan))
            for i, (url, ae, coding) in enumerate(plan):
                resp = c.read_response()
                self.assert_coded(resp, url, coding, ' (request %d)' % i,
                                  streamed=url == LARGE)
            self.assert_open(c)

    def test_http10_compressed(self):
        for ae, coding in (('gzip', 'gzip'), ('deflate', DEFLATE)):
            with self.subTest(accept_encoding=ae):
                resp = self.fetch(BIG, ae, version='HTTP/1.0')
                self.assert_coded(resp, BIG, coding)

    def test_large_file_compressed_as_sent(self):
        """Over the cache's per-file limit sehttpd compresses as it sends
        (chunked), khttpd sends the file as it is; either way its type is
        compressible, so it varies on Accept-Encoding like the others."""
        for ae, coding in ((None, 'identity'), ('gzip', 'gzip'),
                           ('gzip, deflate', 'gzip'), ('*', BEST)):
            with self.subTest(accept_encoding=ae):
                resp = self.fetch(LARGE, ae)
                self.assert_coded(resp, LARGE, streamed(coding),
                                  streamed=True)
                self.assert_vary(resp, ' on a large file')
                head = self.fetch(LARGE, ae, method='HEAD')
                self.assert_vary(head, ' on HEAD of a large file')
                self.assertEqual(coding_of(head), coding_of(resp))

    def test_gz_file_requested_itself(self):
        """A .gz file asked for by name is application/gzip, as it is."""
        for url in ('/content/pre.txt.gz', '/content/old.txt.gz'):
            for ae in (None, 'gzip'):
                with self.subTest(url=url, accept_encoding=ae):
                    resp = self.fetch(url, ae)
                    self.assert_coded(resp, url, 'identity')
                    self.assertEqual(resp.header('Content-Type'),
                                     'application/gzip')

    def test_precompressed_sibling(self):
        url = '/content/pre.txt'
        gz = self.tree.files[url + '.gz']
        plain = self.fetch(url)
        self.assert_coded(plain, url, 'identity')
        for ae in ('gzip', '*', 'deflate;q=0.5, gzip'):
            with self.subTest(accept_encoding=ae):
                resp = self.fetch(url, ae)
                self.assert_coded(resp, url, 'gzip')
                if resp.body != gz:
                    self.fail('pre.txt.gz not sent as it is (%d bytes, '
                              'header %r; expected %d bytes, header %r)'
                              % (len(resp.body), resp.body[:20], len(gz),
                                 gz[:20]))
                self.assertEqual(resp.header('Content-Type'),
                                 plain.header('Content-Type'))
                self.assertEqual(resp.header('Content-Type'),
                                 'text/plain; charset=utf-8')
                self.assert_vary(resp)
                head = self.fetch(url, ae, 'HEAD')
                self.assertEqual(head.header('Content-Length'), str(len(gz)))
                self.assertEqual(head.header('Content-Encoding'), 'gzip')

    def test_deflate_ignores_gz_sibling(self):
        url = '/content/pre.txt'
        resp = self.fetch(url, 'deflate')
        self.assert_coded(resp, url, DEFLATE)

    def test_older_gz_sibling_ignored(self):
        """old.txt.gz is older than old.txt: the server compresses
        old.txt itself."""
        url = '/content/old.txt'
        for ae, coding in (('gzip', 'gzip'), ('*', BEST)):
            with self.subTest(accept_encoding=ae):
                resp = self.fetch(url, ae)
                self.assertNotEqual(resp.body, self.tree.files[url + '.gz'],
                                    'the older old.txt.gz was sent')
                self.assertNotIn(treemod.STALE_GZ_TEXT, decode(resp))
                self.assert_coded(resp, url, coding)
                head = self.fetch(url, ae, 'HEAD')
                self.assertEqual(head.header('Content-Length'),
                                 str(len(resp.body)))

    def listing(self, url, ae, version='HTTP/1.1'):
        with self.conn() as c:
            c.send(build_request('GET', url, version, headers=ae_headers(ae)))
            resp = c.read_response()
            self.assertEqual(resp.status, 200, resp.describe())
            self.assertEqual(resp.header('Content-Type'),
                             'text/html; charset=utf-8')
            if version == 'HTTP/1.1':
                self.assertEqual(resp.framing, 'chunked', resp.describe())
                c.send(build_request('GET', '/a.txt'))
                self.assert_file(c.read_response(), '/a.txt',
                                 ' after a listing')
            return resp

    def test_listing_compressed(self):
        """A listing is compressed when accepted, still chunked for
        HTTP/1.1, and decodes to the identity listing."""
        names = {'/dir_noindex/': b'size777.txt', '/many/': b'file_099.txt',
                 '/content/': b'pre.txt.gz'}
        for url in names:
            plain = self.listing(url, None)
            self.assert_vary(plain, ' on a listing')
            self.assertEqual(coding_of(plain), 'identity')
            for ae in ('gzip', 'deflate'):
                with self.subTest(url=url, accept_encoding=ae):
                    resp = self.listing(url, ae)
                    coding = 'gzip' if ae == 'gzip' else DEFLATE
                    self.assertEqual(coding_of(resp), coding,
                                     resp.describe())
                    self.assert_vary(resp)
                    html = decode(resp)
                    self.assertEqual(html, plain.body)
                    if coding != 'identity':
                        self.assertLess(len(resp.body), len(html))
                    self.assertIn(names[url], html)

    def test_listing_compressed_http10(self):
        plain = self.listing('/many/', None, 'HTTP/1.0')
        resp = self.listing('/many/', 'gzip', 'HTTP/1.0')
        self.assertEqual(coding_of(resp), 'gzip', resp.describe())
        self.assertIsNone(resp.header('Transfer-Encoding'))
        self.assertEqual(decode(resp), plain.body)
        self.assertIn(b'file_099.txt', plain.body)


class NoCompressTest(ServerTestCase):
    server_args = ('--no-compress',)

    def test_nothing_compressed(self):
        for url in COMPRESSIBLE + [SMALL, PNG]:
            for ae in ('gzip', 'deflate', '*', 'gzip, deflate', 'br',
                       'zstd'):
                with self.subTest(url=url, accept_encoding=ae):
                    resp = self.get(url, headers=ae_headers(ae))
                    self.assert_file(resp, url)
                    self.assertIsNone(resp.header('Content-Encoding'),
                                      resp.describe())
                    head = self.get(url, method='HEAD',
                                    headers=ae_headers(ae))
                    self.assertIsNone(head.header('Content-Encoding'))
                    self.assertEqual(head.header('Content-Length'),
                                     str(len(self.tree.files[url])))

    def test_gz_sibling_not_used(self):
        resp = self.get('/content/pre.txt', headers=ae_headers('gzip'))
        self.assert_file(resp, '/content/pre.txt')
        self.assertIsNone(resp.header('Content-Encoding'))

    def test_br_and_zst_siblings_not_used(self):
        for ae in ('br', 'zstd', '*'):
            with self.subTest(accept_encoding=ae):
                resp = self.get('/precomp/all.txt', headers=ae_headers(ae))
                self.assert_file(resp, '/precomp/all.txt')
                self.assertIsNone(resp.header('Content-Encoding'))

    def test_listing_not_compressed(self):
        with self.conn() as c:
            c.send(build_request('GET', '/many/', headers=ae_headers('gzip')))
            resp = c.read_response()
            self.assertEqual(resp.status, 200)
            self.assertIsNone(resp.header('Content-Encoding'))
            self.assertIn(b'file_099.txt', resp.body)
