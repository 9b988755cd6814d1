"""The document tree every server in the benchmark serves.

make_tree(root) writes it and returns {url path: expected body bytes}
for the files (the listing is checked separately, see LISTING_PATH).
"""

import os
import random
import shutil

SMALL_BODY = b'hello world\n'  # 12 bytes, like the floor server's reply
FILES = {
    '/12.txt': len(SMALL_BODY),
    '/4k.bin': 4 * 1024,
    '/100k.bin': 100 * 1024,
    '/10m.bin': 10 * 1024 * 1024,
}
LISTING_PATH = '/dir/'
LISTING_ENTRIES = ['f%03d.txt' % i for i in range(100)]


def _body(path, size):
    if size == len(SMALL_BODY):
        return SMALL_BODY
    # Incompressible and deterministic.
    return random.Random(path).randbytes(size)


def make_tree(root):
    if os.path.isdir(root):
        shutil.rmtree(root)
    os.makedirs(os.path.join(root, LISTING_PATH.strip('/')))
    expected = {}
    for path, size in FILES.items():
        body = _body(path, size)
        with open(os.path.join(root, path.lstrip('/')), 'wb') as f:
            f.write(body)
        expected[path] = body
    for name in LISTING_ENTRIES:
        with open(os.path.join(root, LISTING_PATH.strip('/'), name),
                  'wb') as f:
            f.write(name.encode() + b'\n')
    return expected
