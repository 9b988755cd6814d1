"""What the benchmark measures: the scenarios, and the issue's targets.

A scenario's kind picks how it is driven: 'keepalive' (wrk), 'newconn'
(htstress, a new connection per request) or 'idle' (idle_clients.py
holds that many keep-alive connections while the server's RSS is read).
floor, when set, is the body size of a floor server measured alongside:
bench/floor.c for HTTP/1.1, bench/floor_h2.c (libnghttp2 and nothing else)
for the cleartext HTTP/2 rows.
gzip, when set, sends Accept-Encoding: CODING (coding: gzip, br or zstd)
with every request; a server is timed only after its reply was checked to
be the file in that coding, and one configured without it gets no figure.
balanced, when set, measures sehttpd directly and through HAProxy
(deploy/haproxy.cfg) to 1 and to 3 instances instead of the other servers:
the cost of the balancer, every process on the server CPU counted.
tls, when set, measures the HTTPS instances of the servers instead (see
servers.py; lighttpd is left out): keep-alive runs by wrk with an https
URL, a new connection per request by openssl s_time (one connection at a
time, conns=1), each with a full handshake or, with resume, resuming the
session (a run in which any connection did not resume gets no figure).
Kind 'h2' is HTTP/2 by h2load, conns connections with streams requests in
flight on each, against HTTP/2 instances of the servers that speak it
(sehttpd, nginx, h2o; lighttpd is left out): with tls, over HTTPS with h2
chosen by ALPN; without, cleartext with prior knowledge (h2c).
seconds, when set, is the length of a timed run unless --seconds gives
one for all (DEFAULT_SECONDS otherwise): the HTTP/2 rows run 2 s, which
keeps their 18 runs to about two minutes.
"""

from dataclasses import dataclass
from typing import Optional

DEFAULT_SECONDS = 3


@dataclass(frozen=True)
class Scenario:
    key: str
    title: str
    kind: str
    path: str
    short: str  # label in the chart
    conns: int = 50
    floor: Optional[int] = None
    gzip: bool = False
    balanced: bool = False
    coding: str = 'gzip'  # what a gzip scenario asks for
    tls: bool = False
    resume: bool = False  # a TLS newconn scenario's connections resume
    streams: int = 1  # an h2 scenario's requests in flight per connection
    seconds: Optional[int] = None  # a timed run's length, unless --seconds

    @property
    def headers(self):
        """Request header lines the load generator adds."""
        return ('Accept-Encoding: ' + self.coding,) if self.gzip else ()

    def run_seconds(self, given=None):
        """How long a timed run lasts: given (--seconds), else the
        scenario's own length, else DEFAULT_SECONDS."""
        return given or self.seconds or DEFAULT_SECONDS


SCENARIOS = [
    Scenario('keepalive_12b', 'keep-alive, 12 B file', 'keepalive',
             '/12.txt', 'keep-alive 12 B', floor=12),
    Scenario('newconn_12b', 'new connection per request, 12 B file',
             'newconn', '/12.txt', 'new conn 12 B'),
    Scenario('keepalive_4k', 'keep-alive, 4 KiB file', 'keepalive',
             '/4k.bin', 'keep-alive 4 KiB', floor=4096),
    Scenario('keepalive_100k', 'keep-alive, 100 KiB file', 'keepalive',
             '/100k.bin', '100 KiB'),
    Scenario('keepalive_1m', 'keep-alive, 1 MiB file', 'keepalive',
             '/1m.bin', '1 MiB'),
    # Fewer connections: 50 x 10 MiB in flight only fills socket buffers.
    Scenario('keepalive_10m', 'keep-alive, 10 MiB file', 'keepalive',
             '/10m.bin', '10 MiB', conns=10),
    Scenario('listing_100', 'keep-alive, listing of 100 entries',
             'keepalive', '/dir/', 'listing 100'),
    Scenario('gzip_35k', 'keep-alive, 35 KiB text, Accept-Encoding: gzip',
             'keepalive', '/35k.txt', 'gzip 35 KiB', gzip=True),
    Scenario('br_35k', 'keep-alive, 35 KiB text, Accept-Encoding: br',
             'keepalive', '/35k.txt', 'br 35 KiB', gzip=True, coding='br'),
    Scenario('zstd_35k', 'keep-alive, 35 KiB text, Accept-Encoding: zstd',
             'keepalive', '/35k.txt', 'zstd 35 KiB', gzip=True,
             coding='zstd'),
    # Beyond the cache's 1 MiB: compressed as it is sent.
    Scenario('gzip_json_2m', 'keep-alive, 2.4 MB JSON, Accept-Encoding: '
             'gzip', 'keepalive', '/2400k.json', 'gzip 2.4 MB JSON',
             conns=10, gzip=True),
    Scenario('haproxy_12b', 'keep-alive, 12 B file, through HAProxy',
             'keepalive', '/12.txt', 'HAProxy 12 B', balanced=True),
    Scenario('tls_keepalive_12b', 'HTTPS keep-alive, 12 B file',
             'keepalive', '/12.txt', 'HTTPS 12 B', tls=True),
    Scenario('tls_keepalive_1m', 'HTTPS keep-alive, 1 MiB file',
             'keepalive', '/1m.bin', 'HTTPS 1 MiB', tls=True),
    Scenario('tls_newconn_full',
             'HTTPS new connection per request, full handshake, 12 B file',
             'newconn', '/12.txt', 'HTTPS new conn', conns=1, tls=True),
    Scenario('tls_newconn_resumed',
             'HTTPS new connection per request, resumed session, 12 B '
             'file', 'newconn', '/12.txt', 'HTTPS resumed', conns=1,
             tls=True, resume=True),
    # HTTP/2: h2load, 10 connections x 50 streams.
    Scenario('h2_12b', 'HTTP/2 over TLS, 12 B file', 'h2', '/12.txt',
             'h2 12 B', conns=10, streams=50, tls=True, seconds=2),
    Scenario('h2_4k', 'HTTP/2 over TLS, 4 KiB file', 'h2', '/4k.bin',
             'h2 4 KiB', conns=10, streams=50, tls=True, seconds=2),
    Scenario('h2_100k', 'HTTP/2 over TLS, 100 KiB file', 'h2', '/100k.bin',
             'h2 100 KiB', conns=10, streams=50, tls=True, seconds=2),
    Scenario('h2c_12b', 'HTTP/2 cleartext (prior knowledge), 12 B file',
             'h2', '/12.txt', 'h2c 12 B', conns=10, streams=50, seconds=2,
             floor=12),
    Scenario('h2c_4k', 'HTTP/2 cleartext (prior knowledge), 4 KiB file',
             'h2', '/4k.bin', 'h2c 4 KiB', conns=10, streams=50, seconds=2,
             floor=4096),
    Scenario('h2c_100k', 'HTTP/2 cleartext (prior knowledge), 100 KiB '
             'file', 'h2', '/100k.bin', 'h2c 100 KiB', conns=10,
             streams=50, seconds=2, floor=102400),
    Scenario('idle_10k', 'idle keep-alive connections', 'idle',
             '/12.txt', 'idle', conns=10000),
]


@dataclass(frozen=True)
class Target:
    """sehttpd's figure `metric` in `scenario` must be at most `factor`
    times `versus`'s (or at most `factor` itself when versus is None)."""
    scenario: str
    # 'user_us', 'total_us' (server), 'client_us', 'both_us' (server +
    # client) or 'kib_per_conn'
    metric: str
    versus: Optional[str]
    factor: float


TARGETS = [
    Target('keepalive_12b', 'user_us', 'nginx', 0.35),
    Target('keepalive_12b', 'total_us', 'floor', 1.05),
    Target('keepalive_4k', 'user_us', 'nginx', 0.35),
    Target('keepalive_4k', 'total_us', 'floor', 1.1),
    Target('newconn_12b', 'total_us', 'nginx', 0.8),
    Target('listing_100', 'total_us', 'nginx', 0.1),
    Target('keepalive_100k', 'total_us', 'nginx', 0.3),
    Target('keepalive_1m', 'total_us', 'nginx', 0.3),
    Target('keepalive_10m', 'total_us', 'nginx', 0.65),
    # No cost moved to the client.
    Target('keepalive_100k', 'client_us', 'nginx', 1.0),
    Target('keepalive_1m', 'client_us', 'nginx', 1.0),
    Target('keepalive_10m', 'client_us', 'nginx', 1.0),
    Target('idle_10k', 'kib_per_conn', None, 2.0),
    # Large files (issue 24): the server within 10% of lwan's CPU, both
    # ends together no dearer than lwan's (skipped without --lwan).
    Target('keepalive_100k', 'total_us', 'lwan', 1.1),
    Target('keepalive_1m', 'total_us', 'lwan', 1.1),
    Target('keepalive_10m', 'total_us', 'lwan', 1.1),
    Target('keepalive_100k', 'both_us', 'lwan', 1.0),
    Target('keepalive_1m', 'both_us', 'lwan', 1.0),
    Target('keepalive_10m', 'both_us', 'lwan', 1.0),
    # HTTPS (issue 22): no dearer than nginx with keep-alive, within 10%
    # of it when every request makes a connection.
    Target('tls_keepalive_12b', 'total_us', 'nginx', 1.0),
    Target('tls_keepalive_1m', 'total_us', 'nginx', 1.0),
    Target('tls_newconn_full', 'total_us', 'nginx', 1.1),
    Target('tls_newconn_resumed', 'total_us', 'nginx', 1.1),
    # HTTP/2: server CPU per request at most h2o's.
    Target('h2_12b', 'total_us', 'h2o', 1.0),
    Target('h2_4k', 'total_us', 'h2o', 1.0),
    Target('h2_100k', 'total_us', 'h2o', 1.0),
    Target('h2c_12b', 'total_us', 'h2o', 1.0),
    Target('h2c_4k', 'total_us', 'h2o', 1.0),
    Target('h2c_100k', 'total_us', 'h2o', 1.0),
]
