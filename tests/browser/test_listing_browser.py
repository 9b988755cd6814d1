"""The directory listing in a real browser: Debian's chromium, headless,
renders a listing with a 250-character name and sizes from bytes to GiB.
Its DOM (--dump-dom) must hold the rows, the exact sizes in title
attributes and the sort controls; screenshots at 1200 and 400 px must be
made; and a probe page (script in the test page only, the listing has
none) measures that the listing does not overflow either width."""

import html.parser
import os
import shutil
import struct
import subprocess
import unittest
import urllib.parse

from target import ServerProcess, needs_process, temp_dir

LONG_NAME = 'L' + 'o' * 248 + 'g'  # 250 characters, nowhere to break
# name -> size; sparse files: only the size matters to a listing
FILES = {LONG_NAME: 100, 'a.txt': 3, 'small.bin': 1536,
         'mid.bin': 3565158, 'huge.iso': 5 << 30}
SIZES = {'a.txt': '3 B', 'small.bin': '1.5 KiB', 'mid.bin': '3.4 MiB',
         'huge.iso': '5.0 GiB', LONG_NAME: '100 B'}
WIDTHS = (1200, 400)
PROBE = '''<!DOCTYPE html><html><body>%s
<script>
window.addEventListener('load', function () {
  for (const w of %s) {
    const d = document.getElementById('w' + w)
      .contentDocument.documentElement;
    const p = document.createElement('p');
    p.id = 'r' + w;
    p.textContent = d.scrollWidth + ' ' + d.clientWidth;
    document.body.appendChild(p);
  }
});
</script></body></html>
'''


def chromium_bin():
    return shutil.which(os.environ.get('CHROMIUM', 'chromium'))


class RowParser(html.parser.HTMLParser):
    """The listing's rows (cells' text and title attributes) and the
    column headers' sort links or sort forms."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.rows = []
        self.headers = []
        self.probe = {}
        self.cell = None
        self.probe_id = None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == 'tr':
            self.rows.append([])
        elif tag in ('td', 'th') and self.rows:
            self.cell = {'tag': tag, 'text': '', 'title': attrs.get('title'),
                         'href': None, 'aria-sort': attrs.get('aria-sort')}
            self.rows[-1].append(self.cell)
        elif tag == 'a' and self.cell is not None:
            self.cell['href'] = attrs.get('href')
        elif tag in ('input', 'button') and self.cell is not None:
            # a sort control is a GET form: its query is the link
            pair = '%s=%s' % (attrs.get('name'), attrs.get('value'))
            self.cell['href'] = (self.cell['href'] or '?') + (
                '' if self.cell['href'] is None else '&') + pair
        elif tag == 'p' and attrs.get('id', '').startswith('r'):
            self.probe_id = attrs['id']

    def handle_endtag(self, tag):
        if tag in ('td', 'th'):
            self.cell = None
        elif tag == 'p':
            self.probe_id = None

    def handle_data(self, data):
        if self.cell is not None:
            self.cell['text'] += data
        elif self.probe_id:
            self.probe[self.probe_id] = data


@needs_process('serves a tree made for the browser')
class ListingInBrowserTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.chromium = chromium_bin()
        if not cls.chromium:
            raise unittest.SkipTest('chromium is not installed '
                                    '(Debian: apt-get install chromium)')
        cls.root = temp_dir()
        files = os.path.join(cls.root, 'files')
        os.makedirs(os.path.join(files, 'sub'))
        for name, size in FILES.items():
            with open(os.path.join(files, name), 'wb') as fh:
                fh.truncate(size)
        frames = ''.join('<iframe id="w%d" src="/files/" style="width:%dpx;'
                         'height:600px;border:0"></iframe>' % (w, w)
                         for w in WIDTHS)
        with open(os.path.join(cls.root, 'probe.html'), 'w') as fh:
            fh.write(PROBE % (frames, list(WIDTHS)))
        cls.profile = temp_dir('sehttpd-chromium-')
        cls.out = os.environ.get('BROWSER_OUT') or temp_dir()
        os.makedirs(cls.out, exist_ok=True)
        cls.srv = ServerProcess([], root=cls.root)
        cls.addClassCleanup(cls.srv.stop)

    def url(self, path):
        return 'http://%s:%d%s' % (self.srv.host, self.srv.port, path)

    def run_chromium(self, *args):
        cmd = [self.chromium, '--headless', '--no-sandbox', '--disable-gpu',
               '--no-first-run', '--hide-scrollbars',
               '--user-data-dir=' + self.profile] + list(args)
        p = subprocess.run(cmd, stdin=subprocess.DEVNULL,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=120)
        self.assertEqual(p.returncode, 0, 'chromium %s: %s'
                         % (' '.join(args), p.stderr[-2000:]))
        return p.stdout.decode('utf-8')

    def dom(self, path):
        p = RowParser()
        p.feed(self.run_chromium('--dump-dom', self.url(path)))
        p.close()
        return p

    def test_rendered_rows_titles_and_sort_links(self):
        p = self.dom('/files/?sort=size&order=desc')
        header, rows = p.rows[0], p.rows[1:]
        self.assertEqual([c['tag'] for c in header], ['th'] * 3)
        # name ascending is the default order, so its link is the bare
        # directory; the others are GET forms (no query in a link)
        self.assertEqual([c['href'] for c in header],
                         ['./', '?sort=size&order=asc',
                          '?sort=date&order=asc'])
        self.assertEqual(header[1]['aria-sort'], 'descending')
        names = [urllib.parse.unquote(r[0]['href']) for r in rows]
        by_size = sorted(FILES, key=lambda n: (-FILES[n], n))
        self.assertEqual(names, ['../', 'sub/'] + by_size)
        for row in rows[2:]:
            name = row[0]['text']
            self.assertEqual(row[1]['title'], '%d bytes' % FILES[name])
            self.assertEqual(row[1]['text'], SIZES[name])
            self.assertTrue(row[2]['text'].endswith(' UTC'), row[2])

    def test_sort_by_name_descending(self):
        p = self.dom('/files/?sort=name&order=desc')
        names = [r[0]['text'] for r in p.rows[2:]]
        self.assertEqual(names[0], 'sub/')
        self.assertEqual(names[1:], sorted(FILES, reverse=True))

    def test_no_horizontal_overflow(self):
        p = self.dom('/probe.html')
        for w in WIDTHS:
            with self.subTest(width=w):
                scroll, client = map(int, p.probe['r%d' % w].split())
                self.assertLessEqual(scroll, client,
                                     'the listing is %d px wide in a %d px '
                                     'frame' % (scroll, client))
                self.assertGreater(client, w // 2)

    def test_screenshots(self):
        for w in WIDTHS:
            with self.subTest(width=w):
                png = os.path.join(self.out, 'listing-%d.png' % w)
                if os.path.exists(png):
                    os.unlink(png)
                self.run_chromium('--screenshot=' + png,
                                  '--window-size=%d,800' % w,
                                  self.url('/files/'))
                with open(png, 'rb') as fh:
                    head = fh.read(24)
                self.assertEqual(head[:8], b'\x89PNG\r\n\x1a\n')
                width, height = struct.unpack('>II', head[16:24])
                self.assertEqual(width, w)
                self.assertGreater(os.path.getsize(png), 1000)
