"""What sehttpd asks of the kernel, counted with strace -c: a connection
answered and closed at once costs no epoll_ctl or setsockopt, and a body
beyond the sendfile crossover goes from the page cache by sendfile from a
descriptor the cache keeps, without opening or reading the file again."""

import os
import shutil
import signal
import subprocess
import time
import unittest

from httpraw import build_request
from target import ServerTestCase, needs_process, start_server, temp_dir
import tree as treemod

STRACE = shutil.which('strace')
ATTACH_S = 10  # at most, for strace to attach to every thread


class Strace:
    """strace -c attached to every thread of a running process."""

    def __init__(self, pid, calls):
        self.pid = pid
        self.out = os.path.join(temp_dir('sehttpd-strace-'), 'counts')
        self.proc = subprocess.Popen(
            [STRACE, '-f', '-qq', '-c', '-o', self.out,
             '-e', 'trace=' + ','.join(calls), '-p', str(pid)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.wait_attached(pid)

    def wait_attached(self, pid):
        """Until every thread names strace as its tracer: a fixed pause
        was too short on a busy host, and a request served before the
        worker's thread was traced went uncounted."""
        deadline = time.monotonic() + ATTACH_S
        while True:
            traced = True
            for tid in os.listdir('/proc/%d/task' % pid):
                try:
                    with open('/proc/%d/task/%s/status' % (pid, tid)) as fh:
                        status = fh.read()
                except OSError:
                    continue  # a thread that ended meanwhile
                if '\nTracerPid:\t%d\n' % self.proc.pid not in status:
                    traced = False
            if traced or time.monotonic() > deadline:
                return
            time.sleep(0.02)

    def settle(self):
        """Until no thread has waited in a tracing stop for a while: the
        client can have a response's last bytes before strace saw the
        sendfile that sent them return (once 29 of 30 were counted)."""
        deadline = time.monotonic() + ATTACH_S
        quiet = 0
        while quiet < 3 and time.monotonic() < deadline:
            stopped = False
            for tid in os.listdir('/proc/%d/task' % self.pid):
                try:
                    with open('/proc/%d/task/%s/stat'
                              % (self.pid, tid)) as fh:
                        state = fh.read().rsplit(')', 1)[1].split()[0]
                except (OSError, IndexError):
                    continue  # a thread that ended meanwhile
                stopped = stopped or state == 't'
            quiet = 0 if stopped else quiet + 1
            time.sleep(0.02)

    def counts(self):
        """Detaches once the calls made are counted; {syscall: calls}."""
        self.settle()
        self.proc.send_signal(signal.SIGINT)
        self.proc.wait(timeout=10)
        counts = {}
        with open(self.out) as fh:
            for line in fh:
                f = line.split()
                if len(f) >= 5 and f[-1] != 'total' and f[3].isdigit():
                    counts[f[-1]] = int(f[3])
        return counts


@unittest.skipIf(STRACE is None, 'needs strace')
@needs_process('traces its own sehttpd with strace')
class SyscallTest(ServerTestCase):
    CONNECTIONS = 40
    REQUESTS = 30
    BODY = '/sys/100k.bin'  # beyond the crossover (16 KiB)

    @classmethod
    def setUpClass(cls):
        cls.tree = treemod.make_tree(temp_dir())
        os.makedirs(os.path.join(cls.tree.www, 'sys'), exist_ok=True)
        cls.body = bytes(range(256)) * 400
        with open(os.path.join(cls.tree.www, cls.BODY.lstrip('/')),
                  'wb') as fh:
            fh.write(cls.body)
        cls.target = start_server(('-t', '1'), tree=cls.tree)
        cls.addClassCleanup(cls._stop_target)

    def trace(self, calls):
        return Strace(self.target.server.proc.pid, calls)

    def test_new_connections_not_registered_or_tuned(self):
        """Connection: close answered at once: accept4, recv, sendmsg and
        close only (TCP_NODELAY comes from the listener)."""
        self.get('/a.txt')  # the path is cached
        st = self.trace(['epoll_ctl', 'setsockopt', 'accept4', 'close'])
        for i in range(self.CONNECTIONS):
            resp = self.get('/a.txt', headers=[('Connection', 'close')])
            self.assertEqual(resp.status, 200, resp.describe())
        n = st.counts()
        self.assertGreaterEqual(n.get('accept4', 0), self.CONNECTIONS, n)
        self.assertEqual(n.get('setsockopt', 0), 0, n)
        # One whose request follows the handshake only after the server
        # looked waits for it, registered; most requests are there.
        self.assertLessEqual(n.get('epoll_ctl', 0), self.CONNECTIONS // 2,
                             n)

    def test_large_body_sent_from_cached_descriptor(self):
        with self.conn() as c:
            c.send(build_request('GET', self.BODY))
            self.assertEqual(c.read_response().body, self.body)
            st = self.trace(['sendfile', 'openat2', 'openat', 'pread64',
                             'read', 'close'])
            for i in range(self.REQUESTS):
                c.send(build_request('GET', self.BODY))
                resp = c.read_response()
                self.assertEqual(resp.status, 200, resp.describe())
                self.assertTrue(resp.body == self.body, 'wrong body')
            n = st.counts()
        self.assertGreaterEqual(n.get('sendfile', 0), self.REQUESTS, n)
        # Once a second at most the cache checks the file by opening it.
        opened = n.get('openat2', 0) + n.get('openat', 0)
        self.assertLess(opened, self.REQUESTS // 3, n)
        self.assertLess(n.get('close', 0), self.REQUESTS // 3, n)
        self.assertEqual(n.get('pread64', 0) + n.get('read', 0), 0, n)
