"""Load/unload lifecycle checks of khttpd inside the test guest.

Run by tests/kernel/run.sh after the integration suite, with the guest
booted and khttpd loaded.  Drives the guest through the control channel
(busybox httpd running POSTed shell text, ctl.cgi) and talks to khttpd
through its forwarded port:

  cycle 0: unload after the integration suite; a bad root= is refused with
           a message; the resources left are the baseline.
  cycles 1-3: load (defaults, then cache_kb=0, then listing=0), serve
           (small file, listing, large file), see changes made to files
           and directories in the guest at once, open an idle
           connection, a keep-alive one, one with half a request and one
           mid-download (the client stops reading), unload: within one
           second, every connection closed, no thread, socket, slab cache
           or module left, nothing at warning level or above logged.
  deploy: loaded with root= a link to one tree: the link turned to
           another (clients in the guest asking meanwhile, every one
           answered) is served within 3 s and logged, and the tree left
           behind unmounts; the link removed, the last tree is still
           served; a tree renamed into place is served within 3 s.
  fair:   a client streaming a request body at full speed (inside the
           guest, streambody) for 4 s, longer than timeout_ms, then one
           streaming a body of 1-byte chunks, then one pipelining GETs and
           reading as fast: four requests on new connections meanwhile,
           two of them on its CPU, are each answered in under 0.5 s, and
           the stream is not cut off; with another chunked stream going,
           rmmod takes under two seconds and ends it.
  heavy: while two clients in the guest ask, one request after another,
           for gzip forms of 1 MiB files not yet deflated (both CPUs'
           workers busy deflating), a 12-byte file is each time answered
           in under a third of the time one such request takes alone; the
           same beside listings of 20,000 entries being built.
  memcg:  loaded from a memory cgroup of its own, the cache filled with
           8 MiB for clients is charged to that cgroup (memory.current).
  pins:   loaded from that cgroup with cache_kb=1024: 24 clients that
           do not read a cached 400 KiB file, then its 400 KiB .br
           sibling, add under 4 MiB to the cgroup's charge (the entry is
           pinned, not copied per response); and 24 clients each holding
           the first 64 KiB of a different 400 KiB file (a Range) count
           the whole entries they pin against the cache's size: beyond
           it a 503.
  crowd: 1,000 idle plus 1,000 half-sent connections opened inside the
           guest (holdconns); an ordinary request is answered in under one
           second beside them, all of them are closed after timeout_ms
           (the half-sent ones with a 408), then a clean unload.
  burst: 2,000 connections opened at once inside the guest (htstress),
           more than the listen backlog: every one is accepted and served.
  limits: with timeout_ms=2000, a request body trickled a byte at a time
           within the timeout is cut off (and a large one sent at once is
           skipped); with min_rate=16384 a client in the guest reading
           a response at half that is cut off, one at 4x is not, and
           with the default min_rate one at 4 KiB/s is not; with
           cache_kb=1024, listings too large for the cache (700 KiB, and
           1.4 MB, past what was once streamed uncharged) held by clients
           that do not read stay charged to the listing budget: beyond it
           a 503, and once those clients leave, a 200 again; and cache
           entries evicted while clients that do not read pin them count
           against the cache's size again: beyond it a 503.
  10,000: as many idle connections held, the memory per connection
           printed (slab deltas); one more is refused at max_conns, logged
           and counted in /proc/khttpd; the unload takes under
           a second and closes them all.
  Finally the whole kernel log (and the serial console) must show no BUG,
  WARNING, Oops, refcount or list corruption or leaked slab objects.

Prints "ok NAME" / "FAIL NAME: why" per check and a last line
"lifecycle-totals PASSED FAILED" for run.sh to add up.
"""

import argparse
import gzip
import http.client
import json
import os
import re
import socket
import sys
import time
import traceback

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                '..', 'integration'))
from guest import Guest  # noqa: E402  (the control channel)

BAD_LOG = re.compile(
    r'BUG|WARNING|Oops|general protection|Call Trace|refcount_t|'
    r'list_add corruption|list_del corruption|Objects remaining|slab error|'
    r'Poison overwritten|Redzone|Kernel panic|UBSAN|double free|'
    r'use-after-free|soft lockup|hard LOCKUP|rcu.*stall|blocked for more')
# What both servers promise for a file changed on disk (as
# tests/integration/test_cache.py); the guest's clock ticks coarsely.
FRESH_WITHIN_S = 2.5


def guest_script_main(name, checks):
    """main() of a script run against the guest after lifecycle.py
    (kecho.py, ktls.py): checks(guest, c) on the guest whose control port
    is --ctl-port, then the kernel log's check; a broken channel is one
    more failure.  Prints "NAME-totals PASSED FAILED"; the exit status."""
    ap = argparse.ArgumentParser()
    ap.add_argument('--ctl-port', type=int, required=True)
    args = ap.parse_args()
    c = Checks()
    g = Guest(args.ctl_port)
    try:
        g.dmesg()  # what came before is the other scripts'
        checks(g, c)
        bad = bad_lines(g.klog)
        c.check('kernel log: no BUG, WARNING, Oops or slab error',
                not bad, '\n'.join(bad[:10]))
    except Exception:  # a broken channel is one more failure
        c.check('%s.py ran to the end' % name, False,
                traceback.format_exc())
    print('%s-totals %d %d' % (name, c.passed, c.failed))
    return 1 if c.failed else 0


class Checks:
    def __init__(self):
        self.passed = 0
        self.failed = 0

    def check(self, name, ok, detail=''):
        if ok:
            self.passed += 1
            print('ok   ' + name, flush=True)
        else:
            self.failed += 1
            print('FAIL %s%s' % (name, ': ' + detail if detail else ''),
                  flush=True)
        return ok


def bad_lines(lines):
    return [ln for ln in lines if BAD_LOG.search(ln)]


def http_get(port, path, timeout=30):
    conn = http.client.HTTPConnection('127.0.0.1', port, timeout=timeout)
    try:
        conn.request('GET', path)
        resp = conn.getresponse()
        return resp.status, resp.getheader('Server'), resp.read()
    finally:
        conn.close()


def read_until_closed(sock, seconds):
    """(closed, bytes read) within seconds; a reset counts as closed."""
    deadline = time.monotonic() + seconds
    total = 0
    buf = bytearray(1 << 20)
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            return False, total
        sock.settimeout(left)
        try:
            n = sock.recv_into(buf)
        except socket.timeout:
            return False, total
        except OSError:
            return True, total
        if n == 0:
            return True, total
        total += n


def read_response(sock, seconds=20):
    """Reads one response with a Content-Length body; returns it whole."""
    sock.settimeout(seconds)
    data = b''
    while b'\r\n\r\n' not in data:
        chunk = sock.recv(65536)
        if not chunk:
            raise ConnectionError('closed before the head ended')
        data += chunk
    head, _, body = data.partition(b'\r\n\r\n')
    m = re.search(rb'\r\ncontent-length: *(\d+)', head, re.I)
    length = int(m.group(1)) if m else 0
    while len(body) < length:
        chunk = sock.recv(65536)
        if not chunk:
            raise ConnectionError('closed inside the body')
        body += chunk
    return head, body


class Lifecycle:
    def __init__(self, args, checks):
        self.args = args
        self.c = checks
        self.g = Guest(args.ctl_port)
        self.port_hex = ':%04X ' % args.guest_port
        sys.path.insert(0, args.integration_dir)
        import tree as treemod
        self.tree = treemod.check_tree(args.tree)

    # The memory cgroup the memcg and pins parts load khttpd from.
    MEMCG = '/sys/fs/cgroup/khttpd'

    def insmod(self, extra='', timeout_ms=None, memcg=False,
               root='/srv/www'):
        """(output, exit status) of loading khttpd over root; with memcg,
        from the cgroup MEMCG, so that what it allocates for its clients
        is charged there."""
        cmd = ('insmod /khttpd.ko root=%s port=%d timeout_ms=%d %s'
               % (root, self.args.guest_port,
                  timeout_ms or self.args.timeout_ms, extra))
        if memcg:
            self.g.value('mountpoint -q /sys/fs/cgroup || mount -t cgroup2 '
                         'none /sys/fs/cgroup; echo +memory >/sys/fs/cgroup/'
                         'cgroup.subtree_control; mkdir -p %s; echo ok'
                         % self.MEMCG)
            cmd = "sh -c 'echo $$ >%s/cgroup.procs && exec %s'" % (
                self.MEMCG, cmd)
        return self.g.run(cmd)

    def hold(self, args, out):
        """Starts holdconns in the guest; its first line once all are open
        (None if that takes over 120 s)."""
        self.g.value('holdconns -p %d %s </dev/null >%s 2>&1 & echo started'
                     % (self.args.guest_port, args, out))
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            text = self.g.value('cat %s' % out)
            if text.startswith('opened'):
                return text.split('\n')[0]
            time.sleep(0.5)
        return None

    def held(self, out, seconds):
        """The summary (a line of JSON) holdconns or htstress wrote to out
        once it ended, or {}."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            m = re.search(r'^\{.*\}$', self.g.value('cat %s' % out), re.M)
            if m:
                return json.loads(m.group(0))
            time.sleep(0.5)
        return {}

    def timed_get(self):
        """(seconds, ok) for one request of /a.txt inside the guest."""
        out = self.g.value(
            "s=$(cut -d' ' -f1 /proc/uptime); "
            "htstress --json -n 1 -c 1 -t 1 --timeout 30 "
            "http://127.0.0.1:%d/a.txt "
            "</dev/null >/tmp/get.out 2>&1; "
            "e=$(cut -d' ' -f1 /proc/uptime); cat /tmp/get.out; echo $s $e"
            % self.args.guest_port, timeout=120)
        s, e = out.split('\n')[-1].split()
        m = re.search(r'^\{.*\}$', out, re.M)
        ok = bool(m) and json.loads(m.group(0)).get('good') == 1
        if not ok:
            print(out, flush=True)
        return float(e) - float(s), ok

    def slab_bytes(self):
        """Slab memory in bytes: the whole, and khttpd's own caches."""
        total = int(self.g.value(
            "sed -n 's/^Slab: *\\([0-9]*\\) kB/\\1/p' /proc/meminfo")) << 10
        own = 0
        for ln in self.g.value("grep '^khttpd' /proc/slabinfo; "
                               "true").split('\n'):
            f = ln.split()
            if len(f) > 3:
                own += int(f[1]) * int(f[3])  # active objects * size
        return total, own

    def softnet_dropped(self):
        """Packets the guest's per-CPU input backlogs dropped so far."""
        out = self.g.value('cat /proc/net/softnet_stat')
        return sum(int(ln.split()[1], 16) for ln in out.split('\n') if ln)

    def stream_body(self, args, timeout=60):
        """streambody's summary (a dict, {} if none)."""
        out = self.g.value('streambody -p %d -u /a.txt %s'
                           % (self.args.guest_port, args), timeout=timeout)
        m = re.search(r'^\{.*\}$', out, re.M)
        return json.loads(m.group(0)) if m else {}

    def fair_share(self, baseline):
        """A connection's run gives way after a bounded amount of work: a
        client streaming a body at full speed holds its CPU's worker only
        for a turn at a time, and an unload does not wait for it."""
        name = 'fair'
        out, rc = self.insmod()
        if not self.c.check('%s: insmod succeeds' % name, rc == 0, out):
            return
        # Connections go to the two CPUs in turn: the second and fourth
        # request share the stream's CPU.  The stream outlasts
        # timeout_ms: a body that keeps coming is not cut off.
        stream_s = max(4.0, self.args.timeout_ms / 1000 + 1)
        for what, flags in (('a body streamed', ''),
                            ('a body of 1-byte chunks streamed', ' -c'),
                            ('GETs pipelined', ' -P')):
            res = self.stream_body('-s %g -n 4 -d 0.5%s' % (stream_s, flags))
            self.c.check(
                '%s: 4 requests beside %s at full speed, 2 on its CPU, '
                'each answered in under 0.5 s (%s ms; %.0f MB sent, %.0f MB '
                'received in %.1f s)'
                % (name, what, res.get('ms'), res.get('streamed', 0) / 1e6,
                   res.get('received', 0) / 1e6, res.get('stream_s', -1)),
                res.get('status') == [200] * 4 and res['max_ms'] < 500 and
                res['gets_end_s'] < res['stream_s'], repr(res))
            self.c.check('%s: %s, not cut off after timeout_ms=%d (%s '
                         'after %.1f s)'
                         % (name, what, self.args.timeout_ms,
                            res.get('stream_end'), res.get('stream_s', -1)),
                         res.get('stream_end') == 'time' and
                         res.get('streamed', 0) > 0, repr(res))
        # An unload does not wait for a stream that does not stop: it
        # began 1.5 s before.  (A body of 1-byte chunks: the server takes
        # longer to parse it than the client to send it, so the socket
        # always has more.)
        self.g.value('streambody -p %d -u /a.txt -s 10 -n 0 -d 0 -c '
                     '</dev/null >/tmp/stream.out 2>&1 & echo started'
                     % self.args.guest_port)
        time.sleep(1.5)
        self.unload(name)
        res = {}
        deadline = time.monotonic() + 30
        while not res and time.monotonic() < deadline:
            m = re.search(r'^\{.*\}$', self.g.value('cat /tmp/stream.out'),
                          re.M)
            res = json.loads(m.group(0)) if m else {}
            time.sleep(0.5)
        self.c.check('%s: the unload ended the stream (%s after %.1f s, '
                     '%.0f MB)' % (name, res.get('stream_end'),
                                   res.get('stream_s', -1),
                                   res.get('streamed', 0) / 1e6),
                     res.get('stream_end') in ('reset', 'closed') and
                     res['stream_s'] < 4, repr(res))
        self.check_released(name, baseline)

    def latency(self, url, n=1, header=''):
        """The slowest of n requests of url inside the guest, each on a new
        connection (htstress's own measure, seconds), or None if one
        failed."""
        out = self.g.value('htstress --json -n %d %s "http://127.0.0.1:%d%s" '
                           '</dev/null 2>&1; true'
                           % (n, header, self.args.guest_port, url),
                           timeout=120)
        m = re.search(r'^\{.*\}$', out, re.M)
        res = json.loads(m.group(0)) if m else {}
        if res.get('good') != n:
            print(out, flush=True)
            return None
        return res['latency_us']['max'] / 1e6

    def beside(self, name, what, heavy, script, done):
        """Runs script (in the guest's background; it writes 2 lines to the
        files done names once finished) and checks that small requests
        meanwhile are answered in under a third of one heavy request
        alone."""
        alone = self.latency('/a.txt', 4)
        self.g.value('(%s) </dev/null >/dev/null 2>&1 & echo started'
                     % script)
        time.sleep(0.3)
        during = self.latency('/a.txt', 8)
        if during is not None and heavy is not None and \
                during >= heavy / 3 and self.g.value(
                    'cat %s 2>/dev/null | wc -l' % done) != '2':
            # Heavy work held on a connection's CPU stalls every batch; a
            # stall of the guest's scheduler under TCG (once 0.48 s of a
            # 0.60 s request) only one: a second batch, still beside it.
            again = self.latency('/a.txt', 8)
            print('%s: small requests again: %s s' % (name, again),
                  flush=True)
            during = None if again is None else min(during, again)
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline and self.g.value(
                'cat %s 2>/dev/null | wc -l' % done) != '2':
            time.sleep(1)
        self.c.check(
            '%s: small requests beside two clients %s answered in under a '
            'third of one such request alone (%.3f s; %.3f s alone; the '
            'heavy request %.3f s)' % (name, what, during or -1, alone or -1,
                                       heavy or -1),
            during is not None and heavy is not None and
            during < heavy / 3, repr(during))

    def heavy(self, baseline):
        """Deflating a large entry and building a large listing happen off
        the connection workers: a small request on the same CPU is answered
        meanwhile, not after them."""
        name = 'heavy'
        files = 16
        out, rc = self.insmod()
        if not self.c.check('%s: insmod succeeds' % name, rc == 0, out):
            return
        # 0.9 MiB (a cache entry's limit is 1 MiB) of random A, C, G and T
        # each: compressible (to about 30%), and slow to deflate, with many
        # short matches to weigh.
        self.g.value(
            'mkdir -p /srv/www/heavy /srv/www/heavylist && i=0; '
            'while [ $i -lt %d ]; do head -c 700000 /dev/urandom | base64 | '
            'tr A-Za-z0-9+/ %s >/srv/www/heavy/f$i.txt; i=$((i + 1)); '
            'done; cd /srv/www/heavylist && i=0; while [ $i -lt 20000 ]; '
            'do : >entry-with-a-longish-name-$i.txt; i=$((i + 1)); done; '
            'echo made' % (files, 'ACGT' * 16), timeout=300)
        gz = "-H 'Accept-Encoding: gzip'"
        one = self.latency('/heavy/f%d.txt' % (files - 1), header=gz)
        # Two clients, so that both CPUs work: a new connection goes to
        # each CPU in turn.
        self.beside(
            name, 'deflating 1 MiB files', one,
            'for k in 0 1; do (i=$k; while [ $i -lt %d ]; do '
            'htstress -n 1 %s http://127.0.0.1:%d/heavy/f$i.txt; '
            'i=$((i + 2)); done; echo done >/tmp/heavy$k.out) & done'
            % (files - 1, gz, self.args.guest_port),
            '/tmp/heavy0.out /tmp/heavy1.out')
        # Listings of 20,000 entries, each request a new build (each sort
        # order is cached apart).
        one = self.latency('/heavylist/?sort=name&order=desc')
        self.beside(
            name, 'building listings of 20,000 entries', one,
            'for k in 0 1; do (for o in size time; do for d in asc desc; '
            'do htstress -n 1 "http://127.0.0.1:%d/heavylist/?sort=$o&'
            'order=$d"; done; done; echo done >/tmp/list$k.out) & '
            'sleep 0.2; done' % self.args.guest_port,
            '/tmp/list0.out /tmp/list1.out')
        self.g.value('rm -rf /srv/www/heavy /srv/www/heavylist '
                     '/tmp/heavy*.out /tmp/list*.out; echo gone')
        self.unload(name)
        self.check_released(name, baseline)

    def crowd(self, baseline):
        """Idle and half-sent clients cost no worker: a request beside
        1,000 of each is answered at once; all are closed after the
        timeout."""
        name = 'crowd'
        timeout_ms = 20000  # opening 2,000 takes seconds under TCG
        # holdconns connects one at a time: with the default backlog of
        # 128, an accept worker slowed by TCG let the queue fill, each
        # refused SYN cost its client a second, and 2,000 took 10-11 s in
        # one run in three (2.3 s in the others).  What is tested is the
        # connections held, not the backlog.
        out, rc = self.insmod('backlog=4096', timeout_ms=timeout_ms)
        if not self.c.check('%s: insmod succeeds' % name, rc == 0, out):
            return
        # 2,000 closes within a second or two pass loopback's per-CPU
        # backlog (1,000 packets by default): a dropped reset would leave
        # a client that never learns (see ten_thousand).
        backlog = self.g.value('cat /proc/sys/net/core/netdev_max_backlog')
        self.g.value('echo 20000 > /proc/sys/net/core/netdev_max_backlog')
        dropped = self.softnet_dropped()
        opened = self.hold('-i 1000 -s 1000 -w %d' % (timeout_ms // 1000 + 30),
                           '/tmp/crowd.out')
        m = re.match(r'opened (\d+) failed (\d+) in ([\d.]+) s', opened or '')
        # All open before the first can reach its timeout (the first
        # closes come timeout_ms after each was opened).
        self.c.check('%s: 1000 idle and 1000 half-sent connections open '
                     '(%s)' % (name, opened), m and m.group(1) == '2000' and
                     float(m.group(3)) < timeout_ms / 1000 * 0.75, opened)
        took, ok = self.timed_get()
        self.c.check('%s: a request beside them answered in under 1 s '
                     '(%.2f s)' % (name, took), ok and took < 1.0)
        res = self.held('/tmp/crowd.out', timeout_ms / 1000 + 40)
        print('crowd: packets dropped by loopback\'s backlog: %d'
              % (self.softnet_dropped() - dropped), flush=True)
        self.g.value('echo %s > /proc/sys/net/core/netdev_max_backlog'
                     % backlog)
        self.c.check('%s: all closed after timeout_ms=%d (first %.2f s, '
                     'last %.2f s after opening)'
                     % (name, timeout_ms, res.get('first_close_s', -1),
                        res.get('last_close_s', -1)),
                     res.get('idle_closed') == 1000 and
                     res.get('half_closed') == 1000 and
                     res['first_close_s'] >= timeout_ms / 1000 * 0.9 and
                     res['last_close_s'] < timeout_ms / 1000 + 10, repr(res))
        self.c.check('%s: the half-sent ones got a 408 first (%s)'
                     % (name, res.get('half_408')),
                     res.get('half_408') == 1000, repr(res))
        self.unload(name)
        self.check_released(name, baseline)

    def trickled_body(self, name):
        """A body trickled a byte per 0.7 timeout is not skipped for ever;
        one sent at full speed is, and the connection goes on."""
        port = self.args.http_port
        timeout_s = 2.0
        s = socket.create_connection(('127.0.0.1', port), timeout=10)
        try:
            s.sendall(b'POST /a.txt HTTP/1.1\r\nHost: t\r\n'
                      b'Content-Length: 9999999999999999999\r\n\r\n')
            head, _ = read_response(s)
            start = time.monotonic()
            closed = False
            sent = 0
            while not closed and time.monotonic() - start < 15:
                try:
                    s.sendall(b'x')
                    sent += 1
                except OSError:
                    closed = True
                    break
                closed, _ = read_until_closed(s, 0.7 * timeout_s)
            took = time.monotonic() - start
            self.c.check('%s: a body trickled a byte per %.1f s is cut off '
                         '(after %.1f s, %d bytes)'
                         % (name, 0.7 * timeout_s, took, sent),
                         head.startswith(b'HTTP/1.1 405') and closed and
                         took < 3 * timeout_s + 2, repr(head[:40]))
        finally:
            s.close()
        s = socket.create_connection(('127.0.0.1', port), timeout=30)
        try:
            size = 4 << 20
            s.sendall(b'POST /a.txt HTTP/1.1\r\nHost: t\r\n'
                      b'Content-Length: %d\r\n\r\n' % size)
            head1, _ = read_response(s)
            s.sendall(bytes(size))
            s.sendall(b'GET /a.txt HTTP/1.1\r\nHost: t\r\n\r\n')
            head2, body = read_response(s, 60)
            self.c.check('%s: a 4 MiB body sent at once is skipped, the '
                         'connection goes on' % name,
                         head1.startswith(b'HTTP/1.1 405') and
                         head2.startswith(b'HTTP/1.1 200') and
                         body == self.tree.files['/a.txt'],
                         '%r %r' % (head1[:40], head2[:40]))
        finally:
            s.close()

    def slow_read(self, url, rate, seconds, extra=''):
        out = self.g.value('slowread -p %d -u %s -r %d -w %d %s'
                           % (self.args.guest_port, url, rate, seconds,
                              extra), timeout=seconds + 60)
        m = re.search(r'^\{.*\}$', out, re.M)
        return json.loads(m.group(0)) if m else {}

    def slow_readers(self, name):
        """Below min_rate (16384 here) a response is cut off, whatever
        progress it makes; above it, it goes on."""
        # Half the rate: cut off after about twice the timeout (plus what
        # the client's receive buffer holds).  The socket takes some bytes
        # at every turn, so progress alone never cut it off.
        res = self.slow_read('/big/10m.bin', 8192, 15)
        self.c.check('%s: a reader at 8 KiB/s is cut off within 10 s (%s)'
                     % (name, res), res.get('status') == 200 and
                     res.get('closed') == 1 and res['seconds'] < 10,
                     repr(res))
        res = self.slow_read('/big/10m.bin', 65536, 8)
        self.c.check('%s: a reader at 64 KiB/s is not (%s)' % (name, res),
                     res.get('status') == 200 and
                     res.get('closed') == 0 and
                     res['bytes'] > 6 * 65536, repr(res))

    def slow_link(self, name):
        """The default min_rate (1 KiB/s) lets a slow mobile link finish:
        a reader at 4 KiB/s goes on for 12 s with timeout_ms=2000 (at the
        old fixed 16 KiB/s it was cut within 3 s)."""
        out, rc = self.insmod('', timeout_ms=2000)
        if not self.c.check('%s: insmod with the default min_rate' % name,
                            rc == 0, out):
            return
        try:
            res = self.slow_read('/big/10m.bin', 4096, 12)
            self.c.check('%s: a reader at 4 KiB/s is not cut off (%s)'
                         % (name, res), res.get('status') == 200 and
                         res.get('closed') == 0 and
                         res['bytes'] > 10 * 4096, repr(res))
        except (OSError, RuntimeError, ValueError) as e:
            self.c.check('%s: the slow link check ran' % name, False,
                         repr(e))
        self.unload(name)

    def held_listings(self, name, count):
        """Listings too large for the cache, held by clients that do not
        read, stay charged to the listing budget (4 MiB here) until their
        connections end: a build beyond it is 503.  2,200 entries are about
        700 KiB of listing, over cache_kb / 2; 4,000 about 1.4 MB, over the
        1 MiB that khttpd once streamed uncharged past."""
        self.g.value('mkdir -p /srv/www/midlist && cd /srv/www/midlist && '
                     'printf "entry-%%04d-%s\\n" $(seq 0 %d) | xargs touch'
                     % ('x' * 89, count - 1), timeout=180)
        try:
            out = self.g.value(
                'for i in 1 2 3 4 5 6 7 8; do '
                'slowread -p %d -u /midlist/ -r 0 -w 15 >/tmp/mid$i.out & '
                'sleep 1; done; wait; cat /tmp/mid*.out; rm -f /tmp/mid*'
                % self.args.guest_port, timeout=120)
            statuses = [json.loads(m).get('status') for m in
                        re.findall(r'^\{.*\}$', out, re.M)]
            self.c.check('%s: 8 clients holding a %d-entry listing each: '
                         'the budget runs out (%s)'
                         % (name, count, statuses),
                         len(statuses) == 8 and statuses[0] == 200 and
                         503 in statuses and
                         set(statuses) <= {200, 503}, out[-500:])
            status, _, body = http_get(self.args.http_port, '/midlist/')
            self.c.check('%s: once they are gone, it is served again'
                         % name, status == 200 and
                         b'entry-%04d' % (count - 1) in body, str(status))
        finally:
            self.g.run('rm -rf /srv/www/midlist')

    def pinning_readers(self, clients, url, args='', after=''):
        """Starts clients slow readers, 0.2 s apart, of url ($i: the
        reader's number) with slowread's args, running the shell
        command after each; they read nothing for 12 s.  Returns their
        statuses, held_bytes once all have started, and the output."""
        out = self.g.value(
            'i=0; while [ $i -lt %d ]; do slowread -p %d -u %s %s-r 0 '
            '-w 12 >/tmp/pin$i.out & sleep 0.2; %si=$((i + 1)); done; '
            'sleep 1; cat /proc/khttpd; wait; cat /tmp/pin*.out; '
            'rm -f /tmp/pin*'
            % (clients, self.args.guest_port, url, args, after),
            timeout=120)
        statuses = [json.loads(m).get('status') for m in
                    re.findall(r'^\{.*\}$', out, re.M)]
        m = re.search(r'^held_bytes (\d+)$', out, re.M)
        return statuses, int(m.group(1)) if m else None, out

    def held_entries(self, name, ranged=False):
        """Cache entries evicted while slow readers pin them count against
        the cache's size again (here 1 MiB): past it, a large cached body
        is not pinned any more (503).  Ranged, each client asks for the
        first 64 KiB of its 400 KiB file: what it pins is the whole entry
        all the same, and it counts the same."""
        files = 24
        ok = 206 if ranged else 200
        args = '-H "Range: bytes=0-65535" -m 536 ' if ranged else ''
        self.g.value('mkdir -p /srv/www/pinned && i=0; while [ $i -lt %d ];'
                     ' do head -c 409600 /dev/urandom >/srv/www/pinned/f$i.bin;'
                     ' i=$((i + 1)); done; echo made' % files, timeout=120)
        try:
            statuses, held, out = self.pinning_readers(
                files, '/pinned/f$i.bin', args)
            self.c.check(
                '%s: %d clients pinning 400 KiB %s past a 1 MiB cache: the '
                'held bytes stay within about its size (%s), beyond it a 503 '
                '(%s)' % (name, files, 'entries by a 64 KiB Range each'
                          if ranged else 'files each', held, statuses),
                len(statuses) == files and statuses[0] == ok and
                503 in statuses and set(statuses) <= {ok, 503} and
                held is not None and held <= (1 << 20) + 2 * 409600,
                out[-600:])
            time.sleep(1)  # the closes and their RCU grace periods
            held_after = self.stats().get('held_bytes')
            self.c.check('%s: once they are gone, nothing is held (%s)'
                         % (name, held_after), held_after == 0)
        finally:
            self.g.run('rm -rf /srv/www/pinned')

    def held_charge(self, cg, url, header, count, seconds=8):
        """memory.current of cgroup cg grows by this much (bytes) while
        count clients in the guest that read nothing after the status
        line hold url (sent with header), and their statuses."""
        before = int(self.g.value('cat %s/memory.current' % cg))
        out = self.g.value(
            'i=0; while [ $i -lt %d ]; do slowread -p %d -u %s -H %s '
            '-r 0 -w %d >/tmp/hold$i.out & i=$((i + 1)); done; sleep %d; '
            'cat %s/memory.current; wait; cat /tmp/hold*.out; '
            'rm -f /tmp/hold*'
            % (count, self.args.guest_port, url, "'%s'" % header, seconds,
               seconds // 2, cg), timeout=seconds + 120)
        during = int(out.split('\n')[0])
        statuses = [json.loads(m).get('status') for m in
                    re.findall(r'^\{.*\}$', out, re.M)]
        return during - before, statuses

    def pins(self, baseline):
        """What slow readers hold of a cached entry is the entry, pinned,
        not a copy per response, and what they pin counts against the
        cache's size however little of it each response sends.
        A precompressed sibling's body (FILE.br) held by the entry was
        copied into every response's output queue that the socket did not
        take at once: N clients that read nothing made khttpd allocate N
        copies, past any bound.  And a Range of 64 KiB pinned the whole
        entry (400 KiB here) without being counted against the held
        bytes' bound: slow readers held as many evicted entries as they
        liked."""
        name = 'pins'
        cg = self.MEMCG
        clients = 24
        out, rc = self.insmod('cache_kb=1024', timeout_ms=30000, memcg=True)
        if not self.c.check('%s: insmod from a cgroup of its own succeeds'
                            % name, rc == 0, out):
            return
        try:
            # 64 KiB of text with a 400 KiB .br beside it (made after it,
            # so not older), and a 400 KiB file of its own.
            self.g.value(
                'mkdir -p /srv/www/sib && cd /srv/www/sib && '
                'yes "precompressed sibling" | head -c 65536 >f.txt && '
                'head -c 409600 /dev/urandom >f.txt.br && '
                'head -c 409600 /dev/urandom >g.bin && echo made')
            for url, header in (('/sib/g.bin', 'X-Warm: 1'),
                                ('/sib/f.txt', 'Accept-Encoding: br')):
                res = json.loads(self.g.value(
                    'slowread -p %d -u %s -H \'%s\' -r 100000000 -w 5'
                    % (self.args.guest_port, url, header)))
                self.c.check('%s: %s (%s) is served whole (%s)'
                             % (name, url, header, res),
                             res.get('status') == 200 and
                             res.get('bytes', 0) > 409600, repr(res))
            grown, statuses = self.held_charge(cg, '/sib/g.bin',
                                               'X-Pin: 1', clients)
            self.c.check('%s: %d clients holding one cached 400 KiB file '
                         'pin it: %d KiB charged meanwhile'
                         % (name, clients, grown >> 10),
                         statuses == [200] * clients and grown < 4 << 20,
                         repr(statuses))
            grown, statuses = self.held_charge(cg, '/sib/f.txt',
                                               'Accept-Encoding: br',
                                               clients)
            self.c.check('%s: %d clients holding its cached 400 KiB .br '
                         'sibling pin it too, no copy each: %d KiB '
                         'charged meanwhile' % (name, clients, grown >> 10),
                         statuses == [200] * clients and grown < 4 << 20,
                         repr(statuses))
        except (OSError, RuntimeError, ValueError) as e:
            self.c.check('%s: the sibling checks ran' % name, False,
                         repr(e))
        finally:
            self.g.run('rm -rf /srv/www/sib')
        try:
            self.held_entries(name, ranged=True)
        except (OSError, RuntimeError, ValueError) as e:
            self.c.check('%s: the range checks ran' % name, False, repr(e))
        self.unload(name)
        self.check_released(name, baseline)
        self.held_error_pages('pins-error-page', baseline)

    def held_error_pages(self, name, baseline):
        """An operator's error page (error_pages=) is a cached entry that
        its responses pin as a file's do: pinned past the cache's size by
        slow readers, a page that changed (or was evicted) in between was
        not counted against the held bytes' bound, so N clients that read
        nothing held N copies of it.  Past the bound, the built-in page."""
        clients = 24
        self.g.value('head -c 409600 /dev/urandom >/srv/www/errpage.html; '
                     'echo made')
        out, rc = self.insmod('cache_kb=1024 error_pages=404=/errpage.html',
                              timeout_ms=30000)
        if not self.c.check('%s: insmod with a 400 KiB error page succeeds'
                            % name, rc == 0, out):
            self.g.run('rm -f /srv/www/errpage.html')
            return
        try:
            statuses, held, out = self.pinning_readers(
                clients, '/nope$i', after='touch /srv/www/errpage.html; ')
            self.c.check(
                '%s: %d clients pinning a 400 KiB error page that changes '
                'between them: the held bytes stay within about the '
                '1 MiB cache (%s), every answer a 404 (%s)'
                % (name, clients, held, statuses),
                len(statuses) == clients and set(statuses) == {404} and
                held is not None and held <= (1 << 20) + 2 * 409600,
                out[-600:])
        except (OSError, RuntimeError, ValueError) as e:
            self.c.check('%s: the error page checks ran' % name, False,
                         repr(e))
        finally:
            self.g.run('rm -f /srv/www/errpage.html')
        self.unload(name)
        self.check_released(name, baseline)

    def memcg(self, baseline):
        """What clients make khttpd allocate is charged to the memory
        cgroup of whoever loaded it: load it from a cgroup of its own,
        fill the cache with 8 MiB, and that cgroup's memory.current holds
        them."""
        name = 'memcg'
        cg = self.MEMCG
        out, rc = self.insmod(memcg=True)
        if not self.c.check('%s: insmod from a cgroup of its own succeeds'
                            % name, rc == 0, out):
            return
        files = 16
        self.g.value('mkdir -p /srv/www/charged && i=0; while [ $i -lt %d ];'
                     ' do head -c 524288 /dev/urandom >/srv/www/charged/f$i.bin;'
                     ' i=$((i + 1)); done; echo made' % files, timeout=120)
        before = int(self.g.value('cat %s/memory.current' % cg))
        self.g.value('i=0; while [ $i -lt %d ]; do htstress -n 1 '
                     'http://127.0.0.1:%d/charged/f$i.bin >/dev/null; '
                     'i=$((i + 1)); done; echo got'
                     % (files, self.args.guest_port), timeout=120)
        after = int(self.g.value('cat %s/memory.current' % cg))
        self.c.check('%s: 8 MiB cached for clients are charged to it '
                     '(memory.current %d -> %d)' % (name, before, after),
                     after - before >= files * 524288 * 9 // 10)
        self.g.run('rm -rf /srv/www/charged')
        self.unload(name)
        self.check_released(name, baseline)
        self.memcg_no_oom('memcg-limit', baseline)

    def memcg_no_oom(self, name, baseline):
        """Clients driving khttpd's charges to the loader's memory.max get
        503s or closes: what they make it allocate may fail, so reaching
        the limit must not invoke the OOM killer, which killed whatever
        else ran in that cgroup (here a sleep standing for the loader's
        shell) for a remote client's sake."""
        cg = self.MEMCG + '-limit'
        self.g.value('mountpoint -q /sys/fs/cgroup || mount -t cgroup2 '
                     'none /sys/fs/cgroup; echo +memory >/sys/fs/cgroup/'
                     'cgroup.subtree_control; mkdir -p %s; echo 4M >%s/'
                     'memory.max; echo ok' % (cg, cg))
        self.g.value('mkdir -p /srv/www/oom/d && cd /srv/www/oom && i=0; '
                     'while [ $i -lt 40 ]; do head -c $((20000 + i * 20000)) '
                     '/dev/zero >f$i.txt; i=$((i + 1)); done; i=0; '
                     'while [ $i -lt 3000 ]; do : >d/name-of-some-length-'
                     'to-list-$i; i=$((i + 1)); done; echo made',
                     timeout=300)
        victim = self.g.value("sh -c 'echo $$ >%s/cgroup.procs && exec "
                              "sleep 1000' >/dev/null 2>&1 & echo $!" % cg)
        cmd = ('insmod /khttpd.ko root=/srv/www port=%d timeout_ms=5000'
               % self.args.guest_port)
        out, rc = self.g.run("sh -c 'echo $$ >%s/cgroup.procs && exec %s'"
                             % (cg, cmd))
        if not self.c.check('%s: insmod from a cgroup with memory.max=4M '
                            'succeeds' % name, rc == 0, out):
            self.g.run('kill %s; rm -rf /srv/www/oom' % victim)
            return
        try:
            out = self.g.value(
                'for o in "" "?sort=size" "?sort=date"; do '
                'htstress -n 300 -c 6 -t 1 "http://127.0.0.1:%d/oom/d/$o" '
                '>/dev/null 2>&1 & done; i=0; while [ $i -lt 40 ]; do '
                'slowread -p %d -u /oom/f$i.txt -r 0 -w 8 '
                '-H "Accept-Encoding: gzip" >/dev/null 2>&1 & '
                'i=$((i + 1)); done; holdconns -p %d -i 300 -s 300 -w 8 '
                '>/dev/null 2>&1 & sleep 9; wait; cat %s/memory.events; '
                'kill -0 %s && echo victim-alive; true'
                % (self.args.guest_port, self.args.guest_port,
                   self.args.guest_port, cg, victim), timeout=180)
            m = re.search(r'^oom_kill (\d+)$', out, re.M)
            self.c.check('%s: clients at the limit kill nothing in the '
                         "loader's cgroup (%s)"
                         % (name, ' '.join(out.split('\n')[:6])),
                         m is not None and m.group(1) == '0' and
                         'victim-alive' in out, out[-400:])
        except (OSError, RuntimeError, ValueError) as e:
            self.c.check('%s: the limit checks ran' % name, False, repr(e))
        finally:
            self.g.run('kill %s; rm -rf /srv/www/oom' % victim)
        self.unload(name)
        self.check_released(name, baseline)

    def served_release(self, seconds=0, before=None):
        """The body of /which.txt, once it is another than before (by
        default the first one read) or seconds have passed: (text,
        seconds it took)."""
        start = time.monotonic()
        first = before
        while True:
            try:
                status, _, body = http_get(self.args.http_port, '/which.txt',
                                           timeout=10)
                text = body.decode(errors='replace').strip() \
                    if status == 200 else 'status %d' % status
            except (OSError, http.client.HTTPException) as e:
                text = repr(e)
            took = time.monotonic() - start
            if first is None:
                first = text
            if text != first or took >= seconds:
                return text, took
            time.sleep(0.2)

    def deploy(self, baseline):
        """root= is followed as a release deploy turns it, as sehttpd's
        ROOT is: a link turned to the new tree (ln -sfn; mv -T), a path
        that leads nowhere for a moment (the tree served last stays), a
        new tree renamed into place.  The tree left behind is let go: a
        tmpfs mounted there unmounts."""
        name = 'deploy'
        g = self.g
        g.value('mkdir -p /srv/rel/1 && mount -t tmpfs none /srv/rel/1 && '
                'mkdir -p /srv/rel/2 /srv/rel/3 && for i in 1 2 3; do '
                'echo release $i >/srv/rel/$i/which.txt; done && '
                'ln -sfn rel/1 /srv/current && echo made')
        out, rc = self.insmod(root='/srv/current')
        if not self.c.check('%s: insmod root=/srv/current (a link to '
                            'rel/1) succeeds' % name, rc == 0, out):
            g.run('umount /srv/rel/1; rm -rf /srv/rel /srv/current')
            return
        g.dmesg()
        # Served twice, so that the cache holds it when the link turns.
        for _ in range(2):
            text, _ = self.served_release()
        self.c.check('%s: serves release 1' % name, text == 'release 1',
                     text)
        # Each step is taken within a second, and a cache entry is
        # trusted for a second without a look: 3 s is plenty.  Clients
        # in the guest keep asking meanwhile: a turn while lookups are
        # under way.
        g.value('htstress --json -d 2 -c 8 -t 1 --timeout 30 '
                'http://127.0.0.1:%d/which.txt </dev/null >/tmp/deploy.out '
                '2>&1 & echo started' % self.args.guest_port)
        time.sleep(0.5)
        # Asked again as soon as the log says the link turned: an entry
        # of rel/1 is not trusted under the new turn, though it was
        # looked at less than a second ago.
        out, rc = g.run(
            'ln -sfn rel/2 /srv/current.tmp && '
            'mv -T /srv/current.tmp /srv/current && i=0; '
            'until dmesg | grep -q "now serves /srv/rel/2"; do '
            '[ $i -ge 500 ] && break; i=$((i + 1)); usleep 10000; done; '
            'wget -q -O - http://127.0.0.1:%d/which.txt'
            % self.args.guest_port)
        self.c.check('%s: once the log says the link turned, rel/2 is '
                     'served (%s)' % (name, out.strip()),
                     rc == 0 and out.strip() == 'release 2', out)
        text, took = self.served_release()
        self.c.check('%s: the link turned to rel/2 is served within 3 s '
                     '(%s after %.1f s)' % (name, text, took),
                     text == 'release 2' and took < 3, text)
        res = self.held('/tmp/deploy.out', 60)
        self.c.check('%s: clients asking through the turn were all '
                     'answered (%s good of %s)'
                     % (name, res.get('good'), res.get('requests')),
                     res.get('good', 0) > 0 and
                     res.get('good') == res.get('requests'), repr(res))
        # The line comes as rel/2 is published, before rel/1 is put.
        log, said = [], False
        deadline = time.monotonic() + 5
        while not said and time.monotonic() < deadline:
            log += [t for _, t in g.dmesg()]
            said = any('root=/srv/current now serves /srv/rel/2' in t
                       for t in log)
            time.sleep(0 if said else 0.2)
        self.c.check('%s: the log says where root= leads now' % name,
                     said, repr(log))
        # Clients still being answered from rel/1 may hold it a moment.
        for _ in range(5):
            umount, rc = g.run('umount /srv/rel/1')
            if rc == 0:
                break
            time.sleep(0.5)
        self.c.check('%s: the tree left behind is let go (its tmpfs '
                     'unmounts)' % name, rc == 0, umount)
        g.value('rm /srv/current && echo removed')
        text, took = self.served_release(1.5)
        self.c.check('%s: while root= leads nowhere, the last tree is '
                     'served (%s after %.1f s)' % (name, text, took),
                     text == 'release 2', text)
        g.value('mv -T /srv/rel/3 /srv/current && echo renamed')
        text, took = self.served_release(5, before='release 2')
        self.c.check('%s: a tree renamed into place is served within 3 s '
                     '(%s after %.1f s)' % (name, text, took),
                     text == 'release 3' and took < 3, text)
        self.unload(name)
        g.run('umount /srv/rel/1; rm -rf /srv/rel /srv/current')
        self.deploy_edges(name)
        self.check_released(name, baseline)

    def deploy_edges(self, name):
        """With follow_symlinks=1, a root unmounted lazily while its name
        leads nowhere is not taken for the file system's root (d_path()
        of a detached mount is "/")."""
        g = self.g
        g.value('mkdir -p /srv/rel/f && mount -t tmpfs none /srv/rel/f && '
                'echo release f >/srv/rel/f/which.txt && '
                'ln -sfn rel/f /srv/current && echo made')
        out, rc = self.insmod('follow_symlinks=1', root='/srv/current')
        if self.c.check('%s: insmod follow_symlinks=1 succeeds' % name,
                        rc == 0, out):
            text, _ = self.served_release()
            self.c.check('%s: follow_symlinks=1 serves the tree' % name,
                         text == 'release f', text)
            g.value('rm /srv/current && umount -l /srv/rel/f && echo gone')
            time.sleep(1.5)  # root= looked at again: it leads nowhere
            try:
                status, _, body = http_get(self.args.http_port, '/init')
            except (OSError, http.client.HTTPException) as e:
                status, body = repr(e), b''
            self.c.check('%s: with its root unmounted lazily, /init of the '
                         'guest is not served (%s)' % (name, status),
                         status in (404, 503), repr(body[:200]))
            self.unload(name)
        g.run('umount /srv/rel/f; rm -rf /srv/rel /srv/current')

    def limits(self, baseline):
        name = 'limits'
        out, rc = self.insmod('cache_kb=1024 min_rate=16384',
                              timeout_ms=2000)
        if not self.c.check('%s: insmod succeeds' % name, rc == 0, out):
            return
        try:
            self.trickled_body(name)
            self.slow_readers(name)
        except (OSError, http.client.HTTPException, RuntimeError,
                ValueError) as e:
            self.c.check('%s: transfer checks ran' % name, False, repr(e))
        self.unload(name)
        self.slow_link(name)
        out, rc = self.insmod('cache_kb=1024', timeout_ms=30000)
        if not self.c.check('%s: insmod succeeds again' % name, rc == 0,
                            out):
            return
        try:
            self.held_listings(name, 2200)
            self.held_listings(name, 4000)
            self.held_entries(name)
        except (OSError, http.client.HTTPException, RuntimeError,
                ValueError) as e:
            self.c.check('%s: listing budget checks ran' % name, False,
                         repr(e))
        self.unload(name)
        self.check_released(name, baseline)

    def listen_overflows(self):
        """(ListenOverflows, ListenDrops) of the guest so far."""
        lines = [ln.split() for ln in self.g.value(
            'grep ^TcpExt: /proc/net/netstat').split('\n')]
        fields = dict(zip(lines[0][1:], lines[1][1:]))
        return int(fields['ListenOverflows']), int(fields['ListenDrops'])

    def burst(self, baseline):
        """A burst of connections larger than the listen backlog is
        accepted in batches: every one is served."""
        name = 'burst'
        count = 2000
        # A client 2,000 connections wide in one thread may take seconds
        # under TCG to send each its request: not a timeout to test here.
        out, rc = self.insmod(timeout_ms=15000)
        if not self.c.check('%s: insmod succeeds' % name, rc == 0, out):
            return
        before = self.listen_overflows()
        out, rc = self.g.run(
            'htstress --json -n %d -c %d -t 1 --timeout 60 '
            'http://127.0.0.1:%d/a.txt </dev/null 2>&1'
            % (count, count, self.args.guest_port), timeout=300)
        after = self.listen_overflows()
        m = re.search(r'^\{.*\}$', out, re.M)
        res = json.loads(m.group(0)) if m else {}
        print('burst: accept queue overflows %d, drops %d'
              % (after[0] - before[0], after[1] - before[1]), flush=True)
        self.c.check('%s: %d connections opened at once, all served '
                     '(%d good in %.2f s)'
                     % (name, count, res.get('good', 0),
                        res.get('seconds', -1)),
                     rc == 0 and res.get('good') == count, out[-500:])
        self.unload(name)
        self.check_released(name, baseline)

    def ten_thousand(self, baseline):
        """10,000 idle connections held; memory per connection."""
        name = '10000 idle'
        count = 10000
        out, rc = self.insmod('max_conns=%d' % count, timeout_ms=300000)
        if not self.c.check('%s: insmod succeeds' % name, rc == 0, out):
            return
        before = self.slab_bytes()
        opened = self.hold('-i %d -w 300' % count, '/tmp/many.out')
        self.c.check('%s: %s' % (name, opened),
                     (opened or '').startswith('opened %d failed 0' % count),
                     opened)
        time.sleep(1)
        after = self.slab_bytes()
        print('memory per idle connection: %d bytes of khttpd\'s own slab '
              '(the connection object; no buffers), %d bytes of all slab '
              'caches with both ends\' sockets in the guest'
              % ((after[1] - before[1]) // count,
                 (after[0] - before[0]) // count), flush=True)
        self.c.check('%s: no receive buffers held (%d bytes of khttpd slab '
                     'per connection)' % (name, (after[1] - before[1]) // count),
                     (after[1] - before[1]) // count < 4096)
        one = self.hold('-i 1 -w 10', '/tmp/one.out')
        res = self.held('/tmp/one.out', 20)
        self.c.check('%s: one more is closed at once (max_conns=%d)'
                     % (name, count),
                     one and res.get('idle_closed') == 1 and
                     res['last_close_s'] < 5, repr(res))
        stats = self.stats()
        self.c.check('%s: /proc/khttpd shows %d accepted, 1 refused (%s, '
                     '%s)' % (name, count + 1, stats.get('accepted'),
                              stats.get('refused')),
                     stats.get('accepted') == count + 1 and
                     stats.get('refused') == 1, repr(stats))
        self.c.check('%s: the refusal is logged at once' % name,
                     any('max_conns=%d reached' % count in t
                         for _, t in self.g.dmesg()), '')
        # The unload closes them all in one pass and hands the sockets to
        # the kernel's delayed file release: releasing 10,000 itself took
        # 0.6-5 s under TCG with slub_debug=FZPU (0.3-1.3 ms a socket).
        # The resets the kernel then sends reach the clients through
        # loopback's per-CPU backlog (1,000 packets by default), from
        # which a burst of 10,000 would be dropped, leaving clients that
        # never learn.
        backlog = self.g.value('cat /proc/sys/net/core/netdev_max_backlog')
        self.g.value('echo %d > /proc/sys/net/core/netdev_max_backlog'
                     % (2 * count))
        # The bound is one second where the guest opened the 10,000 in 10
        # s or less (5-8 s with the host otherwise idle); on a host so busy
        # that opening took longer, it grows in proportion (the unload
        # before the one-pass close took 2.4 s with opening at 7 s, 4.5 s
        # at 21 s; after, 0.3 s at 5 s and 0.8-2.6 s at 24-38 s).
        m = re.search(r' in ([\d.]+) s', opened or '')
        open_s = float(m.group(1)) if m else 0.0
        took = self.unload(name, limit=max(2.0, round(open_s / 10, 1)))
        res = self.held('/tmp/many.out', 120)
        self.g.value('echo %s > /proc/sys/net/core/netdev_max_backlog'
                     % backlog)
        self.c.check('%s: the unload closed every one' % name,
                     res.get('idle_closed') == count, repr(res))
        self.c.check('%s: the unload logged the refused one' % name,
                     any('refused 1 connections' in ln
                         for ln in self.g.klog), '')
        self.check_released(name, baseline)
        return took

    def resources(self):
        """What a loaded khttpd holds that unloading must give back."""
        return {
            'module': self.g.value("grep -c '^khttpd ' /proc/modules; true"),
            'slab caches': self.g.value(
                "grep -c '^khttpd' /proc/slabinfo; true"),
            'threads': self.g.value(
                "grep -l '^khttpd$' /proc/[0-9]*/comm 2>/dev/null | "
                "wc -l"),
            'listening sockets': self.g.value(
                "grep -c '%s00000000:0000 0A' /proc/net/tcp; true"
                % self.port_hex),
            'sockets used': self.g.value(
                "sed -n 's/^sockets: used //p' /proc/net/sockstat"),
        }

    def unload(self, name, limit=2.0):
        """rmmod timed inside the guest; returns seconds or None.  The
        limit is far below the module's timeout (15 s): an unload that
        waited for its clients would miss it, one slowed by TCG while the
        other guest runs (1.23 s once against a limit of 1 s) does not."""
        self.g.dmesg()  # what came before is not this window's
        out, _ = self.g.run(
            "s=$(cut -d' ' -f1 /proc/uptime); rmmod khttpd; rc=$?; "
            "e=$(cut -d' ' -f1 /proc/uptime); "
            "echo rmmod=$rc start=$s end=$e")
        m = re.search(r'rmmod=(\d+) start=([\d.]+) end=([\d.]+)', out)
        if not self.c.check('%s: rmmod succeeds' % name,
                            m and m.group(1) == '0', out):
            return None
        took = float(m.group(3)) - float(m.group(2))
        self.c.check('%s: rmmod completes within %g s (%.2f s)'
                     % (name, limit, took), took < limit)
        window = self.g.dmesg()
        loud = ['<%d>%s' % lt for lt in window if lt[0] <= 4]
        self.c.check('%s: nothing at warning level or above logged while '
                     'unloading' % name, not loud, '\n'.join(loud))
        self.c.check('%s: the module says it stopped' % name,
                     any('khttpd: stopped' in t for _, t in window),
                     repr(window))
        return took

    def check_released(self, name, baseline):
        now = self.resources()
        for key in ('module', 'slab caches', 'threads', 'listening sockets'):
            self.c.check('%s: no %s left' % (name, key), now[key] == '0',
                         now[key])
        self.c.check('%s: every socket released (%s in use, %s before '
                     'loading)' % (name, now['sockets used'],
                                   baseline['sockets used']),
                     now['sockets used'] == baseline['sockets used'])

    def serve_checks(self, name, listing=True):
        port = self.args.http_port
        try:
            status, server, body = http_get(port, '/a.txt')
            self.c.check('%s: serves /a.txt' % name,
                         status == 200 and server == 'khttpd' and
                         body == self.tree.files['/a.txt'],
                         '%s %s %r' % (status, server, body[:100]))
            status, _, body = http_get(port, '/many/')
            if listing:
                self.c.check('%s: serves the /many/ listing' % name,
                             status == 200 and b'file_099.txt' in body,
                             '%s %r' % (status, body[:100]))
            else:
                self.c.check('%s: listing=0 refuses /many/ with 403' % name,
                             status == 403, '%s %r' % (status, body[:100]))
                status, _, body = http_get(port, '/dir_index/')
                self.c.check('%s: listing=0 still serves index.html' % name,
                             status == 200 and body == self.tree.files[
                                 '/dir_index/index.html'],
                             '%s %r' % (status, body[:100]))
            status, _, body = http_get(port, '/big/1m.bin')
            self.c.check('%s: streams /big/1m.bin' % name,
                         status == 200 and
                         body == self.tree.files['/big/1m.bin'],
                         '%s, %d bytes' % (status, len(body)))
        except (OSError, http.client.HTTPException) as e:
            self.c.check('%s: serves requests' % name, False, repr(e))

    def permission_checks(self, name):
        """Files are read as an unprivileged user would: a file only its
        owner may read, or one inside a directory others may not search,
        is refused, though the module runs with kernel credentials."""
        port = self.args.http_port
        try:
            self.g.value('printf secret > /srv/www/private.txt && '
                         'chmod 600 /srv/www/private.txt && '
                         'mkdir -p /srv/www/closed && '
                         'printf inside > /srv/www/closed/open.txt && '
                         'chmod 700 /srv/www/closed && '
                         'printf public > /srv/www/public.txt')
            for path in ('/private.txt', '/closed/open.txt', '/closed/'):
                status, _, body = http_get(port, path)
                self.c.check('%s: %s is refused' % (name, path),
                             status in (403, 404) and
                             b'secret' not in body and
                             b'inside' not in body,
                             '%d %r' % (status, body[:80]))
            # Also where no byte would be read: HEAD, or a 304.
            for method, headers in (('HEAD', {}),
                                    ('GET', {'If-None-Match': '*'})):
                status, _, _ = self.request(method, '/private.txt', headers)
                self.c.check('%s: %s /private.txt %s is refused' % (
                    name, method, headers or ''), status == 403,
                    str(status))
            status, _, body = http_get(port, '/public.txt')
            self.c.check('%s: a world-readable file is served' % name,
                         status == 200 and body == b'public',
                         '%d %r' % (status, body[:80]))
        except (OSError, http.client.HTTPException, RuntimeError) as e:
            self.c.check('%s: permission checks ran' % name, False, repr(e))
        finally:
            self.g.run('rm -rf /srv/www/private.txt /srv/www/closed '
                       '/srv/www/public.txt')

    def fresh_get(self, url, ok):
        """GETs url until ok(status, body) holds or FRESH_WITHIN_S is up:
        a cached body is served by its path for up to a second before the
        file is looked at again, as sehttpd does."""
        deadline = time.monotonic() + FRESH_WITHIN_S
        while True:
            status, _, body = http_get(self.args.http_port, url)
            if ok(status, body) or time.monotonic() > deadline:
                return status, body
            time.sleep(0.1)

    def cache_checks(self, name):
        """Changes made in the guest show within FRESH_WITHIN_S, cached or
        not."""
        url, path = '/cached.txt', '/srv/www/cached.txt'
        versions = [b'version one\n',
                    b'version two, longer\n',
                    b'version 3, as long!\n']  # same size as two
        try:
            for i, data in enumerate(versions):
                self.g.value("printf '%s' > %s"
                             % (data.decode().replace('\n', '\\n'), path))
                for attempt in ('', ' again'):
                    status, body = self.fresh_get(
                        url, lambda st, b: st == 200 and b == data)
                    self.c.check('%s: cached file, version %d%s'
                                 % (name, i + 1, attempt),
                                 status == 200 and body == data,
                                 '%s %r' % (status, body))
            self.g.value('rm %s' % path)
            status, _ = self.fresh_get(url, lambda st, b: st == 404)
            self.c.check('%s: cached file removed: 404' % name,
                         status == 404, str(status))
            listing = '/srv/www/empty'
            for present in (False, True, False):
                self.g.value('%s %s/new-entry.txt'
                             % ('touch' if present else 'rm -f', listing))
                status, body = self.fresh_get(
                    '/empty/', lambda st, b: st == 200 and
                    (b'new-entry.txt' in b) == present)
                self.c.check('%s: listing %s the new entry'
                             % (name, 'shows' if present else 'lacks'),
                             status == 200 and
                             (b'new-entry.txt' in body) == present,
                             '%s %r' % (status, body[-200:]))
        except (OSError, http.client.HTTPException, RuntimeError) as e:
            self.c.check('%s: cache checks ran' % name, False, repr(e))

    def stats(self):
        """The module's counters (/proc/khttpd) as a dict."""
        return {k: int(v) for k, v in (
            ln.split() for ln in self.g.value('cat /proc/khttpd').split('\n')
            if ln)}

    def request(self, method, url, headers=None):
        """(status, headers as a lower-cased dict, body) of one request."""
        conn = http.client.HTTPConnection('127.0.0.1', self.args.http_port,
                                          timeout=30)
        try:
            conn.request(method, url, headers=headers or {})
            resp = conn.getresponse()
            body = resp.read()
            return resp.status, {k.lower(): v for k, v in
                                 resp.getheaders()}, body
        finally:
            conn.close()

    def linger_checks(self, name):
        """A response that ends the connection drains the client first
        (lingers) only when it may still be sending: a lone request with
        Connection: close is closed at once, with no wait for the
        client's FIN; one followed by a pipelined request lingers."""
        head = b'GET /a.txt HTTP/1.1\r\nHost: k\r\nConnection: close\r\n\r\n'
        for what, data, lingers in (
                ('a lone close request', head, 0),
                ('a close request with one pipelined after it',
                 head + b'GET /a.txt HTTP/1.1\r\nHost: k\r\n\r\n', 1)):
            try:
                before = self.stats().get('lingers')
                with socket.create_connection(
                        ('127.0.0.1', self.args.http_port), timeout=30) as s:
                    s.sendall(data)
                    closed, n = read_until_closed(s, 20)
                after = self.stats().get('lingers')
                self.c.check(
                    '%s: %s is answered and closed, lingering %d time(s)'
                    % (name, what, lingers),
                    closed and n > len(self.tree.files['/a.txt']) and
                    before is not None and after == before + lingers,
                    'closed %s after %d bytes, lingers %s -> %s'
                    % (closed, n, before, after))
            except OSError as e:
                self.c.check('%s: %s' % (name, what), False, repr(e))

    def compression_checks(self, name, cached):
        """A compressible file is deflated only for an answer that carries
        the gzip body (or a HEAD for it, whose Content-Length is the
        gzip body's): never for a HEAD or GET without gzip, nor a 304 or
        412 with it, and never at all when it cannot be cached (it
        streams as it is)."""
        url, path = '/comp.txt', '/srv/www/comp.txt'
        gz = {'Accept-Encoding': 'gzip'}
        try:
            # About 90 KB of text, made in the guest.
            self.g.value('seq 100000 112999 > %s' % path)
            data = ''.join('%d\n' % i for i in range(100000, 113000))
            data = data.encode()
            before = self.stats()
            status, h, body = self.request('HEAD', url)
            etag = h.get('etag', '')
            self.c.check('%s: HEAD of a compressible file' % name,
                         status == 200 and body == b'' and
                         h.get('content-length') == str(len(data)),
                         '%s %r' % (status, h))
            status, _, body = self.request('GET', url)
            self.c.check('%s: GET without gzip gets it as it is' % name,
                         status == 200 and body == data, str(status))
            status, _, _ = self.request('GET', url,
                                        {'If-None-Match': etag})
            self.c.check('%s: its ETag gives 304' % name, status == 304,
                         str(status))
            status, _, _ = self.request('GET', url,
                                        {'If-None-Match': '*', **gz})
            self.c.check('%s: If-None-Match: * with gzip gives 304'
                         % name, status == 304, str(status))
            status, _, _ = self.request('GET', url,
                                        {'If-Match': '"other"', **gz})
            self.c.check('%s: If-Match of another tag with gzip gives 412'
                         % name, status == 412, str(status))
            after = self.stats()
            self.c.check('%s: HEAD, GET and 304 without gzip, 304 and 412 '
                         'with it deflate nothing (%d deflated)' % (
                             name,
                             after['compressions'] -
                             before['compressions']),
                         after['compressions'] == before['compressions'],
                         '%r -> %r' % (before, after))
            status, h, body = self.request('GET', url, gz)
            coding = h.get('content-encoding')
            got = gzip.decompress(body) if coding == 'gzip' else body
            self.c.check('%s: GET with gzip: %s, %d bytes of %d'
                         % (name, coding or 'identity', len(body),
                            len(data)),
                         status == 200 and got == data and
                         (coding == 'gzip') == cached,
                         '%s %r' % (status, h))
            gz_etag = h.get('etag', '')
            status, h, body = self.request('HEAD', url, gz)
            self.c.check('%s: HEAD with gzip as GET' % name,
                         status == 200 and body == b'' and
                         h.get('etag') == gz_etag, '%s %r' % (status, h))
            status, _, _ = self.request('GET', url,
                                        {'If-None-Match': gz_etag, **gz})
            self.c.check('%s: its gzip ETag gives 304' % name,
                         status == 304, str(status))
            self.request('GET', url, gz)
            final = self.stats()
            self.c.check('%s: deflated %s (%d times)' % (
                name, 'once' if cached else 'never',
                final['compressions'] - after['compressions']),
                final['compressions'] - after['compressions'] ==
                (1 if cached else 0), '%r -> %r' % (after, final))
        except (OSError, http.client.HTTPException, RuntimeError,
                KeyError, ValueError) as e:
            self.c.check('%s: compression checks ran' % name, False,
                         repr(e))
        finally:
            self.g.run('rm -f %s' % path)

    def fill_checks(self, name, cached):
        """Concurrent misses of one file are filled once; a file that
        cannot be cached is never read whole."""
        url, path = '/fill.txt', '/srv/www/fill.txt'
        try:
            # About 400 KB: long enough to read that clients overlap.
            self.g.value('seq 1000000 1057999 > %s' % path)
            before = self.stats()
            out, rc = self.g.run(
                'htstress --json -n 16 -c 16 -t 2 http://127.0.0.1:%d%s '
                '</dev/null 2>&1' % (self.args.guest_port, url),
                timeout=120)
            m = re.search(r'^\{.*\}$', out, re.M)
            res = json.loads(m.group(0)) if m else {}
            after = self.stats()
            fills = after['fills'] - before['fills']
            self.c.check('%s: 16 clients at once get the file' % name,
                         rc == 0 and res.get('good') == 16, out[-500:])
            self.c.check('%s: read whole %s (%d times, %d waited)' % (
                name, 'once' if cached else 'never', fills,
                after['fill_waits'] - before['fill_waits']),
                fills == (1 if cached else 0), '%r -> %r' % (before, after))
        except (OSError, http.client.HTTPException, RuntimeError,
                KeyError, ValueError) as e:
            self.c.check('%s: fill checks ran' % name, False, repr(e))
        finally:
            self.g.run('rm -f %s' % path)

    def page_checks(self, name):
        """A file too large to cache goes out as its page-cache pages,
        not copied through a buffer (the guest's tree is all in memory),
        a range from the middle of a page as well."""
        url = '/big/10m.bin'
        data = self.tree.files[url]
        try:
            for rng in (None, (5000, 300000)):
                before = self.stats()
                headers = {'Range': 'bytes=%d-%d' % rng} if rng else {}
                status, _, body = self.request('GET', url, headers)
                after = self.stats()
                want = data[rng[0]:rng[1] + 1] if rng else data
                pages = after['page_bytes'] - before['page_bytes']
                read = after['read_bytes'] - before['read_bytes']
                self.c.check('%s: %s of %s sent as page-cache pages '
                             '(%d bytes, %d copied)' % (
                                 name, headers.get('Range', 'all'), url,
                                 pages, read),
                             status in (200, 206) and body == want and
                             pages == len(want) and read == 0,
                             '%s, %d bytes: %r -> %r' % (
                                 status, len(body), before, after))
        except (OSError, http.client.HTTPException, RuntimeError,
                KeyError, ValueError) as e:
            self.c.check('%s: page checks ran' % name, False, repr(e))

    def big_listing_checks(self, name):
        """A listing larger than a file's cache entry (1 MiB) is cached
        too: chunked to HTTP/1.1, to HTTP/1.0 with the Content-Length of
        the cached body (a streamed one would end with the close), whole
        and sorted."""
        port = self.args.http_port
        count = 4000
        names = ['entry-%04d-%s' % (i, 'x' * 89) for i in range(count)]
        try:
            # One printf and a few touch processes: a fork per file is
            # slow under TCG on a busy host.
            self.g.value('mkdir -p /srv/www/bigdir && cd /srv/www/bigdir && '
                         'printf "entry-%%04d-%s\\n" $(seq 0 %d) | '
                         'xargs touch' % ('x' * 89, count - 1), timeout=180)
            conn = http.client.HTTPConnection('127.0.0.1', port, timeout=60)
            try:
                conn.request('GET', '/bigdir/',
                             headers={'Accept-Encoding': 'gzip'})
                resp = conn.getresponse()
                body = resp.read()
                found = re.findall(rb'href="(entry-\d{4}-x+)"', body)
                self.c.check('%s: a %d KiB listing comes chunked, whole '
                             'and sorted' % (name, len(body) >> 10),
                             resp.status == 200 and len(body) > 1 << 20 and
                             resp.getheader('Transfer-Encoding') ==
                             'chunked' and
                             found == [n.encode() for n in names],
                             '%s, %d bytes, %d names' % (
                                 resp.status, len(body), len(found)))
                self.c.check('%s: it says Vary: Accept, Accept-Encoding, '
                             'as every listing' % name,
                             resp.getheader('Vary') ==
                             'Accept, Accept-Encoding',
                             repr(resp.getheader('Vary')))
                conn.request('GET', '/a.txt')
                resp = conn.getresponse()
                self.c.check('%s: the connection goes on after it' % name,
                             resp.read() == self.tree.files['/a.txt'])
                conn.request('GET', '/bigdir/',
                             headers={'If-None-Match': '*'})
                resp = conn.getresponse()
                body = resp.read()
                self.c.check('%s: If-None-Match: * on it gives 304' % name,
                             resp.status == 304 and body == b'',
                             '%s, %d bytes' % (resp.status, len(body)))
            finally:
                conn.close()
            s = socket.create_connection(('127.0.0.1', port), timeout=60)
            try:
                s.sendall(b'GET /bigdir/ HTTP/1.0\r\n\r\n')
                data = bytearray()
                while True:
                    chunk = s.recv(1 << 16)
                    if not chunk:
                        break
                    data += chunk
            finally:
                s.close()
            head, _, body = bytes(data).partition(b'\r\n\r\n')
            found = re.findall(rb'href="(entry-\d{4}-x+)"', body)
            length = re.search(rb'(?im)^content-length: *(\d+)\r?$',
                               head)
            self.c.check('%s: to HTTP/1.0 it comes from the cache, with '
                         'its length' % name,
                         head.startswith(b'HTTP/1.1 200') and
                         b'transfer-encoding' not in head.lower() and
                         length is not None and
                         int(length.group(1)) == len(body) and
                         body.endswith(b'</html>\n') and
                         len(found) == count,
                         '%r, %d names' % (head[:200], len(found)))
        except (OSError, http.client.HTTPException, RuntimeError) as e:
            self.c.check('%s: big listing checks ran' % name, False,
                         repr(e))
        finally:
            self.g.run('rm -rf /srv/www/bigdir')

    def huge_file_checks(self, name):
        """A sparse file over 4 GiB in the guest: its length, and ranges
        past 4 GiB (all of it would take too long through the forward)."""
        port = self.args.http_port
        path, marker = '/srv/www/huge.bin', b'HUGE-END-MARKER'
        size = (4 << 30) + (1 << 20) + len(marker)
        try:
            self.g.value('truncate -s %d %s && printf %s >> %s'
                         % (size - len(marker), path, marker.decode(), path))
            conn = http.client.HTTPConnection('127.0.0.1', port, timeout=30)
            try:
                conn.request('HEAD', '/huge.bin')
                resp = conn.getresponse()
                resp.read()
                self.c.check('%s: HEAD of a 4 GiB + 1 MiB file' % name,
                             resp.status == 200 and
                             resp.getheader('Content-Length') == str(size),
                             '%s %s' % (resp.status,
                                        resp.getheader('Content-Length')))
                for rng, want in (('bytes=-%d' % len(marker), marker),
                                  ('bytes=%d-%d' % (4 << 30, (4 << 30) + 9),
                                   bytes(10))):
                    conn.request('GET', '/huge.bin', headers={'Range': rng})
                    resp = conn.getresponse()
                    body = resp.read()
                    self.c.check('%s: %s of the 4 GiB file' % (name, rng),
                                 resp.status == 206 and body == want,
                                 '%s %r' % (resp.status, body[:40]))
            finally:
                conn.close()
        except (OSError, http.client.HTTPException, RuntimeError) as e:
            self.c.check('%s: huge file checks ran' % name, False, repr(e))
        finally:
            self.g.run('rm -f %s' % path)

    def guest_load(self, name, what, url, args):
        """htstress inside the guest: every response must be good."""
        out, rc = self.g.run('htstress --json %s http://127.0.0.1:%d%s '
                             '</dev/null 2>&1' % (args, self.args.guest_port,
                                                  url), timeout=300)
        m = re.search(r'^\{.*\}$', out, re.M)
        res = json.loads(m.group(0)) if m else {}
        ok = rc == 0 and res.get('requests', 0) > 0 and \
            res.get('good') == res.get('requests')
        self.c.check('%s: in-guest load, %s: %d requests at %.0f/s'
                     % (name, what, res.get('requests', 0),
                        res.get('rps', 0)), ok, out[-500:])

    def guest_loads(self, name):
        self.guest_load(name, 'keep-alive small file', '/a.txt',
                        '-n 4000 -c 16 -t 2 -k')
        self.guest_load(name, 'a connection per request', '/hello.txt',
                        '-n 1000 -c 8 -t 2')
        self.guest_load(name, 'gzip listing', '/many/',
                        "-n 1000 -c 8 -t 2 -k -H 'Accept-Encoding: gzip'")
        self.guest_load(name, 'streamed 10 MiB file', '/big/10m.bin',
                        '-n 16 -c 4 -t 2 -k')

    def start_background_load(self, listing):
        """Clients inside the guest, busy while the module unloads."""
        self.g.value(
            'for u in /a.txt /big/1m.bin %s; do '
            'n=$(echo $u | tr -c "a-z0-9\\n" _); '
            'htstress --json -d 5 -c 8 -t 1 -k --timeout 2 '
            'http://127.0.0.1:%d$u </dev/null >/tmp/load$n.out 2>&1 & '
            'done; sleep 2; echo started'
            % ('/many/' if listing else '/dir_index/', self.args.guest_port))

    def background_load_ran(self, name):
        out = self.g.value(
            'i=0; while pidof htstress >/dev/null && [ $i -lt 100 ]; do '
            'sleep 0.2; i=$((i + 1)); done; cat /tmp/load*.out; '
            'rm -f /tmp/load*.out')
        goods = [json.loads(m).get('good', 0)
                 for m in re.findall(r'^\{.*\}$', out, re.M)]
        self.c.check('%s: in-guest clients were busy when it unloaded '
                     '(%s good responses)' % (name, goods),
                     len(goods) == 3 and all(g > 0 for g in goods),
                     out[-500:])

    def open_clients(self):
        """An idle, a keep-alive, a half-request and a stalled download."""
        port = self.args.http_port
        socks = {}
        s = socket.create_connection(('127.0.0.1', port), timeout=10)
        socks['idle'] = s
        s = socket.create_connection(('127.0.0.1', port), timeout=10)
        s.sendall(b'GET /hello.txt HTTP/1.1\r\nHost: t\r\n\r\n')
        read_response(s)
        socks['keep-alive'] = s
        s = socket.create_connection(('127.0.0.1', port), timeout=10)
        s.sendall(b'GET /a.txt HTTP/1.1\r\nHo')
        socks['half-request'] = s
        s = socket.socket()
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8192)
        s.settimeout(10)
        s.connect(('127.0.0.1', port))
        s.sendall(b'GET /big/10m.bin HTTP/1.1\r\nHost: t\r\n\r\n')
        got = 0
        while got < 256 * 1024:
            chunk = s.recv(65536)
            if not chunk:
                raise ConnectionError('download closed early')
            got += len(chunk)
        socks['download'] = s
        return socks

    def clients_in_guest(self, name):
        """open_clients() once the guest shows all of them established,
        or None.  A guest slowed by TCG (the other guest's crowd beside
        it) once answered the control channel later than timeout_ms, and
        the module had rightly closed the idle clients by then: when the
        look took over half of timeout_ms, the clients are opened again."""
        allowed = self.args.timeout_ms / 2000
        for attempt in (1, 2):
            start = time.monotonic()
            try:
                socks = self.open_clients()
            except OSError as e:
                self.c.check('%s: clients connect' % name, False, repr(e))
                return None
            n = self.wait_established(len(socks), min(10, allowed))
            took = time.monotonic() - start
            if n >= len(socks) or took < allowed or attempt == 2:
                break
            for s in socks.values():
                s.close()
        self.c.check('%s: %d client connections open in the guest'
                     % (name, len(socks)), n >= len(socks),
                     '%d seen after %.1f s, try %d' % (n, took, attempt))
        return socks

    def wait_established(self, count, seconds=10):
        deadline = time.monotonic() + seconds
        while True:
            n = int(self.g.value("grep '%s' /proc/net/tcp | "
                                 "grep -c ' 01 '; true" % self.port_hex))
            if n >= count or time.monotonic() > deadline:
                return n
            time.sleep(0.3)

    def any_port(self, name):
        """port=0 takes a port the kernel picks, as sehttpd's port 0
        does: the log and /sys/module/khttpd/parameters/port say which.
        It listened on one nobody could learn, the log saying port 0."""
        out, rc = self.insmod('port=0')
        if not self.c.check('%s: insmod port=0 succeeds' % name, rc == 0,
                            out):
            return
        try:
            port = int(self.g.value(
                'cat /sys/module/khttpd/parameters/port'))
            log = ' '.join(t for _, t in self.g.dmesg())
            res = {}
            if port:
                res = json.loads(self.g.value(
                    'slowread -p %d -u /a.txt -r 100000000 -w 5' % port))
            self.c.check('%s: the port the kernel picked (%d) is in the '
                         'log and the parameter, and serves (%s)'
                         % (name, port, res),
                         port != 0 and 'on port %d' % port in log and
                         res.get('status') == 200, log[-300:])
        except (OSError, RuntimeError, ValueError) as e:
            self.c.check('%s: the port=0 checks ran' % name, False, repr(e))
        self.unload(name)

    def site_params(self):
        """index_names=, error_pages= and spa= shape the site as sehttpd's
        --index, --error-page and --spa do; bad values of them and of
        cors=, headers=, mime= and default_type= are refused, with a
        message."""
        name = 'site'
        for bad, why in (
                ('index_names=a/b', 'index_names'),
                ('error_pages=200=/a.txt', 'error_pages'),
                ('error_pages=404=a.txt', 'error_pages'),
                ('spa=/../etc/passwd', 'spa'),
                ('cors=https://a.example/path', 'cors'),
                ('cors=a.example', 'cors'),
                ("'headers=\"Bad Name: x\"'", 'a header name is a token'),
                ("'headers=\"X-A: 1|Content-Length: 1\"'",
                 'the server sets this header itself: Content-Length'),
                ("'headers=X-A:1|NoColon'", "expected 'Name: value'"),
                ("'headers=\"Access-Control-Allow-Origin: x\"' cors=*",
                 'the CORS answer sets this header itself'),
                ("'headers=\"X-Long: %s\"'" % ('v' * 400), 'more than 384'),
                ('mime=xyz', 'is not EXT=TYPE'),
                ('mime=a/b=text/plain', 'is not EXT=TYPE'),
                ("'mime=xyz=\"not a type\"'", 'not a media type'),
                ('default_type=text', 'is not a media type'),
                # Looked up again from the loader's root (root.c), not
                # from its working directory.
                ('root=srv/www', 'not an absolute path')):
            out, rc = self.insmod(bad)
            log = ' '.join(t for _, t in self.g.dmesg())
            self.c.check('%s: insmod %s is refused, the log says why'
                         % (name, bad[:60]), rc != 0 and why in log,
                         out + log)
            if rc == 0:
                self.unload(name)
        out, rc = self.insmod('index_names=index.htm,index.html '
                              'error_pages=404=/dir_htm/index.htm,'
                              '403=/nowhere.html spa=/dir_both/index.html '
                              'cors=https://a.example')
        if not self.c.check('%s: insmod with them succeeds' % name, rc == 0,
                            out):
            return
        port = self.args.http_port
        files = self.tree.files
        try:
            got = http_get(port, '/dir_both/')
            self.c.check('%s: index_names: the first one found wins' % name,
                         got[0] == 200 and
                         got[2] == files['/dir_both/index.htm'], repr(got))
            got = http_get(port, '/users/42')
            self.c.check('%s: spa: a missing route gets the page, 200'
                         % name, got[0] == 200 and
                         got[2] == files['/dir_both/index.html'], repr(got))
            got = http_get(port, '/missing.txt')
            self.c.check('%s: error_pages: 404 with its page' % name,
                         got[0] == 404 and
                         got[2] == files['/dir_htm/index.htm'], repr(got))
            got = http_get(port, '/.env')
            self.c.check('%s: a hidden path: 404 with the page' % name,
                         got[0] == 404 and b'DOTFILE' not in got[2] and
                         got[2] == files['/dir_htm/index.htm'], repr(got))
            got = http_get(port, '/link_outside/x')
            self.c.check('%s: a page that is missing: the built-in 403'
                         % name, got[0] == 403 and b'403' in got[2],
                         repr(got))
            # A name that is not UTF-8 shows as U+FFFD in the page, which
            # is declared UTF-8; its href keeps the bytes (issue 28, 12).
            self.g.run("mkdir -p /srv/www/latin1 && "
                       "echo body >\"/srv/www/latin1/$(printf 'caf\\351.txt')\"")
            got = http_get(port, '/latin1/')
            try:
                page = got[2].decode('utf-8')
            except UnicodeDecodeError as e:
                page = repr(e)
            self.c.check('%s: a listing of a name that is not UTF-8 is '
                         'UTF-8, its href the bytes' % name,
                         got[0] == 200 and 'caf\ufffd.txt' in page and
                         'href="caf%E9.txt"' in page, page[-600:])
            self.g.run('rm -rf /srv/www/latin1')
            for path, status in (('/a.txt', 200), ('/missing.txt', 404)):
                conn = http.client.HTTPConnection('127.0.0.1', port,
                                                  timeout=30)
                conn.request('GET', path)
                r = conn.getresponse()
                r.read()
                conn.close()
                self.c.check('%s: cors: %d %s names the origin, varies '
                             'by it' % (name, status, path),
                             r.status == status and
                             r.getheader('Access-Control-Allow-Origin') ==
                             'https://a.example' and
                             'Origin' in (r.getheader('Vary') or ''),
                             repr(r.getheaders()))
            conn = http.client.HTTPConnection('127.0.0.1', port, timeout=30)
            conn.request('OPTIONS', '/a.txt', headers={
                'Origin': 'https://a.example',
                'Access-Control-Request-Method': 'GET',
                'Access-Control-Request-Headers': 'x-test'})
            r = conn.getresponse()
            r.read()
            conn.close()
            self.c.check('%s: cors: a preflight is answered' % name,
                         r.status == 204 and
                         'GET' in (r.getheader(
                             'Access-Control-Allow-Methods') or '') and
                         r.getheader('Access-Control-Allow-Headers') ==
                         'x-test', repr(r.getheaders()))
        except (OSError, http.client.HTTPException, KeyError) as e:
            self.c.check('%s: requests answered' % name, False, repr(e))
        self.unload(name)

    def cycle(self, i, baseline, params):
        name = 'cycle %d (%s)' % (i, params or 'defaults')
        out, rc = self.insmod(params)
        self.c.check('%s: insmod succeeds' % name, rc == 0, out)
        if rc != 0:
            return
        self.serve_checks(name, 'listing=0' not in params)
        self.linger_checks(name)
        if 'listing=0' not in params:
            self.cache_checks(name)
            self.compression_checks(name, 'cache_kb=0' not in params)
            self.fill_checks(name, 'cache_kb=0' not in params)
            self.page_checks(name)
        self.permission_checks(name)
        if not params:
            self.huge_file_checks(name)
            self.big_listing_checks(name)
        if 'listing=0' not in params:
            self.guest_loads(name)
        socks = self.clients_in_guest(name)
        if socks is None:
            return
        time.sleep(0.5)  # the download's buffers fill; sendmsg blocks
        try:
            self.start_background_load('listing=0' not in params)
            self.unload(name)
            self.background_load_ran(name)
            for what, s in socks.items():
                closed, n = read_until_closed(s, 20)
                detail = ''
                if what == 'download':
                    # Cut short: rmmod did not wait for the whole file.
                    closed = closed and n < 10 << 20
                    detail = '%d more bytes' % n
                self.c.check('%s: %s connection closed by the unload'
                             % (name, what), closed, detail)
        finally:
            for s in socks.values():
                s.close()
        self.check_released(name, baseline)

    def run(self):
        c, g = self.c, self.g
        if not c.check('control channel answers', g.wait_ready()):
            return
        boot = g.dmesg()
        c.check('kernel log clean after boot and the integration suite',
                not bad_lines(t for _, t in boot),
                '\n'.join(bad_lines(t for _, t in boot)))
        if self.unload('cycle 0 (after the integration suite)') is None:
            return
        baseline = self.resources()
        c.check('cycle 0: nothing of khttpd left',
                all(baseline[k] == '0' for k in
                    ('module', 'slab caches', 'threads',
                     'listening sockets')), repr(baseline))

        out, rc = g.run('insmod /khttpd.ko root=/nonexistent port=%d'
                        % self.args.guest_port)
        log = g.dmesg()
        c.check('insmod with a missing root= fails', rc != 0, out)
        c.check('... and says why in the kernel log',
                any('khttpd: root=/nonexistent' in t for _, t in log),
                repr(log))

        # KHTTPD_LIFECYCLE=crowd,10000 runs only those parts (while
        # working on one of them).
        only = os.environ.get('KHTTPD_LIFECYCLE',
                              'cycles,site,deploy,fair,heavy,memcg,pins,'
                              'crowd,burst,10000,limits')
        parts = (
            ('cycles', lambda: [self.cycle(i, baseline, params)
                                for i, params in enumerate(
                                    ('', 'cache_kb=0', 'listing=0'), 1)]),
            ('site', lambda: [self.site_params(),
                              self.any_port('site-port-0')]),
            ('deploy', lambda: self.deploy(baseline)),
            ('fair', lambda: self.fair_share(baseline)),
            ('heavy', lambda: self.heavy(baseline)),
            ('memcg', lambda: self.memcg(baseline)),
            ('pins', lambda: self.pins(baseline)),
            ('crowd', lambda: self.crowd(baseline)),
            ('burst', lambda: self.burst(baseline)),
            ('10000', lambda: self.ten_thousand(baseline)),
            ('limits', lambda: self.limits(baseline)),
        )
        for part, run in parts:
            if part in only:
                start = time.monotonic()
                run()
                # What each part costs, for the time of make check.
                print('lifecycle part %s took %.0f s'
                      % (part, time.monotonic() - start), flush=True)

        g.dmesg()
        bad = bad_lines(g.klog)
        c.check('whole kernel log free of BUG/WARNING/Oops/corruption/'
                'leaks', not bad, '\n'.join(bad))
        try:
            with open(self.args.serial, errors='replace') as fh:
                serial_bad = bad_lines(fh.read().split('\n'))
        except OSError as e:
            serial_bad = [repr(e)]
        c.check('serial console free of BUG/WARNING/Oops', not serial_bad,
                '\n'.join(serial_bad))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--http-port', type=int, required=True)
    ap.add_argument('--ctl-port', type=int, required=True)
    ap.add_argument('--guest-port', type=int, default=8081)
    ap.add_argument('--timeout-ms', type=int, default=15000)
    ap.add_argument('--tree', required=True)
    ap.add_argument('--serial', required=True)
    ap.add_argument('--integration-dir', default=None)
    args = ap.parse_args()
    if args.integration_dir is None:
        args.integration_dir = os.path.join(
            os.path.dirname(os.path.abspath(__file__)), '..', 'integration')
    checks = Checks()
    try:
        Lifecycle(args, checks).run()
    except Exception:  # a broken channel is one more failure
        checks.check('lifecycle ran to the end', False,
                     traceback.format_exc())
    print('lifecycle-totals %d %d' % (checks.passed, checks.failed))
    return 1 if checks.failed else 0


if __name__ == '__main__':
    sys.exit(main())
