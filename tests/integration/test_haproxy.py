"""Scaling out: Debian's HAProxy, configured by deploy/haproxy.cfg (only
its addresses changed), in front of three sehttpd instances with
--proxy-protocol, --health and --access-log.  htstress runs through it from
127.0.0.2 while one instance is stopped and another restarted on its port:
not one request may fail, and every instance's access log must show the
real client, 127.0.0.2, although HAProxy connects from 127.0.0.1.  Loopback
only; skipped when haproxy is not installed (make check installs it)."""

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
import unittest

from httpraw import build_request
from target import (REPO, ServerProcess, needs_process, resolve_bin,
                    session_tree, temp_dir)
from test_cli import CLF, free_port

HAPROXY = shutil.which('haproxy') or ('/usr/sbin/haproxy' if os.access(
    '/usr/sbin/haproxy', os.X_OK) else None)
CONFIG = os.path.join(REPO, 'deploy', 'haproxy.cfg')
CLIENT = '127.0.0.2'
GRACE = 3.0  # --health-grace: well over inter 500ms * fall 2
LOAD_S = 7.0


def source_works():
    """127.0.0.2 is loopback on Linux; a container may lack it."""
    try:
        with socket.socket() as s:
            s.bind((CLIENT, 0))
        return True
    except OSError:
        return False


@needs_process('starts sehttpd instances and HAProxy')
@unittest.skipIf(HAPROXY is None, 'haproxy is not installed (Debian package '
                 'haproxy; make check installs it)')
@unittest.skipIf(not source_works(), '%s cannot be bound here' % CLIENT)
class HaproxyTest(unittest.TestCase):

    def start_instance(self, i, port=0):
        srv = ServerProcess(['--proxy-protocol', '--health', '/healthz',
                             '--health-grace', str(GRACE), '-t', '1',
                             '--access-log', self.logs[i]],
                            root=self.tree.www, port=port)
        self.addCleanup(srv.kill)
        return srv

    def config(self, front, ports):
        """deploy/haproxy.cfg with the test's addresses."""
        with open(CONFIG) as fh:
            text = fh.read()
        text, n = re.subn(r'(?m)^(\s*bind )\S+', r'\g<1>127.0.0.1:%d'
                          % front, text)
        self.assertEqual(n, 1, 'one bind line in ' + CONFIG)
        servers = re.findall(r'(?m)^\s*server (\S+) (\S+)', text)
        self.assertEqual(len(servers), 3, 'three servers in ' + CONFIG)
        for (name, addr), port in zip(servers, ports):
            text = text.replace('server %s %s' % (name, addr),
                                'server %s 127.0.0.1:%d' % (name, port))
        path = os.path.join(self.dir, 'haproxy.cfg')
        with open(path, 'w') as fh:
            fh.write(text)
        return path

    def start_haproxy(self, cfg, front):
        err = tempfile.TemporaryFile()
        p = subprocess.Popen([HAPROXY, '-db', '-f', cfg],
                             stdin=subprocess.DEVNULL, stdout=err,
                             stderr=err)

        def stop():
            if p.poll() is None:
                p.send_signal(signal.SIGUSR1)  # soft stop
                try:
                    p.wait(5)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()
        self.addCleanup(stop)
        deadline = time.monotonic() + 10
        while True:
            try:
                with socket.create_connection(('127.0.0.1', front), 0.5):
                    break
            except OSError:
                if p.poll() is not None or time.monotonic() > deadline:
                    err.seek(0)
                    self.fail('haproxy did not start: %r' % err.read())
                time.sleep(0.05)
        return p

    def get_through(self, front, path):
        with socket.create_connection(('127.0.0.1', front), 5,
                                      (CLIENT, 0)) as s:
            s.sendall(build_request('GET', path))
            data = b''
            while True:
                chunk = s.recv(65536)
                if not chunk:
                    return data
                data += chunk
                if b'\r\n\r\n' in data:
                    return data

    def log_entries(self, i):
        with open(self.logs[i], encoding='utf-8', errors='replace') as fh:
            lines = fh.read().splitlines()
        out = []
        for line in lines:
            m = CLF.match(line)
            self.assertIsNotNone(m, 'not a log line: %r' % line)
            out.append((m.group(1), m.group(5), m.group(6)))
        return out

    def setUp(self):
        self.tree = session_tree()
        self.dir = temp_dir()
        self.logs = [os.path.join(self.dir, 'access-%d.log' % i)
                     for i in range(3)]

    def test_restarts_drop_nothing(self):
        insts = [self.start_instance(i) for i in range(3)]
        ports = [s.port for s in insts]
        front = free_port()
        self.start_haproxy(self.config(front, ports), front)
        # Every instance up: the checks have passed (rise 2 x 500 ms).
        time.sleep(1.2)
        self.assertIn(b' 200 ', self.get_through(front, '/a.txt'))

        load = subprocess.Popen(
            [resolve_bin('HTSTRESS_BIN', os.path.join(REPO,
                                                      'build/htstress')),
             '--json', '--source', CLIENT, '-d', str(LOAD_S), '-c', '4',
             'http://127.0.0.1:%d/a.txt' % front],
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, text=True)
        self.addCleanup(lambda: load.poll() is None and load.kill())
        time.sleep(1.0)
        # Stop instance 0 for good; restart instance 1 on its port.
        insts[0].send_signal(signal.SIGTERM)
        insts[1].send_signal(signal.SIGTERM)
        for srv in insts[:2]:
            self.assertEqual(srv.wait(GRACE + 10), 0, srv.stderr_text())
        restarted_at = len(self.log_entries(1))
        insts[1] = self.start_instance(1, port=ports[1])
        out, err = load.communicate(timeout=LOAD_S + 30)
        self.assertEqual(load.returncode, 0, 'htstress: %s %s' % (out, err))
        report = json.loads(out)
        print('\n  through HAProxy while stopping and restarting: %d '
              'requests, %d good' % (report['requests'], report['good']))
        self.assertGreater(report['requests'], 0, report)
        self.assertEqual(report['good'], report['requests'], report)
        self.assertEqual(report['errors'] + report['bad_4xx']
                         + report['bad_5xx'] + report['bad_other'], 0,
                         report)

        # A malformed PROXY header straight to an instance: refused.
        with socket.create_connection(('127.0.0.1', ports[2]), 5) as s:
            s.sendall(b'PROXY TCP4 1.2.3.4 nonsense\r\n'
                      + build_request('GET', '/a.txt'))
            s.settimeout(5)
            try:
                got = s.recv(100)
            except ConnectionResetError:
                got = b''
            self.assertEqual(got, b'', 'answered a malformed PROXY header')

        for srv in insts[1:]:
            srv.send_signal(signal.SIGTERM)
        for srv in insts[1:]:
            srv.stop(timeout=GRACE + 10)
        served = 0
        for i in range(3):
            entries = self.log_entries(i)
            files = [e for e in entries if e[1] == 'GET /a.txt HTTP/1.1']
            checks = [e for e in entries if e[1] == 'GET /healthz HTTP/1.1']
            self.assertTrue(files, 'instance %d served nothing' % i)
            self.assertEqual({e[0] for e in files}, {CLIENT},
                             'instance %d logs other clients' % i)
            self.assertEqual({e[2] for e in files}, {'200'})
            # HAProxy's own checks (PROXY LOCAL) show HAProxy's address.
            self.assertTrue(checks, 'instance %d was never checked' % i)
            self.assertEqual({e[0] for e in checks}, {'127.0.0.1'})
            served += len(files)
        self.assertTrue(any(e[1] == 'GET /a.txt HTTP/1.1'
                            for e in self.log_entries(1)[restarted_at:]),
                        'the restarted instance got no traffic')
        # The one check request before the load, plus at most the
        # responses HAProxy retried elsewhere.
        self.assertGreaterEqual(served, report['requests'] + 1)


if __name__ == '__main__':
    unittest.main()
