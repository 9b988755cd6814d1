"""Connections: keep-alive rules, pipelining, requests split at any byte,
clients that go away, and many clients at once."""

import re
import socket
import struct
import threading
import time
import unittest

from httpraw import build_request, Conn
from target import ServerTestCase, IS_SEHTTPD, needs_process, start_server

CONCURRENCY = 200 if IS_SEHTTPD else 3
REQUESTS_PER_CLIENT = 5 if IS_SEHTTPD else 3
SEQUENTIAL_CONNECTIONS = 300 if IS_SEHTTPD else 40

SPLIT_REQUEST = (b'GET /hello.txt HTTP/1.1\r\nHost: split.test\r\n'
                 b'User-Agent: split/1\r\nAccept: */*\r\n\r\n')


class ConnectionsTest(ServerTestCase):

    # --- keep-alive -----------------------------------------------------

    def test_http11_keep_alive_by_default(self):
        with self.conn() as c:
            for url in ('/a.txt', '/b.txt', '/mime/style.css', '/a.txt'):
                c.send(build_request('GET', url))
                resp = c.read_response()
                self.assert_file(resp, url)
                self.assertNotIn('close', resp.connection_tokens())
            self.assert_open(c)

    def test_http10_closes_by_default(self):
        with self.conn() as c:
            c.send(b'GET /a.txt HTTP/1.0\r\n\r\n')
            resp = c.read_response()
            self.assert_file(resp, '/a.txt')
            self.assertNotIn('keep-alive', resp.connection_tokens())
            self.assert_closed(c, what=' after an HTTP/1.0 response')

    def test_http10_keep_alive(self):
        with self.conn() as c:
            for url in ('/a.txt', '/nope', '/b.txt'):
                c.send(b'GET %s HTTP/1.0\r\nConnection: keep-alive\r\n\r\n'
                       % url.encode())
                resp = c.read_response()
                self.assertIn('keep-alive', resp.connection_tokens(),
                              'no Connection: keep-alive in\n'
                              + resp.describe())
                self.assertIn(resp.framing, ('length', 'chunked'))
                self.assert_open(c, ' after an HTTP/1.0 keep-alive '
                                 'response')
            c.send(b'GET /hello.txt HTTP/1.0\r\n\r\n')
            self.assert_file(c.read_response(), '/hello.txt')
            self.assert_closed(c)

    def test_connection_close_honoured(self):
        for value in ('close', 'Close', 'CLOSE', 'keep-alive, close'):
            with self.subTest(value=value), self.conn() as c:
                c.send(build_request('GET', '/a.txt',
                                     headers=[('Connection', value)]))
                resp = c.read_response()
                self.assert_file(resp, '/a.txt')
                self.assertIn('close', resp.connection_tokens())
                self.assert_closed(c)

    def test_connection_close_on_404(self):
        with self.conn() as c:
            c.send(build_request('GET', '/nope',
                                 headers=[('Connection', 'close')]))
            resp = c.read_response()
            self.assert_error(resp, 404)
            self.assertIn('close', resp.connection_tokens())
            self.assert_closed(c)

    def test_nothing_answered_after_close(self):
        with self.conn() as c:
            c.send(build_request('GET', '/a.txt',
                                 headers=[('Connection', 'close')]) +
                   build_request('GET', '/b.txt'))
            self.assert_file(c.read_response(), '/a.txt')
            self.assert_closed(c, what=' (answered a request sent after '
                               'Connection: close?)')

    def test_many_requests_one_connection(self):
        with self.conn() as c:
            for i in range(200):
                url = ('/a.txt', '/b.txt', '/mime/data.json')[i % 3]
                c.send(build_request('GET', url))
                self.assert_file(c.read_response(), url, ' (#%d)' % i)

    def test_request_arriving_during_a_long_reply(self):
        """A second request sent while the first reply is still being
        written (the client reads slowly) is answered after it."""
        with self.conn(rcvbuf=4096) as c:
            c.send(build_request('GET', '/big/10m.bin'))
            time.sleep(0.5)
            c.send(build_request('GET', '/a.txt'))
            self.assert_file(c.read_response(), '/big/10m.bin')
            self.assert_file(c.read_response(), '/a.txt',
                             ' (sent during the first reply)')

    def test_many_connections_in_sequence(self):
        for i in range(SEQUENTIAL_CONNECTIONS):
            with self.conn() as c:
                c.send(build_request('GET', '/a.txt'))
                self.assert_file(c.read_response(), '/a.txt', ' (#%d)' % i)

    # --- pipelining -----------------------------------------------------

    def test_pipelined_in_one_packet(self):
        plan = [('GET', '/a.txt', 200), ('GET', '/b.txt', 200),
                ('HEAD', '/hello.txt', 200), ('GET', '/nope', 404),
                ('GET', '/mime/app.js', 200), ('POST', '/a.txt', 405),
                ('GET', '/dir_noindex', 301), ('GET', '/empty.txt', 200),
                ('HEAD', '/big/1m.bin', 200), ('GET', '/many/', 200),
                ('GET', '/A.txt', 200), ('GET', '/index.html', 200)]
        data = b''.join(build_request(m, u) for m, u, _ in plan)
        with self.conn() as c:
            c.send(data)
            for method, url, status in plan:
                resp = c.read_response(method)
                self.assertEqual(resp.status, status, '%s %s\n%s'
                                 % (method, url, resp.describe()))
                if method == 'GET' and status == 200 and \
                        url in self.tree.files:
                    self.assert_file(resp, url)
            self.assert_open(c)

    def test_pipelined_large_responses(self):
        """All requests sent before any response is read: the server must
        cope with a client that is not reading yet."""
        urls = ['/big/1m.bin', '/a.txt', '/big/10m.bin', '/big/1m.bin',
                '/b.txt']
        with self.conn() as c:
            c.send(b''.join(build_request('GET', u) for u in urls))
            time.sleep(0.3)
            for url in urls:
                self.assert_file(c.read_response(), url)

    def test_pipelined_ending_with_close(self):
        with self.conn() as c:
            c.send(build_request('GET', '/a.txt') +
                   build_request('GET', '/b.txt') +
                   build_request('GET', '/hello.txt',
                                 headers=[('Connection', 'close')]))
            self.assert_file(c.read_response(), '/a.txt')
            self.assert_file(c.read_response(), '/b.txt')
            self.assert_file(c.read_response(), '/hello.txt')
            self.assert_closed(c)

    # --- split delivery ------------------------------------------------

    def test_split_at_every_byte(self):
        for i in range(1, len(SPLIT_REQUEST)):
            with self.subTest(split=i), self.conn() as c:
                c.send(SPLIT_REQUEST[:i])
                time.sleep(0.005)
                c.send(SPLIT_REQUEST[i:])
                self.assert_file(c.read_response(), '/hello.txt',
                                 ' split at byte %d' % i)

    def test_split_with_pause(self):
        """A pause long enough for the server to park the connection."""
        for i in (3, 20, len(SPLIT_REQUEST) - 2, len(SPLIT_REQUEST) - 1):
            with self.subTest(split=i), self.conn() as c:
                c.send(SPLIT_REQUEST[:i])
                time.sleep(0.25)
                c.send(SPLIT_REQUEST[i:])
                self.assert_file(c.read_response(), '/hello.txt')

    def test_one_byte_at_a_time(self):
        data = SPLIT_REQUEST + build_request('GET', '/b.txt') + \
            build_request('HEAD', '/a.txt')
        with self.conn() as c:
            c.send_slowly(data, step=1, pause=0.001)
            self.assert_file(c.read_response(), '/hello.txt')
            self.assert_file(c.read_response(), '/b.txt')
            self.assertEqual(c.read_response('HEAD').status, 200)

    def test_pipelined_split_across_requests(self):
        data = b''.join(build_request('GET', u)
                        for u in ('/a.txt', '/b.txt', '/hello.txt'))
        for cut in (5, len(data) // 3, len(data) // 2, len(data) - 3):
            with self.subTest(cut=cut), self.conn() as c:
                c.send(data[:cut])
                time.sleep(0.01)
                c.send(data[cut:])
                for url in ('/a.txt', '/b.txt', '/hello.txt'):
                    self.assert_file(c.read_response(), url)

    # --- clients that go away ------------------------------------------

    def test_client_aborts_download(self):
        for linger in (False, True):
            with self.subTest(reset=linger):
                c = self.conn(rcvbuf=65536)
                if linger:
                    # Close with a reset instead of a FIN.
                    c.sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                                      struct.pack('ii', 1, 0))
                c.send(build_request('GET', '/big/10m.bin'))
                c.read_response(body=False)
                c.close()
                time.sleep(0.1)
                self.assert_file(self.get('/a.txt'), '/a.txt')

    def test_client_closes_before_response(self):
        for data in (b'GET /a.txt HTTP/1.1\r\nHo', build_request('GET',
                                                                 '/a.txt')):
            c = self.conn()
            c.send(data)
            c.close()
        time.sleep(0.1)
        self.assert_file(self.get('/a.txt'), '/a.txt')

    # --- many clients -------------------------------------------------

    def test_concurrent_clients(self):
        urls = ['/a.txt', '/mime/image.png', '/big/1m.bin', '/many/',
                '/dir_noindex/size777.txt', '/nope']
        barrier = threading.Barrier(CONCURRENCY, timeout=30)
        errors = []
        done = []

        def client(n):
            try:
                barrier.wait()
                with Conn(self.target.host, self.target.port,
                          timeout=30) as c:
                    for i in range(REQUESTS_PER_CLIENT):
                        url = urls[(n + i) % len(urls)]
                        c.send(build_request('GET', url))
                        resp = c.read_response()
                        if url == '/nope':
                            ok = resp.status == 404
                        elif url == '/many/':
                            ok = resp.status == 200 and \
                                b'file_099.txt' in resp.body
                        else:
                            ok = resp.status == 200 and \
                                resp.body == self.tree.files[url]
                        if not ok:
                            errors.append('client %d %s: %r' % (n, url,
                                                                resp))
                            return
                done.append(n)
            except Exception as e:
                errors.append('client %d: %r' % (n, e))

        threads = [threading.Thread(target=client, args=(n,), daemon=True)
                   for n in range(CONCURRENCY)]
        for t in threads:
            t.start()
        deadline = time.monotonic() + 90
        for t in threads:
            t.join(max(0.1, deadline - time.monotonic()))
        self.assertFalse(any(t.is_alive() for t in threads),
                         'clients still running after 90 s')
        self.assertEqual(errors, [], '%d of %d clients failed'
                         % (len(errors), CONCURRENCY))
        self.assertEqual(len(done), CONCURRENCY)


@needs_process('starts sehttpd with one thread')
class PipelineTurnTest(unittest.TestCase):
    """A client pipelining thousands of requests takes turns with the
    thread's other connections: another client is answered while the
    batch is being served, not after it."""

    BATCH = 10000

    def test_other_client_served_during_a_batch(self):
        t = start_server(['-t', '1'])
        self.addCleanup(t.server.kill)
        req = build_request('GET', '/a.txt')
        batch = socket.create_connection((t.host, t.port))
        batch.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
        other = socket.create_connection((t.host, t.port))
        other.settimeout(10)
        self.addCleanup(batch.close)
        self.addCleanup(other.close)
        # The batch's responses are read as fast as they come.
        done = threading.Event()
        got = [0]

        def drain():
            batch.settimeout(20)
            want = self.BATCH * len(b'HTTP/1.1 200 OK')
            while not done.is_set():
                data = batch.recv(1 << 20)
                if not data:
                    break
                got[0] += data.count(b'HTTP/1.1 200 OK')
                if got[0] * len(b'HTTP/1.1 200 OK') >= want:
                    break
            done.set()

        reader = threading.Thread(target=drain)
        reader.start()
        start = time.monotonic()
        batch.sendall(req * self.BATCH)
        lat = []
        while not done.is_set() and time.monotonic() - start < 20:
            t0 = time.monotonic()
            other.sendall(req)
            buf = b''
            while b'\r\n\r\n' not in buf:
                buf += other.recv(65536)
            head, _, body = buf.partition(b'\r\n\r\n')
            length = int(re.search(rb'(?i)content-length: *(\d+)',
                                   head).group(1))
            while len(body) < length:
                body += other.recv(65536)
            self.assertEqual(len(body), length)
            lat.append(time.monotonic() - t0)
        reader.join(30)
        took = time.monotonic() - start
        self.assertEqual(got[0], self.BATCH)
        # Before: the first request waited for the whole batch, so it was
        # answered once, as the batch ended.
        self.assertGreaterEqual(len(lat), 3, 'batch of %d took %.3f s, '
                                'other client answered %d times, worst '
                                '%.3f s' % (self.BATCH, took, len(lat),
                                            max(lat)))
        print('\n  batch of %d in %.3f s; the other client answered %d '
              'times meanwhile, worst %.1f ms' % (self.BATCH, took, len(lat),
                                                  max(lat) * 1000))
        self.assertLess(max(lat), max(0.02, took / 3), lat)
        t.server.stop()


@needs_process('starts sehttpd with one thread')
class BodyStreamTurnTest(unittest.TestCase):
    """A client streaming a request body as fast as loopback allows (a
    body is skipped: nothing here takes one) takes turns with the
    thread's other connections, as a pipelined batch does."""

    STREAM_S = 3.0

    def stream(self, t, head, piece, stop):
        s = socket.create_connection((t.host, t.port))
        s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4 << 20)
        s.settimeout(5)
        try:
            s.sendall(head)
            while not stop.is_set():
                s.sendall(piece)
        except OSError:
            pass
        finally:
            s.close()

    def check_others(self, head, piece):
        t = start_server(['-t', '1', '--timeout', '2'])
        self.addCleanup(t.server.kill)
        stop = threading.Event()
        th = threading.Thread(target=self.stream,
                              args=(t, head, piece, stop))
        th.start()
        self.addCleanup(th.join, 10)
        self.addCleanup(stop.set)
        time.sleep(0.3)  # the stream is under way
        lat = []
        end = time.monotonic() + self.STREAM_S
        while time.monotonic() < end:
            t0 = time.monotonic()
            with Conn(t.host, t.port, timeout=10) as c:
                c.send(build_request('GET', '/a.txt'))
                self.assertEqual(c.read_response().status, 200)
            lat.append(time.monotonic() - t0)
        stop.set()
        # Before: the thread read the body for as long as bytes were
        # there, answering no one else (seconds).
        self.assertGreaterEqual(len(lat), 5, lat)
        slow = sorted(lat)[-5:]
        self.assertLess(max(lat), 0.5, '%d requests, the slowest %s s'
                        % (len(lat), ', '.join('%.3f' % x for x in slow)))

    def test_chunked_body_of_one_byte_chunks(self):
        head = (b'POST /a.txt HTTP/1.1\r\nHost: x\r\n'
                b'Transfer-Encoding: chunked\r\n\r\n')
        self.check_others(head, b'1\r\nx\r\n' * 200000)

    def test_long_content_length_body(self):
        head = (b'POST /a.txt HTTP/1.1\r\nHost: x\r\n'
                b'Content-Length: 1000000000000\r\n\r\n')
        self.check_others(head, b'x' * (1 << 20))
