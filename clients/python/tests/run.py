#!/usr/bin/env python3
"""Runs the Python client's tests against a real engram binary, like the black-box tests:

    python3 clients/python/tests/run.py --engram PATH [-k PATTERN ...]

The servers are started by tests/blackbox/server_harness.py (an ephemeral port, a temporary
database), which these tests reuse.
"""

import argparse
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
sys.path.insert(0, os.path.join(ROOT, "tests", "blackbox"))  # server_harness
sys.path.insert(0, os.path.dirname(HERE))  # engram_client, as installed from this folder
sys.path.insert(0, HERE)  # support

import server_harness  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engram", required=True, help="the engram binary")
    parser.add_argument("-k", action="append", default=[], help="only tests matching this")
    args = parser.parse_args()
    server_harness.ENGRAM = os.path.abspath(args.engram)
    loader = unittest.TestLoader()
    loader.testNamePatterns = ["*%s*" % k for k in args.k] or None
    suite = loader.discover(HERE, pattern="test_*.py", top_level_dir=HERE)
    result = unittest.TextTestRunner(verbosity=2).run(suite)
    sys.exit(0 if result.wasSuccessful() else 1)


if __name__ == "__main__":
    main()
