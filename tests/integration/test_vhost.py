"""--vhost NAME=DIR: requests for a host served from its own directory,
confined there, with its own cache entries, the site's rules applied
there, and Host headers that try to reach another site answered by ROOT."""

import os
import re
import shutil
import subprocess
import unittest

from httpraw import build_request
from target import (needs_process, nobody_bin, start_server, temp_dir)
from test_cli import run_cli

CLIENT_TIMEOUT = 10


def write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, 'wb') as fh:
        fh.write(data.encode() if isinstance(data, str) else data)


def make_sites():
    """ROOT and two vhost directories, side by side, each with the same
    names holding different bytes."""
    base = temp_dir('sehttpd-vhost-')
    sites = {}
    for site in ('root', 'a', 'b'):
        d = os.path.join(base, site)
        sites[site] = d
        write(os.path.join(d, 'index.html'), 'index of %s\n' % site)
        write(os.path.join(d, 'same.txt'), 'same.txt of %s\n' % site)
        write(os.path.join(d, 'dir', '%s-only.txt' % site), site)
        write(os.path.join(d, '404.html'), '404 page of %s\n' % site)
        write(os.path.join(d, '.env'), 'DOTFILE-%s\n' % site)
        write(os.path.join(d, '.git', 'config'), '[core] %s\n' % site)
        write(os.path.join(d, '.well-known', 'security.txt'),
              'security.txt of %s\n' % site)
        os.symlink('.git/config', os.path.join(d, 'innocent'))
        os.symlink('../.git/config', os.path.join(d, 'dir', 'innocent'))
    # Siblings: a link from one site into another leads out of its DIR.
    os.symlink('../a/same.txt', os.path.join(sites['b'], 'to-a.txt'))
    os.symlink(os.path.join(sites['a'], 'dir'),
               os.path.join(sites['b'], 'abs-to-a'))
    write(os.path.join(sites['root'], 'root-only.txt'), 'root only\n')
    return base, sites


def listed_names(body):
    return {h.rstrip('/') for h in
            re.findall(r'href="([^"?#]*)"', body.decode('utf-8', 'replace'))
            if h not in ('../', '/', './')}


class VhostCase(unittest.TestCase):
    """One server for the class: a.test and *.b.test, ROOT for the rest."""

    extra_args = ()

    @classmethod
    def setUpClass(cls):
        cls.base, cls.sites = make_sites()
        args = ['-t', '1', '--vhost', 'a.test=' + cls.sites['a'],
                '--vhost', '*.B.test.=' + cls.sites['b']] + \
            list(cls.extra_args)
        cls.target = start_server(args, root=cls.sites['root'])
        cls.addClassCleanup(cls.target.server.kill)

    def get(self, path='/', host='test', method='GET', headers=(),
            version='HTTP/1.1'):
        with self.target.conn() as c:
            c.send(build_request(method, path, version=version, host=host,
                                 headers=headers))
            return c.read_response(method)

    def assert_site(self, resp, site, path='/', what=''):
        name = 'index.html' if path == '/' else path.lstrip('/')
        self.assertEqual(resp.status, 200, '%s %s\n%s'
                         % (what, path, resp.describe()))
        with open(os.path.join(self.sites[site], name), 'rb') as fh:
            self.assertEqual(resp.body, fh.read(), '%s: not %s\'s %s'
                             % (what, site, path))


@needs_process('starts sehttpd with --vhost')
class VhostTest(VhostCase):

    def test_names_pick_their_directory(self):
        for host, site in (('a.test', 'a'), ('x.b.test', 'b'),
                           ('x.y.b.test', 'b'), ('b.test', 'root'),
                           ('test', 'root'), ('a.test.example', 'root'),
                           ('xa.test', 'root'), ('x.a.test', 'root')):
            for path in ('/', '/same.txt'):
                with self.subTest(host=host, path=path):
                    self.assert_site(self.get(path, host), site, path, host)

    def test_host_forms(self):
        """Port removed, case ignored, one trailing dot ignored."""
        for host in ('A.TEST', 'a.test:80', 'a.test.', 'A.Test.:8080',
                     'a.test:'):
            with self.subTest(host=host):
                self.assert_site(self.get('/same.txt', host), 'a',
                                 '/same.txt', host)
        self.assert_site(self.get('/same.txt', 'Q.B.TEST.:1'), 'b',
                         '/same.txt')

    def test_hostile_hosts_get_root(self):
        """Hosts that try to name a vhost another way, or no host at all:
        ROOT answers, never a vhost."""
        long_host = 'a.' * 4000 + 'b.test'
        for host in ('a.test..', '.a.test', 'a..test', 'a%2etest',
                     'a.test%2e', '%61.test', 'a.test%00', '..', '.',
                     'a_test', '127.0.0.1', '127.0.0.1:80', '[::1]',
                     '[::1]:80', '[v1.a.test]', '0x7f.0.0.1', long_host,
                     'x' * 64 + '.b.test', ''):
            with self.subTest(host=host[:80]):
                resp = self.get('/same.txt', host)
                self.assert_site(resp, 'root', '/same.txt', host[:80])
        resp = self.get('/same.txt', None, version='HTTP/1.0')
        self.assert_site(resp, 'root', '/same.txt', 'no Host')

    def test_bad_host_syntax_400(self):
        for host in ('a.test/..', 'a.test/../b', 'a.test\\b', 'a.test:x',
                     'a test', 'a.test@b.test'):
            with self.subTest(host=host):
                resp = self.get('/same.txt', host)
                self.assertEqual(resp.status, 400, resp.describe())
                self.assertNotIn(b'same.txt of', resp.body)

    def test_absolute_target_over_host(self):
        """RFC 9112 3.2.2: the target's authority, not Host."""
        resp = self.get('http://a.test/same.txt', 'x.b.test')
        self.assert_site(resp, 'a', '/same.txt')
        resp = self.get('http://127.0.0.1/same.txt', 'a.test')
        self.assert_site(resp, 'root', '/same.txt')

    def test_paths_stay_in_their_directory(self):
        """Dot segments, encoded or not, never climb to a sibling site;
        links from one site into another are refused as out of it."""
        for path in ('/../a/same.txt', '/%2e%2e/a/same.txt',
                     '/dir/../../a/same.txt', '/%2E%2E%2Fa%2Fsame.txt',
                     '/..%2fa/same.txt'):
            with self.subTest(path=path):
                resp = self.get(path, 'x.b.test')
                self.assertIn(resp.status, (400, 404), resp.describe())
                self.assertNotIn(b'of a', resp.body)
        for path in ('/to-a.txt', '/abs-to-a/a-only.txt'):
            with self.subTest(path=path):
                resp = self.get(path, 'x.b.test')
                self.assertEqual(resp.status, 403, resp.describe())
                self.assertNotIn(b'of a', resp.body)

    def test_each_site_has_its_cache_entries(self):
        """The same path, alternately from each site on one thread: every
        answer is its own site's, cached or not."""
        for _ in range(3):
            for host, site in (('a.test', 'a'), ('test', 'root'),
                               ('x.b.test', 'b'), ('A.TEST.', 'a')):
                for path in ('/same.txt', '/'):
                    with self.subTest(host=host, path=path):
                        self.assert_site(self.get(path, host), site, path,
                                         host)

    def test_each_site_has_its_listings(self):
        """Listings are shared between requests built at once: only
        between those of one site."""
        for _ in range(3):
            for host, site in (('a.test', 'a'), ('test', 'root'),
                               ('z.b.test', 'b')):
                with self.subTest(host=host):
                    resp = self.get('/dir/', host)
                    self.assertEqual(resp.status, 200, resp.describe())
                    self.assertEqual(listed_names(resp.body),
                                     {'%s-only.txt' % site})
                    resp = self.get('/dir/?sort=size&order=desc', host)
                    self.assertEqual(listed_names(resp.body),
                                     {'%s-only.txt' % site})

    def test_dotfiles_hidden_in_each_site(self):
        for host in ('a.test', 'x.b.test', 'test'):
            for path in ('/.env', '/.git/config', '/innocent', '/%2eenv',
                         '/dir/innocent'):
                with self.subTest(host=host, path=path):
                    resp = self.get(path, host)
                    self.assertEqual(resp.status, 404, resp.describe())
                    self.assertNotIn(b'DOTFILE', resp.body)
                    self.assertNotIn(b'[core]', resp.body)
            with self.subTest(host=host, path='/'):
                names = listed_names(self.get('/dir/', host).body)
                self.assertFalse([n for n in names if n.startswith('.')])

    def test_well_known_in_each_site(self):
        for host, site in (('a.test', 'a'), ('x.b.test', 'b'),
                           ('test', 'root')):
            with self.subTest(host=host):
                self.assert_site(self.get('/.well-known/security.txt', host),
                                 site, '/.well-known/security.txt')

    def test_directory_redirect_keeps_the_site(self):
        resp = self.get('/dir', 'a.test')
        self.assertEqual(resp.status, 301, resp.describe())
        self.assertEqual(resp.header('Location'), '/dir/')

    @unittest.skipUnless(shutil.which('curl'), 'curl is not installed')
    def test_http2_authority(self):
        """Over HTTP/2, :authority is the host."""
        port = self.target.port
        for name, site in (('a.test', 'a'), ('q.b.test', 'b'),
                           ('other.test', 'root')):
            with self.subTest(name=name):
                p = subprocess.run(
                    ['curl', '-sS', '--http2-prior-knowledge',
                     '--max-time', str(CLIENT_TIMEOUT),
                     '--resolve', '%s:%d:127.0.0.1' % (name, port),
                     '-w', '\n%{http_version}',
                     'http://%s:%d/same.txt' % (name, port)],
                    capture_output=True, timeout=CLIENT_TIMEOUT + 5)
                self.assertEqual(p.returncode, 0, p.stderr)
                body, _, version = p.stdout.rpartition(b'\n')
                self.assertEqual(version, b'2')
                self.assertEqual(body, b'same.txt of %s\n' % site.encode())


@needs_process('starts sehttpd with --vhost and site options')
class VhostSiteRulesTest(VhostCase):
    """--error-page, --spa, --index and --no-listing apply in each site,
    their pages read from it."""

    extra_args = ('--error-page', '404=/404.html', '--spa', '/index.html',
                  '--index', 'same.txt', '--no-listing')

    def test_error_page_from_each_site(self):
        for host, site in (('a.test', 'a'), ('x.b.test', 'b'),
                           ('test', 'root')):
            with self.subTest(host=host):
                resp = self.get('/missing.txt', host)
                self.assertEqual(resp.status, 404)
                self.assertEqual(resp.body,
                                 b'404 page of %s\n' % site.encode())

    def test_spa_and_index_from_each_site(self):
        for host, site in (('a.test', 'a'), ('x.b.test', 'b'),
                           ('test', 'root')):
            with self.subTest(host=host):
                self.assert_site(self.get('/users/42', host), site,
                                 '/index.html')
                self.assert_site(self.get('/', host), site, '/same.txt')
                self.assertEqual(self.get('/dir/', host).status, 403)


@needs_process('runs sehttpd with bad --vhost values')
class VhostUsageTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.base, cls.sites = make_sites()

    def usage_error(self, args, *words):
        rc, out, err = run_cli(['-b', '127.0.0.1', '-p', '0'] + list(args) +
                               [self.sites['root']])
        self.assertEqual(rc, 2, 'sehttpd %s: exit %s, stderr %r'
                         % (args, rc, err))
        lines = err.splitlines()
        self.assertEqual(len(lines), 1, err)
        self.assertTrue(lines[0].startswith('sehttpd: '), err)
        self.assertLess(len(lines[0]), 400, err)
        for w in words:
            self.assertIn(w, lines[0])
        self.assertNotIn('listening', out)

    def test_bad_values(self):
        a = self.sites['a']
        for value, why in (('a.test', 'expected NAME=DIR'),
                           ('=' + a, 'NAME is a host name'),
                           ('*=' + a, 'NAME is a host name'),
                           ('*.=' + a, 'NAME is a host name'),
                           ('a.*.test=' + a, 'NAME is a host name'),
                           ('127.0.0.1:80=' + a, 'NAME is a host name'),
                           ('[::1]=' + a, 'NAME is a host name'),
                           ('a/b=' + a, 'NAME is a host name'),
                           ('a.test=', 'directory'),
                           ('a' * 64 + '.test=' + a, 'NAME is a host name')):
            with self.subTest(value=value):
                self.usage_error(['--vhost', value], 'invalid --vhost', why)

    def test_dir_not_a_readable_directory(self):
        missing = os.path.join(self.base, 'missing')
        a_file = os.path.join(self.sites['a'], 'same.txt')
        for d in (missing, a_file):
            with self.subTest(dir=d):
                self.usage_error(['--vhost', 'a.test=' + d],
                                 'cannot serve --vhost a.test=' + d)

    def test_name_given_twice(self):
        self.usage_error(['--vhost', 'a.test=' + self.sites['a'],
                          '--vhost', 'A.Test.=' + self.sites['b']],
                         '--vhost a.test given twice')
        self.usage_error(['--vhost', '*.a.test=' + self.sites['a'],
                          '--vhost', '*.A.TEST=' + self.sites['b']],
                         '--vhost *.a.test given twice')

    def test_pages_needed_in_each_dir(self):
        empty = temp_dir()
        self.usage_error(['--error-page', '404=/404.html', '--vhost',
                          'a.test=' + empty],
                         '--vhost a.test=' + empty,
                         '--error-page 404=/404.html')
        self.usage_error(['--spa', '/404.html', '--vhost',
                          'a.test=' + empty], '--spa /404.html')

    def test_unreadable_dir(self):
        if os.getuid() != 0:
            self.skipTest('needs root to run sehttpd as nobody')
        hidden = temp_dir()
        os.chmod(hidden, 0o700)
        secret = os.path.join(hidden, 'site')
        os.mkdir(secret)

        def as_nobody():
            os.setgid(65534)
            os.setuid(65534)

        root = temp_dir()
        p = subprocess.run([nobody_bin(), '-b', '127.0.0.1', '-p', '0',
                            '--vhost', 'a.test=' + secret, root],
                           stdin=subprocess.DEVNULL, capture_output=True,
                           timeout=5, preexec_fn=as_nobody)
        err = p.stderr.decode('utf-8', 'replace')
        self.assertEqual(p.returncode, 2, err)
        self.assertEqual(len(err.splitlines()), 1, err)
        self.assertTrue(err.startswith('sehttpd: cannot serve --vhost '
                                       'a.test='), err)
        # Started as root, the serving user is the one that lacks rights.
        os.chmod(hidden, 0o755)
        os.chmod(secret, 0o700)
        p = subprocess.run([nobody_bin(), '-b', '127.0.0.1', '-p', '0',
                            '--vhost', 'a.test=' + secret, root],
                           stdin=subprocess.DEVNULL, capture_output=True,
                           timeout=5)
        err = p.stderr.decode('utf-8', 'replace')
        self.assertEqual(p.returncode, 2, err)
        self.assertEqual(len(err.splitlines()), 1, err)
        self.assertIn('as user nobody', err)
