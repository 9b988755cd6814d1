"""Integration tests of htstress, the load generator.

Each test starts a small HTTP server of its own on a loopback port, one
thread per connection, that misbehaves on demand according to the request
path, runs htstress against it with few requests, and checks the counts,
the exit status, the connections the server accepted and the requests it
received.  Self-contained: standard library only; the binary is
$HTSTRESS_BIN (default build/htstress, relative to the repository root).
"""

import json
import os
import socket
import subprocess
import threading
import time
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
HTSTRESS = os.path.join(ROOT, os.environ.get('HTSTRESS_BIN',
                                             'build/htstress'))
RUN_TIMEOUT = 30  # seconds any one htstress run may take
JSON_KEYS = {'requests', 'good', 'bad_4xx', 'bad_5xx', 'bad_other',
             'errors', 'seconds', 'rps', 'bytes', 'bytes_per_s',
             'latency_us'}

OK_BODY = b'hello, load\n'


def response(status, body=b'', headers=(), close=False, version='1.1'):
    lines = ['HTTP/%s %s' % (version, status)]
    lines += list(headers)
    if close:
        lines.append('Connection: close')
    head = '\r\n'.join(lines) + '\r\n\r\n'
    return head.encode() + body


def length_response(status, body, close=False):
    return response(status, body, ['Content-Length: %d' % len(body)], close)


class Request:
    def __init__(self, head):
        lines = head.decode('latin-1').split('\r\n')
        self.method, self.target, self.version = lines[0].split(' ')
        self.headers = []
        for line in lines[1:]:
            name, _, value = line.partition(':')
            self.headers.append((name, value.strip()))

    def all(self, name):
        return [v for n, v in self.headers if n.lower() == name.lower()]

    def wants_close(self):
        return any(v.lower() == 'close' for v in self.all('Connection'))


class TestServer:
    """An HTTP/1.1 server whose behaviour is chosen by the request path.

    /ok              200 with a Content-Length body
    /404, /500       that status, with a body
    /every3-500      every third request (server-wide) gets a 500
    /chunked         200, chunked with extensions and a trailer
    /http10          HTTP/1.0 200 without a length: the close ends it
    /close-each      200 with Connection: close, even to keep-alive
    /close-after-2   closes the connection silently 0.1 s after its 2nd
                     response, dropping the request sent in between
    /slow            200 after 50 ms
    /truncated       announces 100 bytes, sends 10, closes
    /bad-chunk       chunked with a bad chunk size
    /bad-status      a malformed status line
    /extra-bytes     a body longer than its Content-Length
    /close-early     closes without answering
    /reset           resets the connection without answering
    /never           reads the request and never answers
    """

    def __init__(self, family=socket.AF_INET, host='127.0.0.1'):
        self.sock = socket.socket(family, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind((host, 0))
        self.sock.listen(256)
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.lock = threading.Lock()
        self.accepted = 0
        self.peers = []  # the client address of every connection
        self.requests = []
        self.stopping = threading.Event()
        self.threads = []
        self.acceptor = threading.Thread(target=self._accept, daemon=True)
        self.acceptor.start()

    def stop(self):
        self.stopping.set()
        self.acceptor.join(5)
        for t in self.threads:
            t.join(5)
        self.sock.close()

    def _accept(self):
        while not self.stopping.is_set():
            try:
                conn, peer = self.sock.accept()
            except socket.timeout:
                continue
            except OSError:
                return
            with self.lock:
                self.accepted += 1
                self.peers.append(peer[0])
            t = threading.Thread(target=self._serve, args=(conn,),
                                 daemon=True)
            self.threads.append(t)
            t.start()

    def _read_head(self, conn, buf):
        """One request head from conn, or None when it closed."""
        while b'\r\n\r\n' not in buf[0]:
            if self.stopping.is_set():
                return None
            try:
                data = conn.recv(65536)
            except socket.timeout:
                continue
            except OSError:
                return None
            if not data:
                return None
            buf[0] += data
        head, _, buf[0] = buf[0].partition(b'\r\n\r\n')
        return head

    def _serve(self, conn):
        conn.settimeout(0.2)
        buf = [b'']
        served = 0
        try:
            while True:
                head = self._read_head(conn, buf)
                if head is None:
                    return
                req = Request(head)
                with self.lock:
                    self.requests.append(req)
                    number = len(self.requests)
                served += 1
                if not self._answer(conn, req, number, served):
                    return
        finally:
            conn.close()

    def _answer(self, conn, req, number, served):
        """Sends the response; False to close the connection."""
        path = req.target
        close = req.wants_close()
        if path == '/ok':
            conn.sendall(length_response('200 OK', OK_BODY, close))
        elif path == '/404':
            conn.sendall(length_response('404 Not Found', b'no\n', close))
        elif path == '/500':
            conn.sendall(length_response('500 Oops', b'oops\n', close))
        elif path == '/every3-500':
            status = '500 Oops' if number % 3 == 0 else '200 OK'
            conn.sendall(length_response(status, b'x', close))
        elif path == '/chunked':
            body = (b'5;name=value\r\nhello\r\n'
                    b'7 ; a="q;x"\r\n, world\r\n'
                    b'0\r\nX-Trailer: done\r\n\r\n')
            conn.sendall(response('200 OK', body,
                                  ['Transfer-Encoding: chunked'], close))
        elif path == '/http10':
            conn.sendall(response('200 OK', b'until the end', version='1.0'))
            return False
        elif path == '/close-each':
            conn.sendall(length_response('200 OK', OK_BODY, close=True))
            return False
        elif path == '/close-after-2':
            conn.sendall(length_response('200 OK', OK_BODY, close))
            if served >= 2:
                time.sleep(0.1)
                return False
            return not close
        elif path == '/slow':
            time.sleep(0.05)
            conn.sendall(length_response('200 OK', OK_BODY, close))
        elif path == '/truncated':
            conn.sendall(response('200 OK', b'0123456789',
                                  ['Content-Length: 100']))
            return False
        elif path == '/bad-chunk':
            conn.sendall(response('200 OK', b'zz\r\nhello\r\n0\r\n\r\n',
                                  ['Transfer-Encoding: chunked'], close))
            return False
        elif path == '/bad-status':
            conn.sendall(b'HTTP/1.1 2OO OK\r\nContent-Length: 0\r\n\r\n')
            return False
        elif path == '/extra-bytes':
            conn.sendall(response('200 OK', b'hello, world',
                                  ['Content-Length: 5'], close))
            return False
        elif path == '/close-early':
            return False
        elif path == '/reset':
            conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                            b'\x01\x00\x00\x00\x00\x00\x00\x00')
            return False
        elif path == '/never':
            # Hold the connection until the client gives up.
            while not self.stopping.is_set():
                try:
                    if not conn.recv(4096):
                        return False
                except socket.timeout:
                    continue
                except OSError:
                    return False
            return False
        else:
            conn.sendall(length_response('404 Not Found', b'', close))
        return not close


def run_htstress(*args, timeout=RUN_TIMEOUT):
    return subprocess.run([HTSTRESS] + [str(a) for a in args],
                          stdin=subprocess.DEVNULL, capture_output=True,
                          timeout=timeout, text=True)


def ipv6_loopback_works():
    try:
        with socket.socket(socket.AF_INET6, socket.SOCK_STREAM) as s:
            s.bind(('::1', 0))
        return True
    except OSError:
        return False


class HtstressTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not os.access(HTSTRESS, os.X_OK):
            raise AssertionError('%s is missing: run make build/htstress'
                                 % HTSTRESS)

    def setUp(self):
        self.server = TestServer()
        self.addCleanup(self.server.stop)

    def url(self, path):
        return 'http://127.0.0.1:%d%s' % (self.server.port, path)

    def run_json(self, *args, expect_rc=0, timeout=RUN_TIMEOUT):
        p = run_htstress('--json', *args, timeout=timeout)
        self.assertEqual(p.returncode, expect_rc,
                         'exit status; stderr: %s' % p.stderr)
        lines = p.stdout.strip().split('\n')
        self.assertEqual(len(lines), 1, p.stdout)
        report = json.loads(lines[0])
        self.assertEqual(set(report), JSON_KEYS)
        self.assertEqual(set(report['latency_us']),
                         {'p50', 'p90', 'p99', 'max'})
        self.assertEqual(report['requests'],
                         report['good'] + report['bad_4xx'] +
                         report['bad_5xx'] + report['bad_other'] +
                         report['errors'])
        return report

    def assert_counts(self, report, **expected):
        got = {k: report[k] for k in expected}
        self.assertEqual(got, expected, report)


class SourceAddress(HtstressTest):
    """--source binds every connection to a local address: the server sees
    that address as the client."""

    def test_default_source(self):
        r = self.run_json('-n', 10, self.url('/ok'))
        self.assert_counts(r, requests=10, good=10, errors=0)
        self.assertEqual(set(self.server.peers), {'127.0.0.1'})

    def test_source_address(self):
        for keep_alive in ((), ('-k',)):
            self.server.peers.clear()
            r = self.run_json('--source', '127.0.0.2', '-n', 60, '-c', 3,
                              *keep_alive, self.url('/ok'))
            self.assert_counts(r, requests=60, good=60, errors=0)
            self.assertEqual(set(self.server.peers), {'127.0.0.2'})

    def test_source_not_local_fails_requests(self):
        r = self.run_json('--source', '192.0.2.1', '-n', 5, self.url('/ok'),
                          expect_rc=1)
        self.assertEqual(r['good'], 0, r)
        self.assertGreater(r['errors'], 0, r)
        self.assertEqual(self.server.accepted, 0)


class GoodResponses(HtstressTest):
    def test_new_connection_per_request(self):
        r = self.run_json('-n', 40, self.url('/ok'))
        self.assert_counts(r, requests=40, good=40, errors=0, bad_other=0)
        self.assertEqual(self.server.accepted, 40)
        self.assertEqual(len(self.server.requests), 40)
        for req in self.server.requests:
            self.assertEqual(req.method, 'GET')
            self.assertEqual(req.version, 'HTTP/1.1')
            self.assertTrue(req.wants_close())
            self.assertEqual(req.all('Host'),
                             ['127.0.0.1:%d' % self.server.port])

    def test_keep_alive_reuses_connections(self):
        r = self.run_json('-k', '-n', 100, '-c', 4, self.url('/ok'))
        self.assert_counts(r, requests=100, good=100, errors=0)
        self.assertEqual(self.server.accepted, 4)
        self.assertEqual(len(self.server.requests), 100)
        self.assertFalse(any(q.wants_close() for q in self.server.requests))

    def test_keep_alive_honours_connection_close(self):
        r = self.run_json('-k', '-n', 30, '-c', 2, self.url('/close-each'))
        self.assert_counts(r, requests=30, good=30, errors=0)
        self.assertEqual(self.server.accepted, 30)

    def test_exact_count_with_threads(self):
        r = self.run_json('-k', '-n', 97, '-c', 5, '-t', 2, self.url('/ok'))
        self.assert_counts(r, requests=97, good=97)
        self.assertEqual(len(self.server.requests), 97)
        # A worker that starts late may find every request handed out.
        self.assertLessEqual(self.server.accepted, 5)

    def test_host_name_resolved(self):
        url = 'http://localhost:%d/ok' % self.server.port
        r = self.run_json('-k', '-n', 5, url)
        self.assert_counts(r, good=5, errors=0)
        self.assertEqual(self.server.requests[0].all('Host'),
                         ['localhost:%d' % self.server.port])

    def test_bytes_counted(self):
        r = self.run_json('-k', '-n', 20, self.url('/ok'))
        one = len(length_response('200 OK', OK_BODY))
        self.assertEqual(r['bytes'], 20 * one)
        self.assertGreater(r['seconds'], 0)
        self.assertAlmostEqual(r['rps'], 20 / r['seconds'],
                               delta=r['rps'] * 0.01 + 0.01)
        self.assertAlmostEqual(r['bytes_per_s'], r['bytes'] / r['seconds'],
                               delta=r['bytes_per_s'] * 0.01 + 0.01)

    def test_chunked_with_extensions_and_trailer(self):
        r = self.run_json('-k', '-n', 25, self.url('/chunked'))
        self.assert_counts(r, good=25, bad_other=0)
        self.assertEqual(self.server.accepted, 1)

    def test_http10_close_delimited(self):
        r = self.run_json('-k', '-n', 10, self.url('/http10'))
        self.assert_counts(r, good=10, bad_other=0, errors=0)
        self.assertEqual(self.server.accepted, 10)

    def test_latency_measured(self):
        r = self.run_json('-k', '-n', 6, self.url('/slow'))
        self.assert_counts(r, good=6)
        lat = r['latency_us']
        self.assertGreaterEqual(lat['p50'], 50000)
        self.assertLess(lat['p50'], 1000000)
        self.assertLessEqual(lat['p50'], lat['p90'])
        self.assertLessEqual(lat['p90'], lat['p99'])
        self.assertLessEqual(lat['p99'], lat['max'])

    def test_headers_sent_with_every_request(self):
        r = self.run_json('-k', '-n', 10, '-c', 2,
                          '-H', 'X-Test: yes please',
                          '-H', 'Host: example.test',
                          '-H', 'Accept:*/*', self.url('/ok'))
        self.assert_counts(r, good=10)
        self.assertEqual(len(self.server.requests), 10)
        for req in self.server.requests:
            self.assertEqual(req.all('X-Test'), ['yes please'])
            self.assertEqual(req.all('Host'), ['example.test'])
            self.assertEqual(req.all('Accept'), ['*/*'])

    def test_duration(self):
        start = time.monotonic()
        r = self.run_json('-k', '-d', '0.5', '-c', 2, self.url('/ok'))
        took = time.monotonic() - start
        self.assertGreater(r['requests'], 0)
        self.assertEqual(r['good'], r['requests'])
        self.assertAlmostEqual(r['seconds'], 0.5, delta=0.2)
        self.assertLess(took, 5)

    def test_human_report(self):
        p = run_htstress('-n', 5, self.url('/ok'))
        self.assertEqual(p.returncode, 0, p.stderr)
        for word in ('requests', 'good', 'errors', 'p50', 'p90', 'p99',
                     'max', 'requests/s'):
            self.assertIn(word, p.stdout)
        self.assertEqual(p.stderr, '')

    def test_progress_lines_on_long_runs(self):
        p = run_htstress('-k', '-d', '2.3', self.url('/ok'))
        self.assertEqual(p.returncode, 0, p.stderr)
        lines = [x for x in p.stderr.split('\n') if x]
        self.assertGreaterEqual(len(lines), 2, p.stderr)
        self.assertTrue(all('requests/s' in x for x in lines), p.stderr)
        p = run_htstress('--json', '-k', '-d', '2.3', self.url('/ok'))
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stderr, '')
        json.loads(p.stdout)


@unittest.skipUnless(ipv6_loopback_works(), 'no IPv6 loopback')
class Ipv6(HtstressTest):
    def setUp(self):
        self.server = TestServer(socket.AF_INET6, '::1')
        self.addCleanup(self.server.stop)

    def test_bracketed_address(self):
        url = 'http://[::1]:%d/ok' % self.server.port
        r = self.run_json('-k', '-n', 12, '-c', 3, url)
        self.assert_counts(r, good=12, errors=0)
        self.assertEqual(self.server.accepted, 3)
        self.assertEqual(self.server.requests[0].all('Host'),
                         ['[::1]:%d' % self.server.port])


class BadResponses(HtstressTest):
    def test_5xx(self):
        r = self.run_json('-n', 12, self.url('/500'), expect_rc=1)
        self.assert_counts(r, requests=12, good=0, bad_5xx=12, errors=0)

    def test_4xx(self):
        r = self.run_json('-k', '-n', 12, self.url('/404'), expect_rc=1)
        self.assert_counts(r, requests=12, bad_4xx=12, bad_5xx=0)
        self.assertEqual(self.server.accepted, 1)

    def test_some_5xx(self):
        r = self.run_json('-k', '-n', 30, self.url('/every3-500'),
                          expect_rc=1)
        self.assert_counts(r, requests=30, good=20, bad_5xx=10)

    def test_truncated_body(self):
        r = self.run_json('-k', '-n', 8, self.url('/truncated'),
                          expect_rc=1)
        self.assert_counts(r, requests=8, good=0, bad_other=8, errors=0)

    def test_bad_chunk_framing(self):
        r = self.run_json('-n', 8, self.url('/bad-chunk'), expect_rc=1)
        self.assert_counts(r, requests=8, bad_other=8)

    def test_bad_status_line(self):
        r = self.run_json('-n', 8, self.url('/bad-status'), expect_rc=1)
        self.assert_counts(r, requests=8, bad_other=8)

    def test_body_longer_than_length(self):
        r = self.run_json('-k', '-n', 8, self.url('/extra-bytes'),
                          expect_rc=1)
        self.assert_counts(r, requests=8, good=0, bad_other=8)

    def test_malformed_reason_in_report(self):
        p = run_htstress('-n', 3, self.url('/bad-chunk'))
        self.assertEqual(p.returncode, 1)
        self.assertIn('malformed 3', p.stdout)
        self.assertIn('chunk', p.stdout)


class SocketErrors(HtstressTest):
    def test_closed_without_answer(self):
        r = self.run_json('-n', 10, '-c', 2, self.url('/close-early'),
                          expect_rc=1)
        self.assert_counts(r, requests=10, good=0, errors=10, bad_other=0)
        self.assertEqual(self.server.accepted, 10)

    def test_reset(self):
        r = self.run_json('-k', '-n', 10, self.url('/reset'), expect_rc=1)
        self.assert_counts(r, requests=10, good=0, errors=10)

    def test_keep_alive_connection_closed_under_us(self):
        r = self.run_json('-k', '-n', 6, self.url('/close-after-2'),
                          expect_rc=1)
        self.assert_counts(r, requests=6, good=4, errors=2)
        self.assertEqual(self.server.accepted, 2)

    def test_no_answer_times_out(self):
        start = time.monotonic()
        r = self.run_json('-k', '-n', 3, '-c', 3, '--timeout', '0.3',
                          self.url('/never'), expect_rc=1)
        took = time.monotonic() - start
        self.assert_counts(r, requests=3, good=0, errors=3)
        self.assertLess(took, 3)
        self.assertGreaterEqual(r['seconds'], 0.3)

    def test_connection_refused(self):
        s = socket.socket()
        s.bind(('127.0.0.1', 0))
        port = s.getsockname()[1]
        s.close()  # bound, never listened: nothing accepts there
        r = self.run_json('-n', 20, '-c', 2,
                          'http://127.0.0.1:%d/' % port, expect_rc=1)
        self.assert_counts(r, requests=20, good=0, errors=20)
        p = run_htstress('-n', 2, 'http://127.0.0.1:%d/' % port)
        self.assertEqual(p.returncode, 1)
        self.assertIn('refused', p.stdout)


class UsageErrors(unittest.TestCase):
    BAD = [
        [],
        [''],
        ['example.com'],
        ['ftp://127.0.0.1/'],
        ['https://127.0.0.1/'],
        ['http://'],
        ['http://127.0.0.1:0/'],
        ['http://127.0.0.1:65536/'],
        ['http://127.0.0.1:abc/'],
        ['http://[::1/'],
        ['http://[::1'],
        ['http://[nope]:80/'],
        ['http://127.0.0.1/a b'],
        ['http://127.0.0.1/' + 'a' * 100000],
        ['-n', '5', '-d', '1', 'http://127.0.0.1/'],
        ['-n', '0', 'http://127.0.0.1/'],
        ['-n', 'ten', 'http://127.0.0.1/'],
        ['-c', '0', 'http://127.0.0.1/'],
        ['-t', '4', '-c', '2', 'http://127.0.0.1/'],
        ['-d', '-1', 'http://127.0.0.1/'],
        ['--timeout', '0', 'http://127.0.0.1/'],
        ['-H', 'no colon', 'http://127.0.0.1/'],
        ['-H', 'X: a\r\nY: b', 'http://127.0.0.1/'],
        ['--bogus', 'http://127.0.0.1/'],
        ['-z', 'http://127.0.0.1/'],
        ['-n'],
        ['http://127.0.0.1/', 'http://127.0.0.1/'],
        ['http://no-such-host.invalid/'],
        ['--source', 'localhost', 'http://127.0.0.1/'],
        ['--source', '127.0.0.300', 'http://127.0.0.1/'],
        ['--source', '::1', 'http://127.0.0.1:1/'],
    ]

    def test_bad_urls_and_flags(self):
        for args in self.BAD:
            with self.subTest(args=[a[:40] for a in args]):
                p = run_htstress(*args, timeout=20)
                self.assertEqual(p.returncode, 2, p.stderr)
                self.assertEqual(p.stdout, '')
                lines = p.stderr.strip().split('\n')
                self.assertEqual(len(lines), 1, p.stderr)
                self.assertTrue(lines[0].startswith('htstress: '), p.stderr)
                self.assertLess(len(lines[0]), 300)

    def test_help(self):
        for flag in ('-h', '--help'):
            p = run_htstress(flag)
            self.assertEqual(p.returncode, 0)
            self.assertIn('usage: htstress', p.stdout)
            self.assertIn('default 10000', p.stdout)
            self.assertIn('-k', p.stdout)
            self.assertIn('--json', p.stdout)


if __name__ == '__main__':
    unittest.main()
