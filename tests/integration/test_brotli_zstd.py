"""Brotli and zstd beside gzip: negotiation by q-value (ties go to the
smallest output, br, then zstd, then gzip, unless a precompressed sibling
holds one of the tied codings), variants that decode to the file,
FILE.br/FILE.zst/FILE.gz siblings sent as they are, and HEAD, 304 and
Range with each coding.  khttpd makes gzip only (test_compression.py
holds what it must answer to br and zstd), but sends siblings in any
coding: PrecompressedTest runs against both servers."""

from httpraw import build_request
from target import ServerTestCase
import tree as treemod
from codings import (BIG, BR, COMPRESSIBLE, HAVE_DECODERS, LARGE, ZSTD,
                     ae_headers, coding_of, decode, sehttpd_only,
                     streamed, varies_on_ae)

# (Accept-Encoding, the coding expected for a big text file, no siblings)
RULES = [
    ('br', 'br'),
    ('BR', 'br'),
    ('zstd', 'zstd'),
    ('Zstd;Q=1', 'zstd'),
    ('*', 'br'),
    ('gzip, deflate, br, zstd', 'br'),
    ('zstd, gzip', 'zstd'),
    ('gzip, zstd', 'zstd'),
    ('gzip;q=0.8, zstd;q=0.8', 'zstd'),
    ('br;q=0.5, gzip', 'gzip'),
    ('br;q=0.5, zstd;q=0.6, gzip;q=0.4', 'zstd'),
    ('gzip;q=0.9, zstd;q=0.8, br;q=0.7', 'gzip'),
    ('deflate, br;q=0.999', 'deflate'),
    ('br;q=0, *', 'zstd'),
    ('br;q=0, zstd;q=0, *', 'gzip'),
    ('*;q=0, zstd;q=0.1', 'zstd'),
    ('*;q=0.5, zstd', 'zstd'),
    ('br;q=0, zstd;q=0, gzip;q=0', 'identity'),
    ('br;q=0.000, zstd; q=0', 'identity'),
    # identity ranked above every coding there is: sent as it is.
    ('identity, br;q=0.5', 'identity'),
    ('identity;q=1, br;q=0.2', 'identity'),
    ('identity, br', 'br'),
    ('identity;q=0.5, br;q=0.4, zstd;q=0.6', 'zstd'),
    ('brotli, zst, x-br', 'identity'),
]
CODINGS = ('br', 'zstd', 'gzip')
SIBLING = {'br': '.br', 'zstd': '.zst', 'gzip': '.gz'}
# Header fields that HEAD and GET must agree on.
HEAD_FIELDS = ('Content-Type', 'Content-Length', 'Content-Encoding', 'ETag',
               'Last-Modified', 'Vary', 'Accept-Ranges')
ALL = '/precomp/all.txt'


class CodingsHelpers:
    """What the tests below share (a mixin: no test class itself)."""

    def setUp(self):
        super().setUp()
        if not HAVE_DECODERS:
            self.skipTest('the brotli and zstd tools are not installed')

    def fetch(self, url, ae=None, method='GET', extra=()):
        return self.get(url, method=method, headers=ae_headers(ae, extra))

    def assert_coded(self, resp, url, coding, what=''):
        what = '%s%s' % (url, what)
        self.assertEqual(resp.status, 200, what + '\n' + resp.describe())
        self.assertEqual(coding_of(resp), coding, '%s: wrong coding\n%s'
                         % (what, resp.describe()))
        if resp.framing == 'chunked' and coding != 'identity':
            # Compressed as it is sent: no length known in advance.
            self.assertIsNone(resp.header('Content-Length'), what)
        else:
            self.assertEqual(resp.header('Content-Length'),
                             str(len(resp.body)), what)
        self.assertTrue(varies_on_ae(resp), 'no Vary: Accept-Encoding on '
                        + what)
        data = self.tree.files[url]
        self.assertEqual(decode(resp), data, what + ': decodes otherwise')
        if coding != 'identity':
            self.assertLess(len(resp.body), len(data), what)

    def assert_sibling(self, url, ae, coding):
        resp = self.fetch(url, ae)
        self.assert_coded(resp, url, coding, ' (%s)' % ae)
        sibling = self.tree.files.get(url + SIBLING[coding])
        self.assertIsNotNone(sibling, 'no %s%s in the tree (is the %s tool '
                             'installed?)' % (url, SIBLING[coding], coding))
        self.assertEqual(resp.body, sibling, '%s%s not sent as it is'
                         % (url, SIBLING[coding]))
        head = self.fetch(url, ae, 'HEAD')
        self.assertEqual(head.header('Content-Length'), str(len(sibling)))
        self.assertEqual(head.header('Content-Encoding'), coding)
        self.assertEqual(head.header('ETag'), resp.header('ETag'))
        return resp


class PerCodingTests(CodingsHelpers):
    """Each coding a representation of its own, for the URLS of a class
    (a mixin)."""

    URLS = ()

    def test_etag_per_coding(self):
        for url in self.URLS:
            with self.subTest(url=url):
                tags = [self.fetch(url, ae).header('ETag')
                        for ae in (None,) + CODINGS]
                self.assertEqual(len(set(tags)), len(tags), tags)
                for tag in tags:
                    self.assertRegex(tag, r'^"[^"]+"$')

    def test_head_matches_get(self):
        with self.conn() as c:
            for url in self.URLS:
                for coding in CODINGS:
                    with self.subTest(url=url, coding=coding):
                        c.send(build_request('GET', url,
                                             headers=ae_headers(coding)))
                        get = c.read_response()
                        c.send(build_request('HEAD', url,
                                             headers=ae_headers(coding)))
                        head = c.read_response('HEAD')
                        self.assertEqual(get.header('Content-Encoding'),
                                         coding)
                        for name in HEAD_FIELDS:
                            self.assertEqual(head.header(name),
                                             get.header(name), name)
                        self.assertEqual(head.body, b'')
            self.assert_open(c)

    def test_if_none_match_per_coding(self):
        for url in self.URLS:
            tags = {ae: self.fetch(url, ae).header('ETag')
                    for ae in ('identity',) + CODINGS}
            for coding in CODINGS:
                with self.subTest(url=url, coding=coding):
                    tag = tags[coding]
                    resp = self.fetch(url, coding,
                                      extra=[('If-None-Match', tag)])
                    self.assertEqual(resp.status, 304, resp.describe())
                    self.assertEqual(resp.header('ETag'), tag)
                    self.assertEqual(resp.body, b'')
                    self.assertIsNone(resp.header('Content-Encoding'))
                    self.assertTrue(varies_on_ae(resp))
                    head = self.fetch(url, coding, 'HEAD',
                                      [('If-None-Match', tag)])
                    self.assertEqual(head.status, 304)
                    # Another coding's tag does not match this one.
                    for other in ('identity',) + CODINGS:
                        if other == coding:
                            continue
                        resp = self.fetch(url, coding, extra=[
                            ('If-None-Match', tags[other])])
                        self.assert_coded(resp, url, coding,
                                          ' (If-None-Match of %s)' % other)
                    # If-Match with the coding's own tag holds.
                    resp = self.fetch(url, coding,
                                      extra=[('If-Match', tag)])
                    self.assert_coded(resp, url, coding, ' (If-Match)')

    def test_range_is_of_the_identity_bytes(self):
        """As with gzip: a Range request gets identity bytes, identity
        ETag, and If-Range with a coded tag does not match."""
        for url in self.URLS:
            data = self.tree.files[url]
            plain = self.fetch(url, method='HEAD').header('ETag')
            for coding in CODINGS:
                with self.subTest(url=url, coding=coding):
                    resp = self.fetch(url, coding,
                                      extra=[('Range', 'bytes=100-1099')])
                    self.assertEqual(resp.status, 206, resp.describe())
                    self.assertEqual(coding_of(resp), 'identity')
                    self.assertEqual(resp.body, data[100:1100])
                    self.assertEqual(resp.header('ETag'), plain)
                    self.assertTrue(varies_on_ae(resp))
                    coded = self.fetch(url, coding).header('ETag')
                    resp = self.fetch(url, coding,
                                      extra=[('Range', 'bytes=0-9'),
                                             ('If-Range', coded)])
                    self.assertEqual(resp.status, 200, resp.describe())
                    self.assertEqual(resp.body, data)


@sehttpd_only('Brotli or zstd')
class BrotliZstdTest(PerCodingTests, ServerTestCase):
    """Codings sehttpd makes itself (siblings: PrecompressedTest)."""

    URLS = (BIG,)

    def test_negotiation(self):
        for ae, coding in RULES:
            with self.subTest(accept_encoding=ae):
                self.assert_coded(self.fetch(BIG, ae), BIG, coding)

    def test_accept_encoding_in_several_lines(self):
        cases = [(['gzip', 'br'], 'br'), (['zstd', 'br;q=0.9'], 'zstd'),
                 (['br;q=0', 'zstd;q=0'], 'identity')]
        for lines, coding in cases:
            with self.subTest(lines=lines):
                resp = self.get(BIG, headers=[('Accept-Encoding', v)
                                              for v in lines])
                self.assert_coded(resp, BIG, coding)

    def test_variants_decode_to_the_file(self):
        for url in COMPRESSIBLE:
            for coding in ('br', 'zstd'):
                with self.subTest(url=url, coding=coding):
                    self.assert_coded(self.fetch(url, coding), url, coding)

    def test_variant_bytes_are_stable(self):
        """A cached variant is made once: the same bytes every time."""
        for coding in ('br', 'zstd'):
            first = self.fetch(BIG, coding).body
            for _ in range(3):
                self.assertEqual(self.fetch(BIG, coding).body, first)

    def test_large_file_compressed_as_sent(self):
        """Beyond the cache's per-file limit sehttpd compresses as it
        sends (khttpd sends the file as it is)."""
        for ae, coding in (('br', 'br'), ('zstd', 'zstd'), ('*', 'br')):
            with self.subTest(accept_encoding=ae):
                self.assert_coded(self.fetch(LARGE, ae), LARGE,
                                  streamed(coding))

    def test_listing(self):
        plain = self.fetch('/many/')
        for coding in ('br', 'zstd'):
            with self.subTest(coding=coding):
                resp = self.fetch('/many/', coding)
                self.assertEqual(coding_of(resp), coding, resp.describe())
                self.assertEqual(resp.framing, 'chunked')
                self.assertEqual(decode(resp), plain.body)
                self.assertTrue(varies_on_ae(resp))

    def test_higher_q_beats_a_sibling(self):
        """A coding without a sibling but with a higher q is made."""
        for url, ae, coding in (('/precomp/br.txt', 'br;q=0.5, zstd',
                                 'zstd'),
                                ('/precomp/zst.txt', 'zstd;q=0.1, br',
                                 'br'),
                                ('/precomp/br.txt', 'br;q=0, gzip', 'gzip')):
            with self.subTest(url=url, accept_encoding=ae):
                resp = self.fetch(url, ae)
                self.assert_coded(resp, url, coding)
                made = self.tree.files.get(url + SIBLING[coding])
                self.assertNotEqual(resp.body, made)


class PrecompressedTest(PerCodingTests, ServerTestCase):
    """FILE.br, FILE.zst and FILE.gz sent as they are, by both servers:
    khttpd makes gzip only, but sends any sibling."""

    URLS = (ALL,)

    def test_siblings_sent_as_they_are(self):
        for coding in CODINGS:
            for ae in (coding, '%s, identity;q=0.5' % coding):
                with self.subTest(coding=coding, accept_encoding=ae):
                    self.assert_sibling(ALL, ae, coding)

    def test_ties_favour_a_sibling(self):
        """On a tie a sibling's coding wins over one the server would
        make; among siblings the smallest output (br) wins."""
        self.assert_sibling(ALL, '*', 'br')
        self.assert_sibling(ALL, 'gzip, zstd', 'zstd')
        self.assert_sibling('/precomp/br.txt', 'zstd, br, gzip', 'br')
        self.assert_sibling('/precomp/zst.txt', '*', 'zstd')
        self.assert_sibling('/precomp/zst.txt', 'br, zstd', 'zstd')

    def test_older_siblings_ignored(self):
        """The server makes the coding itself, if it can."""
        url = '/precomp/stale.txt'
        made = {'br': BR, 'zstd': ZSTD, 'gzip': 'gzip'}
        for coding in CODINGS:
            with self.subTest(coding=coding):
                resp = self.fetch(url, coding)
                self.assert_coded(resp, url, made[coding])
                self.assertNotIn(treemod.STALE_GZ_TEXT, decode(resp))

    def test_empty_siblings_ignored(self):
        """An empty FILE.gz (a build step that failed) decodes to nothing:
        the server makes the coding itself, if it can."""
        url = '/precomp/empty.txt'
        made = {'br': BR, 'zstd': ZSTD, 'gzip': 'gzip'}
        for coding in CODINGS:
            with self.subTest(coding=coding):
                self.assert_coded(self.fetch(url, coding), url, made[coding])
