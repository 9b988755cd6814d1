"""CPU time and memory of a process tree, read from /proc.

A process's /proc/PID/stat counts the time of all its threads, the ones
that have exited included, so the tree's CPU time is the sum over its
processes; /proc/PID/task lists the threads (for the affinity check).

But stat's user and system times are sampled at the timer tick, and a
server that sleeps often can be asleep at nearly every tick: here lwan's
stat showed 1.3 us per 100 KiB request where the scheduler ran it for 14.
So the total is the scheduler's own count, to the nanosecond, summed over
the threads (/proc/PID/task/TID/schedstat, its first field), split into
user and system in the ratio the ticks saw, as getrusage() does.
"""

import os

CLK_TCK = os.sysconf('SC_CLK_TCK')


def _stat_fields(pid):
    """The fields of /proc/PID/stat after the command name, whose
    parentheses may enclose spaces and parentheses: fields[0] is the
    state, fields[1] the parent PID, fields[11] utime, fields[12] stime."""
    with open('/proc/%d/stat' % pid, 'rb') as f:
        data = f.read()
    return data[data.rindex(b')') + 2:].split()


def tree_pids(root):
    """root and all its descendants that are alive."""
    children = {}
    for name in os.listdir('/proc'):
        if not name.isdigit():
            continue
        try:
            ppid = int(_stat_fields(int(name))[1])
        except (OSError, ValueError, IndexError):
            continue
        children.setdefault(ppid, []).append(int(name))
    if not os.path.exists('/proc/%d' % root):
        return []
    pids, todo = [], [root]
    while todo:
        pid = todo.pop()
        pids.append(pid)
        todo.extend(children.get(pid, []))
    return sorted(pids)


def run_ns(pid):
    """Nanoseconds the scheduler ran pid's live threads, or None when
    schedstat cannot be read."""
    total = 0
    try:
        tids = os.listdir('/proc/%d/task' % pid)
    except OSError:
        return None
    for tid in tids:
        try:
            with open('/proc/%d/task/%s/schedstat' % (pid, tid)) as f:
                total += int(f.read().split()[0])
        except (OSError, ValueError, IndexError):
            continue
    return total


def cpu_by_pid(pids):
    """{pid: (user, system) CPU seconds} of the pids still alive: the
    scheduler's total, split as the ticks saw it (see above)."""
    cpu = {}
    for pid in pids:
        try:
            f = _stat_fields(pid)
        except OSError:
            continue
        user, system = int(f[11]) / CLK_TCK, int(f[12]) / CLK_TCK
        ns = run_ns(pid)
        if ns is not None:
            total = ns / 1e9
            share = user / (user + system) if user + system else 0.0
            user, system = total * share, total * (1 - share)
        cpu[pid] = (user, system)
    return cpu


def rss_kib(pids):
    """VmRSS summed over pids, in KiB."""
    total = 0
    for pid in pids:
        try:
            with open('/proc/%d/status' % pid) as f:
                for line in f:
                    if line.startswith('VmRSS:'):
                        total += int(line.split()[1])
                        break
        except OSError:
            continue
    return total


def fd_count(pids):
    """Open file descriptors summed over pids."""
    total = 0
    for pid in pids:
        try:
            total += len(os.listdir('/proc/%d/fd' % pid))
        except OSError:
            continue
    return total


def threads(pid):
    """Thread IDs of pid."""
    try:
        return sorted(int(t) for t in os.listdir('/proc/%d/task' % pid))
    except OSError:
        return []


def thread_cpus(pid, tid):
    """The CPU list a thread may run on (e.g. '1')."""
    try:
        with open('/proc/%d/task/%d/status' % (pid, tid)) as f:
            for line in f:
                if line.startswith('Cpus_allowed_list:'):
                    return line.split(':', 1)[1].strip()
    except OSError:
        pass
    return '?'


def comm(pid):
    try:
        with open('/proc/%d/comm' % pid) as f:
            return f.read().strip()
    except OSError:
        return '?'
