"""Timeouts: idle keep-alive connections, silent clients, partial heads
and clients that trickle bytes are all cut off after about the timeout,
while other clients are still served."""

import threading
import time
import unittest

from httpraw import build_request
from target import (EXTERNAL, EXTERNAL_TIMEOUT, KIND, ServerTestCase,
                    needs_process, start_server)
from test_cli import run_cli

TIMEOUT = 1.0 if EXTERNAL is None else EXTERNAL_TIMEOUT
LOW, HIGH = 0.5, 3.0  # accepted range, in multiples of the timeout


@unittest.skipIf(TIMEOUT is None, 'the external %s idle timeout is unknown '
                 '(set HTTPD_TIMEOUT_S)' % KIND)
class TimeoutTest(ServerTestCase):
    # The external server as it runs, with its own timeout (TIMEOUT).
    server_args = ('--timeout', '1') if EXTERNAL is None else ()

    def wait_cut_off(self, c, start, what, t=None):
        """Waits for the server to close c; the server may send a 408
        first.  Returns the seconds since start."""
        t = t or TIMEOUT
        closed, data = c.wait_closed(HIGH * t + 1 - (time.monotonic()
                                                       - start))
        elapsed = time.monotonic() - start
        self.assertTrue(closed, '%s: still open after %.1f s (timeout %.1f '
                        's)' % (what, elapsed, t))
        if data:
            self.assertRegex(data, rb'^HTTP/1\.[01] 408 ',
                             '%s: only a 408 may precede the close' % what)
            # Every 4xx carries a Date (RFC 9110 6.6.1): before, the 408
            # was a fixed string without one.
            self.assertRegex(data, rb'\r\nDate: [A-Z][a-z]{2}, ',
                             '%s: the 408 has a Date' % what)
        self.assertGreaterEqual(elapsed, LOW * t, '%s: closed too early'
                                % what)
        self.assertLessEqual(elapsed, HIGH * t, '%s: closed too late'
                             % what)
        return elapsed

    def test_idle_keep_alive_closed(self):
        with self.conn() as c:
            c.send(build_request('GET', '/a.txt'))
            self.assert_file(c.read_response(), '/a.txt')
            self.wait_cut_off(c, time.monotonic(), 'idle keep-alive')

    def test_activity_defers_the_timeout(self):
        """Requests every half timeout keep the connection alive past
        several timeouts."""
        with self.conn() as c:
            start = time.monotonic()
            while time.monotonic() - start < 2.5 * TIMEOUT:
                c.send(build_request('GET', '/a.txt'))
                self.assert_file(c.read_response(), '/a.txt')
                time.sleep(0.4 * TIMEOUT)
            c.send(build_request('GET', '/b.txt'))
            self.assert_file(c.read_response(), '/b.txt')

    def test_slow_download_with_progress_not_cut(self):
        """A download read slowly for about 3 timeouts is never idle, so
        it completes."""
        url = '/big/10m.bin'
        size = len(self.tree.files[url])
        reads = size // 65536
        with self.conn(rcvbuf=65536) as c:
            c.send(build_request('GET', url))
            resp = c.read_response(body=False)
            self.assertEqual(resp.status, 200)
            body = bytearray(c.buf)
            c.buf.clear()
            start = time.monotonic()
            while len(body) < size:
                chunk = c.sock.recv(65536)
                if not chunk:
                    break
                body += chunk
                time.sleep(3 * TIMEOUT / reads)
            self.assertEqual(len(body), size, 'slow download cut after '
                             '%.1f s (timeout %.1f s)'
                             % (time.monotonic() - start, TIMEOUT))
            self.assertEqual(bytes(body), self.tree.files[url])

    def test_announced_body_never_sent_after_big_reply(self):
        """A GET announcing a body it never sends, answered with a file
        large enough that the reply yields its turn mid-sendfile: waiting
        for the body afterwards still has a deadline."""
        url = '/big/10m.bin'
        with self.conn() as c:
            c.send(build_request('GET', url,
                                 headers=[('Content-Length', '10')]))
            self.assert_file(c.read_response(), url)
            self.wait_cut_off(c, time.monotonic(), 'client that never '
                              'sends its announced body')

    def test_silent_client_closed(self):
        with self.conn() as c:
            self.wait_cut_off(c, time.monotonic(), 'client that sends '
                              'nothing')

    def test_empty_lines_then_idle_closed_without_408(self):
        """Empty lines before a request are ignored (RFC 9112 2.2), as old
        clients send one after a POST's body: a connection that then goes
        quiet is an idle one, closed with no 408 that the client could
        take for the answer to the request it sends next.  Before, the
        empty lines were a request head cut off."""
        for first, lines in ((False, b'\r\n'), (True, b'\r\n'),
                             (True, b'\r\n\n\r\n'), (True, b'\r')):
            with self.subTest(after_a_request=first, lines=lines), \
                    self.conn() as c:
                if first:
                    c.send(build_request('POST', '/a.txt', body=b'ab'))
                    self.assertEqual(c.read_response().status, 405)
                start = time.monotonic()
                c.send(lines)
                closed, data = c.wait_closed(HIGH * TIMEOUT + 1)
                elapsed = time.monotonic() - start
                self.assertTrue(closed, 'still open after %.1f s' % elapsed)
                self.assertEqual(data, b'', 'an answer to empty lines')
                self.assertGreaterEqual(elapsed, LOW * TIMEOUT)
                self.assertLessEqual(elapsed, HIGH * TIMEOUT)

    def test_partial_head_cut_off(self):
        with self.conn() as c:
            c.send(b'GET /a.txt HTTP/1.1\r\nHost: t\r\nUser-Ag')
            self.wait_cut_off(c, time.monotonic(), 'partial request head')

    def test_trickling_client_cut_off(self):
        """One byte every 100 ms, forever: the head never completes and
        never reaches the size limit, so only a deadline on the whole head
        can end it."""
        errors = []
        stop = threading.Event()

        def other_client():
            # Meanwhile another client is served promptly.
            try:
                while not stop.is_set():
                    t0 = time.monotonic()
                    with self.conn(timeout=5) as o:
                        o.send(build_request('GET', '/b.txt'))
                        resp = o.read_response()
                    if resp.status != 200 or \
                            resp.body != self.tree.files['/b.txt']:
                        errors.append('bad response %r' % resp)
                    if time.monotonic() - t0 > max(1.0, TIMEOUT):
                        errors.append('other client waited %.2f s'
                                      % (time.monotonic() - t0))
                    stop.wait(0.25)
            except Exception as e:
                errors.append(repr(e))

        helper = threading.Thread(target=other_client, daemon=True)
        helper.start()
        try:
            with self.conn() as c:
                start = time.monotonic()
                c.send(b'GET /a.txt HTTP/1.1\r\nHost: t\r\nX-Slow: ')
                closed = False
                answer = b''
                while time.monotonic() - start < HIGH * TIMEOUT + 1:
                    try:
                        c.send(b'z')
                    except OSError:
                        closed = True
                        break
                    gone, data = c.wait_closed(0.1)
                    answer += data
                    if gone:
                        closed = True
                        break
                elapsed = time.monotonic() - start
                if answer:
                    self.assertRegex(answer, rb'^HTTP/1\.[01] 408 ',
                                     'only a 408 may precede the close')
                self.assertTrue(closed, 'trickling client still connected '
                                'after %.1f s' % elapsed)
                self.assertGreaterEqual(elapsed, LOW * TIMEOUT)
                self.assertLessEqual(elapsed, HIGH * TIMEOUT,
                                     'trickling client cut off too late')
        finally:
            stop.set()
            helper.join(10)
        self.assertEqual(errors, [])


@needs_process('starts sehttpd with --timeout 0.5')
@needs_process('starts sehttpd with --cors')
class LongHeadTimeoutTest(ServerTestCase):
    """A 408 whose head carries a long --cors origin is sent whole:
    before, it was built in 512 bytes and, not fitting, not sent at all
    (the log said 408)."""
    server_args = ('--timeout', '1', '--cors',
                   'https://' + 'o' * 60 + '.' + 'o' * 500 + '.example')

    def test_partial_head_gets_its_408(self):
        with self.conn() as c:
            c.send(b'GET /a.txt HTTP/1.1\r\nHost: t\r\nUser-Ag')
            closed, data = c.wait_closed(HIGH * TIMEOUT + 1)
        self.assertTrue(closed)
        self.assertTrue(data.startswith(b'HTTP/1.1 408 '), data[:100])
        self.assertIn(b'\r\nDate: ', data)
        self.assertTrue(data.endswith(b'\r\n\r\n'), data[-100:])


class FractionalTimeoutTest(ServerTestCase):
    server_args = ('--timeout', '0.5')

    def test_half_second_timeout(self):
        with self.conn() as c:
            c.send(build_request('GET', '/a.txt'))
            self.assert_file(c.read_response(), '/a.txt')
            start = time.monotonic()
            closed, _ = c.wait_closed(3)
            elapsed = time.monotonic() - start
            self.assertTrue(closed, 'not closed within 3 s')
            self.assertGreaterEqual(elapsed, LOW * 0.5)
            self.assertLessEqual(elapsed, HIGH * 0.5)



@needs_process('starts sehttpd with --timeout 0.5')
class SteadyReaderTest(ServerTestCase):
    server_args = ('--timeout', '0.5')

    def test_steady_slow_reader_not_cut(self):
        """A client with a small receive buffer reading a steady 1 MB/s
        makes progress all the time, but the server's send buffer (which
        grows to 4 MiB) frees a third of itself, when epoll reports it
        writable, only every 1.3 s: the deadline must move with every
        byte the client takes, not only when the socket is writable
        (before the fix: cut after about 3.6 MB)."""
        url = '/big/10m.bin'
        size = len(self.tree.files[url])
        rate = 1e6
        with self.conn(rcvbuf=16384) as c:
            c.send(build_request('GET', url))
            resp = c.read_response(body=False)
            self.assertEqual(resp.status, 200)
            got = len(c.buf)
            c.buf.clear()
            start = time.monotonic()
            while got < size and time.monotonic() - start < 6:
                chunk = c.sock.recv(16384)
                self.assertTrue(chunk, 'a steady reader (%d bytes in %.1f '
                                's) was cut off (--timeout 0.5)'
                                % (got, time.monotonic() - start))
                got += len(chunk)
                ahead = got / rate - (time.monotonic() - start)
                if ahead > 0:
                    time.sleep(ahead)
            self.assertGreater(got, 5e6)


MIN_RATE = 16 * 1024  # bytes per second, given as --min-rate below


def read_steadily(target, rate, seconds, url='/big/10m.bin', first=0):
    """Reads url from target (a Target or a ServerTestCase) at rate bytes
    per second, with a small receive buffer, for at most seconds.  With
    first, a request for url's first bytes goes before it, pipelined, and
    both responses are read as they come.  Returns (bytes, seconds, cut
    off)."""
    size = len(target.tree.files[url])
    with target.conn(rcvbuf=4096) as c:
        if first:
            c.send(build_request('GET', url, headers=[
                ('Range', 'bytes=0-%d' % (first - 1))]) +
                build_request('GET', url))
            size += first
            got = 0
        else:
            c.send(build_request('GET', url))
            resp = c.read_response(body=False)
            assert resp.status == 200, resp.describe()
            got = len(c.buf)
            c.buf.clear()
        start = time.monotonic()
        while got < size and time.monotonic() - start < seconds:
            try:
                chunk = c.sock.recv(4096)
            except ConnectionResetError:
                chunk = b''
            if not chunk:
                return got, time.monotonic() - start, True
            got += len(chunk)
            ahead = got / rate - (time.monotonic() - start)
            if ahead > 0:
                time.sleep(ahead)
        return got, time.monotonic() - start, False


@needs_process('starts sehttpd with --timeout 0.5 --min-rate 16384')
class TransferDeadlineTest(ServerTestCase):
    """Besides the timeout without progress, a response or a skipped body
    has a total deadline: start + timeout + its bytes / --min-rate (the
    acknowledged bytes, for a response), as in khttpd."""
    server_args = ('--timeout', '0.5', '--min-rate', str(MIN_RATE))
    T = 0.5

    def post_then_trickle(self, c, piece, pause, seconds):
        """Sends a POST with a huge body, reads its answer, then sends
        the body piece by piece every pause seconds, for at most seconds.
        Returns (closed, elapsed)."""
        c.send(b'POST / HTTP/1.1\r\nHost: t\r\n'
               b'Content-Length: 9999999999999999999\r\n\r\n')
        resp = c.read_response()
        self.assertLess(resp.status, 500)
        self.assertNotIn('close', resp.connection_tokens())
        start = time.monotonic()
        while time.monotonic() - start < seconds:
            try:
                c.send(piece)
            except OSError:
                return True, time.monotonic() - start
            gone, _ = c.wait_closed(pause)
            if gone:
                return True, time.monotonic() - start
        return False, time.monotonic() - start

    def test_trickled_body_cut_off(self):
        """A byte every 0.4 s is progress within every timeout, yet the
        body ends about a timeout after it began (then a linger of at
        most the timeout).  Before the transfer deadline the body had no
        progress rule, only the deadline the timer held from the idle
        wait, so this was cut off too: the guard is against a progress
        rule without the total bound."""
        with self.conn() as c:
            closed, elapsed = self.post_then_trickle(c, b'z', 0.4, 6)
            self.assertTrue(closed, 'a body trickled a byte every 0.4 s '
                            'still skipped after %.1f s (--timeout 0.5)'
                            % elapsed)
            self.assertLess(elapsed, 3.0)

    def test_slow_body_cut_off(self):
        """A body at 4 KiB/s, a quarter of --min-rate, ends after about
        timeout / (1 - 1/4), plus the linger."""
        with self.conn() as c:
            closed, elapsed = self.post_then_trickle(c, b'z' * 1024, 0.25,
                                                     6)
            self.assertTrue(closed, 'a body at 4 KiB/s still skipped '
                            'after %.1f s (--timeout 0.5)' % elapsed)
            self.assertLess(elapsed, 3.0)

    def test_steady_body_longer_than_timeout_skipped(self):
        """A body sent steadily at about 1 MB/s for three timeouts and
        more is skipped, and the next request on the connection answered
        (before: cut off a timeout after the request)."""
        size = 2 << 20
        with self.conn() as c:
            c.send(build_request('POST', '/a.txt',
                                 headers=[('Content-Length', str(size))]))
            resp = c.read_response()
            self.assertNotIn('close', resp.connection_tokens())
            start = time.monotonic()
            piece = b'b' * 65536
            for _ in range(size // len(piece)):
                c.send(piece)
                time.sleep(0.05)
            elapsed = time.monotonic() - start
            self.assertGreater(elapsed, 3 * self.T)
            c.send(build_request('GET', '/a.txt'))
            self.assert_file(c.read_response(), '/a.txt')

    def read_steadily(self, rate, seconds, url='/big/10m.bin'):
        return read_steadily(self, rate, seconds, url)

    def test_reader_below_min_rate_cut_off(self):
        """At 6 KiB/s (r = 3/8 of --min-rate) the client acknowledges
        bytes all the time, yet the response ends after about
        timeout / (1 - r) (0.8 s; 6 s allowed for the receive buffers)."""
        rate = 6 * 1024
        got, elapsed, cut = self.read_steadily(rate, 8)
        self.assertTrue(cut, 'a reader at 6 KiB/s not cut off after %.1f '
                        's (%d bytes, --timeout 0.5)' % (elapsed, got))
        self.assertLess(elapsed, 6.0)

    def test_reader_above_min_rate_not_cut(self):
        """At 64 KiB/s (4 times --min-rate) the allowance grows faster
        than time: not cut off in 5 s (ten timeouts)."""
        rate = 64 * 1024
        got, elapsed, cut = self.read_steadily(rate, 5)
        self.assertFalse(cut, 'a reader at 64 KiB/s cut off after %.1f s '
                         '(%d bytes, --timeout 0.5)' % (elapsed, got))
        self.assertGreater(got, 4 * rate)


@needs_process('starts sehttpd with --timeout 2 and the default --min-rate')
class SlowClientTest(ServerTestCase):
    """A slow mobile link: a reader at 4 KiB/s keeps receiving a large file
    for 15 s with --timeout 2 and the default --min-rate (1 KiB/s); before
    --min-rate, every response had to average 16 KiB/s and it was cut off
    after about 2.7 s."""
    server_args = ('--timeout', '2')

    def test_reader_at_4_kib_s_not_cut(self):
        got, elapsed, cut = read_steadily(self, 4096, 15)
        self.assertFalse(cut, 'a reader at 4 KiB/s cut off after %.1f s '
                         '(%d bytes, --timeout 2)' % (elapsed, got))
        self.assertGreater(got, 12 * 4096)

    def test_pipelined_reader_at_4_kib_s_not_cut(self):
        """The same reader, with 100 kB asked for before the file: when
        the file's response began, the socket held what the client had
        not read of the first.  Only bytes acknowledged beyond those
        counted as the file's progress, so the client had to read them
        all first, and was cut off after 2.5 s (10 kB)."""
        got, elapsed, cut = read_steadily(self, 4096, 8, first=100000)
        self.assertFalse(cut, 'a pipelining reader at 4 KiB/s cut off '
                         'after %.1f s (%d bytes, --timeout 2)'
                         % (elapsed, got))
        self.assertGreater(got, 6 * 4096)


@needs_process('starts sehttpd with --min-rate values')
class MinRateFlagTest(unittest.TestCase):

    def test_slower_than_min_rate_cut(self):
        """--min-rate 16384 with --timeout 1: a reader at 4 KiB/s is cut
        after about timeout / (1 - 1/4), receive buffers aside."""
        t = start_server(['--timeout', '1', '--min-rate', '16384'])
        self.addCleanup(t.server.kill)
        got, elapsed, cut = read_steadily(t, 4096, 12)
        self.assertTrue(cut, 'a reader at 4 KiB/s not cut after %.1f s '
                        'with --min-rate 16384' % elapsed)
        self.assertLess(elapsed, 8)
        t.server.stop()

    def test_bad_values(self):
        for value in ('-1', 'abc', '1.5', str(1 << 31), ''):
            with self.subTest(value=value):
                rc, _, err = run_cli(['--min-rate', value, '-p', '0'])
                self.assertEqual(rc, 2, err)
                self.assertIn("invalid minimum rate '%s'" % value, err)
