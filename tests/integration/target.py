"""The server under test.

By default each test class starts its own sehttpd (SEHTTPD_BIN, default
../../build/sehttpd) on 127.0.0.1, any free port, over a tree made by
tree.py in a temporary directory, and stops it with SIGTERM at the end
(expecting exit status 0).

With HTTPD_TARGET=HOST:PORT the tests talk to an already running server
instead (HTTPD_KIND names it, e.g. khttpd; HTTPD_TREE is the host-side copy
of its tree, HTTPD_TIMEOUT_S its idle timeout).  Tests that must send it
signals or watch its process are then skipped.  So are those that start a
server with options or over a tree of their own, unless HTTPD_CTL_PORT
names the control channel of the khttpd test guest (tests/kernel/run.sh):
then the module is loaded again with the parameters that stand for those
options (HTTPD_MODULE_ARGS are those it was loaded with), over a copy of
that tree in the guest, and loaded as it was when the test stops it.
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
from guest import Guest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))

EXTERNAL = os.environ.get('HTTPD_TARGET') or None
KIND = os.environ.get('HTTPD_KIND') or ('khttpd' if EXTERNAL else 'sehttpd')
IS_SEHTTPD = EXTERNAL is None
EXTERNAL_TIMEOUT = float(os.environ['HTTPD_TIMEOUT_S']) \
    if os.environ.get('HTTPD_TIMEOUT_S') else None

LISTEN_RE = re.compile(r'listening on https?://(\[[0-9A-Fa-f:.]+\]|[^:/\s]+)'
                       r':(\d+)/')


CTL_PORT = int(os.environ['HTTPD_CTL_PORT']) \
    if EXTERNAL and os.environ.get('HTTPD_CTL_PORT') else None
MODULE_ARGS = os.environ.get('HTTPD_MODULE_ARGS', '')
# Where a tree of a test's own is copied in the guest.
GUEST_OWN_ROOT = '/srv/own'


def needs_process(why):
    """Skips a test (or class) when the server is not ours to start."""
    return unittest.skipIf(EXTERNAL is not None,
                           'needs its own server process (%s); the '
                           'external %s is already running' % (why, KIND))


def only_local(why):
    """Skips a test (or class) against the external server: why says what
    a copy of the files in the test guest cannot stand for."""
    return unittest.skipIf(EXTERNAL is not None, '%s (the external %s)'
                           % (why, KIND))


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


def logs_to_stdout(args):
    """Whether args send the access log to standard output."""
    args = list(args)
    return '--access-log=-' in args or any(
        a == '--access-log' and b == '-' for a, b in zip(args, args[1:]))


class ServerProcess:
    """One sehttpd process, its stdout read line by line in a thread, its
    stderr kept in a file (whole up to the moment it is read)."""

    # The server's own lines ("listening on..."): on stderr when the
    # access log takes stdout (a subclass that starts the process its own
    # way keeps them on stdout).
    notices_on_stderr = False

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
        self.notices_on_stderr = logs_to_stdout(args)
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
        """The first of the server's own lines (on stdout, or on stderr
        when the access log takes stdout) from index start that pred
        accepts."""
        deadline = time.monotonic() + timeout
        with self.cond:
            while True:
                ended = self.stdout_closed
                if self.notices_on_stderr:
                    # Written to a file: looked at again every 20 ms.
                    lines = self.stderr_text().splitlines()
                    ended = self.proc.poll() is not None
                else:
                    lines = self.lines
                for line in lines[start:]:
                    if pred(line):
                        return line
                left = deadline - time.monotonic()
                if ended or left <= 0:
                    break
                self.cond.wait(min(left, 0.02) if self.notices_on_stderr
                               else left)
        raise AssertionError('no expected line on %s within %.1f s '
                             '(exit %s); stdout %r; stderr %r'
                             % ('stderr' if self.notices_on_stderr else
                                'stdout', timeout, self.proc.poll(),
                                self.lines, self.stderr_text()))

    def stderr_text(self):
        # pread: the file's offset is the server's too, where it writes.
        fd = self.err.fileno()
        return os.pread(fd, os.fstat(fd).st_size, 0).decode('utf-8',
                                                            'replace')

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

    def __init__(self, host, port, tree, server=None, kind=KIND,
                 mirror=None, shell=None):
        self.host = host
        self.port = port
        self.tree = tree
        self.server = server
        self.kind = kind
        self.mirror = mirror
        self._shell = shell

    def shell(self, script):
        """Runs script with sh in the root the server reads (in the test
        guest for khttpd), as root, for what a file copy cannot make (a
        mount); returns its output and exit status."""
        if not self._shell:
            raise unittest.SkipTest('no shell where %s reads its files'
                                    % self.kind)
        return self._shell(script)

    def sync(self, *rels):
        """After a test changed the paths rels (relative to the root it
        serves) on the host: the same changes where the server reads them
        (a copy in the test guest); nothing for a server on this host."""
        if self.mirror:
            self.mirror(rels)

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
    """Starts our own sehttpd; root defaults to the session tree's www.
    Against khttpd in the test guest: the module loaded with the
    parameters for args, over a copy of root in the guest."""
    if tree is None and root is None:
        tree = session_tree()
    if root is None:
        root = tree.www
    if EXTERNAL:
        return module_target(args, root, tree, kw)
    srv = ServerProcess(args, root=root, **kw)

    def shell(script):
        run = subprocess.run(['sh', '-c', script], cwd=root,
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        return run.stdout.decode('utf-8', 'replace'), run.returncode
    return Target(srv.host, srv.port, tree, srv, 'sehttpd', shell=shell)


def shared_target(args=()):
    """The external server (loaded with the parameters for args, if any),
    or a new sehttpd over the session tree."""
    if EXTERNAL and not args:
        return external_target()
    return start_server(args)


def _int_param(scale):
    return lambda v: str(int(float(v) * scale))


def _builtin_types(value):
    """--mime-types: khttpd has the built-in table alone, as '' asks."""
    if value:
        raise unittest.SkipTest('%s reads no mime.types file' % KIND)
    return value


# sehttpd's flags as khttpd's parameters: the parameter (None: khttpd needs
# none, as -t: its work items are not threads of their own) and how the
# flag's value becomes its value (repeated flags join with ',', or with
# what a third member says), or the value of a flag that takes none.
FLAG_PARAMS = {
    '--index': ('index_names', str),
    '--error-page': ('error_pages', str),
    '--spa': ('spa', str),
    '--cors': ('cors', str),
    '--dotfiles': ('dotfiles', '1'),
    '--follow-symlinks': ('follow_symlinks', '1'),
    '--no-listing': ('listing', '0'),
    '--no-compress': ('compress', '0'),
    '--cache-size': ('cache_kb', _int_param(1024)),
    '--timeout': ('timeout_ms', _int_param(1000)),
    '--min-rate': ('min_rate', str),
    '--header': ('headers', str, '|'),  # a value may hold commas
    '--mime': ('mime', str),
    '--default-type': ('default_type', str),
    '-t': (None, str),
    '--mime-types': (None, _builtin_types),
}


def module_params(args):
    """insmod's parameters for sehttpd's flags args; SkipTest names the
    first flag that khttpd has no parameter for."""
    params = {}
    args = list(args)
    while args:
        flag = args.pop(0)
        if flag not in FLAG_PARAMS:
            raise unittest.SkipTest('%s has no parameter for sehttpd\'s %s '
                                    'yet' % (KIND, flag))
        name, conv = FLAG_PARAMS[flag][:2]
        sep = FLAG_PARAMS[flag][2:] or (',',)
        value = conv(args.pop(0)) if callable(conv) else conv
        if name is None:
            continue
        if name in params:
            value = params[name] + sep[0] + value
        params[name] = value
    # Quoted for the shell, and for the kernel where there are spaces.
    return ' '.join("'%s=%s'" % (k, '"%s"' % v if ' ' in v else v)
                    for k, v in sorted(params.items()))


class ModuleServer:
    """khttpd loaded again in the test guest with parameters, standing for
    a server process; stopping it loads the module as it was."""

    def __init__(self, guest, params):
        self.guest = guest
        self.loaded = True
        # The kernel ignores a parameter it does not know, with a warning.
        out, rc = guest.run(
            "n=$(dmesg | grep -c 'unknown parameter'); rmmod khttpd; "
            "insmod /khttpd.ko %s %s || exit 1; "
            "[ $(dmesg | grep -c 'unknown parameter') = $n ] || exit 2"
            % (MODULE_ARGS, params))
        if rc != 0:
            log, _ = guest.run("dmesg | grep 'khttpd: ' | tail -3")
            self.kill()
            raise AssertionError('insmod khttpd %s failed: %s %s'
                                 % (params, out, log))

    def alive(self):
        return self.loaded

    def wait(self, timeout):
        return None

    def stderr_text(self):
        return ''

    def kill(self):
        if self.loaded:
            self.loaded = False
            out, rc = self.guest.run('rmmod khttpd; insmod /khttpd.ko %s'
                                     % MODULE_ARGS)
            if rc != 0:
                raise AssertionError('khttpd not loaded again as it was: '
                                     '%s' % out)

    def stop(self):
        self.kill()
        return 0


def tree_paths(root):
    """Every path under root, relative to it, parents first."""
    out = []
    for top, dirs, files in os.walk(root):
        dirs.sort()
        for name in sorted(dirs) + sorted(files):
            out.append(os.path.relpath(os.path.join(top, name), root))
    return out


def same_entry(a, b):
    """Whether the host paths a and b hold the same thing, as a copy with
    times in whole seconds would."""
    try:
        sa, sb = os.lstat(a), os.lstat(b)
    except FileNotFoundError:
        return False
    if (sa.st_mode, int(sa.st_mtime)) != (sb.st_mode, int(sb.st_mtime)):
        return False
    if os.path.islink(a):
        return os.readlink(a) == os.readlink(b)
    if os.path.isdir(a):
        return True
    if sa.st_size != sb.st_size:
        return False
    with open(a, 'rb') as fa, open(b, 'rb') as fb:
        return fa.read() == fb.read()


def module_target(args, root, tree, kw):
    """khttpd in the test guest loaded with the parameters for args over
    root: the guest's copy of the session tree, or GUEST_OWN_ROOT made like
    root (from that copy when root is a tree as tree.py makes it)."""
    if CTL_PORT is None:
        raise unittest.SkipTest('needs a server started with %s; the '
                                'external %s cannot be (no HTTPD_CTL_PORT)'
                                % (' '.join(args) or 'a tree of its own',
                                   KIND))
    if kw:
        raise unittest.SkipTest('%s takes no %s' % (KIND, ', '.join(kw)))
    params = module_params(args)
    guest = Guest(CTL_PORT)
    session = session_tree().www
    mirror = None
    if os.path.realpath(root) != os.path.realpath(session):
        # A tree as tree.py makes it is the session's but for what the
        # test changed: a copy of the guest's, and those changes.
        is_tree = tree is not None and \
            os.path.realpath(root) == os.path.realpath(tree.www)
        base = session if is_tree else None
        out, rc = guest.run('rm -rf {0} && {1} {0}'.format(
            GUEST_OWN_ROOT, 'cp -a /srv/www' if base else 'mkdir'))
        if rc != 0:
            raise AssertionError('%s not made in the guest: %s'
                                 % (GUEST_OWN_ROOT, out))
        rels = tree_paths(root)
        if base:
            rels = [r for r in rels
                    if not same_entry(os.path.join(root, r),
                                      os.path.join(base, r))]
            rels += [r for r in tree_paths(base)
                     if not os.path.lexists(os.path.join(root, r))]
        if rels:
            guest.put(root, rels, GUEST_OWN_ROOT)
        params += ' root=' + GUEST_OWN_ROOT

        def mirror(changed):
            guest.put(root, changed, GUEST_OWN_ROOT)
    where = GUEST_OWN_ROOT if mirror else '/srv/www'
    host, _, port = EXTERNAL.rpartition(':')
    srv = ModuleServer(guest, params)
    return Target(host.strip('[]'), int(port), tree or session_tree(), srv,
                  KIND, mirror,
                  lambda script: guest.run('cd %s && %s' % (where, script)))


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
