"""--health PATH: 200 for load balancers' checks while serving; after a stop
signal 503 for the grace period (--health-grace) while everything else is
still served and new connections still accepted, then the usual stop; a
second signal cuts the grace short."""

import signal
import time
import unittest

from httpraw import build_request
from target import needs_process, session_tree, start_server
from test_cli import run_cli

GRACE = 1.5


@needs_process('starts sehttpd with --health')
class HealthTest(unittest.TestCase):

    def start(self, grace=GRACE, extra=()):
        t = start_server(['--health', '/healthz', '--health-grace',
                          str(grace)] + list(extra))
        self.addCleanup(t.server.kill)
        return t

    def get(self, t, path, method='GET'):
        with t.conn() as c:
            c.send(build_request(method, path))
            return c.read_response(method)

    def test_ok_while_serving(self):
        t = self.start(grace=0.2)
        r = self.get(t, '/healthz')
        self.assertEqual((r.status, r.body), (200, b'ok\n'), r.describe())
        self.assertEqual(r.header('Content-Type'), 'text/plain')
        self.assertEqual(r.header('Cache-Control'), 'no-store')
        r = self.get(t, '/healthz', 'HEAD')
        self.assertEqual((r.status, r.body), (200, b''), r.describe())
        self.assertEqual(r.header('Content-Length'), '3')
        # Exactly the path: anything else is an ordinary request.
        for other in ('/healthz/', '/healthzz', '/health', '/healthz%2F'):
            self.assertEqual(self.get(t, other).status, 404, other)
        self.assertEqual(self.get(t, '/healthz', 'POST').status, 405)
        self.assertEqual(self.get(t, '/a.txt').status, 200)
        t.server.stop()

    # Other forms of the same path, as nginx's "location = /healthz" sees
    # them: the normalised path is matched, whatever the query or form.
    SAME_PATH = ('/healthz?probe=1', 'http://h/healthz', '/%68ealthz',
                 '/x/../healthz', '//healthz', '/./healthz?')

    def test_the_normalised_path_is_matched(self):
        """With --spa, a form matched as an ordinary request got the app's
        page with 200, also while the drain should fail the checks."""
        t = self.start(grace=30, extra=['--spa', '/index.html'])
        for target in self.SAME_PATH:
            r = self.get(t, target)
            self.assertEqual((r.status, r.body), (200, b'ok\n'), target)
        t.server.send_signal(signal.SIGTERM)
        t.server.wait_line(lambda s: 'draining' in s, 2)
        for target in self.SAME_PATH:
            r = self.get(t, target)
            self.assertEqual((r.status, r.body), (503, b'draining\n'),
                             target)
        t.server.send_signal(signal.SIGTERM)
        self.assertEqual(t.server.wait(5), 0, t.server.stderr_text())

    def test_keep_alive(self):
        t = self.start(grace=0.2)
        with t.conn() as c:
            for _ in range(3):
                c.send(build_request('GET', '/healthz'))
                self.assertEqual(c.read_response().status, 200)
            c.send(build_request('GET', '/a.txt'))
            self.assertEqual(c.read_response().status, 200)
        t.server.stop()

    def test_503_for_the_grace_then_stop(self):
        t = self.start()
        srv = t.server
        idle = t.conn()  # an open keep-alive connection of a checker
        idle.send(build_request('GET', '/healthz'))
        self.assertEqual(idle.read_response().status, 200)
        start = time.monotonic()
        srv.send_signal(signal.SIGTERM)
        srv.wait_line(lambda s: 'draining' in s, 2)
        # The open connection and new ones: checks fail, files are served.
        idle.send(build_request('GET', '/healthz'))
        r = idle.read_response()
        self.assertEqual((r.status, r.body), (503, b'draining\n'),
                         r.describe())
        self.assertIn('close', r.connection_tokens())
        idle.close()
        r = self.get(t, '/healthz')
        self.assertEqual(r.status, 503)
        self.assertEqual(self.get(t, '/a.txt').status, 200)
        self.assertIsNone(srv.wait(0.3), 'stopped within the grace')
        rc = srv.wait(GRACE + 5)
        elapsed = time.monotonic() - start
        self.assertEqual(rc, 0, srv.stderr_text())
        self.assertGreaterEqual(elapsed, GRACE * 0.9)
        self.assertLess(elapsed, GRACE + 3)

    def test_second_signal_cuts_the_grace(self):
        t = self.start(grace=30)
        srv = t.server
        srv.send_signal(signal.SIGTERM)
        srv.wait_line(lambda s: 'draining' in s, 2)
        self.assertEqual(self.get(t, '/healthz').status, 503)
        start = time.monotonic()
        srv.send_signal(signal.SIGINT)
        self.assertEqual(srv.wait(5), 0, srv.stderr_text())
        self.assertLess(time.monotonic() - start, 3)
        # It says why it stopped: the signal, not a drain timeout that
        # never ran (nothing was in flight).
        err = srv.stderr_text()
        self.assertIn('second signal: stopping now', err)
        self.assertNotIn('drain timeout', err)

    def test_without_health_no_grace(self):
        t = start_server([])
        self.addCleanup(t.server.kill)
        start = time.monotonic()
        t.server.stop()
        self.assertLess(time.monotonic() - start, 1.0)
        self.assertNotIn('draining', '\n'.join(t.server.lines))

    def test_bad_values(self):
        # Paths no request's decoded, normalised path is: before, all but
        # the first two started, and every check got 404.
        for args in (['--health', 'healthz'], ['--health', '/a\tb'],
                     ['--health', '/h?x'], ['--health', '/a/../h'],
                     ['--health', '//h'], ['--health', '/h%2Fx'],
                     ['--health'], ['--health', '/h', '--health-grace',
                                    '-1'],
                     ['--health-grace', 'x']):
            with self.subTest(args=args):
                full = ['-b', '127.0.0.1', '-p', '0'] + args
                if args[-1] != '--health':
                    full.append(session_tree().www)
                rc, out, err = run_cli(full)
                self.assertEqual(rc, 2, (out, err))
                self.assertEqual(len(err.splitlines()), 1, err)


if __name__ == '__main__':
    unittest.main()
