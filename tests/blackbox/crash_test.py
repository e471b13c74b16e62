#!/usr/bin/env python3
"""Crash durability: a write that Engram acknowledged survives SIGKILL, and a batch is never
half-written.

crash_writer adds batches of memories ("batch <b> item <i>", tag "batch-<b>") and prints
"ACK <b>" once AddBatch has returned OK. This test kills it with SIGKILL at a random moment,
then checks with SQLite and with the real `engram` binary that

  * the database passes PRAGMA integrity_check;
  * every acknowledged batch is present with all of its items (and their ADD history rows);
  * every batch present at all is present whole (AddBatch is one transaction), and the only
    unacknowledged batch that may be present is the one in flight at the kill.

The kill cycle runs several times on the same database, each run continuing with new batch ids.

Usage: crash_test.py --engram PATH --crash-writer PATH [unittest options]
"""

import argparse
import json
import os
import random
import re
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import unittest

ENGRAM = None
CRASH_WRITER = None

USER = "crash-user"
BATCH_SIZE = 50
CYCLES = 3
CONTENT_RE = re.compile(r"^batch (\d+) item (\d+)$")


class CrashWriterRun:
    """One crash_writer process whose "ACK <b>" lines are collected by a reader thread."""

    def __init__(self, db, start_batch, extra=()):
        self.proc = subprocess.Popen(
            [CRASH_WRITER, "--db", db, "--batches", "100000", "--batch-size", str(BATCH_SIZE),
             "--user", USER, "--start-batch", str(start_batch), *extra],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.acked = []
        self.bad_lines = []
        self._lock = threading.Lock()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self):
        # Reads until EOF, so lines still buffered in the pipe after the kill are collected too.
        for raw in self.proc.stdout:
            line = raw.decode("utf-8", "replace").strip()
            m = re.fullmatch(r"ACK (\d+)", line)
            with self._lock:
                if m:
                    self.acked.append(int(m.group(1)))
                elif line:
                    self.bad_lines.append(line)

    def ack_count(self):
        with self._lock:
            return len(self.acked)

    def kill_and_collect(self):
        """SIGKILLs the writer; returns (acked ids, its exit status, its stderr)."""
        self.proc.send_signal(signal.SIGKILL)
        status = self.proc.wait(timeout=30)
        self._reader.join(timeout=30)
        stderr = self.proc.stderr.read().decode("utf-8", "replace")
        self.proc.stdout.close()
        self.proc.stderr.close()
        with self._lock:
            return list(self.acked), status, stderr


def engram(db, *args, key_file=None):
    extra = ["--key-file", key_file] if key_file else []
    return subprocess.run([ENGRAM, "--db", db, *extra, *args], capture_output=True, timeout=60)


class CrashDurabilityTest(unittest.TestCase):
    key_file = None  # set by the encrypted variant

    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory(prefix="engram-crash-")
        self.db = os.path.join(self._tmp.name, "data", "crash.db")
        seed = int(os.environ.get("ENGRAM_CRASH_SEED", str(int(time.time() * 1000))))
        print("crash_test seed: %d (set ENGRAM_CRASH_SEED to repeat)" % seed, file=sys.stderr)
        self.rng = random.Random(seed)

    def tearDown(self):
        self._tmp.cleanup()

    def run_until_killed(self, start_batch):
        """Runs crash_writer from start_batch; kills it after some ACKs and a random delay."""
        run = CrashWriterRun(self.db, start_batch,
                             ["--key-file", self.key_file] if self.key_file else [])
        try:
            # At least a few acknowledged batches, so every cycle checks something.
            deadline = time.monotonic() + 20
            while run.ack_count() < 3:
                if run.proc.poll() is not None:
                    break
                self.assertLess(time.monotonic(), deadline, "crash_writer acknowledged nothing")
                time.sleep(0.01)
            if run.proc.poll() is not None:
                self.fail("crash_writer exited early: %r" % run.proc.stderr.read())
            time.sleep(self.rng.uniform(0.3, 1.5))
        finally:
            acked, status, stderr = run.kill_and_collect()
        self.assertEqual(status, -signal.SIGKILL, "crash_writer was not killed: " + stderr)
        self.assertEqual(run.bad_lines, [], "unexpected crash_writer output")
        self.assertEqual(stderr, "", "crash_writer reported an error")
        self.assertGreaterEqual(len(acked), 3)
        self.assertEqual(acked, list(range(start_batch, start_batch + len(acked))),
                         "ACKs are not consecutive batch ids")
        return acked

    def check_with_cli(self, acked_batches):
        """The real binary (the first to open the crashed file) sees sampled batches whole."""
        sample = {min(acked_batches), max(acked_batches)}
        sample.update(self.rng.sample(sorted(acked_batches), min(5, len(acked_batches))))
        for b in sorted(sample):
            r = engram(self.db, "list", "--user", USER, "--tag", "batch-%d" % b, "--json",
                       "--limit", "1000", key_file=self.key_file)
            self.assertEqual(r.returncode, 0, r.stderr.decode())
            page = json.loads(r.stdout)
            self.assertIsNone(page["next_cursor"])
            contents = sorted(m["content"] for m in page["results"])
            expected = sorted("batch %d item %d" % (b, i) for i in range(BATCH_SIZE))
            self.assertEqual(contents, expected, "acknowledged batch %d incomplete via CLI" % b)
            for m in page["memories"]:
                self.assertEqual(m["tags"], ["batch-%d" % b])
                self.assertEqual(m["user_id"], USER)
                self.assertEqual(m["status"], "active")

    def plain_copy(self):
        """The database as SQL can read it: itself, or a decrypted copy of the crashed files."""
        return self.db

    def check_with_sqlite(self, all_acked, in_flight):
        """Integrity, durability of every ACK, and all-or-nothing batches, straight from SQL."""
        conn = sqlite3.connect(self.plain_copy())
        try:
            self.assertEqual(conn.execute("PRAGMA integrity_check").fetchall(), [("ok",)])
            self.assertEqual(conn.execute("PRAGMA foreign_key_check").fetchall(), [])

            # Count per batch, in SQL: content is "batch <b> item <i>".
            counts = dict(conn.execute(
                "SELECT CAST(substr(content, 7, instr(substr(content, 7), ' ') - 1) AS INTEGER),"
                "       count(DISTINCT content) FROM items GROUP BY 1").fetchall())
            for b in all_acked:
                self.assertEqual(counts.get(b, 0), BATCH_SIZE,
                                 "acknowledged batch %d has %d of %d items" %
                                 (b, counts.get(b, 0), BATCH_SIZE))

            # Exact item sets, and one ADD history row per item.
            per_batch = {}
            rows = conn.execute(
                "SELECT i.content, i.tags, count(h.seq), sum(h.event = 'ADD') FROM items i "
                "LEFT JOIN item_history h ON h.item_seq = i.seq GROUP BY i.seq").fetchall()
            for content, tags, n_history, n_add in rows:
                m = CONTENT_RE.match(content)
                self.assertIsNotNone(m, "unexpected content %r" % content)
                b, i = int(m.group(1)), int(m.group(2))
                self.assertEqual(json.loads(tags), ["batch-%d" % b])
                self.assertEqual((n_history, n_add), (1, 1), "history of %r" % content)
                per_batch.setdefault(b, []).append(i)
            allowed = set(all_acked) | set(in_flight)
            for b, items in per_batch.items():
                self.assertIn(b, allowed, "batch %d is stored but was never written or acked" % b)
                self.assertEqual(sorted(items), list(range(BATCH_SIZE)),
                                 "batch %d is half-written (%d of %d items)" %
                                 (b, len(items), BATCH_SIZE))
            self.assertEqual(conn.execute("SELECT count(*) FROM scopes").fetchone()[0], 1)
            return per_batch
        finally:
            conn.close()

    def test_acknowledged_batches_survive_sigkill_and_batches_are_atomic(self):
        all_acked = []
        in_flight = []
        start = 0
        started = time.monotonic()
        for cycle in range(CYCLES):
            acked = self.run_until_killed(start)
            # The batch that was being written at the kill may or may not have committed.
            in_flight.append(acked[-1] + 1)
            all_acked.extend(acked)
            print("cycle %d: batches %d..%d acknowledged before SIGKILL" %
                  (cycle, acked[0], acked[-1]), file=sys.stderr)
            self.check_with_cli(acked)
            stored = self.check_with_sqlite(all_acked, in_flight)
            # Continue after every id used so far, committed or not.
            start = max(max(stored), in_flight[-1]) + 1
        # The database still takes writes after the crashes, through the real binary.
        r = engram(self.db, "add", "--no-infer", "after the crashes", "--user", USER, "--json",
                   key_file=self.key_file)
        self.assertEqual(r.returncode, 0, r.stderr.decode())
        added = json.loads(r.stdout)
        r = engram(self.db, "get", added["id"], "--user", USER, "--json", key_file=self.key_file)
        self.assertEqual(r.returncode, 0, r.stderr.decode())
        self.assertEqual(json.loads(r.stdout)["content"], "after the crashes")
        self.assertLess(time.monotonic() - started, 60)


class EncryptedCrashDurabilityTest(CrashDurabilityTest):
    """The same with encryption at rest: the sealing VFS must recover the WAL a SIGKILL left
    (a torn last frame fails authentication and reads as the log's end), and the files hold no
    plaintext. SQL checks run on a decrypted copy (`engram rekey --decrypt`)."""

    def setUp(self):
        super().setUp()
        self.key_file = os.path.join(self._tmp.name, "crash.key")
        r = subprocess.run([ENGRAM, "keygen", self.key_file], capture_output=True, timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr)

    def plain_copy(self):
        import shutil
        copy_dir = tempfile.mkdtemp(dir=self._tmp.name)
        copy = os.path.join(copy_dir, "crash.db")
        for suffix in ("", "-wal", "-shm"):
            if os.path.exists(self.db + suffix):
                shutil.copyfile(self.db + suffix, copy + suffix)
        for suffix in ("", "-wal"):
            if os.path.exists(self.db + suffix):
                with open(self.db + suffix, "rb") as f:
                    self.assertNotIn(b"batch 0 item", f.read(), "plaintext in " + suffix)
        r = engram(copy, "rekey", "--decrypt", key_file=self.key_file)
        self.assertEqual(r.returncode, 0, r.stderr.decode())
        return copy


def main():
    global ENGRAM, CRASH_WRITER
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--engram", required=True)
    parser.add_argument("--crash-writer", required=True)
    args, rest = parser.parse_known_args()
    ENGRAM = os.path.abspath(args.engram)
    CRASH_WRITER = os.path.abspath(args.crash_writer)
    unittest.main(argv=[sys.argv[0]] + rest, verbosity=2)


if __name__ == "__main__":
    main()
