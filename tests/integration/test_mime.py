"""Media types: --mime EXT=TYPE, --default-type, the mime.types file
(/etc/mime.types by default, --mime-types FILE) and the built-in table
beneath them.  What both servers send by default is checked by
test_static.test_mime_types over tree.MIME_FILES."""

import os
import unittest

from httpraw import build_request
from target import ServerTestCase, needs_process, session_tree, temp_dir
from test_cli import run_cli

SYSTEM_TYPES = '/etc/mime.types'
TEXT = 'text/plain; charset=utf-8'


def system_types():
    """Extension -> type from /etc/mime.types, the last line winning."""
    types = {}
    with open(SYSTEM_TYPES) as fh:
        for line in fh:
            words = line.split('#')[0].split()
            for ext in words[1:]:
                types[ext.lower()] = words[0]
    return types


class TypeCase(ServerTestCase):

    def assert_type(self, url, want):
        for method in ('GET', 'HEAD'):
            with self.conn() as c:
                c.send(build_request(method, url))
                resp = c.read_response(method)
            self.assertEqual(resp.status, 200, resp.describe())
            self.assertEqual(resp.header('Content-Type'), want,
                             '%s %s' % (method, url))


class MimeFlagsTest(TypeCase):
    server_args = ('--mime', 'py=application/x-test',
                   '--mime', '.XYZZY=text/x-xyzzy',
                   '--mime', 'rst=text/plain; charset=iso-8859-1',
                   '--mime', 'md=image/svg+xml',
                   '--default-type', 'text/plain')

    def test_mime_overrides(self):
        self.assert_type('/mime/script.py', 'application/x-test')
        # The extension case-insensitive, a text type gets a charset.
        self.assert_type('/mime/unknown.xyzzy',
                         'text/x-xyzzy; charset=utf-8')
        # A charset given is kept; XML types get none.
        self.assert_type('/mime/notes.rst',
                         'text/plain; charset=iso-8859-1')
        self.assert_type('/mime/readme.md', 'image/svg+xml')

    def test_others_unchanged(self):
        self.assert_type('/mime/image.png', 'image/png')
        self.assert_type('/mime/page.html', 'text/html; charset=utf-8')
        self.assert_type('/mime/README', TEXT)

    def test_default_type(self):
        self.assert_type('/mime/noextension', TEXT)


class DefaultTypeTest(TypeCase):
    server_args = ('--default-type', 'application/x-unknown')

    def test_default_type(self):
        self.assert_type('/mime/noextension', 'application/x-unknown')
        self.assert_type('/mime/unknown.xyzzy', 'application/x-unknown')
        self.assert_type('/big/1m.bin', 'application/octet-stream')


class BuiltinTableTest(TypeCase):
    """--mime-types '': the built-in table alone, as khttpd has it."""
    server_args = ('--mime-types', '')

    def test_builtin_text_types(self):
        for name in ('script.py', 'notes.rst', 'setup.ini', 'conf.toml',
                     'conf.yaml', 'main.c', 'README', 'copyright',
                     'LICENSE', 'Makefile', 'changelog', 'README.Debian'):
            with self.subTest(name=name):
                self.assert_type('/mime/' + name, TEXT)
        self.assert_type('/mime/readme.md', 'text/markdown; charset=utf-8')
        self.assert_type('/mime/data.json', 'application/json')
        self.assert_type('/mime/image.svg', 'image/svg+xml')

    def test_default_stays_octet_stream(self):
        self.assert_type('/mime/noextension', 'application/octet-stream')
        self.assert_type('/mime/unknown.xyzzy', 'application/octet-stream')


@needs_process('starts sehttpd with the system mime.types')
@unittest.skipUnless(os.path.exists(SYSTEM_TYPES),
                     SYSTEM_TYPES + ' missing (Debian: media-types)')
class SystemTypesTest(TypeCase):
    """By default /etc/mime.types fills in what the built-in table does
    not know; the table's types win (the same as khttpd's)."""

    def test_builtin_table_first(self):
        types = system_types()
        for name in ('script.py', 'notes.rst', 'main.c', 'page.html',
                     'image.png', 'segment.ts', 'lib.rs', 'module.mjs',
                     'font.woff2'):
            want, = self.tree.mime['/mime/' + name]
            with self.subTest(name=name, system=types.get(
                    name.rsplit('.', 1)[1])):
                self.assert_type('/mime/' + name, want)
        # Not in the file: the built-in table.
        self.assert_type('/mime/README', TEXT)


@needs_process('starts sehttpd with a mime.types file of its own')
class TypesFileTest(TypeCase):

    @classmethod
    def setUpClass(cls):
        d = temp_dir()
        cls.types_file = os.path.join(d, 'mime.types')
        with open(cls.types_file, 'w') as fh:
            fh.write('# a comment\n'
                     'application/x-from-file xyzzy\n'
                     'text/x-python py\n'
                     'image/x-later png\n')
        cls.server_args = ('--mime-types', cls.types_file,
                           '--mime', 'py=text/x-cli')
        super().setUpClass()

    def test_file_then_flags(self):
        self.assert_type('/mime/unknown.xyzzy', 'application/x-from-file')
        # The built-in table's extensions win over the file.
        self.assert_type('/mime/image.png', 'image/png')
        self.assert_type('/mime/script.py', 'text/x-cli; charset=utf-8')
        self.assert_type('/mime/notes.rst', TEXT)


@needs_process('runs sehttpd with bad MIME flags')
class BadMimeFlagsTest(unittest.TestCase):

    def expect_usage_error(self, args):
        www = session_tree().www
        rc, out, err = run_cli(['-b', '127.0.0.1', '-p', '0'] + args + [www])
        self.assertEqual(rc, 2, '%s: exit %s, stderr %r' % (args, rc, err))
        lines = err.splitlines()
        self.assertEqual(len(lines), 1, '%s: %r' % (args, err))
        self.assertTrue(lines[0].startswith('sehttpd: '), lines[0])
        self.assertNotIn('listening', out)

    def test_bad_values_exit_2(self):
        for args in (['--mime', 'py'], ['--mime', 'py='],
                     ['--mime', '=text/plain'], ['--mime', 'py=text'],
                     ['--mime', 'a/b=text/plain'],
                     ['--mime', 'py=text/plain\r\nX-Injected: 1'],
                     ['--mime', 'py=text/plain; charset'],
                     ['--mime', 'p y=text/plain'],
                     ['--default-type', 'plain'], ['--default-type', ''],
                     ['--default-type', 'text/plain\nX: y'],
                     ['--mime-types', '/nonexistent/mime.types'],
                     ['--mime'] * 1 + ['x=a/b'] + ['--mime', 'y'],
                     ['--mime=x=a/b'] * 65):
            with self.subTest(args=args[:4]):
                self.expect_usage_error(args)
