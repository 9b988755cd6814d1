"""Checks once, before any timing, that a server serves the tree right:
every file byte for byte with a 200, and the listing as a 200 HTML page
naming every entry; for the compression scenarios, that the reply is the
file in the coding asked for (br and zstd decoded by Debian's brotli and
zstd tools)."""

import gzip
import http.client
import shutil
import subprocess
import zlib

import tree

TIMEOUT_S = 10.0


def _get(port, path):
    conn = http.client.HTTPConnection('127.0.0.1', port, timeout=TIMEOUT_S)
    try:
        conn.request('GET', path)
        resp = conn.getresponse()
        return resp.status, resp.getheader('Content-Type', ''), resp.read()
    finally:
        conn.close()


def check_tree(port, expected):
    """None if all is right, otherwise what is wrong."""
    try:
        for path, body in expected.items():
            status, _, got = _get(port, path)
            if status != 200:
                return 'GET %s: status %d' % (path, status)
            if got != body:
                return 'GET %s: %d bytes differ from the %d-byte file' % (
                    path, len(got), len(body))
        status, ctype, got = _get(port, tree.LISTING_PATH)
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


def check_fixed(port, body_bytes):
    """For the floor server: a 200 with a body of body_bytes."""
    try:
        status, _, got = _get(port, '/12.txt')
    except (OSError, http.client.HTTPException) as e:
        return 'GET failed: %s' % e
    if status != 200 or len(got) != body_bytes:
        return 'status %d, %d-byte body' % (status, len(got))
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
