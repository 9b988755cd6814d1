"""The test guest's control channel: busybox httpd running POSTed shell
text (tests/kernel/ctl.cgi), reached through a forwarded port.  The kernel
suite's scripts (tests/kernel/lifecycle.py...) drive the guest with it, and
so does the integration suite run against khttpd (target.py), to load the
module with parameters and to copy trees of its own into the guest."""

import base64
import http.client
import io
import os
import re
import tarfile
import time

RAW_LINE = re.compile(r'^<(\d+)>(.*)$')


class Guest:
    """The control channel: runs shell text in the guest."""

    def __init__(self, port):
        self.port = port
        self.klog = []  # every kernel log line fetched so far (raw)

    def run(self, script, timeout=60):
        """(output without the exit line, exit status)."""
        conn = http.client.HTTPConnection('127.0.0.1', self.port,
                                          timeout=timeout)
        try:
            conn.request('POST', '/cgi-bin/run', body=script.encode(),
                         headers={'Content-Type': 'text/plain'})
            resp = conn.getresponse()
            text = resp.read().decode('utf-8', 'replace')
        finally:
            conn.close()
        lines = text.rstrip('\n').split('\n')
        m = re.match(r'^exit=(\d+)$', lines[-1]) if lines else None
        if not m:
            raise RuntimeError('control channel: no exit line in %r'
                               % text[-500:])
        return '\n'.join(lines[:-1]), int(m.group(1))

    def wait_ready(self, seconds=30):
        deadline = time.monotonic() + seconds
        while True:
            try:
                out, rc = self.run('echo ready', timeout=10)
                if rc == 0 and out.strip() == 'ready':
                    return True
            except (OSError, http.client.HTTPException, RuntimeError):
                pass
            if time.monotonic() > deadline:
                return False
            time.sleep(0.5)

    def dmesg(self):
        """The kernel log since the last call, as (level, text) pairs."""
        out, _ = self.run('dmesg -r -c')
        lines = [ln for ln in out.split('\n') if ln]
        self.klog.extend(lines)
        parsed = []
        for ln in lines:
            m = RAW_LINE.match(ln)
            if m:
                parsed.append((int(m.group(1)) & 7, m.group(2)))
            else:
                parsed.append((7, ln))
        return parsed

    def value(self, script, timeout=60):
        out, rc = self.run(script, timeout=timeout)
        if rc != 0:
            raise RuntimeError('%r failed (%d): %s' % (script, rc, out))
        return out.strip()

    def put(self, base, rels, dest):
        """Copies the files, links and directories rels (paths relative
        to the host directory base) to the same places under dest in the
        guest, with their modes and times (whole seconds: busybox tar
        keeps no more); a rel missing on the host is removed there."""
        buf = io.BytesIO()
        gone = []
        with tarfile.open(fileobj=buf, mode='w:gz',
                          format=tarfile.USTAR_FORMAT) as tar:
            for rel in rels:
                path = os.path.join(base, rel)
                if os.path.lexists(path):
                    tar.add(path, arcname=rel, recursive=False)
                else:
                    gone.append(rel)
        data = base64.encodebytes(buf.getvalue()).decode()
        script = ['mkdir -p %s && cd %s || exit 1' % (dest, dest)]
        script += ["rm -rf './%s'" % rel for rel in gone]
        script.append("base64 -d >/tmp/put.tgz <<'EOF'\n%sEOF" % data)
        script.append('tar xzf /tmp/put.tgz; rc=$?; rm -f /tmp/put.tgz; '
                      'exit $rc')
        out, rc = self.run('\n'.join(script) + '\n', timeout=120)
        if rc != 0:
            raise RuntimeError('copying %d paths into %s in the guest '
                               'failed (%d): %s' % (len(rels), dest, rc,
                                                    out[-500:]))
