"""Runs every test_*.py in this directory with unittest, with the
integration suite's helpers (target.py, httpraw.py) importable.

Usage: run.py [-v]
Prints failures and skips, then exactly one line
    browser: N passed, N failed, N skipped
and exits 1 when anything failed.
"""

import os
import sys
import unittest

sys.dont_write_bytecode = True

HERE = os.path.dirname(os.path.abspath(__file__))


class Result(unittest.TextTestResult):
    def __init__(self, *args, **kw):
        super().__init__(*args, **kw)
        self.passed = []

    def addSuccess(self, test):
        super().addSuccess(test)
        self.passed.append(test)


def main():
    sys.path.insert(0, os.path.join(HERE, '..', 'integration'))
    sys.path.insert(0, HERE)
    suite = unittest.TestLoader().discover(HERE, pattern='test_*.py',
                                           top_level_dir=HERE)
    runner = unittest.TextTestRunner(stream=sys.stdout, resultclass=Result,
                                     verbosity=2 if '-v' in sys.argv else 1)
    result = runner.run(suite)
    for test, reason in result.skipped:
        print('SKIPPED %s: %s' % (test.id(), reason))
    failed = len(result.failures) + len(result.errors) + \
        len(result.unexpectedSuccesses)
    print('browser: %d passed, %d failed, %d skipped'
          % (len(result.passed), failed, len(result.skipped)))
    sys.stdout.flush()
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
