"""What is under ROOT but is no regular file or directory (FIFOs, Unix
sockets), and permissions: what the server's user may read or search."""

import os
import socket
import stat
import subprocess
import unittest

from httpraw import build_request, Conn
from target import ServerProcess, needs_process, sehttpd_bin, temp_dir


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
