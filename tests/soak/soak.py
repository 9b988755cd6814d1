#!/usr/bin/python3
"""A soak of sehttpd: mixed load and faults for a while, every byte checked.

Starts sehttpd over a tree of its own (build/soak/run/www) with an access
log and --metrics, then for --seconds runs htstress bursts for bulk
keep-alive load and Python clients for what htstress does not do (new
connections, pipelining, ranges, conditional requests, listings,
compression, 404s, aborted downloads, slow readers and senders, malformed
requests from tests/fuzz/corpus, metrics scrapes), while faults are
injected on a schedule: files rewritten (renamed over and in place),
truncated, deleted and re-created, renamed; directory entries added and
removed while listed; the descriptor limit reached; the access log's file
system full; the log reopened by SIGHUP and SIGUSR1.

Every version each file had is kept (as the seed it is generated from), and
a body must equal one version whole; a body that ends short with the
connection closed must be a prefix of one.  Allowed, and counted apart: a
mix of versions read while a file was rewritten in place, a 404 around an
absence, new connections closed while the server is at its connection
limit.  A complete body with zeros where its file was truncated in place
while sent fails, unless --known-defect truncate-zeros.

At the end it prints its counts, the server's RSS and descriptors (which
must stay flat), any sanitizer report, and one line "soak: N passed, N
failed" over its checks; it writes the samples (soak.dat) and a gnuplot
chart (soak.png) into --out.  Exits 1 on any failed check.  Standard
library only.
"""

import argparse
import collections
import errno
import gzip
import hashlib
import json
import os
import random
import re
import resource
import shutil
import signal
import socket
import subprocess
import tempfile
import sys
import threading
import time
import urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, 'tests', 'integration'))

import httpraw  # noqa: E402
from httpraw import Conn, build_request  # noqa: E402
from target import ServerProcess  # noqa: E402
from test_metrics import parse_exposition  # noqa: E402

# A cached file is re-checked at most once a second: a response may show a
# change (or an absence) this much later than it happened.
STALE_S = 3.0
# The server's descriptor limit: low, so that idle clients can exhaust it.
SERVER_NOFILE = 256
IDLE_CLIENTS = SERVER_NOFILE + 64
LOG_FS_SIZE = '256k'
# Slack for "flat": relative to the first quarter's maximum, and absolute.
FLAT_REL = 0.10
FLAT_RSS_KIB = 6 * 1024
FLAT_FDS = 24
SANITIZER_RE = re.compile(r'ERROR: AddressSanitizer|ERROR: LeakSanitizer|'
                          r'runtime error:|SUMMARY: \w+Sanitizer|'
                          r'ThreadSanitizer|AddressSanitizer:DEADLYSIGNAL')
CLF_RE = re.compile(r'^\S+ \S+ \S+ \[[^\]]+\] "(?:[^"\\]|\\.)*" \d{3} '
                    r'(?:\d+|-) "(?:[^"\\]|\\.)*" "(?:[^"\\]|\\.)*"$')
# Statuses a malformed request may get; anything else (500, 502...) is a
# server error where it should have refused the request.
MALFORMED_OK = set(range(200, 500)) | {501, 505}


def now():
    return time.monotonic()


# --- file contents: every version is a seed, regenerated when needed -------

def generate(kind, seed, size):
    """The bytes of one version: text (compressible, a tag on every line so
    no two versions share a line) or random binary."""
    if kind == 'bin':
        return random.Random(seed).randbytes(size)
    words = ('lorem ipsum dolor sit amet consectetur adipiscing elit sed do '
             'eiusmod tempor incididunt ut labore et dolore magna').split()
    rnd = random.Random(seed)
    out, n, i = [], 0, 0
    while n < size:
        line = '%x %06d %s\n' % (seed, i, ' '.join(rnd.choices(words, k=9)))
        out.append(line)
        n += len(line)
        i += 1
    return ''.join(out).encode()[:size]


class Version:
    """One content a path had: generated from (kind, seed, size), cut to
    cut bytes by a truncation; from t_from until t_to (None: still)."""

    def __init__(self, kind, seed, size, cut=None, t_from=None):
        self.kind, self.seed, self.size = kind, seed, size
        self.cut = size if cut is None else cut
        self.t_from = now() if t_from is None else t_from
        self.t_to = None
        self.sha = hashlib.sha256(self.content()).digest()

    def content(self):
        return _content(self.kind, self.seed, self.size)[:self.cut]


_content_cache = collections.OrderedDict()
_content_lock = threading.Lock()


def _content(kind, seed, size):
    key = (kind, seed, size)
    with _content_lock:
        if key in _content_cache:
            _content_cache.move_to_end(key)
            return _content_cache[key]
    data = generate(kind, seed, size)
    with _content_lock:
        _content_cache[key] = data
        while len(_content_cache) > 48:
            _content_cache.popitem(last=False)
    return data


class PathState:
    """Everything a URL path has been: versions, absences, in-place
    writes (when a read may legitimately see a mix)."""

    def __init__(self):
        self.versions = []
        self.absent = []  # [t_from, t_to or None]
        self.inplace = []  # [t_from, t_to or None]
        self.truncated = []  # times of truncations in place

    def current(self):
        v = self.versions[-1] if self.versions else None
        return v if v and v.t_to is None else None


class Tree:
    """The served tree and the history of every file in it."""

    # (path, kind, size): faults touch these, never the stable ones.
    FILES = [('files/small.txt', 'txt', 300),
             ('files/page.html', 'txt', 9000),
             ('files/text.txt', 'txt', 120000),
             ('files/data.bin', 'bin', 70000),
             ('files/big.bin', 'bin', 1 << 21),
             ('files/big.txt', 'txt', 600000)]
    STABLE = [('stable/s.txt', 'txt', 20000), ('stable/s.bin', 'bin', 65536)]
    LISTED_STABLE = ['keep-%d.txt' % i for i in range(4)]

    def __init__(self, base):
        self.www = os.path.join(base, 'www')
        self.tmp = os.path.join(self.www, '.tmp')  # a dotfile: never served
        self.lock = threading.RLock()
        self.paths = {}
        self.seed = 1
        self.listed_names = set(self.LISTED_STABLE)  # ever in listed/
        self.listed_now = set(self.LISTED_STABLE)
        for d in ('files', 'stable', 'listed', '.tmp'):
            os.makedirs(os.path.join(self.www, d))
        for rel, kind, size in self.FILES + self.STABLE:
            self.publish(rel, kind, size)
        for name in self.LISTED_STABLE:
            with open(os.path.join(self.www, 'listed', name), 'w') as f:
                f.write(name)
        for root, dirs, files in os.walk(base):
            for n in dirs:
                os.chmod(os.path.join(root, n), 0o755)
            for n in files:
                os.chmod(os.path.join(root, n), 0o644)

    def state(self, rel):
        with self.lock:
            return self.paths.setdefault(rel, PathState())

    def next_seed(self):
        with self.lock:
            self.seed += 1
            return self.seed * 7919

    def _replaced(self, st, version, t):
        cur = st.current()
        if cur:
            cur.t_to = t
        if st.absent and st.absent[-1][1] is None:
            st.absent[-1][1] = t
        if version:
            st.versions.append(version)

    def publish(self, rel, kind, size):
        """A new version written to a temporary name and renamed over."""
        v = Version(kind, self.next_seed(), size)
        tmp = os.path.join(self.tmp, rel.replace('/', '_') + '.new')
        with open(tmp, 'wb') as f:
            f.write(v.content())
        os.chmod(tmp, 0o644)
        st = self.state(rel)
        with self.lock:
            v.t_from = now()
            os.rename(tmp, os.path.join(self.www, rel))
            self._replaced(st, v, now())
        return v

    def rewrite_in_place(self, rel):
        """New bytes over the old in the same file (same inode)."""
        st = self.state(rel)
        cur = st.current()
        v = Version(cur.kind, self.next_seed(), cur.size)
        data = v.content()
        with self.lock:
            span = [now(), None]
            st.inplace.append(span)
            v.t_from = now()
            st.versions.append(v)
        with open(os.path.join(self.www, rel), 'r+b') as f:
            f.write(data)
            f.truncate(len(data))
        with self.lock:
            t = now()
            span[1] = t
            cur.t_to = t
            # Several versions are current while the write runs: the old
            # until it ends, the new from its start.
            for old in st.versions[:-1]:
                if old.t_to is None:
                    old.t_to = t

    def truncate(self, rel):
        st = self.state(rel)
        cur = st.current()
        cut = random.randrange(0, max(1, cur.cut // 2))
        v = Version(cur.kind, cur.seed, cur.size, cut)
        with self.lock:
            v.t_from = now()
            # Its start: a client may see its effect before it returns.
            st.truncated.append(v.t_from)
            os.truncate(os.path.join(self.www, rel), cut)
            self._replaced(st, v, now())

    def delete(self, rel):
        st = self.state(rel)
        with self.lock:
            # A change counts from before its call (a client may see it
            # before the call returns) and what it replaced until after.
            t0 = now()
            os.unlink(os.path.join(self.www, rel))
            cur = st.current()
            if cur:
                cur.t_to = now()
            st.absent.append([t0, None])

    def rename(self, rel, new_rel):
        st, nst = self.state(rel), self.state(new_rel)
        cur = st.current()
        v = Version(cur.kind, cur.seed, cur.size, cur.cut)
        with self.lock:
            t0 = now()
            os.rename(os.path.join(self.www, rel),
                      os.path.join(self.www, new_rel))
            cur.t_to = now()
            st.absent.append([t0, None])
            v.t_from = t0
            self._replaced(nst, v, now())

    def listed_add(self, name):
        path = os.path.join(self.www, 'listed', name)
        with self.lock:
            self.listed_names.add(name)
            if name.endswith('/'):
                os.mkdir(path.rstrip('/'))
                os.chmod(path.rstrip('/'), 0o755)
            else:
                with open(path, 'w') as f:
                    f.write(name)
                os.chmod(path, 0o644)
            self.listed_now.add(name)

    def listed_remove(self, name):
        path = os.path.join(self.www, 'listed', name)
        with self.lock:
            if name.endswith('/'):
                os.rmdir(path.rstrip('/'))
            else:
                os.unlink(path)
            self.listed_now.discard(name)

    def absent_within(self, rel, t0, t1):
        st = self.state(rel)
        with self.lock:
            # Absent before its first version too (a name renamed to).
            if not st.versions or st.versions[0].t_from >= t0 - STALE_S:
                return True
            return any(a[0] <= t1 and (a[1] is None or a[1] >= t0 - STALE_S)
                       for a in st.absent)

    def inplace_within(self, rel, t0, t1):
        st = self.state(rel)
        with self.lock:
            return any(a[0] <= t1 and (a[1] is None or a[1] >= t0 - STALE_S)
                       for a in st.inplace)

    def truncated_within(self, rel, t0, t1):
        st = self.state(rel)
        with self.lock:
            return any(t0 - STALE_S <= t <= t1 for t in st.truncated)

    def versions(self, rel):
        st = self.state(rel)
        with self.lock:
            return list(st.versions)


# --- the bookkeeping -------------------------------------------------------

class Stats:
    def __init__(self):
        self.lock = threading.Lock()
        self.requests = collections.Counter()  # kind -> verified responses
        self.short = collections.Counter()  # kind -> cut short, a prefix
        self.torn = 0  # mixes read while a file was rewritten in place
        self.zero_filled = 0  # complete bodies with zeros for a truncation
        self.wrong = 0  # bodies equal to no version
        self.unexpected = collections.Counter()  # (kind, status) -> n
        self.refused = 0  # new connections closed while out of descriptors
        self.errors = collections.Counter()  # kind -> client-side failures
        self.problems = []  # first messages of each failure
        self.faults = collections.Counter()
        self.survived = collections.Counter()
        self.skipped = {}  # fault kind -> why

    def count(self, kind, n=1):
        with self.lock:
            self.requests[kind] += n

    def problem(self, what, msg):
        with self.lock:
            if sum(1 for p in self.problems if p[0] == what) < 5 or \
                    what == 'wrong bytes' and len(msg) > 200:
                self.problems.append((what, msg))

    def bad_bytes(self, kind, msg):
        with self.lock:
            self.wrong += 1
        self.problem('wrong bytes', '%s: %s' % (kind, msg))

    def bad_status(self, kind, status, msg):
        with self.lock:
            self.unexpected[(kind, status)] += 1
        self.problem('unexpected status', '%s %s: %s' % (kind, status, msg))

    def error(self, kind, msg):
        with self.lock:
            self.errors[kind] += 1
        self.problem('client error', '%s: %s' % (kind, msg))


class Soak:
    def __init__(self, args):
        self.args = args
        self.stuck = []
        self.stats = Stats()
        self.stop = threading.Event()
        self.out = os.path.abspath(args.out)
        # The tree and logs lie outside the checkout: the server reopens
        # its log as nobody, and a checkout may be under a directory only
        # its owner may search (CI clones into a 0700 one).
        self.run_dir = tempfile.mkdtemp(prefix='sehttpd-soak-')
        self.mounted = None
        self.fd_fault_until = 0.0  # new connections may be refused before
        self.log_lock = threading.Lock()  # rotation against the full-fs fault
        self.samples = []  # (t, rss KiB, fds, requests total, in fd fault)
        self.rnd = random.Random(args.seed)

    # --- set-up ---
    def setup(self):
        os.makedirs(self.out, exist_ok=True)
        for d in (self.out, self.run_dir):
            os.chmod(d, 0o755)
        self.tree = Tree(self.run_dir)
        # The server runs as nobody when started as root: its log
        # directories must let it create files (reopen happens after the
        # switch), and its binary must be where it can run it.
        self.log_dir = os.path.join(self.run_dir, 'log')
        self.disk_log_dir = os.path.join(self.log_dir, 'disk')
        self.full_dir = os.path.join(self.run_dir, 'logfull')
        for d in (self.log_dir, self.disk_log_dir, self.full_dir):
            os.makedirs(d, exist_ok=True)
            os.chmod(d, 0o777)
        self.log_path = os.path.join(self.log_dir, 'access.log')
        self.disk_log = os.path.join(self.disk_log_dir, 'access.log')
        self.full_log = os.path.join(self.full_dir, 'access.log')
        os.symlink(self.disk_log, self.log_path)
        try:
            subprocess.run(['mount', '-t', 'tmpfs', '-o',
                            'size=%s,mode=0777' % LOG_FS_SIZE, 'soak-log',
                            self.full_dir], check=True,
                           capture_output=True, timeout=10)
            self.mounted = self.full_dir
        except (OSError, subprocess.SubprocessError) as e:
            why = getattr(e, 'stderr', b'') or str(e).encode()
            self.stats.skipped['log-full'] = (
                'cannot mount a tmpfs: %s'
                % why.decode('utf-8', 'replace').strip())
        exe = os.path.join(self.run_dir, 'sehttpd')
        shutil.copyfile(self.args.sehttpd, exe)
        os.chmod(exe, 0o755)

        def low_nofile():
            resource.setrlimit(resource.RLIMIT_NOFILE,
                               (SERVER_NOFILE, SERVER_NOFILE))
        env_backup = dict(os.environ)
        # A small quarantine: ASan's default (256 MiB) fills slowly enough
        # to look like a leak for the whole of a short run, and even 16 MiB
        # filled over a minute past the flatness limit (CI, 30.8 -> 43.1
        # MiB).  2 MiB still catches a use of memory freed just before.
        os.environ.setdefault('ASAN_OPTIONS',
                              'abort_on_error=1:detect_leaks=1:'
                              'quarantine_size_mb=2:'
                              'thread_local_quarantine_size_kb=256')
        os.environ.setdefault('UBSAN_OPTIONS',
                              'halt_on_error=1:print_stacktrace=1')
        self.srv = ServerProcess(
            # A small cache fills within the first quarter of a short run,
            # so that what grows after is growth, not the cache warming.
            ['-t', '2', '--cache-size', '4', '--access-log', self.log_path,
             '--metrics', '127.0.0.1:0'],
            root=self.tree.www, exe=exe, preexec_fn=low_nofile,
            ready_timeout=30)
        os.environ.clear()
        os.environ.update(env_backup)
        self.host, self.port = self.srv.host, self.srv.port
        line = self.srv.wait_line(lambda s: 'metrics on' in s, 10)
        m = re.search(r'http://([^/]+):(\d+)/metrics', line)
        self.metrics_addr = (m.group(1), int(m.group(2)))
        self.corpus = []
        cdir = os.path.join(REPO, 'tests', 'fuzz', 'corpus')
        for name in sorted(os.listdir(cdir)):
            with open(os.path.join(cdir, name), 'rb') as f:
                self.corpus.append((name, f.read()))

    def unmount(self, d):
        if os.path.ismount(d):
            subprocess.run(['umount', '-l', d], capture_output=True)

    # --- clients ---
    def fd_fault(self):
        return now() < self.fd_fault_until

    def pick_file(self):
        rels = [r for r, _, _ in Tree.FILES]
        rel = self.rnd.choice(rels)
        if self.rnd.random() < 0.15:
            rel += '.moved'
        return rel

    def quote(self, rel):
        return '/' + urllib.parse.quote(rel)

    def verify(self, kind, rel, resp, t0, cut_short=False, rng=None):
        """Checks one file response; rng = (first, last) asked."""
        t1 = now()
        status = resp.status
        if status == 404:
            if not self.tree.absent_within(rel, t0, t1):
                self.stats.bad_status(kind, 404, rel + ' was never absent')
                return
            self.stats.count(kind)
            return
        body = resp.body
        enc = (resp.header('Content-Encoding') or '').lower()
        if status == 206 and rng:
            m = re.fullmatch(r'bytes (\d+)-(\d+)/(\d+)',
                             resp.header('Content-Range') or '')
            if not m:
                self.stats.bad_bytes(kind, '%s 206 with Content-Range %r'
                                     % (rel, resp.header('Content-Range')))
                return
            a, b, total = map(int, m.groups())
            for v in self.tree.versions(rel):
                if v.cut == total:
                    data = v.content()
                    if data[a:b + 1] == body and len(body) == b - a + 1:
                        self.stats.count(kind)
                        return
                    if cut_short and data[a:a + len(body)] == body:
                        self.stats.short[kind] += 1
                        return
            self.classify_mismatch(kind, rel, body, t0, t1, offset=a)
            return
        if status == 416 and rng:
            if any(v.cut <= rng[0] for v in self.tree.versions(rel)):
                self.stats.count(kind)
                return
        if status != 200:
            self.stats.bad_status(kind, status, rel)
            return
        if enc and not cut_short:
            try:
                body = decode(enc, body)
            except ValueError as e:
                self.stats.bad_bytes(kind, '%s %s body does not decode: %s'
                                     % (rel, enc, e))
                return
        sha = hashlib.sha256(body).digest()
        versions = self.tree.versions(rel)
        if any(v.sha == sha for v in versions):
            self.stats.count(kind)
            return
        if cut_short and not enc:
            if any(v.content().startswith(body) for v in versions):
                self.stats.short[kind] += 1
                return
        if cut_short and enc:
            self.stats.short[kind] += 1  # a cut compressed stream: no check
            return
        self.classify_mismatch(kind, rel, body, t0, t1)

    def classify_mismatch(self, kind, rel, body, t0, t1, offset=0):
        """A body equal to no version: allowed only as a mix of versions
        read while the file was being rewritten in place."""
        versions = self.tree.versions(rel)
        contents = [v.content()[offset:] for v in versions]
        mixed = mix_of(body, contents)
        if mixed and self.tree.inplace_within(rel, t0, t1):
            with self.stats.lock:
                self.stats.torn += 1
            return
        # Any truncation of it before the answer ended: a slow reader's
        # bytes may wait in the socket long after the request began (a
        # 2 MiB body zeroed from 1109770 on was missed with the window
        # from t0 alone).  Zeros come from nothing else in this tree.
        if self.tree.truncated_within(rel, 0.0, t1) and \
                any(zeroed_copy(body, c) for c in contents):
            # Complete, yet with zeros where the file was cut: bytes queued
            # by sendfile, zeroed by the truncation (see the report).
            with self.stats.lock:
                self.stats.zero_filled += 1
            c = next(c for c in contents if zeroed_copy(body, c))
            first = next(i for i in range(len(body)) if body[i] != c[i])
            self.stats.problem('zero-filled', '%s: %d bytes, zeros instead '
                               'of %d of them, the first at %d'
                               % (rel, len(body), sum(
                                   1 for x, y in zip(body, c) if x != y),
                                  first))
            return
        with self.stats.lock:
            n = self.stats.wrong
        if n >= 3:  # the first ones are told in full
            self.stats.bad_bytes(kind, '%s: %d bytes equal to no version'
                                 % (rel, len(body)))
            return
        dump = os.path.join(self.out, 'wrong-%d.bin' % n)
        with open(dump, 'wb') as f:
            f.write(body)
        same = [c for c in contents if len(c) >= len(body)]
        first = max((next((i for i in range(len(body))
                           if body[i] != c[i]), len(body)) for c in same),
                    default=-1)
        with self.tree.lock:
            spans = ['%.2f..%s' % (a - t0, '%.2f' % (b - t0) if b else '-')
                     for a, b in self.tree.paths[rel].inplace]
            others = [(r, v) for r, st in self.tree.paths.items()
                      for v in st.versions]
        # Where each 4 KiB page of it comes from: a version of this path
        # (by index), of another path, or nowhere.
        pages = collections.Counter()
        for i in range(0, len(body), 4096):
            page = body[i:i + 4096]
            src = next(('v%d' % k for k, c in enumerate(contents)
                        if c[i:i + 4096] == page), None)
            if src is None:
                src = next(('%s@%d' % (r, v.content().find(page))
                            for r, v in others if page in v.content()),
                           'nowhere')
                src = re.sub(r'@\d+$', '', src) if src != 'nowhere' else src
            pages[src] += 1
        self.stats.bad_bytes(kind, '%s (offset %d): %d bytes equal to no '
                             'version of the %d it had (lengths %s); %s of '
                             'them; longest prefix of one %d; asked at 0, '
                             'answered at %.2f s; in-place writes %s; '
                             'its 4 KiB pages from %s; versions (from, to, '
                             'length) %s; body in %s'
                             % (rel, offset, len(body), len(versions),
                                sorted(set(v.cut for v in versions)),
                                'a mix' if mixed else 'not a mix',
                                first, t1 - t0, spans,
                                dict(pages),
                                [('%.2f' % (v.t_from - t0), '%.2f' % (
                                    v.t_to - t0) if v.t_to else '-', v.cut)
                                 for v in versions], dump))

    def read(self, conn, method='GET'):
        """One response and whether its body was cut short by a close (a
        file truncated while sent must end so); ConnectionClosed when not
        even its head came."""
        resp = conn.read_response(method, body=False)
        cut = False
        if resp.framing == 'length':
            n = int(resp.header('Content-Length'))
            while len(conn.buf) < n and conn._fill():
                pass
            cut = len(conn.buf) < n
            resp.body = conn._take(min(n, len(conn.buf)))
        elif resp.framing == 'chunked':
            try:
                resp.body = conn.read_chunked(resp, httpraw.MAX_BODY)
            except httpraw.ConnectionClosed:
                resp.body, cut = b'', True
        elif resp.framing == 'close':
            resp.body = conn.read_until_close()
        return resp, cut

    def refused(self, e):
        """Whether a failed request is a new connection closed while the
        server is out of descriptors (expected then, and counted)."""
        if self.fd_fault() and (
                isinstance(e, (httpraw.ConnectionClosed, ConnectionError))
                or getattr(e, 'errno', None) == errno.ENOTCONN):
            with self.stats.lock:
                self.stats.refused += 1
            return True
        return False

    def get(self, kind, rel, headers=(), method='GET', conn=None):
        """One request, verified; returns the response (None on a
        failure)."""
        t0 = now()
        own = conn is None
        try:
            if own:
                conn = Conn(self.host, self.port)
            conn.send(build_request(method, self.quote(rel),
                                    headers=headers))
            resp, cut = self.read(conn, method)
        except (OSError, AssertionError) as e:
            if not self.refused(e):
                self.stats.error(kind, '%s: %s' % (rel, e))
            return None
        finally:
            if own and conn:
                conn.close()
        rng = None
        for h in headers:
            if isinstance(h, tuple) and h[0] == 'Range':
                a, b = h[1][6:].split('-')
                rng = (int(a), int(b))
        if method == 'GET' and resp.status != 304:
            self.verify(kind, rel, resp, t0, cut_short=cut, rng=rng)
        return resp

    def loop(self, fn, pause):
        def run():
            while not self.stop.is_set():
                try:
                    fn()
                except Exception as e:  # a checker must not die quietly
                    self.stats.error(fn.__name__, 'crashed: %r' % e)
                self.stop.wait(pause)
        t = threading.Thread(target=run, name=fn.__name__, daemon=True)
        t.start()
        return t

    def new_connections(self):
        self.get('new-connection', self.pick_file())

    def pipelined(self):
        rels = [self.pick_file() for _ in range(self.rnd.randint(2, 5))]
        t0 = now()
        try:
            with Conn(self.host, self.port) as c:
                c.send(b''.join(build_request('GET', self.quote(r))
                                for r in rels))
                for r in rels:
                    resp, cut = self.read(c)
                    self.verify('pipelined', r, resp, t0, cut_short=cut)
                    if cut:
                        break
        except (OSError, AssertionError) as e:
            if not self.refused(e):
                self.stats.error('pipelined', str(e))

    def ranges(self):
        rel = self.pick_file()
        cur = self.tree.state(rel).current()
        size = cur.cut if cur else 1000
        a = self.rnd.randrange(0, max(1, size))
        b = min(a + self.rnd.randrange(1, 70000), max(a, size - 1))
        self.get('range', rel, headers=[('Range', 'bytes=%d-%d' % (a, b))])

    def conditional(self):
        rel = self.pick_file()
        resp = self.get('conditional', rel)
        if not resp or resp.status != 200:
            return
        etag, lm = resp.header('ETag'), resp.header('Last-Modified')
        if self.rnd.random() < 0.5 and etag:
            h = [('If-None-Match', etag)]
        elif lm:
            h = [('If-Modified-Since', lm)]
        else:
            return
        resp2 = self.get('conditional', rel, headers=h)
        if resp2 and resp2.status == 304:
            # Not modified since a date: any version as old fits.  Not
            # matching an ETag: only the version that has it.
            if h[0][0] == 'If-None-Match' and resp2.header('ETag') != etag:
                self.stats.bad_status('conditional', 304,
                                      '%s: If-None-Match %s answered with '
                                      'ETag %s' % (rel, etag,
                                                   resp2.header('ETag')))
            else:
                self.stats.count('conditional-304')

    def listing(self):
        as_json = self.rnd.random() < 0.5
        h = [('Accept', 'application/json')] if as_json else []
        with self.tree.lock:
            before = set(self.tree.listed_now)
        try:
            with Conn(self.host, self.port) as c:
                c.send(build_request('GET', '/listed/', headers=h))
                resp = c.read_response()
        except (OSError, AssertionError) as e:
            if not self.refused(e):
                self.stats.error('listing', str(e))
            return
        if resp.status != 200:
            self.stats.bad_status('listing', resp.status, '/listed/')
            return
        if as_json:
            try:
                names = [e['name'] + ('/' if e['type'] == 'directory' else '')
                         for e in json.loads(resp.body)]
            except (ValueError, KeyError, TypeError) as e:
                self.stats.bad_bytes('listing', 'bad JSON listing: %s' % e)
                return
        else:
            names = [urllib.parse.unquote(n) for n in
                     re.findall(r'href="([^"?]+)"',
                                resp.body.decode('utf-8', 'replace'))
                     if not n.startswith(('..', '/', '?'))]
        with self.tree.lock:
            ever = set(self.tree.listed_names)
        listed = set(names)
        stray = listed - ever
        missing = set(Tree.LISTED_STABLE) - listed
        if stray or missing or len(names) != len(listed):
            self.stats.bad_bytes('listing', 'listing of /listed/: stray %s, '
                                 'missing %s, %d names (%d distinct); had '
                                 '%s' % (sorted(stray), sorted(missing),
                                         len(names), len(listed),
                                         sorted(before)))
            return
        self.stats.count('listing-json' if as_json else 'listing-html')

    def encodings(self):
        enc = self.rnd.choice(['gzip', 'br', 'zstd', 'gzip, br, zstd'])
        rel = self.rnd.choice(['files/text.txt', 'files/page.html',
                               'files/big.txt', 'stable/s.txt'])
        resp = self.get('encoding', rel, headers=[('Accept-Encoding', enc)])
        if resp and resp.status == 200:
            ce = resp.header('Content-Encoding')
            if ce:
                self.stats.count('encoding-' + ce)

    def not_found(self):
        self.get('404', 'files/none-%d.txt' % self.rnd.randrange(1 << 30))

    def aborts(self):
        """Reads part of a large file and goes (half by a reset)."""
        rel = self.rnd.choice(['files/big.bin', 'files/big.txt'])
        try:
            s = socket.create_connection((self.host, self.port), timeout=10)
            s.sendall(build_request('GET', self.quote(rel)))
            s.recv(self.rnd.randrange(1, 200000))
            if self.rnd.random() < 0.5:
                s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                             b'\x01\0\0\0\0\0\0\0')
            s.close()
            self.stats.count('aborted')
        except OSError as e:
            if not self.fd_fault():
                self.stats.error('aborted', str(e))

    def slow_reader(self):
        """A small receive buffer read at ~256 KiB/s, above --min-rate."""
        rel = self.rnd.choice(['files/big.bin', 'files/text.txt',
                               'files/big.txt'])
        t0 = now()
        try:
            with Conn(self.host, self.port, rcvbuf=8192) as c:
                c.send(build_request('GET', self.quote(rel)))
                resp = c.read_response(body=False)
                body = bytearray(c.buf)
                c.buf.clear()
                n = int(resp.header('Content-Length') or 0) \
                    if resp.status == 200 else 0
                cut = False
                while len(body) < n:
                    chunk = c.sock.recv(8192)
                    if not chunk:
                        cut = True
                        break
                    body += chunk
                    time.sleep(0.03)
                resp.body = bytes(body[:n]) if resp.status == 200 else b''
                if resp.status != 200:
                    c.buf.clear()
                self.verify('slow-reader', rel, resp, t0, cut_short=cut)
        except (OSError, AssertionError) as e:
            if not self.refused(e):
                self.stats.error('slow-reader', str(e))

    def slow_sender(self):
        rel = self.pick_file()
        t0 = now()
        req = build_request('GET', self.quote(rel),
                            headers=[('User-Agent', 'soak-slow-sender')])
        try:
            with Conn(self.host, self.port) as c:
                c.send_slowly(req, step=3, pause=0.02)
                resp = c.read_response()
                self.verify('slow-sender', rel, resp, t0)
        except (OSError, AssertionError) as e:
            if not self.refused(e):
                self.stats.error('slow-sender', str(e))

    def malformed(self):
        """A corpus file as sent, then half-closed: any response must be
        well framed and of an allowed status, until the server closes."""
        name, data = self.rnd.choice(self.corpus)
        try:
            with Conn(self.host, self.port, timeout=20) as c:
                c.send(data)
                try:
                    c.sock.shutdown(socket.SHUT_WR)
                except OSError:
                    pass  # already reset: the server refused it at once
                while True:
                    try:
                        resp = c.read_response()
                    except httpraw.ProtocolError as e:
                        if 'interim response 100' in str(e):
                            continue  # 100 Continue for Expect: the corpus'
                        raise
                    if resp.status not in MALFORMED_OK:
                        self.stats.bad_status('malformed', resp.status, name)
        except (httpraw.ConnectionClosed, ConnectionResetError):
            self.stats.count('malformed')  # answered all, then closed
        except (OSError, AssertionError) as e:
            if not self.refused(e):
                self.stats.error('malformed', '%s: %r' % (name, e))

    def scrape(self):
        """The server's metrics, checked against the text format."""
        with Conn(*self.metrics_addr) as c:
            c.send(build_request('GET', '/metrics'))
            resp = c.read_response()
        if resp.status != 200:
            raise AssertionError('/metrics answered %d' % resp.status)
        return parse_exposition(resp.body.decode())

    def metrics(self):
        try:
            samples = self.scrape()
        except (OSError, AssertionError) as e:
            self.stats.error('metrics', str(e))
            return
        prev = getattr(self, 'last_metrics', {})
        for key, v in samples.items():
            if key[0].endswith(('_total', '_count', '_bucket', '_sum')) \
                    and v < prev.get(key, 0):
                self.stats.bad_status('metrics', 200, 'counter %s went '
                                      'back from %s to %s'
                                      % (key, prev[key], v))
        self.last_metrics = samples
        self.stats.count('metrics')

    def htstress(self):
        """Bulk keep-alive load in bursts, on files no fault touches."""
        while not self.stop.is_set():
            url = 'http://%s:%d/%s' % (self.host, self.port, self.rnd.choice(
                ['stable/s.txt', 'stable/s.bin', 'listed/']))
            t0 = now()
            p = subprocess.run([self.args.htstress, '-k', '-c', '8', '-d',
                                '3', '--json', url], capture_output=True,
                               text=True)
            try:
                r = json.loads(p.stdout)
            except ValueError:
                self.stats.error('htstress', 'exit %d: %s' % (
                    p.returncode, p.stderr.strip()[-300:]))
                continue
            self.stats.count('htstress', r['good'])
            bad = r['requests'] - r['good'] + r['errors']
            if bad and not (self.fd_fault() or t0 < self.fd_fault_until):
                self.stats.error('htstress', '%d of %d failed (%s)' % (
                    bad, r['requests'], p.stdout.strip()))

    def sampler(self):
        pid = self.srv.proc.pid
        start = now()
        while not self.stop.wait(1.0):
            try:
                with open('/proc/%d/status' % pid) as f:
                    rss = int(re.search(r'VmRSS:\s+(\d+)', f.read()).group(1))
                fds = len(os.listdir('/proc/%d/fd' % pid))
            except (OSError, AttributeError):
                continue
            m = getattr(self, 'last_metrics', {})
            reqs = sum(v for k, v in m.items()
                       if k[0] == 'sehttpd_requests_total')
            cache = m.get(('sehttpd_cache_bytes', ''), 0) // 1024
            self.samples.append((now() - start, rss, fds, reqs,
                                 self.fd_fault() or self.in_fd_fault,
                                 cache))

    # --- faults ---
    in_fd_fault = False

    def probe(self, timeout=10):
        """True when the server is alive and serves a stable file whole."""
        deadline = now() + timeout
        while now() < deadline:
            if not self.srv.alive():
                return False
            try:
                with Conn(self.host, self.port, timeout=3) as c:
                    c.send(build_request('GET', '/stable/s.txt'))
                    resp = c.read_response()
                v = self.tree.state('stable/s.txt').current()
                if resp.status == 200 and \
                        hashlib.sha256(resp.body).digest() == v.sha:
                    return True
            except (OSError, AssertionError):
                pass
            time.sleep(0.2)
        return False

    def fault(self, kind, fn):
        with self.stats.lock:
            self.stats.faults[kind] += 1
        try:
            ok = fn() is not False and self.probe()
        except Exception as e:
            self.stats.problem('fault', '%s raised %r' % (kind, e))
            ok = False
        if ok:
            with self.stats.lock:
                self.stats.survived[kind] += 1
        else:
            self.stats.problem('fault', '%s not survived' % kind)

    def fault_file(self, what):
        rels = [r for r, _, _ in Tree.FILES]
        rel = self.rnd.choice(rels)
        t = self.tree
        if t.state(rel).current() is None:
            return
        if what == 'rewrite-rename':
            cur = t.state(rel).current()
            size = max(1, int(dict((r, s) for r, _, s in Tree.FILES)[rel] *
                              self.rnd.uniform(0.5, 1.5)))
            t.publish(rel, cur.kind, size)
        elif what == 'rewrite-inplace':
            t.rewrite_in_place(rel)
        elif what == 'truncate':
            t.truncate(rel)
            self.stop.wait(1.0)
            cur = t.state(rel).current()
            t.publish(rel, cur.kind, cur.size)  # back to whole
        elif what == 'delete-recreate':
            cur = t.state(rel).current()
            t.delete(rel)
            self.stop.wait(0.8)
            t.publish(rel, cur.kind, cur.size)
        elif what == 'rename':
            t.rename(rel, rel + '.moved')
            self.stop.wait(1.0)
            t.rename(rel + '.moved', rel)

    def fault_dir(self):
        names = []
        for i in range(3):
            name = 'churn-%d-%d%s' % (self.stats.faults['dir-churn'], i,
                                      '/' if i == 2 else '.txt')
            self.tree.listed_add(name)
            names.append(name)
            self.stop.wait(0.3)
        for name in names:
            self.tree.listed_remove(name)
            self.stop.wait(0.3)

    def fault_fds(self):
        """Idle clients past the descriptor limit; connections already open
        must go on working, and new ones be served once they leave."""
        kept = []
        idle = []
        try:
            for _ in range(3):
                c = Conn(self.host, self.port)
                kept.append(c)
                self.get('fd-limit', 'stable/s.bin', conn=c)
            refused0 = self.scrape().get(
                ('sehttpd_connections_refused_total', ''), 0)
            self.in_fd_fault = True
            self.fd_fault_until = now() + 3600
            for _ in range(IDLE_CLIENTS):
                s = socket.socket()
                s.settimeout(2)
                try:
                    s.connect((self.host, self.port))
                    idle.append(s)
                except OSError:
                    s.close()
            self.stop.wait(1.5)
            for c in kept:
                resp = self.get('fd-limit', 'stable/s.txt', conn=c)
                if not resp or resp.status != 200:
                    self.stats.problem('fault', 'a kept connection failed '
                                       'while out of descriptors')
                    return False
            refused = self.scrape().get(
                ('sehttpd_connections_refused_total', ''), 0) - refused0
            if refused <= 0:
                self.stats.problem('fault', 'fd-limit: no connection refused '
                                   'with %d idle clients: the limit was not '
                                   'reached' % len(idle))
                return False
        finally:
            for s in idle:
                s.close()
            for c in kept:
                c.close()
            self.fd_fault_until = now() + 2
            self.in_fd_fault = False

    def fault_log_full(self):
        """The log moves to a 256 KiB tmpfs, which is filled; the server
        must serve on, and log again once space is freed."""
        with self.log_lock:
            os.unlink(self.log_path)
            os.symlink(self.full_log, self.log_path)
            self.srv.send_signal(signal.SIGUSR1)
            self.stop.wait(0.5)
            opened = os.path.getsize(self.full_log)
            filler = os.path.join(self.full_dir, 'filler')
            try:
                with open(filler, 'wb') as f:
                    while True:
                        f.write(b'\0' * 4096)
                        f.flush()
            except OSError:
                pass
            self.stop.wait(2.0)
            if not self.probe():
                return False
            full = os.path.getsize(self.full_log)
            # Freed as an operator would: the filler and the log's lines
            # (the log alone may have filled it under load).
            os.unlink(filler)
            os.truncate(self.full_log, 0)
            size = 0
            grew = False
            for _ in range(50):
                self.get('log-full', 'stable/s.txt')
                if os.path.getsize(self.full_log) > size:
                    grew = True
                    break
                self.stop.wait(0.1)
            end = os.path.getsize(self.full_log)
            os.unlink(self.log_path)
            os.symlink(self.disk_log, self.log_path)
            self.srv.send_signal(signal.SIGHUP)
            self.stop.wait(0.5)
            os.unlink(self.full_log)
            if not grew:
                self.stats.problem('fault', 'log-full: nothing logged once '
                                   'space was freed (log %d bytes when '
                                   'reopened there, %d when full, %d at '
                                   'the end)' % (opened, full, end))
            return grew

    def fault_log_reopen(self, sig):
        """logrotate's way: rename, signal, the old file stops growing and
        every line in it is whole."""
        with self.log_lock:
            old = self.disk_log + '.1'
            os.rename(self.disk_log, old)
            self.srv.send_signal(sig)
            self.stop.wait(1.0)
            if not os.path.exists(self.disk_log):
                self.stats.problem('fault', 'log-reopen: no new log after %s'
                                   % signal.Signals(sig).name)
                return False
            size = os.path.getsize(old)
            self.stop.wait(0.5)
            if os.path.getsize(old) != size:
                self.stats.problem('fault', 'log-reopen: the old log still '
                                   'grows after %s' % signal.Signals(sig).name)
                return False
            with open(old, 'rb') as f:
                text = f.read().decode('utf-8', 'replace')
            os.unlink(old)
        lines = text.split('\n')
        if lines[-1] != '':
            self.stats.problem('fault', 'log-reopen: the log ends in a '
                               'partial line %r' % lines[-1][-200:])
            return False
        bad = [ln for ln in lines[:-1] if not CLF_RE.match(ln)]
        if bad:
            self.stats.problem('fault', 'log-reopen: %d malformed lines, '
                               'first %r' % (len(bad), bad[0][:300]))
            return False
        self.stats.count('log-lines', len(lines) - 1)

    def faults(self, period):
        kinds = ['rewrite-rename', 'rewrite-inplace', 'truncate',
                 'delete-recreate', 'rename', 'dir-churn', 'fd-limit',
                 'log-full']
        i = 0
        while not self.stop.wait(period):
            kind = kinds[i % len(kinds)]
            i += 1
            if kind in self.stats.skipped:
                continue
            if kind == 'dir-churn':
                self.fault(kind, self.fault_dir)
            elif kind == 'fd-limit':
                self.fault(kind, self.fault_fds)
            elif kind == 'log-full':
                self.fault(kind, self.fault_log_full)
            else:
                self.fault(kind, lambda: self.fault_file(kind))

    def log_reopens(self, period):
        sigs = [signal.SIGHUP, signal.SIGUSR1]
        i = 0
        while not self.stop.wait(period):
            sig = sigs[i % 2]
            i += 1
            self.fault('log-reopen-' + signal.Signals(sig).name[3:].lower(),
                       lambda: self.fault_log_reopen(sig))

    # --- the run ---
    def run(self):
        secs = self.args.seconds
        # Each fault kind at least twice in a short run: 8 kinds, a fault
        # every period seconds, most of them lasting 1 to 4 s.
        period = min(2.0, max(0.5, secs / 60.0))
        threads = [
            self.loop(self.new_connections, 0.01),
            self.loop(self.new_connections, 0.01),
            self.loop(self.pipelined, 0.01),
            self.loop(self.ranges, 0.01),
            self.loop(self.conditional, 0.02),
            self.loop(self.listing, 0.05),
            self.loop(self.encodings, 0.02),
            self.loop(self.not_found, 0.05),
            self.loop(self.aborts, 0.1),
            self.loop(self.slow_reader, 0.1),
            self.loop(self.slow_sender, 0.1),
            self.loop(self.malformed, 0.02),
            self.loop(self.metrics, 0.5),
        ]
        for fn, arg in ((self.htstress, None), (self.sampler, None),
                        (self.faults, period), (self.log_reopens, 3.0)):
            t = threading.Thread(target=fn, args=() if arg is None
                                 else (arg,), daemon=True)
            t.start()
            threads.append(t)
        deadline = now() + secs
        last_report = now()
        while now() < deadline and self.srv.alive():
            time.sleep(min(1.0, max(0.0, deadline - now())))
            if now() - last_report >= 60:
                last_report = now()
                with self.stats.lock:
                    print('soak: %.0f s, %d requests verified, %d wrong, %d '
                          'faults' % (secs - (deadline - now()),
                                      sum(self.stats.requests.values()),
                                      self.stats.wrong,
                                      sum(self.stats.faults.values())),
                          flush=True)
        self.stop.set()
        # Clients end within their I/O timeouts; one that does not is
        # stuck (on the server, or on a bug here) and fails the run.
        deadline = now() + 40
        for t in threads:
            t.join(max(0.0, deadline - now()))
        self.stuck = [t.name for t in threads if t.is_alive()]
        self.metrics()

    def finish(self):
        """Stops the server, prints the results; returns the failures."""
        rc = None
        if self.srv.alive():
            self.srv.send_signal(signal.SIGTERM)
        rc = self.srv.wait(20)
        if rc is None:
            self.srv.kill()
        self.unmount(self.full_dir)
        s = self.stats
        checks = []
        skipped = []

        def check(name, ok, detail=''):
            checks.append((name, ok, detail))

        print('requests verified by kind:')
        for k, v in sorted(s.requests.items()):
            print('  %-20s %d' % (k, v))
        for k, v in sorted(s.short.items()):
            print('  %-20s %d cut short with the connection closed (a '
                  'prefix of a version)' % (k, v))
        print('mixes read during in-place rewrites: %d' % s.torn)
        print('complete bodies zero-filled after an in-place truncation: %d'
              % s.zero_filled)
        print('new connections refused while out of descriptors: %d'
              % s.refused)
        in_fault = [x[2] for x in self.samples if x[4]]
        if in_fault:
            print('server descriptors during fd-limit faults: at most %d '
                  '(RLIMIT_NOFILE %d)' % (max(in_fault), SERVER_NOFILE))
        m = getattr(self, 'last_metrics', {})
        for name in ('sehttpd_connections_refused_total',
                     'sehttpd_access_log_dropped_lines_total'):
            print('%s %s' % (name, m.get((name, ''), '?')))
        print('faults injected (survived):')
        for k in sorted(set(s.faults) | set(s.skipped)):
            if k in s.skipped:
                print('  %-20s skipped: %s' % (k, s.skipped[k]))
            else:
                print('  %-20s %d (%d)' % (k, s.faults[k], s.survived[k]))
        check('server exited 0 on SIGTERM', rc == 0, 'exit %s' % rc)
        check('wrong bytes: 0', s.wrong == 0, '%d' % s.wrong)
        if 'truncate-zeros' in self.args.known_defect:
            if s.zero_filled:
                skipped.append('zero-filled bodies: %d, a known defect '
                               '(--known-defect truncate-zeros)'
                               % s.zero_filled)
        else:
            check('zero-filled bodies: 0', s.zero_filled == 0,
                  '%d' % s.zero_filled)
        check('unexpected statuses: 0', not s.unexpected,
              ', '.join('%s %s x%d' % (k[0], k[1], v)
                        for k, v in sorted(s.unexpected.items())))
        check('no client stuck', not self.stuck, ', '.join(self.stuck))
        check('client errors: 0', not s.errors,
              ', '.join('%s x%d' % kv for kv in sorted(s.errors.items())))
        kinds_seen = {'new-connection', 'pipelined', 'range', 'conditional',
                      'listing-json', 'listing-html', 'encoding', '404',
                      'aborted', 'slow-reader', 'slow-sender', 'malformed',
                      'metrics', 'htstress', 'log-lines'}
        missing = sorted(k for k in kinds_seen if not s.requests.get(k))
        check('every kind of request served', not missing,
              'none of ' + ', '.join(missing))
        need = max(1, min(2, int(self.args.seconds // 30)))
        for k in sorted(set(s.faults) | {'fd-limit', 'log-full'}):
            if k in s.skipped:
                continue
            check('fault %s: %d injected, all survived' % (k, need),
                  s.faults[k] >= need and s.survived[k] == s.faults[k],
                  '%d injected, %d survived' % (s.faults[k], s.survived[k]))
        check('rss flat', *self.flat(1, FLAT_RSS_KIB, 'KiB'))
        check('descriptors flat', *self.flat(2, FLAT_FDS, ''))
        err = self.srv.stderr_text()
        reports = [ln for ln in err.splitlines() if SANITIZER_RE.search(ln)]
        check('no sanitizer report', not reports, '; '.join(reports[:5]))
        if err.strip():
            print('server stderr (%d lines), last ones:' % len(
                err.splitlines()))
            for ln in err.splitlines()[-15:]:
                print('  ' + ln)
        if s.problems:
            print('problems (first of each kind):')
            for what, msg in s.problems:
                print('  %s: %s' % (what, msg[:2000]))
        self.chart()
        passed = sum(1 for c in checks if c[1])
        for name, ok, detail in checks:
            print('%s %s%s' % ('ok  ' if ok else 'FAIL', name,
                               ' (%s)' % detail if detail else ''))
        for why in skipped:
            print('skip %s' % why)
        print('soak: %d passed, %d failed%s' % (
            passed, len(checks) - passed,
            ', %d skipped' % len(skipped) if skipped else ''))
        return len(checks) - passed

    def flat(self, col, slack, unit):
        """The last quarter's maximum within FLAT_REL of the first
        quarter's, plus slack; samples inside an fd fault left out."""
        pts = [x for x in self.samples if not x[4]]
        if len(pts) < 8:
            return False, 'only %d samples' % len(pts)
        q = len(pts) // 4
        first = max(x[col] for x in pts[:q])
        last = max(x[col] for x in pts[-q:])
        # The absolute slack is for short runs: a long one has time to
        # show growth in proportion.
        limit = first * (1 + FLAT_REL) + slack * min(
            1.0, 300.0 / self.args.seconds)
        return last <= limit, 'first quarter max %d%s, last quarter max ' \
            '%d%s, limit %d%s' % (first, unit, last, unit, limit, unit)

    def chart(self):
        dat = os.path.join(self.out, 'soak.dat')
        with open(dat, 'w') as f:
            f.write('# seconds rss_kib fds requests_per_s fd_fault '
                    'cache_kib\n')
            prev = None
            for t, rss, fds, reqs, fault, cache in self.samples:
                rate = 0 if prev is None or t <= prev[0] else \
                    max(0, (reqs - prev[1]) / (t - prev[0]))
                prev = (t, reqs)
                f.write('%.1f %d %d %.0f %d %d\n' % (t, rss, fds, rate, fault,
                                                   cache))
        if not shutil.which('gnuplot'):
            print('chart: gnuplot missing; samples in %s' % dat)
            return
        png = os.path.join(self.out, 'soak.png')
        script = '\n'.join([
            "set terminal png size 1000,700",
            "set output '%s'" % png,
            "set multiplot layout 3,1 title 'sehttpd soak'",
            "set xlabel 'seconds'", "set grid",
            "plot '%s' using 1:($2/1024) with lines title 'RSS MiB', "
            "'' using 1:($6/1024) with lines title 'content cache MiB'" % dat,
            "plot '%s' using 1:3 with lines title 'descriptors'" % dat,
            "plot '%s' using 1:4 with lines title 'requests/s'" % dat,
            "unset multiplot", ""])
        p = subprocess.run(['gnuplot'], input=script, text=True,
                           capture_output=True, timeout=60)
        print('chart: %s' % (png if p.returncode == 0 else
                             'gnuplot failed: ' + p.stderr.strip()[:200]))


def decode(enc, body):
    """The body a Content-Encoding stands for."""
    if enc == 'gzip':
        try:
            return gzip.decompress(body)
        except (OSError, EOFError) as e:
            raise ValueError(str(e))
    tool = {'br': 'brotli', 'zstd': 'zstd'}.get(enc)
    if not tool:
        raise ValueError('unexpected coding %r' % enc)
    if not shutil.which(tool):
        raise ValueError('no %s tool to check it' % tool)
    p = subprocess.run([tool, '-d', '-c'], input=body, capture_output=True,
                       timeout=30)
    if p.returncode != 0:
        raise ValueError(p.stderr.decode('utf-8', 'replace').strip())
    return p.stdout


def zeroed_copy(body, c):
    """Whether body is c (as long) with some bytes zero instead."""
    if len(c) < len(body) or not body.count(0):
        return False
    for i in range(0, len(body), 4096):
        page, want = body[i:i + 4096], c[i:i + 4096]
        if page != want and any(x and x != y for x, y in zip(page, want)):
            return False
    return True


def mix_of(body, candidates):
    """Whether each 64-byte block of body (each byte, where blocks differ)
    equals the same bytes of one of the candidates."""
    for i in range(0, len(body), 64):
        block = body[i:i + 64]
        if any(c[i:i + 64] == block for c in candidates):
            continue
        for j, b in enumerate(block):
            if not any(len(c) > i + j and c[i + j] == b for c in candidates):
                return False
    return True


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--seconds', type=float, default=1800)
    ap.add_argument('--sehttpd', default=os.path.join(REPO, 'build/sehttpd'))
    ap.add_argument('--htstress', default=os.path.join(REPO,
                                                       'build/htstress'))
    ap.add_argument('--out', default=os.path.join(REPO, 'build/soak'))
    ap.add_argument('--seed', type=int, default=None)
    ap.add_argument('--known-defect', action='append', default=[],
                    choices=['truncate-zeros'],
                    help='count this defect as a skipped check, not a '
                    'failure (truncate-zeros: complete bodies with zeros '
                    'for a file truncated in place while sent)')
    args = ap.parse_args()
    if args.seed is None:
        args.seed = int(time.time())
    print('soak: %.0f s against %s (seed %d)' % (args.seconds, args.sehttpd,
                                                  args.seed), flush=True)
    soak = Soak(args)
    try:
        try:
            soak.setup()
        except BaseException:
            soak.unmount(os.path.join(soak.run_dir, 'logfull'))
            raise
        try:
            soak.run()
        finally:
            failed = soak.finish()
    finally:
        soak.unmount(os.path.join(soak.run_dir, 'logfull'))
        shutil.rmtree(soak.run_dir, ignore_errors=True)
    sys.exit(1 if failed else 0)


if __name__ == '__main__':
    main()
