"""The load generators, pinned to CPU 0: wrk for keep-alive runs, htstress
(without -k) for a new connection per request.

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


def _children_cpu_s():
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def _run(cmd, seconds):
    """The finished process (None if it overran), with .client_cpu_s: the
    CPU it used (taskset execs the load generator, so it is that)."""
    cmd = ['taskset', '-c', CLIENT_CPU] + cmd
    before = _children_cpu_s()
    try:
        out = subprocess.run(cmd, capture_output=True, text=True,
                             timeout=seconds + 30)
    except subprocess.TimeoutExpired:
        return None
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
