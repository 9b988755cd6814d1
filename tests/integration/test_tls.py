"""HTTPS (--tls-cert, --tls-key, --http-redirect): a test CA made with the
openssl command signs the server's certificates; Python's ssl and curl
verify them.  TLS 1.2 and 1.3 only; keep-alive, pipelining, a 10 MiB file
and ranges over TLS; junk, plaintext and silent clients cost only their
own connection; session resumption; SNI; SIGHUP reloads the certificates;
start-up errors are one line and exit 2."""

import hashlib
import os
import re
import shutil
import signal
import socket
import ssl
import subprocess
import time
import unittest
import urllib.request

from httpraw import Conn, build_request
from target import ServerProcess, needs_process, temp_dir
from test_cli import free_port, run_cli

BIG = 10 << 20


def openssl(*args, cwd):
    subprocess.run(['openssl'] + list(args), cwd=cwd, check=True,
                   stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                   stderr=subprocess.PIPE)


def make_ca(d):
    openssl('req', '-x509', '-newkey', 'ec', '-pkeyopt',
            'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', 'ca.key',
            '-out', 'ca.pem', '-days', '2', '-subj', '/CN=sehttpd test CA',
            cwd=d)


def make_cert(d, name, sans, rsa=False):
    """name.pem (leaf, then the CA as its chain) and name.key."""
    with open(os.path.join(d, name + '.ext'), 'w') as fh:
        fh.write('subjectAltName=%s\n' % ','.join(sans))
    key = ['-newkey', 'rsa:2048'] if rsa else \
        ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1']
    openssl('req', '-new', *key, '-nodes', '-keyout', name + '.key',
            '-out', name + '.csr', '-subj', '/CN=' + name, cwd=d)
    openssl('x509', '-req', '-in', name + '.csr', '-CA', 'ca.pem',
            '-CAkey', 'ca.key', '-CAcreateserial', '-days', '2',
            '-extfile', name + '.ext', '-out', name + '.leaf', cwd=d)
    with open(os.path.join(d, name + '.pem'), 'wb') as out:
        for part in (name + '.leaf', 'ca.pem'):
            with open(os.path.join(d, part), 'rb') as fh:
                out.write(fh.read())


@needs_process('starts sehttpd with TLS')
class TlsTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        if not shutil.which('openssl'):
            raise unittest.SkipTest('the openssl command is not installed')
        cls.d = temp_dir('sehttpd-tls-')
        make_ca(cls.d)
        make_cert(cls.d, 'localhost', ['DNS:localhost', 'IP:127.0.0.1'])
        make_cert(cls.d, 'other', ['DNS:other.test', 'DNS:*.other.test'],
                  rsa=True)
        cls.root = os.path.join(cls.d, 'www')
        os.makedirs(cls.root)
        with open(os.path.join(cls.root, 'index.html'), 'w') as fh:
            fh.write('<p>hello over TLS</p>\n')
        cls.big = os.urandom(BIG)
        with open(os.path.join(cls.root, 'big.bin'), 'wb') as fh:
            fh.write(cls.big)
        cls.ca = os.path.join(cls.d, 'ca.pem')

    def path(self, name):
        return os.path.join(self.d, name)

    def pair(self, name):
        return ['--tls-cert', self.path(name + '.pem'),
                '--tls-key', self.path(name + '.key')]

    def start(self, args=(), pairs=('localhost',)):
        cmd = []
        for p in pairs:
            cmd += self.pair(p)
        srv = ServerProcess(cmd + ['--metrics', '127.0.0.1:0']
                            + list(args), root=self.root)
        self.addCleanup(srv.kill)
        self.assertIn('listening on https://', srv.listen_line)
        m = srv.wait_line(lambda s: 'metrics on' in s, 5)
        srv.metrics_port = int(re.search(r':(\d+)/metrics', m).group(1))
        return srv

    def metrics(self, srv):
        with urllib.request.urlopen('http://127.0.0.1:%d/metrics'
                                    % srv.metrics_port, timeout=5) as r:
            text = r.read().decode()
        return {k: int(v) for k, v in
                re.findall(r'^sehttpd_(tls_\w+) (\d+)$', text, re.M)}

    def metric(self, srv, name, want, at_least=False):
        """The counter tls_NAME, read until it is want (the server counts
        a handshake just after its last flight, which the client may
        have seen already)."""
        deadline = time.monotonic() + 5
        while True:
            got = self.metrics(srv)['tls_' + name]
            if (got >= want if at_least else got == want) or \
                    time.monotonic() > deadline:
                return got

    def context(self, **kw):
        ctx = ssl.create_default_context(cafile=self.ca)
        for k, v in kw.items():
            setattr(ctx, k, v)
        return ctx

    def conn(self, srv, ctx=None, name='localhost', **kw):
        return Conn('127.0.0.1', srv.port, tls=ctx or self.context(),
                    server_hostname=name, **kw)

    def read_to_close_notify(self, srv, pace):
        """GETs /big.bin with Connection: close over a socket with a 4 KiB
        receive buffer, reading 16 KiB every pace seconds once the first
        half is in (the server's last records fill the socket); returns
        the bytes and how it ended: 'close_notify' or 'eof' (the TCP end
        without it)."""
        raw = socket.socket()
        raw.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        raw.settimeout(20)
        raw.connect(('127.0.0.1', srv.port))
        parts, got, end = [], 0, None
        with self.context().wrap_socket(raw, server_hostname='localhost',
                                        suppress_ragged_eofs=False) as tls:
            tls.sendall(build_request('GET', '/big.bin',
                                      headers=['Connection: close']))
            while end is None:
                try:
                    chunk = tls.recv(16384)
                except ssl.SSLEOFError:
                    end = 'eof'
                    break
                if not chunk:
                    end = 'close_notify'
                    break
                parts.append(chunk)
                got += len(chunk)
                if got > BIG // 2:
                    time.sleep(pace)
        return b''.join(parts), end

    def test_close_notify_after_a_body_that_filled_the_socket(self):
        """A response ended by Connection: close ends with close_notify
        also when it was read slowly: OpenSSL 3 clients take an end
        without it for a cut.  The kernel guest's tlsget once had a body
        over kTLS end without it (a full socket is the likely cause);
        here, without kTLS, it passed before the change too."""
        srv = self.start()
        for pace in (0.0005, 0.002):
            with self.subTest(pace=pace):
                data, end = self.read_to_close_notify(srv, pace)
                self.assertEqual(end, 'close_notify')
                self.assertTrue(data.startswith(b'HTTP/1.1 200 '),
                                data[:200])
                self.assertEqual(
                    hashlib.sha256(data.split(b'\r\n\r\n', 1)[1])
                    .digest(), hashlib.sha256(self.big).digest())

    def get(self, srv, target='/', ctx=None, name='localhost',
            headers=()):
        with self.conn(srv, ctx, name) as c:
            c.send(build_request('GET', target, headers=headers))
            return c.read_response('GET'), c.sock

    def test_python_and_curl_verify(self):
        srv = self.start()
        r, _ = self.get(srv)
        self.assertEqual((r.status, r.body), (200, b'<p>hello over TLS</p>\n'))
        if shutil.which('curl'):
            p = subprocess.run(
                ['curl', '-sS', '--cacert', self.ca, '-o', '-', '-w',
                 '\n%{http_code} %{ssl_verify_result}',
                 'https://localhost:%d/' % srv.port],
                capture_output=True, timeout=20)
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertTrue(p.stdout.endswith(b'\n200 0'), p.stdout)
        srv.stop()

    def test_tls12_and_tls13_only(self):
        srv = self.start()
        for v in (ssl.TLSVersion.TLSv1_2, ssl.TLSVersion.TLSv1_3):
            with self.subTest(version=v):
                with self.conn(srv, self.context(minimum_version=v,
                                                 maximum_version=v)) as c:
                    self.assertEqual(c.sock.version(), v.name
                                     .replace('v1_', 'v1.'))
                    c.send(build_request('GET', '/'))
                    self.assertEqual(c.read_response().status, 200)
        for v in (ssl.TLSVersion.TLSv1, ssl.TLSVersion.TLSv1_1):
            with self.subTest(version=v):
                ctx = self.context(minimum_version=v, maximum_version=v)
                ctx.set_ciphers('DEFAULT@SECLEVEL=0')
                with self.assertRaises(ssl.SSLError) as cm:
                    self.conn(srv, ctx).close()
                # The server's alert, not the client's own refusal.
                self.assertIn('ALERT_PROTOCOL_VERSION', str(cm.exception))
        self.assertEqual(self.metric(srv, 'handshake_failures_total', 2), 2)
        srv.stop()

    def test_keep_alive_and_pipelining(self):
        srv = self.start()
        with self.conn(srv) as c:
            for _ in range(3):
                c.send(build_request('GET', '/'))
                self.assertEqual(c.read_response().status, 200)
            c.send(b''.join(build_request('GET', '/index.html')
                            for _ in range(40)))
            for _ in range(40):
                r = c.read_response()
                self.assertEqual(r.body, b'<p>hello over TLS</p>\n')
        self.assertEqual(self.metric(srv, 'handshakes_total', 1), 1)
        srv.stop()

    def test_big_file_and_ranges(self):
        srv = self.start()
        with self.conn(srv) as c:
            c.send(build_request('GET', '/big.bin'))
            r = c.read_response(limit=BIG)
            self.assertEqual(len(r.body), BIG)
            self.assertEqual(hashlib.sha256(r.body).digest(),
                             hashlib.sha256(self.big).digest())
            c.send(build_request('GET', '/big.bin',
                                 headers=['Range: bytes=1000-1099']))
            r = c.read_response()
            self.assertEqual((r.status, r.body), (206, self.big[1000:1100]))
            c.send(build_request('GET', '/big.bin',
                                 headers=['Range: bytes=-70000']))
            r = c.read_response()
            self.assertEqual((r.status, r.body), (206, self.big[-70000:]))
        srv.stop()

    def test_junk_plaintext_and_silence(self):
        srv = self.start(['--timeout', '1'])
        cases = {
            'plaintext HTTP': b'GET / HTTP/1.1\r\nHost: x\r\n\r\n',
            'junk': os.urandom(3000),
            # A record header promising more than ever comes.
            'truncated record': b'\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03',
        }
        for what, data in cases.items():
            with self.subTest(what):
                with Conn('127.0.0.1', srv.port) as raw:
                    raw.send(data)
                    closed, _ = raw.wait_closed(3)
                    self.assertTrue(closed, what)
        # Silent, and trickling a ClientHello: cut at the head timeout
        # while a good client is served meanwhile.
        silent = Conn('127.0.0.1', srv.port)
        trickle = Conn('127.0.0.1', srv.port)
        trickle.send(b'\x16\x03\x01')
        start = time.monotonic()
        r, _ = self.get(srv)
        self.assertEqual(r.status, 200)
        for c in (silent, trickle):
            if c is trickle:
                trickle.send(b'\x02')
            closed, _ = c.wait_closed(4)
            self.assertTrue(closed)
            c.close()
        self.assertLess(time.monotonic() - start, 3.5)
        self.assertEqual(self.get(srv)[0].status, 200)
        self.assertGreaterEqual(
            self.metric(srv, 'handshake_failures_total', 2, True), 2)
        srv.stop()

    def test_plain_http_told_it_came_to_the_https_port(self):
        """As nginx answers it: a plain 400 saying why, not a silent
        close (curl: 'Empty reply from server')."""
        srv = self.start([])
        for method in ('GET', 'HEAD', 'POST'):
            with self.subTest(method=method):
                with Conn('127.0.0.1', srv.port) as raw:
                    raw.send(build_request(method, '/'))
                    resp = raw.read_response(method)
                    # A HEAD's answer has no body (RFC 9110 9.3.2): it
                    # had the page's 55 bytes after its head.
                    closed, rest = raw.wait_closed(3)
                self.assertTrue(closed)
                self.assertEqual(rest, b'', 'bytes after the answer')
                self.assertEqual(resp.status, 400, resp.describe())
                self.assertIn('close', resp.connection_tokens())
                # Every 4xx of an origin server carries a Date (RFC 9110
                # 6.6.1): before, this one was a fixed string without.
                self.assertRegex(resp.header('Date') or '',
                                 r'^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} '
                                 r'\d{4} \d{2}:\d{2}:\d{2} GMT$',
                                 resp.describe())
                self.assertEqual(resp.header('Server'), 'sehttpd')
                if method != 'HEAD':
                    self.assertIn(b'plain HTTP request was sent to the '
                                  b'HTTPS port', resp.body)
        self.assertEqual(self.get(srv)[0].status, 200)
        srv.stop()

    def test_resumption(self):
        srv = self.start()
        for v in (ssl.TLSVersion.TLSv1_2, ssl.TLSVersion.TLSv1_3):
            with self.subTest(version=v):
                ctx = self.context(minimum_version=v, maximum_version=v)
                with self.conn(srv, ctx) as c:
                    c.send(build_request('GET', '/'))
                    c.read_response()  # 1.3 tickets come after the finish
                    session = c.sock.session
                sock = socket.create_connection(('127.0.0.1', srv.port))
                with ctx.wrap_socket(sock, server_hostname='localhost',
                                     session=session) as s:
                    self.assertTrue(s.session_reused)
                    # The server's side ends at the client's Finished,
                    # which may still be on its way: an answer says done.
                    s.sendall(build_request('GET', '/'))
                    self.assertTrue(s.recv(4096).startswith(b'HTTP/1.1 200'))
        self.assertEqual(self.metric(srv, 'resumed_total', 2), 2)
        srv.stop()

    def test_alpn(self):
        """h2 when offered (ours is the preference), else http/1.1."""
        srv = self.start()
        for offer, want in ((['http/1.1', 'h2'], 'h2'),
                            (['h2'], 'h2'),
                            (['http/1.1'], 'http/1.1'),
                            (['spdy/3'], None)):
            ctx = self.context()
            ctx.set_alpn_protocols(offer)
            with self.conn(srv, ctx) as c:
                self.assertEqual(c.sock.selected_alpn_protocol(), want)
                if want == 'h2':
                    # The server's first frame is its SETTINGS.
                    c.send(b'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n'
                           b'\x00\x00\x00\x04\x00\x00\x00\x00\x00')
                    head = c.sock.recv(9)
                    self.assertEqual(head[3], 4, head)
                    continue
                c.send(build_request('GET', '/'))
                self.assertEqual(c.read_response().status, 200)
        srv.stop()

    def test_sni_picks_the_pair(self):
        srv = self.start(pairs=('localhost', 'other'))
        for name, cn in (('localhost', 'localhost'),
                         ('other.test', 'other'),
                         ('www.other.test', 'other')):
            with self.subTest(name=name):
                r, sock = self.get(srv, name=name)
                self.assertEqual(r.status, 200)
        # No SNI, or a name no pair has: the first pair.
        ctx = self.context(check_hostname=False)
        with self.conn(srv, ctx, name='nobody.example') as c:
            subject = dict(x[0] for x in c.sock.getpeercert()['subject'])
            self.assertEqual(subject['commonName'], 'localhost')
        srv.stop()

    def serial(self, srv):
        with self.conn(srv) as c:
            return c.sock.getpeercert()['serialNumber']

    def test_sighup_reloads(self):
        # Started as root, sehttpd serves as nobody: a reload reads the
        # files as that user, so they are made readable to it (as README
        # says to do, or systemd's LoadCredential= does).
        d = temp_dir('sehttpd-tls-reload-')
        os.chmod(d, 0o755)
        for ext in ('.pem', '.key'):
            shutil.copy(self.path('localhost' + ext), d)
            os.chmod(os.path.join(d, 'localhost' + ext), 0o644)
        srv = ServerProcess(['--tls-cert', os.path.join(d, 'localhost.pem'),
                             '--tls-key', os.path.join(d, 'localhost.key')],
                            root=self.root)
        self.addCleanup(srv.kill)
        before = self.serial(srv)
        old = self.conn(srv)
        self.addCleanup(old.close)
        # Renewed: a new certificate and key at the same paths.
        make_cert(self.d, 'renewed', ['DNS:localhost'])
        for ext in ('.pem', '.key'):
            with open(self.path('renewed' + ext), 'rb') as src, \
                    open(os.path.join(d, 'localhost' + ext), 'wb') as dst:
                dst.write(src.read())
        srv.send_signal(signal.SIGHUP)
        deadline = time.monotonic() + 5
        while self.serial(srv) == before and time.monotonic() < deadline:
            time.sleep(0.05)
        after = self.serial(srv)
        self.assertNotEqual(after, before)
        # The connection opened before goes on.
        old.send(build_request('GET', '/'))
        self.assertEqual(old.read_response().status, 200)
        # A broken renewal keeps what was loaded, and says why.
        with open(os.path.join(d, 'localhost.key'), 'w') as fh:
            fh.write('not a key\n')
        srv.send_signal(signal.SIGHUP)
        deadline = time.monotonic() + 5
        while 'reload' not in srv.stderr_text() and \
                time.monotonic() < deadline:
            time.sleep(0.05)
        err = srv.stderr_text()
        self.assertIn('reload', err)
        self.assertIn('localhost.key', err)
        self.assertEqual(len(err.strip().splitlines()), 1, err)
        self.assertEqual(self.serial(srv), after)
        srv.stop()

    def test_redirect(self):
        port = free_port()
        srv = self.start(['--http-redirect', str(port)])
        cases = (
            (build_request('GET', '/a/b?x=1', host='example.com:%d' % port),
             'https://example.com:%d/a/b?x=1' % srv.port),
            (build_request('HEAD', '/', host='[::1]:80'),
             'https://[::1]:%d/' % srv.port),
            # The absolute-form target's authority wins over Host.
            (build_request('GET', 'http://h.test/p%20q'),
             'https://h.test:%d/p%%20q' % srv.port),
            # Still a URI: before, these bytes went into Location raw.
            (b'GET /a"b<c>?{x}\xff HTTP/1.1\r\nHost: h.test\r\n\r\n',
             'https://h.test:%d/a%%22b%%3Cc%%3E?%%7Bx%%7D%%FF' % srv.port),
            # A valid URI, as a directory's redirect gives: what a URI
            # may not hold as it is goes percent-encoded (it went raw).
            (build_request('GET', '/a"b<c>{d}|\xe9?q="x"<y>^',
                           host='example.com'),
             'https://example.com:%d/a%%22b%%3Cc%%3E%%7Bd%%7D%%7C%%C3%%A9'
             '?q=%%22x%%22%%3Cy%%3E%%5E' % srv.port),
        )
        for req, want in cases:
            with self.subTest(req=req):
                with Conn('127.0.0.1', port) as c:
                    c.send(req)
                    r = c.read_response(req.split(b' ', 1)[0].decode())
                    self.assertEqual(r.status, 308, r.describe())
                    self.assertEqual(r.header('Location'), want)
        with Conn('127.0.0.1', port) as c:
            c.send(b'GET / HTTP/1.0\r\n\r\n')
            self.assertEqual(c.read_response().status, 400)
        srv.stop()

    def test_redirect_announced(self):
        """A line for each redirect listener, beside the https ones."""
        port = free_port()
        srv = self.start(['--http-redirect', str(port), '-b', '127.0.0.2'])
        with srv.cond:
            lines = [x for x in srv.lines if 'listening on' in x]
        self.assertEqual(len(lines), 4, lines)
        # -p 0: each -b address has a port of its own; the redirect
        # sends clients to the first one's.
        for i, host in enumerate(('127.0.0.1', '127.0.0.2')):
            self.assertIn('listening on https://%s:' % host, lines[i])
            self.assertEqual(lines[2 + i], 'sehttpd: listening on '
                             'http://%s:%d/ (redirects to https, port %d)'
                             % (host, port, srv.port))
        srv.stop()

    def test_redirect_on_every_address(self):
        """With several -b, each TCP address has the redirect's port too,
        sending clients to the first one's TLS port; a Unix socket none."""
        port = free_port()
        sock = os.path.join(temp_dir(), 'tls.sock')
        srv = self.start(['--http-redirect', str(port), '-b', '127.0.0.2',
                          '-b', 'unix:' + sock])
        srv.wait_line(lambda _: sum('listening on' in x
                                    for x in srv.lines) >= 3, 5)
        self.assertIn('listening on unix:%s' % sock, '\n'.join(srv.lines))
        for host in ('127.0.0.1', '127.0.0.2'):
            with self.subTest(host=host), Conn(host, port) as c:
                c.send(build_request('GET', '/x', host='h.test'))
                r = c.read_response()
                self.assertEqual(r.status, 308, r.describe())
                self.assertEqual(r.header('Location'),
                                 'https://h.test:%d/x' % srv.port)
        # HTTPS on the Unix socket too: records made in user space, as no
        # kTLS there, and no TCP option in the way.
        raw = socket.socket(socket.AF_UNIX)
        raw.settimeout(10)
        raw.connect(sock)
        with self.context().wrap_socket(raw, server_hostname='localhost') \
                as tls:
            tls.sendall(build_request('GET', '/big.bin',
                                      headers=['Connection: close']))
            parts, got = [], 0
            while got < BIG + 4096:
                chunk = tls.recv(1 << 16)
                if not chunk:
                    break
                parts.append(chunk)
                got += len(chunk)
        data = b''.join(parts)
        self.assertTrue(data.startswith(b'HTTP/1.1 200 '), data[:200])
        self.assertEqual(hashlib.sha256(data.split(b'\r\n\r\n', 1)[1])
                         .digest(), hashlib.sha256(self.big).digest())
        srv.stop()
        rc, out, err = run_cli(['-b', 'unix:' + sock, '--http-redirect',
                                str(port)] + self.pair('localhost') +
                               [self.root])
        self.assertEqual(rc, 2, err)
        self.assertEqual(err, 'sehttpd: --http-redirect needs a TCP '
                         'listener\n')

    def test_redirect_at_the_https_port(self):
        """--http-redirect at the port HTTPS is served on: said so, where it
        was "port already in use" with nothing else listening there."""
        port = free_port()
        for args in (['-b', '127.0.0.1', '-p', str(port)],
                     ['-b', '127.0.0.1:%d' % port]):
            with self.subTest(args=args):
                rc, out, err = run_cli(args + ['--http-redirect', str(port)]
                                       + self.pair('localhost') +
                                       [self.root])
                self.assertEqual(rc, 2, err)
                self.assertEqual(err, 'sehttpd: --http-redirect %d: port %d '
                                 'is where this server serves its site; the '
                                 'redirect needs a port of its own\n'
                                 % (port, port))

    def test_start_up_errors(self):
        cert, key = self.path('localhost.pem'), self.path('localhost.key')
        # The chain before the server's certificate: the key is found,
        # second, and the order named as the fault, not the key.
        reversed_chain = self.path('reversed.pem')
        with open(reversed_chain, 'wb') as out:
            for part in ('ca.pem', 'localhost.leaf'):
                with open(self.path(part), 'rb') as fh:
                    out.write(fh.read())
        cases = (
            (['--tls-cert', reversed_chain, '--tls-key', key],
             'is the key of certificate 2 of 2 in --tls-cert %s: the '
             "server's own certificate comes first" % reversed_chain),
            (['--tls-cert', cert], '1 --tls-cert but 0 --tls-key'),
            (['--tls-key', key], '0 --tls-cert but 1 --tls-key'),
            (['--tls-cert', self.path('missing.pem'), '--tls-key', key],
             'No such file'),
            (['--tls-cert', cert, '--tls-key', self.path('other.key')],
             'does not match the first certificate in --tls-cert ' + cert),
            (['--tls-cert', key, '--tls-key', key], 'no PEM certificate'),
            (['--tls-cert', cert, '--tls-key', cert], 'no PEM private key'),
            (['--http-redirect', '8081'], 'needs --tls-cert'),
            (['--tls-cert', cert, '--tls-key', key, '--http-redirect',
              '0'], "invalid redirect port '0'"),
        )
        for args, want in cases:
            with self.subTest(args=args):
                rc, out, err = run_cli(['-p', '0'] + args + [self.root])
                self.assertEqual(rc, 2, err)
                self.assertIn(want, err)
                self.assertEqual(len(err.strip().splitlines()), 1, err)


if __name__ == '__main__':
    unittest.main()
