#!/usr/bin/env python3
"""Black-box test of `make install`: the CMake install rules of the build that made --engram,
run into a temporary prefix, put the binary, the man page and the prompts where the README says,
the installed binary runs, and `make uninstall` removes them again.

The build directory is the one holding the binary (CMake puts `engram` at its top); the man
page must have been built there (target engram_man, part of `all`; `make install` builds it).

Usage: install_test.py --engram PATH [--crash-writer PATH] [unittest options]
"""

import argparse
import filecmp
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

ENGRAM = None
SOURCE_DIR = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
PROMPTS = ["decide-v1.txt", "extract-v4.txt", "profile-v1.txt", "summarize-v1.txt"]


def clean_env():
    return {k: v for k, v in os.environ.items() if not k.startswith("ENGRAM_")
            and k not in ("DESTDIR", "MAKEFLAGS", "MFLAGS")}


class InstallTest(unittest.TestCase):

    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory(prefix="engram-install-")
        self.prefix = os.path.join(self._tmp.name, "usr local")  # a space must not break it
        self.build = os.path.dirname(ENGRAM)

    def tearDown(self):
        self._tmp.cleanup()

    def run_ok(self, cmd, **kw):
        proc = subprocess.run(cmd, capture_output=True, text=True, env=clean_env(), timeout=120,
                              **kw)
        self.assertEqual(proc.returncode, 0, "%r exited %d\nstdout: %s\nstderr: %s" % (
            cmd, proc.returncode, proc.stdout[-3000:], proc.stderr[-3000:]))
        return proc

    def installed(self, *parts):
        return os.path.join(self.prefix, *parts)

    def test_install_then_uninstall(self):
        self.assertTrue(os.path.isfile(os.path.join(self.build, "engram.1")),
                        "no engram.1 in %s: build the engram_man target (make install does)"
                        % self.build)
        self.run_ok([shutil.which("cmake") or "cmake", "--install", self.build,
                     "--prefix", self.prefix])

        binary = self.installed("bin", "engram")
        self.assertTrue(os.access(binary, os.X_OK), binary)
        help_text = self.run_ok([binary, "--help"]).stdout
        self.assertIn("Commands:", help_text)
        self.assertIn("engram help flags", help_text)
        # The installed binary works without the source tree: a database in the temp dir.
        db = os.path.join(self._tmp.name, "x.db")
        self.run_ok([binary, "--db", db, "add", "--no-infer", "installed", "-u", "a"])
        self.assertIn("installed", self.run_ok([binary, "--db", db, "list", "-u", "a"]).stdout)

        man = self.installed("share", "man", "man1", "engram.1")
        with open(man, encoding="utf-8") as f:
            page = f.read()
        self.assertIn(".TH ENGRAM 1", page)
        for text in ("add TEXT", "--index-memory-mb", "--no-infer"):  # help, flags, all
            self.assertIn(text, page)
        if shutil.which("man"):
            rendered = self.run_ok(["man", "-l", man], input="").stdout
            self.assertIn("ENGRAM(1)", rendered)

        for name in PROMPTS:  # for reference: the binary has them compiled in
            path = self.installed("share", "engram", "prompts", name)
            self.assertTrue(filecmp.cmp(path, os.path.join(SOURCE_DIR, "prompts", name),
                                        shallow=False), path)

        self.run_ok(["make", "-s", "-C", SOURCE_DIR, "uninstall", "PREFIX=" + self.prefix])
        left = [os.path.relpath(os.path.join(root, name), self.prefix)
                for root, _, names in os.walk(self.prefix) for name in names]
        self.assertEqual(left, [])
        self.assertFalse(os.path.exists(self.installed("share", "engram")))


def main():
    global ENGRAM
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--engram", required=True)
    parser.add_argument("--crash-writer")
    args, rest = parser.parse_known_args()
    ENGRAM = os.path.abspath(args.engram)
    unittest.main(argv=[sys.argv[0]] + rest, verbosity=2)


if __name__ == "__main__":
    main()
