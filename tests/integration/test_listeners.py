"""Where sehttpd listens: -b given several times (each address at its own
port or -p's, IPv6 in brackets), -b unix:PATH (mode, stale and live socket
files, removal at exit, the access log's "unix:", threads sharing it),
and bad -b values."""

import os
import re
import resource
import shutil
import socket
import stat
import subprocess
import time
import unittest

import httpraw
from httpraw import build_request, Conn
from target import (ServerProcess, needs_process, sehttpd_bin, session_tree,
                    temp_dir)
from test_cli import LISTEN_LINE, free_port, run_cli

CLIENT_TIMEOUT = 10
ANY_LISTEN = re.compile(r'^sehttpd: listening on (\S+)')


class UnixConn(Conn):
    """A client connection to a Unix socket, read as Conn reads."""

    def __init__(self, path, timeout=httpraw.IO_TIMEOUT):
        self.host, self.port, self.timeout = path, None, timeout
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(timeout)
        try:
            self.sock.connect(path)
        except BaseException:
            self.sock.close()
            raise
        self.buf = bytearray()
        self.eof = False
        self.reset = False


def has_ipv6_loopback():
    try:
        with socket.socket(socket.AF_INET6) as s:
            s.bind(('::1', 0))
        return True
    except OSError:
        return False


def socket_dir():
    """A directory for socket files that the serving user may write, so
    that it can remove them at exit: started as root, sehttpd serves as
    nobody."""
    d = temp_dir('sehttpd-sock-')
    if os.getuid() == 0:
        os.chown(d, 65534, 65534)
    return d


class ListenerCase(unittest.TestCase):

    def start(self, args, **kw):
        kw.setdefault('root', session_tree().www)
        srv = ServerProcess(list(args), **kw)
        self.addCleanup(srv.kill)
        return srv

    def listening(self, srv, n):
        """The n listening lines srv prints, once they are all out."""
        srv.wait_line(lambda _: sum('listening on' in x
                                    for x in srv.lines) >= n, 5)
        return [ANY_LISTEN.match(x).group(1) for x in srv.lines
                if 'listening on' in x]

    def get_tcp(self, host, port, path='/a.txt'):
        with Conn(host, port) as c:
            c.send(build_request('GET', path))
            return c.read_response()

    def get_unix(self, path, target='/a.txt', **kw):
        with UnixConn(path) as c:
            c.send(build_request('GET', target, **kw))
            return c.read_response()

    def assert_a_txt(self, resp, what=''):
        self.assertEqual(resp.status, 200, '%s\n%s' % (what,
                                                       resp.describe()))
        self.assertEqual(resp.body, session_tree().files['/a.txt'], what)

    def usage_error(self, args, *words, root=True):
        rc, out, err = run_cli(list(args) +
                               ([session_tree().www] if root else []))
        self.assertEqual(rc, 2, 'sehttpd %s: exit %s, stderr %r'
                         % (args, rc, err))
        lines = err.splitlines()
        self.assertEqual(len(lines), 1, err)
        self.assertTrue(lines[0].startswith('sehttpd: '), err)
        for w in words:
            self.assertIn(w, lines[0])
        self.assertNotIn('listening', out)
        return lines[0]


@needs_process('starts sehttpd with several -b')
class SeveralAddressesTest(ListenerCase):

    def test_every_address_is_listened_on(self):
        """Only the last -b was: the others were silently dropped."""
        srv = self.start(['-b', '127.0.0.2', '-b', '127.0.0.3', '-t', '2'])
        where = self.listening(srv, 3)
        self.assertEqual(len(where), 3, srv.lines)
        # The first line keeps its form, which scripts parse.
        m = LISTEN_LINE.match(srv.listen_line)
        self.assertIsNotNone(m, srv.listen_line)
        self.assertEqual(m.group(1), '127.0.0.1')
        self.assertEqual(m.group(4), '2')
        for i, host in enumerate(('127.0.0.1', '127.0.0.2', '127.0.0.3')):
            with self.subTest(host=host):
                m = re.match(r'http://([\d.]+):(\d+)/$', where[i])
                self.assertIsNotNone(m, where[i])
                self.assertEqual(m.group(1), host)
                self.assert_a_txt(self.get_tcp(host, int(m.group(2))))
        srv.stop()

    def test_ports_given_and_default(self):
        p1, p2, p3 = free_port(), free_port(), free_port('127.0.0.2')
        srv = self.start(['-b', '127.0.0.1:%d' % p2, '-b', '127.0.0.2'],
                         port=p1)
        self.assertEqual(self.listening(srv, 3),
                         ['http://127.0.0.1:%d/' % p1,
                          'http://127.0.0.1:%d/' % p2,
                          'http://127.0.0.2:%d/' % p1])
        for host, port in (('127.0.0.1', p1), ('127.0.0.1', p2),
                           ('127.0.0.2', p1)):
            with self.subTest(host=host, port=port):
                self.assert_a_txt(self.get_tcp(host, port))
        self.assertTrue(httpraw.connect_refused('127.0.0.2', p3))
        srv.stop()

    @unittest.skipUnless(has_ipv6_loopback(), 'no IPv6 loopback here')
    def test_ipv6_with_a_port(self):
        port = free_port('::1')
        srv = self.start(['-b', '[::1]:%d' % port, '-b', '::1'])
        where = self.listening(srv, 3)
        self.assertEqual(where[1], 'http://[::1]:%d/' % port)
        self.assert_a_txt(self.get_tcp('::1', port))
        m = re.match(r'http://\[::1\]:(\d+)/$', where[2])
        self.assert_a_txt(self.get_tcp('::1', int(m.group(1))))
        srv.stop()

    @unittest.skipUnless(has_ipv6_loopback(), 'no IPv6 loopback here')
    def test_ipv4_and_ipv6_wildcard_share_a_port(self):
        """[::] took IPv4 too, so beside an IPv4 address at the same port
        it could not bind: each family now has its own."""
        port = free_port()
        srv = self.start(['-b', '[::]:%d' % port], port=port)
        self.assertEqual(len(self.listening(srv, 2)), 2)
        self.assert_a_txt(self.get_tcp('127.0.0.1', port))
        self.assert_a_txt(self.get_tcp('::1', port))
        srv.stop()

    def test_same_address_twice_refused(self):
        port = free_port()
        self.usage_error(['-b', '127.0.0.1:%d' % port, '-b',
                          '127.0.0.1:%d' % port], 'port already in use')

    def test_bad_values(self):
        long_path = 'unix:/' + 'x' * 107
        for value, why in (('127.0.0.1:', 'the port is a number'),
                           ('127.0.0.1:65536', 'the port is a number'),
                           ('127.0.0.1:8x', 'the port is a number'),
                           (':8080', 'expected an address'),
                           ('', 'expected an address'),
                           ('[::1', 'expected [IPV6]'),
                           ('[::1]8080', 'expected [IPV6]'),
                           ('[::1]:', 'the port is a number'),
                           ('unix:', "a Unix socket's path"),
                           (long_path, "a Unix socket's path")):
            with self.subTest(value=value):
                self.usage_error(['-p', '0', '-b', value],
                                 "invalid --bind '", why)

    def test_at_most_16(self):
        args = []
        for i in range(17):
            args += ['-b', '127.0.0.%d' % (i + 1)]
        self.usage_error(args, 'at most 16 --bind options')


@needs_process('starts sehttpd on a Unix socket')
class UnixSocketTest(ListenerCase):

    def setUp(self):
        self.dir = socket_dir()
        self.path = os.path.join(self.dir, 'http.sock')

    def test_serves_and_logs(self):
        log = os.path.join(temp_dir(), 'access.log')
        srv = self.start(['-b', 'unix:' + self.path, '--access-log', log,
                          '-t', '2'])
        self.assertEqual(self.listening(srv, 2)[1], 'unix:' + self.path)
        st = os.lstat(self.path)
        self.assertTrue(stat.S_ISSOCK(st.st_mode))
        self.assertEqual(stat.S_IMODE(st.st_mode), 0o660)
        self.assert_a_txt(self.get_unix(self.path))
        # Keep-alive and pipelining, as on TCP.
        with UnixConn(self.path) as c:
            c.send(build_request('GET', '/a.txt') * 3)
            for _ in range(3):
                self.assert_a_txt(c.read_response())
            c.send(build_request('GET', '/big/1m.bin'))
            r = c.read_response()
            self.assertEqual(r.body, session_tree().files['/big/1m.bin'])
        self.assert_a_txt(self.get_tcp(srv.host, srv.port))
        srv.stop()
        with open(log) as fh:
            lines = fh.read().splitlines()
        self.assertEqual(len(lines), 6, lines)
        self.assertEqual(sum(x.startswith('unix: - - [') for x in lines), 5,
                         lines)
        self.assertTrue(lines[-1].startswith('127.0.0.1 - - ['), lines)

    def test_alone_first_line(self):
        """A Unix socket as the only listener: the first line names it."""
        p = subprocess.Popen([sehttpd_bin(), '-b', 'unix:' + self.path,
                              '-t', '1', session_tree().www],
                             stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE)
        self.addCleanup(p.wait, 10)
        self.addCleanup(p.kill)
        line = p.stdout.readline().decode()
        self.assertRegex(line, r'^sehttpd: listening on unix:%s \(root .+, '
                         r'1 thread\)$' % re.escape(self.path))
        self.assert_a_txt(self.get_unix(self.path))
        p.terminate()
        self.assertEqual(p.wait(10), 0)
        self.assertFalse(os.path.lexists(self.path),
                         'the socket file is left behind')

    @unittest.skipUnless(shutil.which('curl'), 'curl is not installed')
    def test_curl_http1_and_http2(self):
        srv = self.start(['-b', 'unix:' + self.path])
        self.listening(srv, 2)
        for extra in ([], ['--http2-prior-knowledge']):
            with self.subTest(extra=extra):
                p = subprocess.run(
                    ['curl', '-sS', '--max-time', str(CLIENT_TIMEOUT),
                     '--unix-socket', self.path, '-w', '\n%{http_version}']
                    + extra + ['http://localhost/a.txt'],
                    capture_output=True, timeout=CLIENT_TIMEOUT + 5)
                self.assertEqual(p.returncode, 0, p.stderr)
                body, _, version = p.stdout.rpartition(b'\n')
                self.assertEqual(body, session_tree().files['/a.txt'])
                self.assertEqual(version, b'2' if extra else b'1.1')
        srv.stop()

    def test_removed_at_exit(self):
        srv = self.start(['-b', 'unix:' + self.path])
        self.listening(srv, 2)
        self.assertTrue(os.path.exists(self.path))
        srv.stop()
        self.assertFalse(os.path.lexists(self.path))

    def test_stale_socket_replaced(self):
        """A file left by a server that is gone (killed: nothing removed
        it) is replaced."""
        old = socket.socket(socket.AF_UNIX)
        old.bind(self.path)
        old.close()  # the file stays; nothing listens
        self.assertTrue(os.path.exists(self.path))
        srv = self.start(['-b', 'unix:' + self.path])
        self.listening(srv, 2)
        self.assert_a_txt(self.get_unix(self.path))
        # Killed, it leaves the file: the next start replaces it too.
        srv.kill()
        self.assertTrue(os.path.exists(self.path))
        srv = self.start(['-b', 'unix:' + self.path])
        self.listening(srv, 2)
        self.assert_a_txt(self.get_unix(self.path))
        srv.stop()

    def test_live_socket_refused(self):
        live = socket.socket(socket.AF_UNIX)
        self.addCleanup(live.close)
        live.bind(self.path)
        live.listen(1)
        self.usage_error(['-p', '0', '-b', 'unix:' + self.path],
                         'unix:' + self.path, 'a server is listening there')
        self.assertTrue(os.path.exists(self.path))
        # A live sehttpd, likewise: the second one leaves it alone.
        live.close()
        os.unlink(self.path)
        srv = self.start(['-b', 'unix:' + self.path])
        self.listening(srv, 2)
        self.usage_error(['-p', '0', '-b', 'unix:' + self.path],
                         'a server is listening there')
        self.assert_a_txt(self.get_unix(self.path))
        srv.stop()

    def test_other_files_refused(self):
        with open(self.path, 'w') as fh:
            fh.write('precious\n')
        self.usage_error(['-p', '0', '-b', 'unix:' + self.path],
                         'not a socket')
        with open(self.path) as fh:
            self.assertEqual(fh.read(), 'precious\n')
        os.unlink(self.path)
        os.mkdir(self.path)
        self.usage_error(['-p', '0', '-b', 'unix:' + self.path],
                         'not a socket')
        self.assertTrue(os.path.isdir(self.path))
        missing = os.path.join(self.dir, 'no', 'such', 'dir', 's.sock')
        self.usage_error(['-p', '0', '-b', 'unix:' + missing],
                         'unix:' + missing)

    def test_exit_leaves_another_servers_socket(self):
        """Removed at exit only while it is still the file this server
        made: a server started since at that path keeps its own."""
        first = self.start(['-b', 'unix:' + self.path])
        self.listening(first, 2)
        os.unlink(self.path)
        second = self.start(['-b', 'unix:' + self.path])
        self.listening(second, 2)
        first.stop()
        self.assertTrue(os.path.exists(self.path))
        self.assert_a_txt(self.get_unix(self.path))
        second.stop()
        self.assertFalse(os.path.lexists(self.path))

    def test_threads_share_it(self):
        """Every connection is served whichever thread takes it."""
        srv = self.start(['-b', 'unix:' + self.path, '-t', '4'])
        self.listening(srv, 2)
        conns = [UnixConn(self.path) for _ in range(40)]
        try:
            for c in conns:
                c.send(build_request('GET', '/a.txt'))
            for c in conns:
                self.assert_a_txt(c.read_response())
        finally:
            for c in conns:
                c.close()
        srv.stop()


NOFILE = 64
FLOOD = 120


def low_nofile():
    resource.setrlimit(resource.RLIMIT_NOFILE, (NOFILE, NOFILE))


@needs_process('sets RLIMIT_NOFILE and reads its CPU time from /proc')
class UnixSocketExhaustionTest(ListenerCase):
    """At the connection limit that the descriptors set, the threads
    sharing a Unix socket close new clients at once (out of descriptors
    all the same, they pause accepting: EPOLLEXCLUSIVE registrations
    cannot be modified, they leave the epoll set) rather than spin, and
    take clients again after."""

    def test_pause_and_resume(self):
        path = os.path.join(socket_dir(), 'flood.sock')
        srv = self.start(['-b', 'unix:' + path, '-t', '2'],
                         preexec_fn=low_nofile)
        self.listening(srv, 2)
        kept = [UnixConn(path) for _ in range(4)]
        flood = []
        try:
            for c in kept:
                c.send(build_request('GET', '/a.txt'))
                self.assert_a_txt(c.read_response())
            refused = 0
            for _ in range(FLOOD):
                s = socket.socket(socket.AF_UNIX)
                s.settimeout(0.5)
                try:
                    s.connect(path)
                    s.sendall(build_request('GET', '/b.txt'))
                    flood.append(s)
                except OSError:
                    # Closed at once over the limit, or a full backlog.
                    s.close()
                    refused += 1
            self.assertGreater(len(flood) + refused, NOFILE)
            time.sleep(0.3)
            cpu0 = srv.cpu_seconds()
            time.sleep(1.0)
            spent = srv.cpu_seconds() - cpu0
            self.assertLess(spent, 0.3, 'the server used %.2f s of CPU in '
                            '1 s while out of descriptors (spinning?)'
                            % spent)
            for c in kept:
                c.send(build_request('GET', '/a.txt'))
                self.assert_a_txt(c.read_response())
        finally:
            for s in flood:
                s.close()
            for c in kept:
                c.close()
        deadline = time.monotonic() + 10
        while True:
            try:
                self.assert_a_txt(self.get_unix(path))
                break
            except (OSError, AssertionError):
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.2)
        srv.stop()
