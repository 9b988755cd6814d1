"""Running out of file descriptors: the server must neither spin nor stop
serving the connections it has, and must recover when clients leave."""

import resource
import socket
import subprocess
import time
import unittest

from httpraw import build_request, Conn
from target import (ServerTestCase, needs_process, sehttpd_bin, start_server,
                    temp_dir)

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
