"""Directory listings as JSON: chosen by Accept (q-values), parsed with
json.loads, with the entries, types, sizes, times and urls of the HTML page,
its hidden names and sort orders, escaped names, Vary: Accept on both
forms, and over HTTP/2.  Shared by both servers: the core builds it."""

import datetime
import json
import os
import re
import shutil
import subprocess
import tempfile
import unittest
import urllib.parse

import codings
import tree as treemod
from httpraw import build_request
from target import ServerTestCase
from test_listing import ListingParser

JSON_TYPE = 'application/json'
HTML_TYPE = 'text/html; charset=utf-8'
DIR = '/json/'
# What curl and a browser send: both must keep the HTML page.
CURL_ACCEPT = '*/*'
BROWSER_ACCEPT = ('text/html,application/xhtml+xml,application/xml;q=0.9,'
                  'image/avif,image/webp,*/*;q=0.8')
# Characters a url may hold: unreserved ones, '%' escapes and a final '/'.
URL_RE = re.compile(r'^(?:[A-Za-z0-9._~-]|%[0-9A-F]{2})+/?$')
CLIENT_TIMEOUT = 10


def rfc3339(t):
    return datetime.datetime.fromtimestamp(
        t, datetime.timezone.utc).strftime('%Y-%m-%dT%H:%M:%SZ')


def shown(name):
    """A tree name as JSON shows it: bytes that are not UTF-8 as U+FFFD."""
    return treemod.name_bytes(name).decode('utf-8', 'replace')


class JsonListingTest(ServerTestCase):

    def fetch(self, url, accept=JSON_TYPE, method='GET', version='HTTP/1.1',
              headers=()):
        hdrs = list(headers)
        if accept is not None:
            hdrs.append(('Accept', accept))
        with self.conn() as c:
            c.send(build_request(method, url, version, headers=hdrs))
            resp = c.read_response(method)
            if version == 'HTTP/1.1':
                # The connection goes on after it, whatever its framing.
                c.send(build_request('GET', '/a.txt'))
                self.assert_file(c.read_response(), '/a.txt',
                                 ' after a listing')
        return resp

    def listing(self, url=DIR, **kw):
        """GETs a JSON listing, checks what every one must satisfy and
        returns (response, the parsed array)."""
        resp = self.fetch(url, **kw)
        self.assertEqual(resp.status, 200, resp.describe())
        self.assertEqual(resp.header('Content-Type'), JSON_TYPE)
        self.assertIn('accept', codings.vary_tokens(resp), resp.describe())
        self.assertIn('accept-encoding', codings.vary_tokens(resp))
        body = codings.decode(resp)
        # Strict: every byte is UTF-8, and it is one JSON array.
        doc = json.loads(body.decode('utf-8'))
        self.assertIsInstance(doc, list)
        for e in doc:
            self.assertEqual(sorted(e), ['mtime', 'name', 'size', 'type',
                                         'url'], e)
            self.assertIn(e['type'], ('file', 'directory', 'symlink'))
            self.assertRegex(e['url'], URL_RE)
        return resp, doc

    def html_hrefs(self, url):
        """The entries' hrefs of the HTML page, in its order."""
        resp = self.fetch(url, accept=None)
        self.assertEqual(resp.header('Content-Type'), HTML_TYPE)
        p = ListingParser()
        p.feed(resp.body.decode('utf-8'))
        p.close()
        return [link['href'] for link in p.links if link['href'] != '../']

    def expected(self):
        """name -> (type, size, mtime, url) of every entry /json/ lists:
        links are described by their targets, but are symlinks; a link
        leading out of ROOT has no size or time; a link to a dotfile and
        the dotfile are hidden."""
        t = self.tree
        files = {'small.txt', 'mid.txt', 'large.txt',
                 treemod.JSON_QUOTE_NAME, treemod.JSON_TAB_NAME,
                 treemod.JSON_BAD_UTF8_NAME}
        want = {}
        for name in files:
            url = DIR + name
            want[shown(name)] = ('file', len(t.files[url]),
                                 rfc3339(t.mtimes[url]), name)
        want['sub'] = ('directory', None, rfc3339(treemod.FIXED_MTIME),
                       'sub/')
        want['linkdir'] = ('symlink', None, rfc3339(treemod.FIXED_MTIME),
                           'linkdir/')
        want['link.txt'] = ('symlink', 3000, rfc3339(t.mtimes[DIR +
                                                             'large.txt']),
                            'link.txt')
        want['outlink'] = ('symlink', None, None, 'outlink')
        return {n: (ty, size, mtime,
                    urllib.parse.quote_from_bytes(
                        treemod.name_bytes(u.rstrip('/')), safe='') +
                    ('/' if u.endswith('/') else ''))
                for n, (ty, size, mtime, u) in want.items()}

    def test_json_listing_parses_with_every_entry(self):
        _, doc = self.listing()
        got = {e['name']: (e['type'], e['size'], e['mtime'], e['url'])
               for e in doc}
        self.assertEqual(len(got), len(doc), 'a name listed twice')
        self.assertEqual(got, self.expected())

    def test_json_hides_what_the_page_hides(self):
        _, doc = self.listing()
        names = {e['name'] for e in doc}
        self.assertNotIn('.hidden.txt', names)
        self.assertNotIn('dotlink', names, 'a link to .env is listed')
        _, doc = self.listing('/dots/')
        self.assertEqual([e['name'] for e in doc], ['visible.txt'])
        _, doc = self.listing('/.well-known/')
        self.assertEqual([e['name'] for e in doc], ['security.txt'])

    def test_json_urls_and_order_are_the_pages(self):
        """Each url is the page's href for the entry, in the page's
        order, in every order a query asks for."""
        for query in ('', '?sort=size&order=desc', '?sort=date',
                      '?sort=name&order=desc', '?sort=size',
                      '?sort=bogus&x=1'):
            with self.subTest(query=query):
                _, doc = self.listing(DIR + query)
                self.assertEqual([e['url'] for e in doc],
                                 self.html_hrefs(DIR + query))

    def test_json_sorted_by_size_descending(self):
        _, doc = self.listing(DIR + '?sort=size&order=desc')
        kinds = [e['type'] == 'directory' or e['url'].endswith('/')
                 for e in doc]
        self.assertEqual(kinds, sorted(kinds, reverse=True),
                         'directories first')
        files = [e for e in doc if not e['url'].endswith('/')]
        sizes = [e['size'] or 0 for e in files]
        self.assertEqual(sizes, sorted(sizes, reverse=True), files)
        # Ties by name, ascending: large.txt before its link.
        self.assertEqual([e['name'] for e in files[:3]],
                         ['large.txt', 'link.txt', 'mid.txt'])
        self.assertEqual(files[-1]['name'], 'outlink')
        _, asc = self.listing(DIR + '?sort=size')
        self.assertEqual([e['name'] for e in asc][2:5],
                         ['outlink', treemod.JSON_TAB_NAME, 'small.txt'])

    def test_json_escapes_names(self):
        resp, doc = self.listing(headers=[('Accept-Encoding', 'identity')])
        body = resp.body
        self.assertIn(b'"name":"quote\\"back\\\\slash.txt"', body)
        self.assertIn(b'"url":"quote%22back%5Cslash.txt"', body)
        self.assertIn(b'"name":"tab\\tname.txt"', body)
        self.assertIn(b'"url":"tab%09name.txt"', body)
        self.assertIn(b'"name":"bad\\ufffd\\ufffd.txt"', body)
        self.assertIn(b'"url":"bad%FF%FE.txt"', body)
        self.assertNotIn(b'\xff', body)
        self.assertNotIn(b'\t', body)
        names = {e['name'] for e in doc}
        self.assertIn('bad\ufffd\ufffd.txt', names)
        self.assertIn('quote"back\\slash.txt', names)

    def test_json_urls_lead_to_the_entries(self):
        _, doc = self.listing()
        by_url = {e['url']: e for e in doc}
        for url, e in sorted(by_url.items()):
            with self.subTest(url=url):
                resp = self.fetch(DIR + url, accept=None)
                if e['name'] == 'outlink':
                    # Out of ROOT: listed, not served.
                    self.assertEqual(resp.status, 403, resp.describe())
                elif url.endswith('/'):
                    self.assertEqual(resp.status, 200, resp.describe())
                    self.assertEqual(resp.header('Content-Type'), HTML_TYPE)
                else:
                    name = os.fsdecode(urllib.parse.unquote_to_bytes(url))
                    target = 'large.txt' if name == 'link.txt' else name
                    self.assertEqual(resp.status, 200, resp.describe())
                    self.assertEqual(resp.body,
                                     self.tree.files[DIR + target])

    def test_accept_chooses_the_form(self):
        cases = [(None, HTML_TYPE), (CURL_ACCEPT, HTML_TYPE),
                 (BROWSER_ACCEPT, HTML_TYPE),
                 ('application/json', JSON_TYPE),
                 ('APPLICATION/JSON', JSON_TYPE),
                 ('application/json ; q=0.9, text/html;q=0.8', JSON_TYPE),
                 ('text/html;q=0.5, application/json', JSON_TYPE),
                 ('application/*', JSON_TYPE),
                 ('application/json, text/html', HTML_TYPE),
                 ('application/json;q=0', HTML_TYPE),
                 ('application/json;q=0, */*', HTML_TYPE),
                 ('application/json;q=abc', HTML_TYPE),
                 ('application/json;q=2', HTML_TYPE),
                 ('*/json', HTML_TYPE),
                 (',;=,"\\', HTML_TYPE),
                 ('application/json;' + 'x' * 4000, HTML_TYPE),
                 ('a/b, ' * 600 + 'application/json', JSON_TYPE)]
        for accept, ctype in cases:
            with self.subTest(accept=accept and accept[:60]):
                resp = self.fetch(DIR, accept=accept)
                self.assertEqual(resp.status, 200, resp.describe())
                self.assertEqual(resp.header('Content-Type'), ctype)
                self.assertIn('accept', codings.vary_tokens(resp))
                if ctype == JSON_TYPE:
                    json.loads(resp.body.decode('utf-8'))
                else:
                    self.assertTrue(resp.body.startswith(b'<!DOCTYPE html>'))

    def test_accept_on_two_lines_is_one_list(self):
        resp = self.fetch(DIR, accept=None, headers=[
            ('Accept', 'text/html;q=0.5'), ('Accept', 'application/json')])
        self.assertEqual(resp.header('Content-Type'), JSON_TYPE)

    def test_both_forms_vary_on_accept(self):
        for accept in (None, JSON_TYPE):
            for method in ('GET', 'HEAD'):
                with self.subTest(accept=accept, method=method):
                    resp = self.fetch(DIR, accept=accept, method=method)
                    self.assertEqual(resp.status, 200)
                    self.assertEqual(codings.vary_tokens(resp),
                                     {'accept', 'accept-encoding'})
                    if method == 'HEAD':
                        self.assertEqual(resp.body, b'')
            with self.subTest(accept=accept, status=304):
                resp = self.fetch(DIR, accept=accept,
                                  headers=[('If-None-Match', '*')])
                self.assertEqual(resp.status, 304, resp.describe())
                self.assertIn('accept', codings.vary_tokens(resp))

    def test_forms_and_orders_are_cached_apart(self):
        """In turn on one connection, each answer in its own form and
        order: one never answers for another from the cache."""
        plan = [(None, ''), (JSON_TYPE, ''), (None, ''), (JSON_TYPE, ''),
                (JSON_TYPE, '?sort=size&order=desc'), (None, '?sort=size'),
                (JSON_TYPE, '?sort=size'), (BROWSER_ACCEPT, ''),
                (JSON_TYPE, '?sort=size&order=desc'), (JSON_TYPE, '')]
        first = {}
        with self.conn() as c:
            for accept, query in plan:
                hdrs = [('Accept', accept)] if accept else []
                c.send(build_request('GET', DIR + query, headers=hdrs))
                resp = c.read_response()
                want = JSON_TYPE if accept == JSON_TYPE else HTML_TYPE
                with self.subTest(accept=accept, query=query):
                    self.assertEqual(resp.header('Content-Type'), want)
                    key = (want, query)
                    self.assertEqual(resp.body, first.setdefault(key,
                                                                 resp.body))
        self.assertNotEqual(first[(JSON_TYPE, '')],
                            first[(JSON_TYPE, '?sort=size&order=desc')])

    def test_json_compressed_like_the_page(self):
        _, plain = self.listing(headers=[('Accept-Encoding', 'identity')])
        resp, doc = self.listing(headers=[('Accept-Encoding', 'gzip')])
        self.assertEqual(codings.coding_of(resp), 'gzip')
        self.assertEqual(doc, plain)

    def test_json_http10_and_chunked_http11(self):
        resp = self.fetch(DIR, version='HTTP/1.0')
        self.assertIn(resp.framing, ('length', 'close'))
        self.assertIsNone(resp.header('Transfer-Encoding'))
        old = json.loads(resp.body.decode('utf-8'))
        resp, doc = self.listing()
        self.assertEqual(resp.framing, 'chunked')
        self.assertEqual(doc, old)

    def test_empty_and_many(self):
        _, doc = self.listing('/empty/')
        self.assertEqual(doc, [])
        _, doc = self.listing('/many/')
        self.assertEqual([e['name'] for e in doc],
                         ['file_%03d.txt' % i for i in range(100)])
        self.assertTrue(all(e['type'] == 'file' and e['size'] ==
                            len(self.tree.files['/many/' + e['name']])
                            for e in doc))

    def test_index_page_is_not_a_listing(self):
        resp = self.fetch('/dir_index/')
        self.assertEqual(resp.status, 200)
        self.assertEqual(resp.body, self.tree.files['/dir_index/index.html'])
        self.assertNotIn('accept', codings.vary_tokens(resp))


def curl(*args):
    done = subprocess.run(['curl', '-sS', '--max-time', str(CLIENT_TIMEOUT)]
                          + list(args), stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, timeout=CLIENT_TIMEOUT + 5)
    return done.returncode, done.stdout, done.stderr.decode(errors='replace')


def curl_has_http2():
    if not shutil.which('curl'):
        return False
    rc, out, _ = curl('--version')
    return rc == 0 and b'HTTP2' in out


@unittest.skipUnless(shutil.which('curl'), 'curl is not installed')
class JsonListingCurlTest(ServerTestCase):
    """curl as is (Accept: */*) and asking for JSON, over HTTP/1.1 and,
    on sehttpd, HTTP/2."""

    def url(self, path):
        return 'http://%s%s' % (self.target.hostport, path)

    def fetch(self, *args):
        """(head lines, body) of curl's answer for /json/."""
        with tempfile.TemporaryDirectory() as tmp:
            head = os.path.join(tmp, 'head')
            rc, body, err = curl('-D', head, *args, self.url(DIR))
            self.assertEqual(rc, 0, err)
            with open(head, 'rb') as fh:
                lines = fh.read().decode('latin-1').split('\r\n')
        return lines, body

    @staticmethod
    def header(lines, name):
        values = [line.split(':', 1)[1].strip() for line in lines
                  if line.lower().startswith(name.lower() + ':')]
        return ', '.join(values) if values else None

    def test_curl_gets_html_and_json_when_asked(self):
        lines, body = self.fetch()
        self.assertEqual(self.header(lines, 'Content-Type'), HTML_TYPE)
        self.assertTrue(body.startswith(b'<!DOCTYPE html>'))
        lines, body = self.fetch('-H', 'Accept: application/json')
        self.assertEqual(self.header(lines, 'Content-Type'), JSON_TYPE)
        names = {e['name'] for e in json.loads(body.decode('utf-8'))}
        self.assertIn('bad\ufffd\ufffd.txt', names)

    @codings.sehttpd_only('HTTP/2')
    @unittest.skipUnless(curl_has_http2(), 'curl without HTTP/2')
    def test_json_over_http2(self):
        lines, body = self.fetch('--http2-prior-knowledge', '-H',
                                 'Accept: application/json')
        self.assertTrue(lines[0].startswith('HTTP/2 200'), lines)
        self.assertEqual(self.header(lines, 'content-type'), JSON_TYPE)
        self.assertIn('accept', {t.strip().lower() for t in self.header(
            lines, 'vary').split(',')})
        doc = json.loads(body.decode('utf-8'))
        _, h1 = self.fetch('--http1.1', '-H', 'Accept: application/json')
        self.assertEqual(doc, json.loads(h1.decode('utf-8')))
        self.assertIn('quote"back\\slash.txt', {e['name'] for e in doc})
        lines, body = self.fetch('--http2-prior-knowledge')
        self.assertEqual(self.header(lines, 'content-type'), HTML_TYPE)
        lines, body = self.fetch('--http2-prior-knowledge', '-H',
                                 'Accept: application/json', '--compressed')
        self.assertEqual(json.loads(body.decode('utf-8')), doc)
