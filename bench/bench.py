#!/usr/bin/python3
"""sehttpd against nginx, lighttpd and h2o (and lwan, when given), side by
side (`make bench`).

Serves one generated tree from every server (configured alike, see
servers.py), each pinned to CPU 1, drives them from CPU 0 in interleaved
rounds (A B C D A B C D ...) and reports, per scenario and server, the
request rate and the server's own CPU time per request (user and system,
from /proc), or memory per idle connection; medians of the rounds with
min and max.  The HTTPS scenarios run HTTPS instances of the servers that
speak it, with one certificate made for the run; the HTTP/2 scenarios run
HTTP/2 instances (over TLS, or cleartext with prior knowledge).  Writes
bench/results/latest.json and latest.png.
"""

import argparse
import json
import os
import select
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True  # no __pycache__ in the source tree

import chart  # noqa: E402
import loadgen  # noqa: E402
import procstat  # noqa: E402
import report  # noqa: E402
import servers  # noqa: E402
import tree  # noqa: E402
import verify  # noqa: E402
from scenarios import DEFAULT_SECONDS, SCENARIOS  # noqa: E402

PEERS = ['sehttpd', 'nginx', 'lighttpd', 'h2o', 'lwan']
BALANCED_INSTANCES = (1, 3)  # sehttpd instances behind HAProxy
IDLE_SETTLE_S = 0.5
IDLE_CLIENT_TIMEOUT_S = 120
SHORTEST_HEAD = 'HTTP/1.0 200 OK\r\n\r\n'


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--build', default='build',
                    help='build directory (sehttpd, htstress, bench-floor)')
    # wrk takes whole seconds only.
    ap.add_argument('--seconds', type=int,
                    help='length of one timed run, whole seconds (default: '
                    '%d, the HTTP/2 rows 2)' % DEFAULT_SECONDS)
    ap.add_argument('--rounds', type=int, default=3)
    ap.add_argument('--warmup', type=int, default=1,
                    help='seconds of untimed load per server before its '
                    'first round (0: none)')
    ap.add_argument('--servers', default=','.join(PEERS),
                    help='comma-separated subset of ' + ','.join(PEERS))
    ap.add_argument('--scenarios', default=','.join(s.key for s in SCENARIOS),
                    help='comma-separated subset of the scenario keys')
    ap.add_argument('--lwan', metavar='PATH',
                    help='a built lwan binary: adds the lwan column '
                    '(skipped with a note without it)')
    ap.add_argument('--no-floor', action='store_true',
                    help='do not measure the floor server')
    ap.add_argument('--idle-conns', type=int,
                    help="idle connections (default: the scenario's 10,000)")
    ap.add_argument('--out', default=os.path.join(HERE, 'results'),
                    help='directory for latest.json and latest.png')
    opts = ap.parse_args()
    opts.servers = [s for s in opts.servers.split(',') if s]
    keys = [s for s in opts.scenarios.split(',') if s]
    unknown = [s for s in opts.servers if s not in PEERS] + \
        [k for k in keys if k not in {s.key for s in SCENARIOS}]
    if unknown or opts.rounds < 1 or \
            (opts.seconds is not None and opts.seconds <= 0):
        ap.error('bad --servers, --scenarios, --rounds or --seconds: %s' %
                 ', '.join(unknown))
    opts.scenarios = [s for s in SCENARIOS if s.key in keys]
    return opts


CLASSES = {'sehttpd': servers.Sehttpd, 'nginx': servers.Nginx,
           'lighttpd': servers.Lighttpd, 'h2o': servers.H2o,
           'lwan': servers.Lwan}


def make_servers(opts, run_dir, www, tls):
    """The servers the scenarios need: the peers over HTTP (when a
    scenario without TLS is run), the balanced setups, the floors, with
    tls the peers that speak HTTPS over it, and the HTTP/2 instances of
    the peers that speak it ({tls: [servers]}: over TLS, in the clear)."""
    def make(name, tls=None, h2=False):
        binary = {'sehttpd': [os.path.join(opts.build, 'sehttpd')],
                  'lwan': [opts.lwan]}.get(name, [])
        return CLASSES[name](run_dir, www, *binary, tls=tls, h2=h2)

    h1 = [sc for sc in opts.scenarios if sc.kind != 'h2']
    peers = []
    if any(not sc.tls for sc in h1):
        peers = [make(name) for name in opts.servers]
    tls_peers = []
    if any(sc.tls for sc in h1):
        tls_peers = [make(name, tls) for name in opts.servers
                     if CLASSES[name].speaks_tls]
    h2_peers = {}
    for over_tls in sorted({sc.tls for sc in opts.scenarios
                            if sc.kind == 'h2'}):
        h2_peers[over_tls] = [
            make(name, tls if over_tls else None, h2=True)
            for name in opts.servers if CLASSES[name].speaks_h2]
    balanced = []
    if any(sc.balanced for sc in opts.scenarios):
        balanced = [servers.Balanced(run_dir, www,
                                     os.path.join(opts.build, 'sehttpd'), n)
                    for n in BALANCED_INSTANCES]
    floors = {}
    if not opts.no_floor:
        for sc in opts.scenarios:
            key = (sc.kind == 'h2', sc.floor)
            if sc.floor and key not in floors:
                floors[key] = servers.Floor(
                    run_dir, www, opts.build, sc.floor, h2=key[0])
    return peers, tls_peers, h2_peers, balanced, floors


def label(server):
    return server.label


class Bench:
    def __init__(self, opts, run_dir, www, expected):
        self.opts = opts
        self.run_dir = run_dir
        self.expected = expected
        self.broken = {}  # server name -> why it cannot be measured
        tls, tls_err = None, None
        if any(sc.tls for sc in opts.scenarios):
            tls, tls_err = servers.make_tls(run_dir)
            # Without one, the HTTPS servers exist only to say so.
            tls = tls or servers.Tls('-', '-')
        self.peers, self.tls_peers, self.h2_peers, self.balanced, \
            self.floors = make_servers(opts, run_dir, www, tls)
        for server in self.tls_peers + self.h2_peers.get(True, []):
            if tls_err:
                self.broken[server.name] = 'no certificate: ' + tls_err
        self.htstress = os.path.join(opts.build, 'htstress')
        self.info = {}  # server name -> version, processes, threads
        self.tls_info = {}  # HTTPS server name -> verify.tls_probe's facts

    def all_servers(self):
        return self.peers + self.tls_peers + \
            [s for group in self.h2_peers.values() for s in group] + \
            self.balanced + list(self.floors.values())

    def start(self, server):
        """(Re)starts and verifies server; None or an error string."""
        err = server.available() or server.start()
        if err:
            return err
        if isinstance(server, servers.Floor):
            err = verify.check_fixed(server.port, server.body_bytes,
                                     h2=server.h2)
        elif server.h2:
            err = verify.check_h2(server.port, self.expected,
                                  tls=bool(server.tls))
        else:
            err = verify.check_tree(server.port, self.expected,
                                    tls=bool(server.tls))
        if not err and server.tls and server.name not in self.tls_info:
            err, facts = verify.tls_probe(server.port, '/12.txt')
            if facts:
                self.tls_info[server.name] = facts
                print('%-10s %s' % (server.name, verify.tls_text(facts)))
        if err:
            server.stop()
            return 'wrong response: ' + err
        return None

    def start_all(self):
        for server in self.all_servers():
            err = self.broken.get(server.name) or self.start(server)
            if err:
                self.broken[server.name] = err
                print('%-10s not measured: %s' % (server.name, err))

    def describe(self, server, busy, run):
        """Records what runs: every process with its threads and their
        allowed CPUs, and which processes did the work in the first run."""
        procs = []
        for pid in server.pids():
            tids = procstat.threads(pid)
            procs.append({
                'pid': pid, 'comm': procstat.comm(pid),
                'threads': len(tids),
                'cpus': sorted({procstat.thread_cpus(pid, t) for t in tids}),
                'cpu_s_in_' + run: round(sum(busy.get(pid, (0, 0))), 3)})
        self.info[server.name] = {'version': server.version(),
                                  'processes': procs}
        if server.name in self.tls_info:
            self.info[server.name]['tls'] = self.tls_info[server.name]
        text = ', '.join('%s[%d] %d thread(s) on CPU %s, %.2f s CPU' % (
            p['comm'], p['pid'], p['threads'], '/'.join(p['cpus']),
            p['cpu_s_in_' + run]) for p in procs)
        print('%-10s %s; in the %s: %s' % (
            server.name, self.info[server.name]['version'], run, text))

    # --- one timed run ------------------------------------------------------
    def load(self, scenario, server, seconds):
        url = server.url(scenario.path)
        if scenario.kind == 'h2':
            return loadgen.h2load(url, seconds, scenario.conns,
                                  scenario.streams)
        if scenario.kind == 'newconn' and scenario.tls:
            return loadgen.s_time(server.port, scenario.path, seconds,
                                  reuse=scenario.resume)
        if scenario.kind == 'newconn':
            if not os.access(self.htstress, os.X_OK):
                return loadgen.Load(error='%s not built' % self.htstress)
            return loadgen.htstress(self.htstress, url, seconds,
                                    scenario.conns, scenario.headers)
        return loadgen.wrk(url, seconds, scenario.conns, scenario.headers)

    def timed_run(self, scenario, server, seconds):
        """One run: the Load and {pid: (user, system) CPU seconds} the
        server's processes spent during it."""
        before = procstat.cpu_by_pid(server.pids())
        load = self.load(scenario, server, seconds)
        after = procstat.cpu_by_pid(server.pids())
        if not server.alive():
            load.error = server.death()
        lost = set(before) - set(after)
        if lost and not load.error:
            load.error = 'processes %s exited during the run' % sorted(lost)
        if scenario.gzip and not load.error and load.bytes_read and \
                load.bytes_read / load.requests >= \
                len(self.expected[scenario.path]):
            # wrk does not look into bodies: the byte count shows whether
            # the replies stayed compressed after the check.
            load.error = 'replies not compressed: %.0f bytes read per ' \
                'reply of the %d-byte file' % (
                    load.bytes_read / load.requests,
                    len(self.expected[scenario.path]))
        if scenario.tls and scenario.kind == 'newconn' and \
                not load.error and load.bytes_read / load.requests < \
                len(self.expected[scenario.path]) + len(SHORTEST_HEAD):
            # s_time does not look into replies: too few bytes were no 200
            # with the file.
            load.error = 'replies too short: %.0f bytes read per reply ' \
                'of the %d-byte file' % (
                    load.bytes_read / load.requests,
                    len(self.expected[scenario.path]))
        busy = {pid: (u - before.get(pid, (0, 0))[0],
                      s - before.get(pid, (0, 0))[1])
                for pid, (u, s) in after.items()}
        return load, busy

    def check_gzip(self, scenario, server, r):
        """A server that cannot or does not send gzip of the file gets no
        figure; otherwise records the compressed size."""
        why = server.gzip_unsupported(scenario.coding)
        if why:
            r['error'] = 'n/a: ' + why
            return
        err, size = verify.check_gzip(server.port, scenario.path,
                                      self.expected[scenario.path],
                                      coding=scenario.coding)
        if err:
            r['error'] = 'not compressed: ' + err
        else:
            r['gzip_bytes'] = size
            r['gzip_how'] = server.how(scenario.coding)

    def run_timed(self, scenario):
        if scenario.kind == 'h2':
            members = list(self.h2_peers[scenario.tls])
        else:
            members = list(self.tls_peers if scenario.tls else self.peers)
        if scenario.balanced:
            members = [s for s in self.peers if s.name == 'sehttpd'] + \
                self.balanced
        floor = self.floors.get((scenario.kind == 'h2', scenario.floor))
        if floor:
            members.append(floor)
        res = {label(s): {'error': self.broken.get(s.name), 'samples': []}
               for s in members}
        for server in members:
            r = res[label(server)]
            if not r['error'] and not server.alive():
                r['error'] = self.start(server)
            if not r['error'] and scenario.gzip:
                self.check_gzip(scenario, server, r)
            if r['error'] or self.opts.warmup <= 0:
                continue
            load, busy = self.timed_run(scenario, server, self.opts.warmup)
            if load.error:
                r['error'] = 'warm-up: ' + load.error
            elif server.name not in self.info:
                self.describe(server, busy, 'warm-up')
        for rnd in range(self.opts.rounds):
            for server in members:
                r = res[label(server)]
                if r['error']:
                    continue
                load, busy = self.timed_run(
                    scenario, server, scenario.run_seconds(self.opts.seconds))
                if load.error:
                    r['error'] = 'round %d: %s' % (rnd + 1, load.error)
                    continue
                if server.name not in self.info:
                    self.describe(server, busy, 'round 1')
                user = sum(u for u, _ in busy.values())
                system = sum(s for _, s in busy.values())
                n = load.requests
                r['samples'].append({
                    'requests': n, 'seconds': round(load.seconds, 3),
                    'user_s': round(user, 2), 'sys_s': round(system, 2),
                    'rps': n / load.seconds,
                    'user_us': user * 1e6 / n,
                    'sys_us': system * 1e6 / n,
                    'total_us': (user + system) * 1e6 / n,
                    'client_us': load.client_cpu_s * 1e6 / n,
                    'both_us': (user + system + load.client_cpu_s) * 1e6 /
                    n})
                if load.bytes_read:
                    r['samples'][-1]['wire_bytes'] = round(
                        load.bytes_read / n)
                if load.facts and 'facts' not in r:
                    r['facts'] = load.facts
        return res

    # --- the idle scenario --------------------------------------------------
    def idle_run(self, scenario, server):
        """Restarts server, opens the idle connections, returns a sample
        dict or an error string."""
        err = self.start(server)
        if err:
            return err
        time.sleep(IDLE_SETTLE_S)
        before = procstat.rss_kib(server.pids())
        fds_before = procstat.fd_count(server.pids())
        cmd = ['taskset', '-c', loadgen.CLIENT_CPU, sys.executable,
               os.path.join(HERE, 'idle_clients.py'), str(server.port),
               scenario.path, str(self.opts.idle_conns or scenario.conns)]
        client = subprocess.Popen(cmd, stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, text=True)
        try:
            rep = self.read_json(client, IDLE_CLIENT_TIMEOUT_S)
            if rep is None or rep.get('error'):
                return 'idle client: %s' % (
                    rep['error'] if rep else 'no report')
            time.sleep(IDLE_SETTLE_S)
            after = procstat.rss_kib(server.pids())
            # The connections must be held by the tree we measure.
            held = procstat.fd_count(server.pids()) - fds_before
            client.stdin.write('check\n')
            client.stdin.flush()
            still = self.read_json(client, 30)
            if not server.alive():
                return server.death()
            if still is None or still['still_open'] != rep['opened']:
                return 'server closed %s of %d idle connections' % (
                    '?' if still is None else
                    rep['opened'] - still['still_open'], rep['opened'])
            if held < rep['opened']:
                return 'the server holds %d new descriptors for %d ' \
                    'connections' % (held, rep['opened'])
        finally:
            try:
                client.stdin.close()
            except OSError:
                pass
            try:
                client.wait(timeout=30)
            except subprocess.TimeoutExpired:
                client.kill()
                client.wait()
        n = rep['opened']
        return {'conns': n, 'fds_added': held, 'rss_before_kib': before,
                'rss_after_kib': after,
                'kib_per_conn': (after - before) / n}

    @staticmethod
    def read_json(proc, timeout):
        ready, _, _ = select.select([proc.stdout], [], [], timeout)
        if not ready:
            return None
        line = proc.stdout.readline()
        try:
            return json.loads(line)
        except ValueError:
            return None

    def run_idle(self, scenario):
        res = {s.name: {'error': self.broken.get(s.name), 'samples': []}
               for s in self.peers}
        for rnd in range(self.opts.rounds):
            for server in self.peers:
                r = res[server.name]
                if r['error']:
                    continue
                got = self.idle_run(scenario, server)
                if isinstance(got, str):
                    r['error'] = 'round %d: %s' % (rnd + 1, got)
                else:
                    r['samples'].append(got)
        return res


def interrupt(signum, frame):
    raise KeyboardInterrupt


def main():
    opts = parse_args()
    started = time.monotonic()
    # The harness itself stays off the servers' CPU.
    os.sched_setaffinity(0, {int(loadgen.CLIENT_CPU)})
    # Stop cleanly on Ctrl-C even when started with SIGINT ignored.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, interrupt)
    run_dir = os.path.abspath(os.path.join(opts.build, 'bench'))
    www = os.path.join(run_dir, 'www')
    os.makedirs(run_dir, exist_ok=True)
    expected = tree.make_tree(www)
    bench = Bench(opts, run_dir, www, expected)
    with open('/proc/loadavg') as f:
        loadavg = ' '.join(f.read().split()[:3])
    print('bench: %d round(s) of %s per server, servers on CPU %s, load '
          'on CPU %s, server CPU time as the scheduler counts it '
          '(schedstat; user and system in the ratio of 1/%d s ticks), '
          'RLIMIT_NOFILE %d, load average %s; run dir %s' % (
              opts.rounds, '%d s' % opts.seconds if opts.seconds else
              '%d s (HTTP/2: 2 s)' % DEFAULT_SECONDS, servers.SERVER_CPU,
              loadgen.CLIENT_CPU, procstat.CLK_TCK, servers.NOFILE,
              loadavg, run_dir))
    results = []
    try:
        bench.start_all()
        for sc in opts.scenarios:
            t0 = time.monotonic()
            res = (bench.run_idle(sc) if sc.kind == 'idle'
                   else bench.run_timed(sc))
            results.append((sc, res))
            print('%-16s measured in %.0f s' % (sc.key,
                                                time.monotonic() - t0))
    except KeyboardInterrupt:
        print('bench: interrupted; stopping the servers')
        raise
    finally:
        for server in bench.all_servers():
            server.stop()
    wall = time.monotonic() - started
    doc = report.build(opts, results, bench.info, wall, bench.tls_info)
    report.print_all(doc)
    os.makedirs(opts.out, exist_ok=True)
    json_path = os.path.join(opts.out, 'latest.json')
    with open(json_path, 'w') as f:
        json.dump(doc, f, indent=1)
    png = os.path.join(opts.out, 'latest.png')
    err = chart.plot(doc, png, run_dir)
    print('wrote %s%s' % (json_path, ' and ' + png if not err else
                          '; no chart: ' + err))
    print('total wall time %.0f s' % (time.monotonic() - started))


if __name__ == '__main__':
    try:
        main()
    except KeyboardInterrupt:
        sys.exit(130)
