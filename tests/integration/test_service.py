"""sehttpd as a system service: giving up root after binding (--user) and
socket activation (LISTEN_FDS, tried with systemd-socket-activate)."""

import grp
import os
import pwd
import shutil
import socket
import subprocess
import time
import unittest

from httpraw import Conn
from target import (ServerProcess, needs_process, sehttpd_bin, temp_dir)

NOBODY = 65534


def proc_ids(pid):
    """(uids, gids, supplementary groups) from /proc/PID/status."""
    fields = {}
    with open('/proc/%d/status' % pid) as f:
        for line in f:
            key, _, value = line.partition(':')
            fields[key] = value.split()
    return ([int(v) for v in fields['Uid']], [int(v) for v in fields['Gid']],
            [int(v) for v in fields.get('Groups', [])])


def small_tree():
    """A root with a public file, a mode-000 file and a 0700 directory."""
    base = temp_dir()
    www = os.path.join(base, 'www')
    os.mkdir(www)
    with open(os.path.join(www, 'public.txt'), 'w') as f:
        f.write('for everyone\n')
    secret = os.path.join(www, 'secret.txt')
    with open(secret, 'w') as f:
        f.write('root only\n')
    os.chmod(secret, 0)
    private = os.path.join(www, 'private')
    os.mkdir(private)
    with open(os.path.join(private, 'inner.txt'), 'w') as f:
        f.write('inner\n')
    os.chmod(private, 0o700)
    return www


def get_status(host, port, path):
    with Conn(host, port) as c:
        c.send(('GET %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'
                % path).encode())
        return c.read_response().status


@needs_process('starts sehttpd as root with its own options')
@unittest.skipUnless(os.geteuid() == 0, 'needs root: tests giving it up')
class PrivilegeTests(unittest.TestCase):
    def start(self, args=()):
        srv = ServerProcess(list(args), root=self.www)
        self.addCleanup(srv.kill)
        return srv

    def setUp(self):
        self.www = small_tree()

    def test_serves_as_nobody_by_default(self):
        srv = self.start()
        uids, gids, groups = proc_ids(srv.proc.pid)
        self.assertEqual(uids, [NOBODY] * 4)
        self.assertEqual(gids, [NOBODY] * 4)
        # initgroups(): the user's groups, root's inherited ones gone.
        self.assertEqual(sorted(set(groups)),
                         sorted(set(os.getgrouplist('nobody', NOBODY))))

    def test_files_nobody_cannot_read_are_403(self):
        srv = self.start()
        self.assertEqual(get_status(srv.host, srv.port, '/public.txt'), 200)
        self.assertEqual(get_status(srv.host, srv.port, '/secret.txt'), 403)
        self.assertEqual(
            get_status(srv.host, srv.port, '/private/inner.txt'), 403)

    def test_user_names_the_account(self):
        srv = self.start(['--user', 'daemon'])
        uids, gids, groups = proc_ids(srv.proc.pid)
        self.assertEqual(uids, [1] * 4)  # Debian's daemon:daemon is 1:1
        self.assertEqual(gids, [1] * 4)
        self.assertEqual(sorted(set(groups)),
                         sorted(set(os.getgrouplist('daemon', 1))))

    def test_user_root_stays_root_and_warns(self):
        srv = self.start(['--user', 'root'])
        self.assertEqual(proc_ids(srv.proc.pid)[0], [0] * 4)
        self.assertEqual(get_status(srv.host, srv.port, '/secret.txt'), 200)
        deadline = time.monotonic() + 2
        while 'warning' not in srv.stderr_text() and \
                time.monotonic() < deadline:
            time.sleep(0.05)
        self.assertIn('sehttpd: warning: running as root',
                      srv.stderr_text())

    def test_unknown_user_is_a_usage_error(self):
        p = subprocess.run([sehttpd_bin(), '-b', '127.0.0.1', '-p', '0',
                            '--user', 'no-such-user-here', self.www],
                           stdin=subprocess.DEVNULL, capture_output=True,
                           timeout=5)
        err = p.stderr.decode()
        self.assertEqual(p.returncode, 2, err)
        self.assertEqual(err, "sehttpd: unknown user 'no-such-user-here' "
                         "for --user\n")

    def test_root_unreadable_for_the_user_is_refused(self):
        os.chmod(self.www, 0o700)
        p = subprocess.run([sehttpd_bin(), '-b', '127.0.0.1', '-p', '0',
                            self.www], stdin=subprocess.DEVNULL,
                           capture_output=True, timeout=5)
        err = p.stderr.decode()
        self.assertEqual(p.returncode, 2, err)
        self.assertIn('Permission denied', err)

    def test_site_pages_unreadable_for_the_user_are_refused(self):
        """--error-page and --spa pages are checked as the serving user,
        as requests open them: a page only root can read was accepted at
        start-up, then silently never served."""
        for d in ('errors', 'spa'):
            os.mkdir(os.path.join(self.www, d))
            page = os.path.join(self.www, d, 'private.html')
            with open(page, 'w') as f:
                f.write('<p>root only</p>\n')
            os.chmod(page, 0o600)
        for opt in (['--error-page', '404=/errors/private.html'],
                    ['--spa', '/spa/private.html']):
            with self.subTest(opt=opt):
                p = subprocess.run([sehttpd_bin(), '-b', '127.0.0.1', '-p',
                                    '0'] + opt + [self.www],
                                   stdin=subprocess.DEVNULL,
                                   capture_output=True, timeout=5)
                err = p.stderr.decode()
                self.assertEqual(p.returncode, 2, err)
                self.assertEqual(len(err.splitlines()), 1, err)
                self.assertIn('Permission denied', err)
                self.assertIn('private.html', err)

    def test_user_gets_its_supplementary_groups(self):
        """As nginx does (initgroups), the serving user has the groups
        /etc/group gives it, and no others."""
        for g in grp.getgrall():
            for name in g.gr_mem:
                try:
                    pw = pwd.getpwnam(name)
                except KeyError:
                    continue
                if pw.pw_uid != 0:
                    break
            else:
                continue
            break
        else:
            self.skipTest('no account here is a member of a group')
        want = sorted(set(os.getgrouplist(name, pw.pw_gid)))
        srv = self.start(['--user', name])
        uids, gids, groups = proc_ids(srv.proc.pid)
        self.assertEqual(uids, [pw.pw_uid] * 4)
        self.assertEqual(gids, [pw.pw_gid] * 4)
        self.assertEqual(sorted(set(groups)), want)
        self.assertIn(g.gr_gid, groups)


def free_port():
    s = socket.socket()
    s.bind(('127.0.0.1', 0))
    port = s.getsockname()[1]
    s.close()
    return port


@needs_process('runs sehttpd under systemd-socket-activate')
@unittest.skipUnless(shutil.which('systemd-socket-activate'),
                     'systemd-socket-activate is not installed')
class SocketActivationTests(unittest.TestCase):
    def setUp(self):
        self.www = small_tree()

    def activate(self, ports, args=()):
        cmd = ['systemd-socket-activate']
        for p in ports:
            cmd += ['-l', '127.0.0.1:%d' % p]
        # The address given would fail to bind: only passed sockets work.
        cmd += [sehttpd_bin(), '-b', '192.0.2.1', '-p', '1'] + list(args) \
            + [self.www]
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE)
        self.addCleanup(proc.wait, 10)
        self.addCleanup(proc.terminate)
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            try:
                socket.create_connection(('127.0.0.1', ports[0]), 1).close()
                return proc
            except OSError:
                time.sleep(0.05)
        self.fail('systemd-socket-activate did not listen')

    def test_serves_on_a_passed_socket(self):
        port = free_port()
        self.activate([port])
        self.assertEqual(get_status('127.0.0.1', port, '/public.txt'), 200)

    def test_serves_on_every_passed_socket(self):
        ports = [free_port(), free_port()]
        proc = self.activate(ports, ['-t', '1'])
        for p in ports:
            self.assertEqual(get_status('127.0.0.1', p, '/public.txt'), 200,
                             'port %d' % p)
        proc.terminate()
        out, _ = proc.communicate(timeout=10)
        self.assertIn(b'127.0.0.1:%d/' % ports[0], out)
        self.assertIn(b'2 threads', out)  # one per passed socket at least

    def test_a_passed_file_is_refused(self):
        path = os.path.join(temp_dir(), 'not-a-socket')
        open(path, 'w').close()
        p = subprocess.run(
            ['sh', '-c', 'f=$1; shift; export LISTEN_PID=$$ LISTEN_FDS=1; '
             'exec "$@" 3<"$f"', 'sh', path, sehttpd_bin(), '-p', '0',
             self.www],
            stdin=subprocess.DEVNULL, capture_output=True, timeout=5)
        err = p.stderr.decode()
        self.assertEqual(p.returncode, 2, err)
        self.assertEqual(err, 'sehttpd: passed descriptor 3 is not a '
                         'stream socket\n')


def activated(fd, env, args, **kw):
    """sehttpd started as systemd starts it: fd as descriptor 3, LISTEN_PID
    its own pid and env's LISTEN_* variables (which may override it).  Set
    up in the child before exec: a shell's "3<&N" takes one digit only."""
    def as_systemd():
        # Inheritable, unlike fd; dup2 onto itself would change nothing.
        if fd == 3:
            os.set_inheritable(3, True)
        else:
            os.dup2(fd, 3)
        os.environ['LISTEN_PID'] = str(os.getpid())
        for k, v in env.items():
            os.environ[k] = str(v)

    return subprocess.Popen(
        [sehttpd_bin()] + list(args), stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, close_fds=False,
        preexec_fn=as_systemd, **kw)


@needs_process('passes sockets to sehttpd as systemd does')
class PassedSocketTests(unittest.TestCase):
    def setUp(self):
        self.www = small_tree()
        self.listener = socket.socket(socket.AF_INET)
        self.listener.bind(('127.0.0.1', 0))
        self.listener.listen()
        self.addCleanup(self.listener.close)

    def test_a_passed_unix_socket_is_named(self):
        """Its path was read as an IPv4 address and port."""
        path = os.path.join(temp_dir(), 'http.sock')
        u = socket.socket(socket.AF_UNIX)
        self.addCleanup(u.close)
        u.bind(path)
        u.listen()
        proc = activated(u.fileno(), {'LISTEN_FDS': 1}, ['-t', '1',
                                                          self.www])
        self.addCleanup(proc.wait, 10)
        self.addCleanup(proc.kill)
        line = proc.stdout.readline().decode()
        self.assertIn('listening on unix:%s ' % path, line)
        c = socket.socket(socket.AF_UNIX)
        c.settimeout(5)
        c.connect(path)
        c.sendall(b'GET /public.txt HTTP/1.1\r\nHost: x\r\n'
                  b'Connection: close\r\n\r\n')
        reply = b''
        while True:
            chunk = c.recv(4096)
            if not chunk:
                break
            reply += chunk
        c.close()
        self.assertTrue(reply.startswith(b'HTTP/1.1 200 '), reply)
        self.assertTrue(reply.endswith(b'for everyone\n'), reply)
        proc.terminate()
        self.assertEqual(proc.wait(10), 0)

    def test_a_passed_unix_socket_s_clients_logged(self):
        """They were logged as "-": they are "unix:", as nginx has it."""
        path = os.path.join(temp_dir(), 'http.sock')
        log = os.path.join(temp_dir(), 'access.log')
        u = socket.socket(socket.AF_UNIX)
        self.addCleanup(u.close)
        u.bind(path)
        u.listen()
        proc = activated(u.fileno(), {'LISTEN_FDS': 1},
                         ['-t', '2', '--access-log', log, self.www])
        self.addCleanup(proc.wait, 10)
        self.addCleanup(proc.kill)
        self.assertIn('listening on unix:%s ' % path,
                      proc.stdout.readline().decode())
        for _ in range(3):
            c = socket.socket(socket.AF_UNIX)
            c.settimeout(5)
            c.connect(path)
            c.sendall(b'GET /public.txt HTTP/1.1\r\nHost: x\r\n'
                      b'Connection: close\r\n\r\n')
            while c.recv(4096):
                pass
            c.close()
        proc.terminate()
        self.assertEqual(proc.wait(10), 0)
        with open(log) as fh:
            lines = fh.read().splitlines()
        self.assertEqual(len(lines), 3, lines)
        for line in lines:
            self.assertTrue(line.startswith('unix: - - ['), line)
            self.assertIn('"GET /public.txt HTTP/1.1" 200 13 ', line)
        # systemd's socket: never removed by the server.
        self.assertTrue(os.path.exists(path))

    def test_malformed_listen_fds_is_refused(self):
        """It was taken for "no sockets": the server bound 0.0.0.0 and the
        passed socket's clients waited in its queue for ever."""
        for env in ({'LISTEN_FDS': 'abc'}, {'LISTEN_FDS': '1x'},
                    {'LISTEN_FDS': '-1'}, {'LISTEN_FDS': ''},
                    {'LISTEN_FDS': '99999999999999999999999'},
                    {'LISTEN_FDS': '1', 'LISTEN_PID': 'x1'}):
            with self.subTest(env=env):
                proc = activated(self.listener.fileno(), env,
                                 ['-b', '127.0.0.1', '-p', '0', self.www])
                try:
                    out, err = proc.communicate(timeout=5)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    out, err = proc.communicate()
                self.assertEqual(proc.returncode, 2, (out, err))
                self.assertEqual(len(err.splitlines()), 1, err)
                self.assertIn(b'LISTEN_', err)
                self.assertEqual(out, b'')


if __name__ == '__main__':
    unittest.main()
