"""Differential testing: the same requests to two servers serving the same
tree (sehttpd and khttpd, whose answers the shared core decides), their
responses normalised and compared.

requests(tree) generates the requests: paths with encodings, dot
segments, dotfiles, directories with and without their slash, index files,
missing files, ranges of many shapes, conditionals, Accept-Encoding
shapes, HEAD and GET, HTTP/1.0 and 1.1, Connection headers, odd methods,
bad versions, long headers.  fetch() sends one on a connection of its own
and describes the answer (status, the headers both servers send, a hash
of the body, whether the connection stayed open), 16 at a time.
compare() lists the differences that stay when the request is sent again
alone, less those the documentation gives one server alone
(documented()).  Normalised: Date and Server, the inode in ETags (two
copies of a tree), gzip bodies (compared decompressed: two encoders),
a Last-Modified that is the response's Date.

test_differential.py runs it in the kernel suite (sehttpd on this host
beside khttpd in the guest).  As a script, against two servers already
running over copies of one tree:

  python3 differential.py TREE HOST:PORT HOST:PORT [--all]

prints each difference, grouped by class, in two passes (the second
with both caches warm), and exits 1 when there is one (--all: the
documented ones too; further words: only the requests whose names hold
one of them).  For the same tree, sehttpd needs --mime-types '' (khttpd
has the built-in table alone) and, as khttpd, the flags for the module's
parameters (target.py's FLAG_PARAMS).
"""

import concurrent.futures
import gzip
import hashlib
import re
import socket
import sys
import time
import urllib.parse

import httpraw

# Headers that legitimately differ or say nothing of the plan.
IGNORED = {'date', 'server', 'keep-alive'}


def _req(method, target, version='HTTP/1.1', headers=(), host='test'):
    return httpraw.build_request(method, target, version, host=host,
                                 headers=headers)


def requests(tree):
    """[(name, raw bytes, method)]: every request sent to both."""
    out = []

    def add(name, raw, method='GET'):
        out.append((name, raw, method))

    def get(target, headers=(), method='GET', version='HTTP/1.1',
            name=None):
        add(name or '%s %s %s %r' % (method, target, version,
                                     list(headers)),
            _req(method, target, version, headers), method)

    def url(u):
        return urllib.parse.quote(u.encode('utf-8', 'surrogateescape'),
                                  safe='/')

    # Every file and directory of the tree, GET and HEAD.
    urls = sorted(tree.files) + sorted(tree.dirs)
    urls = [u for u in urls if not u.startswith('/big/')
            and u != '/content/large.txt']
    for u in urls:
        for m in ('GET', 'HEAD'):
            get(url(u), method=m)
    for u in sorted(tree.links):
        get(url(u))
        get(url(u) + '/')
    for d in sorted(tree.dirs):
        if d != '/':
            get(url(d.rstrip('/')))
            get(url(d.rstrip('/')) + '?q=a%20b&x')
    get('/big/1m.bin', method='HEAD')
    get('/content/large.txt', method='HEAD')
    get('/content/large.txt', [('Accept-Encoding', 'gzip')], method='HEAD')

    # Paths: encodings, dot segments, odd bytes.
    for p in ['/a.txt/', '/A.txt', '/%41.txt', '/%2541.txt', '/%61.txt',
              '/a%2etxt', '/./a.txt', '/a/../a.txt', '/a/b/../c',
              '/a/./b/x.txt', '//a.txt', '/a//c', '/a/b/..', '/a/b/../',
              '/a/b/.', '/..', '/../a.txt', '/a/../../a.txt',
              '/%2e%2e/outside/secret.txt', '/%2E%2E/a.txt', '/.%2e/a.txt',
              '/a%2fc', '/a%2Fc', '/a.txt%00', '/a.txt%00.html', '/%',
              '/%4', '/%zz', '/%C3%BC', '/a.txt?x=1', '/a.txt?',
              '/a.txt#frag', '/a.txt?%zz', '/dir_index?x=1',
              '/dir_noindex?sort=size&order=desc', '/dir_noindex/?sort=date',
              '/dir_noindex/?sort=size&order=desc', '/dir_noindex/?sort=x',
              '/dir_noindex/?order=desc', '/dir_noindex/?sort=name&sort=size',
              '/missing', '/missing/', '/missing.html', '/missing/x.txt',
              '/a.txt/x', '/.env', '/.env/', '/.git', '/.git/',
              '/.git/config', '/.well-known', '/.well-known/',
              '/.well-known/security.txt', '/.well-known/.hidden',
              '/dots/.well-known/x.txt', '/dots/.dir/', '/dots/.dir/x.txt',
              '/%2eenv', '/.%65nv', '/dotlinks/app.css.gz',
              '/link_etc/passwd', '/link_outside/secret.txt',
              '/abslinks/to_dir/a.txt', '/links/to_dir/inner.txt',
              '/dir_outindex/', '/dir_outindex/index.html',
              '/dir_outindex/index.htm', '/index.html/', '/index.htm',
              '/a\\b', '/a;b', '/~', '/%7e', '/\x7f', '/a b',
              '/' + 'x' * 300, '/' + 'a/' * 200, '/' + '%2f' * 50,
              'http://test/a.txt', 'http://other/a.txt', 'HTTP://TEST/a.txt',
              'http://test', 'https://test/a.txt', '*', 'a.txt', '',
              '/a.txt/.', '/a.txt/..', '/escape/', '/escape/dir%20with%20space',
              '/escape/dir with space/in.txt']:
        get(p)
    get('*', method='OPTIONS')
    get('/', method='OPTIONS')
    get('/a.txt', method='OPTIONS')
    get('/missing', method='OPTIONS')

    # Methods and versions.
    for m in ['POST', 'PUT', 'DELETE', 'PATCH', 'TRACE', 'CONNECT', 'FOO',
              'get', 'Get', 'HEAD ', 'PRI', 'BREW', 'G@T']:
        get('/a.txt', method=m.strip(), name='method %r' % m)
    for v in ['HTTP/1.0', 'HTTP/1.1', 'HTTP/1.2', 'HTTP/2.0', 'HTTP/0.9',
              'HTTP/3', 'HTTP/10.1', 'http/1.1', 'HTTP/1', 'HTTP/1.1 ',
              'HTTP/01.1', 'FOO/1.1']:
        get('/a.txt', version=v, name='version %r' % v)
        get('/dir_noindex/', version=v, name='listing version %r' % v)
    add('HTTP/0.9 simple', b'GET /a.txt\r\n')
    add('no host 1.1', _req('GET', '/a.txt', host=None))
    add('no host 1.0', _req('GET', '/a.txt', 'HTTP/1.0', host=None))
    add('two hosts', _req('GET', '/a.txt', headers=[('Host', 'x')]))
    add('empty host', _req('GET', '/a.txt', host=''))
    add('bad host', _req('GET', '/a.txt', host='a b'))
    add('host with port', _req('GET', '/a.txt', host='test:80'))
    add('LF only', b'GET /a.txt HTTP/1.1\nHost: test\n\n')
    add('leading CRLF', b'\r\n' + _req('GET', '/a.txt'))
    add('space before colon', b'GET /a.txt HTTP/1.1\r\nHost: t\r\n'
        b'X-A : b\r\n\r\n')
    add('obs-fold', b'GET /a.txt HTTP/1.1\r\nHost: t\r\nX-A: b\r\n c\r\n\r\n')
    add('two spaces', b'GET  /a.txt HTTP/1.1\r\nHost: t\r\n\r\n')
    add('tab sep', b'GET\t/a.txt\tHTTP/1.1\r\nHost: t\r\n\r\n')
    add('NUL in header', b'GET /a.txt HTTP/1.1\r\nHost: t\r\nX: a\x00b'
        b'\r\n\r\n')
    add('header no colon', b'GET /a.txt HTTP/1.1\r\nHost: t\r\nX\r\n\r\n')
    add('bad header name', b'GET /a.txt HTTP/1.1\r\nHost: t\r\nX(y): 1'
        b'\r\n\r\n')
    add('empty header name', b'GET /a.txt HTTP/1.1\r\nHost: t\r\n: 1'
        b'\r\n\r\n')
    add('CR alone', b'GET /a.txt HTTP/1.1\r\nHost: t\rX: 1\r\n\r\n')
    for n in (4000, 8200, 9000, 17000):
        add('long header %d' % n, _req('GET', '/a.txt',
                                       headers=[('X-Long', 'v' * n)]))
    add('long target 9000', _req('GET', '/' + 'a' * 9000))
    add('101 headers', _req('GET', '/a.txt', headers=[
        ('X-H%d' % i, 'v') for i in range(101)]))
    add('99 headers', _req('GET', '/a.txt', headers=[
        ('X-H%d' % i, 'v') for i in range(98)]))

    # Bodies and framing.
    add('GET with body', _req('GET', '/a.txt', headers=[
        ('Content-Length', '5')]) + b'hello')
    add('POST with body', _req('POST', '/a.txt', headers=[
        ('Content-Length', '5')]) + b'hello', 'POST')
    add('chunked body', _req('GET', '/a.txt', headers=[
        ('Transfer-Encoding', 'chunked')]) + b'5\r\nhello\r\n0\r\n\r\n')
    add('TE gzip', _req('GET', '/a.txt', headers=[
        ('Transfer-Encoding', 'gzip')]))
    add('TE and CL', _req('GET', '/a.txt', headers=[
        ('Transfer-Encoding', 'chunked'), ('Content-Length', '3')]) +
        b'0\r\n\r\n')
    add('two CL same', _req('GET', '/a.txt', headers=[
        ('Content-Length', '0'), ('Content-Length', '0')]))
    add('two CL differ', _req('GET', '/a.txt', headers=[
        ('Content-Length', '0'), ('Content-Length', '1')]) + b'x')
    add('CL list', _req('GET', '/a.txt', headers=[
        ('Content-Length', '0, 0')]))
    add('CL negative', _req('GET', '/a.txt', headers=[
        ('Content-Length', '-1')]))
    add('CL plus', _req('GET', '/a.txt', headers=[
        ('Content-Length', '+1')]) + b'x')
    add('CL huge', _req('GET', '/a.txt', headers=[
        ('Content-Length', '99999999999999999999999')]))
    add('Expect 100', _req('GET', '/a.txt', headers=[
        ('Expect', '100-continue'), ('Content-Length', '2')]) + b'ab')
    add('Expect other', _req('GET', '/a.txt', headers=[
        ('Expect', 'foo')]))

    # Connection handling.
    for v in ('HTTP/1.0', 'HTTP/1.1'):
        for c in ('close', 'keep-alive', 'Keep-Alive', 'foo, close',
                  'close, keep-alive', 'upgrade', 'CLOSE', 'keep-alive, x'):
            get('/a.txt', [('Connection', c)], version=v)
        get('/dir_noindex/', [('Connection', 'keep-alive')], version=v)
        get('/missing', [('Connection', 'keep-alive')], version=v)
    get('/a.txt', [('Connection', 'close'), ('Connection', 'keep-alive')])
    get('/a.txt', [('Upgrade', 'h2c'), ('Connection', 'Upgrade, HTTP2-Settings'),
                   ('HTTP2-Settings', 'AAMAAABkAARAAAAAAAIAAAAA')])
    get('/a.txt', [('Upgrade', 'websocket'), ('Connection', 'Upgrade')])

    # Ranges on a small and a larger file, identity and otherwise.
    shapes = ['bytes=0-0', 'bytes=0-4', 'bytes=5-', 'bytes=-5', 'bytes=-0',
              'bytes=0-', 'bytes=11-', 'bytes=12-', 'bytes=11-11',
              'bytes=100-', 'bytes=-100', 'bytes=5-2', 'bytes=0-99999',
              'bytes=0-1,3-4', 'bytes=0-1, 3-4', 'bytes=0-1,0-1',
              'bytes=0-1,100-200', 'bytes=100-200,0-1', 'bytes=-1,-2',
              'bytes= 0-1', 'bytes =0-1', 'Bytes=0-1', 'BYTES=0-1',
              'bytes=0-1,', 'bytes=,0-1', 'bytes=', 'bytes=-', 'bytes=a-b',
              'bytes=1-a', 'items=0-1', 'bytes=00-01', 'bytes=0x1-2',
              'bytes=18446744073709551615-', 'bytes=0-18446744073709551616',
              'bytes=-18446744073709551616', 'bytes=1-1-1', 'bytes=0 -1',
              'bytes=0- 1', 'bytes=\t0-1', 'bytes=0-1\t', '0-1', 'bytes',
              'bytes=12-11', 'bytes=11-5']
    for s in shapes:
        for u in ('/a.txt', '/content/big.txt'):
            get(u, [('Range', s)])
    for u in ('/empty.txt', '/dir_noindex/', '/missing', '/content/large.txt',
              '/precomp/all.txt', '/content/pre.txt'):
        for s in ('bytes=0-0', 'bytes=-1', 'bytes=0-', 'bytes=5-'):
            get(u, [('Range', s)])
            get(u, [('Range', s), ('Accept-Encoding', 'gzip')])
    get('/a.txt', [('Range', 'bytes=0-1'), ('Range', 'bytes=2-3')])
    get('/a.txt', [('Range', 'bytes=0-1')], method='HEAD')
    get('/a.txt', [('Range', 'bytes=0-1')], version='HTTP/1.0')
    get('/a.txt', [('Range', 'bytes=0-1')], method='POST')

    # Conditionals: the ETag is read from a first answer of the same
    # server (scripted as a marker, replaced in fetch()).
    date_shapes = ['Tue, 14 Nov 2023 22:13:20 GMT',  # the mtime
                   'Tue, 14 Nov 2023 22:13:19 GMT',
                   'Tue, 14 Nov 2023 22:13:21 GMT',
                   'Tuesday, 14-Nov-23 22:13:20 GMT',
                   'Tue Nov 14 22:13:20 2023',
                   'Tue, 14 Nov 2023 22:13:20 UTC',
                   'Tue, 14 Nov 2023 22:13:20',
                   'tue, 14 nov 2023 22:13:20 GMT',
                   'Tue, 14 Nov 2023 22:13:20 GMT ',
                   'Tue,  14 Nov 2023 22:13:20 GMT',
                   'Mon, 14 Nov 2023 22:13:20 GMT',
                   'Tue, 31 Feb 2023 22:13:20 GMT',
                   'Tue, 14 Nov 2023 25:13:20 GMT',
                   'Tue, 14 Nov 2023 22:13:60 GMT',
                   'Thu, 01 Jan 1970 00:00:00 GMT',
                   'Fri, 01 Jan 2100 00:00:00 GMT',
                   'Sun, 06 Nov 1994 08:49:37 GMT',
                   'garbage', '', '0', '1700000000']
    for u in ('/a.txt', '/dir_noindex/', '/content/future.txt',
              '/content/big.txt'):
        for ds in date_shapes:
            get(u, [('If-Modified-Since', ds)])
            get(u, [('If-Unmodified-Since', ds)])
        for ds in date_shapes[:6]:
            get(u, [('If-Modified-Since', ds)], method='HEAD')
            get(u, [('If-Range', ds), ('Range', 'bytes=0-1')])
    etag_shapes = ['@ETAG@', 'W/@ETAG@', '*', '"x"', '"x", @ETAG@',
                   '@ETAG@, "x"', '"x",@ETAG@', 'W/"x", W/@ETAG@', 'x',
                   '@ETAG@ ', ' @ETAG@', '"', '""', '@ETAG@;', 'w/@ETAG@',
                   '@ETAG-GZ@', 'W/@ETAG-GZ@', '@ETAG@@ETAG@',
                   '"x" @ETAG@', ',@ETAG@', '@ETAG@,,"y"']
    for u in ('/a.txt', '/content/big.txt', '/dir_noindex/', '/missing',
              '/precomp/all.txt'):
        for es in etag_shapes:
            get(u, [('If-None-Match', es)])
            get(u, [('If-Match', es)])
            get(u, [('If-Range', es), ('Range', 'bytes=0-1')])
            get(u, [('If-None-Match', es), ('Accept-Encoding', 'gzip')])
        get(u, [('If-None-Match', '"x"'),
                ('If-Modified-Since', date_shapes[0])])
        get(u, [('If-None-Match', '@ETAG@'),
                ('If-Modified-Since', date_shapes[14])])
        get(u, [('If-Match', '"x"'),
                ('If-Unmodified-Since', date_shapes[2])])
        get(u, [('If-Match', '@ETAG@'),
                ('If-Unmodified-Since', date_shapes[14])])
        get(u, [('If-None-Match', '@ETAG@')], method='HEAD')
        get(u, [('If-Match', '"x"')], method='HEAD')
        get(u, [('If-Match', '"x"')], method='POST')
        get(u, [('If-None-Match', '*')], method='POST')
        get(u, [('If-Range', '@ETAG@'), ('Range', 'bytes=0-1, 3-4')])
        get(u, [('If-Range', '@ETAG@'), ('Range', 'bytes=100000-')])

    # Accept-Encoding shapes on compressible files and listings.
    ae_shapes = ['gzip', 'GZIP', 'x-gzip', 'gzip;q=0', 'gzip;q=0.001',
                 'gzip;q=1.0', 'gzip;q=1.001', 'gzip;q=1.', 'gzip;q=.5',
                 'gzip; q=0.5', 'gzip ;q=0.5', 'gzip;Q=0.5', 'gzip;q=0.5;x=1',
                 'gzip;x=1;q=0', 'gzip;q=0.0000', 'gzip;q=0.00000',
                 'gzip;q=-1', 'gzip;q=abc', 'gzip;q', 'gzip;q=', '*',
                 '*;q=0', 'gzip, *;q=0', 'identity', 'identity;q=0',
                 'identity;q=0, *;q=0', 'identity;q=0, gzip;q=0',
                 '*;q=0, gzip', 'identity, gzip;q=0.5', 'identity;q=0.5, gzip',
                 'identity;q=0.5, gzip;q=0.5', 'br', 'zstd', 'deflate',
                 'br, gzip', 'gzip, br', 'br;q=0.5, gzip', 'gzip;q=0.5, br',
                 'zstd, gzip;q=0.9', 'compress', 'compress, *;q=0', '',
                 ',', ', gzip', 'gzip,', 'gzip gzip', 'gzip,gzip;q=0',
                 'gzip;q=0,gzip', 'gzip;q=0.5, gzip;q=0.9', 'gzip, deflate',
                 'deflate, gzip;q=0.9', 'x;q=1, gzip;q=0.1', 'gzip;q="1"',
                 'GzIp ; Q = 0.5', 'gzip\t;q=0.5', 'gzip;;q=1']
    for u in ('/content/big.txt', '/content/small.txt', '/content/pre.txt',
              '/content/old.txt', '/precomp/all.txt', '/precomp/br.txt',
              '/precomp/zst.txt', '/precomp/empty.txt', '/precomp/stale.txt',
              '/dir_noindex/', '/content/image.png', '/dotlinks/app.css',
              '/empty.txt', '/a.txt'):
        for ae in ae_shapes:
            get(u, [('Accept-Encoding', ae)])
        get(u, [('Accept-Encoding', 'gzip')], method='HEAD')
        get(u, [('Accept-Encoding', 'gzip')], version='HTTP/1.0')
        get(u, [('Accept-Encoding', 'gzip'), ('Accept-Encoding', 'br')])
        get(u, [('Accept-Encoding', 'gzip;q=0'), ('Accept-Encoding', 'gzip')])

    # Accept shapes on listings.
    for acc in ['application/json', 'application/json;q=0', 'text/html',
                'application/*', 'text/html;q=0.5, application/json',
                'application/json;q=0.5, text/html', '*/*', 'text/*',
                'application/json, text/html', 'application/json;q=abc',
                'application/json; charset=utf-8', 'APPLICATION/JSON',
                'application/json;q=1.0, */*;q=0.1', 'foo', '', 'text/html;q=0']:
        for u in ('/json/', '/dir_noindex/', '/a.txt', '/empty/'):
            get(u, [('Accept', acc)])
        get('/json/', [('Accept', acc), ('Accept-Encoding', 'gzip')])
    get('/json/?sort=size&order=desc', [('Accept', 'application/json')])

    # CORS: simple requests and preflights (answered with --cors).
    for origin in ('https://app.example', 'https://other.example', 'null',
                   ''):
        get('/a.txt', [('Origin', origin)])
        get('/missing', [('Origin', origin)])
        for acrm in ('GET', 'POST', 'PUT', 'get', ''):
            for acrh in (None, 'x-a', 'X-A, content-type', 'a' * 600,
                         ', ,x', 'bad header'):
                hs = [('Origin', origin),
                      ('Access-Control-Request-Method', acrm)]
                if acrh is not None:
                    hs.append(('Access-Control-Request-Headers', acrh))
                get('/a.txt', hs, method='OPTIONS')
        get('/dir_noindex/', [('Origin', origin),
                              ('Access-Control-Request-Method', 'GET')],
            method='OPTIONS')
        get('*', [('Origin', origin),
                  ('Access-Control-Request-Method', 'GET')],
            method='OPTIONS')

    # Past the cache: ranges and validators of streamed files.
    for u in ('/big/1m.bin', '/big/10m.bin', '/content/large.txt'):
        for s in ('bytes=0-0', 'bytes=-1', 'bytes=1048575-1048600',
                  'bytes=1048576-1048600', 'bytes=1048570-1048580',
                  'bytes=10485759-', 'bytes=10485760-', 'bytes=2097151-',
                  'bytes=2097152-'):
            get(u, [('Range', s)])
        get(u, [('If-None-Match', '@ETAG@')])
        get(u, [('If-Match', '"x"')])
        get(u, [('If-Modified-Since', date_shapes[0])])
        get(u, [('If-Range', '@ETAG@'), ('Range', 'bytes=0-1')])
        get(u, [('If-Range', '"x"'), ('Range', 'bytes=0-1')], method='HEAD')

    # Limits: a request line and a head around their bounds.
    for n in range(8170, 8185, 2):
        add('target of %d' % n, _req('GET', '/a.txt?' + 'q' * (n - 7)))
    for n in range(16300, 16420, 15):
        add('head of about %d' % n, _req('GET', '/a.txt', headers=[
            ('X-Pad', 'p' * n)]))
    for n in (16000, 16300, 16384):
        add('split head %d' % n, _req('GET', '/a.txt', headers=[
            ('X-P%d' % i, 'p' * 1000) for i in range(n // 1010)]))

    # A body skipped, then the next request on the connection.
    for n in (10, 5000, 70000, 300000):
        add('body %d then GET' % n, _req('GET', '/a.txt', headers=[
            ('Content-Length', str(n))]) + b'b' * n + _req('GET', '/b.txt'))
        add('POST body %d then GET' % n, _req('POST', '/a.txt', headers=[
            ('Content-Length', str(n))]) + b'b' * n + _req('GET', '/b.txt'),
            'POST')
    add('chunked ext trailer then GET', _req('GET', '/a.txt', headers=[
        ('Transfer-Encoding', 'chunked')]) + b'5;x=y\r\nhello\r\n0\r\n'
        b'T: v\r\n\r\n' + _req('GET', '/b.txt'))
    add('chunked bad size then GET', _req('GET', '/a.txt', headers=[
        ('Transfer-Encoding', 'chunked')]) + b'zz\r\nhello\r\n0\r\n'
        b'\r\n' + _req('GET', '/b.txt'))
    add('404 then GET', _req('GET', '/missing') + _req('GET', '/b.txt'))
    add('405 then GET', _req('DELETE', '/a.txt') + _req('GET', '/b.txt'),
        'DELETE')
    add('1.0 then GET', _req('GET', '/a.txt', 'HTTP/1.0') +
        _req('GET', '/b.txt'))
    add('1.0 keep-alive then GET', _req('GET', '/a.txt', 'HTTP/1.0', headers=[
        ('Connection', 'keep-alive')]) + _req('GET', '/b.txt'))
    add('1.0 keep-alive listing then GET', _req(
        'GET', '/dir_noindex/', 'HTTP/1.0', headers=[
            ('Connection', 'keep-alive')]) + _req('GET', '/b.txt'))
    add('bad then GET', b'GET /a b c\r\n\r\n' + _req('GET', '/b.txt'))
    add('OPTIONS then GET', _req('OPTIONS', '*') + _req('GET', '/b.txt'),
        'OPTIONS')
    add('redirect then GET', _req('GET', '/dir_index') +
        _req('GET', '/b.txt'))
    add('range then GET', _req('GET', '/a.txt', headers=[
        ('Range', 'bytes=0-1')]) + _req('GET', '/b.txt'))
    add('304 then GET', _req('GET', '/a.txt', headers=[
        ('If-Modified-Since', date_shapes[0])]) + _req('GET', '/b.txt'))

    # The same again, the request cut in two with a pause: a server may
    # answer a request whole in its first read another way.
    for name, raw, method in list(out):
        if 'then' in name or name in ('GET /a.txt HTTP/1.1 []',
                                      'GET /dir_noindex/ HTTP/1.1 []',
                                      'GET /missing HTTP/1.1 []'):
            out.append(('slow ' + name, raw, method))

    # Pipelined: two requests in one write.
    add('pipelined two', _req('GET', '/a.txt') + _req('GET', '/b.txt'))
    add('pipelined HEAD then GET', _req('HEAD', '/a.txt') +
        _req('GET', '/b.txt'), 'HEAD')
    return out


ETAG_MARKERS = ('@ETAG@', '@ETAG-GZ@')


def raw_exchange(host, port, raw, method='GET', slow=False, timeout=10.0):
    """(bytes the server sent, whether it closed) for raw; slow: its
    first 10 bytes, a pause, then the rest."""
    with httpraw.Conn(host, port, timeout) as c:
        try:
            if slow:
                c.send(raw[:10])
                time.sleep(0.2)
                c.send(raw[10:])
            else:
                c.send(raw)
        except OSError:
            pass
        deadline = time.monotonic() + timeout
        data = b''
        closed = False
        while time.monotonic() < deadline:
            try:
                c.sock.settimeout(max(0.01, deadline - time.monotonic()))
                chunk = c.sock.recv(1 << 20)
            except socket.timeout:
                break
            except ConnectionResetError:
                closed = True
                break
            if not chunk:
                closed = True
                break
            data += chunk
            # A whole response and a pause: done.
            if _whole(data, method):
                closed, more = c.wait_closed(
                    1.5 if raw.count(b' HTTP/') > 1
                    else 0.3)
                data += more
                break
        return data, closed


def _whole(data, method):
    """Whether data holds at least one whole response (a rough check: the
    head, then Content-Length bytes or a last chunk)."""
    end = data.find(b'\r\n\r\n')
    if end < 0:
        return False
    if method == 'HEAD':
        return True
    head = data[:end].decode('latin-1').lower()
    body = data[end + 4:]
    for line in head.split('\r\n')[1:]:
        if line.startswith('content-length:'):
            try:
                return len(body) >= int(line.split(':', 1)[1])
            except ValueError:
                return False
    if 'transfer-encoding: chunked' in head:
        return body.endswith(b'0\r\n\r\n')
    status = head.split(' ')[1] if ' ' in head else ''
    return status in ('304', '204') or status.startswith('1')


def parse_all(data, method):
    """The responses in data, as Responses (the last may be cut)."""
    out = []
    for _ in range(4):
        if not data:
            break
        c = _BytesConn(data)
        try:
            r = c.read_response(method)
        except (httpraw.ProtocolError, httpraw.ConnectionClosed) as e:
            out.append(('unparsable', str(e).split('\n')[0][:80],
                        data[:120]))
            break
        out.append(r)
        data = bytes(c.buf)
        method = 'GET'
    return out


class _BytesConn(httpraw.Conn):
    """An httpraw.Conn reading from bytes already received."""

    def __init__(self, data):
        self.buf = bytearray(data)
        self.eof = True
        self.sock = None


def describe(resp):
    """A normalised description of one Response (a dict)."""
    if isinstance(resp, tuple):
        return {'unparsable': resp[1]}
    h = {}
    for n, v in resp.headers:
        n = n.lower()
        if n in IGNORED:
            continue
        h.setdefault(n, []).append(v)
    body = resp.body
    coding = ', '.join(h.get('content-encoding', []))
    if coding == 'gzip':
        # Two gzip encoders make different bytes of the same content.
        h.pop('content-length', None)
        try:
            body = b'gzip:' + gzip.decompress(body) if body else body
        except (OSError, EOFError):
            body = b'bad gzip:' + body
    d = {'status': resp.status, 'version': resp.version,
         'framing': resp.framing, 'body': '%d:%s' % (
             len(body), hashlib.sha1(body).hexdigest()[:10])}
    d.update({k: ', '.join(v) for k, v in h.items()})
    if d.get('last-modified') and d.get('last-modified') == \
            resp.header('Date'):
        d['last-modified'] = 'Date'
    if 'etag' in d:
        # The inode differs between two copies of a tree.
        d['etag'] = re.sub(r'^(W/)?"[0-9a-f]+-', r'\1"INO-', d['etag'])
    if resp.framing == 'chunked':
        d['framing'] = 'chunked'
        d.pop('transfer-encoding', None)
    return d


def fetch(host, port, raw, method, etags, slow=False):
    """What one server answers to raw: a list of response descriptions and
    whether the connection was closed at the end.  etags maps a path to
    its (identity, gzip) ETags on this server, for the markers."""
    if any(m.encode() in raw for m in ETAG_MARKERS):
        target = raw.split(b' ')[1].decode('latin-1')
        if target not in etags:
            r = parse_all(raw_exchange(host, port, _req('HEAD', target),
                                       'HEAD')[0], 'HEAD')
            g = parse_all(raw_exchange(host, port, _req(
                'HEAD', target, headers=[('Accept-Encoding', 'gzip')]),
                'HEAD')[0], 'HEAD')

            def tag(rs):
                if rs and not isinstance(rs[0], tuple):
                    return rs[0].header('ETag') or '"none"'
                return '"none"'
            etags[target] = (tag(r), tag(g))
        tag, gz = etags[target]
        raw = raw.replace(b'@ETAG-GZ@', gz.encode()).replace(
            b'@ETAG@', tag.encode())
    data, closed = raw_exchange(host, port, raw, method, slow)
    return [describe(r) for r in parse_all(data, method)], closed


# Differences the documentation gives one server: (predicate on the
# request's name, the keys allowed to differ, why).
def documented(name, key, a, b):
    """Why a difference in key is documented, or None."""
    del a, b
    lname = name.lower()
    codings = ' '.join(re.findall(r"'accept-encoding', '([^']*)'", lname))
    makes_other = any(c in codings for c in ('br', 'zstd', 'deflate', '*'))
    if makes_other and key in ('content-encoding', 'etag', 'body',
                               'content-length', 'framing'):
        return 'khttpd makes gzip only (doc/khttpd.md)'
    if 'large.txt' in lname and 'gzip' in codings and key in (
            'content-encoding', 'etag', 'body', 'content-length', 'framing',
            'transfer-encoding'):
        return 'khttpd sends files past the cache as they are'
    return None


def compare(reqs, a, b, with_documented=False):
    """[(class, name, key, value at a, value at b)] for each request of
    reqs whose answers differ; a and b are (host, port)."""
    diffs = []
    ea, eb = {}, {}

    def both(req):
        name, raw, method = req
        slow = name.startswith('slow ')
        return (fetch(a[0], a[1], raw, method, ea, slow),
                fetch(b[0], b[1], raw, method, eb, slow))
    # Bounded: at most 16 connections at once to each.
    with concurrent.futures.ThreadPoolExecutor(16) as pool:
        answers = list(pool.map(both, reqs))
    for req, answer in zip(reqs, answers):
        found = _differences(*answer)
        if found:
            # Asked again alone: what timing made (a close seen late, a
            # gzip form still being made) does not come back.
            found = _differences(*both(req))
        name = req[0]
        (ra, _), (rb, _) = answer
        for k, va, vb in found:
            why = documented(name, k, va, vb)
            if why and not with_documented:
                continue
            cls = '%s %s' % (k, why or '')
            diffs.append((cls.strip(), name, k, va, vb,
                          ra[0].get('status') if ra else None,
                          rb[0].get('status') if rb else None))
    return diffs


def _differences(answer_a, answer_b):
    """[(key, value at a, value at b)] between two fetch() results."""
    (ra, ca), (rb, cb) = answer_a, answer_b
    found = []
    if ca != cb:
        found.append(('closed', ca, cb))
    if len(ra) != len(rb):
        found.append(('responses', len(ra), len(rb)))
    for da, db in zip(ra, rb):
        for k in sorted(set(da) | set(db)):
            if da.get(k) != db.get(k):
                found.append((k, da.get(k), db.get(k)))
    return found


def report(diffs, out=sys.stdout):
    by = {}
    for d in diffs:
        by.setdefault(d[0], []).append(d)
    for cls in sorted(by, key=lambda c: -len(by[c])):
        print('== %s: %d' % (cls, len(by[cls])), file=out)
        for _, name, _, va, vb, sa, sb in by[cls][:40]:
            print('  %s\n      A(%s)=%r\n      B(%s)=%r'
                  % (name[:150], sa, va, sb, vb), file=out)


def main(argv):
    import tree as treemod
    if len(argv) < 4:
        sys.exit(__doc__)
    t = treemod.Tree(argv[1])
    hp = []
    for s in argv[2:4]:
        h, _, p = s.rpartition(':')
        hp.append((h, int(p)))
    reqs = requests(t)
    flt = [a for a in argv[4:] if not a.startswith('--')]
    if flt:
        reqs = [r for r in reqs if any(f in r[0] for f in flt)]
    print('%d requests' % len(reqs))
    found = 0
    # The second pass finds what the first left in the servers' caches.
    for n in (1, 2):
        diffs = compare(reqs, hp[0], hp[1], '--all' in argv)
        print('pass %d: %d differences' % (n, len(diffs)))
        report(diffs)
        found += len(diffs)
    return 1 if found else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
