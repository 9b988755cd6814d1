"""Deploys that swap what ROOT or a --vhost DIR names while sehttpd runs:
a link turned to a new release (ln -sfn; mv -T), a new tree renamed over
the old one.  The path is looked up again at most once a second, so the
new tree is served within a second or so, as nginx serves it at once;
before, the tree there at start was served until a restart (a swapped
link kept the old release, a renamed-over directory answered 404)."""

import os
import shutil
import time
import unittest

from httpraw import build_request
from target import needs_process, start_server, temp_dir

SETTLE_S = 3  # WORKER_ROOT_CHECK_MS, with room for a busy machine


def write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, 'w') as fh:
        fh.write(data)


def release(base, name, version):
    d = os.path.join(base, name)
    write(os.path.join(d, 'index.html'), '<p>%s</p>\n' % version)
    write(os.path.join(d, 'a.txt'), '%s\n' % version)
    write(os.path.join(d, version + '.txt'), 'only in %s\n' % version)
    return d


@needs_process('swaps the directories sehttpd serves from')
class RootSwapTest(unittest.TestCase):

    def setUp(self):
        self.base = temp_dir('sehttpd-swap-')
        os.chmod(self.base, 0o755)  # started as root, it serves as nobody

    def start(self, args, root):
        target = start_server(['-t', '2'] + list(args), root=root)
        self.addCleanup(target.stop)
        return target

    def get(self, target, path, host='test'):
        with target.conn() as c:
            c.send(build_request('GET', path, host=host))
            return c.read_response()

    def wait_for(self, target, path, body, host='test'):
        """Asks until path answers body (on either thread: one request
        each, on new connections); returns the seconds that took."""
        start = time.monotonic()
        while True:
            resp = self.get(target, path, host)
            if resp.status == 200 and resp.body == body:
                return time.monotonic() - start
            if time.monotonic() - start > SETTLE_S:
                self.fail('%s still answers %s after %.0f s'
                          % (path, resp.describe(), SETTLE_S))
            time.sleep(0.05)

    def held_beneath(self, target, d):
        """The server's descriptors that are in directory d."""
        fds = '/proc/%d/fd' % target.server.proc.pid
        held = []
        for fd in os.listdir(fds):
            try:
                where = os.readlink(os.path.join(fds, fd))
            except OSError:
                continue
            if where == d or where.startswith(d + '/') or \
                    where.startswith(d + ' (deleted)'):
                held.append(where)
        return held

    def test_link_turned_to_a_new_release(self):
        one = release(self.base, 'releases/1', 'v1')
        release(self.base, 'releases/2', 'v2')
        current = os.path.join(self.base, 'current')
        os.symlink('releases/1', current)
        target = self.start([], current)
        for path in ('/', '/a.txt', '/a.txt'):  # the second from the cache
            self.assertEqual(self.get(target, path).status, 200)
        self.assertEqual(self.get(target, '/a.txt').body, b'v1\n')
        # As deploy tools do it: a new link renamed over the old.
        os.symlink('releases/2', current + '.tmp')
        os.rename(current + '.tmp', current)
        took = self.wait_for(target, '/a.txt', b'v2\n')
        for _ in range(4):  # every thread
            self.assertEqual(self.get(target, '/a.txt').body, b'v2\n')
            self.assertEqual(self.get(target, '/').body, b'<p>v2</p>\n')
            self.assertEqual(self.get(target, '/v2.txt').status, 200)
            self.assertEqual(self.get(target, '/v1.txt').status, 404)
        print('\nthe new release served after %.2f s' % took)
        target.server.wait_line(lambda s: 'now serves' in s and
                                s.endswith('/releases/2'), 5)
        # Nothing of the old release is held open, by any thread (each
        # looks at its own within a second): its space comes back once it
        # is removed.
        shutil.rmtree(one)
        deadline = time.monotonic() + SETTLE_S
        while self.held_beneath(target, one) and \
                time.monotonic() < deadline:
            time.sleep(0.1)
        self.assertEqual(self.held_beneath(target, one), [])

    def test_vhost_dir_renamed_over(self):
        root = release(self.base, 'root', 'r')
        site = release(self.base, 'site', 's1')
        target = self.start(['--vhost', 'a.test=' + site], root)
        self.assertEqual(self.get(target, '/a.txt', 'a.test').body, b's1\n')
        release(self.base, 'site.new', 's2')
        os.rename(site, site + '.old')
        os.rename(os.path.join(self.base, 'site.new'), site)
        shutil.rmtree(site + '.old')
        self.wait_for(target, '/a.txt', b's2\n', 'a.test')
        self.assertEqual(self.get(target, '/a.txt').body, b'r\n')
        self.assertEqual(self.get(target, '/s2.txt', 'a.test').status, 200)

    def test_a_path_that_leads_nowhere_keeps_the_last_tree(self):
        """Between the two renames of a swap, or a root moved away, the
        tree served last is served on."""
        site = release(self.base, 'site', 'v1')
        target = self.start([], site)
        self.assertEqual(self.get(target, '/a.txt').body, b'v1\n')
        os.rename(site, site + '.away')
        time.sleep(1.5)
        for _ in range(4):
            self.assertEqual(self.get(target, '/a.txt').body, b'v1\n')
        release(self.base, 'site', 'v2')
        self.wait_for(target, '/a.txt', b'v2\n')


if __name__ == '__main__':
    unittest.main()
