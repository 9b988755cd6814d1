"""kTLS in the test guest, run by tests/kernel/run.sh after kecho.py.

The host has no tls module; the guest's Debian kernel has one.  With it
loaded (and the AES-GCM modules it asks the crypto API for), the static
sehttpd serves a 10 MiB file over TLS 1.2 and 1.3 to a static OpenSSL
client in the guest: the body must arrive intact, the kernel's TLS
counters (/proc/net/tls_stat, TlsTxSw) must rise by one connection each
time, and sehttpd's metrics must count the kTLS connections.  Prints
"ok NAME" / "FAIL NAME: why" and a last line "ktls-totals PASSED FAILED".
"""

import re
import sys

from lifecycle import guest_script_main

PORT = 8443
METRICS = 8444


def tls_stat(g):
    out, rc = g.run('cat /proc/net/tls_stat')
    return {k: int(v) for k, v in re.findall(r'^(\w+)\s+(\d+)$', out, re.M)}


def start(g, c):
    # In load order (tests/kernel/guest.sh), each unless loaded already.
    out, rc = g.run('for m in $(cat /ktls/order); do '
                    'insmod /ktls/$m.ko || grep -q "^$(echo $m | tr - _) " '
                    '/proc/modules || exit 1; done 2>&1')
    if not c.check('tls.ko and AES-GCM modules load', rc == 0, out):
        return False
    out, rc = g.run(
        'mkdir -p /tmp/ktls/www && dd if=/dev/urandom '
        'of=/tmp/ktls/www/big.bin bs=1M count=10 2>/dev/null && '
        '/bin/sehttpd -p %d -t 1 --user root --metrics 127.0.0.1:%d '
        '--tls-cert /ktls/cert.pem --tls-key /ktls/key.pem /tmp/ktls/www '
        '>/tmp/ktls/log 2>&1 & echo $! >/tmp/ktls/pid; i=0; '
        'while ! grep -q listening /tmp/ktls/log && [ $i -lt 100 ]; do '
        'sleep 0.1; i=$((i + 1)); done; cat /tmp/ktls/log' % (PORT, METRICS))
    return c.check('the static sehttpd serves HTTPS in the guest',
                   'listening on https://' in out, out)


def fetch(g, c, version, slow=False):
    """slow: the last records fill the server's socket, and close_notify
    must come all the same (kTLS's sendfile leaves no room; before,
    the one try was lost and the end was a cut)."""
    before = tls_stat(g)
    out, rc = g.run('tlsget 127.0.0.1 %d /big.bin %s %s >/tmp/ktls/got '
                    '2>/tmp/ktls/err; echo rc=$?; cat /tmp/ktls/err; '
                    'cmp /tmp/ktls/got /tmp/ktls/www/big.bin && echo SAME'
                    % (PORT, version, 'slow' if slow else ''),
                    timeout=120)
    version += ', read slowly' if slow else ''
    c.check('TLS %s: a 10 MiB body arrives intact, then close_notify'
            % version, 'rc=0' in out and 'SAME' in out, out)
    after = tls_stat(g)
    rose = after.get('TlsTxSw', 0) - before.get('TlsTxSw', 0)
    c.check('TLS %s: the kernel encrypts it (TlsTxSw %d -> %d)'
            % (version, before.get('TlsTxSw', 0), after.get('TlsTxSw', 0)),
            rose == 1, repr(after))


def checks(g, c):
    if not start(g, c):
        return
    for version in ('1.2', '1.3'):
        fetch(g, c, version)
    fetch(g, c, '1.3', slow=True)
    out, _ = g.run('wget -q -O - http://127.0.0.1:%d/metrics | '
                   'grep "^sehttpd_tls_"' % METRICS)
    m = re.search(r'^sehttpd_tls_ktls_total (\d+)$', out, re.M)
    c.check('--metrics counts the three kTLS connections',
            m is not None and m.group(1) == '3', out)
    out, _ = g.run('kill $(cat /tmp/ktls/pid); i=0; while kill -0 '
                   '$(cat /tmp/ktls/pid) 2>/dev/null && [ $i -lt 100 '
                   ']; do sleep 0.1; i=$((i + 1)); done; '
                   'kill -0 $(cat /tmp/ktls/pid) 2>/dev/null || '
                   'echo stopped')
    c.check('sehttpd stops on SIGTERM', 'stopped' in out, out)


if __name__ == '__main__':
    sys.exit(guest_script_main('ktls', checks))
