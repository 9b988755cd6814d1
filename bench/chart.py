"""The PNG chart of a report, drawn by gnuplot: grouped bars of the
servers' median CPU time per request in every timed scenario (log scale),
and beside them memory per idle connection."""

import os
import shutil
import subprocess

ORDER = ['sehttpd', 'nginx', 'lighttpd', 'h2o', 'floor']


def _table(path, rows, names):
    with open(path, 'w') as f:
        f.write('# scenario %s\n' % ' '.join(names))
        for short, values in rows:
            f.write('"%s" %s\n' % (short, ' '.join(
                '?' if v is None else '%.6g' % v for v in values)))


def _median(sc, name, metric):
    r = sc['servers'].get(name, {})
    s = r.get('summary')
    return s[metric]['median'] if s else None


def _plot_cmd(data, names):
    return ', '.join(
        "'%s' using %d%s title '%s'" % (data, i + 2,
                                         ':xtic(1)' if i == 0 else '', n)
        for i, n in enumerate(names))


def plot(doc, png, work_dir):
    """Writes png; returns None or why there is no chart."""
    if not shutil.which('gnuplot'):
        return 'gnuplot not installed'
    # Only scenarios with at least one figure get a place.
    shown = [sc for sc in doc['scenarios'].values()
             if any(r.get('summary') for r in sc['servers'].values())]
    timed = [sc for sc in shown if sc['kind'] != 'idle']
    idle = [sc for sc in shown if sc['kind'] == 'idle']
    if not shown:
        return 'no figures'
    present = {n for sc in doc['scenarios'].values() for n in sc['servers']}
    names = [n for n in ORDER if n in present] + \
        sorted(present - set(ORDER))
    cpu_dat = os.path.join(work_dir, 'chart-cpu.dat')
    idle_dat = os.path.join(work_dir, 'chart-idle.dat')
    _table(cpu_dat, [(sc['short'], [_median(sc, n, 'total_us')
                                    for n in names]) for sc in timed], names)
    idle_names = [n for n in names if n != 'floor']
    _table(idle_dat, [(sc['short'], [_median(sc, n, 'kib_per_conn')
                                     for n in idle_names]) for sc in idle],
           idle_names)
    script = [
        "set terminal pngcairo size 1400,650 noenhanced font 'sans,10'",
        "set output '%s'" % png,
        "set datafile missing '?'",
        'set style data histogram',
        'set style histogram clustered gap 1',
        'set style fill solid 0.85 border -1',
        'set grid ytics',
        'set key top left',
        "set multiplot title 'sehttpd vs nginx, lighttpd, h2o (%s; "
        "servers on CPU 1, medians of %d round(s))'" % (
            doc['generated'], doc['settings']['rounds']),
    ]
    if timed:
        script += [
            'set origin 0,0', 'set size %s,0.95' % ('0.78' if idle else '1'),
            'set logscale y',
            "set ylabel 'server CPU time per request, us (user + system)'",
            'plot ' + _plot_cmd(cpu_dat, names),
            'unset logscale y',
        ]
    if idle:
        script += [
            'set origin %s,0' % ('0.78' if timed else '0'),
            'set size %s,0.95' % ('0.22' if timed else '1'),
            'set yrange [0:*]',
            'unset key' if timed else 'set key top left',
            "set ylabel 'server memory per idle connection, KiB'",
            'plot ' + _plot_cmd(idle_dat, idle_names),
        ]
    script.append('unset multiplot')
    try:
        out = subprocess.run(['gnuplot'], input='\n'.join(script) + '\n',
                             capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired:
        return 'gnuplot did not finish'
    if out.returncode != 0:
        return 'gnuplot failed: %s' % out.stderr.strip()[-300:]
    return None
