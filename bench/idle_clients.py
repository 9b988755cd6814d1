"""Holds N idle keep-alive connections to an HTTP server.

Usage: idle_clients.py PORT PATH N

Opens N connections to 127.0.0.1:PORT, a batch at a time, sends one
keep-alive GET PATH on each and reads its whole response (it must be a
200), and keeps them open.  Then prints one JSON line
{"opened": K, "error": null or why it stopped early} and waits for a line
on stdin: on "check" it prints {"still_open": K}, the connections the
server has not closed, and waits again; on anything else (or end of file)
it resets every connection (SO_LINGER 0, so no TIME_WAIT is left on the
client side) and exits.
"""

import json
import resource
import socket
import struct
import sys
import time

TIMEOUT_S = 5.0
BATCH = 100  # below every server's listen backlog
DEADLINE_S = 60.0


def raise_nofile(need):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = max(soft, need)
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (want, max(want, hard)))
    except (ValueError, OSError):
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def read_response(sock):
    """Reads one response with a Content-Length body; returns its status."""
    buf = b''
    while b'\r\n\r\n' not in buf:
        data = sock.recv(65536)
        if not data:
            raise ConnectionError('closed before the response head')
        buf += data
    head, body = buf.split(b'\r\n\r\n', 1)
    lines = head.split(b'\r\n')
    status = int(lines[0].split()[1])
    length = None
    for line in lines[1:]:
        name, _, value = line.partition(b':')
        if name.strip().lower() == b'content-length':
            length = int(value)
    if length is None:
        raise ValueError('no Content-Length')
    while len(body) < length:
        data = sock.recv(65536)
        if not data:
            raise ConnectionError('closed within the body')
        body += data
    if len(body) != length:
        raise ValueError('more bytes than Content-Length')
    return status


def count_open(socks):
    """Connections with neither an end of file nor an error pending."""
    alive = 0
    for s in socks:
        s.setblocking(False)
        try:
            s.recv(1, socket.MSG_PEEK)
        except BlockingIOError:
            alive += 1
        except OSError:
            pass
    return alive


def open_batch(port, request, count):
    """Opens count connections, then sends every request, then reads every
    response: a round trip per batch, not per connection."""
    socks = []
    try:
        for _ in range(count):
            socks.append(socket.create_connection(('127.0.0.1', port),
                                                  timeout=TIMEOUT_S))
        for s in socks:
            s.sendall(request)
        for s in socks:
            status = read_response(s)
            if status != 200:
                raise ValueError('status %d' % status)
    except BaseException:
        for s in socks:
            s.close()
        raise
    return socks


def main():
    port, path, count = int(sys.argv[1]), sys.argv[2], int(sys.argv[3])
    raise_nofile(count + 64)
    request = ('GET %s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n\r\n' %
               (path, port)).encode()
    socks, error = [], None
    deadline = time.monotonic() + DEADLINE_S
    try:
        while len(socks) < count:
            if time.monotonic() > deadline:
                error = 'took longer than %.0f s' % DEADLINE_S
                break
            socks += open_batch(port, request,
                                min(BATCH, count - len(socks)))
    except (OSError, ValueError, IndexError) as e:
        error = '%s after %d connections' % (e, len(socks))
    ok = len(socks)
    print(json.dumps({'opened': ok, 'error': error}), flush=True)
    try:
        while sys.stdin.readline().strip() == 'check':
            print(json.dumps({'still_open': count_open(socks)}), flush=True)
    finally:
        linger = struct.pack('ii', 1, 0)
        for s in socks:
            try:
                s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, linger)
            except OSError:
                pass
            s.close()


if __name__ == '__main__':
    main()
