"""The server under test.

By default each test class starts its own sehttpd (SEHTTPD_BIN, default
../../build/sehttpd) on 127.0.0.1, any free port, over a tree made by
tree.py in a temporary directory, and stops it with SIGTERM at the end
(expecting exit status 0).

With HTTPD_TARGET=HOST:PORT the tests talk to an already running server
instead (HTTPD_KIND names it, e.g. khttpd; HTTPD_TREE is the host-side copy
of its tree, HTTPD_TIMEOUT_S its idle timeout).  Tests that must start a
server with options, send it signals or watch its process are then skipped.
"""

import atexit
import os
import re
import shutil
import signal
import subprocess
import tempfile
import threading
import time
import unittest

import httpraw
import tree as treemod

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))

EXTERNAL = os.environ.get('HTTPD_TARGET') or None
KIND = os.environ.get('HTTPD_KIND') or ('khttpd' if EXTERNAL else 'sehttpd')
IS_SEHTTPD = EXTERNAL is None
EXTERNAL_TIMEOUT = float(os.environ['HTTPD_TIMEOUT_S']) \
    if os.environ.get('HTTPD_TIMEOUT_S') else None

LISTEN_RE = re.compile(r'listening on https?://(\[[0-9A-Fa-f:.]+\]|[^:/\s]+)'
                       r':(\d+)/')


def needs_process(why):
    """Skips a test (or class) when the server is not ours to start."""
    return unittest.skipIf(EXTERNAL is not None,
                           'needs its own server process (%s); the '
                           'external %s is already running' % (why, KIND))


def resolve_bin(var, default):
    """An executable from the environment; a relative path is taken from
    the current directory when it exists there, else from the repository
    root (make passes build/... while run.sh runs in this directory)."""
    path = os.environ.get(var) or default
    if not os.path.isabs(path) and not os.path.exists(path):
        path = os.path.join(REPO, path)
    return os.path.abspath(path)


def sehttpd_bin():
    return resolve_bin('SEHTTPD_BIN', os.path.join(REPO, 'build/sehttpd'))


_tmp_dirs = []
_nobody_bin = None


def temp_dir(prefix='sehttpd-it-'):
    """A directory the server can search: started as root (as the suite
    may be), it serves as nobody, so mkdtemp's mode 700 would hide all."""
    d = tempfile.mkdtemp(prefix=prefix)
    os.chmod(d, 0o755)
    _tmp_dirs.append(d)
    return d


def nobody_bin():
    """The server binary where nobody can run it: the clone may lie under a
    directory only root may search (/root, a mktemp -d), so a server
    started as nobody runs a copy in a temporary directory (one per run)."""
    global _nobody_bin
    if _nobody_bin is None:
        path = os.path.join(temp_dir('sehttpd-bin-'), 'sehttpd')
        shutil.copyfile(sehttpd_bin(), path)
        os.chmod(path, 0o755)
        _nobody_bin = path
    return _nobody_bin


@atexit.register
def _remove_temp_dirs():
    for d in _tmp_dirs:
        shutil.rmtree(d, ignore_errors=True)


_session_tree = None


def session_tree():
    """The tree every shared server serves (built once per run)."""
    global _session_tree
    if _session_tree is None:
        given = os.environ.get('HTTPD_TREE')
        if EXTERNAL and given:
            _session_tree = treemod.check_tree(given)
        else:
            _session_tree = treemod.make_tree(temp_dir())
    return _session_tree


class ServerProcess:
    """One sehttpd process, its stdout read line by line in a thread."""

    def __init__(self, args=(), root=None, bind='127.0.0.1', port='0',
                 cwd=None, preexec_fn=None, ready_timeout=10, exe=None):
        self.cmd = [exe or sehttpd_bin()]
        if bind is not None:
            self.cmd += ['-b', bind]
        if port is not None:
            self.cmd += ['-p', str(port)]
        self.cmd += list(args)
        if root is not None:
            self.cmd.append(root)
        self.lines = []
        self.cond = threading.Condition()
        self.stdout_closed = False
        self.err = tempfile.TemporaryFile()
        self.proc = subprocess.Popen(self.cmd, stdin=subprocess.DEVNULL,
                                     stdout=subprocess.PIPE, stderr=self.err,
                                     cwd=cwd, preexec_fn=preexec_fn)
        self.reader = threading.Thread(target=self._read_stdout, daemon=True)
        self.reader.start()
        self.exit_code = None
        try:
            self.listen_line = self.wait_line(
                lambda s: 'listening on' in s, ready_timeout)
        except AssertionError:
            self.kill()
            raise
        m = LISTEN_RE.search(self.listen_line)
        if not m:
            self.kill()
            raise AssertionError('cannot parse the listening line %r'
                                 % self.listen_line)
        self.host = m.group(1).strip('[]')
        self.port = int(m.group(2))

    def _read_stdout(self):
        for raw in self.proc.stdout:
            with self.cond:
                self.lines.append(raw.decode('utf-8', 'replace')
                                  .rstrip('\n'))
                self.cond.notify_all()
        with self.cond:
            self.stdout_closed = True
            self.cond.notify_all()

    def wait_line(self, pred, timeout, start=0):
        """The first stdout line from index start that pred accepts."""
        deadline = time.monotonic() + timeout
        with self.cond:
            while True:
                for line in self.lines[start:]:
                    if pred(line):
                        return line
                left = deadline - time.monotonic()
                if self.stdout_closed or left <= 0:
                    break
                self.cond.wait(left)
        raise AssertionError('no expected line on stdout within %.1f s '
                             '(exit %s); stdout %r; stderr %r'
                             % (timeout, self.proc.poll(), self.lines,
                                self.stderr_text()))

    def stderr_text(self):
        self.err.seek(0)
        return self.err.read().decode('utf-8', 'replace')

    def alive(self):
        return self.proc.poll() is None

    def cpu_seconds(self):
        """User plus system CPU time the process has used."""
        with open('/proc/%d/stat' % self.proc.pid) as fh:
            fields = fh.read().rsplit(')', 1)[1].split()
        ticks = int(fields[11]) + int(fields[12])
        return ticks / os.sysconf('SC_CLK_TCK')

    def send_signal(self, sig):
        self.proc.send_signal(sig)

    def wait(self, timeout):
        """The exit status, or None if still running after timeout."""
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            return None

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()

    def stop(self, sig=signal.SIGTERM, timeout=10):
        """Stops the server and asserts it exited with status 0."""
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
        rc = self.wait(timeout)
        if rc is None:
            self.kill()
            raise AssertionError('sehttpd did not exit within %.0f s of '
                                 'signal %d; stderr %r'
                                 % (timeout, sig, self.stderr_text()))
        self.reader.join(5)
        if rc != 0:
            raise AssertionError('sehttpd exited with %d; stderr %r'
                                 % (rc, self.stderr_text()))
        return rc


class Target:
    """Where the tests send requests: host, port, the tree it serves and,
    for our own server, its process."""

    def __init__(self, host, port, tree, server=None, kind=KIND):
        self.host = host
        self.port = port
        self.tree = tree
        self.server = server
        self.kind = kind

    @property
    def hostport(self):
        if ':' in self.host:
            return '[%s]:%d' % (self.host, self.port)
        return '%s:%d' % (self.host, self.port)

    def conn(self, **kw):
        return httpraw.Conn(self.host, self.port, **kw)

    def request(self, data, method='GET'):
        return httpraw.request(self.host, self.port, data, method)

    def get(self, target, method='GET', version='HTTP/1.1', headers=()):
        return self.request(httpraw.build_request(method, target, version,
                                                  headers=headers), method)

    def stop(self):
        if self.server:
            self.server.stop()


def external_target():
    host, _, port = EXTERNAL.rpartition(':')
    return Target(host.strip('[]'), int(port), session_tree())


def start_server(args=(), root=None, tree=None, **kw):
    """Starts our own sehttpd; root defaults to the session tree's www."""
    if tree is None and root is None:
        tree = session_tree()
    if root is None:
        root = tree.www
    srv = ServerProcess(args, root=root, **kw)
    return Target(srv.host, srv.port, tree, srv, 'sehttpd')


def shared_target(args=()):
    """The external server, or a new sehttpd over the session tree."""
    if EXTERNAL:
        return external_target()
    return start_server(args)


class ServerTestCase(unittest.TestCase):
    """A test class sharing one server; a test that kills it fails and the
    next test gets a fresh one."""

    server_args = ()

    @classmethod
    def setUpClass(cls):
        cls.target = shared_target(cls.server_args)
        cls.tree = cls.target.tree
        cls.addClassCleanup(cls._stop_target)

    @classmethod
    def _stop_target(cls):
        cls.target.stop()

    def setUp(self):
        srv = self.target.server
        if srv and not srv.alive():
            type(self).target = shared_target(self.server_args)

    def tearDown(self):
        srv = self.target.server
        if srv and srv.wait(0.01) is not None:
            self.fail('the server died during this test (exit %s); '
                      'stderr: %s' % (srv.proc.returncode,
                                      srv.stderr_text()[-2000:]))

    # helpers shared by the test modules

    def conn(self, **kw):
        return self.target.conn(**kw)

    def get(self, target, **kw):
        return self.target.get(target, **kw)

    def send(self, data, method='GET'):
        return self.target.request(data, method)

    def assert_server_header(self, resp):
        server = resp.header('Server')
        self.assertIsNotNone(server, 'no Server header:\n' + resp.describe())
        self.assertRegex(server, r'^%s(/\S+)?$' % KIND,
                         'unexpected Server header')

    def assert_error(self, resp, status):
        """An error response: status, small HTML body naming the status,
        with Content-Type text/html and an exact Content-Length."""
        self.assertEqual(resp.status, status, resp.describe())
        ctype = resp.header('Content-Type') or ''
        self.assertTrue(ctype.startswith('text/html'),
                        'error without text/html:\n' + resp.describe())
        cl = resp.header('Content-Length')
        self.assertIsNotNone(cl, 'error without Content-Length:\n'
                             + resp.describe())
        self.assertEqual(int(cl), len(resp.body))
        self.assertIn(str(status).encode(), resp.body,
                      'error body does not mention %d' % status)
        self.assertLess(len(resp.body), 4096, 'error body is not small')
        self.assertNotIn(self.tree.secret_marker, resp.body)

    def assert_closed(self, conn, within=3.0, what=''):
        closed, data = conn.wait_closed(within)
        self.assertEqual(data, b'', 'unexpected bytes after the response%s'
                         % what)
        self.assertTrue(closed, 'the server did not close the connection '
                        'within %.1f s%s' % (within, what))

    def assert_open(self, conn, what=''):
        self.assertTrue(conn.is_open(0.2), 'the server closed the '
                        'connection%s' % what)

    def assert_file(self, resp, url, what=''):
        """A 200 carrying exactly the tree's file url."""
        self.assertEqual(resp.status, 200, '%s%s\n%s'
                         % (url, what, resp.describe()))
        data = self.tree.files[url]
        if resp.body != data:
            self.fail('%s%s: body differs (%d bytes, expected %d): %r'
                      % (url, what, len(resp.body), len(data),
                         resp.body[:200]))
        self.assertEqual(resp.header('Content-Length'), str(len(data)))
