"""The client address the access log shows: on a dual-stack listener
(-b ::, as the shipped socket unit listens) an IPv4 client is logged as
a.b.c.d, as nginx logs it, not as the mapped ::ffff:a.b.c.d."""

import os
import socket
import time
import unittest

from httpraw import Conn, build_request
from target import ServerProcess, needs_process, session_tree, temp_dir
from test_cli import CLF, LOG_WAIT_S


def dual_stack():
    """True when an IPv6 socket here can take IPv4 clients too."""
    if not socket.has_ipv6:
        return False
    try:
        with socket.socket(socket.AF_INET6) as s:
            s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
            s.bind(('::', 0))
        return True
    except OSError:
        return False


@needs_process('starts sehttpd on a dual-stack address')
@unittest.skipUnless(dual_stack(), 'no dual-stack IPv6 socket here')
class DualStackLogTest(unittest.TestCase):
    def test_ipv4_client_logged_as_ipv4(self):
        log = os.path.join(temp_dir(), 'access.log')
        srv = ServerProcess(['--access-log', log], bind='::',
                            root=session_tree().www)
        self.addCleanup(srv.kill)
        for host, shown in (('127.0.0.1', '127.0.0.1'), ('::1', '::1')):
            with Conn(host, srv.port) as c:
                c.send(build_request('GET', '/a.txt'))
                self.assertEqual(c.read_response().status, 200, host)
        deadline = time.monotonic() + LOG_WAIT_S
        lines = []
        while len(lines) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
            with open(log) as fh:
                lines = fh.read().splitlines()
        # Each thread writes its own lines: in either order.
        self.assertEqual(sorted(CLF.match(x).group(1) for x in lines),
                         ['127.0.0.1', '::1'])
        srv.stop()


if __name__ == '__main__':
    unittest.main()
