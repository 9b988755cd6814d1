"""Checks once, before any timing, that a server serves the tree right:
every file byte for byte with a 200, and the listing as a 200 HTML page
naming every entry."""

import http.client

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
