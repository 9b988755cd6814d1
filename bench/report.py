"""Turns the measured rounds into the report: medians with min and max,
ratios of sehttpd to every other server, the issue's targets (PASS/MISS),
as one JSON-able document and as text tables."""

import statistics
import time

import verify
from scenarios import TARGETS

TIMED_METRICS = [('rps', 'req/s', 0), ('user_us', 'user us/req', 2),
                 ('sys_us', 'sys us/req', 2), ('total_us', 'total us/req', 2),
                 ('client_us', 'client us/req', 2),
                 ('both_us', 'server+client us/req', 2)]
IDLE_METRICS = [('kib_per_conn', 'KiB/conn', 2),
                ('rss_before_kib', 'RSS before KiB', 0),
                ('rss_after_kib', 'RSS after KiB', 0)]
SUBJECT = 'sehttpd'


def summarize(samples, metrics):
    return {key: {'median': statistics.median(s[key] for s in samples),
                  'min': min(s[key] for s in samples),
                  'max': max(s[key] for s in samples)}
            for key, _, _ in metrics}


def load_text(opts, sc):
    if sc.kind == 'idle':
        return 'idle_clients.py, %d connections, fresh server each round' % (
            opts.idle_conns or sc.conns)
    seconds = sc.run_seconds(opts.seconds)
    if sc.kind == 'h2':
        return 'h2load -t1 -c%d -m%d -D%d, %s' % (
            sc.conns, sc.streams, seconds,
            'https, ALPN h2 only' if sc.tls else 'http, prior knowledge')
    if sc.kind == 'newconn' and sc.tls:
        return 'openssl s_time %s -time %d, one connection at a time, ' \
            'GET HTTP/1.0' % ('-reuse' if sc.resume else '-new',
                              seconds)
    if sc.kind == 'newconn':
        return 'htstress -t1 -c%d -d%gs (no -k)' % (sc.conns, seconds)
    return 'wrk -t1 -c%d -d%gs%s' % (sc.conns, seconds,
                                     ', https' if sc.tls else '')


def notes(opts, sc):
    """Lines printed under a scenario's table."""
    out = []
    if sc.kind == 'h2' and 'lighttpd' in opts.servers:
        out.append('lighttpd is left out of the HTTP/2 rows')
    elif sc.tls and 'lighttpd' in opts.servers:
        out.append('lighttpd is left out of the HTTPS rows (no TLS set up '
                   'for it here)')
    if sc.kind == 'h2':
        out.append('req/s: requests completed in the run (h2load leaves '
                   'out those in flight at its end)')
    if sc.tls and sc.kind == 'newconn':
        out.append('req/s: connections per second of wall time, one at a '
                   'time; ' + ('every one resumed the session of the one '
                               'before' if sc.resume else
                               'every one a full handshake'))
    return out


def ratios(servers):
    """sehttpd's median over each other server's, total and user."""
    me = servers.get(SUBJECT, {}).get('summary')
    out = {}
    if not me:
        return out
    for name, r in servers.items():
        other = r.get('summary')
        if name == SUBJECT or not other:
            continue
        out[name] = {m: me[m]['median'] / other[m]['median']
                     if other[m]['median'] else None
                     for m in ('total_us', 'user_us')}
    return out


def size_ratios(servers):
    """sehttpd's compressed body size over each other server's."""
    mine = servers.get(SUBJECT, {}).get('gzip_bytes')
    if not mine:
        return {}
    return {name: mine / r['gzip_bytes'] for name, r in servers.items()
            if name != SUBJECT and r.get('summary') and r.get('gzip_bytes')}


def round_ratios(me, other, metric):
    """sehttpd's figure over the other's in each round: they ran one after
    the other, so a slow spell of the machine weighs on both alike."""
    mine, theirs = me.get('samples', []), other.get('samples', [])
    if len(mine) != len(theirs) or len(mine) < 2:
        return []
    pairs = [(a[metric], b[metric]) for a, b in zip(mine, theirs)]
    return [a / b for a, b in pairs if a > 0 and b > 0]


def check_target(t, scenarios):
    sc = scenarios.get(t.scenario)
    what = '%s %s' % (t.scenario, t.metric)
    if t.versus:
        goal = '%s <= %.2fx %s' % (what, t.factor, t.versus)
    else:
        goal = '%s <= %g' % (what, t.factor)
    entry = {'scenario': t.scenario, 'metric': t.metric,
             'versus': t.versus, 'factor': t.factor, 'goal': goal}
    if sc is None:
        return dict(entry, status='SKIP', why='scenario not run')
    me = sc['servers'].get(SUBJECT, {})
    if not me.get('summary'):
        return dict(entry, status='MISS',
                    why='no sehttpd figure: %s' % me.get('error', 'not run'))
    mine = me['summary'][t.metric]['median']
    if t.versus:
        other = sc['servers'].get(t.versus, {})
        if (other.get('error') or '').startswith('no lwan given'):
            return dict(entry, status='SKIP', why=other['error'])
        if not other.get('summary'):
            return dict(entry, status='MISS', why='no %s figure: %s' % (
                t.versus, other.get('error', 'not run')))
        theirs = other['summary'][t.metric]['median']
        limit = t.factor * theirs
        why = 'sehttpd %.2f vs %s %.2f: %.2fx' % (
            mine, t.versus, theirs, mine / theirs if theirs else 0)
        paired = round_ratios(me, other, t.metric)
        if paired:
            why += ' (round by round %.2fx, %.2f-%.2f)' % (
                statistics.geometric_mean(paired), min(paired), max(paired))
    else:
        limit = t.factor
        why = 'sehttpd %.2f' % mine
    return dict(entry, status='PASS' if mine <= limit else 'MISS',
                value=mine, limit=limit, why=why)


def build(opts, results, info, wall, tls=None):
    scenarios = {}
    for sc, res in results:
        metrics = IDLE_METRICS if sc.kind == 'idle' else TIMED_METRICS
        servers = {}
        for name, r in res.items():
            entry = {'error': r['error'], 'samples': r['samples']}
            if sc.gzip and not r['error']:
                entry['gzip_bytes'] = r.get('gzip_bytes')
                entry['gzip_how'] = r.get('gzip_how')
            if r.get('facts'):
                entry['h2load'] = r['facts']
            if not r['error'] and r['samples']:
                entry['summary'] = summarize(r['samples'], metrics)
            elif not r['error']:
                entry['error'] = 'no samples'
            servers[name] = entry
        scenarios[sc.key] = {
            'title': sc.title, 'short': sc.short, 'kind': sc.kind,
            'path': sc.path, 'gzip': sc.gzip, 'coding': sc.coding,
            'load': load_text(opts, sc), 'notes': notes(opts, sc),
            'seconds': sc.run_seconds(opts.seconds),
            'tls': sc.tls, 'servers': servers,
            'ratios': ratios(servers) if sc.kind != 'idle' else {}}
        if sc.gzip:
            scenarios[sc.key]['gzip_size_ratios'] = size_ratios(servers)
    return {
        'generated': time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime()),
        'wall_seconds': round(wall, 1),
        # seconds: None when each scenario ran its own length
        'settings': {'rounds': opts.rounds, 'seconds': opts.seconds,
                     'warmup': opts.warmup, 'server_cpu': 1,
                     'client_cpu': 0},
        'servers': info,
        'tls': tls or {},
        'scenarios': scenarios,
        'targets': [check_target(t, scenarios) for t in TARGETS],
    }


def cell(summary, key, digits):
    s = summary[key]
    fmt = '%%.%df' % digits
    return (fmt + ' [' + fmt + '-' + fmt + ']') % (s['median'], s['min'],
                                                   s['max'])


def print_scenario(key, sc):
    metrics = IDLE_METRICS if sc['kind'] == 'idle' else TIMED_METRICS
    gz = sc.get('gzip')
    print('\n== %s (%s; %s) ==' % (sc['title'], sc['path'], sc['load']))
    rows = [['server'] + [title for _, title, _ in metrics] +
            (['%s body B' % sc.get('coding', 'gzip')] if gz else [])]
    for name, r in sc['servers'].items():
        if r.get('summary'):
            rows.append([name] + [cell(r['summary'], k, d)
                                  for k, _, d in metrics] +
                        (['%d' % r['gzip_bytes']] if gz else []))
        else:
            rows.append([name, 'error: %s' % r['error']])
    # Error rows span the table: only the figure rows set the widths.
    full = [row for row in rows if len(row) == len(rows[0])]
    widths = [max(len(row[i]) for row in full) for i in range(len(rows[0]))]
    for row in rows:
        if len(row) != len(rows[0]):
            print('  %-*s  %s' % (widths[0], row[0], row[1]))
            continue
        print('  ' + '  '.join(c.ljust(w) if i == 0 else c.rjust(w)
                               for i, (c, w) in enumerate(zip(row, widths))))
    for name, r in sc['ratios'].items():
        # Two significant digits at least: gzip ratios are far below 0.1.
        parts = ['%s %s' % (m.split('_')[0],
                            '%.2f' % v if v >= 0.1 else '%.2g' % v)
                 for m, v in r.items() if v is not None]
        print('  %s/%s CPU per request: %s' % (SUBJECT, name,
                                                ', '.join(parts)))
    for name, v in sc.get('gzip_size_ratios', {}).items():
        print('  %s/%s compressed size: %.3f' % (SUBJECT, name, v))
    for name, r in sc['servers'].items():
        if r.get('summary') and r.get('gzip_how'):
            print('  %s %s' % (name, r['gzip_how']))
    for name, r in sc['servers'].items():
        if r.get('h2load'):
            print('  %s: h2load got %s' % (name, ' '.join(
                r['h2load'][k] for k in ('protocol', 'tls', 'cipher',
                                         'group') if k in r['h2load'])))
    for line in sc.get('notes', []):
        print('  note: ' + line)


def print_codings(doc):
    """sehttpd's compression scenarios side by side: the body's size and
    CPU per request (server and client) in each coding."""
    rows = []
    for sc in doc['scenarios'].values():
        me = sc['servers'].get(SUBJECT, {})
        if not sc.get('gzip') or not me.get('summary'):
            continue
        s = me['summary']
        rows.append('  %-5s %-10s %7d B  server %7.2f us/req  client '
                    '%7.2f us/req' % (sc.get('coding', 'gzip'), sc['path'],
                                      me['gzip_bytes'],
                                      s['total_us']['median'],
                                      s['client_us']['median']))
    if len(rows) > 1:
        print('\n== %s by content coding (medians) ==' % SUBJECT)
        print('\n'.join(rows))


def print_tls(doc):
    """What each HTTPS server's TLS came to, checked before the runs."""
    if not doc.get('tls') or not any(sc.get('tls') for sc in
                                     doc['scenarios'].values()):
        return
    print('\n== HTTPS: one ECDSA P-256 certificate; what a client gets '
          '(openssl s_client, Python ssl) ==')
    for name, facts in doc['tls'].items():
        print('  %-12s %s' % (name, verify.tls_text(facts)))


def print_all(doc):
    print_tls(doc)
    for key, sc in doc['scenarios'].items():
        print_scenario(key, sc)
    print_codings(doc)
    print('\n== targets ==')
    for t in doc['targets']:
        print('  %-4s %-44s %s' % (t['status'], t['goal'], t['why']))
    print('\nbenchmark wall time %.0f s' % doc['wall_seconds'])
