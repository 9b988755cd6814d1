"""Differential testing (differential.py): the same requests to khttpd in
the test guest and to a sehttpd started here over the host's copy of its
tree, answers compared.  Opt-in, as it sends some 5,500 requests to each:

  HTTPD_DIFFERENTIAL=1 KHTTPD_TESTS=Differential KHTTPD_LIFECYCLE=none \\
      tests/kernel/run.sh

The first pass warms both servers' caches and is only printed (khttpd
answers identity to a request that comes while another makes an entry's
gzip form); the second must find no difference the documentation does not
give one server alone."""

import os
import sys
import unittest

import differential
from target import EXTERNAL, ServerProcess, session_tree


@unittest.skipUnless(EXTERNAL and os.environ.get('HTTPD_TREE') and
                     os.environ.get('HTTPD_DIFFERENTIAL'),
                     'needs khttpd in the guest, its tree here and '
                     'HTTPD_DIFFERENTIAL=1')
class DifferentialTest(unittest.TestCase):

    def test_same_answers_as_sehttpd(self):
        tree = session_tree()
        # Its built-in media types, as khttpd has; as root, it reads the
        # tree where the suite made it (a directory only root may search).
        args = ['--mime-types', '']
        if os.geteuid() == 0:
            args += ['--user', 'root']
        srv = ServerProcess(args, root=tree.www, port=os.environ.get(
            'HTTPD_DIFFERENTIAL_PORT', '0'))
        self.addCleanup(srv.stop)
        host, _, port = EXTERNAL.rpartition(':')
        reqs = differential.requests(tree)
        a, b = (srv.host, srv.port), (host.strip('[]'), int(port))
        first = differential.compare(reqs, a, b)
        print('differential pass 1 (warming): %d differences'
              % len(first), file=sys.stderr)
        differential.report(first, sys.stderr)
        second = differential.compare(reqs, a, b)
        if second:
            differential.report(second, sys.stderr)
        self.assertEqual(len(second), 0, 'sehttpd and %s answer %d of %d '
                         'requests differently (above)'
                         % (os.environ.get('HTTPD_KIND', 'khttpd'),
                            len({d[1] for d in second}), len(reqs)))
