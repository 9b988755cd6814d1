#!/usr/bin/python3
"""kecho against user-echo-server inside one qemu guest (bench/kecho/run.sh).

Through the control channel (tests/kernel/lifecycle.py's Guest) it serves
the echo port with each server in turn: kecho event-driven on an unbound
and on a bound workqueue, kecho classic (one work item per connection,
sleeping in recv) unbound and bound, and user-echo-server (one epoll thread
per CPU).  Against each, the guest's echo-bench opens N concurrent clients
for every N of --clients, each timing --rounds round trips of a --size
message.  The servers take turns, --repeat times over (A B C D E A B ...),
and each figure is the median of its repeats.  Prints the table of average
and p99 round trips, the ratios to user-echo-server, writes OUT.csv (every
run) and draws OUT.png (gnuplot): response time against concurrency, one
line per server.  Under TCG only the ratios mean anything.
"""

import argparse
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(HERE, '..', '..', 'tests', 'kernel'))

from lifecycle import Guest, bad_lines  # noqa: E402

PORT = 12345
SERVERS = [
    ('kecho event unbound', 'insmod /kecho.ko mode=event bench=0', 'kmod'),
    ('kecho event bound', 'insmod /kecho.ko mode=event bench=1', 'kmod'),
    ('kecho classic unbound', 'insmod /kecho.ko mode=classic bench=0',
     'kmod'),
    ('kecho classic bound', 'insmod /kecho.ko mode=classic bench=1', 'kmod'),
    ('user-echo-server', 'user-echo-server -p %d >/tmp/ues.log 2>&1 & '
     'echo $! >/tmp/ues.pid; sleep 0.5' % PORT, 'user'),
]


def start(g, cmd):
    out, rc = g.run(cmd)
    if rc:
        raise RuntimeError('%r failed: %s' % (cmd, out))


def stop(g, kind):
    if kind == 'kmod':
        g.run('rmmod kecho')
    else:
        g.run('kill $(cat /tmp/ues.pid); sleep 0.3')


def parse_csv(text):
    rows = []
    for line in text.splitlines():
        parts = line.split(',')
        if len(parts) == 6:
            rows.append({'server': parts[0], 'clients': int(parts[1]),
                         'size': int(parts[2]), 'samples': int(parts[3]),
                         'avg_us': float(parts[4]),
                         'p99_us': float(parts[5])})
    return rows


def medians(rows):
    """One row per (server, clients): the median of each figure."""
    groups = {}
    for r in rows:
        groups.setdefault((r['server'], r['clients']), []).append(r)
    out = []
    for name, _, _ in SERVERS:
        for (server, clients), rs in sorted(groups.items(),
                                            key=lambda kv: kv[0][1]):
            if server != name:
                continue
            med = dict(rs[0])
            for key in ('avg_us', 'p99_us'):
                vals = sorted(r[key] for r in rs)
                med[key] = vals[len(vals) // 2]
            med['runs'] = len(rs)
            out.append(med)
    return out


def chart(rows, path):
    if not shutil.which('gnuplot'):
        return 'gnuplot not installed'
    names = [s[0] for s in SERVERS]
    data = path + '.dat'
    with open(data, 'w') as f:
        for name in names:
            f.write('# %s\n' % name)
            for r in rows:
                if r['server'] == name:
                    f.write('%d %.1f %.1f\n' % (r['clients'], r['avg_us'],
                                                r['p99_us']))
            f.write('\n\n')
    plots = ', '.join("'%s' index %d using 1:2 with linespoints title '%s'"
                      % (data, i, n) for i, n in enumerate(names))
    script = ["set terminal pngcairo size 1000,600 noenhanced font 'sans,10'",
              "set output '%s'" % path,
              "set title 'echo round trip against concurrency (qemu TCG)'",
              "set xlabel 'concurrent clients'",
              "set ylabel 'average round trip (us)'",
              'set key top left', 'set grid', 'plot ' + plots]
    out = subprocess.run(['gnuplot'], input='\n'.join(script) + '\n',
                         capture_output=True, text=True, timeout=60)
    os.unlink(data)
    return None if out.returncode == 0 else out.stderr[-300:]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--ctl-port', type=int, required=True)
    ap.add_argument('--out', required=True, help='OUT.csv and OUT.png')
    ap.add_argument('--kernel', default='')
    ap.add_argument('--clients', default='1,100-1000:100')
    ap.add_argument('--size', default='64')
    ap.add_argument('--rounds', default='5')
    ap.add_argument('--repeat', type=int, default=3)
    args = ap.parse_args()
    g = Guest(args.ctl_port)
    if not g.wait_ready():
        sys.exit('bench-echo: the control channel does not answer')
    g.run('rmmod khttpd; dmesg -c >/dev/null; rm -f /tmp/echo.csv')
    for rep in range(args.repeat):
        for name, cmd, kind in SERVERS:
            print('bench-echo: run %d of %d, %s'
                  % (rep + 1, args.repeat, name), flush=True)
            start(g, cmd)
            out, rc = g.run(
                "echo-bench -c %s -s %s -r %s --csv /tmp/echo.csv "
                "--label '%s' 127.0.0.1:%d 2>&1"
                % (args.clients, args.size, args.rounds, name, PORT),
                timeout=1200)
            stop(g, kind)
            if rc:
                print(out + '\nbench-echo: %s: some clients failed '
                      '(exit %d)' % (name, rc), flush=True)
    csv, _ = g.run('cat /tmp/echo.csv')
    bad = bad_lines(g.run('dmesg')[0].splitlines())
    rows = medians(parse_csv(csv))
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out + '.csv', 'w') as f:
        f.write('server,clients,size,samples,avg_us,p99_us\n' + csv + '\n')
    base = {r['clients']: r for r in rows
            if r['server'] == 'user-echo-server'}
    print('\nkernel %s, message %s B, %s round trips per client, medians '
          'of %d runs; avg / p99 us, and avg relative to user-echo-server '
          '(lower is faster)' % (args.kernel, args.size, args.rounds,
                                 args.repeat))
    print('%-22s %8s %10s %10s %8s' % ('server', 'clients', 'avg_us',
                                       'p99_us', 'vs user'))
    for r in rows:
        b = base.get(r['clients'])
        ratio = '%.2fx' % (r['avg_us'] / b['avg_us']) if b and \
            b['avg_us'] else '-'
        print('%-22s %8d %10.1f %10.1f %8s' % (r['server'], r['clients'],
                                               r['avg_us'], r['p99_us'],
                                               ratio))
    err = chart(rows, args.out + '.png')
    print('\nchart: %s' % (args.out + '.png' if not err else 'not drawn ('
                           + err + ')'))
    print('csv: %s.csv' % args.out)
    if bad:
        print('kernel log: ' + '\n'.join(bad[:10]))
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
