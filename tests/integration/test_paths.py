"""Request paths: percent-decoding, dot-segments, traversal attempts,
symlinks, repeated slashes and query strings."""

import urllib.parse

from httpraw import build_request
from target import ServerTestCase
import tree as treemod

ETC_PASSWD_MARK = b'root:x:0:0'

# Each would climb above ROOT once decoded and resolved: 400.
CLIMBING = [
    '/..', '/../', '/../x', '/../outside/secret.txt', '/a/../../x',
    '/a/../../outside/secret.txt', '/a/b/../../../outside/secret.txt',
    '/./../outside/secret.txt', '/%2e%2e/', '/%2e%2e/outside/secret.txt',
    '/%2E%2E/outside/secret.txt', '/.%2e/outside/secret.txt',
    '/%2e./outside/secret.txt', '/..%2f..%2f', '/..%2foutside%2fsecret.txt',
    '/%2e%2e%2fetc%2fpasswd', '/%2e%2e%2f%2e%2e%2f%2e%2e%2fetc%2fpasswd',
    '/a/%2e%2e/%2e%2e/outside/secret.txt', '/../../../../../../etc/passwd',
    '/..%2F..%2F..%2F..%2Fetc%2Fpasswd', '/%2e%2e', '/a/%2e%2e%2f%2e%2e',
]


class PathsTest(ServerTestCase):

    def assert_no_leak(self, resp):
        self.assertNotIn(self.tree.secret_marker, resp.body,
                         'served a file outside ROOT')
        self.assertNotIn(ETC_PASSWD_MARK, resp.body, 'served /etc/passwd')

    def expect_file(self, target, url):
        with self.conn() as c:
            c.send(build_request('GET', target))
            self.assert_file(c.read_response(), url, ' for ' + target)
            c.send(build_request('GET', '/b.txt'))
            self.assert_file(c.read_response(), '/b.txt')

    def test_root_serves_index(self):
        resp = self.get('/')
        self.assertEqual(resp.status, 200)
        self.assertEqual(resp.body, self.tree.files['/index.html'])
        self.assertEqual(resp.header('Content-Type'),
                         'text/html; charset=utf-8')

    def test_percent_decoding(self):
        cases = [('/%41.txt', '/A.txt'), ('/%2541.txt', '/%41.txt'),
                 ('/%61.txt', '/a.txt'), ('/%61%2E%74%78%74', '/a.txt'),
                 ('/%61%2e%74%78%74', '/a.txt'),
                 ('/dir%5Fnoindex/a.txt', '/dir_noindex/a.txt'),
                 ('/dir_noindex/%5fu.txt', '/dir_noindex/_u.txt'),
                 ('/escape/percent%2541.txt', '/escape/percent%41.txt')]
        for target, url in cases:
            with self.subTest(target=target):
                self.expect_file(target, url)

    def test_percent_encoded_names(self):
        for name in treemod.ESCAPE_NAMES:
            url = '/escape/' + name
            for target in (urllib.parse.quote(url),
                           urllib.parse.quote(url, safe="/'&")):
                with self.subTest(target=target):
                    self.expect_file(target, url)

    def test_percent_decoded_once_only(self):
        # %2541 is "%41" literally, never "A" (no double decoding).
        resp = self.get('/%2541.txt')
        self.assertEqual(resp.body, self.tree.files['/%41.txt'])
        resp = self.get('/%252e%252e/outside/secret.txt')
        self.assert_no_leak(resp)
        self.assert_error(resp, 404)

    def test_nul_escape_400(self):
        for target in ('/a.txt%00', '/a%00.txt', '/%00', '/%00/../a.txt'):
            with self.subTest(target=target), self.conn() as c:
                c.send(build_request('GET', target))
                self.assert_error(c.read_response(), 400)
                self.assert_closed(c)

    def test_bad_escapes_400(self):
        for target in ('/%zz', '/%4', '/a.txt%', '/%4g.txt', '/%%41.txt',
                       '/%g1', '/a%2.txt', '/%-1'):
            with self.subTest(target=target), self.conn() as c:
                c.send(build_request('GET', target))
                self.assert_error(c.read_response(), 400)
                self.assert_closed(c)

    def test_dot_segments(self):
        cases = [('/a/./b/../c', '/a/c'), ('/./a.txt', '/a.txt'),
                 ('/a/b/../../a.txt', '/a.txt'), ('/a/b/./x.txt',
                                                  '/a/b/x.txt'),
                 ('/a/%2e/c', '/a/c'), ('/a/b/%2e%2e/c', '/a/c'),
                 ('/a/b/%2E%2E/c', '/a/c'), ('/a/./././c', '/a/c'),
                 ('/mime/../a.txt', '/a.txt'), ('/a/b/../../b.txt',
                                                '/b.txt')]
        for target, url in cases:
            with self.subTest(target=target):
                self.expect_file(target, url)

    def test_climbing_above_root_400(self):
        for target in CLIMBING:
            with self.subTest(target=target), self.conn() as c:
                c.send(build_request('GET', target))
                resp = c.read_response()
                self.assert_no_leak(resp)
                self.assert_error(resp, 400)

    def test_climbing_in_absolute_form_400(self):
        for path in ('/../outside/secret.txt', '/%2e%2e/outside/secret.txt',
                     '/a/../../outside/secret.txt'):
            tgt = 'http://%s%s' % (self.target.hostport, path)
            with self.subTest(target=tgt):
                resp = self.send(build_request('GET', tgt))
                self.assert_no_leak(resp)
                self.assert_error(resp, 400)

    def test_climbing_with_head(self):
        for target in CLIMBING[:6]:
            with self.subTest(target=target):
                resp = self.send(build_request('HEAD', target), 'HEAD')
                self.assertEqual(resp.status, 400)

    def test_dotdot_prefixed_name_is_a_hidden_name(self):
        """"..foo" is a name, not a climb (404, never 400): a hidden one,
        served with --dotfiles (test_site)."""
        for target in ('/..foo', '/%2e%2efoo', '/a/../..foo', '/...'):
            with self.subTest(target=target):
                self.assert_error(self.get(target), 404)

    def test_symlink_inside_root_served(self):
        self.expect_file('/link_inside.txt', '/a.txt')

    def test_symlinks_out_of_root_not_served(self):
        for target in ('/link_secret.txt', '/link_outside/secret.txt',
                       '/link_outside/other.txt', '/link_outside/',
                       '/link_outside', '/link_etc/passwd', '/link_etc/',
                       '/link_etc', '/link_etc/hostname'):
            for method in ('GET', 'HEAD'):
                with self.subTest(target=target, method=method):
                    resp = self.send(build_request(method, target), method)
                    self.assert_no_leak(resp)
                    self.assertIn(resp.status, (403, 404),
                                  '%s %s\n%s' % (method, target,
                                                 resp.describe()))
                    if method == 'GET':
                        self.assert_error(resp, resp.status)

    def test_symlinks_leaving_root_refused_with_403(self):
        """A symlink whose target leaves ROOT is refused as openat2's
        RESOLVE_BENEATH refuses it: relative ones climbing out, and every
        absolute one, even where ROOT holds the path it names (no chroot)."""
        for target in ('/link_secret.txt', '/link_outside/secret.txt',
                       '/link_outside/', '/link_outside', '/link_etc/',
                       '/link_etc/passwd', '/abslinks/to_file.txt',
                       '/abslinks/to_dir', '/abslinks/to_dir/',
                       '/abslinks/to_dir/a.txt'):
            for method in ('GET', 'HEAD'):
                with self.subTest(target=target, method=method):
                    resp = self.send(build_request(method, target), method)
                    self.assert_no_leak(resp)
                    self.assertEqual(resp.status, 403, '%s %s\n%s' % (
                        method, target, resp.describe()))
                    if method == 'GET':
                        self.assert_error(resp, 403)

    def test_repeated_slashes(self):
        cases = [('//index.html', '/index.html'), ('//a.txt', '/a.txt'),
                 ('/a//c', '/a/c'), ('///a///c', '/a/c'),
                 ('/dir_noindex//a.txt', '/dir_noindex/a.txt')]
        for target, url in cases:
            with self.subTest(target=target):
                self.expect_file(target, url)

    def test_query_ignored(self):
        for target in ('/a.txt?x=1', '/a.txt?', '/a.txt?a=b&c=d',
                       '/a.txt?../../outside/secret.txt', '/a.txt?x=%zz',
                       '/a.txt?/../../x', '/%61.txt?q=%41'):
            with self.subTest(target=target):
                self.expect_file(target, '/a.txt')
        resp = self.get('/?x=1')
        self.assertEqual(resp.body, self.tree.files['/index.html'])

    def test_not_found_404_keep_alive(self):
        with self.conn() as c:
            for target in ('/nope.txt', '/mime/nope.css', '/nope/deeper/x',
                           '/a.txt/x', '/empty/x'):
                c.send(build_request('GET', target))
                self.assert_error(c.read_response(), 404)
                self.assert_open(c, ' after a 404')
            c.send(build_request('GET', '/a.txt'))
            self.assert_file(c.read_response(), '/a.txt', ' after 404s')
