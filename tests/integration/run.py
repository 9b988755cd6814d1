"""Runs every test_*.py in this directory with unittest.

Usage: run.py [-v] [-k PATTERN]... [TIMEOUT_S]
Prints each failure and error with its traceback and each skipped test
with its reason, then exactly one line
    integration: N passed, N failed, N skipped
(errors count as failed) and exits 1 when anything failed.
"""

import argparse
import faulthandler
import os
import sys
import time
import unittest

sys.dont_write_bytecode = True

HERE = os.path.dirname(os.path.abspath(__file__))


class Result(unittest.TextTestResult):
    def __init__(self, *args, **kw):
        super().__init__(*args, **kw)
        self.passed = []
        self.times = []
        self._start = None

    def startTest(self, test):
        self._start = time.monotonic()
        super().startTest(test)

    def stopTest(self, test):
        self.times.append((time.monotonic() - self._start, test.id()))
        super().stopTest(test)

    def addSuccess(self, test):
        super().addSuccess(test)
        self.passed.append(test)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('-k', dest='patterns', action='append', default=[],
                    help='only tests whose name matches (as unittest -k)')
    ap.add_argument('-v', '--verbose', action='store_true')
    ap.add_argument('--slowest', type=int, default=5,
                    help='list the N slowest tests')
    ap.add_argument('--watchdog', type=float, default=600,
                    help='abort with tracebacks after this many seconds')
    opts = ap.parse_args()

    # No test may hang the suite: dump every thread's stack and exit.
    faulthandler.dump_traceback_later(opts.watchdog, exit=True)
    sys.path.insert(0, HERE)
    loader = unittest.TestLoader()
    if opts.patterns:
        loader.testNamePatterns = [p if '*' in p else '*%s*' % p
                                   for p in opts.patterns]
    suite = loader.discover(HERE, pattern='test_*.py', top_level_dir=HERE)
    runner = unittest.TextTestRunner(stream=sys.stdout, resultclass=Result,
                                     verbosity=2 if opts.verbose else 1,
                                     buffer=False)
    start = time.monotonic()
    result = runner.run(suite)
    elapsed = time.monotonic() - start

    for test, reason in result.skipped:
        print('SKIPPED %s: %s' % (test.id(), reason))
    if opts.slowest:
        print('slowest tests:')
        for t, name in sorted(result.times, reverse=True)[:opts.slowest]:
            print('  %6.2f s  %s' % (t, name))
    failed = len(result.failures) + len(result.errors) + \
        len(result.unexpectedSuccesses)
    name = os.environ.get('INTEGRATION_NAME', 'integration')
    print('%s run took %.1f s' % (name, elapsed))
    print('%s: %d passed, %d failed, %d skipped'
          % (name, len(result.passed), failed, len(result.skipped)))
    sys.stdout.flush()
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
