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
    '/1m.bin': 1024 * 1024,
    '/10m.bin': 10 * 1024 * 1024,
}
# English-like text, for the compression scenario.
TEXT_FILES = {
    '/35k.txt': 35 * 1024,
}
# Common English words, most frequent first; _text weights them by 1/rank
# (Zipf), which compresses about as well as real prose at gzip level 6.
WORDS = """
the of and to a in is it you that he was for on are with as his they be
at one have this from or had by hot word but what some we can out other
were all there when up use your how said an each she which do their time
if will way about many then them write would like so these her long make
thing see him two has look more day could go come did number sound no most
people my over know water than call first who may down side been now find
any new work part take get place made live where after back little only
round man year came show every good me give our under name very through
just form sentence great think say help low line differ turn cause much
mean before move right boy old too same tell does set three want air well
also play small end put home read hand port large spell add even land here
must big high such follow act why ask men change went light kind off need
house picture try us again animal point mother world near build self earth
father head stand own page should country found answer school grow study
still learn plant cover food sun four between state keep eye never last
let thought city tree cross farm hard start might story saw far sea draw
left late run while press close night real life few north open seem
together next white children begin got walk example ease paper group
always music those both mark often letter until mile river car feet care
second book carry took science eat room friend began idea fish mountain
stop once base hear horse cut sure watch color face wood main enough plain
girl usual young ready above ever red list though feel talk bird soon body
dog family direct pose leave song measure door product black short numeral
class wind question happen complete ship area half rock order fire south
problem piece told knew pass since top whole king space heard best hour
better true during hundred five remember step early hold west ground
interest reach fast verb sing listen six table travel less morning ten
simple several vowel toward war lay against pattern slow center love person
money serve appear road map rain rule govern pull cold notice voice unit
power town fine certain fly fall lead cry dark machine note wait plan
figure star box noun field rest correct able pound done beauty drive stood
contain front teach week final gave green quick develop ocean warm free
minute strong special mind behind clear tail produce fact street inch
""".split()
# A large JSON document (an API dump), beyond sehttpd's cache.
JSON_FILES = {
    '/2400k.json': 2400 * 1000,
}
LISTING_PATH = '/dir/'
LISTING_ENTRIES = ['f%03d.txt' % i for i in range(100)]


def _body(path, size):
    if size == len(SMALL_BODY):
        return SMALL_BODY
    # Incompressible and deterministic.
    return random.Random(path).randbytes(size)


def _text(path, size):
    """size bytes of sentences in lines of at most 72 columns."""
    rng = random.Random(path)
    weights = [1.0 / (rank + 1) for rank in range(len(WORDS))]
    lines, line, total = [], '', 0
    while total < size:
        words = rng.choices(WORDS, weights, k=rng.randint(5, 18))
        words[0] = words[0].capitalize()
        for i, w in enumerate(words):
            w += '.' if i == len(words) - 1 else (
                ',' if rng.random() < 0.08 else '')
            if line and len(line) + 1 + len(w) > 72:
                lines.append(line + '\n')
                total += len(lines[-1])
                line = w
            else:
                line = line + ' ' + w if line else w
        if rng.random() < 0.15:  # a paragraph ends
            lines.append(line + '\n\n')
            total += len(lines[-1])
            line = ''
    return ''.join(lines).encode()[:size - 1] + b'\n'


def _json(path, size):
    """A JSON array of records, size bytes long (padded with spaces
    before its closing bracket)."""
    rng = random.Random(path)
    weights = [1.0 / (rank + 1) for rank in range(len(WORDS))]
    parts, total, n = [], 2, 0
    while True:
        words = rng.choices(WORDS, weights, k=rng.randint(4, 12))
        rec = ('{"id": %d, "user": "%s%d", "score": %.3f, "tags": [%s], '
               '"text": "%s"}' % (
                   n, words[0], rng.randint(1, 99999), rng.random() * 100,
                   ', '.join('"%s"' % w for w in words[1:3]),
                   ' '.join(words).capitalize() + '.'))
        if total + len(rec) + 3 > size:
            break
        parts.append(rec)
        total += len(rec) + 3
        n += 1
    body = '[\n' + ',\n'.join(parts)
    return (body + ' ' * (size - len(body) - 2) + '\n]').encode()


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
    for path, size in TEXT_FILES.items():
        body = _text(path, size)
        with open(os.path.join(root, path.lstrip('/')), 'wb') as f:
            f.write(body)
        expected[path] = body
    for path, size in JSON_FILES.items():
        body = _json(path, size)
        with open(os.path.join(root, path.lstrip('/')), 'wb') as f:
            f.write(body)
        expected[path] = body
    for name in LISTING_ENTRIES:
        with open(os.path.join(root, LISTING_PATH.strip('/'), name),
                  'wb') as f:
            f.write(name.encode() + b'\n')
    return expected
