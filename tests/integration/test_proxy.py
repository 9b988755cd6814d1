"""--proxy-protocol: every connection starts with a PROXY header (v1 or v2)
whose source address the access log shows; a connection without a valid
header, or with one that does not arrive in time, is closed without an
answer.  Off by default: a PROXY line is then just a bad request."""

import http.client
import os
import socket
import struct
import time
import unittest

from httpraw import build_request
from target import ServerTestCase, needs_process, start_server, temp_dir
from test_cli import CLF, LOG_WAIT_S
from test_metrics import METRICS_LINE, parse_exposition

V2_SIG = b'\r\n\r\n\x00\r\nQUIT\n'


def proxy_v2(cmd=1, fam=0x11, block=b''):
    """A v2 header: command (0 LOCAL, 1 PROXY), family and protocol byte,
    the address block and TLVs."""
    return V2_SIG + bytes([0x20 | cmd, fam]) + struct.pack('>H', len(block)) \
        + block


def v2_inet(src, dst, sport, dport, tlvs=b''):
    return proxy_v2(1, 0x11, socket.inet_aton(src) + socket.inet_aton(dst)
                    + struct.pack('>HH', sport, dport) + tlvs)


def v2_inet6(src, dst, sport, dport, tlvs=b''):
    return proxy_v2(1, 0x21, socket.inet_pton(socket.AF_INET6, src)
                    + socket.inet_pton(socket.AF_INET6, dst)
                    + struct.pack('>HH', sport, dport) + tlvs)


TIMEOUT = 1.0


@needs_process('starts sehttpd with --proxy-protocol')
class ProxyProtocolTest(ServerTestCase):

    @classmethod
    def setUpClass(cls):
        cls.log_path = os.path.join(temp_dir(), 'access.log')
        cls.server_args = ('--proxy-protocol', '--timeout', str(TIMEOUT),
                           '--access-log', cls.log_path)
        super().setUpClass()

    def log_lines(self):
        try:
            with open(self.log_path, 'rb') as fh:
                data = fh.read()
        except FileNotFoundError:
            return []
        return data[:data.rfind(b'\n') + 1].decode('utf-8',
                                                   'replace').splitlines()

    def hosts_logged(self, since, count):
        """The client addresses of the next count lines after line since."""
        deadline = time.monotonic() + LOG_WAIT_S
        while True:
            lines = self.log_lines()[since:]
            if len(lines) >= count or time.monotonic() > deadline:
                break
            time.sleep(0.05)
        self.assertEqual(len(lines), count, 'expected %d new log lines: %r'
                         % (count, lines))
        return [CLF.match(x).group(1) for x in lines]

    def served(self, header, path='/a.txt', slowly=False):
        """Sends header and a request on one connection; asserts the file
        came back and returns the address the log shows."""
        n0 = len(self.log_lines())
        with self.conn() as c:
            data = header + build_request('GET', path)
            if slowly:
                c.send_slowly(data)
            else:
                c.send(data)
            self.assert_file(c.read_response(), path)
        return self.hosts_logged(n0, 1)[0]

    def assert_refused(self, data, what, half_close=False):
        """The server closes the connection without a byte of answer, long
        before the timeout."""
        with self.conn() as c:
            start = time.monotonic()
            c.send(data)
            if half_close:
                c.sock.shutdown(socket.SHUT_WR)
            closed, got = c.wait_closed(3 * TIMEOUT)
            self.assertTrue(closed, '%s: still open' % what)
            self.assertEqual(got, b'', '%s: answered' % what)
            if not half_close:
                self.assertLess(time.monotonic() - start, 0.5 * TIMEOUT,
                                '%s: waited for the timeout' % what)

    def test_v1_tcp4(self):
        self.assertEqual(self.served(b'PROXY TCP4 203.0.113.9 127.0.0.1 '
                                     b'40000 80\r\n'), '203.0.113.9')

    def test_v1_tcp6(self):
        self.assertEqual(self.served(b'PROXY TCP6 2001:db8::7 ::1 '
                                     b'40000 80\r\n'), '2001:db8::7')

    def test_mapped_ipv4_is_logged_as_ipv4(self):
        """An IPv4 client relayed as an IPv4-mapped IPv6 address is logged
        as nginx logs it, a.b.c.d, not ::ffff:a.b.c.d."""
        self.assertEqual(self.served(b'PROXY TCP6 ::ffff:192.0.2.7 ::1 '
                                     b'40000 80\r\n'), '192.0.2.7')
        self.assertEqual(self.served(v2_inet6('::ffff:198.51.100.3', '::1',
                                              1, 80)), '198.51.100.3')

    def test_v1_unknown_keeps_the_real_peer(self):
        self.assertEqual(self.served(b'PROXY UNKNOWN\r\n'), '127.0.0.1')

    def test_v2_inet_with_tlvs(self):
        tlvs = b'\x01\x00\x08http/1.1' + b'\x04\x00\x03pad'
        self.assertEqual(self.served(v2_inet('198.51.100.20', '127.0.0.1',
                                             5555, 80, tlvs)),
                         '198.51.100.20')

    def test_v2_inet6(self):
        self.assertEqual(self.served(v2_inet6('2001:db8::42', '::1', 1, 80)),
                         '2001:db8::42')

    def test_v2_local_keeps_the_real_peer(self):
        self.assertEqual(self.served(proxy_v2(0, 0x00)), '127.0.0.1')

    def test_any_split(self):
        """Byte by byte, header and request: the same answer."""
        self.assertEqual(self.served(b'PROXY TCP4 192.0.2.77 127.0.0.1 '
                                     b'1 80\r\n', slowly=True), '192.0.2.77')
        self.assertEqual(self.served(v2_inet('192.0.2.78', '127.0.0.1',
                                             1, 80), slowly=True),
                         '192.0.2.78')

    def test_header_once_then_keep_alive(self):
        """The header comes once; every request on the connection is
        logged with its address, also one sent after a pause."""
        n0 = len(self.log_lines())
        with self.conn() as c:
            c.send(b'PROXY TCP4 192.0.2.5 127.0.0.1 1 80\r\n')
            time.sleep(0.2)  # the connection idles between header and head
            for path in ('/a.txt', '/b.txt'):
                c.send(build_request('GET', path))
                self.assert_file(c.read_response(), path)
        self.assertEqual(self.hosts_logged(n0, 2), ['192.0.2.5'] * 2)

    def test_missing_header_refused(self):
        self.assert_refused(build_request('GET', '/a.txt'), 'a bare request')

    def test_malformed_refused(self):
        for bad in (b'PROXY TCP4 1.2.3.4 5.6.7.8 1 2\n',
                    b'PROXY TCP4 1.2.3.999 5.6.7.8 1 2\r\n',
                    b'PROXY TCP5 1.2.3.4 5.6.7.8 1 2\r\n',
                    b'PROXY TCP6 1.2.3.4 ::1 1 2\r\n',
                    b'PROXY TCP4 1.2.3.4 5.6.7.8 1 70000\r\n',
                    V2_SIG + b'\x31\x11\x00\x0c' + bytes(12),
                    proxy_v2(1, 0x11, bytes(11)),
                    proxy_v2(1, 0x11, bytes(12) + b'\x04\x00\x09ab'),
                    b'\r\n\r\nGET / HTTP/1.1\r\n\r\n'):
            self.assert_refused(bad + build_request('GET', '/a.txt'),
                                repr(bad))

    def test_oversized_refused(self):
        self.assert_refused(b'PROXY UNKNOWN ' + b'x' * 200 + b'\r\n',
                            'a v1 line over 107 bytes')
        self.assert_refused(V2_SIG + b'\x21\x11\xff\xff' + bytes(100),
                            'a v2 header of 64 KiB')

    def test_truncated_refused(self):
        self.assert_refused(b'PROXY TCP4 1.2.3.4 5.6.7.8', 'a cut v1 line',
                            half_close=True)
        self.assert_refused(v2_inet('1.2.3.4', '5.6.7.8', 1, 2)[:20],
                            'a cut v2 block', half_close=True)

    def test_silent_and_trickling_bound_by_timeout(self):
        """Neither silence nor a header sent a byte at a time, slower
        than the timeout allows, keeps the connection: it closes, without
        an answer, after about the timeout from the accept."""
        header = b'PROXY TCP4 192.0.2.1 127.0.0.1 1 80\r\n'
        for what, trickle in (('silent', False), ('trickling', True)):
            with self.conn() as c:
                start = time.monotonic()
                got, closed = b'', False
                for i in range(len(header)):
                    if trickle:
                        try:
                            c.send(header[i:i + 1])
                        except OSError:
                            closed = True
                            break
                    closed, data = c.wait_closed(0.2)
                    got += data
                    if closed:
                        break
                elapsed = time.monotonic() - start
                self.assertTrue(closed, '%s: open after %.1f s' % (what,
                                                                   elapsed))
                self.assertEqual(got, b'', '%s: answered' % what)
                self.assertGreater(elapsed, 0.5 * TIMEOUT, what)
                self.assertLess(elapsed, 3 * TIMEOUT, what)


@needs_process('starts sehttpd with --proxy-protocol and --metrics')
class ProxyMetricsTest(unittest.TestCase):
    """sehttpd_proxy_headers_refused_total counts connections closed for
    a bad or incomplete header, not silent ones: what to watch for a
    balancer that does not send the header."""

    def refused(self, srv):
        c = http.client.HTTPConnection(self.mhost, self.mport, timeout=5)
        try:
            c.request('GET', '/metrics')
            text = c.getresponse().read().decode()
        finally:
            c.close()
        return parse_exposition(text)[
            ('sehttpd_proxy_headers_refused_total', '')]

    def test_refusals_counted(self):
        t = start_server(['--proxy-protocol', '--timeout', '1',
                          '--metrics', '127.0.0.1:0'])
        self.addCleanup(t.server.kill)
        m = t.server.wait_line(lambda s: 'metrics on' in s, 5)
        self.mhost, port = METRICS_LINE.search(m).groups()
        self.mport = int(port)
        self.assertEqual(self.refused(t.server), 0)
        for data, half in ((build_request('GET', '/a.txt'), False),
                           (b'PROXY TCP4 1.2.3.4', True),
                           (b'', True)):
            with t.conn() as c:
                if data:
                    c.send(data)
                if half:
                    c.sock.shutdown(socket.SHUT_WR)
                self.assertEqual(c.wait_closed(3), (True, b''))
        with t.conn() as c:
            c.send(b'PROXY UNKNOWN\r\n' + build_request('GET', '/a.txt'))
            self.assertEqual(c.read_response().status, 200)
        deadline = time.monotonic() + 2
        while self.refused(t.server) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        # The bare request and the cut header; not the silent one.
        self.assertEqual(self.refused(t.server), 2)
        t.server.stop()


class ProxyProtocolOffTest(ServerTestCase):
    """Without --proxy-protocol nobody may claim an address: the header is
    a malformed request (khttpd has no such option either)."""

    def test_header_is_a_bad_request(self):
        with self.conn() as c:
            c.send(b'PROXY TCP4 203.0.113.9 127.0.0.1 40000 80\r\n'
                   + build_request('GET', '/a.txt'))
            resp = c.read_response()
            self.assertIn(resp.status, (400, 501), resp.describe())


if __name__ == '__main__':
    unittest.main()
