"""A raw HTTP/1.x client: exact bytes out, strictly parsed responses in.

Every socket operation has a timeout (HTTPD_IO_TIMEOUT seconds, default
10), so no test can hang on a silent server.
"""

import errno
import os
import re
import select
import socket
import ssl
import time

IO_TIMEOUT = float(os.environ.get('HTTPD_IO_TIMEOUT', '10'))
MAX_BODY = 64 << 20
MAX_HEAD = 64 << 10

_STATUS_LINE = re.compile(rb'^(HTTP/\d\.\d) (\d{3}) ([^\r\n]*)$')
_HEADER_LINE = re.compile(rb'^([!#$%&\'*+\-.^_`|~0-9A-Za-z]+):[ \t]*(.*?)'
                          rb'[ \t]*$')
_CHUNK_SIZE = re.compile(rb'^([0-9A-Fa-f]+)\r\n')


class ProtocolError(AssertionError):
    """The server sent something that is not valid HTTP/1.1 framing."""


class ConnectionClosed(AssertionError):
    """The connection ended before a complete response arrived."""


class Response:
    def __init__(self):
        self.version = None
        self.status = None
        self.reason = None
        self.headers = []  # [(name, value)] in order, as str
        self.head = b''  # status line and header fields, raw
        self.body = b''
        self.framing = None  # 'length', 'chunked', 'close' or 'none'
        self.chunk_sizes = None

    def all(self, name):
        name = name.lower()
        return [v for n, v in self.headers if n.lower() == name]

    def header(self, name):
        """The value of a header that must appear at most once."""
        values = self.all(name)
        if len(values) > 1:
            raise ProtocolError('header %s appears %d times:\n%s'
                                % (name, len(values), self.describe()))
        return values[0] if values else None

    def connection_tokens(self):
        out = set()
        for v in self.all('Connection'):
            out.update(t.strip().lower() for t in v.split(','))
        return out

    def describe(self, body_limit=300):
        body = self.body[:body_limit]
        more = '' if len(self.body) <= body_limit else \
            '... (%d bytes in all)' % len(self.body)
        return '%s\n\n%r%s' % (self.head.decode('latin-1'), body, more)

    def __repr__(self):
        return '<Response %s %s, %d body bytes>' % (self.status, self.reason,
                                                    len(self.body))


def addr_family(host):
    return socket.AF_INET6 if ':' in host else socket.AF_INET


class Conn:
    """One client connection with a receive buffer."""

    def __init__(self, host, port, timeout=IO_TIMEOUT, rcvbuf=None,
                 tls=None, server_hostname=None):
        """tls: an ssl.SSLContext to speak HTTPS with."""
        self.host = host
        self.port = port
        self.timeout = timeout
        self.sock = socket.socket(addr_family(host), socket.SOCK_STREAM)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        if rcvbuf:
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
        self.sock.settimeout(timeout)
        try:
            self.sock.connect((host, port))
            if tls is not None:
                self.sock = tls.wrap_socket(
                    self.sock, server_hostname=server_hostname or host)
        except BaseException:
            self.sock.close()
            raise
        self.buf = bytearray()
        self.eof = False
        self.reset = False

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        if self.sock:
            self.sock.close()
            self.sock = None

    def send(self, data):
        if isinstance(data, str):
            data = data.encode('latin-1')
        self.sock.sendall(data)

    def send_slowly(self, data, step=1, pause=0.001):
        """Sends data a few bytes at a time, each in its own segment."""
        for i in range(0, len(data), step):
            self.sock.sendall(data[i:i + step])
            time.sleep(pause)

    def _fill(self):
        """Reads more into the buffer; False on EOF (or reset)."""
        if self.eof:
            return False
        try:
            data = self.sock.recv(1 << 20)
        except (ConnectionResetError, ssl.SSLEOFError):
            data = b''
            self.reset = True
        except socket.timeout:
            raise TimeoutError('no data from the server for %.1f s '
                               '(have %d unparsed bytes: %r)'
                               % (self.timeout, len(self.buf),
                                  bytes(self.buf[:200])))
        if not data:
            self.eof = True
            return False
        self.buf += data
        return True

    def _take(self, n):
        out = bytes(self.buf[:n])
        del self.buf[:n]
        return out

    def read_until(self, sep, limit):
        while True:
            i = self.buf.find(sep)
            if i >= 0:
                return self._take(i + len(sep))
            if len(self.buf) > limit:
                raise ProtocolError('no %r within %d bytes: %r'
                                    % (sep, limit, bytes(self.buf[:300])))
            if not self._fill():
                return None

    def read_exact(self, n):
        while len(self.buf) < n:
            if not self._fill():
                raise ConnectionClosed('connection closed after %d of %d '
                                       'body bytes' % (len(self.buf), n))
        return self._take(n)

    def read_until_close(self, limit=MAX_BODY):
        while self._fill():
            if len(self.buf) > limit:
                raise ProtocolError('close-delimited body over %d bytes'
                                    % limit)
        return self._take(len(self.buf))

    def read_head(self, resp):
        head = self.read_until(b'\r\n\r\n', MAX_HEAD)
        if head is None:
            if self.buf:
                raise ConnectionClosed('connection closed inside a '
                                       'response head: %r'
                                       % bytes(self.buf[:300]))
            raise ConnectionClosed('connection closed with no response')
        resp.head = head[:-4]
        lines = resp.head.split(b'\r\n')
        for line in lines:
            if b'\n' in line or b'\r' in line:
                raise ProtocolError('bare CR or LF in response head: %r'
                                    % resp.head)
        m = _STATUS_LINE.match(lines[0])
        if not m:
            raise ProtocolError('bad status line %r' % lines[0])
        resp.version = m.group(1).decode()
        resp.status = int(m.group(2))
        resp.reason = m.group(3).decode('latin-1')
        for line in lines[1:]:
            h = _HEADER_LINE.match(line)
            if not h:
                raise ProtocolError('bad header line %r in\n%s'
                                    % (line, resp.head.decode('latin-1')))
            resp.headers.append((h.group(1).decode(),
                                 h.group(2).decode('latin-1')))

    def read_chunked(self, resp, limit):
        """Reads a chunked body, insisting on exact framing: hex sizes
        without extensions, CRLF after each size and each chunk, and a
        final 0\\r\\n\\r\\n without trailers."""
        body = bytearray()
        sizes = []
        while True:
            line = self.read_until(b'\r\n', 64)
            if line is None:
                raise ConnectionClosed('connection closed inside chunked '
                                       'body after %d bytes' % len(body))
            m = _CHUNK_SIZE.match(line)
            if not m:
                raise ProtocolError('bad chunk-size line %r after %d body '
                                    'bytes' % (line, len(body)))
            size = int(m.group(1), 16)
            sizes.append(size)
            if size == 0:
                end = self.read_exact(2)
                if end != b'\r\n':
                    raise ProtocolError('last chunk not followed by CRLF '
                                        '(trailers?): %r' % (end + self._take(
                                            min(len(self.buf), 100))))
                break
            body += self.read_exact(size)
            crlf = self.read_exact(2)
            if crlf != b'\r\n':
                raise ProtocolError('chunk of %d bytes followed by %r, not '
                                    'CRLF' % (size, crlf))
            if len(body) > limit:
                raise ProtocolError('chunked body over %d bytes' % limit)
        resp.chunk_sizes = sizes
        return bytes(body)

    def read_response(self, method='GET', limit=MAX_BODY, body=True):
        """Reads one response.  With body=False only the head is read (the
        caller streams the body itself)."""
        resp = Response()
        self.read_head(resp)
        if resp.status // 100 == 1:
            raise ProtocolError('unexpected interim response %d'
                                % resp.status)
        te = resp.all('Transfer-Encoding')
        cl = resp.all('Content-Length')
        if te and cl:
            raise ProtocolError('both Transfer-Encoding and Content-Length'
                                ':\n' + resp.describe())
        if len(cl) > 1:
            raise ProtocolError('several Content-Length fields:\n'
                                + resp.describe())
        if te and [t.strip().lower() for t in te] != ['chunked']:
            raise ProtocolError('unexpected Transfer-Encoding %r' % te)
        if cl and not re.fullmatch(r'\d+', cl[0]):
            raise ProtocolError('bad Content-Length %r' % cl[0])
        if method == 'HEAD' or resp.status in (204, 304):
            resp.framing = 'none'
        elif te:
            resp.framing = 'chunked'
        elif cl:
            resp.framing = 'length'
        else:
            resp.framing = 'close'
        if not body:
            return resp
        if resp.framing == 'chunked':
            resp.body = self.read_chunked(resp, limit)
        elif resp.framing == 'length':
            n = int(cl[0])
            if n > limit:
                raise ProtocolError('Content-Length %d over the limit' % n)
            resp.body = self.read_exact(n)
        elif resp.framing == 'close':
            resp.body = self.read_until_close(limit)
        return resp

    def wait_closed(self, timeout):
        """Waits up to timeout seconds for the server to close (EOF or
        reset).  Returns (closed, data) where data is whatever arrived
        before the close (or before the timeout)."""
        deadline = time.monotonic() + timeout
        data = bytes(self.buf)
        self.buf.clear()
        if self.eof:
            return True, data
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return False, data
            r, _, _ = select.select([self.sock], [], [], left)
            if not r:
                continue
            try:
                chunk = self.sock.recv(65536)
            except ConnectionResetError:
                chunk = b''
            if not chunk:
                self.eof = True
                return True, data
            data += chunk

    def is_open(self, wait=0.2):
        """True when the connection is still open and silent after wait
        seconds."""
        closed, data = self.wait_closed(wait)
        if data:
            raise ProtocolError('unexpected bytes from the server: %r'
                                % data[:300])
        return not closed


def build_request(method='GET', target='/', version='HTTP/1.1', host='test',
                  headers=(), body=b''):
    """Builds request bytes.  host=None leaves Host out; headers is a list
    of (name, value) or raw lines."""
    lines = ['%s %s %s' % (method, target, version)]
    if host is not None:
        lines.append('Host: %s' % host)
    for h in headers:
        lines.append(h if isinstance(h, str) else '%s: %s' % h)
    if isinstance(body, str):
        body = body.encode()
    if body and not any(isinstance(h, tuple) and
                        h[0].lower() in ('content-length',
                                         'transfer-encoding')
                        for h in headers):
        lines.append('Content-Length: %d' % len(body))
    return ('\r\n'.join(lines) + '\r\n\r\n').encode('utf-8') + body


def request(host, port, data, method='GET', timeout=IO_TIMEOUT):
    """Opens a connection, sends data, reads one response, closes."""
    with Conn(host, port, timeout) as c:
        c.send(data)
        return c.read_response(method)


def connect_refused(host, port, timeout=1.0):
    """True when a connection attempt is refused right away.  A reset
    counts too: a SYN that reached a listener just as it was closed (on
    SIGTERM) is answered with RST rather than refused."""
    s = socket.socket(addr_family(host), socket.SOCK_STREAM)
    s.settimeout(timeout)
    try:
        s.connect((host, port))
    except (ConnectionRefusedError, ConnectionResetError):
        return True
    except OSError as e:
        if e.errno in (errno.ECONNREFUSED, errno.ECONNRESET):
            return True
        raise
    finally:
        s.close()
    return False
