"""--auth-file and --auth-realm: HTTP Basic authentication (RFC 7617) from
htpasswd files, hostile Authorization headers, paths that try to slip past
a prefix, htpasswd files refused at start, SIGHUP reloads, HTTP/2, and a
bcrypt check that never stalls the thread's other clients."""

import base64
import os
import shutil
import signal
import socket
import statistics
import subprocess
import threading
import time
import unittest

from httpraw import Conn, build_request
from target import ServerProcess, needs_process, temp_dir
from test_cli import run_cli

HTPASSWD = shutil.which('htpasswd')
OPENSSL = shutil.which('openssl')
CURL = shutil.which('curl')


def bcrypt(user, password, cost=4):
    """A line as `htpasswd -B` writes it (cost 4: quick to check)."""
    out = subprocess.run([HTPASSWD, '-nbB', '-C', str(cost), user, password],
                         check=True, capture_output=True, text=True).stdout
    return out.strip()


def openssl_passwd(flag, user, password):
    out = subprocess.run([OPENSSL, 'passwd', flag, password], check=True,
                         capture_output=True, text=True).stdout
    return '%s:%s' % (user, out.strip())


def basic(user, password):
    raw = ('%s:%s' % (user, password)).encode()
    return 'Basic ' + base64.b64encode(raw).decode()


def write(path, text, mode=0o644):
    with open(path, 'w') as fh:
        fh.write(text)
    os.chmod(path, mode)


def make_site(base):
    """ROOT with a public page and a protected tree."""
    www = os.path.join(base, 'www')
    os.makedirs(os.path.join(www, 'private', 'sub'))
    os.makedirs(os.path.join(www, 'admin'))
    write(os.path.join(www, 'index.html'), '<p>public</p>\n')
    write(os.path.join(www, 'private', 's.txt'), 'secret\n')
    write(os.path.join(www, 'private', '.hidden'), 'hidden\n')
    write(os.path.join(www, 'private', 'sub', 'index.html'), 'sub\n')
    write(os.path.join(www, 'admin', 'a.txt'), 'admin\n')
    for d in ('', 'private', 'private/sub', 'admin'):
        os.chmod(os.path.join(www, d), 0o755)
    return www


@unittest.skipUnless(HTPASSWD and OPENSSL,
                     'htpasswd (apache2-utils) or openssl is not installed')
@needs_process('starts sehttpd with --auth-file')
class AuthTest(unittest.TestCase):
    REALM = 'Staff "only" \\ here'

    @classmethod
    def setUpClass(cls):
        cls.base = temp_dir()
        cls.www = make_site(cls.base)
        cls.pw = os.path.join(cls.base, 'staff.htpasswd')
        write(cls.pw, '# staff\n%s\n%s\n%s\n'
              % (bcrypt('alice', 'open sesame'),
                 openssl_passwd('-6', 'bob', 'pw6'),
                 openssl_passwd('-5', 'carol', 'pw5')))
        cls.srv = ServerProcess(['-t', '2', '--cors', '*',
                                 '--auth-file', '/private/:' + cls.pw,
                                 '--auth-realm', cls.REALM], root=cls.www)

    @classmethod
    def tearDownClass(cls):
        cls.srv.stop()

    def get(self, target, headers=(), method='GET', conn=None):
        data = build_request(method, target, headers=headers)
        if conn:
            conn.send(data)
            return conn.read_response(method)
        with Conn(self.srv.host, self.srv.port) as c:
            c.send(data)
            return c.read_response(method)

    def assert_challenged(self, r):
        self.assertEqual(r.status, 401, r.describe())
        self.assertEqual(r.header('WWW-Authenticate'),
                         'Basic realm="Staff \\"only\\" \\\\ here", '
                         'charset="UTF-8"')
        self.assertEqual(r.header('Cache-Control'), 'private')

    def test_no_credentials_challenged(self):
        for target in ('/private/s.txt', '/private/', '/private/missing',
                       '/private/sub/', '/private'):
            self.assert_challenged(self.get(target))
        # HEAD as GET, without the body.
        r = self.get('/private/s.txt', method='HEAD')
        self.assertEqual(r.status, 401)
        self.assertEqual(r.body, b'')

    def test_credentials_of_each_hash(self):
        for user, password in (('alice', 'open sesame'), ('bob', 'pw6'),
                               ('carol', 'pw5')):
            r = self.get('/private/s.txt',
                         [('Authorization', basic(user, password))])
            self.assertEqual(r.status, 200, user)
            self.assertEqual(r.body, b'secret\n')
            self.assertEqual(r.header('Cache-Control'), 'private')
            self.assertIsNone(r.header('WWW-Authenticate'))
        r = self.get('/private/sub/', [('Authorization', basic('bob', 'pw6'))])
        self.assertEqual((r.status, r.body), (200, b'sub\n'))
        # The directory without its slash: a redirect, private too.
        r = self.get('/private', [('Authorization', basic('bob', 'pw6'))])
        self.assertEqual(r.status, 301)
        self.assertEqual(r.header('Cache-Control'), 'private')
        # A conditional request: 304, still private.
        etag = self.get('/private/s.txt', [
            ('Authorization', basic('bob', 'pw6'))]).header('ETag')
        r = self.get('/private/s.txt', [('Authorization', basic('bob', 'pw6')),
                                        ('If-None-Match', etag)])
        self.assertEqual(r.status, 304)
        self.assertEqual(r.header('Cache-Control'), 'private')

    def test_wrong_password_and_unknown_user(self):
        for user, password in (('alice', 'open sesamE'), ('alice', ''),
                               ('alice', 'pw6'), ('mallory', 'open sesame'),
                               ('Alice', 'open sesame'),
                               ('alic', 'open sesame'), ('bob', 'pw5')):
            self.assert_challenged(self.get(
                '/private/s.txt', [('Authorization', basic(user, password))]))

    def test_public_paths_untouched(self):
        r = self.get('/index.html')
        self.assertEqual(r.status, 200)
        self.assertIsNone(r.header('Cache-Control'))
        self.assertIsNone(r.header('WWW-Authenticate'))
        # Credentials where none are needed change nothing.
        r = self.get('/index.html', [('Authorization', 'Bearer x')])
        self.assertEqual(r.status, 200)
        # A string prefix "/private/" leaves "/privateer" alone.
        self.assertEqual(self.get('/privateer').status, 404)

    def test_hostile_authorization_headers(self):
        good = basic('alice', 'open sesame')
        hostile = [
            [('Authorization', 'Basic ' +
              base64.b64encode(b'alice').decode())],  # no colon
            [('Authorization', 'Basic !!!!')],  # not base64
            [('Authorization', 'Basic YWxpY2U6b3Blbi=zZXNhbWU=')],
            [('Authorization', 'Basic')],
            [('Authorization', 'Basic ')],
            [('Authorization', 'Basic ' + 'QUFB' * 2560)],  # 10 KB
            [('Authorization', 'Basic ' + base64.b64encode(
                b'alice:' + b'x' * 10000).decode())],  # 10 KB decoded
            [('Authorization', 'Bearer x')],
            [('Authorization', 'Digest username="alice"')],
            [('Authorization', good), ('Authorization', good)],
            [('Authorization', good + ', ' + good)],
            [('Authorization', 'Basic ' + base64.b64encode(
                b'alice:open\x00sesame').decode())],
            [('Authorization', 'Basic ' + base64.b64encode(
                b'alice:open sesame\n').decode())],
            [('Authorization', 'Basic ' + base64.b64encode(
                b':open sesame').decode())],
            [('Authorization', 'Basic ' + base64.b64encode(
                b'\xff\xfe:\xff').decode())],
        ]
        # One connection: each 401 keeps it open for the next.
        with Conn(self.srv.host, self.srv.port) as c:
            for headers in hostile:
                self.assert_challenged(
                    self.get('/private/s.txt', headers, conn=c))
            r = self.get('/private/s.txt', [('Authorization', good)],
                         conn=c)
            self.assertEqual(r.status, 200)
        self.assertTrue(self.srv.alive())

    def test_paths_that_try_to_slip_past(self):
        for target in ('/%70rivate/s.txt', '/x/../private/s.txt',
                       '/./private/s.txt', '//private/s.txt',
                       '/private//s.txt', '/private/./s.txt',
                       '/private/%2e%2e/private/s.txt',
                       'http://test/private/s.txt', '/private/s.txt?x',
                       '/private/.hidden', '/private/%2ehidden'):
            self.assert_challenged(self.get(target))
        # Behind the password, a dot name is still not served.
        r = self.get('/private/.hidden',
                     [('Authorization', basic('bob', 'pw6'))])
        self.assertEqual(r.status, 404)

    def test_links_into_a_guarded_place(self):
        """A link elsewhere in ROOT into the protected tree is not there,
        with or without credentials, and is not listed: the password the
        place asks for is not passed by.  Before, /pub/notes served
        private/s.txt and /pub/door/ listed private/ to anyone."""
        pub = os.path.join(self.www, 'pub')
        os.mkdir(pub)
        self.addCleanup(shutil.rmtree, pub)
        os.chmod(pub, 0o755)
        write(os.path.join(pub, 'plain.txt'), 'plain\n')
        os.symlink('../private/s.txt', os.path.join(pub, 'notes'))
        os.symlink('../private', os.path.join(pub, 'door'))
        back = os.path.join(self.www, 'private', 'back.txt')
        os.symlink('../pub/plain.txt', back)
        self.addCleanup(os.unlink, back)
        bob = [('Authorization', basic('bob', 'pw6'))]
        for target in ('/pub/notes', '/pub/door/s.txt', '/pub/door/',
                       '/pub/door', '/pub/door/sub/'):
            for headers in ((), bob):
                with self.subTest(target=target, creds=bool(headers)):
                    r = self.get(target, headers)
                    self.assertEqual(r.status, 404, r.describe())
                    self.assertNotIn(b'secret', r.body)
        r = self.get('/pub/')
        self.assertEqual(r.status, 200, r.describe())
        self.assertIn(b'plain.txt', r.body)
        self.assertNotIn(b'notes', r.body)
        self.assertNotIn(b'door', r.body)
        # A guarded name for a public file asks for the password.
        self.assert_challenged(self.get('/private/back.txt'))
        r = self.get('/private/back.txt', bob)
        self.assertEqual((r.status, r.body), (200, b'plain\n'), r.describe())

    def test_index_linked_into_a_guarded_place(self):
        """An index.html linked into the protected tree or to a hidden
        name is there but not served: its directory answers 403, not the
        listing the index was there to keep back (before, 200 and the
        listing, as for a directory without an index)."""
        for name, target in (('guarded', '../private/s.txt'),
                             ('dotted', '.env')):
            d = os.path.join(self.www, 'idx-' + name)
            os.mkdir(d)
            self.addCleanup(shutil.rmtree, d)
            os.chmod(d, 0o755)
            write(os.path.join(d, 'other.txt'), 'other\n')
            write(os.path.join(d, '.env'), 'secret=1\n')
            os.symlink(target, os.path.join(d, 'index.html'))
            for headers in ((), [('Authorization', basic('bob', 'pw6'))]):
                with self.subTest(name=name, creds=bool(headers)):
                    r = self.get('/idx-%s/' % name, headers)
                    self.assertEqual(r.status, 403, r.describe())
                    self.assertNotIn(b'other.txt', r.body)
                    self.assertNotIn(b'secret', r.body)

    def test_options_not_challenged(self):
        r = self.get('/private/s.txt', method='OPTIONS')
        self.assertEqual(r.status, 204)
        self.assertIsNone(r.header('WWW-Authenticate'))
        # A CORS preflight: answered without credentials, as browsers
        # never send any with one.
        r = self.get('/private/s.txt', [
            ('Origin', 'https://app.example'),
            ('Access-Control-Request-Method', 'GET'),
            ('Access-Control-Request-Headers', 'authorization')],
            method='OPTIONS')
        self.assertEqual(r.status, 204)
        self.assertEqual(r.header('Access-Control-Allow-Origin'), '*')
        self.assertEqual(r.header('Access-Control-Allow-Headers'),
                         'authorization')
        # Other methods on the path: 405 as anywhere, nothing told.
        self.assertEqual(self.get('/private/s.txt', method='POST').status,
                         405)

    @unittest.skipUnless(CURL, 'curl is not installed')
    def test_http2(self):
        url = 'http://%s:%d/private/s.txt' % (self.srv.host, self.srv.port)

        def curl(*args):
            p = subprocess.run([CURL, '-sS', '--max-time', '10',
                                '--http2-prior-knowledge', '-o', '-',
                                '-w', '\\n%{http_version} %{http_code}',
                                '-D', '-'] + list(args) + [url],
                               capture_output=True, text=True, timeout=20)
            self.assertEqual(p.returncode, 0, p.stderr)
            return p.stdout
        out = curl('-u', 'alice:open sesame')
        self.assertTrue(out.endswith('\n2 200'), out)
        self.assertIn('secret\n', out)
        self.assertIn('cache-control: private', out)
        out = curl('-u', 'alice:wrong')
        self.assertTrue(out.endswith('\n2 401'), out)
        self.assertIn('www-authenticate: Basic realm=', out)
        out = curl('-H', 'Authorization: Basic !!!!')
        self.assertTrue(out.endswith('\n2 401'), out)

    def test_client_gone_during_a_check(self):
        """A connection closed while its check runs: the check comes back
        to nobody, and is freed (the san build's leak check at exit)."""
        for _ in range(5):
            c = Conn(self.srv.host, self.srv.port)
            c.send(build_request('GET', '/private/s.txt', headers=[
                ('Authorization', basic('alice', 'nope'))]))
            c.close()
        time.sleep(0.2)
        self.assertEqual(self.get('/private/s.txt', [
            ('Authorization', basic('alice', 'open sesame'))]).status, 200)


@unittest.skipUnless(HTPASSWD and OPENSSL,
                     'htpasswd (apache2-utils) or openssl is not installed')
@needs_process('starts sehttpd with --auth-file')
class AuthSetupTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.base = temp_dir()
        cls.www = make_site(cls.base)

    def start(self, args):
        srv = ServerProcess(args, root=self.www)
        self.addCleanup(srv.kill)
        return srv

    def get(self, srv, target, headers=()):
        with Conn(srv.host, srv.port) as c:
            c.send(build_request('GET', target, headers=headers))
            return c.read_response()

    def file(self, name, text):
        path = os.path.join(self.base, name)
        write(path, text)
        return path

    def test_operator_cache_control_not_on_guarded_responses(self):
        """--header's Cache-Control goes where no password guards: a
        guarded response says private alone, not also "public"."""
        pw = self.file('cc.htpasswd', bcrypt('u', 'p') + '\n')
        srv = self.start(['--auth-file', '/private/:' + pw,
                          '--header', 'cache-control: public, max-age=600',
                          '--header', 'X-Site: a'])
        r = self.get(srv, '/index.html')
        self.assertEqual(r.status, 200, r.describe())
        self.assertEqual(r.all('Cache-Control'), ['public, max-age=600'])
        auth = [('Authorization', basic('u', 'p'))]
        for target, status in (('/private/s.txt', 200), ('/private', 301),
                               ('/private/sub/', 200)):
            with self.subTest(target=target):
                r = self.get(srv, target, auth)
                self.assertEqual(r.status, status, r.describe())
                self.assertEqual(r.all('Cache-Control'), ['private'],
                                 r.describe())
                self.assertEqual(r.header('X-Site'), 'a')
        srv.stop()

    def test_default_realm_is_the_host_name(self):
        pw = self.file('realm.htpasswd', bcrypt('u', 'p') + '\n')
        srv = self.start(['--auth-file', pw])
        r = self.get(srv, '/index.html')
        self.assertEqual(r.status, 401)
        self.assertEqual(r.header('WWW-Authenticate'),
                         'Basic realm="%s", charset="UTF-8"'
                         % socket.gethostname())
        srv.stop()

    def test_a_password_file_that_would_be_served(self):
        """One beneath ROOT under a plain name is downloadable: said at
        start, with the path it is served as; a dot name or a place
        outside ROOT is not.  Before, nothing was said."""
        line = bcrypt('u', 'p') + '\n'
        served = os.path.join(self.www, 'users.htpasswd')
        hidden = os.path.join(self.www, '.htpasswd')
        for path in (served, hidden):
            write(path, line)
            self.addCleanup(os.unlink, path)
        outside = self.file('outside.htpasswd', line)
        for path, warned in ((served, True), (hidden, False),
                             (outside, False)):
            with self.subTest(path=path):
                srv = self.start(['--auth-file', '/admin/:' + path])
                self.assertEqual(self.get(srv, '/admin/a.txt').status, 401)
                srv.stop()
                said = 'is served as /users.htpasswd' in srv.stderr_text()
                self.assertEqual(said, warned, srv.stderr_text())

    def get_as(self, srv, host, target, headers=()):
        with Conn(srv.host, srv.port) as c:
            c.send(build_request('GET', target, host=host, headers=headers))
            return c.read_response()

    def place(self, rel, text, mode=0o644):
        """A file beneath ROOT for one test, with its new directories."""
        path = os.path.join(self.www, rel)
        top = os.path.join(self.www, rel.split('/')[0])
        made = '/' in rel and not os.path.exists(top)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        for d, _, _ in os.walk(top if made else os.path.dirname(path)):
            os.chmod(d, 0o755)
        write(path, text, mode)
        self.addCleanup(shutil.rmtree if made else os.unlink,
                        top if made else path)
        return path

    def test_pages_a_password_guards(self):
        """An --spa or --error-page page under a protected prefix, or a
        link to one or to a dot name, is not shown to a request that may
        not have it: the built-in page (or 404) instead.  Before, any
        missing path gave the private app page, every 401 and 404 the
        private error page, and a 403 the linked .env."""
        pw = self.file('pages.htpasswd', bcrypt('alice', 'a') + '\n')
        alice = [('Authorization', basic('alice', 'a'))]
        self.place('private/app.html', 'app secret\n')
        self.place('private/404.html', 'private 404\n')
        self.place('.env', 'DB_PASSWORD=hunter2\n')
        for name, target in (('err-link.html', 'private/404.html'),
                             ('env-link.html', '.env')):
            os.symlink(target, os.path.join(self.www, name))
            self.addCleanup(os.unlink, os.path.join(self.www, name))
        srv = self.start(['--auth-file', '/private/:' + pw,
                          '--spa', '/private/app.html',
                          '--error-page', '404=/private/404.html'])
        for target, status in (('/anything', 404), ('/missing.txt', 404),
                               ('/private/app.html', 401)):
            with self.subTest(target=target):
                r = self.get(srv, target)
                self.assertEqual(r.status, status, r.describe())
                self.assertNotIn(b'secret', r.body)
                self.assertNotIn(b'private 404', r.body)
        # With the password the pages are the site's.
        r = self.get(srv, '/private/route', alice)
        self.assertEqual((r.status, r.body), (200, b'app secret\n'))
        r = self.get(srv, '/private/nothing.txt', alice)
        self.assertEqual((r.status, r.body), (404, b'private 404\n'))
        srv.stop()
        srv = self.start(['--auth-file', '/private/:' + pw, '--no-listing',
                          '--error-page', '404=/err-link.html',
                          '--error-page', '403=/env-link.html'])
        for target, status in (('/nope.txt', 404), ('/admin/', 403)):
            with self.subTest(target=target):
                r = self.get(srv, target)
                self.assertEqual(r.status, status, r.describe())
                self.assertNotIn(b'private 404', r.body)
                self.assertNotIn(b'hunter2', r.body)
        srv.stop()
        # Under a password for the whole site, the page for 401 is
        # shown to those without it, but not through a link to a place
        # another password guards.
        self.place('401.html', 'who are you?\n')
        everyone = self.file('everyone-pages.htpasswd',
                             bcrypt('guest', 'g') + '\n')
        for page, body in (('/401.html', b'who are you?\n'),
                           ('/err-link.html', None)):
            srv = self.start(['--auth-file', everyone,
                              '--auth-file', '/private/:' + pw,
                              '--error-page', '401=' + page])
            r = self.get(srv, '/index.html')
            self.assertEqual(r.status, 401, r.describe())
            if body:
                self.assertEqual(r.body, body)
            else:
                self.assertNotIn(b'private 404', r.body)
            srv.stop()

    def test_vhosts_nested_with_a_guarded_place(self):
        """A file a rule guards, as seen from ROOT or from a --vhost DIR,
        is not served without it through another root that holds it.
        Before, a vhost on private/ served private/s.txt to anyone, as did
        ROOT for sites/a/admin/ (guarded on a.test as /admin/), and a
        vhost on ROOT's parent for www/private/s.txt."""
        pw = self.file('vhosts.htpasswd', bcrypt('alice', 'a') + '\n')
        alice = [('Authorization', basic('alice', 'a'))]
        self.place('sites/a/admin/x.txt', 'a admin secret\n')
        self.place('sites/a/pub.txt', 'a public\n')
        srv = self.start([
            '--auth-file', '/private/:' + pw, '--auth-file', '/admin/:' + pw,
            '--vhost', 'preview.test=' + os.path.join(self.www, 'private'),
            '--vhost', 'a.test=' + os.path.join(self.www, 'sites', 'a'),
            '--vhost', 'up.test=' + self.base])
        for host, target in (('preview.test', '/s.txt'),
                             ('PREVIEW.test.:80', '/s.txt'),
                             ('127.0.0.1', '/sites/a/admin/x.txt'),
                             ('up.test', '/www/private/s.txt'),
                             ('up.test', '/www/sites/a/admin/x.txt')):
            with self.subTest(host=host, target=target):
                r = self.get_as(srv, host, target)
                self.assertEqual(r.status, 404, r.describe())
                self.assertNotIn(b'secret', r.body)
        r = self.get_as(srv, 'a.test', '/admin/x.txt')
        self.assertEqual(r.status, 401, r.describe())
        r = self.get_as(srv, 'a.test', '/admin/x.txt', alice)
        self.assertEqual((r.status, r.body), (200, b'a admin secret\n'))
        # What no rule guards stays served through every root.
        for host, target in (('a.test', '/pub.txt'),
                             ('127.0.0.1', '/sites/a/pub.txt'),
                             ('up.test', '/www/sites/a/pub.txt')):
            r = self.get_as(srv, host, target)
            self.assertEqual((r.status, r.body), (200, b'a public\n'))
        srv.stop()

    def test_places_deeper_than_path_max(self):
        """Where an object really lies is not known when its path is
        longer than PATH_MAX: such an object is not served, where a rule
        or a dot name would have kept it.  Before, a public link into a
        guarded place, or into a dot directory, served what lay more than
        4 KB deep."""
        pw = self.file('deep.htpasswd', bcrypt('alice', 'a') + '\n')
        a, b = '/'.join(['a' * 250] * 10), '/'.join(['b' * 250] * 10)
        for top in ('private', '.deep'):
            # Made a directory at a time: the whole path is beyond what
            # one system call takes.
            fd = os.open(self.www, os.O_RDONLY | os.O_DIRECTORY)
            if top == '.deep':
                os.mkdir(top, 0o755, dir_fd=fd)
                self.addCleanup(shutil.rmtree, os.path.join(self.www, top))
            for name in [top] + (a + '/' + b).split('/'):
                if name != top:
                    os.mkdir(name, 0o755, dir_fd=fd)
                sub = os.open(name, os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
                os.close(fd)
                fd = sub
            out = os.open('s.txt', os.O_WRONLY | os.O_CREAT, 0o644,
                          dir_fd=fd)
            os.write(out, b'deep secret\n')
            os.close(out)
            os.close(fd)
            if top == 'private':
                self.addCleanup(shutil.rmtree,
                                os.path.join(self.www, top, 'a' * 250))
            os.symlink('%s/%s' % (top, a),
                       os.path.join(self.www, 'link' + top))
            self.addCleanup(os.unlink, os.path.join(self.www, 'link' + top))
        srv = self.start(['--auth-file', '/private/:' + pw])
        for top in ('private', '.deep'):
            with self.subTest(top=top):
                r = self.get(srv, '/link%s/%s/s.txt' % (top, b))
                self.assertEqual(r.status, 404, r.describe())
                self.assertNotIn(b'secret', r.body)
        srv.stop()

    def test_a_site_password_beside_an_admin_password(self):
        """A password for the whole site and another for /admin/, with a
        vhost for blog/ and one for ROOT's parent: each place keeps its
        own rule, the deepest of those that cover it, and a page in the
        site's place is no secret from admins.  Before (the previous
        fix), any other rule refused: blog.test's /admin/ and ROOT's
        /admin/ gave 404 to admins, as did the --spa and 404 pages."""
        site = self.file('site.htpasswd', bcrypt('guest', 'g') + '\n')
        admins = self.file('admins.htpasswd', bcrypt('root', 'r') + '\n')
        guest = [('Authorization', basic('guest', 'g'))]
        root = [('Authorization', basic('root', 'r'))]
        self.place('blog/admin/f.txt', 'blog admin\n')
        # The pages, in each root (each must have them).
        for d in ('', 'blog/', '../'):
            self.place(d + 'app.html', 'the app\n')
            self.place(d + 'errors/404.html', 'our 404\n')
        srv = self.start(['--auth-file', site, '--auth-file', '/admin/:' +
                          admins, '--spa', '/app.html',
                          '--error-page', '404=/errors/404.html',
                          '--vhost', 'blog.test=' +
                          os.path.join(self.www, 'blog'),
                          '--vhost', 'files.test=' + self.base])
        for host, target, creds, status, body in (
                ('blog.test', '/admin/f.txt', root, 200, b'blog admin\n'),
                ('127.0.0.1', '/admin/a.txt', root, 200, b'admin\n'),
                ('127.0.0.1', '/admin/route', root, 200, b'the app\n'),
                ('127.0.0.1', '/admin/nope.txt', root, 404, b'our 404\n'),
                ('127.0.0.1', '/index.html', guest, 200,
                 b'<p>public</p>\n'),
                # The admins' place, through the site's rule: not there.
                ('127.0.0.1', '/blog/admin/f.txt', guest, 404, None),
                ('files.test', '/www/admin/a.txt', guest, 404, None)):
            with self.subTest(host=host, target=target):
                r = self.get_as(srv, host, target, creds)
                self.assertEqual(r.status, status, r.describe())
                if body is not None:
                    self.assertEqual(r.body, body)
                else:
                    self.assertNotIn(b'admin', r.body)
        srv.stop()

    def test_a_directory_above_root_renamed(self):
        """The roots' paths are read at start; renamed above them, the
        files are still judged by where they lie.  Before, every object
        then lay beneath no root known, and so under no rule and no dot
        name: the link into private/ and a dot name through a link were
        served."""
        pw = self.file('moved.htpasswd', bcrypt('alice', 'a') + '\n')
        base = temp_dir()
        www = make_site(base)
        os.symlink('private/s.txt', os.path.join(www, 'notes'))
        os.symlink('private/.hidden', os.path.join(www, 'dot'))
        srv = ServerProcess(['--auth-file', '/private/:' + pw], root=www)
        self.addCleanup(srv.kill)
        moved = base + '-moved'
        os.rename(base, moved)
        self.addCleanup(os.rename, moved, base)
        for target in ('/notes', '/dot', '/private/s.txt'):
            with self.subTest(target=target):
                r = self.get(srv, target)
                self.assertIn(r.status, (401, 404), r.describe())
                self.assertNotIn(b'secret', r.body)
                self.assertNotIn(b'hidden', r.body)
        r = self.get(srv, '/index.html')
        self.assertEqual((r.status, r.body), (200, b'<p>public</p>\n'))
        r = self.get(srv, '/private/s.txt',
                     [('Authorization', basic('alice', 'a'))])
        self.assertEqual((r.status, r.body), (200, b'secret\n'))
        srv.stop()

    def test_a_vhost_inside_a_guarded_place_under_a_site_password(self):
        """A password for all paths ('/:FILE') and one for /intranet/,
        with a --vhost for intranet/ and one for intranet/hr/: the
        site's rule, seen from those DIRs, guards no deeper than it does
        from ROOT, so neither host passes /intranet/'s password by.
        Before, a site user read intranet/hr/ (the site rule's place there
        lay deeper) and intranet/ (two places as deep)."""
        site = self.file('site2.htpasswd', bcrypt('guest', 'g') + '\n')
        staff = self.file('staff3.htpasswd', bcrypt('sam', 's') + '\n')
        guest = [('Authorization', basic('guest', 'g'))]
        self.place('intranet/hr/payroll.txt', 'payroll\n')
        srv = self.start(['--auth-file', '/:' + site,
                          '--auth-file', '/intranet/:' + staff,
                          '--vhost', 'intranet.test=' +
                          os.path.join(self.www, 'intranet'),
                          '--vhost', 'hr.test=' +
                          os.path.join(self.www, 'intranet', 'hr')])
        for host, target in (('hr.test', '/payroll.txt'),
                             ('hr.test', '/'),
                             ('intranet.test', '/hr/payroll.txt')):
            with self.subTest(host=host, target=target):
                r = self.get_as(srv, host, target, guest)
                self.assertEqual(r.status, 404, r.describe())
                self.assertNotIn(b'payroll', r.body)
        r = self.get_as(srv, '127.0.0.1', '/intranet/hr/payroll.txt',
                        [('Authorization', basic('sam', 's'))])
        self.assertEqual((r.status, r.body), (200, b'payroll\n'))
        r = self.get_as(srv, '127.0.0.1', '/index.html', guest)
        self.assertEqual(r.status, 200, r.describe())
        srv.stop()

    def test_a_cached_file_moved_under_a_rule(self):
        """A file served (and cached), then moved beneath /private/ with
        a link left at its old place: once the cache looks again (a
        second), it is not served without the password.  Before, the
        cache kept serving it, its identity unchanged."""
        pw = self.file('cached.htpasswd', bcrypt('alice', 'a') + '\n')
        pubc = os.path.join(self.www, 'pubc')
        os.mkdir(pubc, 0o755)
        write(os.path.join(pubc, 'r.txt'), 'report\n')
        srv = self.start(['--auth-file', '/private/:' + pw])
        for _ in range(2):
            r = self.get(srv, '/pubc/r.txt')
            self.assertEqual((r.status, r.body), (200, b'report\n'))
        moved = os.path.join(self.www, 'private', 'pubc')
        os.rename(pubc, moved)
        self.addCleanup(shutil.rmtree, moved)
        os.symlink('private/pubc', pubc)
        self.addCleanup(os.unlink, pubc)
        time.sleep(1.5)
        r = self.get(srv, '/pubc/r.txt')
        self.assertEqual(r.status, 404, r.describe())
        self.assertNotIn(b'report', r.body)
        srv.stop()

    def test_a_prefix_without_a_slash_holds_no_sibling(self):
        """/admin (no slash) and /adminpanel/ are siblings: a user of
        /adminpanel/'s file is not shown the --spa page /admin guards.
        Before, "/admin" as a string prefix of "/adminpanel/" counted as
        a place holding it."""
        admins = self.file('admin5.htpasswd', bcrypt('root', 'r') + '\n')
        panel = self.file('panel5.htpasswd', bcrypt('pat', 'p') + '\n')
        self.place('admin/app5.html', 'admin shell\n')
        srv = self.start(['--auth-file', '/admin:' + admins,
                          '--auth-file', '/adminpanel/:' + panel,
                          '--spa', '/admin/app5.html'])
        r = self.get(srv, '/adminpanel/route',
                     [('Authorization', basic('pat', 'p'))])
        self.assertEqual(r.status, 404, r.describe())
        self.assertNotIn(b'shell', r.body)
        r = self.get(srv, '/admin/route',
                     [('Authorization', basic('root', 'r'))])
        self.assertEqual((r.status, r.body), (200, b'admin shell\n'))
        srv.stop()

    def test_an_index_a_rule_names(self):
        """A rule for a directory's index file is not passed by asking
        for the directory.  Before, /private/sub/ gave the index that
        /private/sub/index.html asked a password for."""
        pw = self.file('index.htpasswd', bcrypt('alice', 'a') + '\n')
        srv = self.start(['--auth-file', '/private/sub/index.html:' + pw])
        self.assertEqual(self.get(srv, '/private/sub/index.html').status,
                         401)
        r = self.get(srv, '/private/sub/')
        self.assertNotEqual(r.body, b'sub\n', r.describe())
        r = self.get(srv, '/private/sub/index.html',
                     [('Authorization', basic('alice', 'a'))])
        self.assertEqual((r.status, r.body), (200, b'sub\n'))
        srv.stop()

    def test_longest_prefix_wins(self):
        everyone = self.file('everyone.htpasswd', bcrypt('guest', 'g') + '\n')
        staff = self.file('staff2.htpasswd', bcrypt('alice', 'a') + '\n')
        srv = self.start(['--auth-file', everyone,
                          '--auth-file', '/private/:' + staff,
                          '--auth-file', '/admin/:' + everyone])
        guest = [('Authorization', basic('guest', 'g'))]
        alice = [('Authorization', basic('alice', 'a'))]
        self.assertEqual(self.get(srv, '/index.html', guest).status, 200)
        self.assertEqual(self.get(srv, '/index.html', alice).status, 401)
        self.assertEqual(self.get(srv, '/private/s.txt', alice).status, 200)
        self.assertEqual(self.get(srv, '/private/s.txt', guest).status, 401)
        self.assertEqual(self.get(srv, '/admin/a.txt', guest).status, 200)
        srv.stop()

    def expect_refused(self, args, want):
        rc, out, err = run_cli(args + [self.www])
        what = ' '.join(args)
        self.assertEqual(rc, 2, '%s: exit %s, stderr %r' % (what, rc, err))
        lines = err.splitlines()
        self.assertEqual(len(lines), 1, '%s: %r' % (what, err))
        self.assertTrue(lines[0].startswith('sehttpd: '), lines[0])
        self.assertIn(want, lines[0])
        self.assertNotIn('listening', out)

    def test_bad_htpasswd_files_refused_at_start(self):
        good = bcrypt('alice', 'a')
        cases = [
            ('md5', good + '\n' + '$'.join(['bob:', 'apr1', 's',
                                            'bHQMM1UunWFj8XWEuTGlW.']),
             ':2: MD5-crypt'),
            ('md5crypt', 'bob:$1$s$eSlDmdCX8nqs9SNxRTvrN.\n', ':1: MD5-crypt'),
            ('plain', '# x\nbob:secret\n', ':2: not a crypt(3) hash'),
            ('sha1', 'bob:{SHA}EfatjsUqKYSrqv18O1FlA3hcIHI=\n', ':1: '),
            ('nocolon', good + '\nbob\n', ':2: no \':\''),
            ('emptyuser', ':' + good.split(':', 1)[1] + '\n', ':1: an empty'),
            ('twice', good + '\n' + good + '\n', ':2: the user of line 1'),
            ('truncated', good[:-3] + '\n', ':1: a malformed'),
            ('empty', '', ': no users'),
            ('control', 'a\x01b:' + good.split(':', 1)[1] + '\n',
             ':1: a control character'),
        ]
        for name, text, want in cases:
            path = self.file(name + '.htpasswd', text)
            self.expect_refused(['-p', '0', '--auth-file', path], path + want)
        self.expect_refused(['-p', '0', '--auth-file',
                             os.path.join(self.base, 'missing')],
                            'No such file')
        pw = self.file('ok.htpasswd', good + '\n')
        for arg in ('/a/../b:' + pw, '/a//b:' + pw, '/a/./:' + pw, '/a:',
                    ''):
            self.expect_refused(['--auth-file', arg], '--auth-file')
        # As a URL writes it: the rule guarded only the name "my%20docs"
        # while "/my docs/" was served to anyone (before, accepted).
        for arg in ('/my%20docs/:' + pw, '/admin/?:' + pw):
            self.expect_refused(['--auth-file', arg], "'%' escapes, '?'")
        self.expect_refused(['--auth-file', pw, '--auth-file', pw],
                            'a second file for the same paths')
        # "" and "/" both mean every path (before: two rules, the first
        # never used).
        self.expect_refused(['--auth-file', pw, '--auth-file', '/:' + pw],
                            'a second file for the same paths')
        self.expect_refused(['--auth-file', pw, '--auth-realm', 'a\nb'],
                            '--auth-realm')

    def test_sighup_rereads_the_files(self):
        pw = self.file('reload.htpasswd', bcrypt('alice', 'old') + '\n')
        # One thread: the one that remembers alice's old password.
        srv = self.start(['-t', '1', '--auth-file', '/private/:' + pw])
        old = [('Authorization', basic('alice', 'old'))]
        new = [('Authorization', basic('alice', 'new'))]
        dave = [('Authorization', basic('dave', 'd'))]
        self.assertEqual(self.get(srv, '/private/s.txt', old).status, 200)
        write(pw, bcrypt('alice', 'new') + '\n' + bcrypt('dave', 'd') + '\n')
        srv.send_signal(signal.SIGHUP)
        deadline = time.monotonic() + 5
        while self.get(srv, '/private/s.txt', dave).status != 200 and \
                time.monotonic() < deadline:
            time.sleep(0.05)
        # The old password was remembered as good: no longer.
        self.assertEqual(self.get(srv, '/private/s.txt', old).status, 401)
        self.assertEqual(self.get(srv, '/private/s.txt', new).status, 200)
        self.assertEqual(self.get(srv, '/private/s.txt', dave).status, 200)
        # A file that breaks keeps the one loaded before, with one line.
        write(pw, 'alice:$apr1$s$bHQMM1UunWFj8XWEuTGlW.\n')
        srv.send_signal(signal.SIGHUP)
        deadline = time.monotonic() + 5
        while 'reload' not in srv.stderr_text() and \
                time.monotonic() < deadline:
            time.sleep(0.05)
        err = srv.stderr_text()
        self.assertEqual(len(err.strip().splitlines()), 1, err)
        self.assertIn(pw + ':1: MD5-crypt', err)
        self.assertIn('keeping', err)
        self.assertEqual(self.get(srv, '/private/s.txt', new).status, 200)
        srv.stop()

    def timed_get(self, srv, target, headers=()):
        start = time.monotonic()
        r = self.get(srv, target, headers)
        return r, time.monotonic() - start

    def test_a_check_never_stalls_the_thread(self):
        """One thread: five bcrypt checks of about a quarter of a second
        each run while plain requests keep being answered at once."""
        pw = self.file('slow.htpasswd', bcrypt('slow', 's', cost=11) + '\n')
        srv = self.start(['-t', '1', '--auth-file', '/private/:' + pw])
        self.get(srv, '/index.html')  # into the cache
        slow = [('Authorization', basic('slow', 'wrong%d' % i))
                for i in range(5)]
        done = []

        def check(h):
            r, took = self.timed_get(srv, '/private/s.txt', [h])
            done.append((r.status, took, time.monotonic()))
        threads = [threading.Thread(target=check, args=(h,)) for h in slow]
        for t in threads:
            t.start()
        time.sleep(0.05)
        plain = []
        while len(plain) < 10 and len(done) < 5:
            r, took = self.timed_get(srv, '/index.html')
            self.assertEqual(r.status, 200)
            plain.append((took, time.monotonic()))
            time.sleep(0.02)
        for t in threads:
            t.join(30)
        self.assertEqual([s for s, _, _ in done], [401] * 5)
        # The checks were slow and still running while the plain requests
        # were answered...
        last_check = max(end for _, _, end in done)
        self.assertGreater(max(took for _, took, _ in done), 0.1)
        during = [took for took, end in plain if end < last_check]
        self.assertGreaterEqual(len(during), 3, (plain, done))
        # ... each within a few milliseconds (a check on the loop would
        # hold one for its whole length, and the queue's).
        self.assertLess(statistics.median(during), 0.02, during)
        self.assertLess(max(during), 0.1, during)
        srv.stop()

    def test_success_is_remembered(self):
        """A page and its assets: one slow check, then none."""
        pw = self.file('remember.htpasswd',
                       bcrypt('slow', 's', cost=11) + '\n')
        srv = self.start(['-t', '1', '--auth-file', '/private/:' + pw])
        h = [('Authorization', basic('slow', 's'))]
        r, first = self.timed_get(srv, '/private/s.txt', h)
        self.assertEqual(r.status, 200)
        times = []
        with Conn(srv.host, srv.port) as c:
            for _ in range(20):
                start = time.monotonic()
                c.send(build_request('GET', '/private/s.txt', headers=h))
                self.assertEqual(c.read_response().status, 200)
                times.append(time.monotonic() - start)
        self.assertGreater(first, 0.05)
        self.assertLess(sum(times), first, (first, times))
        # A wrong password is never remembered as good, nor is it
        # answered from what was.
        self.assertEqual(self.get(srv, '/private/s.txt', [
            ('Authorization', basic('slow', 'S'))]).status, 401)
        srv.stop()

    def test_a_check_late_in_the_idle_time(self):
        """A request that comes just before the idle timeout would fire:
        its check gets the timeout from its start, not what was left of
        the idle time (that once answered it 503)."""
        pw = self.file('late.htpasswd', bcrypt('cal', 'c', cost=11) + '\n' +
                       bcrypt('slow', 's', cost=11) + '\n')
        srv = self.start(['-t', '1', '--timeout', '1',
                          '--auth-file', '/private/:' + pw])
        # How long one check takes here: the request must come when less
        # than that is left of the idle time, whatever the machine.
        start = time.monotonic()
        self.assertEqual(self.get(srv, '/private/s.txt', [
            ('Authorization', basic('cal', 'c'))]).status, 200)
        check = time.monotonic() - start
        idle = max(0.5, 1.0 - check / 2)
        h = [('Authorization', basic('slow', 's'))]
        with Conn(srv.host, srv.port) as c:
            c.send(build_request('GET', '/index.html'))
            self.assertEqual(c.read_response().status, 200)
            time.sleep(idle)
            start = time.monotonic()
            c.send(build_request('GET', '/private/s.txt', headers=h))
            r = c.read_response()
            took = time.monotonic() - start
        self.assertEqual(r.status, 200, (took, check, r.describe()))
        # The idle time was indeed used up meanwhile.
        self.assertGreater(took, 1.0 - idle, (took, check))
        srv.stop()

    def test_stop_during_checks(self):
        """SIGTERM while checks run: the drain lets them end, exit 0."""
        pw = self.file('drain.htpasswd', bcrypt('slow', 's', cost=11) + '\n')
        srv = self.start(['-t', '1', '--drain-timeout', '0.2',
                          '--auth-file', pw])
        conns = []
        for i in range(4):
            c = Conn(srv.host, srv.port)
            self.addCleanup(c.close)
            c.send(build_request('GET', '/', headers=[
                ('Authorization', basic('slow', 'x%d' % i))]))
            conns.append(c)
        time.sleep(0.1)
        srv.stop()


if __name__ == '__main__':
    unittest.main()
