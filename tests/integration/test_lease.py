"""A file under a lease (fcntl F_SETLEASE): the server opens it without
waiting for the lease holder to give it up (up to lease-break-time, 45 s
by default, during which its thread would serve no one), answers 503 at
once, and serves the file again once the lease is gone."""

import fcntl
import os
import signal
import time
import unittest

from httpraw import build_request, Conn
from target import needs_process, start_server, temp_dir

F_SETLEASE = getattr(fcntl, 'F_SETLEASE', 1024)
F_WRLCK = getattr(fcntl, 'F_WRLCK', 1)
F_UNLCK = getattr(fcntl, 'F_UNLCK', 2)


@needs_process('takes a lease on a file of a tree of its own')
class LeaseTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.root = temp_dir()
        for name in ('leased.txt', 'other.txt'):
            with open(os.path.join(cls.root, name), 'w') as f:
                f.write(name * 100)
        cls.target = start_server(['-t', '1'], root=cls.root, tree=None)
        cls.addClassCleanup(cls.target.stop)

    def get(self, c, path):
        c.send(build_request('GET', path))
        return c.read_response()

    def test_leased_file_503_at_once(self):
        # The break is signalled to the holder (us) with SIGIO, which
        # would end the test runner.
        old = signal.signal(signal.SIGIO, signal.SIG_IGN)
        self.addCleanup(signal.signal, signal.SIGIO, old)
        fd = os.open(os.path.join(self.root, 'leased.txt'), os.O_RDONLY)
        self.addCleanup(os.close, fd)
        fcntl.fcntl(fd, F_SETLEASE, F_WRLCK)
        with Conn(self.target.host, self.target.port, timeout=10) as c:
            start = time.monotonic()
            resp = self.get(c, '/leased.txt')
            took = time.monotonic() - start
            self.assertEqual(resp.status, 503, resp.describe())
            self.assertLess(took, 2.0)
        # The thread was not held: another file at once (a 503 closes).
        with Conn(self.target.host, self.target.port, timeout=2) as c:
            resp = self.get(c, '/other.txt')
            self.assertEqual(resp.status, 200, resp.describe())
        fcntl.fcntl(fd, F_SETLEASE, F_UNLCK)
        with Conn(self.target.host, self.target.port) as c:
            resp = self.get(c, '/leased.txt')
            self.assertEqual(resp.status, 200, resp.describe())
            self.assertEqual(resp.body, b'leased.txt' * 100)


if __name__ == '__main__':
    unittest.main()
