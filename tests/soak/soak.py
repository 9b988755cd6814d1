#!/usr/bin/python3
"""A soak of sehttpd: mixed load and faults for a while, every byte checked.

Starts four sehttpd instances over one tree of its own (in a temporary
directory): the main one (cleartext, an access log, --metrics), one serving
HTTPS (--tls-cert/--tls-key: TLS is global to an instance), one behind
--proxy-protocol (global too, and exclusive of TLS) and one started as
systemd starts it, on a listening socket the soak holds (LISTEN_FDS), which
is restarted.  Then for --seconds it runs htstress bursts on the main one
for bulk keep-alive load, and Python clients for what htstress does not do:
on the main one new connections, pipelining, ranges, conditional requests,
listings, compression, 404s, aborted downloads, slow readers and senders,
malformed requests from tests/fuzz/corpus, metrics scrapes and HTTP/2 by
prior knowledge; over HTTPS keep-alive GETs, ranges and conditionals, and
HTTP/2 by ALPN; with v1 and v2 PROXY headers the same, and malformed or
missing headers, which must be refused and counted in that instance's
metrics; on the restarting one keep-alive clients, slow readers and HTTP/2.
HTTP/2 connections carry several streams at once, some cancelled mid-body
(RST_STREAM CANCEL).

Faults are injected on schedules: files rewritten (renamed over and in
place), truncated, deleted and re-created, renamed; directory entries added
and removed while listed; the descriptor limit reached; the access log's
file system full; the log reopened by SIGHUP and SIGUSR1 (all on the main
instance); the certificate swapped and reloaded by SIGHUP every 3 s
(cert-reload: once the new one was first seen, every handshake begun
CERT_GRACE_S later must present it, and none may fail); a restart (a new
instance on the held socket, then SIGTERM to the old one, which drains: no
connection is ever refused, the old one exits 0 within its drain) and a
drain (the same with slow readers in flight on the old one: those that can
finish within --drain-timeout do, whole; one that cannot is cut after it,
with a prefix).

Every version each file had is kept (as the seed it is generated from), and
a body must equal one version whole; a body that ends short with the
connection closed must be a prefix of one.  Allowed, and counted apart: a
mix of versions read while a file was rewritten in place, a 404 around an
absence, new connections closed while the main instance is at its
connection limit, requests a draining instance closed unanswered (an idle
kept-alive connection, HTTP/2 streams past its GOAWAY).  A complete body
with zeros where its file was truncated in place while sent fails, unless
--known-defect truncate-zeros.

At the end it prints its counts, the faults injected and survived per kind,
each instance's RSS and descriptors (which must stay flat; for the
restarting one, the peak of each of its processes), any sanitizer report of
any process, and one line "soak: N passed, N failed" over its checks; it
writes the main instance's samples (soak.dat) and a gnuplot chart
(soak.png) into --out.  Exits 1 on any failed check, and at once without
python3-h2 (Debian's, under /usr/bin/python3).  Standard library and
python3-h2 only.
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
import ssl
import struct
import subprocess
import tempfile
import sys
import threading
import time
import traceback
import urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, 'tests', 'integration'))

import httpraw  # noqa: E402
from httpraw import Conn, build_request  # noqa: E402
from target import LISTEN_RE, ServerProcess  # noqa: E402
from test_metrics import parse_exposition  # noqa: E402
from test_http2 import pump_h2  # noqa: E402
from test_tls import make_ca, make_cert  # noqa: E402

try:
    import h2.config
    import h2.connection
    import h2.errors
    import h2.events
    import h2.exceptions
    HAVE_H2 = True
except ImportError:
    HAVE_H2 = False

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
# The restarting instance's drain, and a slow reader's pace that outlasts
# it on stable/big.bin (4 MiB at 8 KiB per 0.05 s: ~25 s).
DRAIN_S = 2.0
# After a SIGHUP's new certificate was first seen, every handshake begun
# this much later must present it.
CERT_GRACE_S = 0.2
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
    # stable/mid.bin is read in flight through a drain; big.bin is long
    # enough that a slow reader outlasts it.
    STABLE = [('stable/s.txt', 'txt', 20000), ('stable/s.bin', 'bin', 65536),
              ('stable/mid.bin', 'bin', 256 << 10),
              ('stable/big.bin', 'bin', 4 << 20)]
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


# --- the servers and how clients reach them --------------------------------

class Endpoint:
    """Where a client connects: an instance's address, TLS context (None:
    cleartext) and whether a PROXY header must come first."""

    def __init__(self, name, host, port, tls=None, proxy=False):
        self.name, self.host, self.port = name, host, port
        self.tls, self.proxy = tls, proxy
        self.seq = 0

    def kind(self, kind):
        """The main instance's kinds keep their names; the others' are
        named after their instance."""
        return kind if self.name == 'main' else '%s:%s' % (self.name, kind)

    def connect(self, rcvbuf=None, timeout=httpraw.IO_TIMEOUT, tls=None):
        t_open = now()
        c = Conn(self.host, self.port, timeout=timeout, rcvbuf=rcvbuf,
                 tls=tls or self.tls,
                 server_hostname='localhost' if self.tls else None)
        c.t_open = t_open  # a drain excuses connections opened before it
        if self.proxy:
            self.seq += 1
            c.send(proxy_header(self.seq))
        return c


def proxy_header(n):
    """A valid PROXY header, v1 or v2 by turns, from a made-up client."""
    src, sport = '192.0.2.%d' % (n % 250 + 1), 1024 + n % 60000
    if n % 2:
        return ('PROXY TCP4 %s 127.0.0.1 %d 80\r\n' % (src, sport)).encode()
    return V2_SIG + b'\x21\x11' + struct.pack(
        '>H4s4sHH', 12, socket.inet_aton(src), socket.inet_aton('127.0.0.1'),
        sport, 80)


V2_SIG = b'\r\n\r\n\x00\r\nQUIT\n'
# Headers --proxy-protocol must refuse (closing without an answer).
BAD_PROXY = [b'PROXY TCP4 192.0.2.1 127.0.0.1 1\r\n',
             b'PROXY TCP4 192.0.2.999 127.0.0.1 1 80\r\n',
             b'PROXY TCP9 192.0.2.1 127.0.0.1 1 80\r\n',
             V2_SIG + b'\x31\x11\x00\x0c' + bytes(12),
             V2_SIG + b'\x21\x11\x00\x0b' + bytes(11),
             b'']  # no header at all: the request comes first


class ActivatedServer(ServerProcess):
    """sehttpd started as systemd starts it: the listening socket (held by
    the soak, so that it never stops listening) as descriptor 3 with
    LISTEN_PID and LISTEN_FDS; env set in the child only, since other
    threads start processes meanwhile."""

    def __init__(self, args, root, exe, listener, env):
        self.cmd = [exe] + list(args) + [root]
        self.lines = []
        self.cond = threading.Condition()
        self.stdout_closed = False
        self.err = tempfile.TemporaryFile()
        fd = listener.fileno()

        def as_systemd():
            os.dup2(fd, 3)  # inheritable, unlike fd
            os.environ['LISTEN_PID'] = str(os.getpid())
            os.environ['LISTEN_FDS'] = '1'
            os.environ.update(env)
        self.proc = subprocess.Popen(self.cmd, stdin=subprocess.DEVNULL,
                                     stdout=subprocess.PIPE, stderr=self.err,
                                     close_fds=False, preexec_fn=as_systemd)
        self.reader = threading.Thread(target=self._read_stdout, daemon=True)
        self.reader.start()
        self.exit_code = None
        try:
            self.listen_line = self.wait_line(
                lambda s: 'listening on' in s, 30)
        except AssertionError:
            self.kill()
            raise
        m = LISTEN_RE.search(self.listen_line)
        self.host, self.port = m.group(1).strip('[]'), int(m.group(2))


class DrainingH2Connection(h2.connection.H2Connection if HAVE_H2
                           else object):
    """h2's client connection, but one that reads on after a graceful
    GOAWAY (NO_ERROR: a drain), as RFC 9113 6.8 lets the streams it
    covers finish; h2 takes any GOAWAY for the end and would refuse
    their remaining frames as protocol errors."""

    def _receive_goaway_frame(self, frame):
        frames, events = super()._receive_goaway_frame(frame)
        if frame.error_code == 0:
            self.state_machine.state = \
                h2.connection.ConnectionState.CLIENT_OPEN
        return frames, events


class H2Conn:
    """An HTTP/2 client connection (python3-h2, which checks every frame
    the server sends) with several streams open at once."""

    def __init__(self, ep, tls=None):
        self.conn = ep.connect(tls=tls)
        self.sock = self.conn.sock
        if tls is not None:
            alpn = self.sock.selected_alpn_protocol()
            if alpn != 'h2':
                self.conn.close()
                raise AssertionError('ALPN chose %r, not h2' % alpn)
        self.scheme = 'https' if tls else 'http'
        self.h2 = DrainingH2Connection(
            config=h2.config.H2Configuration(client_side=True,
                                             header_encoding='latin-1'))
        self.h2.initiate_connection()
        self.flush()
        self.streams = {}  # sid -> dict(rel, status, headers, body, ...)
        self.eof = False

    def close(self):
        self.conn.close()

    def flush(self):
        data = self.h2.data_to_send()
        if data:
            self.sock.sendall(data)

    def request(self, rel, path):
        sid = self.h2.get_next_available_stream_id()
        self.streams[sid] = dict(rel=rel, status=None, headers={},
                                 body=bytearray(), ended=False, reset=None,
                                 cancel_at=None, t0=now())
        self.h2.send_headers(sid, [(':method', 'GET'),
                                   (':scheme', self.scheme),
                                   (':authority', 'localhost'),
                                   (':path', path)], end_stream=True)
        self.flush()
        return sid

    def done(self, s):
        return s['ended'] or s['reset'] is not None

    def pump(self, timeout=httpraw.IO_TIMEOUT):
        """Until every stream ended, was reset, or the connection did."""
        return pump_h2(self, lambda: all(self.done(s)
                                         for s in self.streams.values()),
                       timeout)

    def on_event(self, ev):
        E = h2.events
        s = self.streams.get(getattr(ev, 'stream_id', None))
        if isinstance(ev, E.DataReceived):
            self.h2.acknowledge_received_data(ev.flow_controlled_length,
                                              ev.stream_id)
        if s is None or s['reset'] is not None:
            return  # a stream we cancelled: what still comes is dropped
        if isinstance(ev, E.ResponseReceived):
            s['headers'] = {k.lower(): v for k, v in ev.headers}
            s['status'] = int(s['headers'][':status'])
        elif isinstance(ev, E.DataReceived):
            s['body'] += ev.data
            if s['cancel_at'] is not None and len(s['body']) >= s['cancel_at']:
                # An aborting client: RST_STREAM CANCEL mid-body.  Unless
                # its END_STREAM came in the same read: h2 has processed
                # every frame of it before we see the first event.
                s['cancel_at'] = None
                try:
                    self.h2.reset_stream(ev.stream_id,
                                         h2.errors.ErrorCodes.CANCEL)
                    s['reset'] = 'cancelled'
                except h2.exceptions.StreamClosedError:
                    pass
        elif isinstance(ev, E.StreamEnded):
            s['ended'] = True
        elif isinstance(ev, E.StreamReset):
            s['reset'] = ev.error_code
        elif isinstance(ev, E.InformationalResponseReceived):
            raise AssertionError('unexpected 1xx: %r' % ev)
        elif isinstance(ev, E.ConnectionTerminated):
            self.goaway = (ev.error_code, ev.last_stream_id)

    goaway = None


class H2Response:
    """What verify() reads of a response, for an HTTP/2 stream."""

    def __init__(self, s):
        self.status, self.headers, self.body = s['status'], s['headers'], \
            bytes(s['body'])

    def header(self, name):
        return self.headers.get(name.lower())


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
        self.drain_closed = collections.Counter()  # closed unanswered by
        # a draining instance, by what the client saw
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
        self.other_samples = collections.defaultdict(list)  # name -> (rss,
        # fds), the TLS and PROXY instances
        self.act_peaks = collections.OrderedDict()  # pid -> [rss, fds]
        self.drains = []  # [t SIGTERM, t exited or None], restarting one
        self.act_exits = []  # exit statuses of its instances
        self.act_lock = threading.Lock()
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
        self.make_certs()
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
        # HTTPS is global to an instance (as is --proxy-protocol, which
        # TLS excludes): each is an instance of its own over the same tree.
        self.tls_srv = ServerProcess(
            ['-t', '1', '--cache-size', '4', '--tls-cert', self.cert_path,
             '--tls-key', self.key_path], root=self.tree.www, exe=exe,
            ready_timeout=30)
        self.proxy_srv = ServerProcess(
            ['-t', '1', '--cache-size', '4', '--proxy-protocol',
             '--metrics', '127.0.0.1:0'], root=self.tree.www, exe=exe,
            ready_timeout=30)
        # The restarting instance is a fourth one rather than the main:
        # restarts every few seconds would reset the main's RSS and
        # descriptors, so that a leak could never show in them.  Its
        # socket is held here, as systemd holds a .socket unit's.
        self.act_listener = socket.socket()
        self.act_listener.bind(('127.0.0.1', 0))
        self.act_listener.listen(128)
        self.act_env = {k: os.environ[k] for k in ('ASAN_OPTIONS',
                                                   'UBSAN_OPTIONS')}
        self.act_exe = exe
        self.act = self.start_act()
        self.act_all = [self.act]
        os.environ.clear()
        os.environ.update(env_backup)
        self.host, self.port = self.srv.host, self.srv.port
        self.metrics_addr = self.metrics_of(self.srv)
        self.proxy_metrics_addr = self.metrics_of(self.proxy_srv)
        self.main_ep = Endpoint('main', self.host, self.port)
        self.tls_ep = Endpoint('tls', self.tls_srv.host, self.tls_srv.port,
                               tls=self.tls_context(['http/1.1']))
        self.tls_h2 = self.tls_context(['h2'])
        self.proxy_ep = Endpoint('proxy', self.proxy_srv.host,
                                 self.proxy_srv.port, proxy=True)
        self.act_ep = Endpoint('act', *self.act_listener.getsockname())
        self.corpus = []
        cdir = os.path.join(REPO, 'tests', 'fuzz', 'corpus')
        for name in sorted(os.listdir(cdir)):
            with open(os.path.join(cdir, name), 'rb') as f:
                self.corpus.append((name, f.read()))

    def metrics_of(self, srv):
        line = srv.wait_line(lambda s: 'metrics on' in s, 10)
        m = re.search(r'http://([^/]+):(\d+)/metrics', line)
        return (m.group(1), int(m.group(2)))

    def make_certs(self):
        """Two certificates for localhost from one CA, told apart by their
        fingerprints; the served pair is a copy of one of them."""
        d = os.path.join(self.run_dir, 'tls')
        os.makedirs(d)
        os.chmod(d, 0o755)
        make_ca(d)
        self.cert_fp = {}
        for name in ('a', 'b'):
            make_cert(d, name, ['DNS:localhost', 'IP:127.0.0.1'])
            with open(os.path.join(d, name + '.leaf')) as f:
                der = ssl.PEM_cert_to_DER_cert(f.read())
            self.cert_fp[name] = hashlib.sha256(der).hexdigest()
        self.tls_dir = d
        self.ca_path = os.path.join(d, 'ca.pem')
        self.cert_path = os.path.join(d, 'server.pem')
        self.key_path = os.path.join(d, 'server.key')
        self.install_cert('a')
        self.cert_initial = self.cert_fp['a']
        self.cert_lock = threading.Lock()
        self.reloads = []  # [t signalled, t strict or None, old fp, new fp]

    def install_cert(self, name):
        for ext, dst in (('.pem', self.cert_path), ('.key', self.key_path)):
            tmp = dst + '.new'
            shutil.copyfile(os.path.join(self.tls_dir, name + ext), tmp)
            os.chmod(tmp, 0o644)  # read as nobody on a reload
            os.rename(tmp, dst)
        self.cert_cur = name

    def tls_context(self, alpn):
        ctx = ssl.create_default_context(cafile=self.ca_path)
        ctx.set_alpn_protocols(alpn)
        return ctx

    def start_act(self):
        return ActivatedServer(
            ['-t', '1', '--cache-size', '4', '--drain-timeout',
             str(DRAIN_S)], self.tree.www, self.act_exe, self.act_listener,
            self.act_env)

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
        truncated = self.tree.truncated_within(rel, 0.0, t1)
        if truncated and any(zeroed_copy(body, c) for c in contents):
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
        # The same, read while it was also rewritten in place: a mix of
        # versions where it is not zeros.
        if truncated and self.tree.inplace_within(rel, t0, t1) and \
                body.count(bytes(4096)) and \
                mix_of(body, contents + [bytes(len(body))]):
            with self.stats.lock:
                self.stats.zero_filled += 1
            self.stats.problem('zero-filled', '%s: %d bytes, a mix of '
                               'versions (rewritten in place) with %d pages '
                               'of zeros' % (rel, len(body),
                                             body.count(bytes(4096))))
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

    def refused(self, e, ep=None, t_open=None, what=None):
        """Whether a failed request is a new connection closed while the
        server is out of descriptors (expected then, and counted), or one
        the restarting instance closed in its drain."""
        if ep is not None and ep.name == 'act':
            return self.closed_in_drain(e, t_open, what)
        if ep is not None and ep.name != 'main':
            return False
        if self.fd_fault() and (
                isinstance(e, (httpraw.ConnectionClosed, ConnectionError))
                or getattr(e, 'errno', None) == errno.ENOTCONN):
            with self.stats.lock:
                self.stats.refused += 1
            return True
        return False

    def get(self, kind, rel, headers=(), method='GET', conn=None, ep=None):
        """One request, verified; returns the response (None on a
        failure)."""
        t0 = now()
        own = conn is None
        try:
            if own:
                conn = (ep or self.main_ep).connect()
            conn.send(build_request(method, self.quote(rel),
                                    headers=headers))
            resp, cut = self.read(conn, method)
        except (OSError, AssertionError) as e:
            # Told apart: a request on a new connection, or a later one
            # on a kept-alive connection (which a drain closes when idle).
            what = 'a later request on a kept-alive connection' \
                if getattr(conn, 'served', 0) else \
                'the first request on a connection'
            if not self.refused(e, ep, getattr(conn, 't_open', t0), what):
                self.stats.error(kind, '%s: %s' % (rel, e))
            return None
        finally:
            if own and conn:
                conn.close()
        conn.served = getattr(conn, 'served', 0) + 1
        rng = None
        for h in headers:
            if isinstance(h, tuple) and h[0] == 'Range':
                a, b = h[1][6:].split('-')
                rng = (int(a), int(b))
        if method == 'GET' and resp.status != 304:
            self.verify(kind, rel, resp, t0, cut_short=cut, rng=rng)
        return resp

    def loop(self, fn, pause, *args):
        name = fn.__name__ + ''.join('-' + str(getattr(a, 'name', a))
                                     for a in args if a is not None)

        def run():
            while not self.stop.is_set():
                try:
                    fn(*args)
                except Exception as e:  # a checker must not die quietly
                    self.stats.error(name, 'crashed: %r' % e)
                self.stop.wait(pause)
        t = threading.Thread(target=run, name=name, daemon=True)
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

    def slow_reader(self, ep=None):
        """A small receive buffer read at ~256 KiB/s, above --min-rate."""
        ep = ep or self.main_ep
        kind = ep.kind('slow-reader')
        rel = self.rnd.choice(['files/big.bin', 'files/text.txt',
                               'files/big.txt'])
        t0 = now()
        try:
            with ep.connect(rcvbuf=8192) as c:
                c.send(build_request('GET', self.quote(rel)))
                resp = c.read_response(body=False)
                body = bytearray(c.buf)
                c.buf.clear()
                n = int(resp.header('Content-Length') or 0) \
                    if resp.status == 200 else 0
                cut = False
                while len(body) < n:
                    try:
                        chunk = c.sock.recv(8192)
                    except ConnectionResetError:
                        # Cut off at the end of a drain: a prefix.
                        if not (ep.name == 'act' and self.in_drain(t0)):
                            raise
                        chunk = b''
                    if not chunk:
                        cut = True
                        break
                    body += chunk
                    time.sleep(0.03)
                resp.body = bytes(body[:n]) if resp.status == 200 else b''
                if resp.status != 200:
                    c.buf.clear()
                self.verify(kind, rel, resp, t0, cut_short=cut)
        except (OSError, AssertionError) as e:
            if not self.refused(e, ep, t0, "a slow reader's request"):
                self.stats.error(kind, str(e))

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

    def scrape(self, addr=None):
        """The server's metrics, checked against the text format."""
        with Conn(*(addr or self.metrics_addr)) as c:
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

    # --- the other instances' clients ---
    def check_cert(self, t0, t1, sock):
        """The certificate a handshake begun at t0 and ended at t1 saw:
        the one served at t0, or either side of a reload under way."""
        fp = hashlib.sha256(sock.getpeercert(binary_form=True)).hexdigest()
        with self.cert_lock:
            reloads = [list(r) for r in self.reloads]
        want = self.cert_initial
        for r in reloads:
            if r[1] is not None and r[1] <= t0:
                want = r[3]
        if fp == want or any(r[0] <= t1 and (r[1] is None or r[1] > t0)
                             and fp in (r[2], r[3]) for r in reloads):
            self.stats.count('tls-handshake')
            return True
        names = {v: k for k, v in self.cert_fp.items()}
        self.stats.bad_bytes('tls-handshake', 'certificate %s presented, %s '
                             'expected (handshake from %.2f to %.2f s after '
                             'the last reload)' % (
                                 names.get(fp, fp), names.get(want, want),
                                 t0 - reloads[-1][0] if reloads else 0,
                                 t1 - reloads[-1][0] if reloads else 0))
        return False

    def keepalive_client(self, ep):
        """A few GETs, ranges and conditionals on one connection (over TLS:
        one handshake, its certificate checked)."""
        t0 = now()
        try:
            c = ep.connect()
        except (OSError, AssertionError) as e:
            if not self.refused(e, ep, t0, 'a connection'):
                self.stats.error(ep.kind('connect'), str(e))
            return
        with c:
            if ep.tls:
                self.check_cert(t0, now(), c.sock)
            for _ in range(self.rnd.randint(1, 5)):
                rel = self.pick_file()
                what = self.rnd.choice(['get', 'range', 'conditional'])
                h = []
                if what == 'range':
                    cur = self.tree.state(rel).current()
                    size = cur.cut if cur else 1000
                    a = self.rnd.randrange(0, max(1, size))
                    h = [('Range', 'bytes=%d-%d' % (
                        a, min(a + self.rnd.randrange(1, 70000),
                               max(a, size - 1))))]
                resp = self.get(ep.kind(what), rel, headers=h, conn=c, ep=ep)
                if resp and what == 'conditional' and resp.status == 200 \
                        and resp.header('ETag') and not c.eof:
                    etag = resp.header('ETag')
                    resp = self.get(ep.kind(what), rel, conn=c, ep=ep,
                                    headers=[('If-None-Match', etag)])
                    if resp and resp.status == 304:
                        if resp.header('ETag') != etag:
                            self.stats.bad_status(
                                ep.kind(what), 304, '%s: If-None-Match %s '
                                'answered with ETag %s' % (
                                    rel, etag, resp.header('ETag')))
                        else:
                            self.stats.count(ep.kind('conditional-304'))
                if not resp or c.eof or 'close' in resp.connection_tokens():
                    return

    def h2_client(self, ep, tls):
        """Several streams at once on one HTTP/2 connection (ALPN h2 over
        TLS, else prior knowledge); some cancelled mid-body."""
        kind = ep.kind('h2s' if tls else 'h2c')
        t0 = now()
        try:
            c = H2Conn(ep, tls)
        except (OSError, AssertionError) as e:
            if not self.refused(e, ep, t0, 'an h2 connection'):
                self.stats.error(kind, 'connect: %s' % e)
            return
        phase = 'the certificate check'
        try:
            if tls:
                self.check_cert(t0, now(), c.sock)
            phase = 'the requests'
            for _ in range(self.rnd.randint(3, 6)):
                rel = self.rnd.choice([self.pick_file(), 'stable/s.bin',
                                       'stable/s.txt'])
                sid = c.request(rel, self.quote(rel))
                if rel.startswith('files/big') and self.rnd.random() < 0.4:
                    c.streams[sid]['cancel_at'] = self.rnd.randrange(1, 300000)
            phase = 'the responses'
            ok = c.pump()
        except (OSError, AssertionError, h2.exceptions.ProtocolError) as e:
            if not self.refused(e, ep, t0, 'an h2 connection'):
                # What was under way tells whose the fault is.
                self.stats.error(kind, '%s (in %s, after %.1f s; streams '
                                 'ended %d of %d, reset %s; GOAWAY %s)' % (
                                     e, phase, now() - t0,
                                     sum(x['ended'] for x in
                                         c.streams.values()),
                                     len(c.streams),
                                     [x['reset'] for x in c.streams.values()
                                      if x['reset']], c.goaway))
            c.close()
            return
        c.close()
        if not ok and not c.eof:
            self.stats.error(kind, 'streams unfinished within %.0f s'
                             % httpraw.IO_TIMEOUT)
            return
        for sid, s in c.streams.items():
            if s['reset'] == 'cancelled':
                self.stats.count(kind + '-cancelled')
            elif s['status'] is None and ep.name == 'act' and c.goaway and \
                    c.goaway[0] == 0 and sid > c.goaway[1]:
                # Not taken by a draining instance: a client retries it.
                with self.stats.lock:
                    self.stats.drain_closed['h2 stream past GOAWAY'] += 1
            elif s['status'] is None:
                e = httpraw.ConnectionClosed('stream of %s: no response '
                                             '(reset %s, GOAWAY %s)' % (
                                                 s['rel'], s['reset'],
                                                 c.goaway))
                if not self.refused(e, ep, t0, 'an h2 stream unanswered, '
                                    'no GOAWAY excluding it'):
                    self.stats.error(kind, str(e))
            else:
                self.verify(kind, s['rel'], H2Response(s), s['t0'],
                            cut_short=not s['ended'])

    def proxy_bad(self):
        """A malformed (or missing) PROXY header: closed, never answered."""
        bad = self.rnd.choice(BAD_PROXY)
        try:
            with Conn(self.proxy_ep.host, self.proxy_ep.port) as c:
                with self.stats.lock:
                    self.proxy_bad_sent += 1
                try:
                    c.send(bad + build_request('GET', '/stable/s.txt'))
                except ConnectionResetError:
                    pass  # refused before all was sent
                closed, data = c.wait_closed(5)
        except OSError as e:
            self.stats.error('proxy:malformed', '%r: %s' % (bad, e))
            return
        if data or not closed:
            self.stats.bad_status('proxy:malformed', data[:12], '%r: %s'
                                  % (bad, 'answered' if data else
                                     'not closed within 5 s'))
        else:
            self.stats.count('proxy:malformed-refused')

    proxy_bad_sent = 0

    def in_drain(self, t0):
        """Whether something begun at t0 was on an instance that has been
        told to stop since (it may have been closed in its drain)."""
        with self.stats.lock:
            return any(w[0] <= now() and (w[1] is None or t0 <= w[1] + 0.2)
                       for w in self.drains)

    def closed_in_drain(self, e, t_open, what=None):
        """A connection closed, or reset, without an answer by a draining
        instance (idle, or its request not read yet), counted; never a
        refusal: the socket is held open across restarts."""
        if isinstance(e, ConnectionRefusedError):
            return False
        if isinstance(e, (httpraw.ConnectionClosed, ConnectionError)) \
                and t_open is not None and self.in_drain(t_open):
            with self.stats.lock:
                self.stats.drain_closed[what or type(e).__name__] += 1
            return True
        return False

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
            for name, srv in (('tls', self.tls_srv),
                              ('proxy', self.proxy_srv)):
                x = proc_usage(srv.proc.pid)
                if x:
                    self.other_samples[name].append(x)
            # The restarting instance: a peak per process, following the
            # current one (a process lives a few seconds: its peak, not a
            # trend, is what can be compared across restarts).
            with self.act_lock:
                act = self.act.proc.pid
            x = proc_usage(act)
            if x:
                peak = self.act_peaks.setdefault(act, [0, 0])
                peak[0], peak[1] = max(peak[0], x[0]), max(peak[1], x[1])
            x = proc_usage(pid)
            if not x:
                continue
            rss, fds = x
            m = getattr(self, 'last_metrics', {})
            reqs = sum(v for k, v in m.items()
                       if k[0] == 'sehttpd_requests_total')
            cache = m.get(('sehttpd_cache_bytes', ''), 0) // 1024
            self.samples.append((now() - start, rss, fds, reqs,
                                 self.fd_fault() or self.in_fd_fault,
                                 cache))

    # --- faults ---
    in_fd_fault = False

    def probe(self, ep=None, timeout=10):
        """True when the server is alive and serves a stable file whole."""
        ep = ep or self.main_ep
        deadline = now() + timeout
        while now() < deadline:
            srv = {'main': self.srv, 'tls': self.tls_srv,
                   'proxy': self.proxy_srv}.get(ep.name) or self.act
            if not srv.alive():
                return False
            try:
                with ep.connect(timeout=3) as c:
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

    def fault_cert_reload(self):
        """The other certificate installed, SIGHUP; every handshake begun
        3 s or more after the signal must present it, and from the first
        that does (plus CERT_GRACE_S) every new handshake.  Judged by when
        a handshake began, not when it ended: under load a handshake can
        take seconds on a sanitized one-thread server."""
        with self.cert_lock:
            old = self.cert_cur
            new = 'b' if old == 'a' else 'a'
            self.install_cert(new)
            rec = [now(), None, self.cert_fp[old], self.cert_fp[new]]
            self.reloads.append(rec)
        self.tls_srv.send_signal(signal.SIGHUP)
        late = None
        while not self.stop.is_set():
            t0 = now()
            try:
                with self.tls_ep.connect(timeout=3) as c:
                    seen = hashlib.sha256(c.sock.getpeercert(
                        binary_form=True)).hexdigest()
            except OSError as e:
                self.stats.error('cert-reload', 'handshake: %s' % e)
                return False
            if seen == rec[3]:
                break
            if t0 - rec[0] >= 3:
                late = t0 - rec[0]
                break
            time.sleep(0.05)
        with self.cert_lock:
            rec[1] = now() + CERT_GRACE_S
        if late is not None:
            self.stats.problem('fault', 'cert-reload: certificate %s still '
                               'presented to a handshake begun %.1f s after '
                               'SIGHUP' % (old, late))
            return False
        if self.stop.is_set():
            return True
        resp = self.get('cert-reload', 'stable/s.txt', ep=self.tls_ep)
        return bool(resp and resp.status == 200)

    def restart_act(self):
        """A new instance on the held socket, then SIGTERM to the old one,
        which drains; returns its drain window, or None when it failed
        (problem told)."""
        with self.act_lock:
            old = self.act
        new = self.start_act()
        with self.act_lock:
            self.act = new
            self.act_all.append(new)
        w = [now(), None]
        with self.stats.lock:
            self.drains.append(w)
        old.send_signal(signal.SIGTERM)
        rc = old.wait(DRAIN_S + 10)
        w[1] = now()
        if rc is None:
            old.kill()
        self.act_exits.append(rc)
        if rc != 0:
            self.stats.problem('fault', 'restart: the old instance exited '
                               '%s after SIGTERM' % rc)
            return None
        if w[1] - w[0] > DRAIN_S + 3:
            self.stats.problem('fault', 'restart: the old instance took %.1f'
                               ' s to exit (drain %.1f s)' % (w[1] - w[0],
                                                              DRAIN_S))
            return None
        return w

    def fault_restart(self):
        return self.restart_act() is not None and self.probe(self.act_ep)

    def fault_drain(self):
        """Slow readers in flight on the old instance when it is told to
        stop: those that can finish within the drain do, whole; one that
        cannot is cut after it, with a prefix; new clients are served by
        the new instance meanwhile."""
        rel = 'stable/big.bin'
        want = self.tree.state(rel).current().content()
        conns = []
        try:
            for i in range(4):
                c = self.act_ep.connect(rcvbuf=8192)
                conns.append(c)
                # 256 KiB at ~800 KiB/s: more than the socket buffers
                # hold, so still in flight at the SIGTERM, yet well within
                # the drain.
                c.send(build_request('GET', '/stable/mid.bin' if i < 3
                                     else self.quote(rel)))
                # Its head: the old instance has accepted it.
                resp = c.read_response(body=False)
                if resp.status != 200:
                    self.stats.problem('fault', 'drain: GET answered %d'
                                       % resp.status)
                    return False
            results = [None] * 4

            def read(i, c, pace, until):
                body = bytearray(c.buf)
                c.buf.clear()
                while now() < until:
                    try:
                        chunk = c.sock.recv(8192)
                    except OSError:
                        chunk = b''
                    if not chunk:
                        break
                    body += chunk
                    time.sleep(pace)
                results[i] = bytes(body)
            threads = []
            for i, c in enumerate(conns):
                # The long one at 8 KiB / 0.05 s.
                t = threading.Thread(target=read, args=(
                    i, c, 0.05 if i == 3 else 0.01, now() + DRAIN_S + 20))
                t.start()
                threads.append(t)
            time.sleep(0.1)
            w = self.restart_act()
            if w is None:
                return False
            for t in threads:
                t.join(30)
            small = self.tree.state('stable/mid.bin').current().content()
            for i in range(3):
                if results[i] != small:
                    self.stats.bad_bytes('drain', 'an in-flight response '
                                         'of %d bytes got %s bytes' % (
                                             len(small), len(results[i]
                                                             or b'')))
                    return False
            got = results[3] or b''
            if len(got) >= len(want) or not want.startswith(got):
                self.stats.bad_bytes('drain', 'the response that outlasts '
                                     'the drain: %d bytes of %d, %s' % (
                                         len(got), len(want),
                                         'a prefix' if want.startswith(got)
                                         else 'not a prefix'))
                return False
            # The old instance kept the long response going for the drain.
            if w[1] - w[0] < DRAIN_S - 0.3:
                self.stats.problem('fault', 'drain: the old instance exited '
                                   '%.2f s after SIGTERM with a response in '
                                   'flight (drain %.1f s)' % (w[1] - w[0],
                                                              DRAIN_S))
                return False
            self.stats.count('drain-finished', 3)
            self.stats.count('drain-cut')
            return self.probe(self.act_ep)
        except (OSError, AssertionError) as e:
            self.stats.problem('fault', 'drain: %r' % e)
            return False
        finally:
            for c in conns:
                c.close()

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

    def periodic(self, kinds, period):
        """Faults on the other instances, by turns, on a schedule of their
        own: they do not touch the main instance."""
        i = 0
        while not self.stop.wait(period):
            kind, fn = kinds[i % len(kinds)]
            i += 1
            self.fault(kind, fn)

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
            self.loop(self.h2_client, 0.05, self.main_ep, None),
            # HTTPS, HTTP/2 over TLS, PROXY headers, the restarting one.
            self.loop(self.keepalive_client, 0.02, self.tls_ep),
            self.loop(self.keepalive_client, 0.02, self.tls_ep),
            self.loop(self.h2_client, 0.05, self.tls_ep, self.tls_h2),
            self.loop(self.keepalive_client, 0.02, self.proxy_ep),
            self.loop(self.proxy_bad, 0.3),
            self.loop(self.keepalive_client, 0.02, self.act_ep),
            self.loop(self.keepalive_client, 0.02, self.act_ep),
            self.loop(self.slow_reader, 0.1, self.act_ep),
            self.loop(self.h2_client, 0.05, self.act_ep, None),
        ]
        # A restart or a drain every few seconds in a short run (each at
        # least twice in 60 s), rarer in a long one.
        restart_period = min(20.0, max(4.0, secs / 15.0))
        for fn, arg in ((self.htstress, None), (self.sampler, None),
                        (self.faults, period), (self.log_reopens, 3.0),
                        (self.periodic, ([('cert-reload',
                                           self.fault_cert_reload)], 3.0)),
                        (self.periodic, ([('restart', self.fault_restart),
                                          ('drain', self.fault_drain)],
                                         restart_period))):
            t = threading.Thread(target=fn, args=() if arg is None else
                                 arg if isinstance(arg, tuple) else (arg,),
                                 daemon=True)
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
        frames = sys._current_frames()
        for t in threads:
            if t.is_alive() and t.ident in frames:
                # Where it waits says whether the server or this script
                # holds it.
                print('stuck client %s at:\n%s' % (t.name, ''.join(
                    traceback.format_stack(frames[t.ident])[-4:])),
                      flush=True)
        self.metrics()
        try:
            self.proxy_refused = self.scrape(self.proxy_metrics_addr).get(
                ('sehttpd_proxy_headers_refused_total', ''))
        except (OSError, AssertionError) as e:
            self.proxy_refused = 'not scraped: %s' % e

    def finish(self):
        """Stops the server, prints the results; returns the failures."""
        rc = None
        if self.srv.alive():
            self.srv.send_signal(signal.SIGTERM)
        rc = self.srv.wait(20)
        if rc is None:
            self.srv.kill()
        others = {}
        with self.act_lock:
            act = self.act
        for name, srv in (('tls', self.tls_srv), ('proxy', self.proxy_srv),
                          ('act', act)):
            if srv.alive():
                srv.send_signal(signal.SIGTERM)
        for name, srv in (('tls', self.tls_srv), ('proxy', self.proxy_srv),
                          ('act', act)):
            others[name] = srv.wait(20)
            if others[name] is None:
                srv.kill()
        self.act_exits.append(others['act'])
        self.act_listener.close()
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
        print('requests closed unanswered by a draining instance: %s'
              % (dict(s.drain_closed) or 0))
        print('malformed PROXY headers sent %d, refused by the server %s'
              % (self.proxy_bad_sent, self.proxy_refused))
        print('restarting instance: %d processes, exits %s; peak RSS KiB / '
              'descriptors each: %s' % (
                  len(self.act_all), self.act_exits,
                  ', '.join('%d/%d' % tuple(v)
                            for v in self.act_peaks.values())))
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
        check('TLS instance exited 0', others['tls'] == 0,
              'exit %s' % others['tls'])
        check('PROXY instance exited 0', others['proxy'] == 0,
              'exit %s' % others['proxy'])
        check('every restarting instance exited 0',
              all(x == 0 for x in self.act_exits), '%s' % self.act_exits)
        check('malformed PROXY headers all counted refused',
              self.proxy_refused == self.proxy_bad_sent and
              self.proxy_bad_sent > 0, 'sent %d, metric %s' % (
                  self.proxy_bad_sent, self.proxy_refused))
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
                      'metrics', 'htstress', 'log-lines', 'h2c',
                      'h2c-cancelled', 'tls-handshake', 'tls:get',
                      'tls:range', 'tls:conditional', 'tls:h2s',
                      'tls:h2s-cancelled', 'proxy:get', 'proxy:range',
                      'proxy:malformed-refused', 'act:get', 'act:h2c',
                      'act:slow-reader', 'drain-finished', 'drain-cut'}
        missing = sorted(k for k in kinds_seen if not s.requests.get(k))
        check('every kind of request served', not missing,
              'none of ' + ', '.join(missing))
        need = max(1, min(2, int(self.args.seconds // 30)))
        for k in sorted(set(s.faults) | {'fd-limit', 'log-full',
                                         'cert-reload', 'restart', 'drain'}):
            if k in s.skipped:
                continue
            check('fault %s: %d injected, all survived' % (k, need),
                  s.faults[k] >= need and s.survived[k] == s.faults[k],
                  '%d injected, %d survived' % (s.faults[k], s.survived[k]))
        check('rss flat', *self.flat(1, FLAT_RSS_KIB, 'KiB'))
        check('descriptors flat', *self.flat(2, FLAT_FDS, ''))
        for name in ('tls', 'proxy'):
            pts = self.other_samples[name]
            check('%s instance rss flat' % name,
                  *self.flat(0, FLAT_RSS_KIB, 'KiB', pts))
            check('%s instance descriptors flat' % name,
                  *self.flat(1, FLAT_FDS, '', pts))
        # Each restarting process lives a few seconds under the same load:
        # the later ones' peaks must not exceed the first ones'.
        peaks = list(self.act_peaks.values())
        for col, slack, what in ((0, FLAT_RSS_KIB, 'rss'),
                                 (1, FLAT_FDS, 'descriptors')):
            if len(peaks) < 4:
                check('restarting instances\' %s peaks flat' % what, False,
                      'only %d processes sampled' % len(peaks))
                continue
            half = len(peaks) // 2
            first = max(p[col] for p in peaks[:half])
            last = max(p[col] for p in peaks[half:])
            limit = first * (1 + FLAT_REL) + slack
            check('restarting instances\' %s peaks flat' % what,
                  last <= limit, 'first half max %d, second half max %d, '
                  'limit %d' % (first, last, limit))
        reports = []
        for name, srv in ([('main', self.srv), ('tls', self.tls_srv),
                           ('proxy', self.proxy_srv)] +
                          [('act pid %d' % a.proc.pid, a)
                           for a in self.act_all]):
            reports += ['%s: %s' % (name, ln)
                        for ln in srv.stderr_text().splitlines()
                        if SANITIZER_RE.search(ln)]
        check('no sanitizer report (%d processes)' % (3 + len(self.act_all)),
              not reports, '; '.join(reports[:5]))
        err = self.srv.stderr_text()
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

    def flat(self, col, slack, unit, pts=None):
        """The last quarter's maximum within FLAT_REL of the first
        quarter's, plus slack; the main's samples inside an fd fault left
        out."""
        if pts is None:
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


def proc_usage(pid):
    """(RSS KiB, open descriptors) of a process, None once it is gone."""
    try:
        with open('/proc/%d/status' % pid) as f:
            rss = int(re.search(r'VmRSS:\s+(\d+)', f.read()).group(1))
        return rss, len(os.listdir('/proc/%d/fd' % pid))
    except (OSError, AttributeError):
        return None


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
    if not HAVE_H2:
        # Its HTTP/2 load is part of the soak: never skipped quietly.
        print('soak: python3-h2 is not installed (Debian: apt-get install '
              'python3-h2, or make deps-check; run with /usr/bin/python3)')
        sys.exit(1)
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
