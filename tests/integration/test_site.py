"""Serving a real site: index names, dotfiles, OPTIONS (both servers, by
default), and sehttpd's --header, --cors, --index, --error-page, --spa,
--dotfiles and --follow-symlinks: against khttpd, its parameters for them
(target.py), where it has them; what sehttpd's command line refuses is
sehttpd's alone."""

import gzip
import os
import re
import unittest

from httpraw import build_request
from target import (ServerTestCase, needs_process, session_tree,
                    start_server, temp_dir)
from test_cli import run_cli
from codings import sehttpd_only

ALLOW = 'GET, HEAD, OPTIONS'
HIDDEN = ('/.env', '/.git/config', '/.git/', '/.git', '/%2eenv',
          '/dots/.hidden.txt', '/dots/.dir/x.txt', '/dots/.dir/',
          '/.well-known/.hidden', '/..foo', '/dots/.well-known/',
          '/dots/.well-known/x.txt')


def listed_names(body):
    """The names the listing links to (hrefs, decoded enough for ours)."""
    return {h.rstrip('/') for h in
            re.findall(r'href="([^"?#]*)"', body.decode('utf-8', 'replace'))
            if h not in ('../', '/')}


class DefaultsTest(ServerTestCase):
    """What both servers do without flags."""

    def test_index_html_then_index_htm(self):
        resp = self.get('/dir_htm/')
        self.assertEqual(resp.status, 200, resp.describe())
        self.assertEqual(resp.body, self.tree.files['/dir_htm/index.htm'])
        resp = self.get('/dir_both/')
        self.assertEqual(resp.body, self.tree.files['/dir_both/index.html'])
        resp = self.get('/dir_htm/', method='HEAD')
        self.assertEqual(resp.status, 200)
        self.assertEqual(int(resp.header('Content-Length')),
                         len(self.tree.files['/dir_htm/index.htm']))

    def test_index_not_to_be_served_hides_the_directory(self):
        """403, as nginx answers, not a listing of what the index was
        there to hide (before: a listing showing backup.sql)."""
        resp = self.get('/dir_outindex/')
        self.assert_error(resp, 403)
        self.assertNotIn(b'backup.sql', resp.body)
        self.assertNotIn(self.tree.secret_marker, resp.body)
        self.assertEqual(self.get('/dir_outindex/backup.sql').status, 200)

    def test_index_after_one_not_to_be_served_is_not_taken_from_cache(self):
        """index.htm cached as a file of its own is not the directory's
        index while index.html, before it, is there (khttpd took the
        first index name it held an entry for: 200 with index.htm)."""
        self.assertEqual(self.get('/dir_outindex/index.htm').status, 200)
        for _ in range(2):
            resp = self.get('/dir_outindex/')
            self.assert_error(resp, 403)
            self.assertNotIn(b'index.htm', resp.body)

    @needs_process('khttpd reads as root: nothing is unreadable to it')
    def test_unreadable_index_hides_the_directory(self):
        d = temp_dir()
        os.chmod(d, 0o755)
        with open(os.path.join(d, 'index.html'), 'w') as f:
            f.write('<p>private</p>\n')
        with open(os.path.join(d, 'backup.sql'), 'w') as f:
            f.write('DUMP-MARKER\n')
        # Owned by another user (root) when the server runs as nobody.
        os.chmod(os.path.join(d, 'index.html'),
                 0o600 if os.geteuid() == 0 else 0)
        target = start_server([], root=d, tree=None)
        self.addCleanup(target.stop)
        resp = target.get('/')
        self.assertEqual(resp.status, 403, resp.describe())
        self.assertNotIn(b'backup.sql', resp.body)

    def test_dotfiles_are_404(self):
        for path in HIDDEN:
            for method in ('GET', 'HEAD'):
                with self.subTest(path=path, method=method):
                    resp = self.get(path, method=method)
                    if method == 'GET':
                        self.assert_error(resp, 404)
                        self.assertNotIn(b'DOTFILE-', resp.body)
                    self.assertEqual(resp.status, 404)

    def test_dotfiles_not_listed(self):
        resp = self.get('/dots/')
        self.assertEqual(resp.status, 200, resp.describe())
        self.assertEqual(listed_names(resp.body), {'visible.txt'})

    def test_links_to_dotfiles_are_404(self):
        for path in ('/dotlinks/innocent', '/dotlinks/gitlink/config',
                     '/dotlinks/gitlink/', '/dotlinks/envlink'):
            with self.subTest(path=path):
                resp = self.get(path)
                self.assert_error(resp, 404)
                self.assertNotIn(b'[core]', resp.body)
                self.assertNotIn(b'DOTFILE-', resp.body)

    def test_links_to_dotfiles_not_listed(self):
        resp = self.get('/dotlinks/')
        self.assertEqual(resp.status, 200, resp.describe())
        self.assertEqual(listed_names(resp.body),
                         {'visible.txt', 'app.css', 'wednesday.bin'})

    def test_sibling_linked_to_dotfile_unused(self):
        want = self.tree.files['/dotlinks/app.css']
        for _ in range(2):  # filling the cache, then from it
            resp = self.get('/dotlinks/app.css',
                            headers=[('Accept-Encoding', 'gzip')])
            self.assertEqual(resp.status, 200, resp.describe())
            self.assertNotIn(b'DOTFILE-', resp.body)
            body = resp.body
            if resp.header('Content-Encoding') == 'gzip':
                body = gzip.decompress(body)
            self.assertEqual(body, want)

    def test_well_known_is_served(self):
        resp = self.get('/.well-known/security.txt')
        self.assertEqual(resp.status, 200, resp.describe())
        self.assertEqual(resp.body,
                         self.tree.files['/.well-known/security.txt'])
        resp = self.get('/.well-known/')
        self.assertEqual(resp.status, 200, resp.describe())
        self.assertEqual(listed_names(resp.body), {'security.txt'})

    def test_options_204(self):
        for target in ('/a.txt', '/', '/missing', '*', '/%61.txt?q',
                       'http://test/a.txt', 'http://test'):
            with self.subTest(target=target), self.conn() as c:
                c.send(build_request('OPTIONS', target))
                resp = c.read_response('OPTIONS')
                self.assertEqual(resp.status, 204, resp.describe())
                self.assertEqual(resp.header('Allow'), ALLOW)
                self.assertIsNone(resp.header('Content-Length'))
                self.assertIsNone(resp.header('Access-Control-Allow-Origin'))
                # No body: the next response follows at once.
                c.send(build_request('GET', '/a.txt'))
                resp = c.read_response()
                self.assertEqual(resp.body, self.tree.files['/a.txt'])

    def test_options_bad_targets_400(self):
        """An OPTIONS target is "*" or what GET accepts: else 400, as a
        GET of it gets."""
        for target in ('x', '*x', '**', '/../../etc/passwd', '/%00',
                       'example.com:443', 'ftp://test/a.txt'):
            for method in ('OPTIONS', 'GET'):
                with self.subTest(target=target, method=method):
                    resp = self.get(target, method=method)
                    self.assert_error(resp, 400)

    def test_preflight_without_cors_is_not_allowed(self):
        resp = self.get('/a.txt', method='OPTIONS', headers=[
            ('Origin', 'https://other.example'),
            ('Access-Control-Request-Method', 'GET')])
        self.assertEqual(resp.status, 204, resp.describe())
        self.assertIsNone(resp.header('Access-Control-Allow-Origin'))
        self.assertIsNone(resp.header('Access-Control-Allow-Methods'))

    def test_405_allows_options(self):
        resp = self.get('/a.txt', method='DELETE')
        self.assert_error(resp, 405)
        self.assertEqual(resp.header('Allow'), ALLOW)


class FlagTest(unittest.TestCase):
    """Helpers for tests that start sehttpd with flags (khttpd with the
    parameters for them)."""

    def start(self, *args, root=None):
        t = start_server(list(args), root=root)
        self.addCleanup(t.server.kill)
        return t

    def get(self, t, path, method='GET', headers=()):
        with t.conn() as c:
            c.send(build_request(method, path, headers=headers))
            return c.read_response(method)

    def usage_error(self, args, *words):
        """sehttpd refuses args: exit 2, one line on stderr naming words."""
        # Loopback and any port, in case it is wrongly accepted and runs.
        rc, out, err = run_cli(['-b', '127.0.0.1', '-p', '0'] + list(args) +
                               [session_tree().www])
        self.assertEqual(rc, 2, 'sehttpd %s: exit %s, stderr %r'
                         % (args, rc, err))
        lines = err.splitlines()
        self.assertEqual(len(lines), 1, err)
        self.assertTrue(lines[0].startswith('sehttpd: '), err)
        # A long value is quoted in part, not echoed whole.
        self.assertLess(len(lines[0]), 300, err)
        for w in words:
            self.assertIn(w, lines[0])


class HeaderFlagTest(FlagTest):

    def test_added_to_successful_responses(self):
        t = self.start('--header', 'X-Frame-Options: DENY',
                       '--header', 'X-Two:  two words  ')
        tree = session_tree()
        for path in ('/a.txt', '/dir_noindex/', '/big/1m.bin'):
            with self.subTest(path=path):
                r = self.get(t, path)
                self.assertEqual(r.status, 200)
                self.assertEqual(r.all('X-Frame-Options'), ['DENY'])
                self.assertEqual(r.header('X-Two'), 'two words')
        etag = self.get(t, '/a.txt').header('ETag')
        r = self.get(t, '/a.txt', headers=[('If-None-Match', etag)])
        self.assertEqual(r.status, 304)
        self.assertEqual(r.header('X-Frame-Options'), 'DENY')
        r = self.get(t, '/a.txt', headers=[('Range', 'bytes=0-1')])
        self.assertEqual((r.status, r.header('X-Two')), (206, 'two words'))
        r = self.get(t, '/dir_noindex')
        self.assertEqual((r.status, r.header('X-Two')), (301, 'two words'))
        r = self.get(t, '/a.txt', 'HEAD')
        self.assertEqual(r.header('X-Frame-Options'), 'DENY')
        # Not on errors.
        for path, status in (('/missing', 404), ('/link_secret.txt', 403)):
            r = self.get(t, path)
            self.assertEqual(r.status, status)
            self.assertIsNone(r.header('X-Frame-Options'), r.describe())
        self.assertEqual(self.get(t, '/a.txt').body, tree.files['/a.txt'])
        t.server.stop()

    def test_path_prefix(self):
        t = self.start('--header', '/big/:Cache-Control: max-age=31536000',
                       '--header', 'X-All: 1')
        r = self.get(t, '/big/1m.bin')
        self.assertEqual(r.header('Cache-Control'), 'max-age=31536000')
        self.assertEqual(r.header('X-All'), '1')
        for path in ('/a.txt', '/dir_noindex/', '/big'):
            with self.subTest(path=path):
                r = self.get(t, path)
                self.assertIsNone(r.header('Cache-Control'), r.describe())
                self.assertEqual(r.header('X-All'), '1')
        # The prefix is matched on the decoded path.
        r = self.get(t, '/%62ig/1m.bin', 'HEAD')
        self.assertEqual(r.header('Cache-Control'), 'max-age=31536000')
        # OPTIONS' 204 too, on the paths the prefix matches.
        for target, cc in (('/big/1m.bin', 'max-age=31536000'),
                           ('/%62ig/x', 'max-age=31536000'),
                           ('/a.txt', None), ('*', None)):
            with self.subTest(method='OPTIONS', target=target):
                r = self.get(t, target, 'OPTIONS')
                self.assertEqual(r.status, 204, r.describe())
                self.assertEqual(r.header('Cache-Control'), cc)
                self.assertEqual(r.header('X-All'), '1')
        t.server.stop()

    @needs_process('runs sehttpd with bad flags')
    def test_bad_headers_refused_at_start(self):
        cases = [
            ('Bad Name: x', 'token'),
            ('X-A: one\r\nX-Injected: two', 'control character'),
            ('X-A: one\ntwo', 'control character'),
            ('X-A: bell\x07', 'control character'),
            ('X-A: del\x7f', 'control character'),
            ('NoColon', "'Name: value'"),
            (': empty name', 'empty header name'),
            ('X(A): 1', 'token'),
            ('Content-Length: 1', 'Content-Length'),
            ('transfer-encoding: chunked', 'Transfer-Encoding'),
            ('Content-Encoding: gzip', 'Content-Encoding'),
            ('content-type: text/plain', 'Content-Type'),
            ('ETag: "x"', 'ETag'),
            ('Content-Range: bytes 0-1/2', 'Content-Range'),
            ('Location: /elsewhere', 'Location'),
            ('/prefix-only', 'no header'),
            # No request's decoded, normalised path starts with these:
            # before, accepted and never applied.
            ('//pub/:X: 1', 'prefix'),
            ('/pub/../x:X: 1', 'prefix'),
            ('/p%75b/:X: 1', "'%' escapes"),
            ('/a\tb/:X: 1', 'prefix'),
            ('X-Long: ' + 'v' * 2000, 'longer'),
            ('X-Long: ' + 'v' * 20000, "vvv...': longer"),
        ]
        for arg, why in cases:
            with self.subTest(arg=arg[:80]):
                self.usage_error(['--header', arg], '--header', why)
        # All of them must leave room in a response head.
        many = []
        for i in range(10):
            many += ['--header', 'X-Big-%d: %s' % (i, 'v' * 1000)]
        self.usage_error(many, '--header', 'more than')


class CorsFlagTest(FlagTest):

    def test_any_origin(self):
        t = self.start('--cors', '*')
        r = self.get(t, '/a.txt', headers=[('Origin', 'https://x.example')])
        self.assertEqual(r.header('Access-Control-Allow-Origin'), '*')
        self.assertNotIn('Origin', ','.join(r.all('Vary')))
        # Errors too, so that a script can read them.
        r = self.get(t, '/missing')
        self.assertEqual(r.status, 404)
        self.assertEqual(r.header('Access-Control-Allow-Origin'), '*')
        t.server.stop()

    def test_one_origin_and_preflight(self):
        origin = 'https://app.example:8443'
        t = self.start('--cors', origin)
        r = self.get(t, '/a.txt', headers=[('Origin', origin)])
        self.assertEqual(r.header('Access-Control-Allow-Origin'), origin)
        vary = [v.strip() for line in r.all('Vary')
                for v in line.split(',')]
        self.assertIn('Origin', vary)
        self.assertIn('Accept-Encoding', vary)
        with t.conn() as c:
            c.send(build_request('OPTIONS', '/a.txt', headers=[
                ('Origin', origin),
                ('Access-Control-Request-Method', 'GET'),
                ('Access-Control-Request-Headers', 'x-token, range')]))
            r = c.read_response('OPTIONS')
            self.assertEqual(r.status, 204, r.describe())
            self.assertEqual(r.header('Access-Control-Allow-Origin'), origin)
            self.assertEqual(r.header('Access-Control-Allow-Methods'), ALLOW)
            self.assertEqual(r.header('Access-Control-Allow-Headers'),
                             'x-token, range')
            self.assertGreater(int(r.header('Access-Control-Max-Age')), 0)
            self.assertEqual(r.header('Allow'), ALLOW)
            self.assertIsNone(r.header('Content-Length'))
            c.send(build_request('GET', '/a.txt'))
            self.assertEqual(c.read_response().status, 200)
        # Without Access-Control-Request-Headers: none allowed.
        r = self.get(t, '/a.txt', 'OPTIONS', headers=[
            ('Origin', origin), ('Access-Control-Request-Method', 'GET')])
        self.assertEqual(r.status, 204)
        self.assertIsNone(r.header('Access-Control-Allow-Headers'))
        t.server.stop()

    def test_long_preflight_beside_headers(self):
        """A preflight asking for many request headers is answered beside
        --header lines within what khttpd takes (headers= and cors= add
        at most 384 bytes): khttpd built the head in its 1 KiB, found no
        room and closed the connection without a word."""
        t = self.start('--cors', '*', '--header', 'X-Pad: ' + 'v' * 300)
        asked = ','.join('x-hdr-%02d' % i for i in range(60))
        with t.conn() as c:
            c.send(build_request('OPTIONS', '/a.txt', headers=[
                ('Origin', 'https://o.example'),
                ('Access-Control-Request-Method', 'GET'),
                ('Access-Control-Request-Headers', asked)]))
            r = c.read_response('OPTIONS')
            self.assertEqual(r.status, 204, r.describe())
            self.assertEqual(r.header('Access-Control-Allow-Headers'), asked)
        t.server.stop()

    @needs_process('runs sehttpd with bad flags')
    def test_header_repeating_cors_refused_at_start(self):
        """A --header of what --cors sends would make two lines of it,
        which browsers refuse, whichever flag comes first."""
        for args in (['--cors', '*', '--header',
                      'Access-Control-Allow-Origin: *'],
                     ['--header', '/a/:access-control-allow-origin: x',
                      '--cors', 'https://a.example'],
                     ['--cors', '*', '--header',
                      'Access-Control-Max-Age: 60']):
            with self.subTest(args=args):
                self.usage_error(args, '--header', '--cors sets',
                                 'Access-Control-')
        # The rest of the family is the operator's to add.
        t = self.start('--cors', '*', '--header',
                       'Access-Control-Expose-Headers: X-Id')
        r = self.get(t, '/a.txt')
        self.assertEqual(r.all('Access-Control-Allow-Origin'), ['*'])
        self.assertEqual(r.header('Access-Control-Expose-Headers'), 'X-Id')
        t.server.stop()

    @needs_process('runs sehttpd with bad flags')
    def test_bad_origins_refused_at_start(self):
        for origin in ('https://a.example/', 'a.example', 'https://',
                       'https://a b', '', 'https://a.example?x=1',
                       'https://a.example#x', 'https://user@a.example',
                       'https://a.example/path', 'https://a.example:',
                       'ht tp://a.example'):
            with self.subTest(origin=origin):
                self.usage_error(['--cors', origin], '--cors')


class IndexFlagTest(FlagTest):

    def test_first_existing_wins(self):
        tree = session_tree()
        t = self.start('--index', 'index.htm', '--index', 'index.html')
        self.assertEqual(self.get(t, '/dir_both/').body,
                         tree.files['/dir_both/index.htm'])
        self.assertEqual(self.get(t, '/dir_index/').body,
                         tree.files['/dir_index/index.html'])
        t.server.stop()

    def test_replaces_the_defaults(self):
        t = self.start('--index', 'other.txt')
        r = self.get(t, '/dir_index/')
        self.assertEqual(r.body, session_tree().files['/dir_index/other.txt'])
        r = self.get(t, '/dir_htm/')
        self.assertIn(b'index.htm', r.body)  # a listing, not the page
        self.assertNotEqual(r.body,
                            session_tree().files['/dir_htm/index.htm'])
        t.server.stop()

    @needs_process('runs sehttpd with bad flags')
    def test_bad_names_refused(self):
        for name in ('a/b', '', '..'):
            with self.subTest(name=name):
                self.usage_error(['--index', name], '--index')


class PagesFlagTest(FlagTest):

    def site(self):
        root = os.path.join(temp_dir(), 'www')
        for rel, data in (('index.html', b'<p>home</p>\n'),
                          ('app/index.html', b'<p>the app</p>\n'),
                          ('app/app.js', b'var app;\n'),
                          ('errors/404.html', b'<p>our 404 page</p>\n'),
                          ('errors/403.txt', b'our 403 text\n'),
                          ('errors/405.html', b'<p>our 405</p>\n'),
                          ('.env', b'SECRET\n')):
            path = os.path.join(root, rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, 'wb') as fh:
                fh.write(data)
        os.symlink('/etc/hostname', os.path.join(root, 'out'))
        return root

    def test_error_pages(self):
        t = self.start('--error-page', '404=/errors/404.html',
                       '--error-page', '403=/errors/403.txt',
                       '--error-page', '405=/errors/405.html',
                       root=self.site())
        for path in ('/missing.html', '/nope/', '/.env'):
            with self.subTest(path=path):
                r = self.get(t, path)
                self.assertEqual((r.status, r.body),
                                 (404, b'<p>our 404 page</p>\n'))
                self.assertTrue(r.header('Content-Type')
                                .startswith('text/html'))
        r = self.get(t, '/missing.html', 'HEAD')
        self.assertEqual((r.status, r.body), (404, b''))
        self.assertEqual(r.header('Content-Length'), '20')
        r = self.get(t, '/out')
        self.assertEqual((r.status, r.body), (403, b'our 403 text\n'))
        self.assertTrue(r.header('Content-Type').startswith('text/plain'))
        r = self.get(t, '/', 'POST')
        self.assertEqual((r.status, r.body), (405, b'<p>our 405</p>\n'))
        self.assertEqual(r.header('Allow'), ALLOW)
        # Keep-alive as for the built-in pages.
        with t.conn() as c:
            c.send(build_request('GET', '/missing') +
                   build_request('GET', '/'))
            self.assertEqual(c.read_response().status, 404)
            self.assertEqual(c.read_response().body, b'<p>home</p>\n')
        t.server.stop()

    def test_pages_for_a_precondition_or_a_range(self):
        """A 412 or 416 of a file, cached or listed, gets the page for
        it with its head (Content-Range, ETag), on both servers (khttpd
        sent its built-in empty body, found by sending the same requests
        to both)."""
        root = self.site()
        for code in (412, 416):
            with open(os.path.join(root, 'errors', '%d.txt' % code),
                      'wb') as fh:
                fh.write(b'our %d\n' % code)
        t = self.start('--error-page', '412=/errors/412.txt',
                       '--error-page', '416=/errors/416.txt', root=root)
        for _ in range(2):  # the second from the cache
            r = self.get(t, '/app/app.js', headers=[('Range', 'bytes=100-')])
            self.assertEqual((r.status, r.body), (416, b'our 416\n'),
                             r.describe())
            self.assertEqual(r.header('Content-Range'), 'bytes */9')
            self.assertTrue(r.header('Content-Type')
                            .startswith('text/plain'))
            r = self.get(t, '/app/app.js', headers=[('If-Match', '"x"')])
            self.assertEqual((r.status, r.body), (412, b'our 412\n'),
                             r.describe())
            self.assertIsNotNone(r.header('ETag'))
            r = self.get(t, '/app/app.js', 'HEAD',
                         headers=[('If-Match', '"x"')])
            self.assertEqual((r.status, r.body), (412, b''))
            self.assertEqual(r.header('Content-Length'), '8')
            r = self.get(t, '/errors/', headers=[('If-Match', '"x"')])
            self.assertEqual((r.status, r.body), (412, b'our 412\n'),
                             r.describe())
        # Keep-alive as for the built-in pages.
        with t.conn() as c:
            c.send(build_request('GET', '/app/app.js',
                                 headers=[('If-Match', '"x"')]) +
                   build_request('GET', '/'))
            self.assertEqual(c.read_response().body, b'our 412\n')
            self.assertEqual(c.read_response().body, b'<p>home</p>\n')
        t.server.stop()

    @sehttpd_only('error pages for statuses of the request line (its '
                  '412 and 416: test_pages_for_a_precondition_or_a_range)')
    def test_pages_for_every_status_named(self):
        """The page answers every status it is named for, as sehttpd(1)
        says: also the 412 and 416 of a precondition or a range, with
        their heads (Content-Range), and what is refused before a path is
        routed (400 without Host, 414, 431, 501, 505), from ROOT.  Before,
        those got the built-in page."""
        root = self.site()
        codes = (400, 412, 414, 416, 431, 501, 505)
        for code in codes:
            with open(os.path.join(root, 'errors', '%d.txt' % code),
                      'wb') as fh:
                fh.write(b'our %d\n' % code)
        args = []
        for code in codes:
            args += ['--error-page', '%d=/errors/%d.txt' % (code, code)]
        t = self.start(*args, root=root)
        r = self.get(t, '/app/app.js', headers=[('Range', 'bytes=100-')])
        self.assertEqual((r.status, r.body), (416, b'our 416\n'))
        self.assertEqual(r.header('Content-Range'), 'bytes */9')
        self.assertTrue(r.header('Content-Type').startswith('text/plain'))
        r = self.get(t, '/app/app.js', headers=[('If-Match', '"x"')])
        self.assertEqual((r.status, r.body), (412, b'our 412\n'))
        r = self.get(t, '/app/app.js', 'HEAD',
                     headers=[('If-Match', '"x"')])
        self.assertEqual((r.status, r.body), (412, b''))
        self.assertEqual(r.header('Content-Length'), '8')
        for raw, code in (
                (b'GET / HTTP/1.1\r\n\r\n', 400),
                (b'GET /' + b'a' * 20000 + b' HTTP/1.1\r\nHost: x\r\n\r\n',
                 414),
                (b'GET / HTTP/1.1\r\nHost: x\r\nX: ' + b'a' * 20000 +
                 b'\r\n\r\n', 431),
                (b'GET / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, '
                 b'chunked\r\n\r\n0\r\n\r\n', 501),
                (b'GET / HTTP/2.5\r\nHost: x\r\n\r\n', 505)):
            with self.subTest(code=code):
                with t.conn() as c:
                    c.send(raw)
                    r = c.read_response()
                self.assertEqual((r.status, r.body),
                                 (code, b'our %d\n' % code))
        t.server.stop()

    def test_pages_that_are_links_to_dot_names(self):
        """An --error-page or --spa page that is a link to a dot name is
        not shown (the built-in page, or 404), as the name itself is not;
        a page the operator gave by a dot name is.  Before, both servers
        answered every 404 and every route with the linked .env."""
        root = self.site()
        os.symlink('../.env', os.path.join(root, 'errors', 'env.html'))
        os.symlink('../.env', os.path.join(root, 'app', 'env.html'))
        os.makedirs(os.path.join(root, '.pages'))
        with open(os.path.join(root, '.pages', '404.html'), 'wb') as fh:
            fh.write(b'<p>dot page</p>\n')
        t = self.start('--error-page', '404=/errors/env.html',
                       '--spa', '/app/env.html', root=root)
        for path in ('/missing.html', '/users/42'):
            with self.subTest(path=path):
                r = self.get(t, path)
                self.assertEqual(r.status, 404, r.describe())
                self.assertNotIn(b'SECRET', r.body)
        t.server.stop()
        t = self.start('--error-page', '404=/.pages/404.html', root=root)
        r = self.get(t, '/missing.html')
        self.assertEqual((r.status, r.body), (404, b'<p>dot page</p>\n'))
        t.server.stop()

    def test_pages_typed_like_files(self):
        """--mime names the type of error and SPA pages as of any file."""
        root = self.site()
        for rel in ('errors/404.page', 'app/shell.page'):
            with open(os.path.join(root, rel), 'wb') as fh:
                fh.write(b'<p>page</p>\n')
        t = self.start('--error-page', '404=/errors/404.page',
                       '--spa', '/app/shell.page',
                       '--mime', 'page=text/html', root=root)
        for path, status in (('/missing.js', 404), ('/users/42', 200)):
            with self.subTest(path=path):
                r = self.get(t, path)
                self.assertEqual(r.status, status, r.describe())
                self.assertEqual(r.header('Content-Type'),
                                 'text/html; charset=utf-8')
        t.server.stop()

    @needs_process('runs sehttpd with bad flags')
    def test_missing_or_bad_error_page_refused_at_start(self):
        root = self.site()
        for arg, why in (('404=/errors/none.html', 'No such file'),
                         ('404=/errors', 'directory'),
                         ('200=/index.html', 'CODE'),
                         ('4044=/index.html', 'CODE'),
                         ('404=index.html', "from '/'"),
                         ('404=/../index.html', "from '/'")):
            with self.subTest(arg=arg):
                rc, _, err = run_cli(['--error-page', arg, root])
                self.assertEqual(rc, 2, err)
                self.assertEqual(len(err.splitlines()), 1, err)
                self.assertIn('--error-page', err)
                self.assertIn(why, err)

    @needs_process('runs sehttpd with bad flags')
    def test_error_page_over_1mib_refused_at_start(self):
        """A page over the limit would silently become the built-in one
        on every error: refused at start-up; one at the limit serves."""
        root = self.site()
        for name, size in (('big.html', (1 << 20) + 1),
                           ('edge.html', 1 << 20)):
            with open(os.path.join(root, 'errors', name), 'wb') as fh:
                fh.write(b'x' * size)
        rc, _, err = run_cli(['-b', '127.0.0.1', '-p', '0',
                              '--error-page', '404=/errors/big.html', root])
        self.assertEqual(rc, 2, err)
        self.assertEqual(len(err.splitlines()), 1, err)
        self.assertIn('--error-page 404=/errors/big.html', err)
        self.assertIn('1 MiB', err)
        t = self.start('--error-page', '404=/errors/edge.html', root=root)
        r = self.get(t, '/missing')
        self.assertEqual((r.status, len(r.body)), (404, 1 << 20))
        t.server.stop()

    def test_spa_fallback(self):
        t = self.start('--spa', '/app/index.html',
                       '--error-page', '404=/errors/404.html',
                       root=self.site())
        for path in ('/users/42', '/app/settings/', '/deep/a/b/c'):
            with self.subTest(path=path):
                r = self.get(t, path)
                self.assertEqual((r.status, r.body),
                                 (200, b'<p>the app</p>\n'), r.describe())
                self.assertTrue(r.header('Content-Type')
                                .startswith('text/html'))
        r = self.get(t, '/users/42', 'HEAD')
        self.assertEqual((r.status, r.body), (200, b''))
        # What exists is served as it is.
        self.assertEqual(self.get(t, '/app/app.js').body, b'var app;\n')
        self.assertEqual(self.get(t, '/').body, b'<p>home</p>\n')
        # A missing file (with an extension) and a hidden path stay 404.
        for path in ('/app/missing.js', '/favicon.ico', '/.env', '/.git/x'):
            with self.subTest(path=path):
                r = self.get(t, path)
                self.assertEqual((r.status, r.body),
                                 (404, b'<p>our 404 page</p>\n'))
        self.assertEqual(self.get(t, '/users/42', 'POST').status, 405)
        t.server.stop()

    def test_spa_page_compressed_as_by_name(self):
        """A route gets the page in the coding it gets when asked for by
        name, with the same ETag: an app's routes are most of its hits
        (sehttpd sent them identity, from the file, every time)."""
        root = self.site()
        page = b''.join(b'<p>line %d of the app shell</p>\n' % i
                        for i in range(400))
        with open(os.path.join(root, 'app', 'shell.html'), 'wb') as fh:
            fh.write(page)
        t = self.start('--spa', '/app/shell.html', root=root)
        gz = [('Accept-Encoding', 'gzip')]
        by_name = self.get(t, '/app/shell.html', headers=gz)
        self.assertEqual(by_name.header('Content-Encoding'), 'gzip',
                         by_name.describe())
        for path in ('/users/42', '/settings', '/users/42'):
            with self.subTest(path=path):
                r = self.get(t, path, headers=gz)
                self.assertEqual(r.status, 200, r.describe())
                self.assertEqual(r.header('Content-Encoding'), 'gzip',
                                 r.describe())
                self.assertEqual(gzip.decompress(r.body), page)
                self.assertEqual(r.header('ETag'), by_name.header('ETag'))
                self.assertIn('accept-encoding',
                              (r.header('Vary') or '').lower())
                r = self.get(t, path)
                self.assertEqual((r.status, r.body), (200, page))
                self.assertIsNone(r.header('Content-Encoding'))
        t.server.stop()

    @needs_process('runs sehttpd with bad flags')
    def test_missing_spa_page_refused_at_start(self):
        root = self.site()
        for arg, why in (('/none.html', 'No such file'),
                         ('/app', 'directory'),
                         ('app/index.html', "from '/'")):
            with self.subTest(arg=arg):
                rc, _, err = run_cli(['--spa', arg, root])
                self.assertEqual(rc, 2, err)
                self.assertEqual(len(err.splitlines()), 1, err)
                self.assertIn('--spa', err)
                self.assertIn(why, err)


class FileFlagTest(FlagTest):

    def test_dotfiles_served_and_listed(self):
        tree = session_tree()
        t = self.start('--dotfiles')
        for path in ('/.env', '/.git/config', '/dots/.hidden.txt',
                     '/dots/.dir/x.txt', '/.well-known/.hidden', '/..foo',
                     '/dots/.well-known/x.txt'):
            with self.subTest(path=path):
                r = self.get(t, path)
                self.assertEqual((r.status, r.body), (200, tree.files[path]))
        names = listed_names(self.get(t, '/dots/').body)
        self.assertEqual(names, {'visible.txt', '.hidden.txt', '.dir',
                                 '.well-known'})
        self.assertEqual(listed_names(self.get(t, '/.git/').body),
                         {'config'})
        t.server.stop()

    def test_dot_names_behind_a_mount_are_404(self):
        """A dot-named directory that is, or holds, a mount point, reached
        by a link with a visible name, stays hidden, and links to it stay
        out of listings.  Before, khttpd's walk up from the file stopped at
        the mount's own root: /pub/s.txt was served and /lst/ listed it."""
        root = os.path.join(temp_dir(), 'www')
        for rel in ('.priv', '.git3/m', 'lst'):
            os.makedirs(os.path.join(root, rel))
        with open(os.path.join(root, 'lst', 'c.txt'), 'wb') as fh:
            fh.write(b'visible\n')
        os.symlink('.priv', os.path.join(root, 'pub'))
        os.symlink('.git3/m', os.path.join(root, 'pub3'))
        os.symlink('../.priv/s.txt', os.path.join(root, 'lst', 'a.txt'))
        os.symlink('../.git3/m/x.txt', os.path.join(root, 'lst', 'b.txt'))
        t = self.start('--index', 'none.html', root=root)
        mounted = []

        def unmount():
            for rel in reversed(mounted):
                t.shell('umount ' + rel)
        self.addCleanup(unmount)
        for rel, name in (('.priv', 's.txt'), ('.git3/m', 'x.txt')):
            out, rc = t.shell('mount -t tmpfs none {0} && chmod 755 {0} && '
                              'echo SECRET > {0}/{1} && chmod 644 {0}/{1}'
                              .format(rel, name))
            if rc:
                self.skipTest('no tmpfs mounted here: ' + out)
            mounted.append(rel)
        for path in ('/pub/s.txt', '/pub/', '/pub3/x.txt', '/pub3/',
                     '/lst/a.txt', '/lst/b.txt'):
            with self.subTest(path=path):
                r = self.get(t, path)
                self.assertEqual(r.status, 404, r.describe())
                self.assertNotIn(b'SECRET', r.body)
        self.assertEqual(listed_names(self.get(t, '/lst/').body), {'c.txt'})
        t.server.stop()

    def test_well_known_linked_to_git_is_404(self):
        """A ROOT whose .well-known is a link to .git serves none of it,
        nor lists it; with --dotfiles both are what they are."""
        root = os.path.join(temp_dir(), 'www')
        os.makedirs(os.path.join(root, '.git'))
        with open(os.path.join(root, '.git', 'config'), 'wb') as fh:
            fh.write(b'[core]\nSECRET-URL\n')
        with open(os.path.join(root, 'page.txt'), 'wb') as fh:
            fh.write(b'page\n')
        os.symlink('.git', os.path.join(root, '.well-known'))
        t = self.start('--index', 'none.html', root=root)
        for path in ('/.well-known/config', '/.well-known/'):
            with self.subTest(path=path):
                r = self.get(t, path)
                self.assertEqual(r.status, 404, r.describe())
                self.assertNotIn(b'SECRET-URL', r.body)
        self.assertEqual(listed_names(self.get(t, '/').body), {'page.txt'})
        t.server.stop()
        t = self.start('--dotfiles', '--index', 'none.html', root=root)
        r = self.get(t, '/.well-known/config')
        self.assertEqual((r.status, r.body), (200, b'[core]\nSECRET-URL\n'))
        self.assertEqual(listed_names(self.get(t, '/').body),
                         {'page.txt', '.git', '.well-known'})
        t.server.stop()

    def test_well_known_listed_in_root(self):
        """ROOT's listing (no index: --index names none) shows
        .well-known, which is served, and no other dot name."""
        t = self.start('--index', 'none.html')
        r = self.get(t, '/')
        self.assertEqual(r.status, 200, r.describe())
        names = listed_names(r.body)
        self.assertIn('.well-known', names)
        self.assertIn('dots', names)
        self.assertEqual({n for n in names if n.startswith('.')},
                         {'.well-known'})
        self.assertEqual(listed_names(self.get(t, '/.well-known/').body),
                         {'security.txt'})
        self.assertEqual(listed_names(self.get(t, '/dots/').body),
                         {'visible.txt'})
        t.server.stop()

    def test_follow_symlinks(self):
        tree = session_tree()
        t = self.start('--follow-symlinks')
        r = self.get(t, '/link_secret.txt')
        self.assertEqual(r.status, 200, r.describe())
        self.assertEqual(r.body, tree.secret_marker + b'\n')
        r = self.get(t, '/link_outside/other.txt')
        self.assertEqual(r.status, 200, r.describe())
        r = self.get(t, '/link_outside/')
        self.assertEqual(r.status, 200, r.describe())
        self.assertIn('secret.txt', listed_names(r.body))
        # Request paths still cannot climb out.
        self.assertEqual(self.get(t, '/../outside/secret.txt').status, 400)
        t.server.stop()

    def test_symlinks_out_refused_by_default(self):
        t = self.start()
        for path in ('/link_secret.txt', '/link_outside/other.txt'):
            with self.subTest(path=path):
                r = self.get(t, path)
                self.assertEqual(r.status, 403, r.describe())
                self.assertNotIn(session_tree().secret_marker, r.body)
        t.server.stop()


if __name__ == '__main__':
    unittest.main()
