"""Checks once, before any timing, that a server serves the tree right:
every file byte for byte with a 200, and the listing as a 200 HTML page
naming every entry; for the compression scenarios, that the reply is the
file in the coding asked for (br and zstd decoded by Debian's brotli and
zstd tools); for an HTTPS server, the same over HTTPS, and what its TLS
comes to (tls_probe); for an HTTP/2 server, every file over HTTP/2 by
curl (check_h2)."""

import gzip
import http.client
import re
import shutil
import socket
import ssl
import subprocess
import tempfile
import zlib

import tree

TIMEOUT_S = 10.0


def _client_ctx(max_version=None, tickets=True):
    """A TLS client context that takes any certificate."""
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    if max_version:
        ctx.maximum_version = max_version
    if not tickets:
        ctx.options |= ssl.OP_NO_TICKET
    return ctx


def _get(port, path, tls=False):
    if tls:
        conn = http.client.HTTPSConnection('127.0.0.1', port,
                                           timeout=TIMEOUT_S,
                                           context=_client_ctx())
    else:
        conn = http.client.HTTPConnection('127.0.0.1', port,
                                          timeout=TIMEOUT_S)
    try:
        conn.request('GET', path)
        resp = conn.getresponse()
        return resp.status, resp.getheader('Content-Type', ''), resp.read()
    finally:
        conn.close()


def check_tree(port, expected, tls=False):
    """None if all is right, otherwise what is wrong."""
    try:
        for path, body in expected.items():
            status, _, got = _get(port, path, tls)
            if status != 200:
                return 'GET %s: status %d' % (path, status)
            if got != body:
                return 'GET %s: %d bytes differ from the %d-byte file' % (
                    path, len(got), len(body))
        status, ctype, got = _get(port, tree.LISTING_PATH, tls)
        if status != 200:
            return 'GET %s: status %d' % (tree.LISTING_PATH, status)
        if not ctype.startswith('text/html'):
            return 'GET %s: Content-Type %r' % (tree.LISTING_PATH, ctype)
        missing = [n for n in tree.LISTING_ENTRIES if n.encode() not in got]
        if missing:
            return 'GET %s: listing lacks %d entries (%s...)' % (
                tree.LISTING_PATH, len(missing), missing[0])
    except (OSError, http.client.HTTPException) as e:
        return 'GET failed: %s' % e
    return None


def check_h2(port, expected, tls):
    """None if curl gets every file of expected over HTTP/2 (h2 by ALPN
    over TLS, else prior knowledge) with a 200 and the file's bytes;
    otherwise what is wrong.  One curl per file: curl 7.88's second
    request on a reused prior-knowledge connection fails."""
    if not shutil.which('curl'):
        return 'no curl to check HTTP/2 with'
    scheme = 'https' if tls else 'http'
    for path, body in expected.items():
        with tempfile.NamedTemporaryFile() as tmp:
            cmd = ['curl', '-sS', '--max-time', '%d' % TIMEOUT_S,
                   '-w', '%{http_version} %{http_code}', '-o', tmp.name]
            cmd += ['-k', '--http2'] if tls else ['--http2-prior-knowledge']
            cmd.append('%s://127.0.0.1:%d%s' % (scheme, port, path))
            try:
                out = subprocess.run(cmd, capture_output=True, text=True,
                                     timeout=2 * TIMEOUT_S)
            except subprocess.TimeoutExpired:
                return 'GET %s over HTTP/2: curl did not finish' % path
            if out.returncode:
                return 'GET %s over HTTP/2: curl exit %d: %s' % (
                    path, out.returncode,
                    (out.stderr.strip().splitlines() or ['?'])[-1])
            if out.stdout != '2 200':
                return 'GET %s: HTTP version and status %r, not 2 200' % (
                    path, out.stdout)
            got = tmp.read()
        if got != body:
            return 'GET %s over HTTP/2: %d bytes differ from the %d-byte ' \
                'file' % (path, len(got), len(body))
    return None


def _handshake(port, *args):
    """{'version', 'cipher', 'group', 'alpn'} of an openssl s_client
    handshake with args, or raises ValueError.  A server that picks h2
    sends its binary SETTINGS frame, which s_client prints."""
    try:
        out = subprocess.run(['openssl', 's_client', '-connect',
                              '127.0.0.1:%d' % port] + list(args),
                             input='', capture_output=True, text=True,
                             errors='replace', timeout=TIMEOUT_S)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise ValueError('openssl s_client: %s' % e)
    text = out.stdout
    new = re.search(r'^New, (\S+), Cipher is (\S+)', text, re.M)
    group = re.search(r'^Server Temp Key: ([^,\s]+)', text, re.M)
    alpn = re.search(r'^ALPN protocol: (\S+)', text, re.M)
    if not new:
        raise ValueError('openssl s_client %s: no handshake (%s)' % (
            ' '.join(args), (out.stderr.strip().splitlines() or ['?'])[-1]))
    return {'version': new.group(1), 'cipher': new.group(2),
            'group': group.group(1) if group else '?',
            'alpn': alpn.group(1) if alpn else None}


def _resumes(port, path, max_version=None, tickets=True):
    """Whether a second connection resumes the first one's session (each
    GETs path with HTTP/1.0, reading to the end, which brings TLS 1.3's
    tickets)."""
    ctx = _client_ctx(max_version, tickets)
    session = None
    for i in range(2):
        with socket.create_connection(('127.0.0.1', port),
                                      timeout=TIMEOUT_S) as raw:
            with ctx.wrap_socket(raw, server_hostname='localhost',
                                 session=session) as s:
                s.sendall(b'GET %s HTTP/1.0\r\n\r\n' % path.encode())
                while s.recv(65536):
                    pass
                if i:
                    return s.session_reused
                session = s.session
    return False


RESUMPTION = [('TLS 1.3 ticket', None, True),
              ('TLS 1.2 ticket', ssl.TLSVersion.TLSv1_2, True),
              ('TLS 1.2 session ID', ssl.TLSVersion.TLSv1_2, False)]


def tls_probe(port, path):
    """(None, facts) or (what is wrong, None): facts are what a client
    gets by default ('tls13'), with TLS 1.2 at most ('tls12'), which
    protocol the server picks when h2 and http/1.1 are offered in ALPN
    ('alpn_h2_offered'; wrk and s_time offer none), and {way: whether a
    session is resumed} for each way of RESUMPTION ('resumes')."""
    try:
        facts = {'tls13': _handshake(port),
                 'tls12': _handshake(port, '-tls1_2'),
                 'alpn_h2_offered': _handshake(
                     port, '-alpn', 'h2,http/1.1')['alpn']}
        facts['resumes'] = {way: _resumes(port, path, v, tickets)
                            for way, v, tickets in RESUMPTION}
    except (ValueError, OSError, ssl.SSLError) as e:
        return str(e), None
    return None, facts


def tls_text(facts):
    """facts of tls_probe in a line."""
    return '%s %s %s (TLS 1.2: %s %s); ALPN h2,http/1.1 -> %s; resumes ' \
        'with %s' % (
            facts['tls13']['version'], facts['tls13']['cipher'],
            facts['tls13']['group'], facts['tls12']['cipher'],
            facts['tls12']['group'], facts['alpn_h2_offered'] or 'none',
            ', '.join('%s %s' % (way, 'yes' if ok else 'NO')
                      for way, ok in facts['resumes'].items()))


def check_fixed(port, body_bytes, h2=False):
    """For a floor server: a 200 with a body of body_bytes (with h2, over
    cleartext HTTP/2 by prior knowledge)."""
    if h2:
        return _check_fixed_h2(port, body_bytes)
    try:
        status, _, got = _get(port, '/12.txt')
    except (OSError, http.client.HTTPException) as e:
        return 'GET failed: %s' % e
    if status != 200 or len(got) != body_bytes:
        return 'status %d, %d-byte body' % (status, len(got))
    return None


def _check_fixed_h2(port, body_bytes):
    if not shutil.which('curl'):
        return 'no curl to check HTTP/2 with'
    cmd = ['curl', '-sS', '--max-time', '%d' % TIMEOUT_S,
           '--http2-prior-knowledge', '-w', '\n%{http_version} %{http_code}',
           'http://127.0.0.1:%d/12.txt' % port]
    try:
        out = subprocess.run(cmd, capture_output=True, timeout=2 * TIMEOUT_S)
    except subprocess.TimeoutExpired:
        return 'GET over HTTP/2: curl did not finish'
    body, _, how = out.stdout.rpartition(b'\n')
    if out.returncode or how != b'2 200' or len(body) != body_bytes:
        return 'GET over HTTP/2: exit %d, %r, %d-byte body' % (
            out.returncode, how.decode(errors='replace'), len(body))
    return None


DECODERS = {'br': ['brotli', '-d', '-c'], 'zstd': ['zstd', '-d', '-c', '-q']}


def _decode(coding, got):
    """got decoded, or raises ValueError saying why not."""
    if coding == 'gzip':
        try:
            return gzip.decompress(got)
        except (OSError, EOFError, zlib.error) as e:
            raise ValueError(str(e))
    argv = DECODERS[coding]
    if not shutil.which(argv[0]):
        raise ValueError('no %s tool to decode it' % argv[0])
    done = subprocess.run(argv, input=got, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE)
    if done.returncode:
        raise ValueError(done.stderr.decode(errors='replace').strip())
    return done.stdout


def check_gzip(port, path, body, times=2, coding='gzip'):
    """GETs path times on one connection with Accept-Encoding: coding (the
    later replies may come from a cache of the first); each must be a 200
    with that Content-Encoding whose body decodes to body.  Returns
    (None, compressed body bytes) or (what is wrong, None)."""
    conn = http.client.HTTPConnection('127.0.0.1', port, timeout=TIMEOUT_S)
    sizes = set()
    try:
        for i in range(times):
            conn.request('GET', path, headers={'Accept-Encoding': coding})
            resp = conn.getresponse()
            got = resp.read()
            what = 'GET %s with Accept-Encoding: %s (#%d)' % (path, coding,
                                                             i + 1)
            if resp.status != 200:
                return '%s: status %d' % (what, resp.status), None
            got_coding = resp.getheader('Content-Encoding', '')
            if got_coding.strip().lower() != coding:
                return '%s: Content-Encoding %r, %d-byte body' % (
                    what, got_coding, len(got)), None
            try:
                plain = _decode(coding, got)
            except ValueError as e:
                return '%s: body is not %s: %s' % (what, coding, e), None
            if plain != body:
                return '%s: decompresses to %d bytes that differ from ' \
                    'the %d-byte file' % (what, len(plain), len(body)), None
            sizes.add(len(got))
    except (OSError, http.client.HTTPException) as e:
        return 'GET failed: %s' % e, None
    finally:
        conn.close()
    if len(sizes) != 1:
        return 'GET %s: %s bodies of %s bytes' % (path, coding,
                                                   sorted(sizes)), None
    return None, sizes.pop()
