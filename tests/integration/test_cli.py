"""The command line: flags, bad values, the listening line, IPv6,
signals and graceful shutdown, and the access log."""

import base64
import datetime
import http.client
import os
import pwd
import re
import shutil
import signal
import socket
import subprocess
import time
import unittest

import httpraw
from httpraw import build_request, Conn, ConnectionClosed
from target import (ServerProcess, ServerTestCase, needs_process,
                    nobody_bin, sehttpd_bin, session_tree, temp_dir)
from test_metrics import METRICS_LINE, parse_exposition

LISTEN_LINE = re.compile(r'^sehttpd: listening on http://(\S+):(\d+)/ '
                         r'\(root (.+), (\d+) threads?\)$')
CLF = re.compile(r'^(\S+) (\S+) (\S+) \[(\d\d/[A-Z][a-z]{2}/\d{4}:\d\d:\d\d:'
                 r'\d\d [+-]\d{4})\] "((?:[^"\\]|\\.)*)" (\d{3}) (\d+|-) '
                 r'"((?:[^"\\]|\\.)*)" "((?:[^"\\]|\\.)*)"$')
LOG_WAIT_S = 1.2  # "within a second", plus scheduling slack
HTPASSWD = shutil.which('htpasswd')


def clf_unescape(field):
    """Undoes the escaping of a quoted log field: \\" or \\xHH for a
    quote, \\\\ for a backslash, \\t or \\xHH for control bytes."""
    simple = {'"': '"', '\\': '\\', 't': '\t', 'n': '\n', 'r': '\r'}
    return re.sub(r'\\(x[0-9A-Fa-f]{2}|.)',
                  lambda m: chr(int(m.group(1)[1:], 16))
                  if len(m.group(1)) == 3 else simple.get(m.group(1),
                                                          m.group(0)),
                  field)


def run_cli(args, cwd=None, timeout=5):
    """Runs sehttpd expecting it to exit on its own; returns (rc, stdout,
    stderr), rc None when it kept running (it is then killed)."""
    p = subprocess.Popen([sehttpd_bin()] + list(args), cwd=cwd,
                         stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE)
    try:
        out, err = p.communicate(timeout=timeout)
        rc = p.returncode
    except subprocess.TimeoutExpired:
        p.kill()
        out, err = p.communicate()
        rc = None
    return rc, out.decode('utf-8', 'replace'), err.decode('utf-8', 'replace')


def free_port(host='127.0.0.1'):
    s = socket.socket(httpraw.addr_family(host))
    s.bind((host, 0))
    port = s.getsockname()[1]
    s.close()
    return port


@needs_process('runs sehttpd with command-line options')
class CommandLineTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.tree = session_tree()

    def start(self, args=(), **kw):
        kw.setdefault('root', self.tree.www)
        srv = ServerProcess(args, **kw)
        self.addCleanup(srv.kill)
        return srv

    def serve_check(self, host, port):
        with Conn(host, port) as c:
            c.send(build_request('GET', '/a.txt'))
            resp = c.read_response()
        self.assertEqual(resp.body, self.tree.files['/a.txt'])

    def expect_usage_error(self, args, cwd=None):
        rc, out, err = run_cli(args, cwd)
        what = 'sehttpd %s' % ' '.join(args)
        self.assertIsNotNone(rc, '%s kept running' % what)
        self.assertEqual(rc, 2, '%s: exit %s, stderr %r' % (what, rc, err))
        lines = err.splitlines()
        self.assertEqual(len(lines), 1, '%s: stderr should be one line: %r'
                         % (what, err))
        self.assertTrue(lines[0].startswith('sehttpd: '),
                        '%s: %r' % (what, lines[0]))
        self.assertNotIn('listening', out)

    def test_help(self):
        for flag in ('-h', '--help'):
            with self.subTest(flag=flag):
                rc, out, err = run_cli([flag])
                self.assertEqual(rc, 0)
                self.assertIn('usage', out.lower())
                for opt in ('--port', '--bind', '--threads', '--timeout',
                            '--no-listing', '--access-log',
                            '--drain-timeout'):
                    self.assertIn(opt, out, 'usage does not mention ' + opt)
                # The summary above the options says what it speaks.
                summary = out.split('\n\n')[0]
                for proto in ('HTTP/1.1', 'HTTP/2', 'HTTPS'):
                    self.assertIn(proto, summary)

    def test_version(self):
        for flag in ('-V', '--version'):
            with self.subTest(flag=flag):
                rc, out, err = run_cli([flag])
                self.assertEqual(rc, 0)
                self.assertIn('sehttpd', out)
                self.assertEqual(err, '')

    def test_bad_flags_and_values(self):
        www = self.tree.www
        cases = [['--bogus'], ['-x'], ['-p', '70000'], ['-p', '65536'],
                 ['-p', '-1'], ['-p', 'abc'], ['-p', '80x'], ['-p', ''],
                 ['-t', '0'], ['-t', 'abc'], ['-t', '-2'],
                 ['--threads', '0'], ['--timeout', '-1'],
                 ['--timeout', 'abc'], ['--timeout', ''],
                 ['--timeout', '1x'], ['--drain-timeout', '-1'],
                 ['--drain-timeout', 'x'], ['-b', 'not-an-address'],
                 ['-b', '256.1.1.1'], ['--port'], ['-p']]
        for args in cases:
            full = ['-b', '127.0.0.1', '-p', '0'] + args + [www] \
                if args[-1] not in ('--port', '-p') else args
            with self.subTest(args=args):
                self.expect_usage_error(full)

    def test_bad_root(self):
        missing = os.path.join(temp_dir(), 'missing')
        for root in (missing, os.path.join(self.tree.www, 'a.txt'),
                     os.path.join(self.tree.www, 'link_inside.txt')):
            with self.subTest(root=root):
                self.expect_usage_error(['-b', '127.0.0.1', '-p', '0', root])

    def test_unreadable_root(self):
        if os.getuid() != 0:
            self.skipTest('needs root to run sehttpd as nobody')
        hidden = temp_dir()
        os.chmod(hidden, 0o700)
        secret = os.path.join(hidden, 'www')
        os.mkdir(secret)

        def as_nobody():
            os.setgid(65534)
            os.setuid(65534)

        p = subprocess.run([nobody_bin(), '-b', '127.0.0.1', '-p', '0',
                            secret], stdin=subprocess.DEVNULL,
                           capture_output=True, timeout=5,
                           preexec_fn=as_nobody)
        err = p.stderr.decode('utf-8', 'replace')
        self.assertEqual(p.returncode, 2, 'ROOT %s unreadable for nobody: '
                         'exit %s, stderr %r' % (secret, p.returncode, err))
        self.assertEqual(len(err.splitlines()), 1, err)
        self.assertTrue(err.startswith('sehttpd: '), err)

    def test_default_root_is_www(self):
        empty = temp_dir()
        self.expect_usage_error(['-b', '127.0.0.1', '-p', '0'], cwd=empty)
        srv = self.start(root=None, cwd=self.tree.base)
        m = LISTEN_LINE.match(srv.listen_line)
        self.assertIsNotNone(m, srv.listen_line)
        self.assertEqual(os.path.realpath(m.group(3)),
                         os.path.realpath(self.tree.www))
        self.serve_check(srv.host, srv.port)
        srv.stop()

    def test_listening_line(self):
        srv = self.start(['-t', '3'])
        m = LISTEN_LINE.match(srv.listen_line)
        self.assertIsNotNone(m, 'listening line %r' % srv.listen_line)
        self.assertEqual(m.group(1), '127.0.0.1')
        self.assertNotEqual(int(m.group(2)), 0)
        self.assertTrue(os.path.isabs(m.group(3)))
        self.assertEqual(os.path.realpath(m.group(3)),
                         os.path.realpath(self.tree.www))
        self.assertEqual(m.group(4), '3')
        self.serve_check(srv.host, srv.port)
        srv.stop()

    def test_relative_root_printed_absolute(self):
        srv = self.start(root='www', cwd=self.tree.base)
        m = LISTEN_LINE.match(srv.listen_line)
        self.assertIsNotNone(m, srv.listen_line)
        self.assertTrue(m.group(3).startswith('/'), m.group(3))
        self.serve_check(srv.host, srv.port)
        srv.stop()

    def test_default_threads_online_cpus(self):
        srv = self.start()
        m = LISTEN_LINE.match(srv.listen_line)
        self.assertIsNotNone(m, srv.listen_line)
        self.assertEqual(int(m.group(4)),
                         os.sysconf('SC_NPROCESSORS_ONLN'))
        srv.stop()

    def test_long_options(self):
        port = free_port()
        srv = self.start(['--bind', '127.0.0.1', '--port', str(port),
                          '--threads', '2', '--timeout', '5'],
                         bind=None, port=None)
        self.assertEqual(srv.port, port)
        m = LISTEN_LINE.match(srv.listen_line)
        self.assertEqual(m.group(4), '2')
        self.serve_check('127.0.0.1', port)
        srv.stop()

    def test_default_bind_and_port(self):
        probe = socket.socket()
        try:
            probe.bind(('0.0.0.0', 8080))
        except OSError:
            self.skipTest('port 8080 is in use here')
        finally:
            probe.close()
        srv = self.start(bind=None, port=None)
        self.assertEqual(srv.port, 8080)
        self.serve_check('127.0.0.1', 8080)
        srv.stop()

    def test_ipv6(self):
        srv = self.start(bind='::1')
        self.assertIn('http://[::1]:%d/' % srv.port, srv.listen_line)
        self.assertEqual(srv.host, '::1')
        self.serve_check('::1', srv.port)
        srv.stop()

    def test_port_in_use(self):
        holder = socket.socket()
        holder.bind(('127.0.0.1', 0))
        holder.listen(1)
        try:
            port = holder.getsockname()[1]
            self.expect_usage_error(['-b', '127.0.0.1', '-p', str(port),
                                     self.tree.www])
        finally:
            holder.close()

    def test_second_sehttpd_same_port(self):
        first = self.start()
        self.expect_usage_error(['-b', '127.0.0.1', '-p', str(first.port),
                                 self.tree.www])
        self.serve_check(first.host, first.port)
        first.stop()

    # --- signals --------------------------------------------------------

    def test_sigint_and_sigterm_exit_0(self):
        for sig in (signal.SIGINT, signal.SIGTERM):
            with self.subTest(sig=sig):
                srv = self.start()
                self.serve_check(srv.host, srv.port)
                srv.send_signal(sig)
                self.assertEqual(srv.wait(3), 0, srv.stderr_text())

    def test_signal_closes_idle_connections(self):
        srv = self.start()  # default --timeout 15: closing must not wait
        idle = Conn(srv.host, srv.port)
        self.addCleanup(idle.close)
        idle.send(build_request('GET', '/a.txt'))
        self.assertEqual(idle.read_response().status, 200)
        silent = Conn(srv.host, srv.port)
        self.addCleanup(silent.close)
        time.sleep(0.1)
        start = time.monotonic()
        srv.send_signal(signal.SIGTERM)
        for c in (idle, silent):
            closed, data = c.wait_closed(3)
            self.assertTrue(closed, 'idle connection still open 3 s after '
                            'SIGTERM')
        self.assertEqual(srv.wait(3), 0)
        self.assertLess(time.monotonic() - start, 3.5)

    def first_request_in_the_drain(self, args=(), tls=None, proxy=None):
        """A connection accepted but not yet asked anything when SIGTERM
        comes may still ask, once, within a second: a client does not
        send a new connection's first request again, as it does the next
        one on a kept connection.  tls: an ssl.SSLContext whose handshake
        comes after the signal; proxy: a PROXY header sent 0.1 s before
        the request."""
        srv = self.start(['--drain-timeout', '30'] + list(args))
        fresh = Conn(srv.host, srv.port)
        self.addCleanup(fresh.close)
        time.sleep(0.2)  # accepted, well before the signal
        start = time.monotonic()
        srv.send_signal(signal.SIGTERM)
        time.sleep(0.3)
        try:
            if tls:
                fresh.sock = tls.wrap_socket(fresh.sock,
                                             server_hostname='localhost')
            if proxy:
                fresh.send(proxy)
                time.sleep(0.1)
            fresh.send(build_request('GET', '/a.txt'))
            resp = fresh.read_response()
        except (OSError, ConnectionClosed) as e:
            self.fail('first request after SIGTERM not answered: %r' % e)
        self.assertEqual(resp.status, 200)
        self.assertEqual(resp.header('Connection'), 'close')
        self.assertEqual(resp.body, self.tree.files['/a.txt'])
        closed, _ = fresh.wait_closed(2)
        self.assertTrue(closed, 'connection kept after its answer')
        # And the drain does not wait for its timeout on them.
        self.assertEqual(srv.wait(3), 0, srv.stderr_text())
        self.assertLess(time.monotonic() - start, 3)

    def test_first_request_in_the_drain_answered(self):
        """Before, it was closed unanswered (the soak saw it across
        restarts under socket activation)."""
        self.first_request_in_the_drain()

    def test_first_request_in_the_drain_answered_over_tls(self):
        """The handshake goes idle once, waiting for the client's
        Finished: that was taken for the end of an answered connection
        and closed."""
        # Here: test_http2 imports test_tls, which imports this module.
        from test_http2 import tls_context, tls_files
        ca, tls_args = tls_files()
        self.first_request_in_the_drain(tls_args,
                                        tls=tls_context(ca, ('http/1.1',)))

    def test_first_request_in_the_drain_answered_after_proxy_header(self):
        self.first_request_in_the_drain(
            ['--proxy-protocol'],
            proxy=b'PROXY TCP4 192.0.2.1 192.0.2.2 1111 80\r\n')

    def test_drain_keeps_a_queued_response_from_a_pipelined_request(self):
        """The response is all in the server's socket (the client reads
        through a 4 KiB buffer) when SIGTERM comes, and it did not say
        it would close: a client may pipeline its next request as it
        reads.  Arriving at a closed socket, that request would draw a
        reset and the response's tail would be lost."""
        srv = self.start(['--drain-timeout', '30'])
        url = '/big/1m.bin'
        c = Conn(srv.host, srv.port, rcvbuf=4096)
        self.addCleanup(c.close)
        c.send(build_request('GET', url))
        time.sleep(0.3)
        srv.send_signal(signal.SIGTERM)
        time.sleep(0.3)
        c.send(build_request('GET', '/a.txt'))
        try:
            resp = c.read_response()
        except (OSError, ConnectionClosed) as e:
            self.fail('response cut short: %r' % e)
        self.assertEqual(resp.status, 200)
        self.assertEqual(resp.body, self.tree.files[url])
        self.assertEqual(srv.wait(5), 0, srv.stderr_text())

    def test_graceful_shutdown_finishes_slow_download(self):
        """The download lasts about 4 timeouts after the signal, but
        every read is progress, so it must complete within the drain
        timeout."""
        srv = self.start(['--timeout', '1', '--drain-timeout', '30'])
        idle = Conn(srv.host, srv.port)
        self.addCleanup(idle.close)
        idle.send(build_request('GET', '/a.txt'))
        self.assertEqual(idle.read_response().status, 200)
        slow = Conn(srv.host, srv.port, rcvbuf=65536)
        self.addCleanup(slow.close)
        slow.send(build_request('GET', '/big/10m.bin'))
        resp = slow.read_response(body=False)
        self.assertEqual(resp.status, 200)
        body = bytearray(slow.buf)
        slow.buf.clear()
        while len(body) < 256 << 10:
            chunk = slow.sock.recv(65536)
            self.assertTrue(chunk, 'download ended early')
            body += chunk
        srv.send_signal(signal.SIGTERM)

        # New connections are refused soon after the signal.
        deadline = time.monotonic() + 2
        while not httpraw.connect_refused(srv.host, srv.port):
            self.assertLess(time.monotonic(), deadline, 'still accepting '
                            'connections 2 s after SIGTERM')
            time.sleep(0.05)
        closed, _ = idle.wait_closed(2)
        self.assertTrue(closed, 'idle connection not closed on SIGTERM')

        # The in-flight download goes on, read slowly (about 2.5 MiB/s).
        size = len(self.tree.files['/big/10m.bin'])
        signalled = time.monotonic()
        while len(body) < size:
            chunk = slow.sock.recv(65536)
            if not chunk:
                break
            body += chunk
            time.sleep(0.025)
        self.assertEqual(len(body), size, 'download cut short by shutdown '
                         '%.1f s after SIGTERM (--timeout 1, still reading)'
                         % (time.monotonic() - signalled))
        self.assertEqual(bytes(body), self.tree.files['/big/10m.bin'])
        self.assertTrue(httpraw.connect_refused(srv.host, srv.port))
        self.assertEqual(srv.wait(4), 0, 'not exited 4 s after the last '
                         'response (stderr %r)' % srv.stderr_text())

    def start_slow_download(self, srv):
        """A download read steadily at about 200 KB/s (10 MiB: 50 s)."""
        c = Conn(srv.host, srv.port, rcvbuf=16384)
        self.addCleanup(c.close)
        c.send(build_request('GET', '/big/10m.bin'))
        self.assertEqual(c.read_response(body=False).status, 200)
        c.buf.clear()
        c.got = 0
        c.start = time.monotonic()
        self.read_slowly(c, 0.3)
        return c

    def read_slowly(self, c, seconds):
        """Reads c at 200 KB/s for seconds; True at the end of stream."""
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            try:
                chunk = c.sock.recv(16384)
            except ConnectionResetError:
                chunk = b''
            if not chunk:
                return True
            c.got += len(chunk)
            ahead = c.got / 200e3 - (time.monotonic() - c.start)
            if ahead > 0:
                time.sleep(ahead)
        return False

    def test_drain_bounded_by_default(self):
        """SIGTERM lets a slow but steady download go on for at most
        the drain timeout (5 s by default), not until it ends (what the
        kernel already holds in the socket buffers may still arrive)."""
        srv = self.start(['--timeout', '5'])
        c = self.start_slow_download(srv)
        signalled = time.monotonic()
        srv.send_signal(signal.SIGTERM)
        while srv.alive() and time.monotonic() - signalled < 9:
            if self.read_slowly(c, 0.1):
                break
        elapsed = time.monotonic() - signalled
        self.assertEqual(srv.wait(0.5), 0, 'still running %.1f s after '
                         'SIGTERM with a download in flight; stderr %r'
                         % (elapsed, srv.stderr_text()))
        self.assertGreater(elapsed, 4, 'drained for less than 5 s')

    def test_second_signal_stops_at_once(self):
        for sig in (signal.SIGTERM, signal.SIGINT):
            with self.subTest(sig=sig):
                srv = self.start(['--timeout', '5'])
                c = self.start_slow_download(srv)
                srv.send_signal(sig)
                self.assertFalse(self.read_slowly(c, 0.5),
                                 'the first signal cut the download off')
                again = time.monotonic()
                srv.send_signal(sig)
                rc = srv.wait(2)
                self.assertEqual(rc, 0, 'exit status %r %.1f s after a '
                                 'second signal; stderr %r'
                                 % (rc, time.monotonic() - again,
                                    srv.stderr_text()))

    def test_shutdown_bounded_by_stuck_client(self):
        """A client that stops reading mid-download cannot hold the
        server up for longer than about the timeout."""
        srv = self.start(['--timeout', '1'])
        stuck = Conn(srv.host, srv.port, rcvbuf=16384)
        self.addCleanup(stuck.close)
        stuck.send(build_request('GET', '/big/10m.bin'))
        stuck.read_response(body=False)
        time.sleep(0.2)
        start = time.monotonic()
        srv.send_signal(signal.SIGTERM)
        rc = srv.wait(5)
        self.assertEqual(rc, 0, 'exit status %r %.1f s after SIGTERM with '
                         'a stuck client (timeout 1 s)'
                         % (rc, time.monotonic() - start))


class AccessLogMixin:
    """Reads the access log lines a server writes."""

    def log_lines(self):
        raise NotImplementedError

    def log_bytes(self):
        """The bytes of the log file at log_path; none before it is made."""
        try:
            with open(self.log_path, 'rb') as fh:
                return fh.read()
        except FileNotFoundError:
            return b''

    def file_lines(self, errors='strict'):
        """The complete lines of the log file, decoded as UTF-8."""
        data = self.log_bytes()
        return data[:data.rfind(b'\n') + 1].decode('utf-8',
                                                   errors).splitlines()

    def wait_lines(self, count, since=0, within=LOG_WAIT_S):
        deadline = time.monotonic() + within
        while True:
            lines = self.log_lines()[since:]
            if len(lines) >= count or time.monotonic() > deadline:
                return lines
            time.sleep(0.05)

    def parse(self, line):
        m = CLF.match(line)
        self.assertIsNotNone(m, 'not a Combined Log Format line: %r' % line)
        host, ident, user, when, req, status, size, ref, ua = m.groups()
        self.assertEqual(ident, '-')
        t = datetime.datetime.strptime(when, '%d/%b/%Y:%H:%M:%S %z')
        self.assertLess(abs(t.timestamp() - time.time()), 10,
                        'log time %s is not now' % when)
        return {'host': host, 'user': user, 'request': req,
                'status': int(status), 'size': size, 'referer': ref,
                'agent': ua}

    def check_basic_lines(self):
        n0 = len(self.log_lines())
        with self.target.conn() as c:
            c.send(build_request('GET', '/a.txt', headers=[
                ('User-Agent', 'it-agent/1.0'),
                ('Referer', 'http://ref.test/page')]))
            self.assertEqual(c.read_response().status, 200)
            c.send(build_request('GET', '/nope.txt'))
            r404 = c.read_response()
            c.send(build_request('HEAD', '/b.txt'))
            c.read_response('HEAD')
        lines = self.wait_lines(3, n0)
        self.assertEqual(len(lines), 3, 'expected 3 new lines within %.1f s'
                         ': %r' % (LOG_WAIT_S, lines))
        a, b, c = [self.parse(x) for x in lines]
        self.assertEqual(a, {'host': '127.0.0.1', 'user': '-',
                             'request': 'GET /a.txt HTTP/1.1',
                             'status': 200, 'size': '12',
                             'referer': 'http://ref.test/page',
                             'agent': 'it-agent/1.0'})
        self.assertEqual((b['request'], b['status'], b['size'],
                          b['referer'], b['agent']),
                         ('GET /nope.txt HTTP/1.1', 404, str(len(r404.body)),
                          '-', '-'))
        self.assertEqual((c['request'], c['status']),
                         ('HEAD /b.txt HTTP/1.1', 200))
        self.assertIn(c['size'], ('0', '-'), 'HEAD sends no body bytes')


@needs_process('starts sehttpd with --access-log FILE')
class AccessLogFileTest(ServerTestCase, AccessLogMixin):

    @classmethod
    def setUpClass(cls):
        cls.log_path = os.path.join(temp_dir(), 'access.log')
        cls.server_args = ('--access-log', cls.log_path)
        super().setUpClass()

    def log_lines(self):
        return self.file_lines('replace')

    def test_lines(self):
        self.check_basic_lines()

    def test_one_line_per_request(self):
        n0 = len(self.log_lines())
        with self.conn() as c:
            for i in range(10):
                c.send(build_request('GET', '/many/file_%03d.txt' % i))
                self.assertEqual(c.read_response().status, 200)
        lines = self.wait_lines(10, n0)
        self.assertEqual([self.parse(x)['request'] for x in lines],
                         ['GET /many/file_%03d.txt HTTP/1.1' % i
                          for i in range(10)])

    def test_escaping(self):
        before = len(self.log_bytes())
        n0 = len(self.log_lines())
        ua = 'evil" "injected\tagent\\x'
        with self.conn() as c:
            c.send(build_request('GET', '/a.txt', headers=[
                ('User-Agent', ua), ('Referer', 'r"\te"f')]))
            self.assertEqual(c.read_response().status, 200)
        for bad in (b'GET /a\x7fb HTTP/1.1\r\nHost: t\r\n\r\n',
                    b'GET /a\x1b[31mred HTTP/1.1\r\nHost: t\r\n\r\n',
                    b'GET /a\rb HTTP/1.1\r\nHost: t\r\n\r\n'):
            with self.conn() as c:
                c.send(bad)
                self.assertEqual(c.read_response().status, 400)
        with self.conn() as c:
            # A quote is no URI character: 400 or 404, logged either way.
            c.send(b'GET /"quoted" HTTP/1.1\r\nHost: t\r\n\r\n')
            self.assertIn(c.read_response().status, (400, 404))
        # Lines from different connections may come in any order.
        lines = self.wait_lines(5, n0)
        self.assertEqual(len(lines), 5, lines)
        parsed = [self.parse(x) for x in lines]
        good = [p for p in parsed if p['status'] == 200]
        self.assertEqual(len(good), 1, lines)
        self.assertEqual(clf_unescape(good[0]['agent']), ua)
        self.assertEqual(clf_unescape(good[0]['referer']), 'r"\te"f')
        self.assertEqual(sorted(p['status'] for p in parsed
                                if p is not good[0])[:3], [400, 400, 400])
        raw = self.log_bytes()[before:]
        for ch in range(0x20):
            if ch != 0x0a:
                self.assertNotIn(bytes([ch]), raw,
                                 'raw control byte %#x in the log' % ch)
        self.assertNotIn(b'\x7f', raw, 'raw DEL in the log')

    def test_refused_head_keeps_its_request_line(self):
        """A head refused after its request line (a control byte in a
        field) is logged with that line, escaped; one refused within the
        line is logged as "-"."""
        before = len(self.log_bytes())
        n0 = len(self.log_lines())
        hostile = b'GET /q"u\\o\x9b[31m\xff?" HTTP/1.1'
        for i, (head, status) in enumerate((
                (hostile + b'\r\nHost: t\r\nUser-Agent: it\r\n'
                 b'X-Bad: a\x01b\r\n\r\n', 400),
                (b'BREW /pot HTTP/1.1\r\nHost: t\r\n\r\n', 501),
                (b'GET /a\x01b HTTP/1.1\r\nHost: t\r\n\r\n', 400))):
            with self.conn() as c:
                c.send(head)
                self.assertEqual(c.read_response().status, status, head)
            # One at a time: threads log in any order.
            self.wait_lines(i + 1, n0)
        lines = self.wait_lines(3, n0)
        self.assertEqual(len(lines), 3, lines)
        got = [self.parse(x) for x in lines]
        self.assertEqual(clf_unescape(got[0]['request']),
                         hostile.decode('latin-1'))
        self.assertEqual((got[0]['status'], got[0]['agent']), (400, 'it'))
        self.assertEqual((got[1]['request'], got[1]['status']),
                         ('BREW /pot HTTP/1.1', 501))
        self.assertEqual((got[2]['request'], got[2]['status']), ('-', 400))
        raw = self.log_bytes()[before:]
        for ch in list(range(0x20)) + list(range(0x7f, 0x100)):
            if ch != 0x0a:
                self.assertNotIn(bytes([ch]), raw,
                                 'raw byte %#x in the log' % ch)

    def test_long_target_keeps_the_line(self):
        """A target of 1,400 %22 (4 KB) used to cut the line before the
        status; long fields are cut, never the line's structure."""
        n0 = len(self.log_lines())
        target = '/a.txt?' + '%22' * 1400
        ua = 'agent/' + 'u' * 500
        with self.conn() as c:
            c.send(build_request('GET', target, headers=[
                ('User-Agent', ua), ('Referer', 'http://ref.test/')]))
            self.assertEqual(c.read_response().status, 200)
        lines = self.wait_lines(1, n0)
        self.assertEqual(len(lines), 1, lines)
        self.assertLess(len(lines[0]), 4096)
        self.assertIsNotNone(CLF.match(lines[0]), 'the line lost its '
                             'structure: ...%r' % lines[0][-200:])
        line = self.parse(lines[0])
        self.assertEqual((line['status'], line['size'], line['referer'],
                          line['agent']), (200, '12', 'http://ref.test/', ua))
        self.assertTrue(line['request'].startswith('GET /a.txt?%22%22'),
                        line['request'][:100])
        self.assertTrue(line['request'].endswith('... HTTP/1.1'),
                        line['request'][-100:])


def htpasswd_file(path, users):
    """An htpasswd file of bcrypt lines (cost 4) for users, {bytes: str}."""
    with open(path, 'wb') as fh:
        for user, password in users.items():
            fh.write(subprocess.run(
                [HTPASSWD.encode(), b'-nbB', b'-C', b'4', user,
                 password.encode()], check=True,
                capture_output=True).stdout.strip() + b'\n')
    os.chmod(path, 0o644)


def basic_auth(user, password):
    """An Authorization header for user (bytes) and password."""
    raw = user + b':' + password.encode()
    return ('Authorization', 'Basic ' + base64.b64encode(raw).decode())


# A user name with what must be escaped: a space, a quote, a backslash
# and a byte that is not UTF-8 (control bytes are refused in user names).
ODD_USER = b'j d"o\\e\xe9'


@unittest.skipUnless(HTPASSWD, 'htpasswd (apache2-utils) is not installed')
@needs_process('starts sehttpd with --access-log FILE and --auth-file')
class AccessLogUserTest(ServerTestCase, AccessLogMixin):
    """The third field, Apache's %u: the user whose Basic credentials met
    an --auth-file rule, escaped as one word; "-" for a public path, no
    credentials or wrong ones.  It was always "-"."""

    @classmethod
    def setUpClass(cls):
        base = temp_dir()
        cls.log_path = os.path.join(base, 'access-user.log')
        pw = os.path.join(base, 'log-users.htpasswd')
        htpasswd_file(pw, {b'alice': 'open sesame', ODD_USER: 'pw'})
        cls.server_args = ('--access-log', cls.log_path,
                           '--auth-file', '/many/:' + pw)
        super().setUpClass()

    def log_lines(self):
        return self.file_lines()

    def test_user_of_the_credentials(self):
        alice = basic_auth(b'alice', 'open sesame')
        cases = (
            ('/many/file_000.txt', [alice], 200, 'alice'),
            # Remembered from the first check: still alice.
            ('/many/file_001.txt', [alice], 200, 'alice'),
            ('/many/file_002.txt', [basic_auth(ODD_USER, 'pw')], 200,
             'j\\x20d\\x22o\\x5Ce\\xE9'),
            ('/many/file_003.txt', [basic_auth(b'alice', 'wrong')], 401,
             '-'),
            ('/many/file_004.txt', [], 401, '-'),
            # Public: the credentials met no rule.
            ('/a.txt', [alice], 200, '-'),
        )
        n0 = len(self.log_lines())
        with self.conn() as c:
            for target, headers, status, _ in cases:
                c.send(build_request('GET', target, headers=headers))
                self.assertEqual(c.read_response().status, status, target)
        lines = self.wait_lines(len(cases), n0)
        self.assertEqual(len(lines), len(cases), lines)
        got = [self.parse(x) for x in lines]
        self.assertEqual([(g['request'], g['status'], g['user'])
                          for g in got],
                         [('GET %s HTTP/1.1' % t, s, u)
                          for t, _, s, u in cases])
        self.assertEqual(clf_unescape(got[2]['user']),
                         ODD_USER.decode('latin-1'))
        # The password is never logged, in any form.
        for line in lines:
            self.assertNotIn('open sesame', line)
            self.assertNotIn(alice[1].split()[1], line)


@needs_process('starts sehttpd with --access-log FILE --timeout 0.5')
class AccessLogCutShortTest(ServerTestCase, AccessLogMixin):
    """Responses that end early are logged too, with the status and the
    body bytes actually written."""

    @classmethod
    def setUpClass(cls):
        cls.log_path = os.path.join(temp_dir(), 'access.log')
        cls.server_args = ('--access-log', cls.log_path, '--timeout', '0.5')
        super().setUpClass()

    log_lines = AccessLogFileTest.log_lines

    def cut_short_line(self, n0, what):
        # After the cut (0.5 s without progress, or at once), within the
        # usual second; slack for a loaded machine.
        lines = self.wait_lines(1, n0, within=3)
        self.assertEqual(len(lines), 1, 'no log line for %s' % what)
        return self.parse(lines[0])

    def test_client_gone_mid_download(self):
        url = '/big/10m.bin'
        size = len(self.tree.files[url])
        n0 = len(self.log_lines())
        with self.conn(rcvbuf=16384) as c:
            c.send(build_request('GET', url))
            self.assertEqual(c.read_response(body=False).status, 200)
            c.sock.recv(16384)
            c.sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                              b'\x01\x00\x00\x00\x00\x00\x00\x00')
        line = self.cut_short_line(n0, 'a client gone mid-download')
        self.assertEqual((line['request'], line['status']),
                         ('GET %s HTTP/1.1' % url, 200))
        self.assertLess(int(line['size']), size)

    def test_write_stall(self):
        url = '/big/10m.bin'
        size = len(self.tree.files[url])
        n0 = len(self.log_lines())
        with self.conn(rcvbuf=16384) as c:
            c.send(build_request('GET', url))
            self.assertEqual(c.read_response(body=False).status, 200)
            got = len(c.buf)
            c.buf.clear()
            for _ in range(4):
                got += len(c.sock.recv(16384))
            line = self.cut_short_line(n0, 'a reader that stopped')
            # What the client has, and what is in flight, was written.
            self.assertEqual((line['request'], line['status']),
                             ('GET %s HTTP/1.1' % url, 200))
            self.assertGreaterEqual(int(line['size']), got)
            self.assertLess(int(line['size']), size)

    def test_request_timeout_408(self):
        n0 = len(self.log_lines())
        with self.conn() as c:
            c.send(b'GET /a.txt HTTP/1.1\r\nHost: t\r\nX-Slow: ')
            closed, data = c.wait_closed(3)
            self.assertTrue(closed)
            self.assertRegex(data, rb'^HTTP/1\.1 408 ')
        line = self.cut_short_line(n0, 'a request timed out')
        self.assertEqual((line['request'], line['status'], line['size']),
                         ('-', 408, '0'))



@needs_process('starts sehttpd with --access-log FILE and signals it')
class AccessLogReopenTest(unittest.TestCase):
    """logrotate renames the log, then signals the server, which must
    go on (SIGHUP used to kill it) with a new file at the same path."""

    def rotate_with(self, sig):
        logs = temp_dir()
        # The new file is made by the user the server runs as (nobody,
        # when started as root).
        os.chmod(logs, 0o777)
        log = os.path.join(logs, 'access.log')
        srv = ServerProcess(['--access-log', log], root=session_tree().www)
        self.addCleanup(srv.kill)

        def get(url):
            with Conn(srv.host, srv.port) as c:
                c.send(build_request('GET', url))
                self.assertEqual(c.read_response().status, 200)

        def wait_for(path, text):
            deadline = time.monotonic() + LOG_WAIT_S
            while time.monotonic() < deadline:
                if os.path.exists(path):
                    with open(path) as fh:
                        if text in fh.read():
                            return
                time.sleep(0.05)
            self.fail('%r not in %s' % (text, path))

        get('/a.txt')
        wait_for(log, '/a.txt')
        os.rename(log, log + '.1')
        get('/b.txt')  # still into the renamed file
        wait_for(log + '.1', '/b.txt')
        srv.send_signal(sig)
        deadline = time.monotonic() + 2
        while not os.path.exists(log):
            self.assertTrue(srv.alive(), 'signal %d killed the server '
                            '(exit %s)' % (sig, srv.proc.poll()))
            self.assertLess(time.monotonic(), deadline, 'no new log 2 s '
                            'after signal %d' % sig)
            time.sleep(0.05)
        get('/hello.txt')
        wait_for(log, '/hello.txt')
        with open(log + '.1') as fh:
            self.assertNotIn('/hello.txt', fh.read())
        self.assertEqual(srv.stop(), 0)

    def test_sigusr1_reopens_the_log(self):
        self.rotate_with(signal.SIGUSR1)

    def test_sighup_reopens_the_log(self):
        self.rotate_with(signal.SIGHUP)

    @unittest.skipUnless(os.geteuid() == 0, 'needs to start as root')
    def test_log_made_at_start_is_the_serving_users(self):
        """Started as root, the server made the log as root, then could
        never open it again as nobody: every SIGHUP said 'Permission
        denied', rotated or not.  A log it makes is nobody's now; one that
        nobody cannot write to is warned of at start."""
        logs = temp_dir()
        os.chmod(logs, 0o755)
        log = os.path.join(logs, 'access.log')
        srv = ServerProcess(['--access-log', log], root=session_tree().www)
        self.addCleanup(srv.kill)
        self.assertEqual(os.stat(log).st_uid, pwd.getpwnam('nobody').pw_uid)
        srv.send_signal(signal.SIGHUP)
        with Conn(srv.host, srv.port) as c:
            c.send(build_request('GET', '/a.txt'))
            self.assertEqual(c.read_response().status, 200)
        self.assertEqual(srv.stop(), 0)
        self.assertNotIn('cannot open access log', srv.stderr_text())
        self.assertNotIn('warning', srv.stderr_text())
        with open(log) as fh:
            self.assertIn('/a.txt', fh.read())
        # Left root's by a rotation: told at start.
        os.chown(log, 0, 0)
        srv = ServerProcess(['--access-log', log], root=session_tree().www)
        self.addCleanup(srv.kill)
        self.assertEqual(srv.stop(), 0)
        self.assertIn('not writable by user nobody', srv.stderr_text())

    def test_reopen_never_waits(self):
        """A FIFO nobody reads in the log's place cannot be opened
        without waiting: the old log stays, and SIGTERM still works."""
        logs = temp_dir()
        log = os.path.join(logs, 'access.log')
        srv = ServerProcess(['--access-log', log], root=session_tree().www)
        self.addCleanup(srv.kill)
        os.rename(log, log + '.1')
        os.mkfifo(log)
        os.chmod(log, 0o666)
        srv.send_signal(signal.SIGUSR1)
        time.sleep(0.3)
        self.assertTrue(srv.alive())
        with Conn(srv.host, srv.port) as c:
            c.send(build_request('GET', '/a.txt'))
            self.assertEqual(c.read_response().status, 200)
        srv.send_signal(signal.SIGTERM)
        self.assertEqual(srv.wait(3), 0, 'no exit 3 s after SIGTERM; '
                         'stderr %r' % srv.stderr_text())
        self.assertIn('cannot open access log', srv.stderr_text())

    def test_sighup_without_log_keeps_serving(self):
        srv = ServerProcess([], root=session_tree().www)
        self.addCleanup(srv.kill)
        srv.send_signal(signal.SIGHUP)
        time.sleep(0.2)
        self.assertTrue(srv.alive(), 'SIGHUP killed the server (exit %s)'
                        % srv.proc.poll())
        with Conn(srv.host, srv.port) as c:
            c.send(build_request('GET', '/a.txt'))
            self.assertEqual(c.read_response().status, 200)
        self.assertEqual(srv.stop(), 0)


@needs_process('starts sehttpd with --access-log -')
class AccessLogStdoutTest(ServerTestCase, AccessLogMixin):
    server_args = ('--access-log', '-')

    def log_lines(self):
        srv = self.target.server
        with srv.cond:
            return list(srv.lines)  # its own lines go to stderr

    def test_lines_on_stdout(self):
        self.check_basic_lines()


@needs_process('starts sehttpd with --access-log FIFO')
class AccessLogBlockedTest(unittest.TestCase):
    """A log that blocks must not stall serving, nor the shutdown."""

    def test_fifo_nobody_reads(self):
        fifo = os.path.join(temp_dir(), 'access.fifo')
        os.mkfifo(fifo)
        # A reader that never reads: the pipe (64 KiB) fills and stays so.
        reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
        self.addCleanup(os.close, reader)
        srv = ServerProcess(['-t', '1', '--access-log', fifo, '--metrics',
                             '127.0.0.1:0'], root=session_tree().www)
        self.addCleanup(srv.kill)
        agent = 'x' * 2000  # 2 KB lines: the pipe is full after ~32
        start = time.monotonic()
        with Conn(srv.host, srv.port, timeout=3) as c:
            for i in range(400):
                c.send(build_request('GET', '/a.txt',
                                     headers=[('User-Agent', agent)]))
                try:
                    resp = c.read_response()
                except (TimeoutError, OSError) as e:
                    self.fail('request %d not answered with the access '
                              'log blocked: %r' % (i, e))
                self.assertEqual(resp.status, 200)
        self.assertLess(time.monotonic() - start, 10)
        # The drops are counted for --metrics too.
        m = METRICS_LINE.search(srv.wait_line(
            lambda s: 'metrics on' in s, 5))
        deadline = time.monotonic() + 2
        while True:
            mc = http.client.HTTPConnection(m.group(1), int(m.group(2)),
                                            timeout=5)
            mc.request('GET', '/metrics')
            dropped = parse_exposition(mc.getresponse().read().decode())[
                ('sehttpd_access_log_dropped_lines_total', '')]
            mc.close()
            if dropped or time.monotonic() > deadline:
                break
            time.sleep(0.1)
        self.assertGreater(dropped, 0)
        start = time.monotonic()
        srv.send_signal(signal.SIGTERM)
        rc = srv.wait(5)
        self.assertEqual(rc, 0, 'exit status %r %.1f s after SIGTERM with '
                         'the access log blocked; stderr %r'
                         % (rc, time.monotonic() - start, srv.stderr_text()))
        self.assertRegex(srv.stderr_text(), r'\d+ access log lines dropped')

