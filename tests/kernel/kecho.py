"""kecho in the test guest, run by tests/kernel/run.sh after lifecycle.py.

Three cycles, one per way of serving (event-driven on an unbound
workqueue, event-driven bound, classic one-work-item-per-connection): load
kecho.ko, echo correct bytes to 200 concurrent clients (1 byte to 64 KiB
messages in split writes, by the guest's static echo-bench), then hold 200
idle connections and unload: within one second, every connection closed,
nothing left, nothing at warning level or above logged.  A bad mode= is
refused with a message.  Prints "ok NAME" / "FAIL NAME: why" and a last
line "kecho-totals PASSED FAILED".
"""

import re
import sys

from lifecycle import guest_script_main

PORT = 12345
CYCLES = [
    ('event, unbound', 'mode=event bench=0'),
    ('event, bound', 'mode=event bench=1'),
    ('classic, unbound', 'mode=classic bench=0'),
]


def warnings(window):
    """kecho's own lines at warning level or above (under TCG the kernel
    may warn of slow timer interrupts, which says nothing of kecho)."""
    return [text for level, text in window
            if level <= 4 and 'kecho' in text]


def cycle(g, c, name, params):
    out, rc = g.run('insmod /kecho.ko port=%d %s' % (PORT, params))
    if not c.check('%s: loads' % name, rc == 0, out):
        return
    out, rc = g.run('echo-bench -c 1,200 -s 1,1000,65536 --split 3 -r 2 '
                    '127.0.0.1:%d 2>&1' % PORT, timeout=300)
    c.check('%s: 200 concurrent clients get their exact bytes back'
            % name, rc == 0, out[-600:])
    out, rc = g.run(
        'echo-bench --hold 200 --seconds 20 127.0.0.1:%d '
        '>/tmp/hold.out 2>&1 & echo $! >/tmp/hold.pid; i=0; '
        'while ! grep -q holding /tmp/hold.out && [ $i -lt 100 ]; do '
        'sleep 0.1; i=$((i + 1)); done; cat /tmp/hold.out' % PORT)
    c.check('%s: 200 idle connections held' % name,
            'holding 200 connections' in out, out)
    out, _ = g.run(
        "s=$(cut -d' ' -f1 /proc/uptime); rmmod kecho; rc=$?; "
        "e=$(cut -d' ' -f1 /proc/uptime); echo rmmod=$rc start=$s end=$e")
    m = re.search(r'rmmod=(\d+) start=([\d.]+) end=([\d.]+)', out)
    if not c.check('%s: rmmod succeeds' % name,
                   m is not None and m.group(1) == '0', out):
        return
    took = float(m.group(3)) - float(m.group(2))
    c.check('%s: rmmod with clients connected takes under 1 s (%.2f s)'
            % (name, took), took < 1.0)
    out, _ = g.run('wait $(cat /tmp/hold.pid) 2>/dev/null; '
                   'i=0; while kill -0 $(cat /tmp/hold.pid) 2>/dev/null '
                   '&& [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done; '
                   'cat /tmp/hold.out')
    c.check('%s: every held connection was closed' % name,
            'closed by the server: 200 of 200' in out, out)
    out, _ = g.run('grep -c "^kecho " /proc/modules; '
                   'ps | grep -c "[k]echo"')
    counts = out.split()
    c.check('%s: no module or thread left' % name,
            counts[:1] == ['0'] and counts[-1:] == ['0'], out)
    window = g.dmesg()
    w = warnings(window)
    c.check('%s: nothing at warning level or above logged' % name,
            not w, '\n'.join(w[:10]))
    c.check('%s: the module says it unloaded' % name,
            any('kecho: unloaded' in t for _, t in window), repr(window))


def checks(g, c):
    for name, params in CYCLES:
        cycle(g, c, name, params)
    out, _ = g.run('insmod /kecho.ko mode=bogus 2>&1; '
                   'echo insmod=$?; dmesg | tail -n 3')
    c.check('mode=bogus is refused with a message',
            'insmod=0' not in out and
            'mode=bogus: expected event or classic' in out, out)
    out, _ = g.run('grep -c "^kecho " /proc/modules')
    c.check('mode=bogus leaves no module loaded', out.strip() == '0', out)


if __name__ == '__main__':
    sys.exit(guest_script_main('kecho', checks))
