"""HTTP/2 (RFC 9113): h2 by ALPN on the TLS port and by prior knowledge on
the cleartext one (no h2c Upgrade); the server's SETTINGS; every answer the
same as over HTTP/1.1 but for hop-by-hop headers; 100 concurrent streams
and the 101st refused; flow control over a 10 MiB body; malformed requests
and oversized header lists cost only their stream; CONTINUATION,
rapid-reset, SETTINGS, PING and empty-DATA floods and HPACK abuse end the
connection with bounded memory while other clients are served; a window
never opened and an idle connection are cut at --timeout; SIGTERM lets an
open stream finish; the access log, metrics, curl and h2load.

Two clients: H2Client drives Debian's python3-h2, which also checks every
frame and header field the server sends; RawH2 builds frames by hand (hpack
for header blocks) for what h2 would refuse to send.  Both need
/usr/bin/python3 (run.sh uses it); without h2 the tests are skipped.
"""

import collections
import gzip
import hashlib
import json
import os
import random
import re
import select
import shutil
import signal
import socket
import ssl
import struct
import subprocess
import threading
import time
import unittest
import urllib.request

from httpraw import IO_TIMEOUT, Conn, build_request
from target import (ServerProcess, ServerTestCase, needs_process,
                    session_tree, start_server, temp_dir)
from codings import HAVE_DECODERS, decode
from test_compress_large import (LATE_TIMEOUT, hex_text, rss_kib,
                                 start_late_request_server, text)
from test_tls import make_ca, make_cert

try:
    import h2.config
    import h2.connection
    import h2.events
    import h2.settings
    import hpack
    from hpack.hpack import encode_integer
    HAVE_H2 = True
except ImportError:
    HAVE_H2 = False

needs_h2 = unittest.skipUnless(
    HAVE_H2, 'python3-h2 is not installed (Debian: apt-get install '
    'python3-h2; run the suite with /usr/bin/python3, as run.sh does)')
needs_h2load = unittest.skipUnless(
    shutil.which('h2load'), 'h2load is not installed (Debian: apt-get '
    'install nghttp2-client)')
needs_curl = unittest.skipUnless(shutil.which('curl'),
                                 'curl is not installed')

PREFACE = b'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n'

# Frame types, flags, error codes and settings (RFC 9113 sections 6, 7).
DATA, HEADERS, PRIORITY, RST_STREAM, SETTINGS, PUSH_PROMISE, PING, \
    GOAWAY, WINDOW_UPDATE, CONTINUATION = range(10)
END_STREAM = ACK = 0x1
END_HEADERS = 0x4
PADDED = 0x8
PRIORITY_FLAG = 0x20
NO_ERROR, PROTOCOL_ERROR, INTERNAL_ERROR, FLOW_CONTROL_ERROR, \
    SETTINGS_TIMEOUT, STREAM_CLOSED, FRAME_SIZE_ERROR, REFUSED_STREAM, \
    CANCEL, COMPRESSION_ERROR, CONNECT_ERROR, ENHANCE_YOUR_CALM = range(12)
HEADER_TABLE_SIZE, ENABLE_PUSH, MAX_CONCURRENT_STREAMS, \
    INITIAL_WINDOW_SIZE, MAX_FRAME_SIZE, MAX_HEADER_LIST_SIZE = range(1, 7)

# What the server advertises.
SERVER_MAX_STREAMS = 100
SERVER_MAX_HEADER_LIST = 16384

# Fields HTTP/2 forbids (RFC 9113 section 8.2.2).
HOP_BY_HOP = ('connection', 'keep-alive', 'transfer-encoding', 'upgrade',
              'proxy-connection')

# A flood must not cost the server more than this much memory, and a
# client beside it must be answered within PROBE_S.
RSS_GROWTH_KIB = 64 << 10
FILE_STREAMS_MAX = 16  # H2_FILE_STREAMS_MAX, src/sehttpd/h2.h
PROBE_S = 1.0


def frame(ftype, flags=0, sid=0, payload=b''):
    return struct.pack('>I', len(payload))[1:] + \
        struct.pack('>BBI', ftype, flags, sid) + payload


def settings_frame(values=None):
    return frame(SETTINGS, 0, 0, b''.join(
        struct.pack('>HI', k, v) for k, v in (values or {}).items()))


def window_update(sid, n):
    return frame(WINDOW_UPDATE, 0, sid, struct.pack('>I', n))


def rst_stream(sid, code=CANCEL):
    return frame(RST_STREAM, 0, sid, struct.pack('>I', code))


def literal(index, value):
    """A literal field without indexing whose name is static entry
    index (RFC 7541 section 6.2.2), value not Huffman-coded."""
    assert index < 15 and len(value) < 127
    return bytes((index, len(value))) + value


def static_block(path=b'/a.txt', method=b'GET'):
    """A request's header block using no dynamic table: any number of
    them may be sent without keeping an encoder's state."""
    return {b'GET': b'\x82', b'POST': b'\x83'}[method] + b'\x86' + \
        literal(1, b'test') + literal(4, path)


class Stream:
    """One response as either client saw it."""

    def __init__(self, sid):
        self.sid = sid
        self.status = None
        self.headers = None  # [(name, value)] without pseudo-fields, str
        self.trailers = None
        self.body = bytearray()
        self.data_frames = 0
        self.ended = False
        self.reset = None  # the RST_STREAM error code

    @property
    def done(self):
        return self.ended or self.reset is not None

    def set_headers(self, fields):
        fields = [(n.decode('latin-1') if isinstance(n, bytes) else n,
                   v.decode('latin-1') if isinstance(v, bytes) else v)
                  for n, v in fields]
        status = [v for n, v in fields if n == ':status']
        self.status = int(status[0]) if status else None
        self.headers = [(n, v) for n, v in fields if not n.startswith(':')]

    def all(self, name):
        return [v for n, v in self.headers or () if n == name]

    def header(self, name):
        values = self.all(name)
        assert len(values) <= 1, '%s %d times:\n%s' % (name, len(values),
                                                        self.describe())
        return values[0] if values else None

    def describe(self, limit=300):
        return 'stream %d: status %s, reset %s, ended %s\n%s\n\n%r%s' % (
            self.sid, self.status, self.reset, self.ended,
            '\n'.join('%s: %s' % h for h in self.headers or ()),
            bytes(self.body[:limit]),
            '' if len(self.body) <= limit else
            '... (%d bytes in all)' % len(self.body))


_tls_files = None


def tls_files():
    """A test CA's certificate and the server's options for a pair it
    signed for localhost (made once a run); skips without openssl."""
    global _tls_files
    if not shutil.which('openssl'):
        raise unittest.SkipTest('the openssl command is not installed')
    if _tls_files is None:
        d = temp_dir('sehttpd-h2-tls-')
        make_ca(d)
        make_cert(d, 'localhost', ['DNS:localhost', 'IP:127.0.0.1'])
        _tls_files = (os.path.join(d, 'ca.pem'),
                      ['--tls-cert', os.path.join(d, 'localhost.pem'),
                       '--tls-key', os.path.join(d, 'localhost.key')])
    return _tls_files


def tls_context(ca, alpn=('h2',)):
    ctx = ssl.create_default_context(cafile=ca)
    if alpn:
        ctx.set_alpn_protocols(list(alpn))
    return ctx


class RawH2:
    """An HTTP/2 client connection made of frames built by hand.

    It answers SETTINGS and PING and opens windows as DATA arrives (unless
    told not to), and records what came: streams, the server's settings,
    GOAWAY, PING acknowledgements, and the end of the connection."""

    def __init__(self, host, port, settings=None, preface=True, tls=None,
                 server_hostname=None, rcvbuf=None, timeout=IO_TIMEOUT):
        self.conn = Conn(host, port, timeout=timeout, rcvbuf=rcvbuf,
                         tls=tls, server_hostname=server_hostname)
        self.sock = self.conn.sock
        self.scheme = 'https' if tls else 'http'
        self.enc = hpack.Encoder()
        self.dec = hpack.Decoder()
        self.buf = bytearray()
        self.streams = {}
        self.server_settings = {}
        self.settings_seen = False
        self.settings_acked = 0
        self.first_frame = None
        self.goaway = None  # (last stream id, error code, debug data)
        self.pings = []
        self.frames = collections.Counter()
        self.bytes_in = 0
        self.eof = False
        self.next_sid = 1
        self.replies = True
        self.auto_window = True
        self.block = None  # [sid, fragments, END_STREAM] while in a block
        if preface:
            self.send(PREFACE + settings_frame(settings))

    def close(self):
        self.conn.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def send(self, data):
        self.sock.sendall(data)

    def reply(self, data):
        if self.replies:
            try:
                self.sock.sendall(data)
            except OSError:
                pass

    def stream(self, sid):
        if sid not in self.streams:
            self.streams[sid] = Stream(sid)
        return self.streams[sid]

    def new_sid(self):
        sid = self.next_sid
        self.next_sid += 2
        return sid

    # sending requests

    def headers_frames(self, sid, block, end_stream=True, max_frame=16384):
        """HEADERS, then CONTINUATION frames, carrying block."""
        parts = [block[i:i + max_frame]
                 for i in range(0, len(block), max_frame)] or [b'']
        out = []
        for i, part in enumerate(parts):
            flags = END_HEADERS if i == len(parts) - 1 else 0
            if i == 0:
                flags |= END_STREAM if end_stream else 0
            out.append(frame(HEADERS if i == 0 else CONTINUATION, flags,
                             sid, part))
        return b''.join(out)

    def request_fields(self, path, method='GET', headers=()):
        return [(':method', method), (':scheme', self.scheme),
                (':authority', 'test'), (':path', path)] + list(headers)

    def send_fields(self, fields, end_stream=True, huffman=True, sid=None):
        """Sends exactly these header fields (hpack keeps its table in
        step with the server's); returns the stream id."""
        sid = sid or self.new_sid()
        self.stream(sid)
        self.send(self.headers_frames(sid, self.enc.encode(fields, huffman),
                                      end_stream))
        return sid

    def request(self, path, method='GET', headers=(), end_stream=True):
        return self.send_fields(self.request_fields(path, method, headers),
                                end_stream)

    def get(self, path, method='GET', headers=(), timeout=IO_TIMEOUT):
        s = self.stream(self.request(path, method, headers))
        self.pump(lambda: s.done, timeout)
        return s

    # receiving

    def fill(self, timeout):
        """Reads what is there within timeout; False at the end."""
        if self.eof:
            return False
        pending = isinstance(self.sock, ssl.SSLSocket) and \
            self.sock.pending()
        if not pending:
            r, _, _ = select.select([self.sock], [], [], max(timeout, 0))
            if not r:
                return True
        try:
            data = self.sock.recv(1 << 18)
        except (ConnectionResetError, ssl.SSLError):
            data = b''
        except socket.timeout:
            return True
        if not data:
            self.eof = True
            return False
        self.bytes_in += len(data)
        self.buf += data
        return True

    def read_frame(self, timeout):
        """The next frame (type, flags, stream id, payload), or None at
        the end of the connection or when timeout has passed."""
        deadline = time.monotonic() + timeout
        while True:
            if len(self.buf) >= 9:
                n = int.from_bytes(self.buf[:3], 'big')
                if len(self.buf) >= 9 + n:
                    head = bytes(self.buf[:9])
                    payload = bytes(self.buf[9:9 + n])
                    del self.buf[:9 + n]
                    sid = int.from_bytes(head[5:9], 'big') & 0x7fffffff
                    return head[3], head[4], sid, payload
            left = deadline - time.monotonic()
            if self.eof or left <= 0:
                return None
            self.fill(left)

    def handle(self, f):
        ftype, flags, sid, p = f
        self.frames[ftype] += 1
        if self.first_frame is None:
            self.first_frame = f
        if self.block is not None and ftype != CONTINUATION:
            raise AssertionError('frame type %d inside a header block'
                                 % ftype)
        if ftype == SETTINGS:
            if flags & ACK:
                self.settings_acked += 1
                return
            for i in range(0, len(p) - 5, 6):
                k, v = struct.unpack('>HI', p[i:i + 6])
                self.server_settings[k] = v
            self.settings_seen = True
            self.reply(frame(SETTINGS, ACK))
        elif ftype == HEADERS:
            if flags & PADDED:
                p = p[1:len(p) - p[0]]
            if flags & PRIORITY_FLAG:
                p = p[5:]
            self.block = [sid, [p], flags & END_STREAM]
            if flags & END_HEADERS:
                self.end_block()
        elif ftype == CONTINUATION:
            if self.block is None or self.block[0] != sid:
                raise AssertionError('CONTINUATION on stream %d outside '
                                     'its block' % sid)
            self.block[1].append(p)
            if flags & END_HEADERS:
                self.end_block()
        elif ftype == DATA:
            s = self.stream(sid)
            n = len(p)
            if flags & PADDED:
                p = p[1:len(p) - p[0]]
            s.body += p
            s.data_frames += 1
            if flags & END_STREAM:
                s.ended = True
            if self.auto_window and n:
                self.reply(window_update(0, n) +
                           (window_update(sid, n) if not s.ended else b''))
        elif ftype == RST_STREAM:
            self.stream(sid).reset = struct.unpack('>I', p[:4])[0]
        elif ftype == GOAWAY:
            last, code = struct.unpack('>II', p[:8])
            self.goaway = (last & 0x7fffffff, code, p[8:])
        elif ftype == PING:
            if flags & ACK:
                self.pings.append(p)
            else:
                self.reply(frame(PING, ACK, 0, p))
        elif ftype == PUSH_PROMISE:
            raise AssertionError('PUSH_PROMISE from the server')

    def end_block(self):
        sid, parts, end = self.block
        self.block = None
        fields = self.dec.decode(b''.join(parts), raw=True)
        s = self.stream(sid)
        if s.status is None:
            s.set_headers(fields)
        else:
            s.trailers = fields
        if end:
            s.ended = True

    def pump(self, until=lambda: False, timeout=IO_TIMEOUT):
        """Handles frames until until() holds (True), the connection ends
        or timeout passes (until()'s value then)."""
        deadline = time.monotonic() + timeout
        while not until():
            f = self.read_frame(deadline - time.monotonic())
            if f is None:
                return until()
            self.handle(f)
        return True

    def handshake(self, timeout=5):
        """Waits for the server's SETTINGS (answered) and the ACK of ours."""
        ok = self.pump(lambda: self.settings_seen and self.settings_acked,
                       timeout)
        assert ok, 'no SETTINGS and ACK from the server within %.0f s ' \
            '(frames %r, eof %s)' % (timeout, self.frames, self.eof)
        assert self.first_frame[0] == SETTINGS, \
            'first frame of type %d, not SETTINGS' % self.first_frame[0]
        return self

    def wait_end(self, timeout):
        """Reads (and handles) until the connection ends; True if it did."""
        return self.pump(lambda: self.eof, timeout)


def pump_h2(c, until, timeout=IO_TIMEOUT):
    """Reads c's socket (c.sock, c.h2, c.eof, c.on_event, c.flush: an
    h2 client connection) and handles its events until until() or the
    connection ends or timeout passes; returns until()."""
    deadline = time.monotonic() + timeout
    while not until():
        left = deadline - time.monotonic()
        if left <= 0 or c.eof:
            return until()
        pending = isinstance(c.sock, ssl.SSLSocket) and c.sock.pending()
        if not pending:
            r, _, _ = select.select([c.sock], [], [], left)
            if not r:
                continue
        try:
            data = c.sock.recv(1 << 18)
        except (ConnectionResetError, ssl.SSLError):
            data = b''
        if not data:
            c.eof = True
            continue
        for ev in c.h2.receive_data(data):
            c.on_event(ev)
        c.flush()
    return True


class H2Client:
    """An HTTP/2 client connection driven by the h2 library, which checks
    what the server sends and raises on any protocol error."""

    def __init__(self, host, port, tls=None, server_hostname=None,
                 timeout=IO_TIMEOUT):
        self.conn = Conn(host, port, timeout=timeout, tls=tls,
                         server_hostname=server_hostname)
        self.sock = self.conn.sock
        self.scheme = 'https' if tls else 'http'
        self.h2 = h2.connection.H2Connection(
            config=h2.config.H2Configuration(client_side=True,
                                             header_encoding=None))
        self.h2.initiate_connection()
        self.flush()
        self.streams = {}
        self.terminated = None
        self.settings_seen = False
        self.eof = False

    def close(self):
        self.conn.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def flush(self):
        data = self.h2.data_to_send()
        if data:
            self.sock.sendall(data)

    def request(self, path, method='GET', headers=()):
        sid = self.h2.get_next_available_stream_id()
        self.streams[sid] = Stream(sid)
        self.h2.send_headers(sid, [(':method', method),
                                   (':scheme', self.scheme),
                                   (':authority', 'test'),
                                   (':path', path)] + list(headers),
                             end_stream=True)
        self.flush()
        return sid

    def get(self, path, method='GET', headers=(), timeout=IO_TIMEOUT):
        s = self.streams[self.request(path, method, headers)]
        assert self.pump(lambda: s.done, timeout), \
            'no whole response to %s %s within %.0f s: %s' % (
                method, path, timeout, s.describe())
        return s

    def pump(self, until, timeout=IO_TIMEOUT):
        return pump_h2(self, until, timeout)

    def on_event(self, ev):
        E = h2.events
        if isinstance(ev, E.ResponseReceived):
            self.streams[ev.stream_id].set_headers(ev.headers)
        elif isinstance(ev, E.TrailersReceived):
            self.streams[ev.stream_id].trailers = ev.headers
        elif isinstance(ev, E.DataReceived):
            s = self.streams[ev.stream_id]
            s.body += ev.data
            s.data_frames += 1
            self.h2.acknowledge_received_data(ev.flow_controlled_length,
                                              ev.stream_id)
        elif isinstance(ev, E.StreamEnded):
            self.streams[ev.stream_id].ended = True
        elif isinstance(ev, E.StreamReset):
            self.streams[ev.stream_id].reset = ev.error_code
        elif isinstance(ev, E.ConnectionTerminated):
            self.terminated = ev
        elif isinstance(ev, E.RemoteSettingsChanged):
            self.settings_seen = True
        elif isinstance(ev, E.InformationalResponseReceived):
            raise AssertionError('unexpected 1xx: %r' % ev)

    def handshake(self, timeout=5):
        assert self.pump(lambda: self.settings_seen, timeout), \
            'no SETTINGS from the server within %.0f s' % timeout
        return self


def hpack_bomb(sid, before=b''):
    """A header block for stream sid (ending it): before, a literal
    "x: v...v" of 4 KB added to the dynamic table (index 62), then 0xbe,
    indexed field 62, to the end of HEADERS and three CONTINUATIONs: 64
    KiB that decode to 256 MB of fields."""
    block = before + b'\x40\x01x' + encode_integer(4000, 7) + b'v' * 4000
    frames = [frame(HEADERS, END_STREAM, sid,
                    block + b'\xbe' * (16384 - len(block)))]
    for i in range(3):
        frames.append(frame(CONTINUATION, END_HEADERS if i == 2 else 0,
                            sid, b'\xbe' * 16384))
    return b''.join(frames)


class Http2Mixin:
    """Helpers shared by the test classes; self.host, self.port."""

    tls = None  # an ssl.SSLContext offering h2, for the TLS classes
    tls_h1 = None  # one offering http/1.1

    def raw(self, settings=None, **kw):
        c = RawH2(self.host, self.port, settings, tls=self.tls,
                  server_hostname='localhost' if self.tls else None, **kw)
        self.addCleanup(c.close)
        return c

    def queued_body(self, url, **settings):
        """A raw connection with windows of 1 GiB and a 4 KiB receive
        buffer, and a stream for url whose body the server has put in its
        socket by the time this returns (most of it still unread)."""
        settings = dict({INITIAL_WINDOW_SIZE: 1 << 30}, **settings)
        c = self.raw(settings, rcvbuf=4096).handshake()
        c.auto_window = False
        c.send(window_update(0, 1 << 30))
        s = c.stream(c.request(url))
        time.sleep(0.3)
        return c, s

    def read_slowly(self, c, s, delay, window_after=None):
        """Reads s to its end, delay seconds after each DATA frame: a
        slow but steady reader.  With c.auto_window a WINDOW_UPDATE goes
        back per frame; window_after=N sends one alone once N bytes are
        in."""
        deadline = time.monotonic() + 30
        while not s.done and time.monotonic() < deadline:
            f = c.read_frame(deadline - time.monotonic())
            if f is None:
                break
            c.handle(f)
            if window_after is not None and len(s.body) >= window_after:
                window_after = None
                c.send(window_update(0, 1 << 20))
            if f[0] == DATA:
                time.sleep(delay)

    def client(self):
        c = H2Client(self.host, self.port, tls=self.tls,
                     server_hostname='localhost' if self.tls else None)
        self.addCleanup(c.close)
        return c

    def h1(self, path, method='GET', headers=()):
        """The same request over HTTP/1.1."""
        with Conn(self.host, self.port, tls=self.tls_h1,
                  server_hostname='localhost' if self.tls else None) as c:
            c.send(build_request(method, path, headers=list(headers)))
            return c.read_response(method)

    def assert_h2_fields(self, s):
        for name, _ in s.headers:
            self.assertEqual(name, name.lower(), 'an uppercase field name '
                             'in\n' + s.describe())
            self.assertNotIn(name, HOP_BY_HOP, 'a connection-specific '
                             'field in\n' + s.describe())
        cl = s.header('content-length')
        if cl is not None and s.status not in (304,) and s.body:
            self.assertEqual(int(cl), len(s.body), s.describe())

    def assert_same_as_http11(self, s, r, what='', decode=False):
        """An HTTP/2 response s says what the HTTP/1.1 response r says:
        status, body and every header field but Date and the hop-by-hop
        ones (Content-Length may join a body HTTP/1.1 sent chunked)."""
        self.assertIsNotNone(s.status, what + ': no response\n'
                             + s.describe())
        self.assertEqual(s.status, r.status, '%s\nHTTP/2 %s\nHTTP/1.1 %s'
                         % (what, s.describe(), r.describe()))
        self.assert_h2_fields(s)
        a = sorted((n.lower(), v) for n, v in r.headers
                   if n.lower() not in HOP_BY_HOP + ('date',))
        b = sorted((n, v) for n, v in s.headers if n != 'date')
        if any('chunked' in v.lower() for v in r.all('Transfer-Encoding')):
            b = [h for h in b if h[0] != 'content-length']
        self.assertEqual(b, a, '%s: header fields differ\nHTTP/2 %s\n'
                         'HTTP/1.1 %s' % (what, s.describe(), r.describe()))
        body2, body1 = bytes(s.body), r.body
        if decode and s.header('content-encoding') == 'gzip':
            body2, body1 = gzip.decompress(body2), gzip.decompress(body1)
        self.assertEqual(body2, body1, '%s: bodies differ' % what)

    def assert_h2_file(self, s, url, what=''):
        data = self.tree.files[url]
        self.assertEqual(s.status, 200, '%s%s\n%s' % (url, what,
                                                        s.describe()))
        self.assertTrue(s.ended, s.describe())
        self.assertEqual(len(s.body), len(data), url + what)
        self.assertTrue(bytes(s.body) == data, '%s%s: body differs'
                        % (url, what))

    def interleaved_bodies(self):
        """Eight 1 MiB bodies at once on one connection (their DATA
        frames interleave), and small ones beside them."""
        c = self.client().handshake()
        urls = ['/big/1m.bin'] * 8 + ['/a.txt', '/content/data.json',
                                      '/content/big.txt']
        sids = [c.request(u) for u in urls]
        self.assertTrue(c.pump(lambda: all(c.streams[s].done for s in sids),
                               30), 'not all done in 30 s')
        for sid, url in zip(sids, urls):
            self.assert_h2_file(c.streams[sid], url, ' (stream %d)' % sid)

    def stalled_stream_alone(self):
        """A stream whose window stays shut holds up no other."""
        c = self.raw({INITIAL_WINDOW_SIZE: 0}).handshake()
        c.send(window_update(0, 1 << 30))
        stuck = c.stream(c.request('/big/1m.bin'))
        for url in ('/a.txt', '/content/big.txt', '/content/small.txt'):
            s = c.stream(c.request(url))
            c.send(window_update(s.sid, 1 << 20))
            self.assertTrue(c.pump(lambda: s.done, 5), s.describe())
            self.assert_h2_file(s, url)
        self.assertFalse(stuck.done, stuck.describe())
        self.assertEqual(stuck.body, b'')
        c.send(window_update(stuck.sid, 1 << 20))
        self.assertTrue(c.pump(lambda: stuck.done, 10), stuck.describe())
        self.assert_h2_file(stuck, '/big/1m.bin')

    def big_body(self, c):
        """GET /big/10m.bin on c (default windows, acknowledged as read)."""
        url = '/big/10m.bin'
        s = c.get(url, timeout=30)
        self.assertEqual(s.status, 200, s.describe())
        self.assertTrue(s.ended)
        want = self.tree.files[url]
        self.assertEqual(len(s.body), len(want))
        self.assertEqual(hashlib.sha256(s.body).hexdigest(),
                         hashlib.sha256(want).hexdigest())
        self.assertGreater(s.data_frames, len(want) // 16384 - 1)


def h2load(url, n=20000, c=10, m=50, extra=()):
    """Runs h2load; returns (output, {total, started, done, succeeded,
    failed, errored, timeout})."""
    p = subprocess.run(['timeout', '120', 'h2load', '-n', str(n), '-c',
                        str(c), '-m', str(m)] + list(extra) + [url],
                       capture_output=True, timeout=130,
                       stdin=subprocess.DEVNULL)
    out = p.stdout.decode('utf-8', 'replace') + \
        p.stderr.decode('utf-8', 'replace')
    m = re.search(r'requests: (\d+) total, (\d+) started, (\d+) done, '
                  r'(\d+) succeeded, (\d+) failed, (\d+) errored, '
                  r'(\d+) timeout', out)
    if not m:
        return out, None
    keys = ('total', 'started', 'done', 'succeeded', 'failed', 'errored',
            'timeout')
    return out, dict(zip(keys, map(int, m.groups())))


@needs_h2
@needs_process('HTTP/2 is sehttpd\'s; starts it with --access-log and '
               '--metrics')
class Http2Test(Http2Mixin, ServerTestCase):
    """Prior knowledge on the cleartext port."""

    @classmethod
    def setUpClass(cls):
        cls.log_path = os.path.join(temp_dir(), 'access.log')
        cls.server_args = ('--access-log', cls.log_path,
                           '--metrics', '127.0.0.1:0')
        super().setUpClass()

    def setUp(self):
        super().setUp()
        self.host, self.port = self.target.host, self.target.port

    def test_settings(self):
        c = self.raw().handshake()
        self.assertEqual(c.server_settings.get(MAX_CONCURRENT_STREAMS),
                         SERVER_MAX_STREAMS, c.server_settings)
        self.assertEqual(c.server_settings.get(MAX_HEADER_LIST_SIZE),
                         SERVER_MAX_HEADER_LIST, c.server_settings)
        # The same through h2's eyes.
        hc = self.client().handshake()
        rs = hc.h2.remote_settings
        self.assertEqual(rs.max_concurrent_streams, SERVER_MAX_STREAMS)
        self.assertEqual(rs.max_header_list_size, SERVER_MAX_HEADER_LIST)
        self.assert_h2_file(hc.get('/a.txt'), '/a.txt')

    def test_preface_byte_by_byte(self):
        c = self.raw(preface=False)
        c.conn.send_slowly(PREFACE + settings_frame(), step=1, pause=0.002)
        c.handshake()
        self.assert_h2_file(c.get('/hello.txt'), '/hello.txt')

    def test_continuation_heads_cut_by_reads(self):
        """A header block in HEADERS and three CONTINUATION frames, sent a
        byte at a time: answered as when sent whole.  Before, libnghttp2
        1.52 counted each piece of a CONTINUATION head as a frame, passed
        its limit of 8, and the connection ended without a word."""
        for step in (None, 3, 1):
            with self.subTest(step=step):
                c = self.raw().handshake()
                sid = c.new_sid()
                block = c.enc.encode(c.request_fields(
                    '/hello.txt', headers=[('x-pad', 'p' * 60)]))
                data = c.headers_frames(sid, block,
                                        max_frame=len(block) // 4 + 1)
                if step:
                    c.conn.send_slowly(data, step=step, pause=0.002)
                else:
                    c.send(data)
                s = c.stream(sid)
                c.pump(lambda: s.done, 5)
                self.assert_h2_file(s, '/hello.txt')

    def test_h2c_upgrade_is_ignored(self):
        with self.target.conn() as c:
            c.send(build_request('GET', '/a.txt', headers=[
                ('Connection', 'Upgrade, HTTP2-Settings'),
                ('Upgrade', 'h2c'), ('HTTP2-Settings', 'AAMAAABkAAQAAP__')]))
            r = c.read_response()
            self.assertEqual((r.version, r.status, r.body),
                             ('HTTP/1.1', 200, b'hello world\n'),
                             r.describe())
            self.assertIsNone(r.header('Upgrade'))
            c.send(build_request('GET', '/b.txt'))
            r = c.read_response()
            self.assertEqual((r.status, r.body),
                             (200, b'second small file\n'))

    def test_same_answers_as_http11(self):
        cases = [
            ('GET', '/a.txt', ()),
            ('GET', '/mime/style.css', ()),
            ('GET', '/content/page.html', ()),
            ('GET', '/nope.txt', ()),
            ('GET', '/dir_noindex', ()),
            ('GET', '/dir_noindex/', ()),
            ('GET', '/many/?sort=size&order=desc', ()),
            ('GET', '/dir_noindex/', (('accept', 'application/json'),)),
            ('GET', '/dir_index/', ()),
            ('GET', '/escape/space%20name.txt', ()),
            ('GET', '/content/small.txt', (('range', 'bytes=0-9'),)),
            ('GET', '/big/1m.bin', (('range', 'bytes=1000-1099'),)),
            ('GET', '/content/small.txt', (('range', 'bytes=5000-'),)),
            ('HEAD', '/content/big.txt', ()),
            ('HEAD', '/dir_noindex/', ()),
            ('OPTIONS', '/a.txt', ()),
            ('POST', '/a.txt', ()),
            ('GET', '/.env', ()),
            ('GET', '/dots/.hidden.txt', ()),
            ('GET', '/.well-known/security.txt', ()),
            ('GET', '/link_secret.txt', ()),
            ('GET', '/content/big.txt', (('accept-encoding', 'gzip'),)),
            ('GET', '/content/pre.txt', (('accept-encoding', 'gzip'),)),
            ('GET', '/content/image.png', (('accept-encoding', 'gzip'),)),
            ('GET', '/empty.txt', ()),
        ]
        c = self.client()
        for method, path, headers in cases:
            with self.subTest(method=method, path=path, headers=headers):
                s = c.get(path, method, headers)
                self.assertTrue(s.ended, s.describe())
                r = self.h1(path, method, [h for h in headers])
                self.assert_same_as_http11(s, r, '%s %s %r'
                                           % (method, path, headers),
                                           decode=True)
                if method == 'HEAD':
                    self.assertEqual(s.body, b'')
                if method == 'HEAD' and path in self.tree.files:
                    self.assertIsNotNone(s.header('content-length'),
                                         s.describe())

    def test_file_and_errors(self):
        c = self.client()
        self.assert_h2_file(c.get('/content/big.txt'), '/content/big.txt')
        s = c.get('/nope.txt')
        self.assertEqual(s.status, 404)
        self.assertTrue(s.header('content-type').startswith('text/html'))
        self.assertIn(b'404', s.body)
        s = c.get('/dir_noindex')
        self.assertEqual(s.status, 301, s.describe())
        self.assertTrue(s.header('location').endswith('/dir_noindex/'),
                        s.describe())
        for hidden in ('/.env', '/.git/config', '/dots/.hidden.txt'):
            self.assertEqual(c.get(hidden).status, 404, hidden)
        self.assert_h2_file(c.get('/.well-known/security.txt'),
                         '/.well-known/security.txt')

    def test_listing_not_chunk_framed(self):
        c = self.client()
        s = c.get('/dir_noindex/')
        self.assertEqual(s.status, 200, s.describe())
        self.assertTrue(s.header('content-type').startswith('text/html'))
        body = bytes(s.body)
        self.assertTrue(body.lstrip().lower().startswith(b'<!doctype html'),
                        body[:100])
        for name, _ in self.tree.entries('/dir_noindex/'):
            self.assertIn(name.encode(), body)
        self.assertEqual(body, self.h1('/dir_noindex/').body)

    def test_conditional_and_ranges(self):
        c = self.client()
        url = '/content/small.txt'
        s = c.get(url)
        etag, lm = s.header('etag'), s.header('last-modified')
        self.assertTrue(etag and lm, s.describe())
        self.assertEqual(s.header('accept-ranges'), 'bytes')
        s = c.get(url, headers=[('if-none-match', etag)])
        self.assertEqual(s.status, 304, s.describe())
        self.assertEqual((s.body, s.header('etag')), (b'', etag))
        s = c.get(url, headers=[('if-modified-since', lm)])
        self.assertEqual(s.status, 304, s.describe())
        s = c.get(url, headers=[('range', 'bytes=0-9')])
        self.assertEqual(s.status, 206, s.describe())
        self.assertEqual(bytes(s.body), self.tree.files[url][:10])
        self.assertEqual(s.header('content-range'),
                         'bytes 0-9/%d' % len(self.tree.files[url]))
        self.assertEqual(s.header('content-length'), '10')
        s = c.get(url, headers=[('range', 'bytes=5000-')])
        self.assertEqual(s.status, 416, s.describe())
        self.assertEqual(s.header('content-range'),
                         'bytes */%d' % len(self.tree.files[url]))

    def test_head(self):
        c = self.raw().handshake()
        s = c.get('/big/1m.bin', 'HEAD')
        self.assertEqual(s.status, 200, s.describe())
        self.assertTrue(s.ended)
        self.assertEqual(s.header('content-length'), str(1 << 20))
        self.assertEqual(s.body, b'')
        self.assertEqual(c.frames[DATA], s.data_frames)
        self.assertLessEqual(s.data_frames, 1, 'HEAD got DATA frames')

    def test_refused_head_has_no_data(self):
        """A HEAD refused (400, 414) is answered, as any HEAD, without
        DATA: a client takes DATA on a HEAD stream for a malformed one."""
        c = self.raw().handshake()
        cases = [
            ('/a.txt#f', (), 400),
            ('/' + 'x' * 9000, (), 414),
            ('/a.txt', [('host', 'other')], 400),
        ]
        for path, headers, status in cases:
            with self.subTest(path=path[:20], headers=headers):
                s = c.get(path, 'HEAD', headers)
                self.assertEqual(s.status, status, s.describe())
                self.assertTrue(s.ended, s.describe())
                self.assertEqual(s.body, b'', 'HEAD got a body')
                self.assertIsNone(c.goaway)
        self.assert_h2_file(c.get('/a.txt'), '/a.txt', ' after them')

    def test_gzip(self):
        c = self.client()
        url = '/content/big.txt'
        s = c.get(url, headers=[('accept-encoding', 'gzip')])
        self.assertEqual(s.status, 200, s.describe())
        self.assertEqual(s.header('content-encoding'), 'gzip', s.describe())
        self.assertIn('accept-encoding', (s.header('vary') or '').lower())
        self.assertLess(len(s.body), len(self.tree.files[url]) // 2)
        self.assertEqual(gzip.decompress(bytes(s.body)),
                         self.tree.files[url])

    def test_bodies_from_memory_not_held_back(self):
        # Bodies over 4 KiB the server has in memory (a small file in the
        # cache, a compressed variant, a precompressed sibling): each
        # answered at once, as over HTTP/1.1, not after a timer's 200 ms.
        gz = [('accept-encoding', 'gzip')]
        c = self.raw().handshake()
        for url, headers in (('/content/data.json', []),
                             ('/content/big.txt', gz),
                             ('/content/pre.txt', gz)):
            times = []
            for _ in range(5):
                start = time.monotonic()
                s = c.get(url, headers=headers)
                times.append(time.monotonic() - start)
                body = bytes(s.body)
                if headers:
                    self.assertEqual(s.header('content-encoding'), 'gzip')
                    body = gzip.decompress(body)
                self.assertEqual(body, self.tree.files[url])
            times.sort()
            self.assertLess(times[2], 0.1, '%s %r: %s s' % (
                url, headers, ', '.join('%.3f' % t for t in times)))

    def test_100_streams_at_once(self):
        c = self.client().handshake()
        urls = ['/many/file_%03d.txt' % i for i in range(100)]
        sids = [c.request(u) for u in urls]
        self.assertTrue(c.pump(lambda: all(c.streams[s].done for s in sids),
                               15), 'not all 100 streams done in 15 s')
        for sid, url in zip(sids, urls):
            self.assert_h2_file(c.streams[sid], url)
        self.assert_h2_file(c.get('/a.txt'), '/a.txt')

    def test_stream_over_the_limit_ends_the_connection(self):
        """Up to the 100 streams the SETTINGS allow, every one is answered;
        a client that then opens one more has broken the limit it
        acknowledged.  libnghttp2 makes that a connection error (GOAWAY
        PROTOCOL_ERROR; RFC 9113 5.1.2 also allows a stream error, which
        nginx and h2o choose), and everyone else is served meanwhile."""
        # A window of 0 holds every response open after its HEADERS (a
        # body from memory: only FILE_STREAMS_MAX are answered from files
        # at once).
        c = self.raw({INITIAL_WINDOW_SIZE: 0}).handshake()
        url = '/a.txt'
        sids = [2 * i + 1 for i in range(SERVER_MAX_STREAMS)]
        c.send(b''.join(c.headers_frames(sid, static_block(url.encode()))
                        for sid in sids))
        self.assertTrue(c.pump(lambda: all(c.stream(s).status == 200
                                           for s in sids), 10),
                        'not all of the 100 streams got their HEADERS')
        self.assertIsNone(c.goaway)
        over = 2 * SERVER_MAX_STREAMS + 1
        c.send(c.headers_frames(over, static_block(url.encode())))
        self.assertTrue(c.pump(lambda: c.goaway is not None, 5),
                        'stream %d over the limit: no GOAWAY' % over)
        self.assertEqual(c.goaway[1], PROTOCOL_ERROR, c.goaway)
        self.assertEqual(c.goaway[0], 2 * SERVER_MAX_STREAMS - 1, c.goaway)
        c.close()
        other = self.raw().handshake()
        self.assert_h2_file(other.get('/a.txt'), '/a.txt')
        other.close()

    def test_10mib_with_flow_control(self):
        self.big_body(self.client())

    def test_interleaved_bodies(self):
        self.interleaved_bodies()

    def test_stalled_stream_alone(self):
        self.stalled_stream_alone()

    def test_a_file_that_shrinks_resets_its_stream_alone(self):
        """A file truncated in place while its stream waits for window:
        the frame that can no longer be filled is not sent, the stream is
        reset, and the connection's other streams go on."""
        url = '/h2-shrinks.bin'
        path = self.tree.path(url)
        data = os.urandom(1 << 20)
        with open(path, 'wb') as f:
            f.write(data)
        self.addCleanup(os.unlink, path)
        c = self.raw({INITIAL_WINDOW_SIZE: 0}).handshake()
        c.auto_window = False  # the windows below, no more
        c.send(window_update(0, 1 << 30))
        s = c.stream(c.request(url))
        c.send(window_update(s.sid, 100000))
        self.assertTrue(c.pump(lambda: len(s.body) >= 100000, 5),
                        s.describe())
        os.truncate(path, 150000)
        c.send(window_update(s.sid, 1 << 20))
        self.assertTrue(c.pump(lambda: s.done, 5), s.describe())
        self.assertEqual(s.reset, INTERNAL_ERROR, s.describe())
        self.assertFalse(s.ended)
        self.assertTrue(data.startswith(bytes(s.body)), 'not a prefix')
        self.assertGreaterEqual(len(s.body), 100000)
        self.assertLess(len(s.body), 150000)
        self.assertFalse(c.eof or c.goaway, (c.eof, c.goaway))
        other = c.stream(c.request('/a.txt'))
        c.send(window_update(other.sid, 1 << 20))
        self.assertTrue(c.pump(lambda: other.done, 5), other.describe())
        self.assert_h2_file(other, '/a.txt')

    def test_malformed_requests_are_stream_errors(self):
        base = [(':method', 'GET'), (':scheme', 'http'),
                (':authority', 'test')]
        cases = {
            'no :path': base,
            ':path not starting with /': base + [(':path', 'a.txt')],
            'empty :path': base + [(':path', '')],
            'uppercase field name': base + [(':path', '/a.txt'),
                                            ('X-Upper', 'v')],
            'connection: keep-alive': base + [(':path', '/a.txt'),
                                              ('connection', 'keep-alive')],
            'no :method': base[1:] + [(':path', '/a.txt')],
            # RFC 9113 section 8.3's other MUSTs.
            'unknown pseudo-field': base + [(':path', '/a.txt'),
                                            (':foo', 'bar')],
            'pseudo-field after a regular one': base[:2] + [
                ('accept', '*/*'), (':authority', 'test'),
                (':path', '/a.txt')],
            'two :path': base + [(':path', '/a.txt'), (':path', '/b.txt')],
            'te: gzip': base + [(':path', '/a.txt'), ('te', 'gzip')],
            'transfer-encoding': base + [(':path', '/a.txt'),
                                         ('transfer-encoding', 'chunked')],
        }
        for what, fields in cases.items():
            with self.subTest(what):
                c = self.raw().handshake()
                s = c.stream(c.send_fields(fields))
                c.pump(lambda: s.done, 5)
                self.assertEqual(s.reset, PROTOCOL_ERROR, s.describe())
                self.assertIsNone(c.goaway, 'a connection error')
                # The next stream on the connection is served (and the
                # server's HPACK table kept in step).
                self.assert_h2_file(c.get('/a.txt'), '/a.txt')
                self.assert_h2_file(c.get('/a.txt', headers=[('x-a', '1')]),
                                 '/a.txt')

    def test_header_list_too_large(self):
        cases = {
            'a 20 KB field': [('x-big', 'b' * 20000)],
            '150 fields': [('x-f%03d' % i, str(i)) for i in range(150)],
            '17 fields of 1 KB': [('x-fill-%02d' % i, 'v' * 990)
                                  for i in range(17)],
        }
        c = self.raw().handshake()
        for what, fields in cases.items():
            with self.subTest(what):
                s = c.stream(c.send_fields(
                    c.request_fields('/a.txt', headers=fields),
                    huffman=False))
                c.pump(lambda: s.done, 5)
                self.assertTrue(s.status == 431 or s.reset is not None,
                                s.describe())
                self.assertIsNone(c.goaway)
                self.assert_h2_file(c.get('/a.txt'), '/a.txt',
                                    ' after ' + what)
        # Under the limit: served.
        s = c.get('/a.txt', headers=[('x-fill-%02d' % i, 'v' * 990)
                                     for i in range(14)])
        self.assert_h2_file(s, '/a.txt')

    def test_cookie_crumbs_are_one_field(self):
        """Browsers send each cookie as a field of its own over HTTP/2
        (RFC 9113 8.2.3), which must be joined into one before the head
        is read as HTTP/1.1's: 120 crumbs were 120 fields and a 431 over
        HTTP/2, where HTTP/1.1 carries them on one line and is answered."""
        crumbs = ['c%03d=%s' % (i, 'v' * 20) for i in range(120)]
        r = self.h1('/a.txt', headers=[('Cookie', '; '.join(crumbs))])
        self.assertEqual(r.status, 200)
        c = self.raw().handshake()
        s = c.get('/a.txt', headers=[('cookie', v) for v in crumbs])
        self.assert_h2_file(s, '/a.txt', ' with 120 cookie crumbs')
        # Joined, they still meet the head's size limit.
        s = c.get('/a.txt', headers=[('cookie', 'c%03d=%s' % (i, 'v' * 200))
                                     for i in range(100)])
        self.assertEqual(s.status, 431, s.describe())

    def test_a_header_block_that_decodes_to_megabytes(self):
        """One 4 KB field in the dynamic table, then 64 KiB of 1-byte
        references to it: 256 MB of fields.  The stream is reset once
        the block decodes past four times the 431 limit; before, every
        field was decoded and checked to the block's end (7 s of CPU for
        40 such streams) to answer 431, while the thread's other clients
        waited."""
        c = self.raw().handshake()
        sid = c.new_sid()
        s = c.stream(sid)
        c.send(hpack_bomb(sid, c.enc.encode(c.request_fields('/a.txt'))))
        c.pump(lambda: s.done, 5)
        self.assertIsNone(s.status, s.describe())
        self.assertIsNotNone(s.reset, s.describe())
        self.assertIsNone(c.goaway)
        # The connection goes on (its HPACK tables, past the entry, are
        # no longer alike: a PING, not a request).
        c.send(frame(PING, 0, 0, b'stillup!'))
        self.assertTrue(c.pump(lambda: c.pings, 5), 'PING not answered')

    def test_trailers_that_decode_to_megabytes(self):
        """The same in a POST's trailers, which nothing reads but which
        still cost to decode: reset too.  Before, they were decoded to
        the end: a client sending them kept a core busy."""
        c = self.raw().handshake()
        sid = c.new_sid()
        s = c.stream(sid)
        head = c.enc.encode(c.request_fields('/a.txt', 'POST'))
        c.send(frame(HEADERS, END_HEADERS, sid, head) +
               frame(DATA, 0, sid, b'body'))
        c.send(hpack_bomb(sid))
        c.pump(lambda: s.reset is not None, 5)
        # INTERNAL_ERROR: the decoding was cut short.  Decoded to the
        # end, the stream ended with the request (a NO_ERROR reset).
        self.assertEqual(s.reset, 2, s.describe())
        self.assertIsNone(c.goaway)
        c.send(frame(PING, 0, 0, b'stillup!'))
        self.assertTrue(c.pump(lambda: c.pings, 5), 'PING not answered')

    def test_access_log(self):
        c = self.client()
        self.assert_h2_file(c.get('/a.txt?h2log=1',
                               headers=[('user-agent', 'h2-agent/1')]),
                         '/a.txt')
        want = re.compile(r'^127\.0\.0\.1 - - \[[^]]+\] "GET /a\.txt\?h2log=1 '
                          r'HTTP/2\.0" 200 12 "-" "h2-agent/1"$', re.M)
        deadline = time.monotonic() + 5
        text = ''
        while not want.search(text) and time.monotonic() < deadline:
            time.sleep(0.05)
            with open(self.log_path, encoding='utf-8',
                      errors='replace') as fh:
                text = fh.read()
        self.assertRegex(text, want)

    def metrics(self):
        line = self.target.server.wait_line(lambda s: 'metrics on' in s, 5)
        url = re.search(r'(http://\S+/metrics)', line).group(1)
        with urllib.request.urlopen(url, timeout=5) as r:
            text = r.read().decode()
        return {k: int(v) for k, v in
                re.findall(r'^(sehttpd_http2_\w+) (\d+)$', text, re.M)}

    def test_metrics(self):
        before = self.metrics()
        for name in ('sehttpd_http2_connections_total',
                     'sehttpd_http2_requests_total'):
            self.assertIn(name, before)
        for _ in range(2):
            c = self.client()
            for _ in range(3):
                self.assert_h2_file(c.get('/a.txt'), '/a.txt')
            c.close()
        deadline = time.monotonic() + 5
        while True:
            after = self.metrics()
            conns = after['sehttpd_http2_connections_total'] - \
                before['sehttpd_http2_connections_total']
            reqs = after['sehttpd_http2_requests_total'] - \
                before['sehttpd_http2_requests_total']
            if (conns >= 2 and reqs >= 6) or time.monotonic() > deadline:
                break
            time.sleep(0.05)
        self.assertGreaterEqual(conns, 2, after)
        self.assertGreaterEqual(reqs, 6, after)

    @needs_curl
    def test_curl_prior_knowledge(self):
        base = 'http://%s/' % self.target.hostport
        p = subprocess.run(['curl', '-sS', '--http2-prior-knowledge',
                            '-o', '-', '-w', '\n%{http_version} '
                            '%{http_code}', base + 'a.txt'],
                           capture_output=True, timeout=20)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stdout, b'hello world\n\n2 200')
        p = subprocess.run(['curl', '-sS', '--http2-prior-knowledge',
                            '--compressed', '-o', '-', '-w',
                            '\n%{http_version} %{http_code}',
                            base + 'content/big.txt'],
                           capture_output=True, timeout=20)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stdout, self.tree.files['/content/big.txt']
                         + b'\n2 200')

    @needs_curl
    def test_curl_large_post_answered_early(self):
        """A 20 MB POST to a file is answered 405 before its body ends;
        curl must get the answer and exit 0.  Asked to stop with
        RST_STREAM NO_ERROR while it still sent, curl 7.88 failed
        (exit 92, status 000)."""
        body = os.path.join(temp_dir(), 'body')
        with open(body, 'wb') as fh:
            fh.write(b'p' * (20 << 20))
        p = subprocess.run(['curl', '-sS', '--http2-prior-knowledge',
                            '--max-time', '30', '--data-binary', '@' + body,
                            '-o', '/dev/null', '-w', '%{http_version} '
                            '%{http_code}', 'http://%s/a.txt'
                            % self.target.hostport],
                           capture_output=True, timeout=40)
        self.assertEqual((p.returncode, p.stdout), (0, b'2 405'), p.stderr)

    @needs_h2load
    def test_h2load(self):
        out, res = h2load('http://%s/a.txt' % self.target.hostport)
        self.assertIsNotNone(res, out)
        self.assertEqual((res['succeeded'], res['failed'], res['errored']),
                         (20000, 0, 0), out)
        self.assertIn('h2c', out)


@needs_h2
@needs_process('HTTP/2 is sehttpd\'s; starts it with --header, --cors, '
               '--spa')
class Http2FlagsTest(Http2Mixin, ServerTestCase):
    server_args = ('--header', '/content/:Cache-Control: max-age=60',
                   '--header', 'X-Frame-Options: DENY',
                   '--cors', '*', '--spa', '/index.html')

    def setUp(self):
        super().setUp()
        self.host, self.port = self.target.host, self.target.port

    def test_header_cors_spa(self):
        cases = [
            ('GET', '/content/small.txt', ()),
            ('GET', '/a.txt', (('origin', 'https://app.test'),)),
            ('OPTIONS', '/a.txt', (('origin', 'https://app.test'),
                                   ('access-control-request-method',
                                    'GET'))),
            ('GET', '/app/route', ()),
            ('GET', '/nope.txt', ()),
        ]
        c = self.client()
        for method, path, headers in cases:
            with self.subTest(method=method, path=path):
                s = c.get(path, method, headers)
                self.assert_same_as_http11(s, self.h1(path, method, headers),
                                           '%s %s' % (method, path))
        s = c.get('/content/small.txt')
        self.assertEqual(s.header('cache-control'), 'max-age=60')
        self.assertEqual(s.header('x-frame-options'), 'DENY')
        self.assertEqual(c.get('/a.txt', headers=[('origin', 'https://x')])
                         .header('access-control-allow-origin'), '*')
        s = c.get('/app/route')
        self.assertEqual(s.status, 200)
        self.assertIn(self.tree.root_index_marker, bytes(s.body))


class Coded:
    """A stream seen as decode() sees an HTTP/1.1 response."""

    def __init__(self, s):
        self.body = bytes(s.body)
        self.s = s

    def header(self, name):
        return self.s.header(name.lower())


@needs_h2
@needs_process('times its requests against its own --timeout')
class Http2LateRequestTest(Http2Mixin, unittest.TestCase):
    """A request on an HTTP/2 connection idle until just before its
    timeout is answered whole, though the timer set for the idle wait
    fires while the server compresses (before, the connection closed at
    that moment, without GOAWAY, mid-body)."""

    TIMEOUT = LATE_TIMEOUT

    @classmethod
    def setUpClass(cls):
        start_late_request_server(cls)

    def setUp(self):
        self.host, self.port = self.target.host, self.target.port

    def late_request(self, url, coding, margin):
        """As LateRequestTest's: where the idle timeout came first after
        all (no answer at all: a busy machine woke the client late), that
        is not the case under test, and it is tried again."""
        for _ in range(3):
            c = self.client()
            # Windows wide open: the body goes in one pass, never waiting.
            c.h2.update_settings({
                h2.settings.SettingCodes.INITIAL_WINDOW_SIZE: (1 << 31) - 1})
            c.h2.increment_flow_control_window((1 << 31) - 1 - 65535)
            c.flush()
            self.assertEqual(c.get('/warm.txt').status, 200)
            time.sleep(self.TIMEOUT - margin)
            start = time.monotonic()
            try:
                s = c.streams[c.request(
                    url, headers=[('accept-encoding', coding)])]
            except (BrokenPipeError, ConnectionResetError):
                continue
            c.pump(lambda: s.done or c.terminated or c.eof, 60)
            if s.status is None and (c.terminated or c.eof):
                continue
            took = time.monotonic() - start
            break
        else:
            self.fail('the idle timeout came first 3 times')
        self.assertEqual(s.status, 200, s.describe())
        self.assertTrue(s.ended, s.describe())
        self.assertEqual(s.header('content-encoding'), coding, s.describe())
        self.assertEqual(decode(Coded(s)), self.files[url])
        return took

    def test_body_compressed_as_sent_outlasts_the_idle_timer(self):
        took = self.late_request('/big.txt', 'gzip', 0.15)
        print('\n24 MiB gzip on the fly over h2c after a late request: '
              '%.2f s' % took)

    @unittest.skipUnless(HAVE_DECODERS, 'needs brotli to decode')
    def test_cached_coding_made_after_a_late_request(self):
        self.late_request('/one.txt', 'br', 0.03)
        s = self.client().get('/one.txt', headers=[('accept-encoding', 'br')])
        self.assertEqual(s.header('content-encoding'), 'br', s.describe())
        self.assertEqual(decode(Coded(s)), self.files['/one.txt'])


@needs_h2
@needs_process('HTTP/2 is sehttpd\'s; starts it over a tree of its own')
class HeldEntriesTest(Http2Mixin, unittest.TestCase):
    """Bodies the cache let go of stay while streams hold them: one more
    cache's worth of them (--cache-size 1); beyond, the file goes from a
    descriptor of the request's own, as it is.  Before the bound, a
    client whose windows stay shut, asking for many files, held every
    one: 3 connections of 100 streams took 480 MB past a 4 MiB cache;
    with it, and before the descriptors, the rest were answered 503."""

    # Few enough that those sent from descriptors (all but about 5) stay
    # within the 16 file streams a connection answers at once.
    FILES = 20
    SIZE = 300 << 10  # each entry: the text and its gzip form

    @classmethod
    def setUpClass(cls):
        cls.root = temp_dir()
        cls.files = {'/f%d.txt' % i: hex_text(cls.SIZE, 40 + i)
                     for i in range(cls.FILES)}
        for url, data in cls.files.items():
            with open(os.path.join(cls.root, url[1:]), 'wb') as f:
                f.write(data)
        cls.target = start_server(['-t', '1', '--cache-size', '1'],
                                  root=cls.root, tree=None)
        cls.addClassCleanup(cls.target.stop)

    def setUp(self):
        self.host, self.port = self.target.host, self.target.port

    def test_streams_that_do_not_read_hold_a_bounded_share(self):
        c = self.raw({INITIAL_WINDOW_SIZE: 0}).handshake()
        c.send(window_update(0, 1 << 30))
        url_of = {}
        for url in self.files:
            url_of[c.request(url, headers=[('accept-encoding', 'gzip')])] = url
        streams = [c.stream(sid) for sid in url_of]
        self.assertTrue(c.pump(lambda: all(s.status or s.done
                                           for s in streams), 30),
                        '\n'.join(s.describe() for s in streams))
        self.assertEqual([s.status for s in streams], [200] * self.FILES)
        held = [s for s in streams if s.header('content-encoding')]
        # Held: the cache's 1 MiB, one more of entries it let go of, and
        # the one that crossed it; each entry is about 450 KiB.
        self.assertLessEqual(len(held), 6, [s.describe() for s in held])
        self.assertGreater(len(held), 0)
        for s in held:
            self.assertEqual(s.header('content-encoding'), 'gzip',
                             s.describe())
        # Windows open: every body ends whole, coded or as it is.
        c.send(settings_frame({INITIAL_WINDOW_SIZE: 1 << 24}))
        for s in streams:
            c.send(window_update(s.sid, 1 << 30))
        self.assertTrue(c.pump(lambda: all(s.done for s in streams), 30))
        for s in streams:
            body = bytes(s.body)
            if s.header('content-encoding'):
                body = gzip.decompress(body)
            self.assertTrue(body == self.files[url_of[s.sid]], s.describe())
        # Once the bodies held are gone, the files are coded again.
        for url in self.files:
            s = c.get(url, headers=[('accept-encoding', 'gzip')])
            self.assertEqual(s.status, 200, s.describe())
            self.assertTrue(gzip.decompress(bytes(s.body)) ==
                            self.files[url], url)


def few_descriptors():
    import resource
    resource.setrlimit(resource.RLIMIT_NOFILE, (128, 128))


@needs_h2
@needs_process('sets RLIMIT_NOFILE')
class HeldEntriesFewDescriptorsTest(Http2Mixin, unittest.TestCase):
    """With 128 descriptors the cache keeps 8 open: an entry that gave its
    descriptor up keeps only its text (shed_fds()).  Past the bound on
    entries held, such a file is opened again and sent as it is.  Before,
    it was answered 503."""

    SIZE = 300 << 10

    @classmethod
    def setUpClass(cls):
        cls.root = temp_dir()
        cls.text = hex_text(cls.SIZE, 7)
        with open(os.path.join(cls.root, 'a.txt'), 'wb') as f:
            f.write(cls.text)
        for i in range(12):
            with open(os.path.join(cls.root, 'b%d.txt' % i), 'wb') as f:
                f.write(hex_text(cls.SIZE, 60 + i))
            with open(os.path.join(cls.root, 'c%d.bin' % i), 'wb') as f:
                f.write(os.urandom(20 << 10))
        cls.target = start_server(['-t', '1', '--cache-size', '2'],
                                  root=cls.root, tree=None,
                                  preexec_fn=few_descriptors)
        cls.addClassCleanup(cls.target.stop)

    def setUp(self):
        self.host, self.port = self.target.host, self.target.port

    def test_an_entry_without_its_descriptor_is_opened_again(self):
        free = self.raw().handshake()
        self.assertEqual(free.get('/a.txt').status, 200)
        # Descriptors of files sent as they are: a.txt's is given up.
        for i in range(12):
            self.assertEqual(free.get('/c%d.bin' % i).status, 200)
        # Streams that do not read hold what the cache lets go of; a.txt,
        # asked for between them, stays in the table.
        shut = self.raw({INITIAL_WINDOW_SIZE: 0}).handshake()
        shut.send(window_update(0, 1 << 30))
        statuses = []
        for i in range(12):
            sid = shut.request('/b%d.txt' % i,
                               headers=[('accept-encoding', 'gzip')])
            self.assertTrue(shut.pump(lambda: shut.stream(sid).status, 10))
            s = free.get('/a.txt', headers=[('accept-encoding', 'gzip')])
            statuses.append(s.status)
            self.assertEqual(s.status, 200, s.describe())
            body = bytes(s.body)
            if s.header('content-encoding'):
                body = gzip.decompress(body)
            self.assertTrue(body == self.text, s.describe())
        # The bound was reached: a.txt went as it is, from the file.
        self.assertIsNone(s.header('content-encoding'), statuses)


@needs_h2
@needs_process('HTTP/2 is sehttpd\'s; starts it over a tree of its own')
class HeldListingsTest(Http2Mixin, unittest.TestCase):
    """Listings built stay charged to the listings' budget until freed.
    A listing is rebuilt after a second, so a client whose windows stay
    shut, asking for a large directory's orders again every second, made
    each new body stay: one connection of 96 streams held 450 MB past a
    64 MiB cache, as the budget bounded only listings being built."""

    ENTRIES = 2000  # names of 200 bytes: a page of about 1 MiB

    @classmethod
    def setUpClass(cls):
        cls.root = temp_dir()
        d = os.path.join(cls.root, 'd')
        os.mkdir(d)
        for i in range(cls.ENTRIES):
            open(os.path.join(d, '%04d' % i + 'n' * 196), 'wb').close()
        cls.target = start_server(['-t', '1', '--cache-size', '4'],
                                  root=cls.root, tree=None)
        cls.addClassCleanup(cls.target.stop)

    def setUp(self):
        self.host, self.port = self.target.host, self.target.port

    def test_listings_rebuilt_are_held_within_a_bound(self):
        c = self.raw({INITIAL_WINDOW_SIZE: 0}).handshake()
        c.send(window_update(0, 1 << 30))
        streams = []
        for _ in range(4):
            # Each order's page is new once a second has passed.
            time.sleep(1.1)
            sids = [c.request('/d/?sort=%s&order=%s' % (key, order))
                    for key in ('name', 'size', 'date')
                    for order in ('asc', 'desc')]
            batch = [c.stream(sid) for sid in sids]
            self.assertTrue(c.pump(lambda: all(s.status for s in batch),
                                   30),
                            '\n'.join(s.describe() for s in batch))
            streams += batch
        held = [s for s in streams if s.status == 200]
        refused = [s for s in streams if s.status != 200]
        # The budget: the cache's 4 MiB and 4 MiB more, about 8 pages of
        # 1 MiB; unbounded, all 24.
        self.assertLessEqual(len(held), 10, [s.describe() for s in held])
        self.assertGreater(len(held), 0)
        for s in refused:
            self.assertEqual(s.status, 503, s.describe())
            self.assertEqual(s.header('retry-after'), '1', s.describe())
        # Windows open: the pages held end whole; then, held no more,
        # the listing is answered again.
        c.send(settings_frame({INITIAL_WINDOW_SIZE: 1 << 24}))
        self.assertTrue(c.pump(lambda: all(s.done for s in held), 30))
        for s in held:
            self.assertIn(b'</html>', bytes(s.body[-200:]), s.describe())
        s = c.get('/d/')
        self.assertEqual(s.status, 200, s.describe())


def very_few_descriptors():
    import resource
    resource.setrlimit(resource.RLIMIT_NOFILE, (64, 64))


@needs_h2
@needs_process('sets RLIMIT_NOFILE')
class ListingOutOfDescriptorsTest(Http2Mixin, unittest.TestCase):
    """A listing build opens each symlink's target (O_PATH) to describe
    it, beside the directory and its duplicate.  With 64 descriptors, an
    HTTP/2 connection holding its file streams' and a dozen listings of
    links built at once ran the process out of them: the opens that
    failed (EMFILE) left their links without size or date, and the
    listings went out with 200, thousands of entries bare (and were
    shared, and cached for a second).  A shortage now fails the build
    (503, a passing shortage) rather than make a listing without it."""

    LINKS = 3000

    @classmethod
    def setUpClass(cls):
        cls.root = temp_dir()
        os.mkdir(os.path.join(cls.root, 'files'))
        for i in range(40):
            with open(os.path.join(cls.root, 'files', 'f%d.bin' % i),
                      'wb') as f:
                f.write(os.urandom(40 << 10))
        for d in ('l1', 'l2'):
            os.mkdir(os.path.join(cls.root, d))
            for i in range(cls.LINKS):
                os.symlink('../files/f%d.bin' % (i % 40),
                           os.path.join(cls.root, d, 'l%d' % i))
        cls.target = start_server(['-t', '2'], root=cls.root, tree=None,
                                  preexec_fn=very_few_descriptors)
        cls.addClassCleanup(cls.target.stop)

    def setUp(self):
        self.host, self.port = self.target.host, self.target.port

    def test_no_listing_made_without_its_links(self):
        # Files the caches keep open, and two connections' file streams
        # on windows of 0 (the first's from the pool of duplicates too).
        for i in range(20, 40):
            with Conn(self.host, self.port) as c:
                c.send(build_request('GET', '/files/f%d.bin' % i))
                self.assertEqual(c.read_response().status, 200)
        shut = [self.raw({INITIAL_WINDOW_SIZE: 0}).handshake()
                for _ in range(2)]
        for c in shut:
            for i in range(FILE_STREAMS_MAX):
                c.request('/files/f%d.bin' % i)
            c.pump(timeout=0.3)
        results = {}

        def get(url):
            try:
                with Conn(self.host, self.port, timeout=30) as c:
                    c.send(build_request('GET', url, headers=[
                        ('Accept', 'application/json')]))
                    results[url] = c.read_response()
            except (OSError, AssertionError) as e:
                results[url] = e  # refused: beyond --max-connections
        urls = ['/%s/?sort=%s&order=%s' % (d, key, order)
                for d in ('l1', 'l2') for key in ('name', 'size', 'date')
                for order in ('asc', 'desc')]
        threads = [threading.Thread(target=get, args=(u,)) for u in urls]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        for c in shut:
            c.close()
        answered = 0
        for url, r in sorted(results.items()):
            if isinstance(r, Exception):
                continue
            self.assertIn(r.status, (200, 503), r.describe())
            if r.status != 200:
                continue
            answered += 1
            entries = json.loads(r.body)
            self.assertEqual(len(entries), self.LINKS, url)
            bare = [e['name'] for e in entries if e['size'] is None]
            self.assertEqual(bare, [], '%s: %d of %d links bare'
                             % (url, len(bare), len(entries)))
        # With the descriptors back, a listing is made whole.
        with Conn(self.host, self.port, timeout=30) as c:
            c.send(build_request('GET', '/l1/?sort=size', headers=[
                ('Accept', 'application/json')]))
            r = c.read_response()
        self.assertEqual(r.status, 200, r.describe())
        entries = json.loads(r.body)
        self.assertEqual(len(entries), self.LINKS)
        self.assertEqual([e['name'] for e in entries if e['size'] is None],
                         [])


@needs_h2
@needs_process('HTTP/2 is sehttpd\'s; starts it over a tree of its own')
class Http2CompressTest(Http2Mixin, unittest.TestCase):
    """Files the cache holds no compressed form of (larger than it keeps
    in memory, or with the cache off) are compressed as their frames go,
    as HTTP/1.1 sends them chunked.  Before, HTTP/2 (every browser's
    HTTPS) got them as they are: a 3 MiB text 4 times larger."""

    LARGE = 3 << 20

    @classmethod
    def setUpClass(cls):
        cls.root = temp_dir()
        cls.files = {'/big.txt': text(cls.LARGE, 11),
                     '/kept.txt': text(cls.LARGE, 12),
                     '/fresh.txt': text(cls.LARGE, 16),
                     '/hex.txt': hex_text(4 << 20, 13),
                     '/site.css': text(20000, 14)}
        for url, data in cls.files.items():
            with open(os.path.join(cls.root, url[1:]), 'wb') as f:
                f.write(data)
        cls.target = start_server(['-t', '1'], root=cls.root, tree=None)
        cls.addClassCleanup(cls.target.stop)

    def setUp(self):
        self.host, self.port = self.target.host, self.target.port

    def assert_coded(self, s, url, coding):
        self.assertEqual(s.status, 200, s.describe())
        self.assertTrue(s.ended, s.describe())
        self.assertEqual(s.header('content-encoding'), coding, s.describe())
        self.assertIn('accept-encoding', (s.header('vary') or '').lower())
        self.assertEqual(decode(Coded(s)), self.files[url])
        self.assertLess(len(s.body), len(self.files[url]) * 3 // 4)

    def test_each_coding_as_http11_then_kept(self):
        """Each coding decodes to the file under HTTP/1.1's weak tag; the
        first answer kept a copy, which the next is sent from, with its
        length."""
        codings = ['gzip', 'deflate'] + (['br', 'zstd'] if HAVE_DECODERS
                                         else [])
        c = self.client()
        for coding in codings:
            with self.subTest(coding=coding):
                ae = [('accept-encoding', coding)]
                s = c.get('/fresh.txt', headers=ae, timeout=30)
                self.assert_coded(s, '/fresh.txt', coding)
                self.assertIsNone(s.header('content-length'))
                self.assertRegex(s.header('etag') or '', r'^W/"')
                self.assertEqual(s.header('etag'),
                                 self.h1('/fresh.txt', 'HEAD', ae)
                                 .header('ETag'))
                again = c.get('/fresh.txt', headers=ae, timeout=30)
                self.assertEqual(again.header('content-length'),
                                 str(len(s.body)), again.describe())
                self.assertTrue(bytes(again.body) == bytes(s.body))

    def test_range_from_identity(self):
        data = self.files['/hex.txt']
        s = self.client().get('/hex.txt', headers=[
            ('accept-encoding', 'gzip'), ('range', 'bytes=1000-1999')])
        self.assertEqual(s.status, 206, s.describe())
        self.assertIsNone(s.header('content-encoding'))
        self.assertTrue(bytes(s.body) == data[1000:2000])

    def test_too_large_to_keep_made_each_time(self):
        for _ in range(2):
            s = self.client().get('/hex.txt', timeout=30,
                                  headers=[('accept-encoding', 'gzip')])
            self.assert_coded(s, '/hex.txt', 'gzip')
            self.assertGreater(len(s.body), 1 << 20)

    def test_a_shut_window_holds_up_no_other(self):
        """A compressed body whose window stays shut waits alone; opened,
        it ends whole."""
        c = self.raw({INITIAL_WINDOW_SIZE: 0}).handshake()
        c.send(window_update(0, 1 << 30))
        stuck = c.stream(c.request('/kept.txt',
                                   headers=[('accept-encoding', 'gzip')]))
        for url in ('/site.css', '/big.txt'):
            s = c.stream(c.request(url, headers=[('accept-encoding',
                                                  'gzip')]))
            c.send(window_update(s.sid, 1 << 30))
            self.assertTrue(c.pump(lambda: s.done, 20), s.describe())
            self.assert_coded(s, url, 'gzip')
        self.assertEqual(stuck.body, b'')
        c.send(window_update(stuck.sid, 1 << 30))
        self.assertTrue(c.pump(lambda: stuck.done, 20), stuck.describe())
        self.assert_coded(stuck, '/kept.txt', 'gzip')

    def test_cache_off(self):
        """With --cache-size 0 every compressible file is compressed as it
        is sent, small ones too; before, none was over HTTP/2."""
        t = start_server(['-t', '1', '--cache-size', '0'], root=self.root,
                         tree=None)
        self.addCleanup(t.stop)
        self.host, self.port = t.host, t.port
        c = self.client()
        for url in ('/site.css', '/big.txt', '/site.css'):
            with self.subTest(url=url):
                s = c.get(url, headers=[('accept-encoding', 'gzip')],
                          timeout=30)
                self.assert_coded(s, url, 'gzip')

    def changed_mid_stream(self, name, data, first, change):
        """Opens a gzip stream of data (as name) behind a shut window,
        takes first bytes of it, calls change(path), then opens the
        window: the stream must be reset, never ended."""
        path = os.path.join(self.root, name)
        with open(path, 'wb') as f:
            f.write(data)
        self.addCleanup(os.unlink, path)
        c = self.raw({INITIAL_WINDOW_SIZE: 0}).handshake()
        c.auto_window = False
        c.send(window_update(0, 1 << 30))
        s = c.stream(c.request('/' + name,
                               headers=[('accept-encoding', 'gzip')]))
        c.send(window_update(s.sid, first))
        self.assertTrue(c.pump(lambda: len(s.body) >= first, 10),
                        s.describe())
        change(path)
        c.send(window_update(s.sid, 1 << 30))
        self.assertTrue(c.pump(lambda: s.done, 20), s.describe())
        self.assertFalse(s.ended, s.describe())
        self.assertIsNotNone(s.reset, s.describe())
        return c

    def test_file_rewritten_while_sent(self):
        """A file rewritten in place, at the same size, while its window
        is shut resets the stream.  Before, the reads held back by the
        window took the new bytes after the old: a body of two versions,
        ended as whole under the old tag."""
        def rewrite(path):
            with open(path, 'r+b') as f:
                f.write(text(3 << 20, 18))
        self.changed_mid_stream('rewritten.txt', text(3 << 20, 17), 1 << 14,
                                rewrite)

    def test_file_cut_short_while_sent(self):
        """A file truncated under the compression resets its stream:
        never a whole body of the wrong content; the connection goes
        on."""
        c = self.changed_mid_stream('shrinks.txt', hex_text(24 << 20, 15),
                                    1 << 16,
                                    lambda path: os.truncate(path, 1 << 20))
        other = c.stream(c.request('/site.css'))
        c.send(window_update(other.sid, 1 << 20))
        self.assertTrue(c.pump(lambda: other.done, 10), other.describe())
        self.assertTrue(bytes(other.body) == self.files['/site.css'])


@needs_h2
@needs_process('HTTP/2 is sehttpd\'s; starts it with TLS')
class Http2TlsTest(Http2Mixin, unittest.TestCase):
    """ALPN h2 on the TLS port."""

    @classmethod
    def setUpClass(cls):
        cls.ca, tls_args = tls_files()
        cls.tree = session_tree()
        cls.srv = ServerProcess(tls_args, root=cls.tree.www)
        cls.addClassCleanup(cls.srv.kill)
        cls.host, cls.port = '127.0.0.1', cls.srv.port
        cls.tls = tls_context(cls.ca)
        cls.tls_h1 = tls_context(cls.ca, ('http/1.1',))

    @classmethod
    def tearDownClass(cls):
        cls.srv.stop()

    def tearDown(self):
        self.assertTrue(self.srv.alive(), 'the server died: '
                        + self.srv.stderr_text()[-2000:])

    def test_alpn(self):
        for offer, want in ((['h2', 'http/1.1'], 'h2'),
                            (['http/1.1', 'h2'], 'h2'),
                            (['h2'], 'h2'),
                            (['http/1.1'], 'http/1.1'),
                            (None, None)):
            with self.subTest(offer=offer):
                with Conn(self.host, self.port, server_hostname='localhost',
                          tls=tls_context(self.ca, offer)) as c:
                    self.assertEqual(c.sock.selected_alpn_protocol(), want)
                    if want == 'h2':
                        continue
                    c.send(build_request('GET', '/a.txt'))
                    r = c.read_response()
                    self.assertEqual((r.version, r.status, r.body),
                                     ('HTTP/1.1', 200, b'hello world\n'))

    def test_preface_without_alpn_h2_is_not_http2(self):
        """Over TLS, HTTP/2 is what ALPN chose or nothing (RFC 9113
        3.3): its preface on a connection that chose http/1.1, or chose
        nothing, is an HTTP/1.1 request of version 2.0, answered 505
        (nginx: 400).  Before, it was served HTTP/2."""
        for offer in (['http/1.1'], None):
            with self.subTest(offer=offer):
                with Conn(self.host, self.port, server_hostname='localhost',
                          tls=tls_context(self.ca, offer)) as c:
                    c.send(PREFACE + settings_frame())
                    r = c.read_response()
                    self.assertEqual((r.version, r.status),
                                     ('HTTP/1.1', 505), r.body[:200])

    def test_same_answers_as_http11(self):
        c = self.client().handshake()
        self.assertEqual(c.sock.selected_alpn_protocol(), 'h2')
        for method, path, headers in (
                ('GET', '/a.txt', ()), ('GET', '/nope.txt', ()),
                ('GET', '/dir_noindex/', ()), ('HEAD', '/big/1m.bin', ()),
                ('GET', '/content/small.txt', (('range', 'bytes=0-9'),)),
                ('GET', '/content/data.json', ()),
                ('GET', '/content/big.txt', (('accept-encoding', 'gzip'),)),
                ('GET', '/content/pre.txt', (('accept-encoding', 'gzip'),))):
            with self.subTest(method=method, path=path):
                s = c.get(path, method, headers, timeout=5)
                self.assert_same_as_http11(s, self.h1(path, method, headers),
                                           path, decode=True)

    def test_10mib_with_flow_control(self):
        self.big_body(self.client())

    def test_interleaved_bodies(self):
        self.interleaved_bodies()

    def test_stalled_stream_alone(self):
        self.stalled_stream_alone()

    def test_100_streams_at_once(self):
        c = self.client().handshake()
        urls = ['/many/file_%03d.txt' % i for i in range(100)]
        sids = [c.request(u) for u in urls]
        self.assertTrue(c.pump(lambda: all(c.streams[s].done for s in sids),
                               15))
        for sid, url in zip(sids, urls):
            self.assert_h2_file(c.streams[sid], url)

    @needs_curl
    def test_curl(self):
        p = subprocess.run(['curl', '-sS', '--http2', '--cacert', self.ca,
                            '-o', '-', '-w', '\n%{http_version} %{http_code}',
                            'https://localhost:%d/a.txt' % self.port],
                           capture_output=True, timeout=20)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stdout, b'hello world\n\n2 200')

    @needs_h2load
    def test_h2load(self):
        out, res = h2load('https://127.0.0.1:%d/a.txt' % self.port)
        self.assertIsNotNone(res, out)
        self.assertEqual((res['succeeded'], res['failed'], res['errored']),
                         (20000, 0, 0), out)
        self.assertIn('Application protocol: h2', out)


@needs_h2
@needs_process('HTTP/2 is sehttpd\'s; reads the server\'s memory in /proc')
class Http2FloodTest(Http2Mixin, ServerTestCase):
    """Each flood is bounded in frames and time; the server must end the
    connection, keep its memory, and serve another client meanwhile."""

    server_args = ('--timeout', '2')

    def setUp(self):
        super().setUp()
        self.host, self.port = self.target.host, self.target.port

    def probe(self):
        """A new HTTP/2 client is served within PROBE_S."""
        start = time.monotonic()
        with RawH2(self.host, self.port, timeout=5) as c:
            s = c.get('/a.txt', timeout=5)
        took = time.monotonic() - start
        self.assertEqual((s.status, bytes(s.body)), (200, b'hello world\n'),
                         s.describe())
        return took

    def flood(self, name, c, batches, read=True, max_s=8.0, rss=True):
        """Sends batches on c from a thread until the server closes, the
        send blocks for 2 s or max_s passes, reading what comes when read
        is set; probes another client meanwhile (and with rss, checks the
        server's growth).  Returns how it ended."""
        pid = self.target.server.proc.pid
        rss0 = rss_kib(pid)
        c.replies = False  # only the sender thread writes
        c.sock.settimeout(2)
        st = {'frames': 0, 'end': 'bound', 'bytes': 0}
        done = threading.Event()

        def sender():
            deadline = time.monotonic() + max_s
            try:
                for data, nframes in batches:
                    if time.monotonic() > deadline:
                        st['end'] = 'time'
                        break
                    c.sock.sendall(data)
                    st['frames'] += nframes
                    st['bytes'] += len(data)
            except socket.timeout:
                st['end'] = 'blocked'
            except OSError as e:
                st['end'] = 'closed (%s)' % e.__class__.__name__
            finally:
                done.set()

        def reader():
            try:
                while not c.eof and time.monotonic() < stop_reading:
                    f = c.read_frame(0.2)
                    if f is not None:
                        c.handle(f)
            except Exception as e:  # reported by the main thread
                st['reader'] = e

        stop_reading = time.monotonic() + max_s + 3
        threads = [threading.Thread(target=sender, daemon=True)]
        if read:
            threads.append(threading.Thread(target=reader, daemon=True))
        for t in threads:
            t.start()
        probes = []
        while True:
            probes.append(self.probe())
            if done.wait(0.2):
                break
        for t in threads:
            t.join(max_s + 5)
        if 'reader' in st:
            raise st['reader']
        rss1 = rss_kib(pid)
        # Whatever the server still says, until it closes.
        closed = c.wait_end(5)
        print('\n%s: %d frames (%d bytes) sent, ended: %s; GOAWAY %s; '
              'server RSS %d KiB before, %d KiB after; probes %s s'
              % (name, st['frames'], st['bytes'], st['end'],
                 c.goaway[:2] if c.goaway else None, rss0, rss1,
                 ', '.join('%.2f' % p for p in probes)))
        st.update(rss0=rss0, rss1=rss1, closed=closed, probes=probes)
        self.assertLess(max(probes), PROBE_S, '%s: a client waited' % name)
        if rss:
            self.assertLess(rss1 - rss0, RSS_GROWTH_KIB, '%s: the server '
                            'grew by %d KiB' % (name, rss1 - rss0))
        self.assertTrue(closed, '%s: the server did not close the '
                        'connection (%r)' % (name, st))
        self.assertLess(self.probe(), PROBE_S)
        return st

    def test_continuation_flood(self):
        c = self.raw().handshake()
        field = b'\x00\x07x-flood\x7e' + b'a' * 126
        fragment = field * (16384 // len(field))

        def batches():
            yield frame(HEADERS, END_STREAM, 1, static_block()), 1
            for _ in range(4096):  # 64 MiB at most
                yield frame(CONTINUATION, 0, 1, fragment), 1

        st = self.flood('CONTINUATION flood', c, batches())
        self.assertLess(st['frames'], 4096)
        if c.goaway:
            self.assertNotEqual(c.goaway[1], NO_ERROR)

    def test_continuation_flood_empty_frames(self):
        c = self.raw().handshake()
        empty = frame(CONTINUATION, 0, 1) * 1000

        def batches():
            yield frame(HEADERS, END_STREAM, 1, static_block()), 1
            for _ in range(500):  # 500 000 frames at most
                yield empty, 1000

        st = self.flood('empty CONTINUATION flood', c, batches())
        self.assertLess(st['frames'], 500001)

    def test_rapid_reset(self):
        c = self.raw().handshake()
        block = static_block()

        def batches():
            sid = 1
            for _ in range(200):  # 20 000 streams at most
                out = []
                for _ in range(100):
                    out.append(frame(HEADERS, END_STREAM | END_HEADERS, sid,
                                     block) + rst_stream(sid))
                    sid += 2
                yield b''.join(out), 200

        st = self.flood('rapid reset', c, batches())
        self.assertIsNotNone(c.goaway, 'no GOAWAY (%r)' % st)
        self.assertEqual(c.goaway[1], ENHANCE_YOUR_CALM, c.goaway)

    def server_resets(self, name, provoke):
        """Streams the server itself resets for the client's error, each
        after its request was answered (MadeYouReset, CVE-2025-8671): a
        careful client waits for the resets, 90 streams at a time, and
        stays within the 100 it may have open.  They must cost it as its
        own resets do."""
        c = self.raw().handshake()
        sid, sent = 1, 0
        for _ in range(30):  # 2700 streams at most
            sids = list(range(sid, sid + 180, 2))
            sid += 180
            try:
                c.send(b''.join(provoke(s) for s in sids))
            except OSError:
                break
            sent += len(sids)
            c.pump(lambda: c.goaway or all(c.stream(s).reset is not None
                                           for s in sids), 5)
            if c.goaway or c.eof:
                break
        resets = sum(s.reset is not None for s in c.streams.values())
        print('\n%s: %d streams sent, %d reset by the server; GOAWAY %s'
              % (name, sent, resets, c.goaway[:2] if c.goaway else None))
        self.assertIsNotNone(c.goaway, '%s: %d streams reset by the '
                             'server, no GOAWAY' % (name, resets))
        self.assertEqual(c.goaway[1], ENHANCE_YOUR_CALM, c.goaway)
        self.assertLess(self.probe(), PROBE_S)

    def test_resets_for_bodies_past_their_length(self):
        # content-length: 1 (static name 28), then 2 bytes of body.
        block = static_block() + b'\x0f\x0d\x011'
        self.server_resets('body past its Content-Length', lambda sid: (
            frame(HEADERS, END_HEADERS, sid, block) +
            frame(DATA, END_STREAM, sid, b'xx')))

    def test_resets_for_windows_overflowed(self):
        block = static_block()
        self.server_resets('stream window overflowed', lambda sid: (
            frame(HEADERS, END_STREAM | END_HEADERS, sid, block) +
            window_update(sid, 2 ** 31 - 1)))

    def unread_flood(self, name, one, answered):
        """Sends a frame the server must answer, never reading: the
        server must stop (GOAWAY, or closing before it has answered all
        it was sent) rather than queue answers."""
        c = self.raw(rcvbuf=4096).handshake()
        before = answered(c)
        batch = one * 100

        def batches():
            for _ in range(10000):  # 1 000 000 frames at most
                yield batch, 100

        st = self.flood(name, c, batches(), read=False)
        got = answered(c) - before
        print('%s: %d of %d frames answered' % (name, got, st['frames']))
        self.assertTrue(c.goaway or got < st['frames'],
                        '%s: every frame answered, the connection closed '
                        'only when idle (%r)' % (name, st))
        if c.goaway:
            self.assertEqual(c.goaway[1], ENHANCE_YOUR_CALM, c.goaway)

    def test_settings_flood_unread(self):
        self.unread_flood('SETTINGS flood', settings_frame(),
                          lambda c: c.settings_acked)

    def test_ping_flood_unread(self):
        self.unread_flood('PING flood', frame(PING, 0, 0, b'12345678'),
                          lambda c: len(c.pings))

    def test_empty_data_flood(self):
        c = self.raw({INITIAL_WINDOW_SIZE: 0}).handshake()
        empty = frame(DATA, 0, 1) * 1000

        def batches():
            yield frame(HEADERS, END_HEADERS, 1,
                        static_block(b'/big/1m.bin')), 1
            for _ in range(500):  # 500 000 frames at most
                yield empty, 1000

        self.flood('empty DATA flood', c, batches())
        if c.goaway:
            self.assertIn(c.goaway[1], (ENHANCE_YOUR_CALM, PROTOCOL_ERROR),
                          c.goaway)

    def unanswered_flood(self, name, batch, nframes):
        """Frames that ask for no answer, sent as fast as the server
        reads, on a thread of their own: the prober shares it."""
        self.target = start_server(['-t', '1', '--timeout', '2'])
        self.addCleanup(self.target.stop)
        self.host, self.port = self.target.host, self.target.port
        c = self.raw().handshake()
        pid = self.target.server.proc.pid
        # nghttp2 makes and frees a stream per PRIORITY frame; ASan's
        # quarantine (256 MiB) holds what it frees.
        asan = 'libasan' in open('/proc/%d/maps' % pid).read()

        def batches():
            for _ in range(20000):  # at most 8 s, as flood() bounds it
                yield batch, nframes

        self.flood(name, c, batches(), rss=not asan)

    def test_priority_flood_shares_the_thread(self):
        """Before, the loop read for as long as the socket had frames:
        another client on the thread waited out its 5 s."""
        rng = random.Random(1)
        ids = [2 * k + 1 for k in range(200)]
        batch = b''.join(
            frame(PRIORITY, 0, a, struct.pack(
                '>IB', b | (0x80000000 if rng.random() < 0.5 else 0),
                rng.randrange(256)))
            for a, b in (rng.sample(ids, 2) for _ in range(2000)))
        self.unanswered_flood('PRIORITY flood', batch, 2000)

    def test_unknown_frame_flood_shares_the_thread(self):
        self.unanswered_flood('unknown-frame flood',
                              frame(0xfa, 0, 0, b'x' * 16) * 2000, 2000)

    def test_hpack_huge_table_size(self):
        pid = self.target.server.proc.pid
        rss0 = rss_kib(pid)
        c = self.raw({HEADER_TABLE_SIZE: 2 ** 31 - 1})
        c.dec.max_allowed_table_size = 2 ** 31 - 1
        c.handshake()
        for i in range(100):
            url = '/many/file_%03d.txt' % i
            s = c.get(url, headers=[('x-n-%d' % i, 'v' * (i + 1))])
            self.assert_h2_file(s, url)
        rss1 = rss_kib(pid)
        print('\nHEADER_TABLE_SIZE 2^31-1: server RSS %d KiB before, '
              '%d KiB after' % (rss0, rss1))
        self.assertLess(rss1 - rss0, RSS_GROWTH_KIB)

    def test_hpack_table_size_update(self):
        # Down to 0 is allowed (then only static blocks follow).
        c = self.raw().handshake()
        c.send(frame(HEADERS, END_STREAM | END_HEADERS, 1,
                     b'\x20' + static_block()))
        s = c.stream(1)
        c.pump(lambda: s.done, 5)
        self.assert_h2_file(s, '/a.txt')
        # Above the 4096 the server's SETTINGS allowed: COMPRESSION_ERROR.
        c = self.raw().handshake()
        update = bytearray(encode_integer(8192, 5))
        update[0] |= 0x20
        c.send(frame(HEADERS, END_STREAM | END_HEADERS, 1,
                     bytes(update) + static_block()))
        self.assertTrue(c.wait_end(5), 'the connection stayed open')
        self.assertIsNotNone(c.goaway, 'closed without GOAWAY')
        self.assertEqual(c.goaway[1], COMPRESSION_ERROR, c.goaway)
        self.assertLess(self.probe(), PROBE_S)


@needs_h2
@needs_process('HTTP/2 is sehttpd\'s; starts it with --timeout 2')
class Http2TimeoutTest(Http2Mixin, ServerTestCase):
    server_args = ('--timeout', '2')

    def setUp(self):
        super().setUp()
        self.host, self.port = self.target.host, self.target.port

    def trickle(self, streams, step, every, seconds):
        """A connection with windows of 0 asking for streams 10 MiB
        bodies, then opening each stream's window by step bytes every
        every seconds: returns when it ended, or None."""
        c = self.raw({INITIAL_WINDOW_SIZE: 0}).handshake()
        c.auto_window = False
        c.send(window_update(0, 1 << 30))
        sids = [c.request('/big/10m.bin') for _ in range(streams)]
        start = time.monotonic()
        while time.monotonic() - start < seconds:
            try:
                c.send(b''.join(window_update(sid, step) for sid in sids))
            except OSError:
                # Reset by the server before a read saw it end.
                return time.monotonic() - start
            if c.pump(lambda: c.eof, every):
                break
        if c.eof:
            return time.monotonic() - start
        return None

    def test_a_window_opened_a_byte_at_a_time(self):
        """A hundred streams, each given a byte every half second: each
        progresses, so no stream's own deadline comes, and before the
        connection held its hundred files for ever.  Together they go far
        below --min-rate: cut off after twice the timeout."""
        pid = self.target.server.proc.pid
        # The cache may hold the file open: not a stream's descriptor.
        with RawH2(self.host, self.port) as c:
            c.handshake()
            self.assertEqual(len(c.get('/big/10m.bin').body), 10 << 20)
        time.sleep(0.5)
        fds = len(os.listdir('/proc/%d/fd' % pid))
        took = self.trickle(100, 1, 0.5, 12)
        self.assertIsNotNone(took, 'the connection was still open at 12 s')
        # Twice the timeout, and what the bytes taken earn at 1 KiB/s:
        # sixteen heads of about 150 bytes, and the trickle.
        self.assertLess(took, 9)
        # None of the hundred stays open; the cache may have opened the
        # file once more meanwhile.
        deadline = time.monotonic() + 5
        while len(os.listdir('/proc/%d/fd' % pid)) > fds + 1 and \
                time.monotonic() < deadline:
            time.sleep(0.1)
        d = '/proc/%d/fd' % pid
        self.assertLessEqual(len(os.listdir(d)), fds + 1, sorted(
            os.readlink(os.path.join(d, f)) for f in os.listdir(d)))

    def test_a_window_opened_a_byte_at_a_time_beside_pings(self):
        """As above, with 100 PINGs a second: their answers, taken by the
        client, counted toward --min-rate, and the connection held its
        sixteen files for ever.  Cut off as without them."""
        c = self.raw({INITIAL_WINDOW_SIZE: 0}).handshake()
        c.auto_window = False
        c.send(window_update(0, 1 << 30))
        sids = [c.request('/big/10m.bin') for _ in range(FILE_STREAMS_MAX)]
        start = last = time.monotonic()
        try:
            while time.monotonic() - start < 12 and not c.eof:
                if time.monotonic() - last >= 0.5:
                    last = time.monotonic()
                    c.send(b''.join(window_update(sid, 1) for sid in sids))
                c.send(frame(PING, 0, 0, b'12345678'))
                c.pump(timeout=0.01)
        except OSError:
            pass  # reset by the server before a read saw it end
        took = time.monotonic() - start
        self.assertLess(took, 9, 'the connection was still open at %.1f s '
                        '(%d PINGs answered)' % (took, len(c.pings)))

    def test_a_window_never_opened_resets_the_stream_in_time(self):
        """A stream whose window stays shut is reset (CANCEL) about the
        timeout after its head: the delayed ACK of the head, seen at the
        next look a timeout later, was taken for progress then, and the
        stream was reset at twice the timeout."""
        c = self.raw({INITIAL_WINDOW_SIZE: 0}).handshake()
        c.auto_window = False
        start = time.monotonic()
        s = c.stream(c.request('/big/10m.bin'))
        self.assertTrue(c.pump(lambda: s.reset is not None, 6),
                        s.describe())
        took = time.monotonic() - start
        self.assertEqual((s.status, s.reset), (200, CANCEL), s.describe())
        self.assertEqual(s.body, b'')
        # --timeout 2, and a quarter of it for the look that sees the
        # head taken; before, 4 s.
        self.assertGreater(took, 1.8)
        self.assertLess(took, 3.2)
        # The connection goes on.
        c.auto_window = True
        s = c.get('/a.txt')
        self.assertEqual(s.status, 200, s.describe())

    def held_beside_pings(self, settings, request, window_update_conn,
                          status=200, within=3.2):
        """Sixteen streams held by the client, which sends PINGs 20 times
        a second and reads their answers: what it took of those answers
        was every stream's progress, so no stream was ever reset; the
        connection was cut whole at twice the timeout, or, at 100 PINGs a
        second, held its 16 files for ever.  Each stream must be reset
        (CANCEL) about the timeout after its last progress, and the
        connection go on."""
        c = self.raw(settings).handshake()
        c.auto_window = False
        start = time.monotonic()
        streams = [c.stream(request(c)) for _ in range(FILE_STREAMS_MAX)]
        while time.monotonic() - start < 6 and not c.eof and \
                not all(s.reset is not None for s in streams):
            c.send(frame(PING, 0, 0, b'12345678'))
            if window_update_conn:
                for s in streams:
                    if s.body:
                        c.send(window_update(0, len(s.body)))
                        del s.body[:]
            c.pump(timeout=0.05)
        took = time.monotonic() - start
        self.assertFalse(c.eof, 'the connection was cut at %.1f s' % took)
        for s in streams:
            self.assertEqual((s.status, s.reset), (status, CANCEL),
                             s.describe())
        self.assertLess(took, within)
        c.auto_window = True
        c.send(settings_frame({INITIAL_WINDOW_SIZE: 65535}) +
               window_update(0, 1 << 24))
        self.assert_h2_file(c.get('/a.txt'), '/a.txt')

    def test_a_stream_window_never_opened_beside_pings(self):
        self.held_beside_pings({INITIAL_WINDOW_SIZE: 0},
                               lambda c: c.request('/big/10m.bin'), False)

    def test_the_connection_window_never_opened_beside_pings(self):
        self.held_beside_pings({INITIAL_WINDOW_SIZE: 2 ** 31 - 1},
                               lambda c: c.request('/big/10m.bin'), False)

    def test_a_request_never_ended_beside_pings(self):
        """The answer sent whole, the request's END_STREAM never comes:
        the stream held its file's descriptor for as long as PINGs
        came.  Reset a timeout after its body, which takes a moment."""
        self.held_beside_pings({INITIAL_WINDOW_SIZE: 2 ** 31 - 1},
                               lambda c: c.request(
                                   '/big/10m.bin', end_stream=False,
                                   headers=[('range', 'bytes=0-65535')]),
                               True, 206, within=4.0)

    def test_file_streams_wait_their_turn(self):
        """Forty streams for a file beyond the cache, on windows of 0: at
        most FILE_STREAMS_MAX hold a descriptor at once, and the rest are
        answered, whole, as they end.  Before, all forty held one."""
        pid = self.target.server.proc.pid
        url = '/content/large.txt'
        with RawH2(self.host, self.port) as c:
            c.handshake()
            self.assert_h2_file(c.get(url), url)
        time.sleep(0.5)
        d = '/proc/%d/fd' % pid
        c = self.raw({INITIAL_WINDOW_SIZE: 0}).handshake()
        c.send(window_update(0, 1 << 30))
        fds = len(os.listdir(d))
        sids = [c.request(url) for _ in range(40)]
        c.pump(timeout=0.5)
        held = len(os.listdir(d)) - fds
        c.send(settings_frame({INITIAL_WINDOW_SIZE: 1 << 24}))
        c.pump(lambda: all(c.stream(s).done for s in sids), 30)
        # And one that the cache or a request in progress holds.
        self.assertLessEqual(held, FILE_STREAMS_MAX + 1)
        for sid in sids:
            self.assert_h2_file(c.stream(sid), url)

    def test_streams_that_go_at_the_minimum_rate_together(self):
        """Ten streams at 400 B/s each, 4 KiB/s together: each alone is
        below the default --min-rate of 1 KiB/s, the connection is not."""
        self.assertIsNone(self.trickle(10, 200, 0.5, 8),
                          'a connection at 4 KiB/s was cut')

    def read_at(self, rate, seconds, window):
        """Reads /big/10m.bin at rate bytes/s through a 4 KiB receive
        buffer, on windows of window bytes refilled as DATA is read, for
        seconds; returns (bytes, seconds, cut off)."""
        c = self.raw({INITIAL_WINDOW_SIZE: window}, rcvbuf=4096).handshake()
        c.auto_window = False
        if window > 65535:
            c.send(window_update(0, window - 65535))
        s = c.stream(c.request('/big/10m.bin'))
        got, start = 0, time.monotonic()
        while time.monotonic() - start < seconds and not s.done:
            try:
                data = c.sock.recv(1024)
                c.buf += data
                f = c.read_frame(0)
                while f is not None:
                    c.handle(f)
                    if f[0] == DATA and f[3]:
                        c.send(window_update(0, len(f[3])) +
                               window_update(s.sid, len(f[3])))
                    f = c.read_frame(0)
            except OSError:
                data = b''
            if not data:
                return got, time.monotonic() - start, True
            got += len(data)
            ahead = start + got / rate - time.monotonic()
            if ahead > 0:
                time.sleep(ahead)
        return got, time.monotonic() - start, s.done

    def test_slow_readers_on_small_and_large_windows(self):
        """Readers at 4 KiB/s, four times the default --min-rate, on
        nghttp2's windows and on curl's, are not cut: neither by a write
        that waits (curl's) nor by the rule for the connection's streams
        together (either).  A 4 KiB receive buffer makes the client
        acknowledge as it reads: with a larger one, loopback's 64 KiB
        segments leave no acknowledgement for 16 s, a reset would come
        unseen behind the buffered bytes, and no rule could see progress."""
        for window in (65535, 1 << 25):
            got, took, cut = self.read_at(4096, 6, window)
            self.assertFalse(cut, 'a reader at 4 KiB/s on windows of %d '
                             'cut off after %.1f s (%d bytes, --timeout 2)'
                             % (window, took, got))

    def test_idle_timeout_waits_for_a_slow_reader(self):
        """The body is all in the server's socket, so the connection is
        idle for the server, and the client says nothing for longer than
        --timeout while it reads.  The timeout must not close the socket
        under what is queued: the WINDOW_UPDATE that the client sends
        later would draw a reset and the body's tail would be lost."""
        url = '/big/1m.bin'
        c, s = self.queued_body(url)
        self.read_slowly(c, s, 0.1, window_after=512 * 1024)
        self.assert_h2_file(s, url)

    def test_client_goaway_waits_for_a_slow_reader(self):
        """A client that says GOAWAY and then reads slowly (more than 2 s)
        while it sends WINDOW_UPDATEs gets the whole body."""
        url = '/big/1m.bin'
        c, s = self.queued_body(url)
        c.send(frame(GOAWAY, 0, 0, struct.pack('>II', 0, NO_ERROR)))
        c.auto_window = True
        self.read_slowly(c, s, 0.06)
        self.assert_h2_file(s, url)

    def test_window_never_opened(self):
        c = self.raw({INITIAL_WINDOW_SIZE: 0}).handshake()
        start = time.monotonic()
        s = c.stream(c.request('/big/1m.bin'))
        c.pump(lambda: s.done, 8)
        took = time.monotonic() - start
        self.assertIsNotNone(s.reset, 'not reset within 8 s: '
                             + s.describe())
        self.assertEqual(s.body, b'')
        self.assertGreater(took, 1.5)
        self.assertLess(took, 6)
        self.assertFalse(c.eof, 'the connection was closed')
        self.assertIsNone(c.goaway)
        # The connection goes on.
        c.send(frame(PING, 0, 0, b'pingpong'))
        self.assertTrue(c.pump(lambda: c.pings, 2), 'PING not answered')
        self.assertEqual(c.pings, [b'pingpong'])
        c.send(settings_frame({INITIAL_WINDOW_SIZE: 65535}))
        self.assert_h2_file(c.get('/content/big.txt'), '/content/big.txt')

    def test_idle_connection_closed(self):
        c = self.raw().handshake()
        self.assert_h2_file(c.get('/a.txt'), '/a.txt')
        start = time.monotonic()
        self.assertTrue(c.wait_end(8), 'open 8 s after its last stream')
        took = time.monotonic() - start
        self.assertGreater(took, 1.5)
        self.assertLess(took, 5)
        if c.goaway:
            self.assertEqual(c.goaway[1], NO_ERROR, c.goaway)
        # Silent after the preface, and stuck inside it.
        quiet = self.raw()
        half = self.raw(preface=False)
        half.send(PREFACE[:10])
        start = time.monotonic()
        for conn in (quiet, half):
            self.assertTrue(conn.wait_end(8))
        self.assertLess(time.monotonic() - start, 5)

    def test_idle_timeout_not_moved_by_frames(self):
        """A PING or an unknown frame every half second is answered (or
        ignored), not a reason to stay: as HTTP/1.1's bytes that trickle
        in do not move its timer.  Before, both stayed open for ever."""
        for name, one in (('PING', frame(PING, 0, 0, b'12345678')),
                          ('unknown', frame(0xfa, 0, 0, b'x' * 16))):
            with self.subTest(frame=name):
                c = self.raw().handshake()
                self.assert_h2_file(c.get('/a.txt'), '/a.txt')
                start = time.monotonic()
                while not c.eof and time.monotonic() - start < 8:
                    try:
                        c.send(one)
                    except OSError:
                        break
                    c.pump(lambda: c.eof, 0.5)
                took = time.monotonic() - start
                self.assertTrue(c.wait_end(2), 'open 8 s after its last '
                                'stream')
                self.assertLess(took, 5)


@needs_h2
@needs_process('HTTP/2 is sehttpd\'s; sends it SIGTERM')
class Http2DrainTest(Http2Mixin, unittest.TestCase):

    def serve(self, tls, args=()):
        """A server of its own, to be sent SIGTERM."""
        self.tree = session_tree()
        args = list(args)
        if tls:
            ca, tls_args = tls_files()
            args += tls_args
            self.tls = tls_context(ca)
        srv = ServerProcess(args, root=self.tree.www)
        self.addCleanup(srv.kill)
        self.host, self.port = '127.0.0.1', srv.port
        return srv

    def window_stalled(self, url, **kw):
        """A raw connection (kw for raw()) and a stream for url whose
        first 65,535 bytes, a whole initial window, have been read."""
        c = self.raw(**kw).handshake()
        c.auto_window = False
        s = c.stream(c.request(url))
        self.assertTrue(c.pump(lambda: len(s.body) >= 65535, 5),
                        s.describe())
        return c, s

    def drain(self, tls):
        srv = self.serve(tls)
        url = '/big/10m.bin'
        c, s = self.window_stalled(url)
        srv.send_signal(signal.SIGTERM)
        c.pump(lambda: c.goaway, 1)
        # Go on reading (and opening windows) to the end.
        got = len(s.body)
        c.auto_window = True
        c.send(window_update(0, got) + window_update(s.sid, got))
        c.pump(lambda: s.done and c.goaway, 5)
        self.assertIsNotNone(c.goaway, 'no GOAWAY after SIGTERM')
        self.assertGreaterEqual(c.goaway[0], s.sid)
        self.assertEqual(c.goaway[1], NO_ERROR)
        self.assert_h2_file(s, url)
        self.assertTrue(c.wait_end(5), 'open after the last stream')
        self.assertEqual(srv.wait(5), 0, srv.stderr_text())

    def tail_survives_frames_in_flight(self, tls, mid_stream, delay=0):
        """The drained connection's last body is still queued in the
        server's socket (the client reads slowly) when the client sends
        again: a PING, WINDOW_UPDATEs as it reads.  Closing with those
        unread, or with them arriving after close(), resets the connection
        and throws the queued tail away.  mid_stream: the GOAWAY comes
        while the stream waits for a window, else once it is all queued
        and the connection idle.  delay: seconds after each DATA frame."""
        srv = self.serve(tls, ['--drain-timeout', '30'])
        url = '/big/1m.bin'
        if mid_stream:
            # A small receive buffer: most of the body waits in the
            # server's socket.
            c, s = self.window_stalled(url, rcvbuf=4096)
            srv.send_signal(signal.SIGTERM)
            time.sleep(0.3)
            # The rest goes into the server's socket at once, then the
            # server is done with the connection.
            c.send(window_update(0, 1 << 30) + window_update(s.sid, 1 << 30))
        else:
            c, s = self.queued_body(url)
            srv.send_signal(signal.SIGTERM)
        time.sleep(0.3)
        c.send(frame(PING, 0, 0, b'in-fligh'))
        c.auto_window = True  # a WINDOW_UPDATE per DATA frame read
        self.read_slowly(c, s, delay)
        self.assert_h2_file(s, url)
        self.assertTrue(c.pump(lambda: c.goaway, 5), 'no GOAWAY')
        self.assertEqual(c.goaway[1], NO_ERROR, c.goaway)
        self.assertTrue(c.wait_end(5), 'open after the last stream')
        self.assertEqual(srv.wait(5), 0, srv.stderr_text())

    def test_sigterm_idle_tail_survives_frames_in_flight(self):
        self.tail_survives_frames_in_flight(tls=False, mid_stream=False)

    def test_sigterm_idle_tail_survives_frames_in_flight_tls(self):
        self.tail_survives_frames_in_flight(tls=True, mid_stream=False)

    def test_sigterm_stream_tail_survives_frames_in_flight(self):
        self.tail_survives_frames_in_flight(tls=False, mid_stream=True)

    def test_sigterm_stream_tail_survives_frames_in_flight_tls(self):
        self.tail_survives_frames_in_flight(tls=True, mid_stream=True)

    def test_sigterm_tail_survives_a_slow_reader(self):
        """Reading the queued body takes about 4 s, more than the 2 s a
        lingering close waits once all is acknowledged."""
        self.tail_survives_frames_in_flight(tls=False, mid_stream=False,
                                            delay=0.06)

    def test_sigterm_lets_the_stream_finish(self):
        self.drain(tls=False)

    def test_sigterm_lets_the_stream_finish_tls(self):
        self.drain(tls=True)


if __name__ == '__main__':
    unittest.main()
