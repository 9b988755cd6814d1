"""What is under ROOT but is no regular file or directory (FIFOs, Unix
sockets), and permissions: what the server's user may read or search."""

import os
import socket
import stat
import unittest

from httpraw import build_request, Conn
from target import ServerProcess, needs_process, nobody_bin, temp_dir


def public_dir():
    """A temporary directory any user may search (mkdtemp's are 0700)."""
    d = temp_dir()
    os.chmod(d, 0o755)
    return d


@needs_process('serves a tree with special files made for the test')
class SpecialFilesTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.root = public_dir()
        os.mkfifo(os.path.join(cls.root, 'fifo'))
        cls.sock = socket.socket(socket.AF_UNIX)
        cls.sock.bind(os.path.join(cls.root, 'sock'))
        cls.addClassCleanup(cls.sock.close)
        with open(os.path.join(cls.root, 'a.txt'), 'w') as fh:
            fh.write('a\n')
        cls.srv = ServerProcess([], root=cls.root)
        cls.addClassCleanup(cls.srv.stop)

    def get(self, url):
        with Conn(self.srv.host, self.srv.port) as c:
            c.send(build_request('GET', url))
            resp = c.read_response()
            c.send(build_request('GET', '/a.txt'))
            self.assertEqual(c.read_response().status, 200,
                             'connection unusable after %s' % url)
            return resp

    def test_fifo_403(self):
        self.assertEqual(self.get('/fifo').status, 403)

    def test_unix_socket_403(self):
        """open() refuses a socket with ENXIO: not a server error."""
        self.assertTrue(stat.S_ISSOCK(os.stat(os.path.join(
            self.root, 'sock')).st_mode))
        self.assertEqual(self.get('/sock').status, 403)


def as_nobody():
    """Drops root for the server, so that permissions apply to it."""
    os.setgroups([])
    os.setgid(65534)
    os.setuid(65534)


@needs_process('serves a tree with permissions made for the test')
class SearchOnlyDirectoryTest(unittest.TestCase):
    """A directory the server may search but not read (711, common for
    ~/public_html): its index.html is served, as nginx does.  Root reads
    anything, so as root the server runs as nobody; otherwise the
    directory is made search-only for its owner too (mode 111)."""

    @classmethod
    def setUpClass(cls):
        cls.root = public_dir()
        is_root = os.getuid() == 0
        mode = 0o711 if is_root else 0o111
        for name, index in (('pub', True), ('noindex', False)):
            d = os.path.join(cls.root, name)
            os.mkdir(d)
            with open(os.path.join(d, 'other.txt'), 'w') as fh:
                fh.write('other\n')
            if index:
                with open(os.path.join(d, 'index.html'), 'w') as fh:
                    fh.write('<p>public</p>\n')
            os.chmod(d, mode)
            cls.addClassCleanup(os.chmod, d, 0o755)
        cls.srv = ServerProcess([], root=cls.root,
                                preexec_fn=as_nobody if is_root else None,
                                exe=nobody_bin() if is_root else None)
        cls.addClassCleanup(cls.srv.stop)

    def get(self, url):
        with Conn(self.srv.host, self.srv.port) as c:
            c.send(build_request('GET', url))
            return c.read_response()

    def test_permissions_apply_to_the_server(self):
        """The test is honest only if the server cannot list pub."""
        self.assertEqual(self.get('/noindex/').status, 403)

    def test_index_served(self):
        resp = self.get('/pub/')
        self.assertEqual(resp.status, 200, resp.describe())
        self.assertEqual(resp.body, b'<p>public</p>\n')
        # Typed by the index's name (was application/octet-stream: the
        # plan cut the name at the directory's '/').
        self.assertEqual(resp.header('Content-Type'),
                         self.get('/pub/index.html').header('Content-Type'))
        self.assertTrue(resp.header('Content-Type').startswith('text/html'))
        self.assertEqual(self.get('/pub/index.html').status, 200)
        self.assertEqual(self.get('/pub/other.txt').body, b'other\n')

    def test_slash_redirect(self):
        resp = self.get('/pub')
        self.assertEqual(resp.status, 301, resp.describe())
        self.assertTrue(resp.header('Location').endswith('/pub/'),
                        resp.header('Location'))
        self.assertEqual(self.get('/noindex').status, 403)
