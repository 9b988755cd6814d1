"""The deterministic test tree served by the server under test.

make_tree(base) creates base/www (the ROOT that is served) and base/outside
(files that must never be served) and returns a Tree describing both.  Every
byte and every modification time is fixed, so a tree built on another machine
(the khttpd guest's initramfs) serves exactly what a fresh one describes.

Run as `python3 tree.py DIR` to create the tree in DIR.
"""

import array
import gzip
import io
import os
import posixpath
import shutil
import struct
import subprocess
import sys
import urllib.parse
import zipfile
import zlib

# 2023-11-14 22:13:20 UTC: every entry's mtime unless stated otherwise.
FIXED_MTIME = 1700000000
# 2021-03-04 05:06:07 UTC: the file whose time the listing test looks for.
LISTING_MTIME = 1614834367
# 2100-01-01 00:00:00 UTC: a file dated after every response's Date.
FUTURE_MTIME = 4102444800
SECRET_MARKER = 'SECRET-MARKER-7f3a9c21-must-never-be-served'
ROOT_INDEX_MARKER = 'ROOT-INDEX-MARKER-4be1'

ESCAPE_NAMES = ['<b>&"x\'.txt', 'space name.txt', 'percent%41.txt',
        '\u00fcn\u00efc\u00f6d\u00e9.txt', '#hash?.txt']
# Names under www/json/ that JSON must escape: a quote and a backslash, a
# tab, and bytes that are not UTF-8 (0xff 0xfe, held here as the surrogates
# os.fsdecode gives them: names are encoded with 'surrogateescape').
JSON_QUOTE_NAME = 'quote"back\\slash.txt'
JSON_TAB_NAME = 'tab\tname.txt'
JSON_BAD_UTF8_NAME = 'bad\udcff\udcfe.txt'


def pattern(size, salt):
    """size bytes whose every aligned 32-bit word holds its own offset
    (xor salt), so a misplaced range shows where it came from."""
    words = array.array('I', range(0, size, 4))
    assert words.itemsize == 4
    if salt:
        words = array.array('I', (w ^ salt for w in words))
    if sys.byteorder == 'big':
        words.byteswap()
    return words.tobytes()[:size]


def _png_1x1():
    def chunk(kind, data):
        crc = zlib.crc32(kind + data) & 0xffffffff
        return struct.pack('>I', len(data)) + kind + data + \
            struct.pack('>I', crc)
    ihdr = struct.pack('>IIBBBBB', 1, 1, 8, 2, 0, 0, 0)
    idat = zlib.compress(b'\x00\xff\x00\x00', 9)
    return b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', ihdr) + \
        chunk(b'IDAT', idat) + chunk(b'IEND', b'')


def _gif_1x1():
    return (b'GIF89a\x01\x00\x01\x00\x80\x00\x00\xff\x00\x00\x00\x00\x00'
            b'!\xf9\x04\x01\x00\x00\x00\x00'
            b',\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02D\x01\x00;')


def _zip_bytes():
    out = io.BytesIO()
    with zipfile.ZipFile(out, 'w', zipfile.ZIP_DEFLATED) as z:
        info = zipfile.ZipInfo('hello.txt',
                               date_time=(2023, 11, 14, 22, 13, 20))
        z.writestr(info, 'hello from a zip\n')
    return out.getvalue()


# (name, bytes, accepted Content-Type values)
MIME_FILES = [
    ('page.html', b'<!DOCTYPE html><title>t</title><p>mime html</p>\n',
     ('text/html; charset=utf-8',)),
    # A charset parameter on CSS and JavaScript is harmless: accepted.
    ('style.css', b'body { color: #123456; }\n',
     ('text/css', 'text/css; charset=utf-8')),
    ('app.js', b'console.log("mime js");\n',
     ('text/javascript', 'application/javascript',
      'text/javascript; charset=utf-8',
      'application/javascript; charset=utf-8')),
    ('data.json', b'{"mime": "json", "n": 1}\n', ('application/json',)),
    ('notes.txt', b'plain text notes\n', ('text/plain; charset=utf-8',)),
    ('image.svg', b'<svg xmlns="http://www.w3.org/2000/svg" width="1" '
     b'height="1"/>\n', ('image/svg+xml',)),
    ('image.png', _png_1x1(), ('image/png',)),
    ('image.jpg', b'\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01\x01\x00\x00\x01'
     b'\x00\x01\x00\x00\xff\xd9', ('image/jpeg',)),
    ('image.gif', _gif_1x1(), ('image/gif',)),
    ('image.webp', b'RIFF\x1a\x00\x00\x00WEBPVP8L\x0d\x00\x00\x00/\x00'
     b'\x00\x00\x10\x07\x10\x11\x11\x88\x88\xfe\x07\x00',
     ('image/webp',)),
    ('favicon.ico', b'\x00\x00\x01\x00\x01\x00\x01\x01\x00\x00\x01\x00'
     b'\x18\x00\x30\x00\x00\x00\x16\x00\x00\x00' + b'\x00' * 48,
     ('image/x-icon', 'image/vnd.microsoft.icon')),
    ('font.woff2', b'wOF2\x00\x01\x00\x00' + b'\x00' * 40, ('font/woff2',)),
    ('video.mp4', b'\x00\x00\x00\x18ftypmp42\x00\x00\x00\x00mp42isom',
     ('video/mp4',)),
    ('audio.mp3', b'ID3\x04\x00\x00\x00\x00\x00\x00\xff\xfb\x90\x00',
     ('audio/mpeg',)),
    ('doc.pdf', b'%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj <<>> endobj\n'
     b'trailer <<>>\n%%EOF\n', ('application/pdf',)),
    ('archive.zip', _zip_bytes(), ('application/zip',)),
    ('archive.gz', gzip.compress(b'hello from gzip\n', mtime=0),
     ('application/gzip',)),
    ('module.wasm', b'\x00asm\x01\x00\x00\x00', ('application/wasm',)),
    ('data.xml', b'<?xml version="1.0"?><mime>xml</mime>\n',
     ('application/xml', 'text/xml')),
    ('unknown.xyzzy', b'unknown extension\n',
     ('application/octet-stream',)),
    ('noextension', b'no extension at all\n',
     ('application/octet-stream',)),
    # Source and text files browsers should show, not download: the
    # built-in table's text/plain, whatever /etc/mime.types says.
    ('script.py', b'print("mime py")\n', ('text/plain; charset=utf-8',)),
    ('notes.rst', b'Title\n=====\n', ('text/plain; charset=utf-8',)),
    ('setup.ini', b'[mime]\nini = 1\n', ('text/plain; charset=utf-8',)),
    ('readme.md', b'# mime md\n', ('text/markdown; charset=utf-8',)),
    ('conf.toml', b'mime = "toml"\n', ('text/plain; charset=utf-8',)),
    ('conf.yaml', b'mime: yaml\n', ('text/plain; charset=utf-8',)),
    ('run.sh', b'#!/bin/sh\necho mime\n',
     ('text/x-shellscript; charset=utf-8',)),
    ('main.c', b'int main(void) { return 0; }\n',
     ('text/plain; charset=utf-8',)),
    # Web types the built-in table has win over Debian's mime.types
    # (.ts a Qt translation there, .rs an XML type): the same from both.
    ('segment.ts', b'\x47\x40\x00\x10' + b'\xff' * 184,
     ('video/mp2t',)),
    ('lib.rs', b'fn main() {}\n', ('text/plain; charset=utf-8',)),
    ('module.mjs', b'export const mime = 1;\n',
     ('text/javascript; charset=utf-8',)),
    ('table.csv', b'a,b\n1,2\n', ('text/csv; charset=utf-8',)),
    ('README', b'extensionless readme\n', ('text/plain; charset=utf-8',)),
    ('copyright', b'Format: debian copyright\n',
     ('text/plain; charset=utf-8',)),
    ('LICENSE', b'MIT License\n', ('text/plain; charset=utf-8',)),
    ('Makefile', b'all:\n\ttrue\n', ('text/plain; charset=utf-8',)),
    ('changelog', b'pkg (1.0) unstable; urgency=low\n',
     ('text/plain; charset=utf-8',)),
    ('README.Debian', b'debian readme\n', ('text/plain; charset=utf-8',)),
]


# The content tests' files (compression, validators, ranges) under
# www/content/: text of English-like words, which gzip shrinks about 3:1,
# and files of already-compressed types whose bytes would shrink too, so a
# server that wrongly compresses them is caught.
CONTENT_WORDS = (
    'the of and to in is was for on that with as by at from his her it an '
    'were are which this be or has had not but they their one also its new '
    'first after who two been other more when there into time all some '
    'would than over only most many can about city world state year people '
    'such during where through between both under these house river north '
    'south water early village while known later water small large music '
    'history school family church played against government several may '
    'season began second until including part each well used since however '
    'three before area being around series long same became team then '
    'public local main national found often great named work life film '
    'common number light garden letter winter summer bridge market harbour '
    'station library journey morning evening mountain valley forest island '
    'quiet bright narrow distant ancient golden silver careful sudden'
).split()
PRE_GZ_MTIME = 1234567890  # in the precompressed sibling's gzip header
STALE_GZ_TEXT = b'STALE old.txt.gz: an older sibling that must be ignored\n'


def english_like(size, seed):
    """size bytes of lines of English-like words (deterministic)."""
    key = (size, seed)
    if key not in _english_cache:
        import random
        rng = random.Random(seed)
        words = rng.choices(CONTENT_WORDS, k=size // 4 + 64)
        lines = [' '.join(words[i:i + 11]).capitalize() + '.'
                 for i in range(0, len(words), 11)]
        text = '\n'.join(lines).encode()
        assert len(text) >= size
        _english_cache[key] = text[:size - 1] + b'\n' if size else b''
    return _english_cache[key]


_english_cache = {}


def _content_png():
    """A 64x64 RGB gradient whose IDAT is stored uncompressed."""
    def chunk(kind, data):
        crc = zlib.crc32(kind + data) & 0xffffffff
        return struct.pack('>I', len(data)) + kind + data + \
            struct.pack('>I', crc)
    rows = b''.join(b'\x00' + b''.join(bytes((x * 4, y * 4, 128))
                                        for x in range(64))
                    for y in range(64))
    ihdr = struct.pack('>IIBBBBB', 64, 64, 8, 2, 0, 0, 0)
    return b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', ihdr) + \
        chunk(b'IDAT', zlib.compress(rows, 0)) + chunk(b'IEND', b'')


def _content_zip():
    out = io.BytesIO()
    with zipfile.ZipFile(out, 'w', zipfile.ZIP_STORED) as z:
        info = zipfile.ZipInfo('stored.txt',
                               date_time=(2023, 11, 14, 22, 13, 20))
        z.writestr(info, english_like(8000, 11))
    return out.getvalue()


def _content_jpg():
    """SOI, a comment segment of text, EOI: a JPEG gzip would shrink."""
    com = english_like(8000, 12)
    return b'\xff\xd8\xff\xfe' + struct.pack('>H', len(com) + 2) + com + \
        b'\xff\xd9'


def _gzip_bytes(data, level, mtime, name=None):
    out = io.BytesIO()
    with gzip.GzipFile(filename=name or '', mode='wb', fileobj=out,
                       compresslevel=level, mtime=mtime) as z:
        z.write(data)
    return out.getvalue()


def _cli_bytes(argv, data):
    """data through a compressor's command-line tool (Debian's brotli and
    zstd), or None when the tool is missing."""
    if not shutil.which(argv[0]):
        return None
    return subprocess.run(argv, input=data, stdout=subprocess.PIPE,
                          check=True).stdout


def _brotli_bytes(data):
    # Quality 1 and a small window: not what the server makes itself.
    return _cli_bytes(['brotli', '-c', '-q', '1', '-w', '16'], data)


def _zstd_bytes(data):
    # Level 1 with a checksum: not what the server makes itself.
    return _cli_bytes(['zstd', '-c', '-q', '-1', '--check'], data)


# www/precomp/: precompressed siblings in each coding (see
# _precompressed_spec); missing when the brotli or zstd tool is.
PRECOMP_CODINGS = {'br': '.br', 'zstd': '.zst', 'gzip': '.gz'}


def _precompressed_spec(f, d):
    """all.txt has a sibling in every coding, br.txt and zst.txt one each,
    stale.txt older ones holding other text and empty.txt empty ones, both
    of which must be ignored."""
    make = {'br': _brotli_bytes, 'zstd': _zstd_bytes,
            'gzip': lambda data: _gzip_bytes(data, 1, PRE_GZ_MTIME)}
    d('www/precomp')
    plan = [('all.txt', 8, ('br', 'zstd', 'gzip')), ('br.txt', 9, ('br',)),
            ('zst.txt', 10, ('zstd',))]
    for name, seed, codings in plan:
        text = english_like(12000, seed)
        f('www/precomp/' + name, text)
        for coding in codings:
            data = make[coding](text)
            if data is not None:
                f('www/precomp/' + name + PRECOMP_CODINGS[coding], data,
                  FIXED_MTIME + 3600)
    # empty.txt's siblings are empty files (a build step that failed):
    # no coded form of anything, so never sent.
    f('www/precomp/empty.txt', english_like(12000, 12))
    for coding in ('br', 'zstd', 'gzip'):
        f('www/precomp/empty.txt' + PRECOMP_CODINGS[coding], b'',
          FIXED_MTIME + 3600)
    f('www/precomp/stale.txt', english_like(12000, 11))
    for coding in ('br', 'zstd', 'gzip'):
        data = make[coding](STALE_GZ_TEXT * 100)
        if data is not None:
            f('www/precomp/stale.txt' + PRECOMP_CODINGS[coding], data,
              FIXED_MTIME - 86400)


def _leb128(n):
    out = bytearray()
    while True:
        b, n = n & 0x7f, n >> 7
        out.append(b | (0x80 if n else 0))
        if not n:
            return bytes(out)


def _content_wasm():
    """An empty module with one custom section of text."""
    name = b'notes'
    payload = _leb128(len(name)) + name + english_like(6000, 13)
    return b'\x00asm\x01\x00\x00\x00\x00' + _leb128(len(payload)) + payload


CONTENT_BIG_SIZE = 35 * 1024
CONTENT_LARGE_SIZE = 2 << 20  # over the 1 MiB per-file cache limit
CONTENT_SMALL_SIZE = 100


def _content_spec(f, d):
    d('www/content')
    f('www/content/big.txt', english_like(CONTENT_BIG_SIZE, 1))
    f('www/content/large.txt', english_like(CONTENT_LARGE_SIZE, 2))
    f('www/content/small.txt', english_like(CONTENT_SMALL_SIZE, 3))
    f('www/content/future.txt', english_like(CONTENT_SMALL_SIZE, 7),
      FUTURE_MTIME)
    f('www/content/page.html', b'<!DOCTYPE html>\n<html><head><title>'
      b'content page</title></head>\n<body>\n<p>' +
      english_like(6000, 4).replace(b'\n', b'</p>\n<p>') +
      b'</p>\n</body></html>\n')
    f('www/content/style.css', b''.join(
        b'.c%d { margin: %dpx; color: #%06x; }\n' % (i, i % 17, i * 4099)
        for i in range(200)))
    f('www/content/app.js', b''.join(
        b'function f%d(x) { return x * %d + "%s"; }\n'
        % (i, i, english_like(40, 100 + i).strip()) for i in range(100)))
    f('www/content/data.json', b'[\n' + b',\n'.join(
        b'  {"id": %d, "name": "item %d", "text": "%s"}'
        % (i, i, english_like(50, 300 + i).strip()) for i in range(100)) +
      b'\n]\n')
    f('www/content/data.xml', b'<?xml version="1.0"?>\n<items>\n' +
      b''.join(b'  <item id="%d">%s</item>\n'
               % (i, english_like(50, 500 + i).strip())
               for i in range(100)) + b'</items>\n')
    f('www/content/image.svg', b'<svg xmlns="http://www.w3.org/2000/svg" '
      b'width="100" height="100">\n' + b''.join(
          b'  <rect x="%d" y="%d" width="1" height="1" fill="#%06x"/>\n'
          % (i % 100, i // 100, i * 257) for i in range(150)) + b'</svg>\n')
    f('www/content/module.wasm', _content_wasm())
    f('www/content/image.png', _content_png())
    f('www/content/photo.jpg', _content_jpg())
    f('www/content/stored.zip', _content_zip())
    f('www/content/stored.gz', _gzip_bytes(english_like(8000, 14), 0, 0))
    f('www/content/font.woff2', b'wOF2\x00\x01\x00\x00' + bytes(8000))
    f('www/content/video.mp4', b'\x00\x00\x00\x18ftypmp42\x00\x00\x00\x00'
      b'mp42isom' + struct.pack('>I', 8008) + b'free' + bytes(8000))
    # A precompressed sibling, newer than its file, with a header (name,
    # time, level 1) that the server's own gzip would not produce.
    pre = english_like(12000, 5)
    f('www/content/pre.txt', pre)
    f('www/content/pre.txt.gz', _gzip_bytes(pre, 1, PRE_GZ_MTIME,
                                            'pre.txt'), FIXED_MTIME + 3600)
    # A stale sibling: older than its file, holding other text.
    f('www/content/old.txt', english_like(12000, 6))
    f('www/content/old.txt.gz', _gzip_bytes(STALE_GZ_TEXT * 100, 9, 0),
      FIXED_MTIME - 86400)


def _spec():
    """Every entry of the tree: (relative path under base, kind, data).
    kind is 'file' (data = bytes), 'dir', or 'link' (data = target)."""
    e = []

    def f(path, data, mtime=FIXED_MTIME):
        if isinstance(data, str):
            data = data.encode('utf-8')
        e.append((path, 'file', data, mtime))

    def d(path):
        e.append((path, 'dir', None, FIXED_MTIME))

    def ln(path, target):
        e.append((path, 'link', target, FIXED_MTIME))

    d('www')
    d('outside')
    f('outside/secret.txt', SECRET_MARKER + '\n')
    f('outside/other.txt', SECRET_MARKER + ' (other)\n')
    f('www/index.html', '<!DOCTYPE html>\n<html><head><title>sehttpd '
      'test root</title></head>\n<body><p>' + ROOT_INDEX_MARKER +
      '</p></body></html>\n')
    f('www/a.txt', 'hello world\n')
    f('www/b.txt', 'second small file\n')
    f('www/hello.txt', 'Hello, integration tests!\n')
    f('www/empty.txt', b'')
    f('www/A.txt', 'file A (reached as %41.txt)\n')
    f('www/%41.txt', 'file literally named %41.txt\n')
    f('www/..foo', 'a file whose name starts with two dots\n')
    d('www/mime')
    for name, data, _ in MIME_FILES:
        f('www/mime/' + name, data)
    d('www/big')
    f('www/big/1m.bin', pattern(1 << 20, 0x5a5a5a5a))
    f('www/big/10m.bin', pattern(10 << 20, 0))
    d('www/dir_index')
    f('www/dir_index/index.html', '<!DOCTYPE html><p>dir_index index '
      'page</p>\n')
    f('www/dir_index/other.txt', 'other file beside an index\n')
    d('www/dir_noindex')
    d('www/dir_noindex/Zdir')
    d('www/dir_noindex/adir')
    f('www/dir_noindex/adir/inner.txt', 'inner file\n')
    f('www/dir_noindex/B.txt', 'capital B\n')
    f('www/dir_noindex/_u.txt', 'underscore\n')
    f('www/dir_noindex/a.txt', 'lower a in dir_noindex\n')
    f('www/dir_noindex/size777.txt', b'7' * 776 + b'\n', LISTING_MTIME)
    f('www/dir_noindex/~t.txt', 'tilde\n')
    d('www/many')
    for i in range(100):
        f('www/many/file_%03d.txt' % i, 'many file %03d\n' % i)
    d('www/escape')
    for name in ESCAPE_NAMES:
        f('www/escape/' + name, 'escape test: ' + name + '\n')
    d('www/escape/dir with space')
    f('www/escape/dir with space/in.txt', 'inside dir with space\n')
    d('www/empty')
    d('www/a')
    d('www/a/b')
    f('www/a/c', 'this is /a/c\n')
    f('www/a/b/x.txt', 'this is /a/b/x.txt\n')
    ln('www/link_inside.txt', 'a.txt')
    ln('www/link_secret.txt', '../outside/secret.txt')
    ln('www/link_outside', '../outside')
    ln('www/link_etc', '/etc')
    # Absolute links leave ROOT too, though ROOT has what they name.
    d('www/abslinks')
    ln('www/abslinks/to_file.txt', '/a.txt')
    ln('www/abslinks/to_dir', '/dir_noindex')
    # A listing shows what a symlink inside ROOT leads to.
    d('www/links')
    ln('www/links/to_file.txt', '../dir_noindex/size777.txt')
    ln('www/links/to_dir', '../dir_noindex/adir')
    # Index names: index.html first, then index.htm.
    d('www/dir_htm')
    f('www/dir_htm/index.htm', '<p>dir_htm index.htm page</p>\n')
    d('www/dir_both')
    f('www/dir_both/index.html', '<p>dir_both index.html page</p>\n')
    f('www/dir_both/index.htm', '<p>dir_both index.htm page</p>\n')
    # An index there but not to be served (a link out of ROOT) stands for
    # its directory, and index.htm after it is not tried.
    d('www/dir_outindex')
    ln('www/dir_outindex/index.html', '../../outside/secret.txt')
    f('www/dir_outindex/index.htm', '<p>dir_outindex index.htm</p>\n')
    f('www/dir_outindex/backup.sql', 'DUMP-MARKER\n')
    # Dotfiles: 404 and not listed by default, but /.well-known/ is public.
    f('www/.env', 'DOTFILE-ENV-MARKER\n')
    d('www/.git')
    f('www/.git/config', '[core]\n')
    d('www/.well-known')
    f('www/.well-known/security.txt', 'Contact: mailto:t@example.org\n')
    f('www/.well-known/.hidden', 'hidden beneath .well-known\n')
    # Links inside ROOT to hidden names hide as those names do.
    d('www/dotlinks')
    f('www/dotlinks/visible.txt', 'visible beside links to dotfiles\n')
    ln('www/dotlinks/innocent', '../.git/config')
    ln('www/dotlinks/gitlink', '../.git')
    ln('www/dotlinks/envlink', '../.env')
    f('www/dotlinks/app.css', 'body { color: #123456; }\n' * 40)
    ln('www/dotlinks/app.css.gz', '../.env')
    # Last modified on a Wednesday: If-Range's date must not be taken for
    # a weak tag ("W/...") by its first letter.
    f('www/dotlinks/wednesday.bin', bytes(range(256)) * 4,
      mtime=FIXED_MTIME + 86400)
    # JSON listings: every type, sizes to sort by, names to escape, and
    # what is hidden as in the page.
    d('www/json')
    d('www/json/sub')
    f('www/json/sub/in.txt', 'inside json/sub\n')
    f('www/json/small.txt', b's' * 10, LISTING_MTIME)
    f('www/json/mid.txt', b'm' * 500)
    f('www/json/large.txt', b'l' * 3000, FIXED_MTIME + 60)
    f('www/json/' + JSON_QUOTE_NAME, 'a quote and a backslash\n')
    f('www/json/' + JSON_TAB_NAME, 'a tab\n')
    f('www/json/' + JSON_BAD_UTF8_NAME, 'bytes that are not UTF-8\n')
    f('www/json/.hidden.txt', 'DOTFILE-HIDDEN-MARKER in json\n')
    ln('www/json/link.txt', 'large.txt')
    ln('www/json/linkdir', 'sub')
    ln('www/json/dotlink', '../.env')
    ln('www/json/outlink', '../../outside')
    d('www/dots')
    f('www/dots/visible.txt', 'visible beside dotfiles\n')
    f('www/dots/.hidden.txt', 'DOTFILE-HIDDEN-MARKER\n')
    d('www/dots/.dir')
    f('www/dots/.dir/x.txt', 'inside a hidden directory\n')
    # Only ROOT's .well-known is public.
    d('www/dots/.well-known')
    f('www/dots/.well-known/x.txt', 'not the site\'s .well-known\n')
    _content_spec(f, d)
    _precompressed_spec(f, d)
    return e


def name_bytes(name):
    """A name of the tree as the file system holds it."""
    return name.encode('utf-8', 'surrogateescape')


def _fs(base, rel):
    return os.path.join(os.fsencode(base), name_bytes(rel))


class Tree:
    """What the tree holds, as the tests see it.  URL paths are decoded
    ('/escape/space name.txt'); url() percent-encodes one."""

    def __init__(self, base):
        self.base = os.path.abspath(base)
        self.www = os.path.join(self.base, 'www')
        self.outside = os.path.join(self.base, 'outside')
        self.secret_marker = SECRET_MARKER.encode()
        self.root_index_marker = ROOT_INDEX_MARKER.encode()
        self.files = {}  # '/a.txt' -> bytes
        self.dirs = set()  # '/many/' ...
        self.links = {}  # '/link_etc' -> target
        self.mtimes = {}  # '/a.txt' -> epoch seconds
        for rel, kind, data, mtime in _spec():
            if not rel.startswith('www'):
                continue
            url = rel[3:] or '/'
            if kind == 'file':
                self.files[url] = data
                self.mtimes[url] = mtime
            elif kind == 'dir':
                self.dirs.add(url.rstrip('/') + '/')
            else:
                self.links[url] = data
        self.mime = {'/mime/' + n: types for n, _, types in MIME_FILES}

    def path(self, url):
        """The file system path of a decoded URL path, as bytes."""
        return _fs(self.www, url.lstrip('/'))

    def link_is_dir(self, url):
        """Whether the link url leads to a directory of the tree."""
        target = posixpath.normpath(posixpath.join(posixpath.dirname(url),
                                                   self.links[url]))
        return target.rstrip('/') + '/' in self.dirs

    def entries(self, dir_url):
        """(name, is_dir) of each listed entry of a directory, links
        included (as what they lead to within the tree, else as files), in
        no particular order; dotfiles are not listed."""
        dir_url = dir_url.rstrip('/') + '/'
        out = []
        for url in list(self.files) + list(self.links):
            if url.startswith(dir_url) and \
                    '/' not in url[len(dir_url):]:
                is_dir = url in self.links and self.link_is_dir(url)
                out.append((url[len(dir_url):], is_dir))
        for url in self.dirs:
            rest = url[len(dir_url):].rstrip('/')
            if url.startswith(dir_url) and rest and '/' not in rest:
                out.append((rest, True))
        # Names starting with '.' are not listed (without --dotfiles).
        return [e for e in out if not e[0].startswith('.')]

    @staticmethod
    def url(path):
        """Percent-encodes a decoded URL path (slashes kept)."""
        return urllib.parse.quote(path, safe='/')


def make_tree(base):
    """Creates base/www and base/outside and returns their Tree."""
    os.makedirs(base, exist_ok=True)
    dirs = []
    for rel, kind, data, mtime in _spec():
        p = _fs(base, rel)
        if kind == 'dir':
            os.makedirs(p, exist_ok=True)
            dirs.append((p, mtime))
        elif kind == 'file':
            with open(p, 'wb') as fh:
                fh.write(data)
            os.utime(p, (mtime, mtime))
        else:
            if os.path.lexists(p):
                os.unlink(p)
            os.symlink(data.encode('utf-8'), p)
            os.utime(p, (mtime, mtime), follow_symlinks=False)
    # Directories last, deepest first: creating entries touched them.
    for p, mtime in sorted(dirs, key=lambda x: -len(x[0])):
        os.utime(p, (mtime, mtime))
    return Tree(base)


def check_tree(base):
    """Raises unless base holds the tree make_tree builds (a host-side
    copy given with HTTPD_TREE must match what the tests expect)."""
    tree = Tree(base)
    for url, data in tree.files.items():
        with open(tree.path(url), 'rb') as fh:
            if fh.read() != data:
                raise RuntimeError('%s: %s differs from tree.py'
                                   % (base, url))
    return tree


if __name__ == '__main__':
    if len(sys.argv) != 2:
        sys.exit('usage: tree.py DIR')
    t = make_tree(sys.argv[1])
    print('tree: %d files, %d directories, %d links in %s'
          % (len(t.files), len(t.dirs), len(t.links), t.www))
