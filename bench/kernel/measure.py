#!/usr/bin/python3
"""khttpd against sehttpd inside one qemu guest (run by bench/kernel/run.sh).

The guest is booted, khttpd loaded over /srv/www; this script talks to it
through the kernel suite's control channel (tests/kernel/lifecycle.py's
Guest: shell text POSTed to busybox httpd).  It pins (with 2 vCPUs) the
servers to CPU 1 and the load to CPU 0, starts the static sehttpd over the
same tree, checks both serve every file byte for byte (through the port
forwards, bench/verify.py), then runs htstress --json inside the guest
against each in interleaved rounds (khttpd first in odd rounds, sehttpd in
even ones), per scenario: the 12-byte file, the 4 KiB file and the listing
of 100 entries, keep-alive and a new connection per request.  A server with
any bad or failed response in a scenario gets no figure for it.

Reports requests/s (median, min, max of the rounds) and khttpd/sehttpd, and
the busy time of CPU 1 per request (from /proc/stat: the server's work plus
the loopback receive work the kernel does on the sender's CPU, the same for
both), and writes a JSON document.
"""

import argparse
import json
import os
import re
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(HERE, '..'))
sys.path.insert(0, os.path.join(HERE, '..', '..', 'tests', 'kernel'))

import report  # noqa: E402
import tree  # noqa: E402
import verify  # noqa: E402
from lifecycle import Guest, bad_lines  # noqa: E402

SERVER_CPU = 1
CLIENT_CPU = 0
SERVERS = ('khttpd', 'sehttpd')
SEHTTPD_TIMEOUT_S = 15  # khttpd's timeout_ms is set alike by run.sh
BAD_KEYS = ('bad_4xx', 'bad_5xx', 'bad_other', 'errors')
# /proc/stat cpuN: user nice system idle iowait irq softirq steal ...
IDLE_FIELDS = (3, 4)
METRICS = [('rps', 'req/s', 0), ('cpu1_us', 'CPU1 us/req', 1),
           ('cpu0_busy', 'CPU0 busy', 2), ('cpu1_busy', 'CPU1 busy', 2),
           ('switches_per_req', 'context switches/req', 2)]
NOTE = ('qemu TCG: the guest CPU is emulated in software, so absolute '
        'rates are far below native and only the ratios between the two '
        'servers, measured alike in the same guest, are meaningful.')


class Scenario:
    def __init__(self, key, title, path, keepalive):
        self.key, self.title = key, title
        self.path, self.keepalive = path, keepalive


SCENARIOS = [
    Scenario('keepalive_12b', 'keep-alive, 12 B file', '/12.txt', True),
    Scenario('newconn_12b', 'new connection, 12 B file', '/12.txt', False),
    Scenario('keepalive_4k', 'keep-alive, 4 KiB file', '/4k.bin', True),
    Scenario('newconn_4k', 'new connection, 4 KiB file', '/4k.bin', False),
    Scenario('keepalive_listing', 'keep-alive, listing of 100',
             tree.LISTING_PATH, True),
    Scenario('newconn_listing', 'new connection, listing of 100',
             tree.LISTING_PATH, False),
]


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--ctl-port', type=int, required=True)
    ap.add_argument('--khttpd', required=True,
                    help='HOSTPORT:GUESTPORT of the loaded module')
    ap.add_argument('--sehttpd', required=True,
                    help='HOSTPORT:GUESTPORT to start sehttpd on')
    ap.add_argument('--tree', required=True,
                    help='the generated tree the guest serves')
    ap.add_argument('--serial', help='the guest serial log, scanned at '
                    'the end')
    ap.add_argument('--kernel', default='?')
    ap.add_argument('--seconds', type=float, default=3)
    ap.add_argument('--rounds', type=int, default=5)
    ap.add_argument('--warmup', type=float, default=1,
                    help='seconds of checked, untimed load per server and '
                    'scenario (0: none)')
    ap.add_argument('--conns', type=int, default=50)
    ap.add_argument('--scenarios', default=','.join(s.key for s in SCENARIOS))
    ap.add_argument('--out', default=os.path.join(HERE, '..', 'results',
                                                  'kernel-latest.json'))
    opts = ap.parse_args()
    keys = opts.scenarios.split(',')
    opts.scenarios = [s for s in SCENARIOS if s.key in keys]
    if not opts.scenarios or opts.rounds < 1 or opts.seconds <= 0:
        ap.error('bad --scenarios, --rounds or --seconds')
    for name in SERVERS:
        host, guest = getattr(opts, name).split(':')
        setattr(opts, name, (int(host), int(guest)))
    return opts


def cpu_ticks(text):
    """{cpu index: (busy, total)} from /proc/stat lines."""
    out = {}
    for m in re.finditer(r'^cpu(\d+) ([\d ]+)$', text, re.M):
        vals = [int(v) for v in m.group(2).split()]
        idle = sum(vals[i] for i in IDLE_FIELDS)
        out[int(m.group(1))] = (sum(vals) - idle, sum(vals))
    return out


class KernelBench:
    def __init__(self, opts):
        self.opts = opts
        self.g = Guest(opts.ctl_port)
        self.pinned = False
        self.ports = {name: getattr(opts, name) for name in SERVERS}
        self.placement = {}

    def sh(self, script, timeout=60):
        out, rc = self.g.run(script, timeout=timeout)
        if rc != 0:
            raise RuntimeError('guest: %r failed (%d): %s'
                               % (script[:80], rc, out[-500:]))
        return out

    # --- setting up -------------------------------------------------------
    def setup(self):
        if not self.g.wait_ready(60):
            raise RuntimeError('the control channel does not answer')
        self.vcpus = int(self.sh('nproc').strip())
        self.pinned = self.vcpus >= 2
        port = self.ports['sehttpd'][1]
        # --user root: the guest has no NSS libraries for a static
        # getpwnam(), so dropping to nobody would fail at start.
        start = ('setsid %s/bin/sehttpd -p %d -t 1 --timeout %d --user root '
                 '/srv/www '
                 '</dev/null >/tmp/sehttpd.log 2>&1 &'
                 % ('taskset -c %d ' % SERVER_CPU if self.pinned else '',
                    port, SEHTTPD_TIMEOUT_S))
        pin = ''
        if self.pinned:
            server_mask = '%x' % (1 << SERVER_CPU)
            client_mask = '%x' % (1 << CLIENT_CPU)
            # The control channel (and all it starts) on the client's CPU;
            # khttpd's work items run in the per-CPU kworkers of the CPU
            # that accepted the connection, and its accept work on the
            # unbound workqueue: the unbound cpumask puts both on the
            # server's CPU (a listener kthread, in older modules, too).
            pin = ('for p in $(pidof httpd) $$; do taskset -p %s $p '
                   '>/dev/null; done; '
                   'echo %s > /sys/devices/virtual/workqueue/cpumask || '
                   'exit 1; '
                   'for d in /proc/[0-9]*; do '
                   '[ "$(cat $d/comm)" = khttpd ] && '
                   'taskset -p %s ${d#/proc/} >/dev/null; done; '
                   % (client_mask, server_mask, server_mask))
        self.sh('%s%s i=0; '
                'while ! grep -q ":%04X 00000000:0000 0A" /proc/net/tcp '
                '/proc/net/tcp6 && [ $i -lt 100 ]; do '
                'sleep 0.1; i=$((i + 1)); done; pidof sehttpd'
                % (pin, start, port))
        expected = {}
        for path in list(tree.FILES) + list(tree.TEXT_FILES):
            with open(os.path.join(self.opts.tree, path.lstrip('/')),
                      'rb') as f:
                expected[path] = f.read()
        for name in SERVERS:
            err = verify.check_tree(self.ports[name][0], expected)
            if err:
                raise RuntimeError('%s serves the tree wrong: %s'
                                   % (name, err))

    def record_placement(self):
        """Which CPUs every server thread may run on, after some load:
        khttpd's listener and the kworkers that ran its work items
        (named kworker/N:M-khttpd), sehttpd's threads."""
        out = self.sh(
            'for t in /proc/[0-9]*/task/[0-9]*; do c=$(cat $t/comm); '
            'case $c in *khttpd|sehttpd) echo "$c|$(sed -n '
            '"s/^Cpus_allowed_list:[[:space:]]*//p" $t/status)";; '
            'esac; done; true')
        threads = [ln.split('|') for ln in out.split('\n') if '|' in ln]
        for name in SERVERS:
            mine = [(c, cpus) for c, cpus in threads
                    if (c.endswith('khttpd') if name == 'khttpd'
                        else c == 'sehttpd')]
            self.placement[name] = {
                'threads': len(mine),
                'kworkers': sum(c.startswith('kworker') for c, _ in mine),
                'allowed_cpus': sorted({cpus for _, cpus in mine})}

    # --- one run ----------------------------------------------------------
    def load(self, name, sc, seconds):
        """A sample dict, or an error string."""
        taskset = 'taskset -c %d ' % CLIENT_CPU if self.pinned else ''
        alive = ('pidof sehttpd' if name == 'sehttpd'
                 else "grep '^khttpd ' /proc/modules")
        stat = 'grep -E "^(cpu[0-9]|ctxt)" /proc/stat'
        script = (
            '%s; echo =====; '
            '%shtstress --json -d %g -c %d -t 1 %s '
            'http://127.0.0.1:%d%s </dev/null 2>/tmp/htstress.err; '
            'echo htstress-exit=$?; echo =====; %s; '
            '%s >/dev/null && echo server-alive; head -c 300 /tmp/htstress.err'
            % (stat, taskset, seconds, self.opts.conns,
               '-k' if sc.keepalive else '', self.ports[name][1], sc.path,
               stat, alive))
        out, _ = self.g.run(script, timeout=seconds + 60)
        parts = out.split('=====\n')
        if len(parts) != 3:
            return 'unexpected output: %s' % out[-300:]
        before, middle, after = parts
        m = re.search(r'^\{.*\}$', middle, re.M)
        rc = re.search(r'^htstress-exit=(\d+)$', middle, re.M)
        if not m or not rc:
            return 'htstress gave no report: %s' % middle[-300:]
        rep = json.loads(m.group(0))
        errs = ['%d %s' % (rep[k], k.replace('_', ' '))
                for k in BAD_KEYS if rep.get(k)]
        if rep.get('good', 0) == 0:
            errs.append('no good response')
        if rep.get('good') != rep.get('requests'):
            errs.append('%s good of %s' % (rep.get('good'),
                                            rep.get('requests')))
        if rc.group(1) != '0':
            errs.append('htstress exit %s' % rc.group(1))
        if 'server-alive' not in after:
            errs.append('%s is gone' % name)
        if errs:
            return ', '.join(errs)
        t0, t1 = cpu_ticks(before), cpu_ticks(after)
        busy = {}
        for cpu in t1:
            d_busy = t1[cpu][0] - t0.get(cpu, (0, 0))[0]
            d_total = t1[cpu][1] - t0.get(cpu, (0, 0))[1]
            busy[cpu] = (d_busy, d_total)
        good = rep['good']
        switches = [int(re.search(r'^ctxt (\d+)$', t, re.M).group(1))
                    for t in (before, after)]
        # USER_HZ is 100 on Debian's kernels: ticks are 10 ms.
        cpu1 = busy.get(SERVER_CPU, (0, 1))
        cpu0 = busy.get(CLIENT_CPU, (0, 1))
        return {
            'requests': good, 'seconds': rep['seconds'],
            'rps': rep['rps'], 'bytes_per_response': rep['bytes'] / good,
            'latency_us': rep.get('latency_us'),
            'cpu1_us': cpu1[0] * 1e4 / good,
            'switches_per_req': (switches[1] - switches[0]) / good,
            'cpu0_busy': cpu0[0] / cpu0[1] if cpu0[1] else 0.0,
            'cpu1_busy': cpu1[0] / cpu1[1] if cpu1[1] else 0.0,
        }

    # --- a scenario -------------------------------------------------------
    def scenario(self, sc):
        res = {name: {'error': None, 'samples': []} for name in SERVERS}
        if self.opts.warmup > 0:
            for name in SERVERS:
                got = self.load(name, sc, self.opts.warmup)
                if isinstance(got, str):
                    res[name]['error'] = 'warm-up: ' + got
        if not self.placement:
            self.record_placement()
        for rnd in range(self.opts.rounds):
            order = SERVERS if rnd % 2 == 0 else SERVERS[::-1]
            for name in order:
                r = res[name]
                if r['error']:
                    continue
                got = self.load(name, sc, self.opts.seconds)
                if isinstance(got, str):
                    r['error'] = 'round %d: %s' % (rnd + 1, got)
                    r['samples'] = []
                else:
                    r['samples'].append(got)
        for r in res.values():
            if r['samples']:
                r['summary'] = report.summarize(r['samples'], METRICS)
        k, s = res['khttpd'], res['sehttpd']
        ratio = None
        if k.get('summary') and s.get('summary'):
            per_round = [a['rps'] / b['rps']
                         for a, b in zip(k['samples'], s['samples'])]
            ratio = {'rps': k['summary']['rps']['median'] /
                     s['summary']['rps']['median'],
                     'rps_per_round': per_round,
                     'cpu1_us': k['summary']['cpu1_us']['median'] /
                     s['summary']['cpu1_us']['median']
                     if s['summary']['cpu1_us']['median'] else None}
        return {'title': sc.title, 'path': sc.path,
                'keepalive': sc.keepalive, 'servers': res,
                'khttpd_over_sehttpd': ratio}

    def kernel_log(self):
        self.g.dmesg()
        bad = bad_lines(self.g.klog)
        if self.opts.serial:
            try:
                with open(self.opts.serial, errors='replace') as f:
                    bad += bad_lines(f.read().split('\n'))
            except OSError as e:
                bad.append(repr(e))
        return bad


def cell(summary, key, digits):
    s = summary[key]
    fmt = '%%.%df' % digits
    return (fmt + ' [' + fmt + '-' + fmt + ']') % (s['median'], s['min'],
                                                   s['max'])


def print_table(doc):
    head = ['scenario', 'khttpd req/s', 'sehttpd req/s', 'k/s',
            'khttpd CPU1 us/req', 'sehttpd CPU1 us/req', 'k/s']
    rows, errors = [head], []
    for key, sc in doc['scenarios'].items():
        row = [sc['title']]
        for metric, digits in (('rps', 0), ('cpu1_us', 0)):
            for name in SERVERS:
                r = sc['servers'][name]
                row.append(cell(r['summary'], metric, digits)
                           if r.get('summary') else 'no figure')
                if r['error'] and metric == 'rps':
                    errors.append('%s, %s: %s' % (sc['title'], name,
                                                  r['error']))
            ratio = (sc['khttpd_over_sehttpd'] or {}).get(metric)
            row.append('%.2f' % ratio if ratio else '-')
        rows.append(row)
    widths = [max(len(row[i]) for row in rows) for i in range(len(head))]
    for row in rows:
        print('  ' + '  '.join(c.ljust(w) if i == 0 else c.rjust(w)
                               for i, (c, w) in enumerate(zip(row, widths))))
    for e in errors:
        print('  no figure: ' + e)
    print('\n  busy fraction of CPU0 (htstress) and CPU1 (server), context '
          'switches per request (whole guest), medians:')
    for key, sc in doc['scenarios'].items():
        parts = []
        for name in SERVERS:
            r = sc['servers'][name].get('summary')
            if r:
                parts.append('%s %.2f/%.2f, %.2f sw/req' % (
                    name, r['cpu0_busy']['median'],
                    r['cpu1_busy']['median'],
                    r['switches_per_req']['median']))
        print('  %-32s %s' % (sc['title'], '; '.join(parts)))


def main():
    opts = parse_args()
    started = time.monotonic()
    bench = KernelBench(opts)
    bench.setup()
    print('bench-kernel: %d vCPU(s); %s; htstress -t1 -c%d -d%g, %d '
          'round(s), %g s warm-up' % (
              bench.vcpus, 'servers on CPU %d, htstress on CPU %d'
              % (SERVER_CPU, CLIENT_CPU) if bench.pinned else 'not pinned',
              opts.conns, opts.seconds, opts.rounds, opts.warmup),
          flush=True)
    scenarios = {}
    for sc in opts.scenarios:
        t0 = time.monotonic()
        scenarios[sc.key] = bench.scenario(sc)
        print('%-18s measured in %.0f s' % (sc.key, time.monotonic() - t0),
              flush=True)
    bad_log = bench.kernel_log()
    wall = time.monotonic() - started
    with open('/proc/loadavg') as f:
        loadavg = ' '.join(f.read().split()[:3])
    doc = {
        'generated': time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime()),
        'note': NOTE,
        'wall_seconds': round(wall, 1),
        'host_loadavg_after': loadavg,
        'guest': {'kernel': opts.kernel, 'vcpus': bench.vcpus,
                  'accel': 'tcg', 'memory_mib': 512},
        'settings': {
            'rounds': opts.rounds, 'seconds': opts.seconds,
            'warmup': opts.warmup, 'conns': opts.conns,
            'load': 'htstress --json -t1 -c%d -d%g [-k], static, in the '
                    'guest' % (opts.conns, opts.seconds),
            'pinned': bench.pinned,
            'server_cpu': SERVER_CPU if bench.pinned else None,
            'client_cpu': CLIENT_CPU if bench.pinned else None,
            'khttpd': 'insmod khttpd.ko root=/srv/www timeout_ms=15000 '
                      '(cache and listing on by default); its work items '
                      'run in the per-CPU kworkers of the CPU that '
                      'accepted the connection, the listener kthread\'s, '
                      'pinned to the server CPU by taskset',
            'sehttpd': 'sehttpd -t 1 --timeout %d /srv/www, static, '
                       'under taskset' % SEHTTPD_TIMEOUT_S,
            'cpu1_us': 'busy time of the server CPU per good response, '
                       'from /proc/stat (10 ms ticks)',
            'switches_per_req': 'context switches of the whole guest '
                                '(/proc/stat ctxt) per good response'},
        'placement': bench.placement,
        'kernel_log_problems': bad_log,
        'scenarios': scenarios,
    }
    print('\n== khttpd against sehttpd in one qemu guest (medians '
          '[min-max] of %d rounds) ==' % opts.rounds)
    print_table(doc)
    for name, p in bench.placement.items():
        print('  %s: %d thread(s)%s, allowed CPUs %s' % (
            name, p['threads'], ' (%d kworkers)' % p['kworkers']
            if p['kworkers'] else '', ', '.join(p['allowed_cpus'])))
    print('  kernel log: %s' % ('clean' if not bad_log else
                                '%d problem line(s): %s'
                                % (len(bad_log), bad_log[:3])))
    print('  ' + NOTE)
    out = os.path.abspath(opts.out)
    os.makedirs(os.path.dirname(out), exist_ok=True)
    with open(out, 'w') as f:
        json.dump(doc, f, indent=1)
    print('wrote %s; measured in %.0f s' % (out, wall))
    failed = [k for k, sc in scenarios.items()
              if any(r['error'] for r in sc['servers'].values())]
    return 1 if failed or bad_log else 0


if __name__ == '__main__':
    sys.exit(main())
