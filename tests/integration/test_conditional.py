"""Validators and conditional requests: strong ETags per representation,
Last-Modified, If-None-Match (which wins) and If-Modified-Since in all
three date formats, on GET and HEAD."""

import email.utils
import re
import time

from httpraw import build_request
from target import ServerTestCase
from codings import (BIG, LARGE, PNG, SMALL, TEN_MIB, ae_headers, coding_of,
                     decode, fetch_prefix, varies_on_ae)

# A strong entity tag: DQUOTE *etagc DQUOTE (RFC 9110 8.8.3).
STRONG_ETAG = re.compile(r'^"[\x21\x23-\x7e\x80-\xff]*"$')
MONTHS = ('Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep',
          'Oct', 'Nov', 'Dec')
DAYS = ('Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday',
        'Sunday')
# Files that are cached (small) and sent from the file (big), with the
# Accept-Encoding to use (compressed where the server can).
URLS = [BIG, SMALL, PNG, LARGE, TEN_MIB, '/a.txt']


def imf_fixdate(t):
    return email.utils.formatdate(t, usegmt=True)


def rfc850_date(t):
    tm = time.gmtime(t)
    return '%s, %02d-%s-%02d %02d:%02d:%02d GMT' % (
        DAYS[tm.tm_wday], tm.tm_mday, MONTHS[tm.tm_mon - 1], tm.tm_year % 100,
        tm.tm_hour, tm.tm_min, tm.tm_sec)


def asctime_date(t):
    tm = time.gmtime(t)
    return '%s %s %2d %02d:%02d:%02d %d' % (
        DAYS[tm.tm_wday][:3], MONTHS[tm.tm_mon - 1], tm.tm_mday, tm.tm_hour,
        tm.tm_min, tm.tm_sec, tm.tm_year)


class ConditionalTest(ServerTestCase):

    def fetch(self, url, headers=(), ae=None, method='GET'):
        if url in (TEN_MIB, LARGE):
            return fetch_prefix(self.target, url, method,
                                ae_headers(ae, headers))
        return self.get(url, method=method, headers=ae_headers(ae, headers))

    def etag(self, url, ae=None):
        resp = self.fetch(url, ae=ae)
        self.assertEqual(resp.status, 200, resp.describe())
        tag = resp.header('ETag')
        self.assertIsNotNone(tag, 'no ETag on %s\n%s'
                             % (url, resp.describe()))
        return tag

    def assert_304(self, resp, etag, what):
        self.assertEqual(resp.status, 304, '%s\n%s' % (what, resp.describe()))
        self.assertEqual(resp.header('ETag'), etag, what)
        self.assertEqual(resp.body, b'')
        self.assertIsNone(resp.header('Transfer-Encoding'), what)

    def assert_200(self, resp, url, what, ae=None):
        self.assertEqual(resp.status, 200, '%s\n%s' % (what, resp.describe()))
        if getattr(resp, 'partial', False):
            data = self.tree.files[url]
            self.assertEqual(resp.header('Content-Length'), str(len(data)))
            self.assertEqual(resp.body, data[:len(resp.body)], what)
        elif ae is None:
            self.assert_file(resp, url, ' (%s)' % what)
        else:
            self.assertEqual(decode(resp), self.tree.files[url], what)

    def test_etag_strong_and_stable(self):
        for url in URLS:
            with self.subTest(url=url):
                tags = {self.etag(url) for _ in range(5)}
                self.assertEqual(len(tags), 1, 'ETag not stable: %r' % tags)
                tag = tags.pop()
                self.assertRegex(tag, STRONG_ETAG)
                if url == TEN_MIB:
                    continue  # LARGE is read whole on one connection
                with self.conn() as c:
                    for method in ('GET', 'HEAD', 'GET'):
                        c.send(build_request(method, url))
                        resp = c.read_response(method)
                        self.assertEqual(resp.header('ETag'), tag, method)

    def test_etags_differ_between_files(self):
        tags = {url: self.etag(url) for url in URLS + ['/b.txt']}
        self.assertEqual(len(set(tags.values())), len(tags), tags)

    def test_gzip_etag_differs(self):
        plain = self.etag(BIG)
        resp = self.fetch(BIG, ae='gzip')
        self.assertEqual(coding_of(resp), 'gzip', resp.describe())
        gz = resp.header('ETag')
        self.assertRegex(gz, STRONG_ETAG)
        self.assertNotEqual(gz, plain, 'the gzip representation has the '
                            'identity ETag')
        self.assertEqual(self.etag(BIG, 'gzip'), gz)

    def test_last_modified_is_mtime(self):
        for url in URLS + ['/content/pre.txt', '/content/old.txt.gz']:
            with self.subTest(url=url):
                for ae in (None, 'gzip'):
                    resp = self.fetch(url, ae=ae)
                    self.assertEqual(resp.header('Last-Modified'),
                                     imf_fixdate(self.tree.mtimes[url]))

    def test_if_none_match_current(self):
        for url in URLS:
            for method in ('GET', 'HEAD'):
                with self.subTest(url=url, method=method):
                    tag = self.etag(url)
                    resp = self.fetch(url, [('If-None-Match', tag)],
                                      method=method)
                    self.assert_304(resp, tag, 'If-None-Match: ' + tag)
                    if url not in (PNG, TEN_MIB):
                        self.assertTrue(varies_on_ae(resp), 'no Vary on '
                                        'a 304\n' + resp.describe())

    def test_if_none_match_gzip_representation(self):
        """Each representation answers to its own tag."""
        plain = self.etag(BIG)
        gz = self.etag(BIG, 'gzip')
        resp = self.fetch(BIG, [('If-None-Match', gz)], 'gzip')
        self.assert_304(resp, gz, 'the gzip tag with gzip accepted')
        self.assertTrue(varies_on_ae(resp), resp.describe())
        resp = self.fetch(BIG, [('If-None-Match', gz)])
        self.assert_200(resp, BIG, 'the gzip tag, identity selected')
        self.assertEqual(resp.header('ETag'), plain)
        resp = self.fetch(BIG, [('If-None-Match', plain)], 'gzip')
        self.assert_200(resp, BIG, 'the identity tag, gzip selected', 'gzip')
        self.assertEqual(coding_of(resp), 'gzip')
        resp = self.fetch(BIG, [('If-None-Match', '%s, %s' % (plain, gz))],
                          'gzip')
        self.assert_304(resp, gz, 'both tags, gzip selected')

    def test_if_none_match_forms(self):
        for url in (BIG, PNG, TEN_MIB):
            tag = self.etag(url)
            weak = 'W/' + tag
            cases = [
                ('"x-1", %s, "x-2"' % tag, 304),
                ('"x-1",%s' % tag, 304),
                ('*', 304),
                (weak, 304),
                ('"x-1", ' + weak, 304),
                ('"nope"', 200),
                ('"x-1", "x-2"', 200),
                (tag[:-2] + '"', 200),
                ('W/"nope"', 200),
            ]
            for value, status in cases:
                with self.subTest(url=url, if_none_match=value):
                    resp = self.fetch(url, [('If-None-Match', value)])
                    if status == 304:
                        self.assert_304(resp, tag, value)
                    else:
                        self.assert_200(resp, url, value)

    def test_if_none_match_in_several_lines(self):
        """Field lines of one name combine into one list."""
        tag = self.etag(BIG)
        for lines in (['"x-1"', tag], [tag, '"x-1"']):
            with self.subTest(lines=lines):
                resp = self.get(BIG, headers=[('If-None-Match', v)
                                              for v in lines])
                self.assert_304(resp, tag, 'If-None-Match lines %r' % lines)

    def test_if_none_match_wins(self):
        """If-Modified-Since is ignored when If-None-Match is present."""
        for url in (BIG, PNG, LARGE):
            with self.subTest(url=url):
                tag = self.etag(url)
                later = imf_fixdate(self.tree.mtimes[url] + 86400)
                earlier = imf_fixdate(self.tree.mtimes[url] - 86400)
                resp = self.fetch(url, [('If-None-Match', '"other"'),
                                        ('If-Modified-Since', later)])
                self.assert_200(resp, url, 'other tag, later date')
                resp = self.fetch(url, [('If-Modified-Since', earlier),
                                        ('If-None-Match', tag)])
                self.assert_304(resp, tag, 'current tag, earlier date')

    def test_if_modified_since(self):
        for url in URLS:
            mtime = self.tree.mtimes[url]
            tag = self.etag(url)
            cases = [
                (imf_fixdate(mtime), 304),
                (imf_fixdate(mtime + 1), 304),
                (imf_fixdate(mtime + 86400 * 30), 304),
                (imf_fixdate(mtime - 1), 200),
                (imf_fixdate(mtime - 86400 * 365), 200),
                (rfc850_date(mtime), 304),
                (rfc850_date(mtime - 3600), 200),
                (asctime_date(mtime), 304),
                (asctime_date(mtime - 60), 200),
                ('not a date', 200),
                ('', 200),
                (imf_fixdate(mtime).replace('GMT', 'XYZ'), 200),
                (imf_fixdate(mtime).replace('Nov', 'Nox'), 200),
                ('Tue, 32 Nov 2023 22:13:20 GMT', 200),
                ('Tue, 14 Nov 2023 25:13:20 GMT', 200),
                ('1700000000', 200),
            ]
            for value, status in cases:
                for method in ('GET', 'HEAD'):
                    with self.subTest(url=url, ims=value, method=method):
                        resp = self.fetch(url, [('If-Modified-Since',
                                                 value)], method=method)
                        if status == 304:
                            self.assert_304(resp, tag, value)
                        elif method == 'GET':
                            self.assert_200(resp, url, value)
                        else:
                            self.assertEqual(resp.status, 200,
                                             resp.describe())

    def test_if_modified_since_impossible_dates_ignored(self):
        # RFC 9110 13.1.3: an invalid date is ignored.  Each of these would
        # lie after the file's mtime if read as the next valid day.
        for url in URLS:
            for value in ('Thu, 31 Feb 2099 00:00:00 GMT',
                          'Mon, 29 Feb 2100 00:00:00 GMT',
                          'Thu, 31 Apr 2098 00:00:00 GMT',
                          'Thursday, 31-Feb-69 00:00:00 GMT',
                          'Thu Feb 30 00:00:00 2099',
                          'Xyz, 01 Jan 2099 00:00:00 GMT'):
                with self.subTest(url=url, ims=value):
                    self.assert_200(self.fetch(url, [('If-Modified-Since',
                                                      value)]), url, value)

    def test_two_if_modified_since_fields_ignored(self):
        # Not a list: two lines are no valid date, not last-wins.
        for url in (BIG, SMALL, '/a.txt'):
            mtime = self.tree.mtimes[url]
            with self.subTest(url=url):
                resp = self.fetch(url, [
                    ('If-Modified-Since', imf_fixdate(mtime - 86400)),
                    ('If-Modified-Since', imf_fixdate(mtime))])
                self.assert_200(resp, url, 'two If-Modified-Since')

    def test_date_formats_read(self):
        """The test's own dates are what the RFC formats say."""
        t = 1700000000
        self.assertEqual(imf_fixdate(t), 'Tue, 14 Nov 2023 22:13:20 GMT')
        self.assertEqual(rfc850_date(t), 'Tuesday, 14-Nov-23 22:13:20 GMT')
        self.assertEqual(asctime_date(t), 'Tue Nov 14 22:13:20 2023')
        self.assertEqual(asctime_date(1614834367), 'Thu Mar  4 05:06:07 2021')

    def test_if_modified_since_gzip(self):
        mtime = self.tree.mtimes[BIG]
        gz = self.etag(BIG, 'gzip')
        resp = self.fetch(BIG, [('If-Modified-Since', imf_fixdate(mtime))],
                          'gzip')
        self.assert_304(resp, gz, 'If-Modified-Since with gzip')
        self.assertTrue(varies_on_ae(resp), resp.describe())
        resp = self.fetch(BIG, [('If-Modified-Since',
                                 imf_fixdate(mtime - 10))], 'gzip')
        self.assertEqual(coding_of(resp), 'gzip')
        self.assert_200(resp, BIG, 'earlier date, gzip', 'gzip')

    def test_keep_alive_after_304(self):
        tag = self.etag(BIG)
        ims = imf_fixdate(self.tree.mtimes[TEN_MIB])
        plan = [('GET', BIG, [('If-None-Match', tag)], 304),
                ('GET', '/a.txt', [], 200),
                ('HEAD', BIG, [('If-None-Match', tag)], 304),
                ('GET', TEN_MIB, [('If-Modified-Since', ims)], 304),
                ('GET', '/b.txt', [], 200)]
        with self.conn() as c:
            c.send(b''.join(build_request(m, u, headers=h)
                            for m, u, h, _ in plan))
            for method, url, _, status in plan:
                resp = c.read_response(method)
                self.assertEqual(resp.status, status, '%s %s\n%s'
                                 % (method, url, resp.describe()))
                if status == 200:
                    self.assert_file(resp, url, ' after 304s')
            self.assert_open(c, ' after 304 responses')


class PreconditionTest(ServerTestCase):
    """If-Match and If-Unmodified-Since fail with 412 (RFC 9110 13.1.1,
    13.1.4), evaluated in the order of RFC 9110 13.2.2."""

    fetch = ConditionalTest.fetch
    etag = ConditionalTest.etag
    assert_200 = ConditionalTest.assert_200

    def assert_412(self, resp, what):
        self.assertEqual(resp.status, 412, '%s\n%s' % (what, resp.describe()))
        self.assertEqual(resp.header('Content-Type'),
                         'text/html; charset=utf-8', what)
        self.assertIsNone(resp.header('Content-Encoding'), what)
        self.assertIsNone(resp.header('Content-Range'), what)

    def check(self, url, headers, status, method='GET', ae=None):
        what = '%s %s %r' % (method, url, headers)
        resp = self.fetch(url, headers, ae=ae, method=method)
        if status == 412:
            self.assert_412(resp, what)
        elif status == 200 and method == 'GET':
            self.assert_200(resp, url, what, ae)
        else:
            self.assertEqual(resp.status, status, '%s\n%s'
                             % (what, resp.describe()))
        return resp

    def test_if_match(self):
        for url in (BIG, PNG, LARGE, TEN_MIB):
            tag = self.etag(url)
            cases = [(tag, 200), ('"x-1", ' + tag, 200), ('*', 200),
                     ('"nope"', 412), ('"x-1", "x-2"', 412),
                     # Strong comparison: a weak tag never matches.
                     ('W/' + tag, 412)]
            for value, status in cases:
                for method in ('GET', 'HEAD'):
                    with self.subTest(url=url, if_match=value, method=method):
                        self.check(url, [('If-Match', value)], status, method)

    def test_if_match_in_several_lines(self):
        tag = self.etag(BIG)
        self.check(BIG, [('If-Match', '"x-1"'), ('If-Match', tag)], 200)
        self.check(BIG, [('If-Match', '"x-1"'), ('If-Match', '"x-2"')], 412)

    def test_if_match_gzip_representation(self):
        gz = self.etag(BIG, 'gzip')
        self.check(BIG, [('If-Match', gz)], 200, ae='gzip')
        self.check(BIG, [('If-Match', self.etag(BIG))], 412, ae='gzip')

    def test_if_unmodified_since(self):
        for url in (BIG, PNG, LARGE, TEN_MIB):
            mtime = self.tree.mtimes[url]
            cases = [(imf_fixdate(mtime), 200),
                     (imf_fixdate(mtime + 86400), 200),
                     (imf_fixdate(mtime - 1), 412),
                     (rfc850_date(mtime - 3600), 412),
                     (asctime_date(mtime - 60), 412),
                     ('not a date', 200)]
            for value, status in cases:
                for method in ('GET', 'HEAD'):
                    with self.subTest(url=url, ius=value, method=method):
                        self.check(url, [('If-Unmodified-Since', value)],
                                   status, method)

    def test_evaluation_order(self):
        tag = self.etag(BIG)
        earlier = imf_fixdate(self.tree.mtimes[BIG] - 1)
        cases = [
            ([('If-None-Match', tag), ('If-Match', '"nope"')], 412),
            ([('If-None-Match', tag), ('If-Unmodified-Since', earlier)], 412),
            # If-Unmodified-Since is ignored when If-Match is present.
            ([('If-Match', tag), ('If-Unmodified-Since', earlier)], 200),
            ([('If-Match', tag), ('If-None-Match', tag)], 304),
            ([('If-Match', '"nope"'), ('Range', 'bytes=0-9')], 412),
            ([('If-Match', tag), ('Range', 'bytes=0-9')], 206),
            ([('If-Unmodified-Since', earlier),
              ('Range', 'bytes=99999999-')], 412),
        ]
        for headers, status in cases:
            with self.subTest(headers=headers):
                self.check(BIG, headers, status)

    def test_keep_alive_after_412(self):
        plan = [('GET', BIG, [('If-Match', '"nope"')], 412),
                ('GET', '/a.txt', [], 200),
                ('HEAD', TEN_MIB, [('If-Match', '"nope"')], 412),
                ('GET', '/b.txt', [], 200)]
        with self.conn() as c:
            c.send(b''.join(build_request(m, u, headers=h)
                            for m, u, h, _ in plan))
            for method, url, _, status in plan:
                resp = c.read_response(method)
                self.assertEqual(resp.status, status, '%s %s\n%s'
                                 % (method, url, resp.describe()))
                if status == 200:
                    self.assert_file(resp, url, ' after a 412')
            self.assert_open(c, ' after 412 responses')


class FutureDateTest(ServerTestCase):
    """A Last-Modified later than the response's Date is sent as the Date
    (RFC 9110 8.8.2.1)."""

    fetch = ConditionalTest.fetch
    etag = ConditionalTest.etag
    assert_200 = ConditionalTest.assert_200

    URL = '/content/future.txt'

    def test_last_modified_clamped_to_date(self):
        parse = email.utils.parsedate_to_datetime
        tag = self.etag(self.URL)
        for headers in ([], [('If-None-Match', tag)]):
            for method in ('GET', 'HEAD'):
                with self.subTest(headers=headers, method=method):
                    resp = self.fetch(self.URL, headers, method=method)
                    self.assertIn(resp.status, (200, 304), resp.describe())
                    lm = resp.header('Last-Modified')
                    self.assertIsNotNone(lm, resp.describe())
                    self.assertLessEqual(parse(lm), parse(resp.header('Date')),
                                         resp.describe())
        self.assert_file(self.fetch(self.URL), self.URL)
