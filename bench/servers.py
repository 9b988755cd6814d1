"""The servers under test: how each is configured, started and stopped.

Every server gets the same settings: one worker (thread or process),
127.0.0.1 on a free port, no access log, sendfile on (h2o has no sendfile;
it reads files with pread), directory listings on, keep-alive limits far
beyond a run's length, room for 16,384 connections, RLIMIT_NOFILE 65536
(or the hard limit, if lower), and CPU 1 only (`taskset -c 1`).  Each runs
in the foreground as a root-started daemon; the PID we measure is the root
of its process tree.

Compression is on at gzip level GZIP_LEVEL for text/plain and
application/json wherever the server can do it (it only acts on requests
that send Accept-Encoding, which only the compression scenarios do), and
Brotli and zstd where the server has them (at sehttpd's levels where it can be told);
gzip_unsupported(coding) says why not otherwise, how(coding) how the server
goes about it.

A server made with tls= (a Tls from make_tls) speaks only HTTPS, set up
alike in each server that does it (sehttpd, nginx, h2o; lighttpd is left
out): the one ECDSA P-256 certificate and key made for the run, TLS 1.2 and
1.3, sehttpd's TLS 1.2 suites in the server's order (TLS 1.3's are
OpenSSL's default everywhere), key exchange groups X25519 first, session
tickets on and OpenSSL's own session cache of TLS_SESSION_CACHE sessions,
sessions valid TLS_SESSION_S, and HTTP/1.1: nginx offers no h2 (no http2
on its listen line); sehttpd and h2o 2.2 always offer h2 in ALPN, which
no client of these rows asks for (wrk and openssl s_time send no ALPN).
h2o's private key stays in its worker (neverbleed OFF): every server signs
in its one worker.  Such a server is named NAME-tls (its logs and files)
and keeps NAME as its label, the row in a scenario's table.

A server made with h2=True speaks HTTP/2 (sehttpd, nginx, h2o; lighttpd
is left out): with tls=, HTTPS where ALPN offers h2 (nginx: `ssl http2` on
its listen line; sehttpd and h2o always offer it), named NAME-h2; without,
cleartext HTTP/2 with prior knowledge (nginx: `http2` on its listen line;
sehttpd and h2o take a connection that starts with the HTTP/2 preface as
HTTP/2), named NAME-h2c.  Everything else is as in the HTTP/1.1 instances;
each server's limit of streams per connection (nginx 128, h2o 100,
sehttpd 100) is above the 50 the scenarios use, and idle timeouts are
KEEPALIVE_S.
"""

import glob
import os
import re
import resource
import shutil
import signal
import socket
import subprocess
import time
from dataclasses import dataclass

import procstat

SERVER_CPU = '1'
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HAPROXY_CFG = os.path.join(REPO, 'deploy', 'haproxy.cfg')
KEEPALIVE_S = 3600
GZIP_LEVEL = 6  # sehttpd's COMPRESS_LEVEL, src/sehttpd/compress.h
BROTLI_LEVEL = 5  # its COMPRESS_BROTLI_LEVEL
ZSTD_LEVEL = 9  # its COMPRESS_ZSTD_LEVEL
# sehttpd's TLS settings (src/sehttpd/tls.c, tls_tickets.h), given to the
# others.
TLS_CIPHERS = ':'.join([
    'ECDHE-ECDSA-AES128-GCM-SHA256', 'ECDHE-RSA-AES128-GCM-SHA256',
    'ECDHE-ECDSA-AES256-GCM-SHA384', 'ECDHE-RSA-AES256-GCM-SHA384',
    'ECDHE-ECDSA-CHACHA20-POLY1305', 'ECDHE-RSA-CHACHA20-POLY1305'])
TLS_GROUPS = 'X25519:prime256v1:secp384r1'
TLS_SESSION_CACHE = 20480  # OpenSSL's default size, h2o's too
TLS_SESSION_S = 3600  # TLS_TICKET_ROTATE_S; h2o's default lifetime


def raise_nofile(want=65536):
    """Raises this process's RLIMIT_NOFILE (inherited by every server and
    client it starts) to want, or to the hard limit when the process may
    not raise that (no CAP_SYS_RESOURCE); returns the new limit."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (want, max(want, hard)))
    except (ValueError, OSError):
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


NOFILE = raise_nofile()
# Connections each server must accept: the 10,000 idle ones and spares.
MAX_CONNS = min(16384, NOFILE - 64)


def free_port():
    """A loopback port nothing listens on now."""
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


def _version(cmd):
    try:
        out = subprocess.run(cmd, capture_output=True, text=True,
                             timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return '?'
    text = (out.stdout + out.stderr).strip().splitlines()
    return text[0] if text else '?'


@dataclass(frozen=True)
class Tls:
    """The certificate and key every HTTPS server of a run uses."""
    cert: str
    key: str


def make_tls(run_dir):
    """(Tls, None) for a fresh self-signed ECDSA P-256 certificate for
    127.0.0.1 and localhost in run_dir, or (None, why not)."""
    cert = os.path.join(run_dir, 'tls-cert.pem')
    key = os.path.join(run_dir, 'tls-key.pem')
    cmd = ['openssl', 'req', '-x509', '-newkey', 'ec', '-pkeyopt',
           'ec_paramgen_curve:prime256v1', '-nodes', '-days', '7',
           '-subj', '/CN=localhost', '-addext',
           'subjectAltName=DNS:localhost,IP:127.0.0.1',
           '-keyout', key, '-out', cert]
    try:
        out = subprocess.run(cmd, capture_output=True, text=True,
                             timeout=30)
    except (OSError, subprocess.TimeoutExpired) as e:
        return None, 'openssl req: %s' % e
    if out.returncode != 0:
        return None, 'openssl req failed: %s' % (
            out.stderr.strip().splitlines() or ['exit %d' % out.returncode]
        )[-1]
    return Tls(cert, key), None


class Server:
    """One server process tree, restartable on a new port."""

    name = None
    # {coding: how the server makes it}, for the codings it is set up for
    codings = {}
    speaks_tls = False  # whether command() can set up tls
    speaks_h2 = False  # whether command() can set up h2 (and h2c)

    def __init__(self, run_dir, www, tls=None, h2=False):
        self.run_dir = run_dir
        self.www = www
        self.proc = None
        self.port = None
        self.log = None
        self.tls = tls
        self.h2 = h2
        self.suffix = ('-h2' if tls else '-h2c') if h2 else \
            ('-tls' if tls else '')
        if self.suffix:
            self.name = self.name + self.suffix

    # --- per server -----------------------------------------------------
    def available(self):
        """None, or why the server cannot run."""
        return None

    def version(self):
        return '?'

    def gzip_unsupported(self, coding='gzip'):
        """None, or why the server cannot send coding (gzip at
        GZIP_LEVEL)."""
        if coding in self.codings:
            return None
        return 'no %s support configured' % coding

    def how(self, coding):
        return self.codings.get(coding)

    def command(self):
        raise NotImplementedError

    # --- common ---------------------------------------------------------
    @property
    def label(self):
        """The server's row in a scenario's table."""
        return self.name[:-len(self.suffix)] if self.suffix else self.name

    def url(self, path):
        return '%s://127.0.0.1:%d%s' % ('https' if self.tls else 'http',
                                        self.port, path)

    def start(self, timeout=10.0):
        """Starts on a fresh port; returns None or an error string."""
        self.stop()
        return self.launch(timeout)

    def launch(self, timeout):
        """start() once stopped."""
        self.port = free_port()
        cmd = ['taskset', '-c', SERVER_CPU] + self.command()
        self.log = os.path.join(self.run_dir, self.name + '.log')
        with open(self.log, 'ab') as log:
            log.write(('\n$ %s\n' % ' '.join(cmd)).encode())
            log.flush()
            # A session of its own: Ctrl-C reaches only the harness,
            # which then stops the server in order.
            self.proc = subprocess.Popen(
                cmd, stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                start_new_session=True,
                cwd=self.run_dir)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                return '%s exited with %s at start (see %s)' % (
                    self.name, self.proc.returncode, self.log)
            try:
                socket.create_connection(('127.0.0.1', self.port),
                                         timeout=1).close()
            except OSError:
                time.sleep(0.02)
                continue
            self.pin_threads()
            return None
        self.stop()
        return '%s did not listen within %.0f s' % (self.name, timeout)

    def pin_threads(self):
        """Every thread of the server on SERVER_CPU again: taskset only
        sets the start, and a server may pin its threads itself (lwan puts
        its N-th worker on CPU N, so its one worker would share CPU 0 with
        the load generator)."""
        for pid in self.pids():
            try:
                tids = os.listdir('/proc/%d/task' % pid)
            except OSError:
                continue
            for tid in tids:
                try:
                    os.sched_setaffinity(int(tid), {int(SERVER_CPU)})
                except OSError:
                    pass

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def death(self):
        """How the server ended, for a server that is not alive."""
        rc = self.proc.poll() if self.proc else None
        if rc is None:
            how = 'not running'
        elif rc < 0:
            how = 'killed by %s' % signal.Signals(-rc).name
        else:
            how = 'exited with status %d' % rc
        return 'server %s (see %s)' % (how, self.log)

    def pids(self):
        if not self.alive():
            return []
        return procstat.tree_pids(self.proc.pid)

    def stop(self):
        """Stops the tree: SIGTERM to the root, then SIGKILL to any PID of
        the tree still there."""
        if self.proc is None:
            return
        pids = self.pids()
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=5)
        for pid in pids:
            if pid != self.proc.pid and os.path.exists('/proc/%d' % pid):
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
        self.proc = None

    def conf_path(self, ext):
        return os.path.join(self.run_dir, '%s.%s' % (self.name, ext))


class Sehttpd(Server):
    name = 'sehttpd'
    codings = {
        'gzip': 'compresses once (libdeflate level %d; a file beyond 1 MiB '
                'with zlib as it is sent), then serves the kept result'
                % GZIP_LEVEL,
        'br': 'compresses once (libbrotlienc quality %d), then serves the '
              'cached result' % BROTLI_LEVEL,
        'zstd': 'compresses once (libzstd level %d), then serves the cached '
                'result' % ZSTD_LEVEL,
    }

    speaks_tls = True
    speaks_h2 = True

    def __init__(self, run_dir, www, binary, tls=None, h2=False):
        super().__init__(run_dir, www, tls, h2)
        self.binary = os.path.abspath(binary)

    def available(self):
        if not os.access(self.binary, os.X_OK):
            return '%s not built' % self.binary
        return None

    def version(self):
        return _version([self.binary, '--version'])

    def command(self):
        # Its TLS settings are built in (src/sehttpd/tls.c); it offers h2
        # in ALPN, and takes the HTTP/2 preface in the clear, unasked.
        tls = ['--tls-cert', self.tls.cert, '--tls-key', self.tls.key] \
            if self.tls else []
        return [self.binary, '-b', '127.0.0.1', '-p', str(self.port),
                '-t', '1', '--timeout', str(KEEPALIVE_S)] + tls + [self.www]


class Nginx(Server):
    name = 'nginx'
    # Debian 12 packages no Brotli or zstd module for nginx.
    codings = {'gzip': 'compresses every request (zlib level %d, no cache)'
               % GZIP_LEVEL}
    speaks_tls = True
    speaks_h2 = True

    def available(self):
        return None if shutil.which('nginx') else 'nginx not installed'

    def version(self):
        return _version(['nginx', '-v'])

    def command(self):
        conf = self.conf_path('conf')
        err = os.path.join(self.run_dir, self.name + '-error.log')
        # builtin: OpenSSL's own cache, as in sehttpd and h2o (one worker
        # has nothing to share).
        tls = f'''
        ssl_certificate {self.tls.cert};
        ssl_certificate_key {self.tls.key};
        ssl_protocols TLSv1.2 TLSv1.3;
        ssl_ciphers {TLS_CIPHERS};
        ssl_prefer_server_ciphers on;
        ssl_ecdh_curve {TLS_GROUPS};
        ssl_session_cache builtin:{TLS_SESSION_CACHE};
        ssl_session_timeout {TLS_SESSION_S}s;
        ssl_session_tickets on;''' if self.tls else ''
        listen = (' ssl' if self.tls else '') + (' http2' if self.h2 else '')
        with open(conf, 'w') as f:
            f.write(f'''\
user root;
daemon off;
master_process on;
worker_processes 1;
worker_rlimit_nofile {NOFILE};
pid {self.run_dir}/{self.name}.pid;
error_log {err} warn;
events {{
    worker_connections {MAX_CONNS};
}}
http {{
    include /etc/nginx/mime.types;
    default_type application/octet-stream;
    access_log off;
    sendfile on;
    keepalive_requests 100000000;
    keepalive_timeout {KEEPALIVE_S}s;
    gzip on;
    gzip_comp_level {GZIP_LEVEL};
    gzip_types text/plain text/css text/javascript application/json;
    server {{
        listen 127.0.0.1:{self.port}{listen};
        root {self.www};
        autoindex on;{tls}
    }}
}}
''')
        return ['nginx', '-e', err, '-p', self.run_dir, '-c', conf]


class Lighttpd(Server):
    name = 'lighttpd'
    # Without deflate.cache-dir mod_deflate keeps nothing between requests.
    # Debian's mod_deflate is built with libbrotlienc and libzstd too.
    codings = {
        'gzip': 'compresses every request (mod_deflate, zlib level %d, no '
                'deflate.cache-dir)' % GZIP_LEVEL,
        'br': 'compresses every request (mod_deflate, Brotli quality %d, no '
              'deflate.cache-dir)' % BROTLI_LEVEL,
        'zstd': 'compresses every request (mod_deflate, zstd level %d, no '
                'deflate.cache-dir)' % ZSTD_LEVEL,
    }
    MODULE_GLOB = '/usr/lib*/lighttpd/mod_deflate.so'

    def available(self):
        return None if shutil.which('lighttpd') else 'lighttpd not installed'

    def gzip_unsupported(self, coding='gzip'):
        if not glob.glob(self.MODULE_GLOB):
            return 'mod_deflate not installed (Debian: lighttpd-mod-deflate)'
        return super().gzip_unsupported(coding)

    def version(self):
        return _version(['lighttpd', '-v'])

    def command(self):
        conf = self.conf_path('conf')
        deflate = '' if self.gzip_unsupported() else f'''\
server.modules += ( "mod_deflate" )
deflate.mimetypes = ( "text/plain", "application/json" )
deflate.allowed-encodings = ( "gzip", "br", "zstd" )
deflate.compression-level = {GZIP_LEVEL}
deflate.params = ( "BROTLI_PARAM_QUALITY" => "{BROTLI_LEVEL}",
                   "ZSTD_c_compressionLevel" => "{ZSTD_LEVEL}" )
'''
        with open(conf, 'w') as f:
            f.write(f'''\
server.modules = ( "mod_dirlisting" )
{deflate}server.document-root = "{self.www}"
server.bind = "127.0.0.1"
server.port = {self.port}
server.errorlog = "{self.run_dir}/lighttpd-error.log"
server.network-backend = "sendfile"
server.max-fds = {NOFILE}
server.max-connections = {MAX_CONNS}
server.max-keep-alive-requests = 100000000
server.max-keep-alive-idle = {KEEPALIVE_S}
server.max-read-idle = {KEEPALIVE_S}
server.max-write-idle = {KEEPALIVE_S}
dir-listing.activate = "enable"
mimetype.assign = (
    ".txt" => "text/plain",
    ".html" => "text/html",
    ".bin" => "application/octet-stream",
    ".json" => "application/json",
)
''')
        return ['lighttpd', '-D', '-f', conf]


class H2o(Server):
    name = 'h2o'
    # Its own copy of Brotli; no zstd.
    codings = {
        'gzip': 'compresses every request (zlib level %d, no cache)'
                % GZIP_LEVEL,
        'br': 'compresses every request (Brotli quality %d, no cache)'
              % BROTLI_LEVEL,
    }
    speaks_tls = True
    speaks_h2 = True

    def available(self):
        return None if shutil.which('h2o') else 'h2o not installed'

    def version(self):
        return _version(['h2o', '--version'])

    def command(self):
        conf = self.conf_path('conf')
        # 2.2 has no setting for the groups: OpenSSL 3's default list,
        # X25519 first.  Its TLS 1.3 of its own (picotls) knows only
        # drafts 26-28, so OpenSSL does TLS 1.3 too.  No OCSP stapling
        # (none of the others staple): no fetcher process.
        tls = f'''
  ssl:
    certificate-file: {self.tls.cert}
    key-file: {self.tls.key}
    minimum-version: TLSv1.2
    cipher-suite: {TLS_CIPHERS}
    cipher-preference: server
    neverbleed: OFF
    ocsp-update-interval: 0
ssl-session-resumption:
  mode: all
  cache-store: internal
  ticket-store: internal
  lifetime: {TLS_SESSION_S}''' if self.tls else ''
        with open(conf, 'w') as f:
            f.write(f'''\
user: root
num-threads: 1
max-connections: {MAX_CONNS}
http1-request-timeout: {KEEPALIVE_S}
http2-idle-timeout: {KEEPALIVE_S}
error-log: {self.run_dir}/{self.name}-error.log
pid-file: {self.run_dir}/{self.name}.pid
listen:
  host: 127.0.0.1
  port: {self.port}{tls}
compress:
  gzip: {GZIP_LEVEL}
  br: {BROTLI_LEVEL}
hosts:
  default:
    paths:
      /:
        file.dir: {self.www}
        file.dirlisting: ON
''')
        return ['h2o', '-c', conf]


class Lwan(Server):
    """lwan, built from its source (make bench LWAN_SRC=DIR) or given
    built (LWAN=PATH): not packaged in Debian, so optional."""
    name = 'lwan'
    # It compresses small files once into its cache (deflate, with gzip
    # framing for gzip); nothing above its mmap threshold (16 KiB).
    codings = {}

    def __init__(self, run_dir, www, binary=None, tls=None, h2=False):
        super().__init__(run_dir, www, tls, h2)
        self.binary = os.path.abspath(binary) if binary else None

    def available(self):
        if not self.binary:
            return 'no lwan given (make bench LWAN_SRC=DIR or LWAN=PATH)'
        if not os.access(self.binary, os.X_OK):
            return '%s not executable' % self.binary
        return None

    def version(self):
        return _version([self.binary, '--version'])

    def command(self):
        conf = self.conf_path('conf')
        with open(conf, 'w') as f:
            f.write(f'''\
keep_alive_timeout = {KEEPALIVE_S}
quiet = true
threads = 1
listener 127.0.0.1:{self.port}
site {{
    serve_files / {{
        path = {self.www}
        auto index = true
    }}
}}
''')
        return [self.binary, '-c', conf]


class Floor(Server):
    """bench/floor.c: the same fixed reply to every request; with h2,
    bench/floor_h2.c, the same over cleartext HTTP/2 on libnghttp2."""

    def __init__(self, run_dir, www, build, body_bytes, h2=False):
        super().__init__(run_dir, www)
        self.binary = os.path.abspath(os.path.join(
            build, 'bench-floor-h2' if h2 else 'bench-floor'))
        self.body_bytes = body_bytes
        self.h2 = h2
        self.name = '%s-%d' % ('floor-h2' if h2 else 'floor', body_bytes)

    @property
    def label(self):
        return 'floor'

    def available(self):
        if not os.access(self.binary, os.X_OK):
            return '%s not built' % self.binary
        return None

    def version(self):
        return 'fixed %d-byte body%s' % (
            self.body_bytes, ', HTTP/2 by libnghttp2' if self.h2 else '')

    def command(self):
        return [self.binary, str(self.port), str(self.body_bytes)]


class Balanced(Server):
    """deploy/haproxy.cfg (only its addresses changed) in front of n
    sehttpd instances with --proxy-protocol and --health, all on the
    server CPU: what a request costs through the balancer, all processes
    counted."""

    def __init__(self, run_dir, www, binary, n):
        super().__init__(run_dir, www)
        self.n = n
        self.name = 'haproxy-%d' % n
        self.instances = [_Instance(run_dir, www, binary,
                                    '%s-%d' % (self.name, i + 1))
                          for i in range(n)]

    def available(self):
        if not shutil.which('haproxy'):
            return 'haproxy not installed'
        return self.instances[0].available()

    def version(self):
        return '%s, %d x %s' % (_version(['haproxy', '-v']), self.n,
                                self.instances[0].version())

    def command(self):
        with open(HAPROXY_CFG) as f:
            text = f.read()
        text = re.sub(r'(?m)^(\s*bind )\S+',
                      r'\g<1>127.0.0.1:%d' % self.port, text)
        lines = [ln for ln in text.splitlines()
                 if not re.match(r'\s*server ', ln)]
        lines += ['\tserver s%d 127.0.0.1:%d' % (i + 1, inst.port)
                  for i, inst in enumerate(self.instances)]
        conf = self.conf_path('cfg')
        with open(conf, 'w') as f:
            f.write('\n'.join(lines) + '\n')
        return ['haproxy', '-db', '-f', conf]

    def start(self, timeout=10.0):
        self.stop()
        for inst in self.instances:
            err = inst.start(timeout)
            if err:
                self.stop()
                return err
        err = self.launch(timeout)
        if err:
            self.stop()
            return err
        time.sleep(1.2)  # every instance's checks passed (rise 2 x 500 ms)
        return None

    def alive(self):
        return super().alive() and all(i.alive() for i in self.instances)

    def pids(self):
        if not self.alive():
            return []
        return super().pids() + [p for i in self.instances
                                 for p in i.pids()]

    def stop(self):
        super().stop()
        for inst in self.instances:
            inst.stop()


class _Instance(Sehttpd):
    """One sehttpd behind the balancer: the PROXY header, a health URL,
    and no grace (nothing to drain at the end of a benchmark)."""

    def __init__(self, run_dir, www, binary, name):
        super().__init__(run_dir, www, binary)
        self.name = name

    def command(self):
        return super().command()[:-1] + [
            '--proxy-protocol', '--health', '/healthz',
            '--health-grace', '0.001', self.www]
