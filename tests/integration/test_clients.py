"""Real clients: curl and wget fetch files, follow redirects and read
listings; curl over IPv6."""

import os
import shutil
import subprocess
import unittest

from target import (ServerTestCase, needs_process, session_tree,
                    start_server, temp_dir)

CLIENT_TIMEOUT = 30
ENV = {k: v for k, v in os.environ.items()
       if not k.lower().endswith('_proxy')}


def run(cmd):
    p = subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, env=ENV,
                       timeout=CLIENT_TIMEOUT + 5)
    return p.returncode, p.stdout, p.stderr.decode('utf-8', 'replace')


def base_url(target):
    return 'http://%s/' % target.hostport


@unittest.skipUnless(shutil.which('curl'), 'curl is not installed')
class CurlTest(ServerTestCase):
    FILES = ['/a.txt', '/big/1m.bin', '/big/10m.bin', '/mime/image.png',
             '/escape/space name.txt', '/escape/\u00fcn\u00efc\u00f6d\u00e9'
             '.txt', '/empty.txt']

    def curl(self, *args):
        return run(['curl', '-sS', '--max-time', str(CLIENT_TIMEOUT)] +
                   list(args))

    def url(self, path):
        return base_url(self.target) + self.tree.url(path).lstrip('/')

    def test_files(self):
        out = os.path.join(temp_dir(), 'out')
        for path in self.FILES:
            for extra in ([], ['--http1.0']):
                with self.subTest(path=path, extra=extra):
                    rc, code, err = self.curl(*extra, '-o', out, '-w',
                                              '%{http_code}', self.url(path))
                    self.assertEqual((rc, code), (0, b'200'), err)
                    with open(out, 'rb') as fh:
                        self.assertEqual(fh.read(), self.tree.files[path])

    def test_follows_redirect_to_listing(self):
        rc, body, err = self.curl('-L', '-w', '\n%{num_redirects} '
                                  '%{http_code} %{url_effective}',
                                  self.url('/dir_noindex'))
        self.assertEqual(rc, 0, err)
        page, _, info = body.rpartition(b'\n')
        self.assertEqual(info.split()[:2], [b'1', b'200'])
        self.assertTrue(info.endswith(b'/dir_noindex/'), info)
        self.assertIn(b'size777.txt', page)
        self.assertIn(b'adir/', page)

    def test_listing_and_connection_reuse(self):
        rc, body, err = self.curl('-v', self.url('/many/'), self.url('/a.txt'),
                                  self.url('/escape/'))
        self.assertEqual(rc, 0, err)
        self.assertIn(b'file_099.txt', body)
        self.assertIn(self.tree.files['/a.txt'], body)
        self.assertIn('Re-using existing connection', err,
                      'curl did not keep the connection alive')

    def test_head(self):
        rc, head, err = self.curl('-I', self.url('/big/10m.bin'))
        self.assertEqual(rc, 0, err)
        self.assertIn(b'200', head.split(b'\r\n')[0])
        self.assertIn(b'\r\nContent-Length: %d\r\n' % (10 << 20), head)

    def test_404_fails(self):
        rc, _, err = self.curl('-f', '-o', '/dev/null', self.url('/nope'))
        self.assertEqual(rc, 22, 'curl -f should fail on a 404: ' + err)


@unittest.skipUnless(shutil.which('wget'), 'wget is not installed')
class WgetTest(ServerTestCase):

    def wget(self, *args):
        return run(['wget', '-q', '--no-proxy', '--tries=1',
                    '--timeout=%d' % CLIENT_TIMEOUT] + list(args))

    def url(self, path):
        return base_url(self.target) + self.tree.url(path).lstrip('/')

    def test_files(self):
        out = os.path.join(temp_dir(), 'out')
        for path in ('/a.txt', '/big/10m.bin', '/mime/data.json',
                     '/escape/space name.txt', '/empty.txt'):
            with self.subTest(path=path):
                rc, _, err = self.wget('-O', out, self.url(path))
                self.assertEqual(rc, 0, err)
                with open(out, 'rb') as fh:
                    self.assertEqual(fh.read(), self.tree.files[path])

    def test_follows_redirect_to_listing(self):
        rc, body, err = self.wget('-O', '-', self.url('/dir_noindex'))
        self.assertEqual(rc, 0, err)
        self.assertIn(b'size777.txt', body)

    def test_recursive_mirror_of_listing(self):
        out = temp_dir()
        rc, _, err = self.wget('-r', '-np', '-nH', '-e', 'robots=off',
                               '-P', out, self.url('/dir_noindex/'))
        self.assertEqual(rc, 0, err)
        for path in ('/dir_noindex/a.txt', '/dir_noindex/size777.txt',
                     '/dir_noindex/adir/inner.txt'):
            with open(os.path.join(out, path.lstrip('/')), 'rb') as fh:
                self.assertEqual(fh.read(), self.tree.files[path])

    def test_404_fails(self):
        rc, _, _ = self.wget('-O', '/dev/null', self.url('/nope'))
        self.assertEqual(rc, 8, 'wget exit status 8 is a server error')


@needs_process('starts sehttpd on ::1')
@unittest.skipUnless(shutil.which('curl'), 'curl is not installed')
class CurlIpv6Test(unittest.TestCase):

    def test_curl_ipv6(self):
        tree = session_tree()
        target = start_server(tree=tree, bind='::1')
        self.addCleanup(target.server.kill)
        self.assertEqual(target.host, '::1')
        out = os.path.join(temp_dir(), 'out')
        rc, code, err = run(['curl', '-sS', '-g', '--max-time',
                             str(CLIENT_TIMEOUT), '-o', out, '-w',
                             '%{http_code}',
                             'http://[::1]:%d/big/1m.bin' % target.port])
        self.assertEqual((rc, code), (0, b'200'), err)
        with open(out, 'rb') as fh:
            self.assertEqual(fh.read(), tree.files['/big/1m.bin'])
        target.stop()
