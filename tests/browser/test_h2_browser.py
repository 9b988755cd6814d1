"""HTTP/2 in a real browser: Debian's chromium, headless, loads a page of
40 assets (20 SVG images, 10 style sheets, 10 scripts) from sehttpd over
HTTPS, with a localhost certificate signed by a test CA made with the
openssl command.  Chromium trusts that certificate by its public key
(--ignore-certificate-errors-spki-list, which takes effect with a
--user-data-dir; no other certificate error is ignored).  After the load
event the page writes what the Performance API says into its DOM
(--dump-dom): the navigation and every one of the 40 resource entries must
have come over "h2" (nextHopProtocol), each with status 200, and every
script must have run."""

import base64
import hashlib
import json
import os
import re
import shutil
import subprocess
import unittest

from target import ServerProcess, needs_process, temp_dir
from test_listing_browser import chromium_bin
from test_tls import make_ca, make_cert

IMAGES, SHEETS, SCRIPTS = 20, 10, 10
PAGE = '''<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>40 assets</title>
%(sheets)s
</head><body>
%(images)s
%(scripts)s
<pre id="result"></pre>
<script>
window.addEventListener('load', function () {
  const nav = performance.getEntriesByType('navigation')[0];
  const res = performance.getEntriesByType('resource').map(function (e) {
    return {path: new URL(e.name).pathname, proto: e.nextHopProtocol,
            status: e.responseStatus};
  });
  document.getElementById('result').textContent = JSON.stringify(
    {nav: nav.nextHopProtocol, navStatus: nav.responseStatus,
     ran: window.ran || 0, res: res});
});
</script></body></html>
'''
RESULT_RE = re.compile(r'<pre id="result">(.*?)</pre>', re.S)


def assets():
    """{url path: body} of the 40 assets."""
    out = {}
    for i in range(IMAGES):
        out['/assets/img%02d.svg' % i] = (
            '<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16">'
            '<rect width="16" height="16" fill="#%02x8040"/></svg>\n'
            % (i * 12))
    for i in range(SHEETS):
        out['/assets/style%02d.css' % i] = '#box%d { width: %dpx; }\n' % (
            i, i + 1)
    for i in range(SCRIPTS):
        out['/assets/script%02d.js' % i] = \
            'window.ran = (window.ran || 0) + 1; // %d\n' % i
    return out


def page(paths):
    def tags(ext, fmt):
        return '\n'.join(fmt % p for p in paths if p.endswith(ext))
    return PAGE % {
        'sheets': tags('.css', '<link rel="stylesheet" href="%s">'),
        'images': tags('.svg', '<img src="%s" width="16" height="16" '
                               'alt="">'),
        'scripts': tags('.js', '<script src="%s"></script>')}


def spki_sha256(cert_pem):
    """base64 of the SHA-256 of the certificate's SubjectPublicKeyInfo, as
    --ignore-certificate-errors-spki-list wants it."""
    pub = subprocess.run(['openssl', 'x509', '-in', cert_pem, '-noout',
                          '-pubkey'], check=True, capture_output=True).stdout
    der = subprocess.run(['openssl', 'pkey', '-pubin', '-outform', 'der'],
                         input=pub, check=True, capture_output=True).stdout
    return base64.b64encode(hashlib.sha256(der).digest()).decode()


@needs_process('starts sehttpd with TLS over a tree made for the browser')
class H2InBrowserTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.chromium = chromium_bin()
        if not cls.chromium:
            raise unittest.SkipTest('chromium is not installed '
                                    '(Debian: apt-get install chromium)')
        if not shutil.which('openssl'):
            raise unittest.SkipTest('the openssl command is not installed')
        cls.pki = temp_dir('sehttpd-h2-pki-')
        make_ca(cls.pki)
        make_cert(cls.pki, 'localhost', ['DNS:localhost', 'IP:127.0.0.1'])
        cls.spki = spki_sha256(os.path.join(cls.pki, 'localhost.leaf'))
        cls.root = temp_dir()
        cls.assets = assets()
        os.makedirs(os.path.join(cls.root, 'assets'))
        for path, body in cls.assets.items():
            with open(cls.root + path, 'w') as fh:
                fh.write(body)
        with open(os.path.join(cls.root, 'index.html'), 'w') as fh:
            fh.write(page(sorted(cls.assets)))
        cls.profile = temp_dir('sehttpd-chromium-')
        cls.srv = ServerProcess([
            '--tls-cert', os.path.join(cls.pki, 'localhost.pem'),
            '--tls-key', os.path.join(cls.pki, 'localhost.key')],
            root=cls.root)
        cls.addClassCleanup(cls.srv.stop)

    def load(self):
        """What the page reported, as a dict; fails the test when there is
        no report (a certificate error shows an interstitial instead)."""
        url = 'https://localhost:%d/' % self.srv.port
        cmd = [self.chromium, '--headless', '--no-sandbox', '--disable-gpu',
               '--no-first-run', '--user-data-dir=' + self.profile,
               '--ignore-certificate-errors-spki-list=' + self.spki,
               '--dump-dom', url]
        p = subprocess.run(cmd, stdin=subprocess.DEVNULL,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=120)
        self.assertEqual(p.returncode, 0, 'chromium: %s' % p.stderr[-2000:])
        dom = p.stdout.decode('utf-8', 'replace')
        m = RESULT_RE.search(dom)
        self.assertTrue(m and m.group(1), 'no report from the page at %s; '
                        'DOM %r; server stderr %r'
                        % (url, dom[:500], self.srv.stderr_text()[-1000:]))
        return json.loads(m.group(1))

    def test_page_and_40_assets_over_h2(self):
        got = self.load()
        paths = [e['path'] for e in got['res']]
        self.assertEqual(sorted(paths), sorted(self.assets),
                         'resource entries')
        not_h2 = ['%s: %r' % (e['path'], e['proto'])
                  for e in got['res'] if e['proto'] != 'h2']
        self.assertEqual((got['nav'], not_h2), ('h2', []),
                         'the page came over %r, and %d of the %d assets '
                         'not over h2' % (got['nav'], len(not_h2),
                                          len(paths)))
        bad = ['%s: %r' % (e['path'], e['status'])
               for e in got['res'] if e['status'] != 200]
        self.assertEqual((got['navStatus'], bad), (200, []),
                         'statuses other than 200')
        self.assertEqual(got['ran'], SCRIPTS, 'scripts that ran')
