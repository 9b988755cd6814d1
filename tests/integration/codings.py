"""Helpers shared by the content tests (compression, validators, ranges,
the content cache): decoding a response's body, Vary, and which parts of
the specification the server under test implements."""

import shutil
import subprocess
import unittest
import zlib

from target import KIND

IS_KHTTPD = KIND == 'khttpd'

# What a server that cannot produce deflate sends when only it is accepted.
DEFLATE = 'identity' if IS_KHTTPD else 'deflate'
# The same for br and zstd (khttpd makes gzip only), and what a tie among
# everything (say "*") gets: the smallest output, br, or gzip.
BR = 'identity' if IS_KHTTPD else 'br'
ZSTD = 'identity' if IS_KHTTPD else 'zstd'
BEST = 'gzip' if IS_KHTTPD else 'br'
# The tools that decode br and zstd (Debian's brotli and zstd packages).
DECODERS = {'br': ['brotli', '-d', '-c'], 'zstd': ['zstd', '-d', '-c', '-q']}
HAVE_DECODERS = all(shutil.which(argv[0]) for argv in DECODERS.values())

# Compressible types (text, JavaScript, JSON, XML, SVG, wasm), each big
# enough to shrink.
COMPRESSIBLE = ['/content/big.txt', '/content/page.html',
                '/content/style.css', '/content/app.js',
                '/content/data.json', '/content/data.xml',
                '/content/image.svg', '/content/module.wasm',
                '/content/pre.txt', '/content/old.txt']
# Already-compressed types whose bytes here would still shrink.
INCOMPRESSIBLE = ['/content/image.png', '/content/photo.jpg',
                  '/content/stored.zip', '/content/stored.gz',
                  '/content/font.woff2', '/content/video.mp4',
                  '/content/pre.txt.gz', '/mime/image.png',
                  '/mime/archive.gz', '/mime/archive.zip']
# What a file above the cache's per-file limit (LARGE) is sent in when
# coding is asked for: sehttpd compresses it as it sends it (chunked),
# khttpd sends it as it is.
def streamed(coding):
    return 'identity' if IS_KHTTPD else coding


BIG = '/content/big.txt'
SMALL = '/content/small.txt'
LARGE = '/content/large.txt'
PNG = '/content/image.png'
TEN_MIB = '/big/10m.bin'


def sehttpd_only(why):
    """Skips a test (or class) on a server that lacks the feature."""
    return unittest.skipIf(KIND != 'sehttpd', '%s has no %s'
                           % (KIND, why))


def ae_headers(ae, extra=()):
    """Request headers with Accept-Encoding ae (None leaves it out)."""
    out = [] if ae is None else [('Accept-Encoding', ae)]
    return out + list(extra)


def coding_of(resp):
    """The response's content coding: 'identity' when none is named."""
    ce = resp.header('Content-Encoding')
    return 'identity' if ce is None else ce.strip().lower()


def decode(resp):
    """The body with its content coding undone.  deflate is the zlib
    format (RFC 1950), so zlib.decompress checks its header and Adler-32;
    gzip must be a single member with a valid CRC."""
    coding = coding_of(resp)
    body = resp.body
    if coding == 'identity':
        return body
    if coding == 'gzip':
        if body[:3] != b'\x1f\x8b\x08':
            raise AssertionError('not a gzip stream: %r' % body[:16])
        d = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)
        out = d.decompress(body) + d.flush()
        if not d.eof or d.unused_data:
            raise AssertionError('gzip body is truncated or has %d bytes '
                                 'after its end' % len(d.unused_data))
        return out
    if coding == 'deflate':
        d = zlib.decompressobj(wbits=zlib.MAX_WBITS)
        out = d.decompress(body) + d.flush()
        if not d.eof or d.unused_data:
            raise AssertionError('deflate body is truncated or has %d '
                                 'bytes after its end'
                                 % len(d.unused_data))
        return out
    if coding in DECODERS:
        if not HAVE_DECODERS:
            raise unittest.SkipTest('no %s tool to decode %s'
                                    % (DECODERS[coding][0], coding))
        # The tools fail on a truncated stream or trailing bytes.
        done = subprocess.run(DECODERS[coding], input=body,
                              stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE)
        if done.returncode:
            raise AssertionError('%s body does not decode: %s'
                                 % (coding, done.stderr.decode().strip()))
        return done.stdout
    raise AssertionError('unexpected Content-Encoding %r' % coding)


def vary_tokens(resp):
    out = set()
    for v in resp.all('Vary'):
        out.update(t.strip().lower() for t in v.split(','))
    return out


def varies_on_ae(resp):
    return 'accept-encoding' in vary_tokens(resp)


def fetch_prefix(target, url, method='GET', headers=(), limit=1 << 16):
    """Like target.get(), but reads at most limit bytes of a 200's body
    (then closes the connection): resp.partial tells whether more was due.
    For 200s of big files whose bodies other tests check in full, which
    through a slow link (khttpd in qemu) would take long."""
    from httpraw import build_request
    with target.conn() as c:
        c.send(build_request(method, url, headers=headers))
        resp = c.read_response(method, body=False)
        resp.partial = False
        if resp.framing == 'length':
            n = int(resp.header('Content-Length'))
            if resp.status != 200:
                limit = n
            resp.body = c.read_exact(min(n, limit))
            resp.partial = n > limit
        elif resp.framing == 'chunked':
            # Compressed as it is sent: read whole (a fraction of the file).
            resp.body = c.read_chunked(resp, 1 << 24)
        elif resp.framing != 'none':
            raise AssertionError('%s %s: unexpected framing' % (method, url))
    return resp
