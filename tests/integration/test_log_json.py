"""--log-format json: one JSON object per line that json.loads reads,
whatever bytes clients send (invalid UTF-8, control bytes, long fields),
with the request's duration, over HTTP/1.x and HTTP/2."""

import datetime
import json
import os
import re
import shutil
import subprocess
import time
import unittest

from httpraw import Conn, build_request
from target import (ServerProcess, ServerTestCase, needs_process,
                    session_tree, temp_dir)
from test_cli import (AccessLogMixin, HTPASSWD, LOG_WAIT_S, ODD_USER,
                      basic_auth, htpasswd_file)

CURL = shutil.which('curl')
KEYS = ['time', 'remote_addr', 'user', 'method', 'target', 'protocol',
        'status', 'body_bytes', 'duration_us', 'referer', 'user_agent',
        'host']
RFC3339_UTC = re.compile(r'^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$')


class JsonLogMixin(AccessLogMixin):
    """Reads the JSON lines of the log at log_path."""

    def log_lines(self):
        # Strictly UTF-8: a byte copied raw from a client would fail here.
        return self.file_lines()

    def parse(self, line):
        obj = json.loads(line)
        self.assertEqual(list(obj), KEYS, line)
        self.assertRegex(obj['time'], RFC3339_UTC)
        t = datetime.datetime.strptime(obj['time'], '%Y-%m-%dT%H:%M:%SZ')
        t = t.replace(tzinfo=datetime.timezone.utc)
        self.assertLess(abs(t.timestamp() - time.time()), 10, line)
        for k in ('status', 'body_bytes', 'duration_us'):
            self.assertIsInstance(obj[k], int, line)
        self.assertGreaterEqual(obj['duration_us'], 0)
        self.assertLess(obj['duration_us'], 60 * 10 ** 6)
        return obj

    def request_lines(self, requests):
        """Sends each raw request on a connection of its own; returns the
        new lines, parsed, in the order of the requests' targets."""
        n0 = len(self.log_lines())
        for data in requests:
            with self.conn() as c:
                c.send(data)
                c.read_response()
        lines = self.wait_lines(len(requests), n0)
        self.assertEqual(len(lines), len(requests), lines)
        return [self.parse(x) for x in lines]


@needs_process('starts sehttpd with --access-log FILE --log-format json')
class JsonLogTest(ServerTestCase, JsonLogMixin):

    @classmethod
    def setUpClass(cls):
        cls.log_path = os.path.join(temp_dir(), 'access.json')
        cls.server_args = ('--access-log', cls.log_path,
                           '--log-format', 'json')
        super().setUpClass()

    def test_lines(self):
        n0 = len(self.log_lines())
        with self.target.conn() as c:
            c.send(build_request('GET', '/a.txt?x=1', headers=[
                ('User-Agent', 'it-agent/1.0'),
                ('Referer', 'http://ref.test/page')]))
            self.assertEqual(c.read_response().status, 200)
            c.send(build_request('HEAD', '/nope.txt', version='HTTP/1.0',
                                 host=None))
            r404 = c.read_response('HEAD')
        lines = self.wait_lines(2, n0)
        self.assertEqual(len(lines), 2, lines)
        a, b = [self.parse(x) for x in lines]
        del a['time'], a['duration_us'], b['time'], b['duration_us']
        self.assertEqual(a, {
            'remote_addr': '127.0.0.1', 'user': None, 'method': 'GET',
            'target': '/a.txt?x=1', 'protocol': 'HTTP/1.1', 'status': 200,
            'body_bytes': 12, 'referer': 'http://ref.test/page',
            'user_agent': 'it-agent/1.0', 'host': 'test'})
        self.assertEqual(r404.status, 404)
        self.assertEqual(b, {
            'remote_addr': '127.0.0.1', 'user': None, 'method': 'HEAD',
            'target': '/nope.txt', 'protocol': 'HTTP/1.0', 'status': 404,
            'body_bytes': 0, 'referer': None, 'user_agent': None,
            'host': None})

    def test_refused_head_keeps_its_request_line(self):
        """A head refused after its request line has that line logged:
        method, target (escaped) and protocol; its host too."""
        o, = self.request_lines([
            b'GET /q"u\\o\x9b[31m\xff HTTP/1.1\r\nHost: t\r\n'
            b'X-Bad: a\x01b\r\n\r\n'])
        self.assertEqual((o['method'], o['target'], o['protocol'],
                          o['status'], o['host']),
                         ('GET', '/q"u\\o\ufffd[31m\ufffd', 'HTTP/1.1', 400,
                          't'))

    def test_host_of_absolute_form(self):
        """An absolute-form target's authority is the host the request is
        served for (RFC 9112 3.2.2: Host is ignored), as the vhost is
        chosen; it was logged as the Host field."""
        lines = self.request_lines([
            b'GET http://abs.test:8080/a.txt HTTP/1.1\r\n'
            b'Host: other.test\r\n\r\n',
            b'GET /b.txt HTTP/1.1\r\nHost: origin.test:81\r\n\r\n',
        ])
        got = sorted((o['target'], o['status'], o['host']) for o in lines)
        self.assertEqual(got, [
            ('/b.txt', 200, 'origin.test:81'),
            ('http://abs.test:8080/a.txt', 200, 'abs.test:8080')])

    def test_hostile_bytes(self):
        before = len(self.log_bytes())
        lines = self.request_lines([
            # Not UTF-8 in the target and the User-Agent; a tab.
            b'GET /caf\xc3\xa9/\xff\xfe?\xc3( HTTP/1.1\r\nHost: t\r\n'
            b'User-Agent: a"b\\c\td\xed\xa0\x80\xc0\xaf\r\n\r\n',
            # Control bytes in the target: refused by the parser (400).
            b'GET /a\x01\x1b[31mred\x7f HTTP/1.1\r\nHost: t\r\n\r\n',
            b'GET /a\x00b HTTP/1.1\r\nHost: t\r\n\r\n',
            # ... and in the User-Agent.
            b'GET /a.txt HTTP/1.1\r\nHost: t\r\nUser-Agent: a\x01b\r\n\r\n',
            # A quote, a backslash, U+2028 in a Referer.
            b'GET /a.txt HTTP/1.1\r\nHost: t\r\n'
            b'Referer: "\\\xe2\x80\xa8"\r\n\r\n',
        ])
        by = {}
        for obj in lines:
            by.setdefault(obj['status'], []).append(obj)
        bad = [o for o in by.get(404, []) if o['target'] != '/a.txt']
        self.assertEqual(len(bad), 1, lines)
        self.assertEqual(bad[0]['target'],
                         '/caf\u00e9/\ufffd\ufffd?\ufffd(')
        self.assertEqual(bad[0]['user_agent'],
                         'a"b\\c\td\ufffd\ufffd\ufffd\ufffd\ufffd')
        refused = by.get(400, [])
        self.assertEqual(len(refused), 3, lines)
        # The control byte in the User-Agent came after a whole request
        # line, which is logged; those in the target left none.
        self.assertEqual(sorted((o['method'] or '', o['target'] or '',
                                 o['protocol'] or '') for o in refused),
                         [('', '', ''), ('', '', ''),
                          ('GET', '/a.txt', 'HTTP/1.1')])
        ok = by.get(200, [])
        self.assertEqual(len(ok), 1, lines)
        self.assertEqual(ok[0]['referer'], '"\\\u2028"')
        raw = self.log_bytes()[before:]
        for ch in list(range(0x20)) + [0x7f]:
            if ch != 0x0a:
                self.assertNotIn(bytes([ch]), raw,
                                 'raw control byte %#x in the log' % ch)
        self.assertNotIn('\u2028'.encode(), raw)

    def test_long_fields_keep_the_line(self):
        ua = b'u' * 400 + b'\xff' * 2000
        lines = self.request_lines([
            b'GET /a.txt?' + b'\xff' * 3000 + b' HTTP/1.1\r\nHost: t\r\n'
            b'Referer: ' + b'r' * 3000 + b'\r\n\r\n',
            b'GET /a.txt HTTP/1.1\r\nHost: ' + b'h' * 300 +
            b'\r\nUser-Agent: ' + ua + b'\r\n\r\n',
        ])
        for o in lines:
            self.assertEqual(o['status'], 200)
        long_target = [o for o in lines if o['target'].startswith('/a.txt?')]
        self.assertEqual(len(long_target), 1, lines)
        o = long_target[0]
        self.assertTrue(o['target'].endswith('...'))
        self.assertLessEqual(len(json.dumps(o['target'])), 2048 + 2)
        self.assertTrue(o['referer'].endswith('...'))
        o = [x for x in lines if x is not o][0]
        self.assertTrue(o['user_agent'].startswith('u' * 400))
        self.assertTrue(o['user_agent'].endswith('\ufffd...'))
        self.assertTrue(o['host'].endswith('...'))
        for line in self.log_lines()[-2:]:
            self.assertLess(len(line.encode()), 5120)

    def test_duration_until_the_last_byte(self):
        """A slow reader: the duration covers the transfer, not just the
        head (the last byte is handed to the socket once the client has
        read all but what the socket buffers hold)."""
        n0 = len(self.log_lines())
        size = 10 << 20
        start = time.monotonic()
        with self.target.conn(rcvbuf=64 << 10) as c:
            c.send(build_request('GET', '/big/10m.bin'))
            got = 0
            while got < size:
                data = c.sock.recv(256 << 10)
                if not data:
                    break
                got += len(data)
                time.sleep(0.01)
        took = time.monotonic() - start
        lines = self.wait_lines(1, n0)
        self.assertEqual(len(lines), 1, lines)
        o = self.parse(lines[0])
        self.assertEqual((o['status'], o['body_bytes']), (200, size))
        self.assertGreater(took, 0.3)
        # Socket buffers on loopback may hold a few MiB of the 10.
        self.assertGreater(o['duration_us'], took * 10 ** 6 * 0.25,
                           (o, took))
        self.assertLess(o['duration_us'], took * 10 ** 6 + 10 ** 5)

    @unittest.skipUnless(CURL, 'curl is not installed')
    def test_http2(self):
        n0 = len(self.log_lines())
        url = 'http://%s/a.txt' % self.target.hostport
        # One URL per run: curl 7.88 fails to reuse a prior-knowledge
        # connection (curl issue #10634).
        for _ in range(2):
            p = subprocess.run([CURL, '-sS', '--max-time', '10',
                                '--http2-prior-knowledge', '-o', '/dev/null',
                                url], capture_output=True, text=True,
                               timeout=20)
            self.assertEqual(p.returncode, 0, p.stderr)
        lines = self.wait_lines(2, n0)
        self.assertEqual(len(lines), 2, lines)
        for line in lines:
            o = self.parse(line)
            self.assertEqual((o['method'], o['target'], o['protocol'],
                              o['status'], o['body_bytes']),
                             ('GET', '/a.txt', 'HTTP/2.0', 200, 12))
            self.assertEqual(o['host'], self.target.hostport)



@unittest.skipUnless(HTPASSWD, 'htpasswd (apache2-utils) is not installed')
@needs_process('starts sehttpd with --log-format json and --auth-file')
class JsonLogUserTest(ServerTestCase, JsonLogMixin):
    """"user": the user whose Basic credentials met an --auth-file rule,
    over HTTP/1.1 and HTTP/2; null for a public path, no credentials or
    wrong ones.  The key was missing."""

    @classmethod
    def setUpClass(cls):
        base = temp_dir()
        pw = os.path.join(base, 'json-users.htpasswd')
        htpasswd_file(pw, {b'alice': 'open sesame', ODD_USER: 'pw'})
        cls.log_path = os.path.join(base, 'access-user.json')
        cls.server_args = ('--access-log', cls.log_path,
                           '--log-format', 'json',
                           '--auth-file', '/many/:' + pw)
        super().setUpClass()

    def test_user_of_the_credentials(self):
        alice = basic_auth(b'alice', 'open sesame')
        cases = (
            ('/many/file_000.txt', [alice], 200, 'alice'),
            ('/many/file_001.txt', [alice], 200, 'alice'),
            ('/many/file_002.txt', [basic_auth(ODD_USER, 'pw')], 200,
             'j d"o\\e\ufffd'),
            ('/many/file_003.txt', [basic_auth(b'alice', 'wrong')], 401,
             None),
            ('/many/file_004.txt', [], 401, None),
            ('/a.txt', [alice], 200, None),
        )
        n0 = len(self.log_lines())
        with self.conn() as c:
            for target, headers, status, _ in cases:
                c.send(build_request('GET', target, headers=headers))
                self.assertEqual(c.read_response().status, status, target)
        lines = self.wait_lines(len(cases), n0)
        self.assertEqual(len(lines), len(cases), lines)
        self.assertEqual([(o['target'], o['status'], o['user'])
                          for o in map(self.parse, lines)],
                         [(t, s, u) for t, _, s, u in cases])
        for line in lines:
            self.assertNotIn('open sesame', line)
            self.assertNotIn(alice[1].split()[1], line)

    @unittest.skipUnless(CURL, 'curl is not installed')
    def test_user_over_http2(self):
        n0 = len(self.log_lines())
        url = 'http://%s/many/file_005.txt' % self.target.hostport
        p = subprocess.run([CURL, '-sS', '--max-time', '10',
                            '--http2-prior-knowledge', '-o', '/dev/null',
                            '-w', '%{http_code}', '-u', 'alice:open sesame',
                            url], capture_output=True, text=True, timeout=20)
        self.assertEqual((p.returncode, p.stdout), (0, '200'), p.stderr)
        lines = self.wait_lines(1, n0)
        self.assertEqual(len(lines), 1, lines)
        o = self.parse(lines[0])
        self.assertEqual((o['protocol'], o['status'], o['user']),
                         ('HTTP/2.0', 200, 'alice'))


@needs_process('starts sehttpd with --access-log - --log-format json')
class JsonLogStdoutTest(unittest.TestCase):
    """sehttpd ... --access-log - --log-format json | jq: stdout holds log
    lines only; the server's own lines go to stderr."""

    def test_stdout_is_json_lines(self):
        srv = ServerProcess(['--access-log', '-', '--log-format', 'json',
                             '--metrics', '127.0.0.1:0', '--health',
                             '/healthz', '--health-grace', '0.1'],
                            root=session_tree().www)
        self.addCleanup(srv.kill)
        srv.wait_line(lambda s: 'metrics on' in s, 5)
        for target in ('/a.txt', '/nope.txt', '/healthz'):
            with Conn(srv.host, srv.port) as c:
                c.send(build_request('GET', target))
                c.read_response()
        self.assertEqual(srv.stop(), 0)
        self.assertEqual(len(srv.lines), 3, srv.lines)
        for line in srv.lines:
            self.assertIsInstance(json.loads(line), dict, line)
        text = srv.stderr_text()
        for notice in ('listening on', 'metrics on', 'draining'):
            self.assertIn('sehttpd: ' + notice, text)

if __name__ == '__main__':
    unittest.main()
