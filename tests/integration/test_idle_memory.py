"""Memory a burst took is given back once it is over (sehttpd): each
thread's coroutine blocks beyond the few a quiet thread keeps (their stack
and buffer pages) are unmapped after a whole trim interval unused."""

import socket
import time
import unittest

from httpraw import build_request
from target import needs_process, start_server, temp_dir
from test_compress_large import rss_kib

BURST = 60  # connections in flight at once, under the pool's 64 kept
TRIM_S = 10  # CORO_TRIM_MS, src/sehttpd/worker.c
# Beyond what the socket buffers take: each response stays in flight.
BODY = 32 << 20


@needs_process('reads the server process RSS')
class IdleMemoryTest(unittest.TestCase):

    def test_burst_memory_given_back(self):
        root = temp_dir()
        with open('%s/big.bin' % root, 'wb') as f:
            f.truncate(BODY)  # sparse: sent, never read whole
        target = start_server(['-t', '1', '--no-compress'], root=root,
                              tree=None)
        self.addCleanup(target.stop)
        pid = target.server.proc.pid
        with open('/proc/%d/maps' % pid) as f:
            if 'libasan' in f.read():
                self.skipTest('ASan keeps freed memory in its quarantine')
        before = rss_kib(pid)
        # BURST responses in flight at once, each stalled on a reader
        # that does not read: a coroutine each, all at the same time.
        socks = []
        try:
            for _ in range(BURST):
                s = socket.create_connection((target.host, target.port))
                s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
                s.sendall(build_request('GET', '/big.bin'))
                socks.append(s)
            time.sleep(0.5)
            during = rss_kib(pid)
        finally:
            for s in socks:
                s.close()
        grown = during - before
        self.assertGreater(grown, 256, 'the burst took no memory (%d KiB '
                           'before, %d during): the test shows nothing'
                           % (before, during))
        # Two trims: the first sees the blocks used, the second unused.
        deadline = time.monotonic() + 2 * TRIM_S + 5
        while time.monotonic() < deadline:
            after = rss_kib(pid)
            if after - before <= grown // 4:
                break
            time.sleep(0.5)
        self.assertLessEqual(after - before, grown // 4,
                             'RSS %d KiB before the burst, %d during, still '
                             '%d %d s after it' % (before, during, after,
                                                   2 * TRIM_S + 5))
