"""Running out of file descriptors: the server must neither spin nor stop
serving the connections it has, and must recover when clients leave."""

import http.client
import os
import re
import resource
import socket
import subprocess
import time
import unittest

from httpraw import build_request, Conn, ConnectionClosed
from target import (ServerProcess, ServerTestCase, needs_process, sehttpd_bin,
                    start_server, temp_dir)
import tree as treemod

NOFILE = 64
FLOOD = 150


def low_nofile():
    resource.setrlimit(resource.RLIMIT_NOFILE, (NOFILE, NOFILE))


@needs_process('sets RLIMIT_NOFILE and reads its CPU time from /proc')
class FdExhaustionTest(ServerTestCase):

    @classmethod
    def setUpClass(cls):
        cls.target = start_server(['-t', '1'], preexec_fn=low_nofile)
        cls.tree = cls.target.tree
        cls.addClassCleanup(cls._stop_target)

    def test_fd_exhaustion(self):
        srv = self.target.server
        kept = [self.conn() for _ in range(4)]
        flood = []
        try:
            for c in kept:
                c.send(build_request('GET', '/a.txt'))
                self.assert_file(c.read_response(), '/a.txt')
            refused = 0
            for _ in range(FLOOD):
                s = socket.socket()
                s.settimeout(2)
                try:
                    s.connect((self.target.host, self.target.port))
                    s.sendall(build_request('GET', '/b.txt'))
                    flood.append(s)
                except OSError:
                    refused += 1
                    s.close()
            self.assertGreater(len(flood), NOFILE,
                               'could not open more connections than the '
                               'limit (%d refused)' % refused)
            time.sleep(0.3)
            cpu0 = srv.cpu_seconds()
            time.sleep(1.0)
            spent = srv.cpu_seconds() - cpu0
            self.assertLess(spent, 0.3, 'the server used %.2f s of CPU in '
                            '1 s while out of descriptors (spinning?)'
                            % spent)
            for i, c in enumerate(kept):
                c.send(build_request('GET', '/hello.txt'))
                self.assert_file(c.read_response(), '/hello.txt',
                                 ' on kept connection %d during the flood'
                                 % i)
            self.assertTrue(srv.alive(), 'the server died')
        finally:
            for s in flood:
                s.close()
            for c in kept:
                c.close()
        # Once the flood is gone, new clients are served again.
        deadline = time.monotonic() + 10
        last = None
        while time.monotonic() < deadline:
            try:
                with Conn(self.target.host, self.target.port,
                          timeout=2) as c:
                    c.send(build_request('GET', '/a.txt'))
                    resp = c.read_response()
                    if resp.status == 200:
                        self.assert_file(resp, '/a.txt')
                        break
                    last = resp
            except (OSError, AssertionError) as e:
                last = e
            time.sleep(0.2)
        else:
            self.fail('no new client served within 10 s after the flood '
                      'went away (last: %r)' % (last,))
        cpu0 = srv.cpu_seconds()
        time.sleep(0.5)
        self.assertLess(srv.cpu_seconds() - cpu0, 0.15,
                        'the server keeps using CPU after the flood')


# Threads for which the listeners open but the threads' own descriptors
# (an epoll and an eventfd each) run out, within this limit.
SETUP_THREADS = 32
SETUP_NOFILE = 40


def setup_nofile():
    resource.setrlimit(resource.RLIMIT_NOFILE, (SETUP_NOFILE, SETUP_NOFILE))


@needs_process('sets RLIMIT_NOFILE')
class ThreadSetupFailureTest(unittest.TestCase):

    def test_thread_that_cannot_be_set_up(self):
        """The threads already running stop at once, and it exits 1
        without a listening line (neither waiting out the drain timeout
        for the thread that failed nor joining it)."""
        start = time.monotonic()
        p = subprocess.run([sehttpd_bin(), '-b', '127.0.0.1', '-p', '0',
                            '-t', str(SETUP_THREADS), temp_dir()],
                           stdin=subprocess.DEVNULL, capture_output=True,
                           preexec_fn=setup_nofile, timeout=20)
        elapsed = time.monotonic() - start
        err = p.stderr.decode('utf-8', 'replace')
        self.assertEqual(p.returncode, 1, err)
        self.assertRegex(err, r'^sehttpd: cannot set up thread \d+: '
                         r'Too many open files\n$')
        self.assertNotIn(b'listening', p.stdout)
        self.assertLess(elapsed, 3.0)


MAX_CONNS = 3


def closed_at_once(host, port, timeout=3):
    """Whether a new connection is closed by the server without an
    answer (EOF or reset) within timeout."""
    with socket.create_connection((host, port), timeout=timeout) as s:
        try:
            s.sendall(build_request('GET', '/a.txt'))
            return s.recv(4096) == b''
        except ConnectionError:
            return True


@needs_process('starts sehttpd with --max-connections and --metrics')
class MaxConnectionsTest(unittest.TestCase):
    """--max-connections N: the (N+1)th connection is closed at once and
    counted, the N are served on, and a place that frees is taken."""

    def start(self, args, **kw):
        srv = ServerProcess(['-t', '2', '--metrics', '127.0.0.1:0'] + args,
                            root=treemod.make_tree(temp_dir()).www, **kw)
        self.addCleanup(srv.kill)
        m = srv.wait_line(lambda s: 'metrics on' in s, 5)
        return srv, re.search(r'metrics on http://(\S+):(\d+)/', m).groups()

    def refused_total(self, where):
        c = http.client.HTTPConnection(where[0], int(where[1]), timeout=5)
        try:
            c.request('GET', '/metrics')
            body = c.getresponse().read().decode()
        finally:
            c.close()
        m = re.search(r'^sehttpd_connections_refused_total (\d+)$', body,
                      re.M)
        self.assertIsNotNone(m, 'no sehttpd_connections_refused_total')
        return int(m.group(1))

    def test_beyond_the_limit_closed_at_once(self):
        srv, where = self.start(['--max-connections', str(MAX_CONNS)])
        kept = [Conn(srv.host, srv.port) for _ in range(MAX_CONNS)]
        try:
            for c in kept:
                c.send(build_request('GET', '/a.txt'))
                self.assertEqual(c.read_response().status, 200)
            self.assertEqual(self.refused_total(where), 0)
            for i in range(4):
                self.assertTrue(closed_at_once(srv.host, srv.port),
                                'connection %d over the limit was kept' % i)
            # Counted, and told once (not once per connection).
            self.assertEqual(self.refused_total(where), 4)
            err = srv.stderr_text()
            self.assertEqual(err.count('--max-connections'), 1, err)
            self.assertIn('%d connections open' % MAX_CONNS, err)
            # Those open are served on.
            for c in kept:
                c.send(build_request('GET', '/b.txt'))
                self.assert_ok(c.read_response())
            kept.pop().close()
            deadline = time.monotonic() + 5
            while True:
                with Conn(srv.host, srv.port, timeout=3) as c:
                    try:
                        c.send(build_request('GET', '/a.txt'))
                        if c.read_response().status == 200:
                            break
                    except (ConnectionError, ConnectionClosed):
                        pass
                self.assertLess(time.monotonic(), deadline,
                                'the freed place was not taken')
                time.sleep(0.05)
        finally:
            for c in kept:
                c.close()

    def assert_ok(self, resp):
        self.assertEqual(resp.status, 200, resp.describe())

    def test_bad_values(self):
        for value in ('0', '-1', 'abc', '4194305', ''):
            with self.subTest(value=value):
                p = subprocess.run([sehttpd_bin(), '--max-connections',
                                    value, temp_dir()],
                                   stdin=subprocess.DEVNULL,
                                   capture_output=True, timeout=5)
                self.assertEqual(p.returncode, 2, p.stderr)
                self.assertIn(b'connection limit', p.stderr)

    def test_lowered_to_the_descriptors(self):
        """Beyond what ulimit -n leaves room for: a warning, then the
        lower limit holds."""
        srv, where = self.start(['--max-connections', '100000'],
                                preexec_fn=low_nofile)
        err = srv.stderr_text()
        m = re.search(r'--max-connections 100000: %d descriptors '
                      r'\(ulimit -n\) leave room for (\d+) connections'
                      % NOFILE, err)
        self.assertIsNotNone(m, err)
        most = int(m.group(1))
        self.assertTrue(0 < most < NOFILE, most)
        kept = []
        try:
            for _ in range(most):
                c = Conn(srv.host, srv.port)
                kept.append(c)
                c.send(build_request('GET', '/a.txt'))
                self.assertEqual(c.read_response().status, 200)
            self.assertTrue(closed_at_once(srv.host, srv.port))
            self.assertEqual(self.refused_total(where), 1)
        finally:
            for c in kept:
                c.close()


H2_NOFILE = 128


def h2_nofile():
    resource.setrlimit(resource.RLIMIT_NOFILE, (H2_NOFILE, H2_NOFILE))


@needs_process('sets RLIMIT_NOFILE and counts the server\'s descriptors')
class StreamDescriptorTest(unittest.TestCase):

    def test_shut_windows_leave_descriptors_for_others(self):
        """HTTP/2 connections holding 16 streams of a file each behind
        shut windows stay within the descriptors kept for them; others
        are served.  Before, each stream held a duplicate: 8 such
        connections took all 128, and other clients waited for accept or
        got 503."""
        from test_http2 import (HAVE_H2, INITIAL_WINDOW_SIZE, RawH2,
                                window_update)
        if not HAVE_H2:
            self.skipTest('python3-h2 is not installed')
        root = temp_dir()
        big = os.urandom(2 << 20)
        with open(os.path.join(root, 'big.bin'), 'wb') as f:
            f.write(big)
        with open(os.path.join(root, 'a.txt'), 'wb') as f:
            f.write(b'a\n')
        srv = ServerProcess(['-t', '1'], root=root, preexec_fn=h2_nofile)
        self.addCleanup(srv.stop)
        for _ in range(8):
            c = RawH2(srv.host, srv.port, {INITIAL_WINDOW_SIZE: 0})
            self.addCleanup(c.close)
            c.handshake()
            c.send(window_update(0, 1 << 30))
            for _ in range(16):
                c.request('/big.bin')
        time.sleep(0.5)
        fds = len(os.listdir('/proc/%d/fd' % srv.proc.pid))
        self.assertLess(fds, H2_NOFILE - 16)
        for _ in range(5):
            with Conn(srv.host, srv.port, timeout=5) as c:
                c.send(build_request('GET', '/a.txt'))
                resp = c.read_response()
                self.assertEqual((resp.status, resp.body), (200, b'a\n'),
                                 resp.describe())
        c = RawH2(srv.host, srv.port)
        self.addCleanup(c.close)
        s = c.handshake().get('/big.bin', timeout=10)
        self.assertEqual(s.status, 200, s.describe())
        self.assertTrue(s.ended and bytes(s.body) == big, s.describe())
        # The pool full, a connection with a file stream under way still
        # gets answers from memory at once, and a second file stream is
        # refused, to be retried (RFC 9113 8.7), rather than left waiting
        # with no deadline, as it was when the pool was checked before
        # answering.
        c = RawH2(srv.host, srv.port, {INITIAL_WINDOW_SIZE: 0})
        self.addCleanup(c.close)
        c.handshake()
        c.send(window_update(0, 1 << 30))
        first = c.stream(c.request('/big.bin'))
        small = c.stream(c.request('/a.txt'))
        second = c.stream(c.request('/big.bin'))
        c.send(window_update(small.sid, 1 << 16))
        self.assertTrue(c.pump(lambda: small.done and second.done, 5),
                        small.describe() + '\n' + second.describe())
        self.assertEqual((small.status, bytes(small.body)), (200, b'a\n'))
        self.assertEqual(second.reset, 7, second.describe())  # REFUSED
        self.assertFalse(first.done, first.describe())
