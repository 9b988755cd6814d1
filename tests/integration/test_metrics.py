"""--metrics: Prometheus text on a listener of its own, counters that move
as traffic says they should, and a format a strict parser accepts."""

import http.client
import os
import re
import signal
import socket
import subprocess
import threading
import time
import unittest

from httpraw import Conn
from target import ServerProcess, needs_process, sehttpd_bin, temp_dir

METRICS_LINE = re.compile(r'metrics on http://(\S+):(\d+)/metrics')
NAME = r'[a-zA-Z_:][a-zA-Z0-9_:]*'
LABEL = r'(%s)="((?:[^"\\\n]|\\.)*)"' % NAME
SAMPLE = re.compile(r'^(%s)(\{%s(?:,%s)*\})? (\d+(?:\.\d+)?)$'
                    % (NAME, LABEL, LABEL))
HISTOGRAM_PARTS = ('_bucket', '_sum', '_count')


def parse_exposition(text):
    """{(name, labels): value}, labels the label values joined by ','
    ('' for none); raises AssertionError on anything the Prometheus text
    format (0.0.4) does not allow or we do not write."""
    assert text.endswith('\n'), 'the last line must end in a newline'
    samples, helped, typed = {}, set(), {}
    for line in text.split('\n')[:-1]:
        if line.startswith('# HELP '):
            name, _, help_text = line[7:].partition(' ')
            assert re.fullmatch(NAME, name) and help_text, line
            assert name not in helped, 'second HELP for ' + name
            helped.add(name)
        elif line.startswith('# TYPE '):
            name, _, kind = line[7:].partition(' ')
            assert kind in ('counter', 'gauge', 'histogram'), line
            assert name not in typed, 'second TYPE for ' + name
            assert not any(k[0].startswith(name) for k in samples), \
                'TYPE after samples of ' + name
            typed[name] = kind
        else:
            m = SAMPLE.match(line)
            assert m, 'not a sample line: %r' % line
            name = family = m.group(1)
            for part in HISTOGRAM_PARTS:
                if name.endswith(part) and \
                        typed.get(name[:-len(part)]) == 'histogram':
                    family = name[:-len(part)]
            assert family in typed and family in helped, \
                'sample before its HELP and TYPE: ' + line
            labels = re.findall(LABEL, m.group(2) or '')
            if typed[family] == 'counter':
                assert name.endswith('_total'), name
            if typed[family] == 'histogram':
                assert name != family, 'a histogram sample: ' + line
                assert (name.endswith('_bucket')) == \
                    bool(labels and labels[-1][0] == 'le'), line
            key = (name, ','.join(v for _, v in labels))
            assert key not in samples, 'duplicate sample ' + line
            v = m.group(len(m.groups()))
            samples[key] = float(v) if '.' in v else int(v)
    return samples


@needs_process('starts sehttpd with --metrics')
class MetricsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.base = temp_dir()
        cls.www = os.path.join(cls.base, 'www')
        os.mkdir(cls.www)
        with open(os.path.join(cls.www, 'page.html'), 'w') as f:
            f.write('<p>%s</p>\n' % ('metrics ' * 200))
        with open(os.path.join(cls.www, 'big.bin'), 'wb') as f:
            f.write(b'\x5a' * (10 << 20))
        cls.srv = ServerProcess(['-t', '2', '--metrics', '127.0.0.1:0'],
                                root=cls.www)
        m = cls.srv.wait_line(lambda s: 'metrics on' in s, 5)
        cls.mhost, cls.mport = METRICS_LINE.search(m).groups()

    @classmethod
    def tearDownClass(cls):
        cls.srv.stop()

    def scrape(self, method='GET', path='/metrics'):
        c = http.client.HTTPConnection(self.mhost, int(self.mport),
                                       timeout=5)
        try:
            c.request(method, path)
            r = c.getresponse()
            return r.status, r.getheader('Content-Type'), r.read()
        finally:
            c.close()

    def metrics(self):
        status, ctype, body = self.scrape()
        self.assertEqual(status, 200)
        self.assertEqual(ctype, 'text/plain; version=0.0.4; charset=utf-8')
        return parse_exposition(body.decode())

    def get(self, conn, path, extra=''):
        conn.send(('GET %s HTTP/1.1\r\nHost: x\r\n%s\r\n'
                   % (path, extra)).encode())
        return conn.read_response()

    def test_counters_move_with_traffic(self):
        before = self.metrics()
        body_bytes = 0
        with Conn(self.srv.host, self.srv.port) as c:
            for _ in range(3):
                r = self.get(c, '/page.html')
                self.assertEqual(r.status, 200)
                body_bytes += len(r.body)
            r = self.get(c, '/page.html', 'Accept-Encoding: gzip\r\n')
            self.assertEqual(r.header('Content-Encoding'), 'gzip')
            body_bytes += len(r.body)
            r = self.get(c, '/missing')
            self.assertEqual(r.status, 404)
            body_bytes += len(r.body)
            # This connection now sits idle: the gauges must say so.  A
            # response is counted once written, which the client may see
            # first: wait for the counts to settle.
            deadline = time.monotonic() + 3
            while True:
                after = self.metrics()
                d = {k: after[k] - before.get(k, 0) for k in after}
                if (d[('sehttpd_responses_total', '4xx')] >= 1 and
                        after[('sehttpd_connections_idle', '')] >= 1) or \
                        time.monotonic() > deadline:
                    break
                time.sleep(0.02)
        self.assertEqual(d[('sehttpd_responses_total', '2xx')], 4)
        self.assertEqual(d[('sehttpd_responses_total', '4xx')], 1)
        self.assertEqual(d[('sehttpd_responses_total', '5xx')], 0)
        self.assertEqual(d[('sehttpd_response_body_bytes_total', '')],
                         body_bytes)
        self.assertEqual(d[('sehttpd_connections_accepted_total', '')], 1)
        self.assertGreaterEqual(after[('sehttpd_connections_open', '')], 1)
        self.assertGreaterEqual(after[('sehttpd_connections_idle', '')], 1)
        self.assertGreaterEqual(d[('sehttpd_cache_hits_total', '')], 3)
        self.assertGreaterEqual(d[('sehttpd_cache_misses_total', '')], 1)
        self.assertGreaterEqual(
            d[('sehttpd_cache_compressed_hits_total', '')], 1)
        self.assertGreaterEqual(after[('sehttpd_cache_entries', '')], 1)
        self.assertGreater(after[('sehttpd_cache_bytes', '')], 1600)
        # Closed by the client: the server notices when it reads the end.
        deadline = time.monotonic() + 3
        while self.metrics()[('sehttpd_connections_open', '')] and \
                time.monotonic() < deadline:
            time.sleep(0.02)
        self.assertEqual(self.metrics()[('sehttpd_connections_open', '')], 0)

    def test_every_metric_is_there(self):
        names = {k[0] for k in self.metrics()}
        for n in ('responses_total', 'response_body_bytes_total',
                  'connections_open', 'connections_idle', 'cache_entries',
                  'cache_bytes', 'cache_hits_total', 'cache_misses_total',
                  'cache_compressed_hits_total',
                  'access_log_dropped_lines_total'):
            self.assertIn('sehttpd_' + n, names)

    def settled(self, before, want_count):
        """The metrics' change since before, once the histogram and the
        requests' counters have each counted want_count more requests (a
        response is counted once written, which the client may see first;
        a scrape reads the counters before the histogram, so a request
        counted between the two reads is in the one and not the other)."""
        deadline = time.monotonic() + 3
        while True:
            after = self.metrics()
            d = {k: after[k] - before.get(k, 0) for k in after}
            by_class = sum(v for (name, _), v in d.items()
                           if name == 'sehttpd_requests_total')
            if (d[('sehttpd_request_duration_seconds_count', '')] >=
                    want_count and by_class >= want_count) or \
                    time.monotonic() > deadline:
                return after, d

    def test_requests_by_method_and_class(self):
        before = self.metrics()
        with Conn(self.srv.host, self.srv.port) as c:
            for method, target, status in (
                    ('GET', '/page.html', 200), ('GET', '/page.html', 200),
                    ('HEAD', '/missing', 404), ('OPTIONS', '*', 204),
                    ('DELETE', '/page.html', 405), ('GET', '/', 200)):
                c.send(('%s %s HTTP/1.1\r\nHost: x\r\n\r\n'
                        % (method, target)).encode())
                self.assertEqual(c.read_response(method).status, status)
        with Conn(self.srv.host, self.srv.port) as c:
            c.send(b'BREW /pot HTTP/1.1\r\nHost: x\r\n\r\n')
            self.assertEqual(c.read_response().status, 501)
        with Conn(self.srv.host, self.srv.port) as c:
            c.send(b'GET /\x01 HTTP/1.1\r\n\r\n')
            self.assertEqual(c.read_response().status, 400)
        after, d = self.settled(before, 8)
        want = {('GET', '2xx'): 3, ('HEAD', '4xx'): 1, ('OPTIONS', '2xx'): 1,
                ('other', '4xx'): 2, ('other', '5xx'): 1}
        for method in ('GET', 'HEAD', 'OPTIONS', 'other'):
            for c in range(1, 6):
                key = (method, '%dxx' % c)
                self.assertEqual(
                    d[('sehttpd_requests_total', '%s,%s' % key)],
                    want.get(key, 0), key)
        self.assertEqual(d[('sehttpd_request_duration_seconds_count', '')],
                         8)

    def test_duration_histogram(self):
        """Quick answers land in the lowest buckets, a download read
        slowly in those of its length; the buckets are cumulative."""
        before = self.metrics()
        for _ in range(5):
            with Conn(self.srv.host, self.srv.port) as c:
                c.send(b'GET /page.html HTTP/1.1\r\nHost: x\r\n\r\n')
                self.assertEqual(c.read_response().status, 200)
        start = time.monotonic()
        with Conn(self.srv.host, self.srv.port, rcvbuf=64 << 10) as c:
            c.send(b'GET /big.bin HTTP/1.1\r\nHost: x\r\n\r\n')
            got = 0
            while got < 10 << 20:
                data = c.sock.recv(256 << 10)
                if not data:
                    break
                got += len(data)
                time.sleep(0.01)
        slow = time.monotonic() - start
        after, d = self.settled(before, 6)
        buckets = [(float(k[1]), after[k]) for k in after
                   if k[0] == 'sehttpd_request_duration_seconds_bucket' and
                   k[1] != '+Inf']
        self.assertEqual([b for b, _ in buckets],
                         [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005,
                          0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10])
        counts = [n for _, n in buckets]
        self.assertEqual(counts, sorted(counts), 'cumulative')
        count = after[('sehttpd_request_duration_seconds_count', '')]
        self.assertEqual(
            after[('sehttpd_request_duration_seconds_bucket', '+Inf')],
            count)
        self.assertEqual(d[('sehttpd_request_duration_seconds_count', '')],
                         6)
        delta = {b: d[('sehttpd_request_duration_seconds_bucket',
                       k)] for b, k in
                 ((float(k[1]), k[1]) for k in after
                  if k[0] == 'sehttpd_request_duration_seconds_bucket' and
                  k[1] != '+Inf')}
        # The five small pages: well under 50 ms each (tens of us).
        self.assertEqual(delta[0.05], 5, delta)
        # The slow download: at least a quarter of what the client took
        # (socket buffers hold part of it), under 10 s.
        self.assertGreater(slow, 0.3)
        self.assertEqual(delta[10], 6, delta)
        s = d[('sehttpd_request_duration_seconds_sum', '')]
        self.assertGreater(s, slow * 0.25)
        self.assertLess(s, slow + 1)

    def test_other_paths_and_methods(self):
        self.assertEqual(self.scrape(path='/')[0], 404)
        self.assertEqual(self.scrape(method='POST')[0], 405)
        status, _, body = self.scrape(method='HEAD')
        self.assertEqual((status, body), (200, b''))
        with Conn(self.mhost, int(self.mport)) as c:
            c.send(b'GET /metrics HTTP/1.1\r\nHost: x\r\nBad header\r\n\r\n')
            self.assertEqual(c.read_response().status, 400)
        # Any refused head gets its own status line, with Date and Server.
        with Conn(self.mhost, int(self.mport)) as c:
            c.send(b'GET /' + b'm' * 9000 + b' HTTP/1.1\r\nHost: x\r\n\r\n')
            r = c.read_response()
            self.assertEqual((r.status, r.reason), (414, 'URI Too Long'))
            self.assertIsNotNone(r.header('Date'))
            self.assertEqual(r.header('Server'), 'sehttpd')
        # A refused HEAD is answered without a body (RFC 9110 9.3.2).
        for head in (b'HEAD /metrics#x HTTP/1.1\r\nHost: x\r\n\r\n',
                     b'HEAD /metrics HTTP/1.1\r\n\r\n',
                     b'HEAD /' + b'm' * 9000 + b' HTTP/1.1\r\n\r\n'):
            with self.subTest(head=head[:40]), \
                    Conn(self.mhost, int(self.mport)) as c:
                c.send(head)
                r = c.read_response('HEAD')
                self.assertIn(r.status, (400, 414), r.describe())
                closed, rest = c.wait_closed(3)
                self.assertEqual(rest, b'', 'HEAD got a body')

    def test_the_parser_refuses_what_it_should(self):
        for bad in ('x 1\n', '# TYPE x counter\nx 1\n',
                    '# HELP x h\n# TYPE x counter\nx 1\n',
                    '# HELP x_total h\n# TYPE x_total counter\nx_total 1'):
            with self.subTest(text=bad), self.assertRaises(AssertionError):
                parse_exposition(bad)


def _connect(host, port):
    return socket.create_connection((host, int(port)), timeout=5)


def _status_line(sock):
    """The status line of the one answer on sock, or '' when closed."""
    data = b''
    deadline = time.monotonic() + 5
    while b'\r\n' not in data and time.monotonic() < deadline:
        chunk = sock.recv(4096)
        if not chunk:
            break
        data += chunk
    return data.split(b'\r\n', 1)[0].decode('latin-1')


class Trickler(threading.Thread):
    """A client that sends the start of a head and then one byte every
    0.2 s, for at most 30 s, until the server closes its connection."""

    def __init__(self, host, port):
        super().__init__(daemon=True)
        self.sock = _connect(host, port)
        self.sock.sendall(b'GET /')
        self.closed_at = None
        self.stop = threading.Event()

    def run(self):
        end = time.monotonic() + 30
        try:
            while not self.stop.is_set() and time.monotonic() < end:
                self.sock.sendall(b'a')
                self.stop.wait(0.2)
        except OSError:
            self.closed_at = time.monotonic()
        finally:
            self.sock.close()


@needs_process('starts sehttpd with --metrics and signals it')
class MetricsClientsTest(unittest.TestCase):
    """Each metrics connection is its own: one thread serves them all,
    none waits for another, and a head must arrive within --timeout."""

    def start(self, *args):
        srv = ServerProcess(['-t', '1', '--metrics', '127.0.0.1:0'] +
                            list(args), root=temp_dir())
        self.addCleanup(srv.kill)
        m = srv.wait_line(lambda s: 'metrics on' in s, 5)
        return srv, METRICS_LINE.search(m).groups()

    def tricklers(self, where, n):
        ts = [Trickler(*where) for _ in range(n)]
        for t in ts:
            t.start()
            self.addCleanup(t.stop.set)
        return ts

    def test_one_metrics_thread(self):
        """Two threads once shared one request buffer: a second client's
        bytes turned a valid scrape into a 501."""
        srv, where = self.start()
        a = _connect(*where)
        self.addCleanup(a.close)
        a.sendall(b'GET /metr')
        time.sleep(0.3)
        b = _connect(*where)
        self.addCleanup(b.close)
        b.sendall(b'X' * 30)
        time.sleep(0.3)
        a.sendall(b'ics HTTP/1.1\r\nHost: x\r\n\r\n')
        self.assertEqual(_status_line(a), 'HTTP/1.1 200 OK')
        srv.stop()

    def test_trickling_clients_block_no_scrape(self):
        srv, where = self.start('--timeout', '1.5')
        # More than the thread serves at once: the oldest make room.
        ts = self.tricklers(where, 10)
        time.sleep(0.3)
        start = time.monotonic()
        c = _connect(*where)
        self.addCleanup(c.close)
        c.sendall(b'GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n')
        self.assertEqual(_status_line(c), 'HTTP/1.1 200 OK')
        self.assertLess(time.monotonic() - start, 1)
        # The request-head deadline is the main port's, for the whole head.
        for t in ts:
            t.join(6)
            self.assertIsNotNone(t.closed_at, 'a trickler kept its '
                                 'connection past the head deadline')
            self.assertLess(t.closed_at - start, 4)
        srv.stop()

    def test_stop_while_clients_trickle(self):
        srv, where = self.start('--drain-timeout', '1')
        self.tricklers(where, 2)
        time.sleep(0.5)
        srv.send_signal(signal.SIGTERM)
        self.assertEqual(srv.wait(5), 0, 'SIGTERM did not stop the server '
                         'while metrics clients dawdled: '
                         + srv.stderr_text())


@needs_process('runs sehttpd with bad --metrics values')
class MetricsOptionTest(unittest.TestCase):
    def test_bad_values(self):
        for v in ('nonsense', '127.0.0.1:', '127.0.0.1:70000', 'a b:1'):
            with self.subTest(value=v):
                p = subprocess.run([sehttpd_bin(), '-p', '0', '--metrics', v,
                                    temp_dir()], stdin=subprocess.DEVNULL,
                                   capture_output=True, timeout=5)
                self.assertEqual(p.returncode, 2, p.stderr)
                self.assertEqual(len(p.stderr.splitlines()), 1, p.stderr)

    def test_the_serving_port_named(self):
        """--metrics at the port the site is served on is told as that,
        not as a port some other program holds."""
        from test_cli import free_port
        port = free_port()
        for metrics in ('127.0.0.1:%d' % port, ':%d' % port):
            with self.subTest(metrics=metrics):
                p = subprocess.run([sehttpd_bin(), '-p', str(port),
                                    '--metrics', metrics, temp_dir()],
                                   stdin=subprocess.DEVNULL,
                                   capture_output=True, timeout=5)
                self.assertEqual(p.returncode, 2, p.stderr)
                self.assertEqual(p.stderr.decode(),
                                 'sehttpd: --metrics %s: port %d is where '
                                 'this server serves its site; the metrics '
                                 'need a port of their own\n'
                                 % (metrics, port))

    def test_off_by_default(self):
        srv = ServerProcess([], root=temp_dir())
        try:
            self.assertFalse(any('metrics' in ln for ln in srv.lines))
        finally:
            srv.stop()


if __name__ == '__main__':
    unittest.main()
