"""The load generators, pinned to CPU 0: wrk for keep-alive runs (HTTP or
HTTPS), htstress (without -k) for a new connection per request,
openssl s_time for a new HTTPS connection per request (one at a time,
with a full handshake each or resuming one session), and h2load for
HTTP/2 (over TLS by ALPN, or cleartext with prior knowledge).

Each run returns a Load: completed requests and seconds (and for wrk the
bytes it read, headers included, to within its rounding), the CPU time
the load generator itself spent (its rusage: on loopback the receiver's
work can land in either process, so a server's saving that moves cost
to the client shows here), or an error string when any response was not
2xx or any socket error happened.
"""

import json
import re
import resource
import subprocess
import time
from dataclasses import dataclass
from typing import Optional

CLIENT_CPU = '0'


@dataclass
class Load:
    requests: int = 0
    seconds: float = 0.0
    error: Optional[str] = None
    bytes_read: Optional[float] = None
    client_cpu_s: float = 0.0  # user + system of the load generator
    # h2load: what its connections came to ('protocol', and over TLS
    # 'tls', 'cipher', 'group')
    facts: Optional[dict] = None


def _children_cpu_s():
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def _run(cmd, seconds):
    """The finished process (None if it overran), with .client_cpu_s: the
    CPU it used (taskset execs the load generator, so it is that), and
    .wall_s: how long it ran."""
    cmd = ['taskset', '-c', CLIENT_CPU] + cmd
    before = _children_cpu_s()
    t0 = time.monotonic()
    try:
        out = subprocess.run(cmd, capture_output=True, text=True,
                             timeout=seconds + 30)
    except subprocess.TimeoutExpired:
        return None
    out.wall_s = time.monotonic() - t0
    out.client_cpu_s = _children_cpu_s() - before
    return out


_WRK_DONE = re.compile(r'^\s*(\d+) requests in ([\d.]+)(us|ms|s|m)'
                       r'(?:, ([\d.]+)([KMGTP]?)B read)?', re.MULTILINE)
_WRK_SOCKET = re.compile(
    r'Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)')
_WRK_NON2XX = re.compile(r'Non-2xx or 3xx responses: (\d+)')
_UNIT_S = {'us': 1e-6, 'ms': 1e-3, 's': 1.0, 'm': 60.0}
_UNIT_B = {'': 1, 'K': 1 << 10, 'M': 1 << 20, 'G': 1 << 30, 'T': 1 << 40,
           'P': 1 << 50}


def _header_args(headers):
    return [a for h in headers for a in ('-H', h)]


def wrk(url, seconds, conns, headers=()):
    """A keep-alive run: wrk -t1 -cCONNS -dSECONDS [-H HEADER]..."""
    out = _run(['wrk', '-t1', '-c%d' % conns, '-d%gs' % seconds,
                '--timeout', '10s'] + _header_args(headers) + [url], seconds)
    if out is None:
        return Load(error='wrk did not finish')
    text = out.stdout
    done = _WRK_DONE.search(text)
    if out.returncode != 0 or not done:
        tail = (out.stderr or text).strip().splitlines()[-1:]
        return Load(error='wrk failed: %s' % (tail or ['exit %d' %
                                                       out.returncode])[0])
    load = Load(requests=int(done.group(1)),
                seconds=float(done.group(2)) * _UNIT_S[done.group(3)],
                bytes_read=float(done.group(4)) * _UNIT_B[done.group(5)]
                if done.group(4) else None, client_cpu_s=out.client_cpu_s)
    errs = []
    sock = _WRK_SOCKET.search(text)
    if sock and any(int(n) for n in sock.groups()):
        errs.append('socket errors: connect %s, read %s, write %s, '
                    'timeout %s' % sock.groups())
    non2xx = _WRK_NON2XX.search(text)
    if non2xx and int(non2xx.group(1)):
        errs.append('%s non-2xx/3xx responses' % non2xx.group(1))
    if load.requests == 0:
        errs.append('no request completed')
    if errs:
        load.error = '; '.join(errs)
    return load


def htstress(binary, url, seconds, conns, headers=()):
    """A run with a new connection per request: htstress --json."""
    out = _run([binary, '-d', '%g' % seconds, '-c', str(conns), '-t', '1',
                '--json'] + _header_args(headers) + [url], seconds)
    if out is None:
        return Load(error='htstress did not finish')
    try:
        rep = json.loads(out.stdout)
        good = int(rep['good'])
        seconds_run = float(rep['seconds'])
        bad = {k: int(rep[k]) for k in
               ('bad_4xx', 'bad_5xx', 'bad_other', 'errors')}
    except (ValueError, KeyError, TypeError):
        tail = (out.stderr or out.stdout).strip().splitlines()[-1:]
        return Load(error='htstress gave no report (exit %d%s)' % (
            out.returncode, ': ' + tail[0] if tail else ''))
    load = Load(requests=good, seconds=seconds_run,
                client_cpu_s=out.client_cpu_s)
    errs = ['%d %s' % (n, k.replace('_', ' '))
            for k, n in bad.items() if n]
    if good == 0:
        errs.append('no request completed')
    if errs or out.returncode != 0:
        load.error = ', '.join(errs) or 'htstress exit %d' % out.returncode
    return load


_S_TIME_DONE = re.compile(r'^(\d+) connections in [\d.]+s; .*bytes read (\d+)$',
                          re.MULTILINE)
# One character per connection: r resumed, * (or t, 3) a full handshake.
_S_TIME_MARKS = re.compile(r'^[r*t3]+$', re.MULTILINE)


def s_time(port, path, seconds, reuse=False):
    """A run of one HTTPS connection after another, each a GET of path
    (HTTP/1.0): openssl s_time -new (a full handshake each), or -reuse
    (each resumes the session of the connection before; the first, which
    makes the session, is untimed but its server CPU counts).  s_time
    stops in the second after SECONDS have passed and prints whole
    seconds, so the run's length is the wall time of the process.  With
    reuse, a connection that did not resume is an error."""
    out = _run(['openssl', 's_time', '-connect', '127.0.0.1:%d' % port,
                '-www', path, '-reuse' if reuse else '-new',
                '-time', str(seconds)], seconds)
    if out is None:
        return Load(error='openssl s_time did not finish')
    done = _S_TIME_DONE.findall(out.stdout)
    if out.returncode != 0 or not done:
        tail = (out.stderr or out.stdout).strip().splitlines()[-1:]
        return Load(error='openssl s_time failed: %s' % (
            tail or ['exit %d' % out.returncode])[0])
    n, nbytes = (int(v) for v in done[-1])
    load = Load(requests=n, seconds=out.wall_s, bytes_read=nbytes,
                client_cpu_s=out.client_cpu_s)
    marks = ''.join(_S_TIME_MARKS.findall(out.stdout))
    resumed = marks.count('r')
    if n == 0:
        load.error = 'no connection completed'
    elif len(marks) != n:
        load.error = 'openssl s_time marked %d of %d connections' % (
            len(marks), n)
    elif reuse and resumed != n:
        load.error = 'the session was resumed in %d of %d connections' % (
            resumed, n)
    elif not reuse and resumed:
        load.error = '%d of %d connections resumed a session' % (resumed, n)
    return load


_H2LOAD_DONE = re.compile(r'^finished in ([\d.]+)(us|ms|s|m), ', re.MULTILINE)
_H2LOAD_REQS = re.compile(
    r'^requests: (\d+) total, (\d+) started, (\d+) done, (\d+) succeeded, '
    r'(\d+) failed, (\d+) errored, (\d+) timeout', re.MULTILINE)
_H2LOAD_STATUS = re.compile(r'^status codes: (\d+) 2xx, (\d+) 3xx, (\d+) '
                            r'4xx, (\d+) 5xx', re.MULTILINE)
_H2LOAD_TRAFFIC = re.compile(r'^traffic: \S+ \((\d+)\) total', re.MULTILINE)
_H2LOAD_FACTS = {'protocol': re.compile(r'^Application protocol: (\S+)',
                                        re.MULTILINE),
                 'tls': re.compile(r'^TLS Protocol: (\S+)', re.MULTILINE),
                 'cipher': re.compile(r'^Cipher: (\S+)', re.MULTILINE),
                 'group': re.compile(r'^Server Temp Key: (\S+)',
                                     re.MULTILINE)}


def h2load(url, seconds, conns, streams):
    """An HTTP/2 run: h2load -t1 -cCONNS -mSTREAMS -DSECONDS, offering only
    h2 in ALPN over TLS (no fall-back to HTTP/1.1) and using prior
    knowledge in the clear.  Requests still in flight when the time is up
    are not counted (h2load's "started" minus "done"); any failed,
    errored, timed-out or non-2xx request, or a protocol other than h2 or
    h2c, is an error."""
    out = _run(['h2load', '-t1', '-c%d' % conns, '-m%d' % streams,
                '-D', '%d' % seconds, '--npn-list=h2', url], seconds)
    if out is None:
        return Load(error='h2load did not finish')
    text = out.stdout
    done, reqs = _H2LOAD_DONE.search(text), _H2LOAD_REQS.search(text)
    if out.returncode != 0 or not done or not reqs:
        tail = (out.stderr or text).strip().splitlines()[-1:]
        return Load(error='h2load failed: %s' % (
            tail or ['exit %d' % out.returncode])[0])
    facts = {k: m.group(1) for k, rx in _H2LOAD_FACTS.items()
             for m in [rx.search(text)] if m}
    traffic = _H2LOAD_TRAFFIC.search(text)
    n_done, succeeded, failed, errored, timeout = (
        int(v) for v in reqs.groups()[2:])
    load = Load(requests=n_done,
                seconds=float(done.group(1)) * _UNIT_S[done.group(2)],
                bytes_read=float(traffic.group(1)) if traffic else None,
                client_cpu_s=out.client_cpu_s, facts=facts)
    errs = []
    if facts.get('protocol') not in ('h2', 'h2c'):
        errs.append('protocol %s, not h2' % facts.get('protocol', 'unknown'))
    if failed or errored or timeout or succeeded != n_done:
        errs.append('%d failed, %d errored, %d timed out of %d' % (
            failed, errored, timeout, n_done))
    # Counted when the head arrives: in-flight requests may be among them.
    status = _H2LOAD_STATUS.search(text)
    if status and any(int(n) for n in status.groups()[1:]):
        errs.append('responses not 2xx: %s 3xx, %s 4xx, %s 5xx' %
                    status.groups()[1:])
    if n_done == 0:
        errs.append('no request completed')
    if errs:
        # What h2load says of its connections, for the reader.
        conn = re.search(r'^time for connect: .*$', text, re.MULTILINE)
        load.error = '; '.join(errs) + ' (h2load: %s%s)' % (
            reqs.group(0), '; ' + ' '.join(conn.group(0).split())
            if conn else '')
    return load
