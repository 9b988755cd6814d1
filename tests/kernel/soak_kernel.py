#!/usr/bin/python3
"""khttpd's soak in the test guest (`make soak-kernel`, tests/kernel/soak.sh).

Two modes:
  --stage ROOT   writes into the initramfs tree ROOT the served tree
                 (srv/www) and a pool (pool/) of every version the faults
                 will give its files, generated from fixed seeds, so that
                 the host knows each version's bytes.
  --seconds S    with the guest booted and khttpd loaded over srv/www:
                 for S seconds, mixed load from the host through the
                 forwarded port (htstress bursts for bulk keep-alive;
                 Python clients for new connections, pipelining, ranges,
                 conditionals, JSON and HTML listings, gzip, 404s,
                 clients aborting mid-download, slow readers) while
                 faults are injected in the guest through the control
                 channel (ctl.cgi): files rewritten by rename and in
                 place, truncated in place, deleted and re-created,
                 renamed away and back; entries added to and removed from
                 a directory being listed; and every so often khttpd
                 unloaded with clients connected and loaded again.

Every response is checked against the versions its file had around its
time: from a little before the request (khttpd serves a cached body
without looking at the file for up to KHTTPD_CACHE_CHECK = HZ, one second,
after its last check; listings as long, KHTTPD_CACHE_LISTING_TTL) to when
it ended.  A body must equal one version whole; one cut short with the
connection closed must be a prefix of one.  Allowed and counted apart: a
mix of versions read while a file was rewritten in place, a 404 around an
absence, connections refused or reset while the module is unloaded.  A
complete body with zeros where its file was truncated in place while sent
is the known sendfile-style defect (doc/khttpd.md, "Streaming"; review L4):
counted and reported as skipped, not failed.

At the end: /proc/khttpd, the slab samples (SUnreclaim must stay flat),
a final rmmod, and the whole kernel log checked for BUG, WARNING, Oops and
the like.  Prints its counts and one line "soak-kernel: N passed, N failed
[, N skipped]"; exits 1 on any failure.  Samples (and a gnuplot chart)
go to --out.  Standard library only.
"""

import argparse
import collections
import gzip
import hashlib
import http.client
import json
import os
import random
import re
import shutil
import socket
import subprocess
import sys
import threading
import time
import urllib.parse
import zlib

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))), 'soak'))
# sehttpd's soak: the same versions, and the same judgement of a body.
from soak import generate, mix_of, now, zeroed_copy  # noqa: E402

# khttpd re-checks a cached file at most KHTTPD_CACHE_CHECK (HZ) after the
# last check, and rebuilds a listing after KHTTPD_CACHE_LISTING_TTL (HZ):
# a response may show a version this long after it was replaced.
CACHE_CHECK_S = 1.0
# The guest's clock under TCG: its tick may be late by this much when the
# vCPUs are starved (the host runs other work too).
TICK_SLACK_S = 0.5
STALE_S = CACHE_CHECK_S + TICK_SLACK_S
# (path, kind, size): the faults touch these.  huge.bin is over 1 MiB: it
# is never cached but streamed from the page cache.
FILES = [('files/small.txt', 'txt', 300),
         ('files/page.html', 'txt', 9000),
         ('files/text.txt', 'txt', 120000),
         ('files/data.bin', 'bin', 70000),
         ('files/big.txt', 'txt', 600000),
         ('files/huge.bin', 'bin', 1536 * 1024)]
STABLE = [('stable/s.txt', 'txt', 20000), ('stable/s.bin', 'bin', 65536)]
VARIANTS = 6  # versions per faulted file in the pool
LISTED_KEEP = ['keep-%d.txt' % i for i in range(4)]
FAULT_KINDS = ['rewrite-rename', 'rewrite-inplace', 'truncate',
               'delete-recreate', 'rename', 'dir-add', 'dir-remove']
RMMOD_BOUND_S = 10.0
# Flat slab: the last quarter's maximum within this of the first's.
FLAT_REL = 0.10
FLAT_KIB = 2048
BAD_LOG = re.compile(
    r'BUG|WARNING|Oops|kmemleak|refcount_t|use-after-free|'
    r'general protection|soft lockup|hung task|Call Trace|'
    r'list_add corruption|list_del corruption|Objects remaining|'
    r'slab error|Poison overwritten|Redzone|Kernel panic|UBSAN|'
    r'double free|hard LOCKUP|blocked for more')


def pool_content(index, variant):
    rel, kind, size = FILES[index]
    return generate(kind, 1000 * (index + 1) + variant, size)


def stage(root):
    """The served tree and the pool, into the initramfs tree root."""
    www = os.path.join(root, 'srv', 'www')
    pool = os.path.join(root, 'pool')
    for d in ('files', 'stable', 'listed', '.tmp'):
        os.makedirs(os.path.join(www, d), exist_ok=True)
    os.makedirs(pool, exist_ok=True)
    for i, (rel, kind, size) in enumerate(FILES):
        for v in range(VARIANTS):
            with open(os.path.join(pool, '%d.%d' % (i, v)), 'wb') as f:
                f.write(pool_content(i, v))
        shutil.copyfile(os.path.join(pool, '%d.0' % i),
                        os.path.join(www, rel))
    for i, (rel, kind, size) in enumerate(STABLE):
        with open(os.path.join(www, rel), 'wb') as f:
            f.write(generate(kind, 99 + i, size))
    for name in LISTED_KEEP:
        with open(os.path.join(www, 'listed', name), 'w') as f:
            f.write(name)
    # khttpd reads as nobody.
    for base, dirs, files in os.walk(os.path.join(root, 'srv')):
        for n in dirs:
            os.chmod(os.path.join(base, n), 0o755)
        for n in files:
            os.chmod(os.path.join(base, n), 0o644)
    for n in os.listdir(pool):
        os.chmod(os.path.join(pool, n), 0o644)


# --- the guest's control channel --------------------------------------------

def ctl(port, script, timeout=120):
    """Runs shell text in the guest: (output, exit status)."""
    conn = http.client.HTTPConnection('127.0.0.1', port, timeout=timeout)
    try:
        conn.request('POST', '/cgi-bin/run', body=script.encode(),
                     headers={'Content-Type': 'text/plain'})
        text = conn.getresponse().read().decode('utf-8', 'replace')
    finally:
        conn.close()
    lines = text.rstrip('\n').split('\n')
    m = re.match(r'^exit=(\d+)$', lines[-1])
    if not m:
        raise RuntimeError('control channel: no exit line in %r'
                           % text[-300:])
    return '\n'.join(lines[:-1]), int(m.group(1))


# --- a small HTTP/1.1 client ------------------------------------------------

class Closed(Exception):
    """The connection closed (or was reset) before a response's head."""


class Response:
    def __init__(self, status, headers, body, cut):
        self.status, self.headers, self.body, self.cut = \
            status, headers, body, cut


class Conn:
    def __init__(self, port, timeout=30, rcvbuf=None):
        self.sock = socket.socket()
        if rcvbuf:
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
        self.sock.settimeout(timeout)
        self.sock.connect(('127.0.0.1', port))
        self.buf = bytearray()
        self.rate = None  # bytes per second, for a slow reader

    def close(self):
        self.sock.close()

    def send(self, data):
        self.sock.sendall(data)

    def fill(self):
        """False once the peer closed (or reset) the connection."""
        n = 8192 if self.rate else 262144
        try:
            chunk = self.sock.recv(n)
        except ConnectionError:
            return False
        if self.rate:
            time.sleep(len(chunk) / self.rate)
        self.buf += chunk
        return bool(chunk)

    def take(self, n):
        data = bytes(self.buf[:n])
        del self.buf[:n]
        return data

    def response(self, method='GET', limit=None):
        """One response; its body cut short (cut) if the connection
        closed inside it; limit: stop reading the body after that many
        bytes (an abort)."""
        while b'\r\n\r\n' not in self.buf:
            if not self.fill():
                raise Closed('closed with %d bytes of a head' % len(self.buf))
        end = self.buf.index(b'\r\n\r\n')
        head = self.take(end + 4).decode('latin-1').split('\r\n')
        status = int(head[0].split()[1])
        headers = {}
        for line in head[1:]:
            if ':' in line:
                k, v = line.split(':', 1)
                headers[k.strip().lower()] = v.strip()
        if method == 'HEAD' or status in (204, 304) or status < 200:
            return Response(status, headers, b'', False)
        if 'content-length' in headers:
            n = int(headers['content-length'])
            want = n if limit is None else min(n, limit)
            while len(self.buf) < want and self.fill():
                pass
            body = self.take(min(want, len(self.buf)))
            return Response(status, headers, body, len(body) < want)
        if headers.get('transfer-encoding', '').lower() == 'chunked':
            body = bytearray()
            while True:
                while b'\r\n' not in self.buf:
                    if not self.fill():
                        return Response(status, headers, bytes(body), True)
                i = self.buf.index(b'\r\n')
                size = int(self.take(i + 2)[:i].split(b';')[0], 16)
                while len(self.buf) < size + 2:
                    if not self.fill():
                        return Response(status, headers, bytes(body), True)
                body += self.take(size)
                self.take(2)
                if size == 0:
                    return Response(status, headers, bytes(body), False)
        while self.fill():
            pass
        return Response(status, headers, self.take(len(self.buf)), False)


def request(path, headers=(), method='GET'):
    lines = ['%s %s HTTP/1.1' % (method, urllib.parse.quote(path)),
             'Host: soak']
    lines += ['%s: %s' % h for h in headers]
    return ('\r\n'.join(lines) + '\r\n\r\n').encode()


# --- what each path was, and when --------------------------------------------

class Version:
    def __init__(self, data, t_from):
        self.data = data
        self.t_from = t_from
        self.t_to = None
        self.sha = hashlib.sha256(data).digest()


class History:
    """Every version each path had, its absences, in-place writes and
    truncations, by host time; and the module's unloaded spans."""

    def __init__(self):
        self.lock = threading.Lock()
        self.versions = collections.defaultdict(list)
        self.absent = collections.defaultdict(list)  # [t_from, t_to|None]
        self.inplace = collections.defaultdict(list)  # [t_from, t_to]
        self.truncated = collections.defaultdict(list)  # [t_from, t_to]
        self.unloaded = []  # [t_from, t_to|None]
        self.listed_ever = set(LISTED_KEEP)

    def start(self, rel, data, t):
        with self.lock:
            self.versions[rel].append(Version(data, t))

    def begin(self, rel, data, t_a):
        """rel is data (None: absent) from t_a on, before the change is
        made: a client may see it before the control channel answers.
        What it had stays current too until end(token, t_b)."""
        with self.lock:
            vs, ab = self.versions[rel], self.absent[rel]
            old_v = vs[-1] if vs and vs[-1].t_to is None else None
            old_a = ab[-1] if ab and ab[-1][1] is None else None
            if data is None:
                ab.append([t_a, None])
            else:
                vs.append(Version(data, t_a))
            return old_v, old_a

    def end(self, token, t_b):
        old_v, old_a = token
        with self.lock:
            if old_v:
                old_v.t_to = t_b
            if old_a:
                old_a[1] = t_b

    def current(self, rel):
        with self.lock:
            vs = self.versions[rel]
            return vs[-1].data if vs and vs[-1].t_to is None else None

    def new_span(self, spans, rel):
        """A span in spans[rel] that change() starts and ends."""
        with self.lock:
            span = [float('inf'), None]
            spans[rel].append(span)
            return span

    def candidates(self, rel, t0, t1):
        with self.lock:
            return [v for v in self.versions[rel] if v.t_from <= t1 and (
                v.t_to is None or v.t_to >= t0 - STALE_S)]

    @staticmethod
    def _overlap(spans, t0, t1, stale=STALE_S):
        return any(a <= t1 and (b is None or b >= t0 - stale)
                   for a, b in spans)

    def absent_within(self, rel, t0, t1):
        with self.lock:
            if not self.versions[rel] or \
                    self.versions[rel][0].t_from >= t0 - STALE_S:
                return True
            return self._overlap(self.absent[rel], t0, t1)

    def inplace_within(self, rel, t0, t1):
        with self.lock:
            return self._overlap(self.inplace[rel], t0, t1)

    def truncated_before(self, rel, t1):
        # A slow reader's pages may wait in the socket long after the
        # request began: any truncation before the answer ended.
        with self.lock:
            return any(a <= t1 for a, b in self.truncated[rel])

    def unloaded_within(self, t0, t1):
        with self.lock:
            return self._overlap(self.unloaded, t0, t1, stale=0.0)


# --- the soak ---------------------------------------------------------------

class Stats:
    def __init__(self):
        self.lock = threading.Lock()
        self.served = collections.Counter()
        self.short = collections.Counter()  # cut short, a prefix
        self.gap = collections.Counter()  # refused/reset while unloaded
        self.torn = 0
        self.zero_filled = 0
        self.wrong = 0
        self.bad_status = 0
        self.errors = 0
        self.faults = collections.Counter()
        self.fault_failures = collections.Counter()
        self.problems = []

    def count(self, counter, kind):
        with self.lock:
            counter[kind] += 1

    def problem(self, what, msg):
        with self.lock:
            if what == 'wrong bytes':
                self.wrong += 1
            elif what == 'status':
                self.bad_status += 1
            elif what == 'error':
                self.errors += 1
            if len(self.problems) < 200:
                self.problems.append('%s: %s' % (what, msg))
        print('soak-kernel: %s: %s' % (what, msg), flush=True)


class Soak:
    def __init__(self, args):
        self.args = args
        self.port = args.http_port
        self.h = History()
        self.stats = Stats()
        self.stop = threading.Event()
        self.rnd = random.Random(27)
        self.rnd_lock = threading.Lock()
        self.out = args.out
        os.makedirs(self.out, exist_ok=True)
        for n in os.listdir(self.out):
            if n == 'faults.txt' or n.startswith('wrong-'):
                os.unlink(os.path.join(self.out, n))
        # The pool, as staged: every version a faulted file may take.
        self.pool = {}
        for i in range(len(FILES)):
            for v in range(VARIANTS):
                with open(os.path.join(args.pool, 'pool', '%d.%d' % (i, v)),
                          'rb') as f:
                    self.pool[i, v] = f.read()
                if self.pool[i, v] != pool_content(i, v):
                    raise SystemExit('pool %d.%d differs from its seed'
                                     % (i, v))
        t = now()
        for i, (rel, kind, size) in enumerate(FILES):
            self.h.start(rel, self.pool[i, 0], t)
            # rel.moved holds it while renamed away.
            self.h.absent[rel + '.moved'].append([t, None])
            self.h.start(rel + '.moved', b'', -1e9)
            self.h.versions[rel + '.moved'][0].t_to = -1e9
        for i, (rel, kind, size) in enumerate(STABLE):
            self.h.start(rel, generate(kind, 99 + i, size), t)
        # Per faulted file: 'here', 'gone' (deleted), 'moved'.
        self.where = {rel: 'here' for rel, _, _ in FILES}
        self.variant = {rel: 0 for rel, _, _ in FILES}
        self.listed_added = []
        self.listed_seq = 0
        self.htstress_lock = threading.Lock()
        self.htstress_runs = 0
        self.htstress_requests = 0
        self.cycles = []  # (rmmod s, rmmod rc, insmod rc, answered)
        self.samples = []  # (t, slab_kib, sunreclaim_kib, requests)
        # (t, qemu CPU s, its cores since the last, host load, ctl s)
        self.clock = []
        self.proc_totals = collections.Counter()
        self.t_start = now()
        self.wrong_dumps = 0

    def pick(self, seq):
        with self.rnd_lock:
            return self.rnd.choice(seq)

    def randint(self, a, b):
        with self.rnd_lock:
            return self.rnd.randint(a, b)

    def any_path(self):
        rel = self.pick([r for r, _, _ in FILES + STABLE])
        return rel + '.moved' if self.where.get(rel) == 'moved' and \
            self.randint(0, 1) else rel

    # --- checking a response --------------------------------------------

    def verify(self, kind, rel, resp, t0, rng=None, prefix_only=False):
        t1 = now()
        st = resp.status
        if st == 404:
            if self.h.absent_within(rel, t0, t1):
                self.stats.count(self.stats.served, kind)
            else:
                with self.h.lock:
                    spans = [('%.2f' % (a - t0), '%.2f' % (b - t0) if b
                              else '-') for a, b in self.h.absent[rel]]
                self.stats.problem('status', '%s %s: 404 at %.2f s, '
                                   'answered after %.2f s; absent %s'
                                   % (kind, rel, t0 - self.t_start,
                                      t1 - t0, spans))
            return
        if st == 206 and rng:
            m = re.fullmatch(r'bytes (\d+)-(\d+)/(\d+)',
                             resp.headers.get('content-range', ''))
            if not m:
                self.stats.problem('wrong bytes', '%s %s: Content-Range %r'
                                   % (kind, rel,
                                      resp.headers.get('content-range')))
                return
            a, b, total = map(int, m.groups())
            cands = [v for v in self.h.candidates(rel, t0, t1)
                     if len(v.data) == total]
            if any(v.data[a:b + 1] == resp.body for v in cands):
                self.stats.count(self.stats.served, kind)
                return
            if resp.cut and any(v.data[a:a + len(resp.body)] == resp.body
                                for v in cands):
                self.stats.count(self.stats.short, kind)
                return
            self.mismatch(kind, rel, resp.body, t0, t1, offset=a)
            return
        if st == 416 and rng:
            if any(len(v.data) <= rng[0]
                   for v in self.h.candidates(rel, t0, t1)):
                self.stats.count(self.stats.served, kind)
                return
        if st != 200:
            self.stats.problem('status', '%s %s: %d' % (kind, rel, st))
            return
        body = resp.body
        enc = resp.headers.get('content-encoding', '').lower()
        if enc:
            if enc != 'gzip':
                self.stats.problem('wrong bytes', '%s %s: coding %r'
                                   % (kind, rel, enc))
                return
            if resp.cut:
                # What of a cut stream decodes must be a prefix.
                body = zlib.decompressobj(31).decompress(body)
            else:
                try:
                    body = gzip.decompress(body)
                except (OSError, EOFError) as e:
                    self.stats.problem('wrong bytes', '%s %s: gzip body does'
                                       ' not decode: %s' % (kind, rel, e))
                    return
        cands = self.h.candidates(rel, t0, t1)
        if resp.cut or prefix_only:
            if any(v.data.startswith(body) for v in cands):
                self.stats.count(self.stats.short, kind)
                return
        else:
            sha = hashlib.sha256(body).digest()
            if any(v.sha == sha for v in cands):
                self.stats.count(self.stats.served, kind)
                return
        self.mismatch(kind, rel, body, t0, t1)

    def mismatch(self, kind, rel, body, t0, t1, offset=0):
        """A body equal to no version current around its time."""
        with self.h.lock:
            every = [v.data for v in self.h.versions[rel]]
        cands = [v.data[offset:] for v in self.h.candidates(rel, t0, t1)]
        if mix_of(body, cands) and self.h.inplace_within(rel, t0, t1):
            with self.stats.lock:
                self.stats.torn += 1
            return
        if self.h.truncated_before(rel, t1) and \
                any(zeroed_copy(body, c[offset:]) for c in every):
            with self.stats.lock:
                self.stats.zero_filled += 1
            print('soak-kernel: known defect (L4): %s %s: %d bytes with '
                  'zeros where its file was truncated in place while sent'
                  % (kind, rel, len(body)), flush=True)
            return
        n = self.wrong_dumps
        self.wrong_dumps += 1
        dump = ''
        if n < 3:
            dump = os.path.join(self.out, 'wrong-%d.bin' % n)
            with open(dump, 'wb') as f:
                f.write(body)
        anytime = any(body == c[offset:offset + len(body)] for c in every)
        with self.h.lock:
            spans = [('%.2f' % (v.t_from - t0),
                      '%.2f' % (v.t_to - t0) if v.t_to else '-',
                      len(v.data)) for v in self.h.versions[rel]][-6:]
        self.stats.problem(
            'wrong bytes', '%s %s (offset %d): %d bytes equal to no version '
            'current within [-%.1f s, %.2f s] of the request%s; last '
            'versions (from, to, length) %s%s'
            % (kind, rel, offset, len(body), STALE_S, t1 - t0,
               ' (but to an older or later one)' if anytime else '',
               spans, '; body in ' + dump if dump else ''))

    def failed_request(self, kind, rel, t0, e):
        if self.h.unloaded_within(t0, now()):
            self.stats.count(self.stats.gap, kind)
        else:
            self.stats.problem('error', '%s %s: %r' % (kind, rel, e))

    def get(self, kind, rel, headers=(), rng=None, conn=None, limit=None,
            rate=None):
        t0 = now()
        own = conn is None
        try:
            if own:
                conn = Conn(self.port)
                conn.rate = rate
            conn.send(request('/' + rel, headers))
            resp = conn.response(limit=limit)
        except (OSError, Closed) as e:
            self.failed_request(kind, rel, t0, e)
            return None
        finally:
            if own and conn:
                conn.close()
        if resp.cut and not self.h.unloaded_within(t0, now()) and \
                not self.h.truncated_before(rel, now()) and limit is None:
            self.stats.problem('error', '%s %s: cut short at %d bytes'
                               % (kind, rel, len(resp.body)))
            return resp
        self.verify(kind, rel, resp, t0, rng=rng,
                    prefix_only=limit is not None)
        return resp

    # --- the clients -----------------------------------------------------

    def new_connection(self):
        self.get('new-connection', self.any_path())

    def pipelined(self):
        rels = [self.any_path() for _ in range(self.randint(2, 5))]
        t0 = now()
        try:
            conn = Conn(self.port)
        except OSError as e:
            self.failed_request('pipelined', rels[0], t0, e)
            return
        try:
            conn.send(b''.join(request('/' + r) for r in rels))
            for r in rels:
                try:
                    resp = conn.response()
                except (OSError, Closed) as e:
                    self.failed_request('pipelined', r, t0, e)
                    return
                self.verify('pipelined', r, resp, t0)
                if resp.cut:
                    return
        finally:
            conn.close()

    def ranges(self):
        rel = self.any_path()
        size = max(len(v.data) for v in self.h.candidates(rel, now(), now())
                   or [Version(b'x', 0)])
        a = self.randint(0, max(0, size - 1))
        b = self.randint(a, min(size - 1, a + 200000)) if size > a else a
        self.get('range', rel, [('Range', 'bytes=%d-%d' % (a, b))],
                 rng=(a, b))

    def conditional(self):
        rel = self.pick([r for r, _, _ in FILES + STABLE])
        resp = self.get('conditional', rel)
        if resp is None or resp.status != 200 or 'etag' not in resp.headers:
            return
        t0 = now()
        try:
            conn = Conn(self.port)
            try:
                conn.send(request('/' + rel,
                                  [('If-None-Match', resp.headers['etag'])]))
                again = conn.response()
            finally:
                conn.close()
        except (OSError, Closed) as e:
            self.failed_request('conditional', rel, t0, e)
            return
        if again.status == 304:
            self.stats.count(self.stats.served, 'conditional-304')
        else:
            self.verify('conditional', rel, again, t0)

    def listing(self):
        as_json = self.randint(0, 1)
        headers = [('Accept', 'application/json')] if as_json else []
        t0 = now()
        try:
            conn = Conn(self.port)
            try:
                conn.send(request('/listed/', headers))
                resp = conn.response()
            finally:
                conn.close()
        except (OSError, Closed) as e:
            self.failed_request('listing', 'listed/', t0, e)
            return
        if resp.cut and self.h.unloaded_within(t0, now()):
            self.stats.count(self.stats.gap, 'listing')
            return
        if resp.status != 200 or resp.cut:
            self.stats.problem('status', 'listing: %d%s' % (
                resp.status, ' cut short' if resp.cut else ''))
            return
        if resp.headers.get('content-encoding') == 'gzip':
            resp.body = gzip.decompress(resp.body)
        if as_json:
            try:
                names = {e['name'].rstrip('/') for e in json.loads(resp.body)}
            except (ValueError, KeyError, TypeError) as e:
                self.stats.problem('wrong bytes', 'JSON listing: %s' % e)
                return
        else:
            names = set(urllib.parse.unquote(n).rstrip('/') for n in
                        re.findall(r'href="([^"?/][^"?]*)"',
                                   resp.body.decode('utf-8', 'replace')))
        with self.h.lock:
            ever = set(self.h.listed_ever)
        missing = set(LISTED_KEEP) - names
        strange = names - ever - {'..', '.'}
        if missing or strange:
            self.stats.problem('wrong bytes', 'listing (%s): missing %s, '
                               'never there %s' % (
                                   'JSON' if as_json else 'HTML',
                                   sorted(missing), sorted(strange)[:5]))
            return
        self.stats.count(self.stats.served,
                         'listing-json' if as_json else 'listing-html')

    def gzipped(self):
        rel = self.pick([r for r, k, _ in FILES + STABLE if k == 'txt'])
        self.get('gzip', rel, [('Accept-Encoding', 'gzip')])

    def not_found(self):
        self.get('404', 'files/none-%d.txt' % self.randint(0, 9))

    def abort(self):
        rel = self.pick(['files/huge.bin', 'files/big.txt'])
        self.get('abort', rel, limit=self.randint(1, 200000))

    def slow_reader(self):
        rel = self.pick(['files/huge.bin', 'files/big.txt'])
        t0 = now()
        try:
            conn = Conn(self.port, timeout=60, rcvbuf=16384)
        except OSError as e:
            self.failed_request('slow-reader', rel, t0, e)
            return
        conn.rate = 256 * 1024  # far above min_rate: never cut off
        self.get('slow-reader', rel, conn=conn)
        conn.close()

    def htstress(self):
        if not self.args.htstress:
            return
        with self.htstress_lock:
            if self.stop.is_set():
                return
            cmd = [self.args.htstress, '-n', '2000', '-c', '8', '-k',
                   '--timeout', '60', '--json',
                   'http://127.0.0.1:%d/stable/s.txt' % self.port]
            t0 = now()
            try:
                p = subprocess.run(cmd, capture_output=True, text=True,
                                   timeout=180)
            except subprocess.TimeoutExpired:
                self.stats.problem('error', 'htstress: over 180 s')
                return
            try:
                r = json.loads(p.stdout)
            except ValueError:
                self.stats.problem('error', 'htstress: %s' % (
                    p.stdout + p.stderr).strip()[:300])
                return
            self.htstress_runs += 1
            self.htstress_requests += r['good']
            with self.stats.lock:
                self.stats.served['htstress'] += r['good']
            bad = r['requests'] - r['good'] + r['errors']
            if bad:
                self.stats.problem('error', 'htstress: %d of %d failed '
                                   '(%.1f s from %.0f s): %s'
                                   % (bad, r['requests'], now() - t0,
                                      t0 - self.t_start, p.stdout.strip()))

    def loop(self, fn, pause):
        def run():
            while not self.stop.is_set():
                try:
                    fn()
                except Exception as e:  # a checker must not die quietly
                    self.stats.problem('error', '%s crashed: %r'
                                       % (fn.__name__, e))
                self.stop.wait(pause)
        t = threading.Thread(target=run, name=fn.__name__, daemon=True)
        t.start()
        return t

    # --- the faults ---------------------------------------------------------

    def guest(self, script, timeout=120):
        return ctl(self.args.ctl_port, script, timeout)

    def change(self, kind, script, changes=(), spans=()):
        """Runs a fault's shell text; changes: (rel, data or None) it
        makes, recorded from before it starts to after it ends, as spans
        (lists [t_from, None]) are.  True if it ran."""
        t_a = now()
        tokens = [self.h.begin(rel, data, t_a) for rel, data in changes]
        with self.h.lock:
            for span in spans:
                span[0] = t_a
        try:
            out, rc = self.guest('set -e\n' + script)
        except (OSError, RuntimeError, http.client.HTTPException) as e:
            out, rc = repr(e), -1
        t_b = now()
        for token in tokens:
            self.h.end(token, t_b)
        with self.h.lock:
            for span in spans:
                span[1] = t_b
        with open(os.path.join(self.out, 'faults.txt'), 'a') as f:
            f.write('%.2f %.2f %s exit %d: %s\n' % (
                t_a - self.t_start, t_b - self.t_start, kind, rc,
                script.replace('\n', '; ')))
        if rc != 0:
            self.stats.count(self.stats.fault_failures, kind)
            self.stats.problem('fault', '%s: exit %d: %s'
                               % (kind, rc, out[-300:]))
            return False
        self.stats.count(self.stats.faults, kind)
        return True

    def next_variant(self, rel):
        v = (self.variant[rel] + 1) % VARIANTS
        self.variant[rel] = v
        return v

    def fault(self, kind):
        if kind.startswith('dir-'):
            return self.fault_dir(kind)
        index = self.randint(0, len(FILES) - 1)
        rel = FILES[index][0]
        path = '/srv/www/' + rel
        where = self.where[rel]
        publish = 'cp /pool/%d.%d /srv/www/.tmp/new\n' \
            'mv -f /srv/www/.tmp/new ' + path
        # A file deleted or renamed away comes back first.
        if where == 'gone':
            v = self.next_variant(rel)
            if self.change('delete-recreate', publish % (index, v),
                           [(rel, self.pool[index, v])]):
                self.where[rel] = 'here'
        elif where == 'moved':
            data = self.h.current(rel + '.moved')
            if self.change('rename', 'mv %s.moved %s' % (path, path),
                           [(rel + '.moved', None), (rel, data)]):
                self.where[rel] = 'here'
        elif kind == 'rewrite-rename':
            v = self.next_variant(rel)
            self.change(kind, publish % (index, v),
                        [(rel, self.pool[index, v])])
        elif kind == 'rewrite-inplace':
            v = self.next_variant(rel)
            self.change(kind, 'dd if=/pool/%d.%d of=%s bs=65536 '
                        'conv=notrunc 2>/dev/null' % (index, v, path),
                        [(rel, self.pool[index, v])],
                        [self.h.new_span(self.h.inplace, rel)])
        elif kind == 'truncate':
            cur = self.h.current(rel)
            cut = self.randint(0, len(cur) // 2)
            self.change(kind, 'truncate -s %d %s' % (cut, path),
                        [(rel, cur[:cut])],
                        [self.h.new_span(self.h.truncated, rel)])
        elif kind == 'delete-recreate':
            if self.change(kind, 'rm ' + path, [(rel, None)]):
                self.where[rel] = 'gone'
        elif kind == 'rename':
            data = self.h.current(rel)
            if self.change(kind, 'mv %s %s.moved' % (path, path),
                           [(rel, None), (rel + '.moved', data)]):
                self.where[rel] = 'moved'

    def fault_dir(self, kind):
        if kind == 'dir-add' or not self.listed_added:
            self.listed_seq += 1
            name = 'added-%d%s' % (self.listed_seq,
                                   '' if self.listed_seq % 3 else '.d')
            with self.h.lock:
                self.h.listed_ever.add(name)
            p = '/srv/www/listed/' + name
            script = ('mkdir %s' % p if name.endswith('.d') else
                      'echo %s >%s' % (name, p))
            if self.change('dir-add', script + '\nchmod a+rX %s' % p):
                self.listed_added.append(name)
            return
        name = self.listed_added.pop(0)
        self.change('dir-remove', 'rm -r /srv/www/listed/%s' % name)

    def faults(self, period):
        i = 0
        while not self.stop.wait(period):
            try:
                self.fault(FAULT_KINDS[i % len(FAULT_KINDS)])
            except Exception as e:
                self.stats.problem('error', 'fault crashed: %r' % e)
            i += 1

    # --- unload and load under clients ---------------------------------------

    def insmod_args(self):
        return 'root=/srv/www port=%d timeout_ms=%d' % (
            self.args.guest_port, self.args.timeout_ms)

    def idle_clients(self, n):
        conns = []
        for _ in range(n):
            try:
                c = Conn(self.port, timeout=10)
                c.send(b'GET /stable/s.txt HTTP/1.1\r\nHost: soak\r\n')
                conns.append(c)  # half a request: waiting for the rest
            except OSError:
                pass
        return conns

    def add_proc_counts(self):
        """/proc/khttpd's counters (reset by each load) into the run's
        totals; its text."""
        out, _ = self.guest('cat /proc/khttpd')
        for name, value in re.findall(r'^(\w+) (\d+)$', out, re.M):
            if name != 'held_bytes':  # a level, not a count
                self.proc_totals[name] += int(value)
        return out

    def rmmod(self):
        """rmmod khttpd: (seconds it took, by the guest's clock, exit
        status, output).  The control channel's round trip is not
        counted: on a loaded host it alone took seconds."""
        t_a = now()
        try:
            out, rc = self.guest('read a _ </proc/uptime; rmmod khttpd; '
                                 'rc=$?; read b _ </proc/uptime; '
                                 'echo "took $a $b"; exit $rc', timeout=60)
        except (OSError, RuntimeError, http.client.HTTPException) as e:
            return now() - t_a, repr(e), ''
        m = re.search(r'took ([\d.]+) ([\d.]+)', out)
        took = float(m.group(2)) - float(m.group(1)) if m else now() - t_a
        return took, rc, out

    def cycle(self):
        """rmmod with clients connected, then insmod with the same
        parameters: (rmmod seconds, rmmod rc, insmod rc, answers after)."""
        with self.htstress_lock:  # htstress would count the gap as errors
            idle = self.idle_clients(4)
            try:
                self.add_proc_counts()
            except (OSError, RuntimeError, http.client.HTTPException):
                pass
            t_a = now()
            with self.h.lock:
                span = [t_a, None]
                self.h.unloaded.append(span)
            rm_s, rm_rc, _ = self.rmmod()
            # Every connection is closed by the unload.
            open_left = 0
            for c in idle:
                try:
                    c.sock.settimeout(5)
                    while c.sock.recv(65536):
                        pass
                except socket.timeout:
                    open_left += 1
                except OSError:
                    pass
                c.close()
            time.sleep(1)
            try:
                out, in_rc = self.guest('insmod /khttpd.ko ' +
                                        self.insmod_args())
                if in_rc:
                    in_rc = '%d: %s' % (in_rc, out[-200:])
            except (OSError, RuntimeError, http.client.HTTPException) as e:
                in_rc = repr(e)
            answered = False
            deadline = now() + 20
            while now() < deadline and not answered:
                try:
                    c = Conn(self.port, timeout=10)
                    c.send(request('/stable/s.txt'))
                    answered = c.response().status == 200
                    c.close()
                except (OSError, Closed):
                    time.sleep(0.5)
            with self.h.lock:
                span[1] = now()
        self.cycles.append((rm_s, rm_rc, in_rc, answered, open_left))
        print('soak-kernel: cycle %d: rmmod %.2f s (%s), insmod %s, '
              'answering %s, idle clients left open %d' % (
                  len(self.cycles), rm_s, rm_rc, in_rc,
                  'yes' if answered else 'NO', open_left), flush=True)

    def cycles_loop(self, period):
        while not self.stop.wait(period):
            try:
                self.cycle()
            except Exception as e:
                self.stats.problem('error', 'cycle crashed: %r' % e)

    # --- samples ---------------------------------------------------------

    def sample(self):
        t_a = now()
        out, _ = self.guest("grep -E '^(Slab|SUnreclaim):' /proc/meminfo; "
                            "grep khttpd /proc/slabinfo; cat /proc/uptime")
        t_b = now()
        # The CPU qemu got since the last sample, in cores, and the host's
        # load: a guest that answers slowly while qemu gets well under its
        # two vCPUs' worth was starved by the host, not stalled inside.
        cpu = self.qemu_cpu_s()
        with open('/proc/loadavg') as f:
            load = float(f.read().split()[0])
        t = (t_a + t_b) / 2
        cores = -1.0
        if self.clock and cpu >= 0 and self.clock[-1][1] >= 0:
            t_prev, cpu_prev = self.clock[-1][:2]
            cores = (cpu - cpu_prev) / max(1e-3, t - t_prev)
        self.clock.append((t, cpu, cores, load, t_b - t_a))
        kib = dict(re.findall(r'^(Slab|SUnreclaim):\s+(\d+)', out, re.M))
        with self.stats.lock:
            reqs = sum(self.stats.served.values())
        self.samples.append((now() - self.t_start, int(kib.get('Slab', 0)),
                             int(kib.get('SUnreclaim', 0)), reqs))
        self.slabinfo = [ln for ln in out.split('\n')
                         if ln.startswith('khttpd')]

    def qemu_cpu_s(self):
        try:
            with open(self.args.qemu_pidfile) as f:
                pid = int(f.read())
            with open('/proc/%d/stat' % pid) as f:
                fields = f.read().rsplit(')', 1)[1].split()
            return (int(fields[11]) + int(fields[12])) / \
                os.sysconf('SC_CLK_TCK')
        except (OSError, ValueError, TypeError, IndexError):
            return -1.0

    def sampler(self, period):
        while True:
            try:
                self.sample()
            except Exception as e:
                self.stats.problem('error', 'sample failed: %r' % e)
            if self.stop.wait(period):
                return

    # --- the run ----------------------------------------------------------

    def run(self):
        a = self.args
        print('soak-kernel: %s, %d s, khttpd port %d, cache check %.1f s '
              '(+%.1f s for the guest tick)' % (a.kernel, a.seconds,
                                                a.http_port, CACHE_CHECK_S,
                                                TICK_SLACK_S), flush=True)
        self.guest('dmesg -c >/dev/null')
        threads = [
            self.loop(self.new_connection, 0.05),
            self.loop(self.new_connection, 0.1),
            self.loop(self.pipelined, 0.1),
            self.loop(self.ranges, 0.1),
            self.loop(self.conditional, 0.2),
            self.loop(self.listing, 0.2),
            self.loop(self.gzipped, 0.1),
            self.loop(self.not_found, 0.3),
            self.loop(self.abort, 0.5),
            self.loop(self.slow_reader, 0.5),
            self.loop(self.htstress, 5),
        ]
        period = max(10, min(60, a.seconds / 30))
        for fn, arg in ((self.faults, 2.0),
                        (self.cycles_loop, max(20, a.seconds / 15)),
                        (self.sampler, period)):
            t = threading.Thread(target=fn, args=(arg,), daemon=True)
            t.start()
            threads.append(t)
        deadline = self.t_start + a.seconds
        next_note = now() + 60
        while now() < deadline:
            time.sleep(min(5, max(0, deadline - now())))
            if now() >= next_note:
                next_note += 60
                with self.stats.lock:
                    print('soak-kernel: %.0f s: %d responses checked, '
                          '%d faults, %d cycles, %d wrong bytes'
                          % (now() - self.t_start,
                             sum(self.stats.served.values()),
                             sum(self.stats.faults.values()),
                             len(self.cycles), self.stats.wrong),
                          flush=True)
        self.stop.set()
        for t in threads:
            t.join(timeout=120)
        stuck = [t.name for t in threads if t.is_alive()]
        return self.finish(stuck)

    def finish(self, stuck):
        s = self.stats
        checks = []  # (name, ok or None for skipped, detail)

        def check(name, ok, detail=''):
            checks.append((name, ok, detail))

        print('soak-kernel: ran %.0f s on %s' % (now() - self.t_start,
                                                 self.args.kernel))
        print('requests checked, by kind:')
        for k in sorted(set(s.served) | set(s.short) | set(s.gap)):
            print('  %-16s %7d whole  %5d cut short (a prefix)  %4d '
                  'refused or reset while unloaded' % (
                      k, s.served[k], s.short[k], s.gap[k]))
        print('htstress bursts: %d, %d requests' % (self.htstress_runs,
                                                    self.htstress_requests))
        print('torn reads during in-place rewrites (allowed): %d' % s.torn)
        print('zero-filled after truncation in place (known defect L4): %d'
              % s.zero_filled)
        print('wrong bytes: %d; unexpected statuses: %d; client errors: %d'
              % (s.wrong, s.bad_status, s.errors))
        print('faults injected (failed to inject):')
        for k in FAULT_KINDS:
            print('  %-16s %4d (%d)' % (k, s.faults[k], s.fault_failures[k]))
        print('load/unload cycles: %d; rmmod took %s s (guest clock)' % (
            len(self.cycles), ', '.join('%.2f' % c[0] for c in self.cycles)))
        for kind in ('new-connection', 'pipelined', 'range', 'conditional',
                     'listing-json', 'listing-html', 'gzip', '404', 'abort',
                     'slow-reader'):
            check('requests of kind %s served' % kind,
                  s.served[kind] + s.short[kind] > 0)
        if self.args.htstress:
            check('htstress bursts ran', self.htstress_runs > 0)
        check('no wrong bytes', s.wrong == 0, '%d' % s.wrong)
        check('no unexpected status', s.bad_status == 0, '%d' % s.bad_status)
        check('no client error outside unloads', s.errors == 0,
              '%d' % s.errors)
        if s.zero_filled:
            check('no zeros after truncation in place (known defect L4)',
                  None, '%d' % s.zero_filled)
        for k in FAULT_KINDS:
            check('fault %s injected and survived' % k,
                  s.faults[k] > 0 and not s.fault_failures[k],
                  '%d, %d failed' % (s.faults[k], s.fault_failures[k]))
        check('load/unload cycles ran', len(self.cycles) > 0)
        for i, (rm_s, rm_rc, in_rc, answered, left) in enumerate(self.cycles):
            check('cycle %d: rmmod within %.0f s, insmod, answering, no '
                  'connection left' % (i + 1, RMMOD_BOUND_S),
                  rm_rc == 0 and rm_s < RMMOD_BOUND_S and in_rc == 0 and
                  answered and left == 0,
                  'rmmod %.2f s exit %s, insmod %s, answering %s, %d left'
                  % (rm_s, rm_rc, in_rc, answered, left))
        check('every client thread ended', not stuck, ', '.join(stuck))
        # /proc/khttpd and a last sample, then the final unload.
        try:
            out = self.add_proc_counts()
            print('/proc/khttpd since the last load:')
            print('\n'.join('  ' + ln for ln in out.split('\n')))
            print('/proc/khttpd summed over the %d loads: %s' % (
                len(self.cycles) + 1, ', '.join(
                    '%s %d' % kv for kv in self.proc_totals.items())))
            self.sample()
        except Exception as e:
            check('/proc/khttpd read', False, repr(e))
        self.slab_check(check)
        rm_s, rc, out = self.rmmod()
        check('final rmmod within %.0f s' % RMMOD_BOUND_S,
              rc == 0 and rm_s < RMMOD_BOUND_S,
              'exit %s after %.2f s: %s' % (rc, rm_s, out[-200:]))
        try:
            log, _ = self.guest('dmesg')
        except Exception as e:
            log = 'dmesg failed: %r' % e
        with open(os.path.join(self.out, 'dmesg.txt'), 'w') as f:
            f.write(log)
        bad = [ln for ln in log.split('\n') if BAD_LOG.search(ln)]
        if self.args.serial and os.path.exists(self.args.serial):
            with open(self.args.serial, errors='replace') as f:
                bad += ['serial: ' + ln.rstrip() for ln in f
                        if BAD_LOG.search(ln)]
        print('kernel log: %d lines, %d bad' % (len(log.split('\n')),
                                                  len(bad)))
        check('kernel log: no BUG, WARNING, Oops, kmemleak, refcount_t, '
              'use-after-free, GPF, soft lockup, hung task', not bad,
              '\n'.join(bad[:20]))
        self.chart()
        passed = failed = skipped = 0
        for name, ok, detail in checks:
            if ok is None:
                skipped += 1
                print('skip %s: %s' % (name, detail))
            elif ok:
                passed += 1
                print('ok   %s' % name)
            else:
                failed += 1
                print('FAIL %s%s' % (name, ': ' + detail if detail else ''))
        if s.problems:
            print('first problems:')
            for p in s.problems[:20]:
                print('  ' + p)
        print('soak-kernel: %d passed, %d failed%s' % (
            passed, failed, ', %d skipped' % skipped if skipped else ''))
        return 1 if failed else 0

    def slab_check(self, check):
        n = len(self.samples)
        print('slab samples (s, Slab KiB, SUnreclaim KiB): %s' % ', '.join(
            '%.0f:%d/%d' % (t, a, b) for t, a, b, _ in self.samples))
        cl = [(t - self.t_start, c, ld, rt) for t, _, c, ld, rt
              in self.clock[1:] if c >= 0]
        if cl:
            low = min(cl, key=lambda x: x[1])
            print('qemu CPU (cores): mean %.2f, lowest %.2f (at %.0f s); '
                  'host load up to %.1f; control round trip up to %.1f s'
                  % (sum(x[1] for x in cl) / len(cl), low[1], low[0],
                     max(x[2] for x in cl), max(x[3] for x in cl)))
        if getattr(self, 'slabinfo', None):
            print('khttpd slab caches: ' + '; '.join(
                ' '.join(ln.split()[:3]) for ln in self.slabinfo))
        if n < 4:
            check('slab flat', False, 'only %d samples' % n)
            return
        q = n // 4
        first = max(b for _, _, b, _ in self.samples[:q])
        last = max(b for _, _, b, _ in self.samples[-q:])
        bound = first * (1 + FLAT_REL) + FLAT_KIB
        print('SUnreclaim: first quarter max %d KiB, last quarter max %d KiB'
              ' (bound %d)' % (first, last, bound))
        check('SUnreclaim flat (last quarter within 10%% + %d KiB of the '
              'first)' % FLAT_KIB, last <= bound,
              '%d KiB > %d KiB' % (last, bound))

    def chart(self):
        dat = os.path.join(self.out, 'soak-kernel.dat')
        with open(dat, 'w') as f:
            f.write('# seconds slab_kib sunreclaim_kib requests_per_s '
                    'qemu_cores host_load ctl_round_trip_s\n')
            prev = None
            for (t, slab, sunr, reqs), (_, _, cores, load, rt) in zip(
                    self.samples, self.clock):
                rate = 0 if prev is None or t <= prev[0] else \
                    max(0, (reqs - prev[1]) / (t - prev[0]))
                prev = (t, reqs)
                # NaN: no CPU figure yet (gnuplot leaves a gap).
                f.write('%.1f %d %d %.1f %s %.2f %.2f\n' % (
                    t, slab, sunr, rate,
                    '%.2f' % cores if cores >= 0 else 'NaN', load, rt))
        if not shutil.which('gnuplot'):
            print('chart: gnuplot missing; samples in %s' % dat)
            return
        png = os.path.join(self.out, 'soak-kernel.png')
        script = '\n'.join([
            "set terminal png size 1000,800", "set output '%s'" % png,
            "set multiplot layout 3,1 title 'khttpd soak (%s)'"
            % self.args.kernel,
            "set xlabel 'seconds'", "set grid",
            "plot '%s' using 1:($2/1024) with lines title 'Slab MiB', "
            "'' using 1:($3/1024) with lines title 'SUnreclaim MiB'" % dat,
            "plot '%s' using 1:4 with lines title 'checked responses/s'"
            % dat,
            "plot '%s' using 1:5 with lines title 'qemu CPU cores', "
            "'' using 1:6 with lines title 'host load', "
            "'' using 1:7 with lines title 'control round trip s'" % dat,
            "unset multiplot", ""])
        try:
            p = subprocess.run(['gnuplot'], input=script, text=True,
                               capture_output=True, timeout=60)
            print('chart: %s' % (png if p.returncode == 0 else
                                 'gnuplot failed: ' + p.stderr[:200]))
        except (OSError, subprocess.TimeoutExpired) as e:
            print('chart: gnuplot failed: %r' % e)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--stage', help='write the tree and pool into this '
                    'initramfs tree, and exit')
    ap.add_argument('--seconds', type=float, default=600)
    ap.add_argument('--http-port', type=int)
    ap.add_argument('--ctl-port', type=int)
    ap.add_argument('--guest-port', type=int, default=8081)
    ap.add_argument('--timeout-ms', type=int, default=5000)
    ap.add_argument('--pool', help='the initramfs tree --stage wrote')
    ap.add_argument('--serial', help='the guest serial log')
    ap.add_argument('--qemu-pidfile', help='for the CPU qemu gets')
    ap.add_argument('--out', default='build/soak-kernel')
    ap.add_argument('--kernel', default='?')
    ap.add_argument('--htstress')
    args = ap.parse_args()
    if args.stage:
        stage(args.stage)
        return 0
    if not (args.http_port and args.ctl_port and args.pool):
        ap.error('--http-port, --ctl-port and --pool are needed')
    return Soak(args).run()


if __name__ == '__main__':
    sys.exit(main())
