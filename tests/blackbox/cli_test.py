#!/usr/bin/env python3
"""Black-box tests of the `engram` command line: each test runs the real binary.

Every test works on fresh databases in its own temporary directory. The CLI's exit codes:
0 ok, 1 internal or I/O error, 2 usage error or invalid input, 3 not found, 4 conflict,
5 import rejected some lines.

`add TEXT` runs the write path (the turn kept, memories extracted: DefaultWritePathTest);
`add --no-infer TEXT` stores TEXT exactly as given, which is what most tests here need (the
`add` shorthand).

Usage: cli_test.py --engram PATH --crash-writer PATH [unittest options]
"""

import argparse
import base64
import json
import os
import re
import sqlite3
import struct
import subprocess
import sys
import tempfile
import unittest

ENGRAM = None

EXIT_OK, EXIT_INTERNAL, EXIT_USAGE, EXIT_NOT_FOUND, EXIT_CONFLICT, EXIT_DATA = 0, 1, 2, 3, 4, 5

UUID_RE = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")
TIME_RE = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")


class Run:
    """The outcome of one `engram` invocation."""

    def __init__(self, cmd, proc):
        self.cmd = cmd
        self.code = proc.returncode
        self.stdout = proc.stdout
        self.stderr = proc.stderr
        self.out = proc.stdout.decode("utf-8", "replace")
        self.err = proc.stderr.decode("utf-8", "replace")

    def json(self):
        return json.loads(self.out)

    def describe(self):
        return "command %r exited %d\nstdout: %s\nstderr: %s" % (
            self.cmd, self.code, self.out[:2000], self.err[:2000])


def run_engram(args, db=None, user=None, tenant=None, as_json=False, stdin=b"", env=None):
    """Runs engram with a clean environment (no ENGRAM_* variables unless given in env)."""
    cmd = [ENGRAM]
    if db is not None:
        cmd += ["--db", db]
    if tenant is not None:
        cmd += ["--tenant", tenant]
    if user is not None:
        cmd += ["--user", user]
    if as_json:
        cmd.append("--json")
    cmd += list(args)
    full_env = {k: v for k, v in os.environ.items() if not k.startswith("ENGRAM_")
                or k == "ENGRAM_CHECK_STORAGE"}  # the suite's storage checks stay on
    full_env.update(env or {})
    if isinstance(stdin, str):
        stdin = stdin.encode("utf-8")
    proc = subprocess.run(cmd, input=stdin, capture_output=True, env=full_env, timeout=60)
    return Run(cmd, proc)


class EngramTestCase(unittest.TestCase):
    """Gives each test a temporary directory and a database path inside it."""

    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory(prefix="engram-cli-")
        self.dir = self._tmp.name
        self.db = os.path.join(self.dir, "engram.db")

    def tearDown(self):
        self._tmp.cleanup()

    def path(self, name):
        return os.path.join(self.dir, name)

    # --- running the binary ---

    def cli(self, *args, user="alice", db=None, **kw):
        return run_engram(args, db=db or self.db, user=user, **kw)

    def ok(self, *args, **kw):
        r = self.cli(*args, **kw)
        self.assertEqual(r.code, EXIT_OK, r.describe())
        return r

    def ok_json(self, *args, **kw):
        r = self.ok(*args, as_json=True, **kw)
        try:
            return r.json()
        except ValueError as e:
            self.fail("stdout is not JSON (%s): %s" % (e, r.describe()))

    def fails(self, code, *args, **kw):
        r = self.cli(*args, **kw)
        self.assertEqual(r.code, code, r.describe())
        self.assertNotEqual(r.err.strip(), "", "an error must be explained on stderr")
        return r

    def fails_json(self, code, error_code, *args, **kw):
        """Runs with --json; asserts the exit code and the JSON error body on stderr."""
        r = self.fails(code, *args, as_json=True, **kw)
        self.assertEqual(r.out, "", "nothing on stdout when a command fails")
        try:
            body = json.loads(r.err)
        except ValueError as e:
            self.fail("stderr is not a JSON error body (%s): %s" % (e, r.describe()))
        self.assertEqual(set(body), {"error"})
        self.assertEqual(set(body["error"]), {"code", "message"})
        self.assertEqual(body["error"]["code"], error_code)
        self.assertIsInstance(body["error"]["message"], str)
        self.assertNotEqual(body["error"]["message"], "")
        return body["error"]["message"]

    # --- shorthands ---

    def add(self, content, *flags, **kw):
        """Stores content exactly as given (`add --no-infer`) and returns the stored item."""
        item = self.ok_json("add", "--no-infer", content, *flags, **kw)
        self.assertRegex(item["id"], UUID_RE)
        self.assertEqual(item["content"], content)
        return item

    def get(self, item_id, **kw):
        return self.ok_json("get", item_id, **kw)

    def history(self, item_id, **kw):
        return self.ok_json("history", item_id, **kw)["history"]

    def list_page(self, *flags, **kw):
        page = self.ok_json("list", *flags, **kw)
        # `results` as GET /v1/memories names it; `memories` is the deprecated old key, the
        # same list, kept for one release.
        self.assertEqual(set(page), {"results", "next_cursor", "memories"})
        self.assertEqual(page["memories"], page["results"])
        return page

    def list_contents(self, *flags, **kw):
        page = self.list_page("--limit", "1000", *flags, **kw)
        self.assertIsNone(page["next_cursor"])
        return [m["content"] for m in page["results"]]

    def count_all(self, **kw):
        return len(self.list_contents("--status", "all", **kw))


# ------------------------------------------------------------------------------------------
# add / get
# ------------------------------------------------------------------------------------------

class AddGetTest(EngramTestCase):

    def test_add_with_every_flag_stores_every_field(self):
        item = self.add(
            "prefers green tea", "--type", "preference", "--tier", "episodic",
            "--tag", "drink,morning", "--tag", "tea", "--entity", "Alice", "--entity", "Green Tea",
            "--metadata", '{"source":"chat","nested":{"a":[1,2]}}', "--meta", "n=3",
            "--meta", "lang=en", "--meta", 'quoted="7"', "--meta", "ratio=0.25",
            "--meta", "flag=true", "--importance", "0.9", "--confidence", "0.75",
            "--created-at", "2024-03-01T10:00:00Z", "--valid-from", "2024-02-01",
            "--valid-to", "2024-12-31T23:59:59.500+01:00", "--agent", "agent-1",
            "--session", "sess-1", "--reason", "told us")
        self.assertEqual(item["type"], "preference")
        self.assertEqual(item["tier"], "episodic")
        self.assertEqual(item["tags"], ["drink", "morning", "tea"])
        self.assertEqual(item["entities"], ["Alice", "Green Tea"])
        self.assertEqual(item["metadata"], {"source": "chat", "nested": {"a": [1, 2]}, "n": 3,
                                            "lang": "en", "quoted": "7", "ratio": 0.25,
                                            "flag": True})
        self.assertEqual(item["importance"], 0.9)
        self.assertEqual(item["confidence"], 0.75)
        self.assertEqual(item["created_at"], "2024-03-01T10:00:00.000Z")
        self.assertEqual(item["valid_from"], "2024-02-01T00:00:00.000Z")
        self.assertEqual(item["valid_to"], "2024-12-31T22:59:59.500Z")
        self.assertEqual((item["tenant"], item["user_id"]), ("default", "alice"))
        self.assertEqual((item["agent_id"], item["session_id"]), ("agent-1", "sess-1"))
        self.assertEqual(item["source"]["session_id"], "sess-1")
        self.assertEqual(item["status"], "active")
        # get returns exactly what add returned.
        self.assertEqual(self.get(item["id"]), item)
        history = self.history(item["id"])
        self.assertEqual(len(history), 1)
        self.assertEqual(history[0]["event"], "ADD")
        self.assertEqual(history[0]["new_content"], "prefers green tea")
        self.assertIsNone(history[0]["old_content"])
        self.assertEqual(history[0]["reason"], "told us")

    def test_add_defaults(self):
        item = self.add("the sky is blue")
        self.assertEqual(item["type"], "fact")
        self.assertEqual(item["tier"], "semantic")
        self.assertEqual(item["importance"], 0.5)
        self.assertEqual(item["confidence"], 1.0)
        self.assertEqual(item["tags"], [])
        self.assertEqual(item["entities"], [])
        self.assertEqual(item["metadata"], {})
        self.assertEqual(item["source"]["extractor"], "manual")
        self.assertEqual(item["tenant"], "default")
        self.assertIsNone(item["valid_to"])
        self.assertIsNone(item["supersedes"])
        self.assertRegex(item["created_at"], TIME_RE)
        self.assertEqual(item["valid_from"], item["created_at"])
        # The tier follows the type when not given.
        self.assertEqual(self.add("went hiking", "--type", "event")["tier"], "episodic")
        self.assertEqual(self.add("a summary", "--type", "summary")["tier"], "episodic")
        self.assertEqual(self.add("TCP is reliable", "--type", "knowledge")["tier"], "knowledge")
        self.assertEqual(self.add("likes jazz", "--type", "preference")["tier"], "semantic")

    def test_add_text_output_and_get_text_output(self):
        # As given: one line naming the stored item.
        r = self.ok("add", "--no-infer", "plain text output")
        m = re.fullmatch(r"added (\S+)\n", r.out)
        self.assertIsNotNone(m, r.out)
        item_id = m.group(1)
        self.assertRegex(item_id, UUID_RE)
        r = self.ok("get", item_id)
        self.assertIn(item_id, r.out)
        self.assertIn("plain text output", r.out)
        self.assertIn("active", r.out)
        # The default write path: one line per write, the kept turn first, then what was
        # extracted from it with its decision and type.
        r = self.ok("add", "I'm allergic to peanuts")
        lines = r.out.splitlines()
        self.assertEqual(len(lines), 2, r.out)
        turn = re.fullmatch(r"TURN (\S+)  I'm allergic to peanuts", lines[0])
        self.assertIsNotNone(turn, r.out)
        fact = re.fullmatch(r"ADD (\S+)  \[fact\] (User .*peanut.*)", lines[1])
        self.assertIsNotNone(fact, r.out)
        for written in (turn.group(1), fact.group(1)):
            self.assertRegex(written, UUID_RE)
        r = self.ok("get", fact.group(1))
        self.assertIn(fact.group(2), r.out)
        r = self.ok("get", turn.group(1))
        self.assertIn("I'm allergic to peanuts", r.out)
        self.assertIn("message", r.out)
        # Chit-chat is not kept, and the output says why.
        r = self.ok("add", "thanks!")
        self.assertRegex(r.out, r"^not kept: .*chit-chat.*\n$")
        self.assertEqual(self.count_all(), 3)

    def test_add_from_stdin(self):
        text = "line one\nline two: 你好，世界 🌍\n\n"
        item = self.add_stdin(text)
        self.assertEqual(item["content"], "line one\nline two: 你好，世界 🌍")
        self.assertEqual(self.get(item["id"])["content"], "line one\nline two: 你好，世界 🌍")
        # Flags apply to stdin content too.
        item = self.add_stdin("from a pipe\n", "--type", "goal", "--tag", "piped")
        self.assertEqual((item["type"], item["tags"]), ("goal", ["piped"]))
        # Empty standard input is empty content: rejected, nothing stored.
        self.fails(EXIT_USAGE, "add", "-", stdin=b"\n")
        self.assertEqual(self.count_all(), 2)

    def add_stdin(self, text, *flags):
        item = self.ok_json("add", "--no-infer", "-", *flags, stdin=text)
        self.assertRegex(item["id"], UUID_RE)
        return item

    def test_add_invalid_input_is_rejected_and_nothing_is_stored(self):
        # Flags that only --no-infer takes.
        bad = [
            ["add", "--no-infer", "x", "--type", "bogus"],
            ["add", "--no-infer", "x", "--tier", "attic"],
            ["add", "--no-infer", "x", "--confidence", "-0.1"],
            ["add", "--no-infer", "x", "--valid-from", "2024-13-45"],
            ["add", "--no-infer", "x", "--valid-from", "2024-02-01", "--valid-to", "2024-01-01"],
            ["add", "--no-infer", "x", "--entity", ""],
        ]
        # Input both paths take: rejected with and without extraction, for its own reason.
        for extra in ([], ["--no-infer"]):
            bad += [
                ["add", *extra, "x", "--importance", "1.5"],
                ["add", *extra, "x", "--metadata", "[1,2]"],
                ["add", *extra, "x", "--metadata", "{not json"],
                ["add", *extra, "x", "--meta", "novalue"],
                ["add", *extra, "x", "--meta", "=3"],
                ["add", *extra, "x", "--created-at", "yesterday"],
                ["add", *extra, ""],
                ["add", *extra, "x", "--tag", "ok", "--tag", ""],
            ]
        for args in bad:
            with self.subTest(args=args):
                r = self.fails(EXIT_USAGE, *args)
                self.assertNotIn("--no-infer", r.err)
        # Usage errors: no text, no user, unknown flag, unknown subcommand, no subcommand.
        self.fails(EXIT_USAGE, "add")
        self.fails(EXIT_USAGE, "add", "--no-infer")
        self.fails(EXIT_USAGE, "add", "x", user=None)
        self.fails(EXIT_USAGE, "add", "--no-infer", "x", user=None)
        self.fails(EXIT_USAGE, "add", "x", "--no-such-flag")
        self.fails(EXIT_USAGE, "frobnicate")
        self.fails(EXIT_USAGE, user=None)
        self.assertEqual(self.count_all(), 0)

    def test_invalid_utf8_content_is_rejected_and_not_stored(self):
        for extra in ([], ["--no-infer"]):
            with self.subTest(flags=extra):
                r = self.fails(EXIT_USAGE, "add", *extra, "-", stdin=b"caf\xc3 au lait\xff\n")
                self.assertIn("UTF-8", r.err)
                r = self.fails(EXIT_USAGE, "add", *extra, "-", stdin=b"\xed\xa0\x80 surrogate")
                self.assertIn("UTF-8", r.err)
                r = self.fails(EXIT_USAGE, "add", *extra, b"overlong \xc0\xaf")
                self.assertIn("UTF-8", r.err)
        self.assertEqual(self.count_all(), 0)
        conn = sqlite3.connect(self.db)
        try:
            self.assertEqual(conn.execute("SELECT count(*) FROM items").fetchone()[0], 0)
        finally:
            conn.close()

    def test_oversize_content_is_rejected_with_the_limit_named(self):
        for extra in ([], ["--no-infer"]):
            r = self.fails(EXIT_USAGE, "--max-content-bytes", "100", "add", *extra, "a" * 101)
            self.assertIn("100", r.err)
            self.assertIn("limit", r.err)
        self.add("b" * 100, "--max-content-bytes", "100")
        # The limit counts bytes: 34 CJK characters are 102 bytes.
        self.fails(EXIT_USAGE, "--max-content-bytes", "100", "add", "字" * 34)
        self.fails(EXIT_USAGE, "--max-content-bytes", "100", "add", "--no-infer", "字" * 34)
        # The same limit from the environment, for argument and standard-input content.
        env = {"ENGRAM_MAX_CONTENT_BYTES": "100"}
        r = self.fails(EXIT_USAGE, "add", "c" * 101, env=env)
        self.assertIn("100", r.err)
        r = self.fails(EXIT_USAGE, "add", "-", stdin="d" * 101 + "\n", env=env)
        self.assertIn("100", r.err)
        self.add("e" * 100, env=env)
        # The default limit is 16 KiB.
        r = self.fails(EXIT_USAGE, "add", "-", stdin="f" * 16385)
        self.assertIn("16384", r.err)
        self.add_stdin("g" * 16384)
        # A limit that is not a positive integer is a usage error.
        self.fails(EXIT_USAGE, "add", "x", env={"ENGRAM_MAX_CONTENT_BYTES": "lots"})
        self.fails(EXIT_USAGE, "--max-content-bytes", "0", "add", "x")
        # Updates obey the limit too.
        item = self.add("short")
        self.fails(EXIT_USAGE, "--max-content-bytes", "100", "update", item["id"],
                   "--content", "h" * 101)
        self.assertEqual(self.get(item["id"])["content"], "short")
        self.assertEqual(sorted(self.list_contents()),
                         sorted(["b" * 100, "e" * 100, "g" * 16384, "short"]))

    def test_get_errors(self):
        self.add("something")
        self.fails(EXIT_NOT_FOUND, "get", "01234567-89ab-7def-8123-456789abcdef")
        self.fails(EXIT_USAGE, "get", "not a valid id!")
        self.fails(EXIT_USAGE, "get")
        self.fails(EXIT_USAGE, "get", "01234567-89ab-7def-8123-456789abcdef", user=None)


class DefaultWritePathTest(EngramTestCase):
    """`add` without --no-infer: the user's turn is kept and memories are extracted from it."""

    def remember(self, text, *args, **kw):
        body = self.ok_json(*args, "add", text, **kw)
        self.assertEqual(set(body), {"results", "skipped", "extractor", "extraction_errors"})
        self.assertEqual(body["extractor"], "rules-v2")
        self.assertEqual(body["extraction_errors"], [])
        for w in body["results"]:
            self.assertRegex(w["id"], UUID_RE)
            self.assertEqual(w["memory"]["id"], w["id"])
        return body

    def test_turn_kept_and_fact_extracted_and_linked(self):
        body = self.remember("I'm allergic to peanuts")
        self.assertEqual(body["skipped"], [])
        self.assertEqual([(w["kind"], w["event"]) for w in body["results"]],
                         [("turn", "ADD"), ("memory", "ADD")])
        turn, fact = body["results"]
        self.assertEqual(turn["memory"]["content"], "I'm allergic to peanuts")
        self.assertEqual((turn["memory"]["type"], turn["memory"]["tier"]), ("message", "episodic"))
        self.assertEqual(turn["memory"]["source"]["extractor"], "turn")
        self.assertEqual(turn["memory"]["source"]["role"], "user")
        self.assertIn("peanut", fact["memory"]["content"].lower())
        self.assertNotEqual(fact["memory"]["content"], "I'm allergic to peanuts")
        self.assertEqual(fact["memory"]["source"]["extractor"], "rules-v2")
        self.assertNotIn("replaced", fact)
        # Linked both ways, in the response and in what is stored.
        self.assertEqual(fact["memory"]["source"]["turn_ids"], [turn["id"]])
        self.assertEqual(turn["memory"]["derived_ids"], [fact["id"]])
        self.assertEqual(self.get(fact["id"])["source"]["turn_ids"], [turn["id"]])
        self.assertEqual(self.get(turn["id"])["derived_ids"], [fact["id"]])
        self.assertEqual(sorted(m["id"] for m in self.list_page()["results"]),
                         sorted([turn["id"], fact["id"]]))
        self.assertEqual([h["event"] for h in self.history(fact["id"])], ["ADD"])

    def test_chit_chat_stores_nothing(self):
        body = self.remember("thanks!")
        self.assertEqual(body["results"], [])
        self.assertEqual(len(body["skipped"]), 1)
        self.assertEqual(body["skipped"][0]["message"], 0)
        self.assertIn("chit-chat", body["skipped"][0]["reason"])
        self.assertEqual(self.count_all(), 0)

    def test_as_given_flags_need_no_infer(self):
        msg = self.fails_json(EXIT_USAGE, "invalid_argument", "add", "x", "--type", "fact")
        self.assertIn("--no-infer", msg)
        r = self.fails(EXIT_USAGE, "add", "x", "--type", "fact")
        self.assertIn("--no-infer", r.err)
        for flags in (["--tier", "semantic"], ["--entity", "Oslo"], ["--confidence", "0.5"],
                      ["--valid-from", "2024-01-01"], ["--valid-to", "2030-01-01"],
                      ["--reason", "because"]):
            with self.subTest(flags=flags):
                r = self.fails(EXIT_USAGE, "add", "I live in Oslo", *flags)
                self.assertIn("--no-infer", r.err)
                self.assertIn(flags[0], r.err)
        self.assertFalse(os.path.exists(self.db), "a refused add must not even create the database")
        # With --no-infer the same flags are taken and the text is stored as given.
        item = self.add("x", "--type", "fact")
        self.assertEqual(item["source"]["extractor"], "manual")
        self.assertEqual(self.list_contents(), ["x"])

    def test_keep_turns_false_stores_only_the_memory(self):
        body = self.remember("I live in Oslo", "--keep-turns", "false")
        self.assertEqual([(w["kind"], w["event"]) for w in body["results"]], [("memory", "ADD")])
        fact = body["results"][0]["memory"]
        self.assertIn("Oslo", fact["content"])
        self.assertEqual(fact["source"]["turn_ids"], [])
        self.assertEqual(self.list_contents("--status", "all"), [fact["content"]])
        self.assertEqual(self.list_contents("--type", "message", "--status", "all"), [])

    def test_a_later_fact_supersedes_the_earlier_one(self):
        first = self.remember("I live in Oslo")["results"][1]
        second = self.remember("I live in Bergen")["results"]
        self.assertEqual([(w["kind"], w["event"]) for w in second],
                         [("turn", "ADD"), ("memory", "SUPERSEDE")])
        new = second[1]
        self.assertIn("Bergen", new["memory"]["content"])
        self.assertEqual(new["replaced"]["id"], first["id"])
        self.assertEqual(new["memory"]["supersedes"], first["id"])
        old = self.get(first["id"])
        self.assertEqual((old["status"], old["superseded_by"]), ("superseded", new["id"]))

    def test_remember_is_add_with_extraction(self):
        r = self.ok("remember", "My sister is called Anna")
        lines = r.out.splitlines()
        self.assertEqual(len(lines), 2, r.out)
        self.assertRegex(lines[0], r"^TURN \S+  My sister is called Anna$")
        self.assertRegex(lines[1], r"^ADD \S+  \[fact\] .*Anna")
        body = self.ok_json("remember", "thanks!")
        self.assertEqual(body["results"], [])
        self.assertIn("chit-chat", body["skipped"][0]["reason"])
        self.fails(EXIT_USAGE, "remember", "x", "--type", "fact")
        self.assertEqual(self.count_all(), 2)

    def test_extract_jsonl_reads_content_and_the_deprecated_text(self):
        lines = "\n".join(json.dumps(o) for o in [
            {"content": "My sister is called Anna", "at": "2026-05-04T10:00:00Z"},
            {"text": "My sister is called Anna"},
            {"text": "a", "content": "b"},
            {"message": "no content here"},
        ]) + "\n"
        r = self.cli("extract", "--jsonl", as_json=True, stdin=lines)
        self.assertEqual(r.code, EXIT_DATA, r.describe())
        out = [json.loads(line) for line in r.out.splitlines()]
        self.assertEqual(len(out), 4, r.out)
        self.assertTrue(any("Anna" in m["content"] for m in out[0]["memories"]), out[0])
        self.assertNotIn("warnings", out[0])
        self.assertEqual([m["content"] for m in out[1]["memories"]],
                         [m["content"] for m in out[0]["memories"]])
        self.assertIn("deprecated", out[1]["warnings"][0])
        self.assertEqual(out[2]["error"]["code"], "invalid_argument")
        self.assertIn("line 3", out[2]["error"]["message"])
        self.assertIn('"content"', out[3]["error"]["message"])
        self.assertFalse(os.path.exists(self.db), "extract stores nothing")


class LifecycleTest(EngramTestCase):
    """expires_at on add and update, and `engram maintain` (dry run, log, flags)."""

    def test_expiry_and_maintain(self):
        gone = self.add("wants noodles for lunch", "--type", "preference",
                        "--created-at", "2026-02-10T08:00:00Z",
                        "--expires-at", "2026-02-10T16:00:00Z")
        kept = self.add("likes noodles", "--type", "preference")
        self.assertEqual(gone["expires_at"], "2026-02-10T16:00:00.000Z")
        self.assertIn("expires     2026-02-10T16:00:00.000Z", self.ok("get", gone["id"]).out)
        found = self.ok_json("search", "noodles")["results"]
        self.assertEqual([h["id"] for h in found], [kept["id"]])
        r = self.ok("maintain", "--dry-run", user=None)
        self.assertIn("default/alice: would archive 0, would expire 1, would purge 0, "
                      "would merge 0", r.out)
        self.assertIn("expire    " + gone["id"] + "  wants noodles for lunch", r.out)
        self.assertIn("expired at 2026-02-10T16:00:00.000Z", r.out)
        self.assertIn("nothing was changed", r.out)
        self.assertEqual(self.get(gone["id"])["status"], "active")
        report = self.ok_json("maintain", user=None)
        self.assertEqual((report["expired"], report["examined"]), (1, 2))
        self.assertEqual(self.get(gone["id"])["status"], "archived")
        log = self.ok_json("maintain", "--log")["results"]
        self.assertEqual([(e["id"], e["action"]) for e in log], [(gone["id"], "expire")])
        self.assertIn("expire  " + gone["id"], self.ok("maintain", "--log").out)
        self.assertEqual(self.ok_json("maintain", user=None)["examined"], 0)  # incremental
        self.assertEqual(self.ok_json("maintain", "--full", user=None)["examined"], 2)
        updated = self.ok_json("update", kept["id"], "--expires-at", "2099-05-01T00:00:00Z")
        self.assertEqual(updated["expires_at"], "2099-05-01T00:00:00.000Z")
        updated = self.ok_json("update", kept["id"], "--clear-expires-at")
        self.assertIsNone(updated["expires_at"])

    def test_profile_and_recall(self):
        for said in ["我对花粉过敏", "我老婆叫小美", "I work as a nurse"]:
            self.ok("add", said)
        r = self.ok("profile")
        self.assertIn("health\n  用户对花粉过敏  [", r.out)
        self.assertIn("work\n  User works as a nurse  [", r.out)
        body = self.ok_json("profile")
        self.assertEqual({s["kind"] for s in body["sections"]}, {"health", "family", "work"})
        r = self.ok("recall", "我明天要去爬山")
        self.assertIn("用户对花粉过敏", r.out)
        self.assertIn("outdoors: an outdoor allergy", r.out)
        hits = self.ok_json("recall", "帮我订个周五的位子", "两个人")["results"]
        self.assertIn("用户的老婆叫小美", [h["memory"]["content"] for h in hits])
        self.assertEqual(self.ok("recall", "路由器怎么重置").out, "(nothing worth raising)\n")
        self.assertEqual(self.ok_json("recall", "路由器怎么重置")["results"], [])
        self.fails(EXIT_USAGE, "recall", "x", "-k", "0")
        self.fails(EXIT_USAGE, "recall")  # no turns
        self.fails(EXIT_USAGE, "profile", user=None)

    def test_bad_lifecycle_input_is_refused(self):
        item = self.add("a fact")
        self.fails(EXIT_USAGE, "add", "--no-infer", "x", "--created-at", "2026-02-10T08:00:00Z",
                   "--expires-at", "2026-02-09T08:00:00Z")
        self.fails(EXIT_USAGE, "add", "x", "--expires-at", "2026-02-09T08:00:00Z")  # infer
        self.fails(EXIT_USAGE, "update", item["id"], "--expires-at", "tomorrow")
        self.fails(EXIT_USAGE, "--half-life", "fact=-1", "maintain", user=None)
        self.fails(EXIT_USAGE, "--half-life", "gossip=3", "maintain", user=None)
        self.fails(EXIT_USAGE, "--archive-below", "2", "maintain", user=None)
        self.fails(EXIT_USAGE, "--promote-heat", "-1", "maintain", user=None)
        self.fails(EXIT_USAGE, "--summarize-at-least", "many", "maintain", user=None)
        self.fails(EXIT_USAGE, "maintain", "--log", user=None)  # the log is a user's
        self.fails(EXIT_NOT_FOUND, "maintain", user=None, db=self.path("missing.db"))
        self.assertFalse(os.path.exists(self.path("missing.db")))
        self.assertEqual(self.count_all(), 1)

    def test_half_life_and_threshold_flags_change_what_is_archived(self):
        old = self.add("talked about the weather", "--type", "message", "--importance", "0")
        # Judged as of now: just stored, so retention is its strength (0.5); a threshold above
        # it archives the memory at once, the default (0.05) does not.
        self.assertEqual(self.ok_json("maintain", "--dry-run", user=None)["archived"], 0)
        dry = self.ok_json("--archive-below", "0.6", "maintain", "--dry-run", user=None)
        self.assertEqual(dry["archived"], 1)
        self.assertIn("half-life 30 days", dry["actions"][0]["reason"])
        dry = self.ok_json("--archive-below", "0.6", "--half-life", "message=2",
                           "maintain", "--dry-run", user=None)
        self.assertIn("half-life 2.0 days", dry["actions"][0]["reason"])
        self.assertEqual(self.get(old["id"])["status"], "active")


# ------------------------------------------------------------------------------------------
# list
# ------------------------------------------------------------------------------------------

class ListFilterTest(EngramTestCase):
    """A fixed set of items, then every filter of `list`."""

    @classmethod
    def setUpClass(cls):
        cls._class_tmp = tempfile.TemporaryDirectory(prefix="engram-list-")
        cls.shared_db = os.path.join(cls._class_tmp.name, "list.db")

        def add(content, *flags):
            r = run_engram(["add", "--no-infer", content, *flags], db=cls.shared_db, user="alice",
                           as_json=True)
            assert r.code == 0, r.describe()
            return r.json()["id"]

        cls.ids = {
            "L1": add("coffee in the morning", "--type", "preference", "--tag", "drink,morning",
                      "--meta", "lang=en", "--meta", "n=3", "--created-at", "2024-01-01"),
            "L2": add("met Bob at a conference", "--type", "event", "--tag", "work",
                      "--meta", "lang=de", "--meta", "n=4", "--created-at", "2024-02-01"),
            "L3": add("knows Python", "--type", "skill", "--tier", "knowledge",
                      "--tag", "work", "--tag", "morning", "--meta", "lang=en",
                      "--meta", 'n="3"', "--created-at", "2024-03-01T00:00:00Z"),
            "L4": add("run a marathon", "--type", "goal", "--tag", "drink",
                      "--meta", "flag=true", "--created-at", "2024-04-01"),
            "L5": add("lives in Paris", "--created-at", "2024-05-01", "--meta", "lang=en"),
            "L6": add("我喜欢喝茶", "--type", "preference", "--tag", "drink,中文",
                      "--meta", "lang=zh", "--meta", "n=3.5", "--created-at", "2024-06-01"),
        }
        other = [["update", cls.ids["L4"], "--status", "archived"], ["delete", cls.ids["L5"]]]
        for args in other:
            r = run_engram(args, db=cls.shared_db, user="alice")
            assert r.code == 0, r.describe()
        cls.by_id = {v: k for k, v in cls.ids.items()}

    @classmethod
    def tearDownClass(cls):
        cls._class_tmp.cleanup()

    def names(self, *flags):
        page = self.list_page("--limit", "1000", *flags, db=self.shared_db)
        self.assertIsNone(page["next_cursor"])
        return [self.by_id[m["id"]] for m in page["results"]]

    def test_default_lists_active_newest_first(self):
        self.assertEqual(self.names(), ["L6", "L3", "L2", "L1"])

    def test_type_filter(self):
        self.assertEqual(self.names("--type", "preference"), ["L6", "L1"])
        self.assertEqual(self.names("--type", "preference,event"), ["L6", "L2", "L1"])
        self.assertEqual(self.names("--type", "event", "--type", "skill"), ["L3", "L2"])
        self.assertEqual(self.names("--type", "summary"), [])
        self.assertEqual(self.names("-t", "goal", "--status", "all"), ["L4"])

    def test_tier_filter(self):
        self.assertEqual(self.names("--tier", "episodic"), ["L2"])
        self.assertEqual(self.names("--tier", "knowledge"), ["L3"])
        self.assertEqual(self.names("--tier", "semantic"), ["L6", "L1"])
        self.assertEqual(self.names("--tier", "semantic", "--status", "all"),
                         ["L6", "L5", "L4", "L1"])
        self.assertEqual(self.names("--tier", "working"), [])

    def test_status_filter(self):
        self.assertEqual(self.names("--status", "active"), ["L6", "L3", "L2", "L1"])
        self.assertEqual(self.names("--status", "archived"), ["L4"])
        self.assertEqual(self.names("--status", "deleted"), ["L5"])
        self.assertEqual(self.names("--status", "superseded"), [])
        self.assertEqual(self.names("--status", "all"), ["L6", "L5", "L4", "L3", "L2", "L1"])
        self.assertEqual(self.names("--status", "active,archived"), ["L6", "L4", "L3", "L2", "L1"])
        self.assertEqual(self.names("--status", "deleted", "--status", "archived"), ["L5", "L4"])

    def test_time_filters(self):
        # --after is inclusive, --before exclusive.
        self.assertEqual(self.names("--after", "2024-03-01"), ["L6", "L3"])
        self.assertEqual(self.names("--before", "2024-03-01T00:00:00Z"), ["L2", "L1"])
        self.assertEqual(self.names("--after", "2024-02-01", "--before", "2024-06-01",
                                    "--status", "all"), ["L5", "L4", "L3", "L2"])
        # A UTC offset is honoured: 01:00+02:00 is 23:00 UTC the day before.
        self.assertEqual(self.names("--after", "2024-03-01T01:00:00+02:00"), ["L6", "L3"])
        self.assertEqual(self.names("--after", "2024-03-01T00:00:00.001Z"), ["L6"])
        self.assertEqual(self.names("--before", "2024-01-01"), [])

    def test_tag_filter(self):
        self.assertEqual(self.names("--tag", "drink"), ["L6", "L1"])
        self.assertEqual(self.names("--tag", "drink", "--status", "all"), ["L6", "L4", "L1"])
        self.assertEqual(self.names("--tag", "drink", "--tag", "morning"), ["L1"])
        self.assertEqual(self.names("--tag", "work,morning"), ["L3"])
        self.assertEqual(self.names("--tag", "中文"), ["L6"])
        self.assertEqual(self.names("--tag", "drin"), [])

    def test_metadata_filter(self):
        self.assertEqual(self.names("--meta", "lang=en"), ["L3", "L1"])
        self.assertEqual(self.names("--meta", "lang=en", "--status", "all"), ["L5", "L3", "L1"])
        # An integer matches integers only, not the string "3" nor 3.5.
        self.assertEqual(self.names("--meta", "n=3"), ["L1"])
        self.assertEqual(self.names("--meta", 'n="3"'), ["L3"])
        self.assertEqual(self.names("--meta", "n=3.5"), ["L6"])
        self.assertEqual(self.names("--meta", "n=4"), ["L2"])
        self.assertEqual(self.names("--meta", "lang=en", "--meta", "n=3"), ["L1"])
        self.assertEqual(self.names("--meta", "flag=true", "--status", "all"), ["L4"])
        self.assertEqual(self.names("--meta", "flag=false", "--status", "all"), [])
        self.assertEqual(self.names("--meta", "lang=fr"), [])
        self.assertEqual(self.names("--meta", "missing=1"), [])

    def test_filters_combine(self):
        self.assertEqual(self.names("--type", "preference", "--tag", "drink",
                                    "--meta", "lang=zh"), ["L6"])
        self.assertEqual(self.names("--tier", "semantic", "--after", "2024-02-01",
                                    "--status", "all", "--tag", "drink"), ["L6", "L4"])

    def test_text_output(self):
        r = self.ok("list", db=self.shared_db)
        lines = r.out.splitlines()
        self.assertEqual(len(lines), 4, r.out)
        self.assertTrue(lines[0].startswith(self.ids["L6"]), r.out)
        self.assertIn("我喜欢喝茶", lines[0])
        r = self.ok("list", "--status", "deleted", db=self.shared_db)
        self.assertIn("[deleted]", r.out)
        r = self.ok("list", "--tag", "nothing-has-this", db=self.shared_db)
        self.assertEqual(r.out, "(no memories)\n")
        r = self.ok("list", "--limit", "2", db=self.shared_db)
        self.assertRegex(r.out, r"\(more: --cursor \S+\)")

    def test_invalid_filters(self):
        bad = [["--type", "bogus"], ["--tier", "attic"], ["--status", "gone"],
               ["--after", "not-a-date"], ["--before", "2024-02-30T25:00"],
               ["--after", "2024-05-01", "--before", "2024-01-01"],
               ["--after", "2024-05-01", "--before", "2024-05-01"],
               ["--meta", "no-equals"], ["--meta", "bad key=1"], ["--meta", "a.b=1"],
               ["--limit", "0"], ["--limit", "1001"], ["--limit", "ten"],
               ["--cursor", "garbage"], ["--cursor", "12_x"]]
        for flags in bad:
            with self.subTest(flags=flags):
                self.fails(EXIT_USAGE, "list", *flags, db=self.shared_db)
        self.fails(EXIT_USAGE, "list", db=self.shared_db, user=None)


class PaginationTest(EngramTestCase):

    def test_cursor_pages_have_no_duplicates_or_gaps_while_items_are_added(self):
        # 14 items; groups of three share a creation time, so page boundaries (limit 4) fall
        # inside groups of equal timestamps.
        ids = []
        for i in range(14):
            minute = i // 3
            ids.append(self.add("item %02d" % i,
                                "--created-at", "2024-01-01T00:%02d:00Z" % minute)["id"])
        everything = [m["id"] for m in self.list_page("--limit", "1000")["results"]]
        self.assertEqual(sorted(everything), sorted(ids))
        self.assertEqual(len(everything), 14)

        pages, cursor, extra = [], None, []
        first_cursor, second_page = None, None
        while True:
            flags = ["--limit", "4"] + (["--cursor", cursor] if cursor else [])
            page = self.list_page(*flags)
            pages.append([m["id"] for m in page["results"]])
            if len(pages) == 1:
                first_cursor = page["next_cursor"]
            if len(pages) == 2:
                second_page = pages[-1]
            cursor = page["next_cursor"]
            if cursor is None:
                break
            self.assertLessEqual(len(pages), 10, "pagination does not end")
            # Between pages: a new item (newest), one with the same timestamp as items on the
            # page just read, and one older than everything (it belongs on the last page).
            n = len(pages)
            self.add("new between pages %d" % n)
            self.add("tie between pages %d" % n,
                     "--created-at", page["results"][-1]["created_at"])
            extra.append(self.add("old between pages %d" % n,
                                  "--created-at", "2023-01-0%dT00:00:00Z" % (10 - n))["id"])
        collected = [i for p in pages for i in p]
        self.assertEqual(len(collected), len(set(collected)), "duplicates across pages")
        self.assertEqual(collected[:14], everything, "pages skipped or reordered items")
        # The old items were added before the last page was read, newest of them first.
        self.assertEqual(collected[14:], extra)
        self.assertEqual([len(p) for p in pages[:-1]], [4] * (len(pages) - 1))
        # A cursor keeps meaning the same position: asked again after the additions, page two
        # holds the same original items, preceded only by items added at that position later.
        again = [m["id"] for m in self.list_page("--limit", "4", "--cursor", first_cursor)["results"]]
        self.assertEqual(len(again), 4)
        originals_again = [i for i in again if i in everything]
        self.assertEqual(originals_again, second_page[:len(originals_again)])
        self.assertEqual(second_page, everything[4:8])


# ------------------------------------------------------------------------------------------
# update / delete / purge / history / scopes
# ------------------------------------------------------------------------------------------

class UpdateDeleteTest(EngramTestCase):

    def test_update_content_keeps_id_and_history_keeps_old_value(self):
        item = self.add("lives in Berlin", "--tag", "home", "--meta", "city=Berlin")
        updated = self.ok_json("update", item["id"], "--content", "lives in Munich",
                               "--tag", "home,moved", "--meta", "city=Munich",
                               "--reason", "moved house")
        self.assertEqual(updated["id"], item["id"])
        self.assertEqual(updated["content"], "lives in Munich")
        self.assertEqual(updated["tags"], ["home", "moved"])
        self.assertEqual(updated["metadata"], {"city": "Munich"})
        self.assertEqual(updated["created_at"], item["created_at"])
        self.assertGreaterEqual(updated["updated_at"], item["updated_at"])
        self.assertEqual(self.get(item["id"]), updated)
        history = self.history(item["id"])
        self.assertEqual([h["event"] for h in history], ["ADD", "UPDATE"])
        self.assertLess(history[0]["seq"], history[1]["seq"])
        up = history[1]
        self.assertEqual(up["old_content"], "lives in Berlin")
        self.assertEqual(up["new_content"], "lives in Munich")
        self.assertEqual(up["reason"], "moved house")
        self.assertEqual(up["previous"]["content"], "lives in Berlin")
        self.assertEqual(up["previous"]["tags"], ["home"])
        self.assertEqual(up["previous"]["metadata"], {"city": "Berlin"})
        self.assertEqual(up["previous"], item)
        # A second update records the first update's value.
        self.ok("update", item["id"], "-c", "lives in Hamburg")
        history = self.history(item["id"])
        self.assertEqual([h["event"] for h in history], ["ADD", "UPDATE", "UPDATE"])
        self.assertEqual(history[2]["old_content"], "lives in Munich")
        self.assertEqual(history[2]["previous"], updated)
        # Text output of update and history.
        r = self.ok("update", item["id"], "--importance", "0.8")
        self.assertEqual(r.out, "updated %s\n" % item["id"])
        r = self.ok("history", item["id"])
        self.assertIn("ADD", r.out)
        self.assertIn('"lives in Berlin" -> "lives in Munich"', r.out)
        self.assertIn("reason: moved house", r.out)

    def test_update_other_fields(self):
        item = self.add("learn Rust", "--type", "goal", "--valid-to", "2030-01-01")
        upd = self.ok_json("update", item["id"], "--type", "skill", "--tier", "knowledge",
                           "--entity", "Rust", "--importance", "0.1", "--confidence", "0.2",
                           "--metadata", '{"level":"beginner"}', "--clear-valid-to")
        self.assertEqual((upd["type"], upd["tier"]), ("skill", "knowledge"))
        self.assertEqual(upd["entities"], ["Rust"])
        self.assertEqual((upd["importance"], upd["confidence"]), (0.1, 0.2))
        self.assertEqual(upd["metadata"], {"level": "beginner"})
        self.assertIsNone(upd["valid_to"])
        self.assertEqual(upd["content"], "learn Rust")
        # Archive and unarchive.
        self.assertEqual(self.ok_json("update", item["id"], "--status", "archived")["status"],
                         "archived")
        self.assertEqual(self.list_contents(), [])
        self.assertEqual(self.list_contents("--status", "archived"), ["learn Rust"])
        self.assertEqual(self.ok_json("update", item["id"], "--status", "active")["status"],
                         "active")
        self.assertEqual(self.list_contents(), ["learn Rust"])

    def test_update_without_change_records_nothing(self):
        item = self.add("unchanged", "--importance", "0.3")
        again = self.ok_json("update", item["id"], "--content", "unchanged", "--importance", "0.3")
        self.assertEqual(again, item)
        self.assertEqual(len(self.history(item["id"])), 1)

    def test_update_errors(self):
        item = self.add("original")
        bad = [["--importance", "7"], ["--content", ""], ["--status", "deleted"],
               ["--status", "superseded"], ["--status", "bogus"], ["--type", "bogus"],
               ["--metadata", "[]"], ["--valid-from", "2024-02-01", "--valid-to", "2024-01-01"],
               ["--valid-to", "2024-01-01", "--clear-valid-to"]]
        for flags in bad:
            with self.subTest(flags=flags):
                self.fails(EXIT_USAGE, "update", item["id"], *flags)
        r = self.fails(EXIT_USAGE, "update", item["id"], b"--content=bad \xff byte")
        self.assertIn("UTF-8", r.err)
        self.fails(EXIT_NOT_FOUND, "update", "01234567-89ab-7def-8123-456789abcdef",
                   "--content", "x")
        self.fails(EXIT_USAGE, "update", "bad id!", "--content", "x")
        self.fails(EXIT_USAGE, "update")
        self.assertEqual(self.get(item["id"]), item)
        self.assertEqual(len(self.history(item["id"])), 1)

    def test_soft_delete(self):
        keep = self.add("keep me")
        item = self.add("forget me", "--tag", "t")
        r = self.ok("delete", item["id"], "--reason", "user asked")
        self.assertEqual(r.out, "deleted %s\n" % item["id"])
        self.assertEqual(self.list_contents(), ["keep me"])
        deleted = self.list_page("--status", "deleted")["results"]
        self.assertEqual([m["id"] for m in deleted], [item["id"]])
        self.assertEqual(deleted[0]["content"], "forget me")
        self.assertEqual(deleted[0]["status"], "deleted")
        self.assertEqual(self.get(item["id"])["status"], "deleted")
        history = self.history(item["id"])
        self.assertEqual([h["event"] for h in history], ["ADD", "DELETE"])
        self.assertEqual(history[1]["old_content"], "forget me")
        self.assertIsNone(history[1]["new_content"])
        self.assertEqual(history[1]["reason"], "user asked")
        self.assertEqual(history[1]["previous"]["status"], "active")
        # Deleting again succeeds and records nothing.
        self.assertEqual(self.ok_json("delete", item["id"]), {"deleted": item["id"]})
        self.assertEqual(len(self.history(item["id"])), 2)
        # A deleted memory cannot be updated: conflict, and it stays as it was.
        self.fails(EXIT_CONFLICT, "update", item["id"], "--content", "revived")
        self.fails(EXIT_CONFLICT, "update", item["id"], "--status", "active")
        msg = self.fails_json(EXIT_CONFLICT, "conflict", "update", item["id"], "--importance", "1")
        self.assertIn("deleted", msg)
        self.assertEqual(self.get(item["id"])["content"], "forget me")
        self.assertEqual(self.get(item["id"])["status"], "deleted")
        self.assertEqual(len(self.history(item["id"])), 2)
        self.fails(EXIT_NOT_FOUND, "delete", "01234567-89ab-7def-8123-456789abcdef")
        self.fails(EXIT_USAGE, "delete", "bad id!")
        self.assertEqual(self.get(keep["id"])["status"], "active")

    def test_purge_one_memory_removes_every_trace(self):
        keep = self.add("keep this one")
        item = self.add("SECRET-purge-marker", "--meta", "k=SECRET-meta-marker")
        self.ok("update", item["id"], "--content", "SECRET-purge-marker v2")
        self.ok("delete", item["id"])
        r = self.ok("purge", item["id"])
        self.assertEqual(r.out, "purged %s\n" % item["id"])
        self.fails(EXIT_NOT_FOUND, "get", item["id"])
        self.fails(EXIT_NOT_FOUND, "history", item["id"])
        self.fails(EXIT_NOT_FOUND, "purge", item["id"])
        self.fails(EXIT_NOT_FOUND, "update", item["id"], "--content", "x")
        self.fails(EXIT_NOT_FOUND, "delete", item["id"])
        self.assertEqual(self.list_contents("--status", "all"), ["keep this one"])
        self.assertEqual(len(self.history(keep["id"])), 1)
        conn = sqlite3.connect(self.db)
        try:
            self.assertEqual(conn.execute("SELECT count(*) FROM items").fetchone()[0], 1)
            self.assertEqual(conn.execute("SELECT count(*) FROM item_history").fetchone()[0], 1)
        finally:
            conn.close()
        for name in os.listdir(self.dir):
            with open(self.path(name), "rb") as f:
                self.assertNotIn(b"SECRET", f.read(), "purged content left in " + name)

    def test_purge_all_memories_needs_yes(self):
        for i in range(3):
            self.add("alice %d" % i)
        self.ok("delete", self.list_page()["results"][0]["id"])
        bob = self.add("bob's", user="bob")
        r = self.fails(EXIT_USAGE, "purge", "--all-memories")
        self.assertIn("--yes", r.err)
        self.fails_json(EXIT_USAGE, "invalid_argument", "purge", "--all-memories")
        self.assertEqual(self.count_all(), 3)
        self.fails(EXIT_USAGE, "purge")  # neither an id nor --all-memories
        self.fails(EXIT_USAGE, "purge", bob["id"], "--all-memories", "--yes")  # both
        self.assertEqual(self.count_all(), 3)
        self.assertEqual(self.ok_json("purge", "--all-memories", "--yes"), {"purged": 3})
        self.assertEqual(self.count_all(), 0)
        # Other users keep their memories; alice's scope is gone from `scopes`.
        self.assertEqual(self.get(bob["id"], user="bob")["content"], "bob's")
        scopes = self.ok_json("scopes", user=None)["scopes"]
        self.assertEqual(scopes, [{"tenant": "default", "user_id": "bob", "items": 1}])
        r = self.ok("purge", "--all-memories", "--yes", user="bob")
        self.assertEqual(r.out, "purged 1 memories of user bob\n")
        # Purging an empty scope is fine.
        self.assertEqual(self.ok_json("purge", "--all-memories", "--yes", user="nobody"),
                         {"purged": 0})
        self.assertEqual(self.ok_json("scopes", user=None)["scopes"], [])

    def test_history_errors(self):
        self.add("the database exists")  # else every read is refused as not found
        self.fails(EXIT_NOT_FOUND, "history", "01234567-89ab-7def-8123-456789abcdef")
        self.fails(EXIT_USAGE, "history", "bad id!")
        self.fails(EXIT_USAGE, "history")

    def test_scopes(self):
        self.add("a1", user="alice")
        self.add("a2", user="alice")
        self.ok("delete", self.add("a3", user="alice")["id"])
        self.add("b1", user="bob")
        self.add("t1 alice", user="alice", tenant="t1")
        self.add("t2 carol", user="carol", tenant="t2")
        self.assertEqual(self.ok_json("scopes", user=None)["scopes"], [
            {"tenant": "default", "user_id": "alice", "items": 3},
            {"tenant": "default", "user_id": "bob", "items": 1}])
        self.assertEqual(self.ok_json("scopes", user=None, tenant="t1")["scopes"], [
            {"tenant": "t1", "user_id": "alice", "items": 1}])
        self.assertEqual(self.ok_json("scopes", "--all-tenants", user=None)["scopes"], [
            {"tenant": "default", "user_id": "alice", "items": 3},
            {"tenant": "default", "user_id": "bob", "items": 1},
            {"tenant": "t1", "user_id": "alice", "items": 1},
            {"tenant": "t2", "user_id": "carol", "items": 1}])
        r = self.ok("scopes", "--all-tenants", user=None)
        self.assertEqual(r.out, "default\talice\t3\ndefault\tbob\t1\nt1\talice\t1\nt2\tcarol\t1\n")
        self.assertEqual(self.ok_json("scopes", user=None, tenant="nope")["scopes"], [])


# ------------------------------------------------------------------------------------------
# isolation
# ------------------------------------------------------------------------------------------

class IsolationTest(EngramTestCase):

    def assert_invisible(self, item, **other):
        """Every command of scope `other` treats item as nonexistent (exit 3, same message)."""
        missing = "01234567-89ab-7def-8123-456789abcdef"
        for cmd in (["get"], ["history"], ["update", "--content", "stolen"], ["delete"],
                    ["purge"]):
            with self.subTest(cmd=cmd[0], scope=other):
                r = self.fails(EXIT_NOT_FOUND, cmd[0], item["id"], *cmd[1:], **other)
                r_missing = self.fails(EXIT_NOT_FOUND, cmd[0], missing, *cmd[1:], **other)
                self.assertEqual(r.err.replace(item["id"], "ID"), r_missing.err.replace(missing, "ID"),
                                 "another scope's id must look exactly like a missing one")
        visible = self.list_contents("--status", "all", **other)
        self.assertGreater(len(visible), 0, "the other scope has memories of its own")
        self.assertNotIn(item["content"], visible)
        self.assertEqual(self.list_contents("--status", "all", "--tag", "private", **other), [])
        exported = self.ok("export", **other).out
        self.assertNotIn(item["id"], exported)
        self.assertEqual(len(exported.splitlines()), 1 + len(visible))

    def assert_untouched(self, item, **owner):
        self.assertEqual(self.get(item["id"], **owner), item)
        self.assertEqual([h["event"] for h in self.history(item["id"], **owner)], ["ADD"])

    def test_users_are_isolated(self):
        item = self.add("alice's secret", "--tag", "private", user="alice")
        self.add("bob's own", user="bob")
        self.assert_invisible(item, user="bob")
        self.assertEqual(self.ok_json("purge", "--all-memories", "--yes", user="bob"),
                         {"purged": 1})
        self.assert_untouched(item, user="alice")
        self.assertEqual(self.list_contents(user="alice"), ["alice's secret"])

    def test_tenants_are_isolated_for_the_same_user_id(self):
        item = self.add("t1 secret", "--tag", "private", user="alice", tenant="t1")
        self.add("t2 own", user="alice", tenant="t2")
        self.add("default own", user="alice")
        self.assert_invisible(item, user="alice", tenant="t2")
        self.assert_invisible(item, user="alice")  # the default tenant
        self.assertEqual(self.ok_json("purge", "--all-memories", "--yes", user="alice",
                                      tenant="t2"), {"purged": 1})
        self.assert_untouched(item, user="alice", tenant="t1")
        self.assertEqual(self.list_contents(user="alice", tenant="t1"), ["t1 secret"])
        self.assertEqual(self.get(item["id"], user="alice", tenant="t1")["tenant"], "t1")

    def test_environment_selects_the_scope(self):
        item = self.add("via env", user="alice", tenant="t9")
        env = {"ENGRAM_DB": self.db, "ENGRAM_USER": "alice", "ENGRAM_TENANT": "t9"}
        r = run_engram(["get", item["id"], "--json"], env=env)
        self.assertEqual(r.code, 0, r.describe())
        self.assertEqual(r.json()["content"], "via env")
        env["ENGRAM_TENANT"] = "t8"
        r = run_engram(["get", item["id"]], env=env)
        self.assertEqual(r.code, EXIT_NOT_FOUND, r.describe())
        # Flags override the environment.
        r = run_engram(["--tenant", "t9", "get", item["id"]], env=env)
        self.assertEqual(r.code, 0, r.describe())

    def test_agent_narrows_reads(self):
        item = self.add("agent one's", "--agent", "a1")
        self.assertEqual(self.list_contents("--agent", "a2"), [])
        self.fails(EXIT_NOT_FOUND, "get", item["id"], "--agent", "a2")
        self.assertEqual(self.list_contents("--agent", "a1"), ["agent one's"])
        self.assertEqual(self.list_contents(), ["agent one's"])


# ------------------------------------------------------------------------------------------
# JSON output
# ------------------------------------------------------------------------------------------

class JsonOutputTest(EngramTestCase):

    def test_every_command_prints_json(self):
        item = self.add("json item", "--tag", "j")
        self.assertEqual(self.get(item["id"])["id"], item["id"])
        page = self.list_page()
        self.assertEqual([m["id"] for m in page["results"]], [item["id"]])
        self.assertEqual(self.ok_json("update", item["id"], "-c", "json item 2")["content"],
                         "json item 2")
        self.assertEqual([h["event"] for h in self.history(item["id"])], ["ADD", "UPDATE"])
        self.assertEqual(self.ok_json("delete", item["id"]), {"deleted": item["id"]})
        self.assertEqual(self.ok_json("scopes", user=None),
                         {"scopes": [{"tenant": "default", "user_id": "alice", "items": 1}]})
        out = self.path("e.jsonl")
        self.assertEqual(self.ok_json("export", "-o", out),
                         {"exported": 1, "file": out, "sessions": 0, "turns": 0, "profiles": 0,
                          "log_entries": 0})
        self.assertEqual(self.ok_json("import", out, db=self.path("other.db"), user=None),
                         {"imported": 1, "skipped": 0, "rejected": 0, "errors": [],
                          "sessions": 0, "turns": 0, "profiles": 0, "log_entries": 0})
        self.assertEqual(self.ok_json("purge", item["id"]),
                         {"purged": 1, "ids": [item["id"]], "session_turns": 0, "jobs": 0})
        # --json may also follow the subcommand, on both write paths.
        r = self.ok("add", "--no-infer", "after", "--json")
        self.assertEqual(r.json()["content"], "after")
        r = self.ok("add", "I live in Oslo", "--json")
        self.assertEqual([(w["kind"], w["event"]) for w in r.json()["results"]],
                         [("turn", "ADD"), ("memory", "ADD")])
        self.assertEqual(r.json()["results"][0]["memory"]["content"], "I live in Oslo")

    def test_errors_are_json_on_stderr(self):
        item = self.add("x")
        self.ok("delete", item["id"])
        msg = self.fails_json(EXIT_NOT_FOUND, "not_found", "get",
                              "01234567-89ab-7def-8123-456789abcdef")
        self.assertIn("01234567-89ab-7def-8123-456789abcdef", msg)
        self.fails_json(EXIT_USAGE, "invalid_argument", "add", "")
        self.fails_json(EXIT_USAGE, "invalid_argument", "add", "--no-infer", "")
        self.fails_json(EXIT_USAGE, "invalid_argument", "add", "x", user=None)
        msg = self.fails_json(EXIT_USAGE, "invalid_argument", "add", "x", "--tier", "semantic")
        self.assertIn("--no-infer", msg)
        self.fails_json(EXIT_USAGE, "invalid_argument", "list", "--limit", "0")
        self.fails_json(EXIT_CONFLICT, "conflict", "update", item["id"], "-c", "y")
        self.fails_json(EXIT_NOT_FOUND, "not_found", "import", self.path("missing.jsonl"))
        msg = self.fails_json(EXIT_USAGE, "invalid_argument", "--max-content-bytes", "10",
                              "add", "01234567890")
        self.assertIn("10", msg)
        os.mkdir(self.path("dir.db"))
        self.fails_json(EXIT_INTERNAL, "io_error", "list", db=self.path("dir.db"))

    def test_command_line_usage_errors_are_json_too(self):
        # A missing argument or an unknown flag is reported by the argument parser; with
        # --json it must still be the JSON error body.
        self.fails_json(EXIT_USAGE, "invalid_argument", "add")
        self.fails_json(EXIT_USAGE, "invalid_argument", "list", "--no-such-flag")


# ------------------------------------------------------------------------------------------
# export / import
# ------------------------------------------------------------------------------------------

def vector_json(model, values):
    raw = struct.pack("<%df" % len(values), *values)
    return {"model": model, "dim": len(values), "values_b64": base64.b64encode(raw).decode()}


def memory_line(mem_id, content, user="u", **fields):
    memory = {"id": mem_id, "user_id": user, "content": content}
    memory.update(fields)
    return json.dumps({"kind": "memory", "memory": memory}, ensure_ascii=False)


def json_differences(a, b, path="$"):
    """Where two JSON values differ, as "path: a != b" strings (at most a few)."""
    if isinstance(a, dict) and isinstance(b, dict):
        out = []
        for k in sorted(set(a) | set(b)):
            out += json_differences(a.get(k), b.get(k), "%s.%s" % (path, k))
        return out[:6]
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        out = []
        for i, (x, y) in enumerate(zip(a, b)):
            out += json_differences(x, y, "%s[%d]" % (path, i))
        return out[:6]
    return [] if a == b else ["%s: %r != %r" % (path, a, b)]


class RoundTripTest(EngramTestCase):
    """Export, import into an empty database, export again: every field is reproduced."""

    @classmethod
    def setUpClass(cls):
        cls._class_tmp = tempfile.TemporaryDirectory(prefix="engram-roundtrip-")
        d = cls._class_tmp.name
        cls.db1, cls.db2 = os.path.join(d, "one.db"), os.path.join(d, "two.db")
        cls.f1, cls.f2 = os.path.join(d, "one.jsonl"), os.path.join(d, "two.jsonl")

        def engram(*args, **kw):
            r = run_engram(args, **kw)
            assert r.code == 0, r.describe()
            return r

        def add(content, *flags, user="alice", tenant=None):
            return engram("add", "--no-infer", content, *flags, db=cls.db1, user=user,
                          tenant=tenant, as_json=True).json()["id"]

        # Records only import can create: vectors, supersession, source, access counts.
        seed = os.path.join(d, "seed.jsonl")
        old_snapshot = {"id": "seed-old", "user_id": "carol", "tenant": "t1", "content": "v1",
                        "created_at": "2023-05-01T08:00:00.000Z",
                        "updated_at": "2023-05-01T08:00:00.000Z"}
        lines = [
            json.dumps({"kind": "engram-export", "version": 1}),
            json.dumps({"kind": "memory", "memory": {
                "id": "seed-old", "tenant": "t1", "user_id": "carol", "agent_id": "ag",
                "session_id": "s-9", "tier": "semantic", "type": "fact", "content": "v2 旧",
                "entities": ["Carol"], "tags": ["seed"], "metadata": {"x": [1, {"y": None}]},
                "importance": 0.125, "confidence": 0.875,
                "source": {"message_ids": ["m1", "m2"], "session_id": "s-9",
                           "extractor": "llm:test", "prompt_version": "p3"},
                "created_at": "2023-05-01T08:00:00.000Z",
                "updated_at": "2023-06-01T08:00:00.000Z",
                "valid_from": "2023-04-01T00:00:00.000Z", "valid_to": "2023-06-01T08:00:00.000Z",
                "last_accessed": "2023-07-01T00:00:00.123Z", "access_count": 7,
                "status": "superseded", "superseded_by": "seed-new",
                "embedding_model": "model-b"},
                "history": [
                    {"seq": 1, "item_id": "seed-old", "event": "ADD", "new_content": "v1",
                     "reason": "import", "at": "2023-05-01T08:00:00.000Z"},
                    {"seq": 5, "item_id": "seed-old", "event": "SUPERSEDE", "old_content": "v1",
                     "new_content": "v2 旧", "previous": old_snapshot, "reason": "newer info",
                     "at": "2023-06-01T08:00:00.000Z"}],
                "vectors": [vector_json("model-a", [0.5, -1.25, 3.0]),
                            vector_json("model-b", [1e-3, 2.5e10, -0.0, 7.0])]},
                ensure_ascii=False),
            json.dumps({"kind": "memory", "memory": {
                "id": "seed-new", "tenant": "t1", "user_id": "carol", "content": "v3 新",
                "created_at": "2023-06-01T08:00:00.000Z", "supersedes": "seed-old"},
                "history": [{"seq": 6, "item_id": "seed-new", "event": "MERGE",
                             "new_content": "v3 新", "at": "2023-06-01T08:00:00.000Z"}],
                "vectors": []}, ensure_ascii=False),
        ]
        with open(seed, "w", encoding="utf-8") as f:
            f.write("\n".join(lines) + "\n")
        engram("import", seed, db=cls.db1)

        # Memories written through the CLI: unicode, metadata, updates, deletes, archives.
        zh = add("我住在北京，喜欢喝茶", "--type", "preference", "--tag", "中文,drink",
                 "--entity", "北京", "--meta", "城市=北京", "--metadata", '{"n":1,"list":[1,"二"]}',
                 "--created-at", "2024-01-01T00:00:00Z", "--importance", "0.7")
        engram("update", zh, "--content", "我住在上海", "--meta", "城市=上海", db=cls.db1,
               user="alice")
        engram("update", zh, "--tag", "moved", "--reason", "搬家了", db=cls.db1, user="alice")
        gone = add("to be deleted", "--created-at", "2024-01-02T00:00:00Z")
        engram("update", gone, "--content", "to be deleted v2", db=cls.db1, user="alice")
        engram("delete", gone, "--reason", "no longer true", db=cls.db1, user="alice")
        arch = add("old goal", "--type", "goal", "--valid-to", "2024-12-31",
                   "--created-at", "2024-01-03T00:00:00Z")
        engram("update", arch, "--status", "archived", db=cls.db1, user="alice")
        add("line one\nline two\ttabbed \"quoted\" \\ backslash 🎉", "--agent", "bot",
            "--session", "s1", "--created-at", "2024-01-04T00:00:00Z")
        # Two memories with the same creation time: list order must survive the round trip.
        cls.tie = [add("tie first", "--created-at", "2024-01-05T00:00:00Z"),
                   add("tie second", "--created-at", "2024-01-05T00:00:00Z")]
        add("bob's memory", user="bob", tenant="t2")
        add("alice in t2", user="alice", tenant="t2")

        engram("export", "--all-tenants", "-o", cls.f1, db=cls.db1)
        engram("import", cls.f1, db=cls.db2)
        engram("export", "--all-tenants", "-o", cls.f2, db=cls.db2)
        with open(cls.f1, "rb") as f:
            cls.lines1 = f.read().decode("utf-8").splitlines()
        with open(cls.f2, "rb") as f:
            cls.lines2 = f.read().decode("utf-8").splitlines()
        cls.scopes = [("t1", "carol"), ("default", "alice"), ("t2", "bob"), ("t2", "alice")]

    @classmethod
    def tearDownClass(cls):
        cls._class_tmp.cleanup()

    def records(self, lines):
        return {json.loads(line)["memory"]["id"]: json.loads(line) for line in lines[1:]}

    def test_export_has_header_and_every_memory(self):
        for lines in (self.lines1, self.lines2):
            header = json.loads(lines[0])
            self.assertEqual((header["kind"], header["version"]), ("engram-export", 2))
            self.assertRegex(header["exported_at"], TIME_RE)
        self.assertEqual(len(self.lines1), 1 + 10)
        recs = self.records(self.lines1)
        self.assertEqual(len(recs), 10)
        old = recs["seed-old"]
        self.assertEqual([v["model"] for v in old["vectors"]], ["model-a", "model-b"])
        self.assertEqual(old["vectors"][0], vector_json("model-a", [0.5, -1.25, 3.0]))
        self.assertEqual(old["memory"]["access_count"], 7)
        zh = [r for r in recs.values() if r["memory"]["content"] == "我住在上海"][0]
        self.assertEqual([h["event"] for h in zh["history"]], ["ADD", "UPDATE", "UPDATE"])
        # --meta on update replaces the whole metadata object.
        self.assertEqual(zh["memory"]["metadata"], {"城市": "上海"})
        self.assertEqual(zh["history"][1]["previous"]["metadata"],
                         {"n": 1, "list": [1, "二"], "城市": "北京"})
        self.assertEqual(zh["history"][2]["reason"], "搬家了")
        self.assertEqual(zh["memory"]["tags"], ["moved"])
        deleted = [r for r in recs.values() if r["memory"]["status"] == "deleted"][0]
        self.assertEqual([h["event"] for h in deleted["history"]], ["ADD", "UPDATE", "DELETE"])

    def test_import_reproduces_every_field_except_history_seq(self):
        def strip_seq(rec):
            rec = json.loads(json.dumps(rec))
            for h in rec["history"]:
                h.pop("seq")
            return rec
        r1, r2 = self.records(self.lines1), self.records(self.lines2)
        self.assertEqual(sorted(r1), sorted(r2))
        for mem_id in r1:
            with self.subTest(id=mem_id):
                self.assertEqual(strip_seq(r2[mem_id]), strip_seq(r1[mem_id]))
        # The items read back through get are identical too.
        for rec in r1.values():
            m = rec["memory"]
            a = run_engram(["get", m["id"]], db=self.db1, user=m["user_id"], tenant=m["tenant"],
                           as_json=True)
            b = run_engram(["get", m["id"]], db=self.db2, user=m["user_id"], tenant=m["tenant"],
                           as_json=True)
            self.assertEqual((a.code, b.code), (0, 0), a.describe() + b.describe())
            self.assertEqual(b.json(), a.json())

    def test_import_reproduces_history_seq(self):
        r1, r2 = self.records(self.lines1), self.records(self.lines2)
        seq1 = {i: [h["seq"] for h in r["history"]] for i, r in r1.items()}
        seq2 = {i: [h["seq"] for h in r["history"]] for i, r in r2.items()}
        self.assertEqual(seq2, seq1, "history 'seq' values changed by export -> import")

    def test_second_export_is_identical_line_by_line(self):
        self.assertEqual(len(self.lines2), len(self.lines1))
        for n, (a, b) in enumerate(zip(self.lines1[1:], self.lines2[1:]), start=2):
            if a != b:
                self.fail("export line %d differs after import: %s" %
                          (n, "; ".join(json_differences(json.loads(a), json.loads(b)))))

    def test_list_order_survives_round_trip(self):
        for tenant, user in self.scopes:
            with self.subTest(tenant=tenant, user=user):
                orders = []
                for db in (self.db1, self.db2):
                    r = run_engram(["list", "--status", "all", "--limit", "1000"], db=db,
                                   user=user, tenant=tenant, as_json=True)
                    self.assertEqual(r.code, 0, r.describe())
                    orders.append([m["id"] for m in r.json()["results"]])
                self.assertEqual(orders[1], orders[0])
        r = run_engram(["list", "--limit", "1000"], db=self.db1, user="alice", as_json=True)
        ids = [m["id"] for m in r.json()["results"]]
        self.assertEqual(ids[:2], [self.tie[1], self.tie[0]], "ties: later insert first")


class ExportImportTest(EngramTestCase):

    def test_export_scope_selection(self):
        self.add("a default", user="alice")
        self.add("b default", user="bob")
        self.add("a t1", user="alice", tenant="t1")

        def contents(*args, **kw):
            lines = self.ok("export", *args, **kw).out.splitlines()
            self.assertEqual(json.loads(lines[0])["kind"], "engram-export")
            return sorted(json.loads(l)["memory"]["content"] for l in lines[1:])
        self.assertEqual(contents(user="alice"), ["a default"])
        self.assertEqual(contents(user="alice", tenant="t1"), ["a t1"])
        self.assertEqual(contents("--all", user=None), ["a default", "b default"])
        self.assertEqual(contents("--all", user=None, tenant="t1"), ["a t1"])
        self.assertEqual(contents("--all-tenants", user=None), ["a default", "a t1", "b default"])
        self.fails(EXIT_USAGE, "export", user=None)
        r = self.ok("export", "-o", self.path("out.jsonl"))
        self.assertEqual(r.out, "exported 1 memories to %s\n" % self.path("out.jsonl"))
        os.mkdir(self.path("a-directory"))
        self.fails(EXIT_INTERNAL, "export", "-o", self.path("a-directory"))

    def test_import_from_stdin_and_twice(self):
        for i in range(3):
            self.add("memory %d" % i, "--tag", "t")
        dump = self.ok("export").stdout
        other = self.path("other.db")
        r = self.ok("import", "-", db=other, user=None, stdin=dump)
        self.assertEqual(r.out, "imported 3 memories\n")
        self.assertEqual(self.count_all(db=other), 3)
        # Again, with the default --on-conflict fail: rejected, nothing duplicated.
        r = self.fails(EXIT_DATA, "import", "-", db=other, user=None, stdin=dump)
        self.assertIn("already exists", r.err)
        self.assertIn("imported 0 memories", r.out)
        self.assertEqual(self.count_all(db=other), 3)
        # With skip: reported as skipped.
        r = self.ok("import", "-", "--on-conflict", "skip", db=other, user=None, stdin=dump)
        self.assertIn("skipped 3", r.out)
        self.assertEqual(self.count_all(db=other), 3)
        # A file holding some new ids and some present ones.
        self.add("memory new", "--tag", "t")
        dump2 = self.ok("export").stdout
        report = self.ok_json("import", "-", "--on-conflict", "skip", db=other, user=None,
                              stdin=dump2)
        self.assertEqual(report, {"imported": 1, "skipped": 3, "rejected": 0, "errors": [],
                                  "sessions": 0, "turns": 0, "profiles": 0, "log_entries": 0})
        self.assertEqual(self.count_all(db=other), 4)
        self.fails(EXIT_USAGE, "import", "-", "--on-conflict", "overwrite", db=other, user=None,
                   stdin=dump2)
        self.fails(EXIT_USAGE, "import", "-", "--batch-size", "0", db=other, user=None,
                   stdin=dump2)
        self.fails(EXIT_NOT_FOUND, "import", self.path("nope.jsonl"), user=None)
        self.fails(EXIT_USAGE, "import", user=None)

    def write_bad_import(self):
        good = lambda i: memory_line("imp-%d" % i, "good %d" % i).encode()
        lines = [
            b'{"kind":"engram-export","version":1}',                      # 1 header
            good(0), good(1), good(2),                                    # 2-4 batch A: good
            good(3), b'{"kind":"memory","memory":{"id":', good(4),        # 5-7 B: bad JSON at 6
            b'{"kind":"memory","memory":{"id":"imp-5","user_id":"u","content":"bad \xff\xfe"}}',
            good(6), good(7),                                             # 8-10 C: bad UTF-8 at 8
            memory_line("imp-8", "x", colour="red").encode(),             # 11 D: unknown field
            b'{"kind":"memory","memory":{"id":"imp-9","user_id":"u"}}',   # 12 D: no content
            good(10),                                                     # 13 D
            b"",                                                          # 14 blank
            json.dumps({"kind": "memory", "memory": {"id": "imp-11", "user_id": "u",
                                                     "content": "y"},
                        "extra": 1}).encode(),                            # 15 E: unknown field
        ]
        path = self.path("bad.jsonl")
        with open(path, "wb") as f:
            f.write(b"\n".join(lines) + b"\n")
        return path

    def test_import_reports_bad_lines_and_writes_no_batch_holding_one(self):
        path = self.write_bad_import()
        r = self.fails(EXIT_DATA, "import", path, "--batch-size", "3", user=None)
        for n in (6, 8, 11, 12, 15):
            self.assertRegex(r.err, r"\bline %d\b" % n)
        for n in (2, 3, 4, 5, 7, 9, 10, 13, 14):
            self.assertNotRegex(r.err, r"\bline %d\b" % n)
        self.assertIn("imported 3 memories", r.out)
        self.assertIn("rejected 10", r.out)
        self.assertEqual(sorted(self.list_contents("--status", "all", user="u")),
                         ["good 0", "good 1", "good 2"])
        for i in (3, 4, 6, 7, 10, 11):
            self.fails(EXIT_NOT_FOUND, "get", "imp-%d" % i, user="u")
        # The same report as JSON, on a fresh database.
        other = self.path("other.db")
        r = self.cli("import", path, "--batch-size", "3", db=other, user=None, as_json=True)
        self.assertEqual(r.code, EXIT_DATA, r.describe())
        report = r.json()
        self.assertEqual((report["imported"], report["skipped"], report["rejected"]), (3, 0, 10))
        self.assertEqual([e["line"] for e in report["errors"]], [6, 8, 11, 12, 15])
        for e in report["errors"]:
            self.assertIn("line %d" % e["line"], e["message"])
        self.assertIn("JSON", report["errors"][0]["message"])
        self.assertIn("UTF-8", report["errors"][1]["message"])
        self.assertIn("colour", report["errors"][2]["message"])
        self.assertIn("content", report["errors"][3]["message"])
        self.assertIn("extra", report["errors"][4]["message"])
        self.assertEqual(self.count_all(db=other, user="u"), 3)
        # One transaction for the whole file: one bad line rejects everything.
        third = self.path("third.db")
        self.fails(EXIT_DATA, "import", path, "--batch-size", "1000", db=third, user=None)
        self.assertEqual(self.count_all(db=third, user="u"), 0)

    def test_import_rejects_unsupported_version(self):
        path = self.path("v9.jsonl")
        with open(path, "w") as f:
            f.write('{"kind":"engram-export","version":9}\n' + memory_line("v-1", "x") + "\n")
        r = self.fails(EXIT_DATA, "import", path, user=None)
        self.assertRegex(r.err, r"\bline 1\b")
        self.assertEqual(self.count_all(user="u"), 0)

    def test_import_obeys_content_limit(self):
        path = self.path("big.jsonl")
        with open(path, "w") as f:
            f.write(memory_line("big-1", "z" * 101) + "\n" + memory_line("ok-1", "fine") + "\n")
        r = self.fails(EXIT_DATA, "--max-content-bytes", "100", "import", path,
                       "--batch-size", "1", user=None)
        self.assertRegex(r.err, r"\bline 1\b")
        self.assertIn("100", r.err)
        self.assertEqual(self.list_contents(user="u"), ["fine"])


# ------------------------------------------------------------------------------------------
# bad database paths
# ------------------------------------------------------------------------------------------

class BadDatabaseTest(EngramTestCase):

    def test_directory_as_database(self):
        d = self.path("a-dir")
        os.mkdir(d)
        r = self.fails(EXIT_INTERNAL, "list", db=d)
        self.assertIn(d, r.err)
        self.assertIn("cannot open", r.err)
        self.assertEqual(os.listdir(d), [])

    def test_parent_is_a_file(self):
        f = self.path("file")
        open(f, "w").close()
        for args in (["add", "x"], ["add", "--no-infer", "x"]):
            with self.subTest(args=args):
                r = self.fails(EXIT_INTERNAL, *args, db=os.path.join(f, "sub", "engram.db"))
                self.assertIn("cannot", r.err)
        # A read does not try to create it: there is no database there.
        r = self.fails(EXIT_NOT_FOUND, "list", db=os.path.join(f, "sub", "engram.db"))
        self.assertIn("no database", r.err)

    def test_reads_of_a_missing_database_fail_and_create_nothing(self):
        # A mistyped --db used to create the directories and an empty database, and `list`
        # then answered "(no memories)" with exit 0.
        db = self.path("typo/dir/engram.db")
        for args in (["list"], ["get", "mem_x"], ["search", "tea"], ["context", "tea"],
                     ["history", "mem_x"], ["sessions"], ["scopes"], ["export"],
                     ["keys", "list"], ["update", "mem_x", "--content", "y"],
                     ["delete", "mem_x"], ["reembed"]):
            with self.subTest(args=args):
                r = self.fails(EXIT_NOT_FOUND, *args, db=db)
                self.assertIn("no database at " + db, r.err)
                self.assertEqual(r.out, "")
                self.assertEqual(os.listdir(self.dir), [], "nothing may be created")
        r = self.fails_json(EXIT_NOT_FOUND, "not_found", "list", db=db)
        self.assertFalse(os.path.exists(self.path("typo")))
        # A write creates it, and reads work from then on.
        self.add("now it exists", db=db)
        self.assertEqual(self.ok("list", db=db).out.count("now it exists"), 1)

    def test_missing_directories_are_created(self):
        db = self.path("deep/er/engram.db")
        self.add("made it", db=db)
        self.assertTrue(os.path.isfile(db))

    def test_non_sqlite_file_is_refused_unchanged(self):
        f = self.path("notes.txt")
        content = b"these are my notes, not a database\n" * 200
        with open(f, "wb") as fh:
            fh.write(content)
        for args in (["list"], ["add", "x"], ["add", "--no-infer", "x"]):
            with self.subTest(args=args):
                r = self.fails(EXIT_INTERNAL, *args, db=f)
                self.assertIn("not a database", r.err)
                self.assertIn(f, r.err)
        with open(f, "rb") as fh:
            self.assertEqual(fh.read(), content)
        self.assertEqual(sorted(os.listdir(self.dir)), ["notes.txt"])

    def make_foreign_sqlite(self):
        f = self.path("foreign.db")
        conn = sqlite3.connect(f)
        conn.execute("CREATE TABLE recipes (name TEXT, minutes INTEGER)")
        conn.execute("INSERT INTO recipes VALUES ('soup', 30)")
        conn.commit()
        conn.close()
        return f

    def test_foreign_sqlite_file_is_refused(self):
        f = self.make_foreign_sqlite()
        for args in (["list"], ["add", "x"], ["add", "--no-infer", "x"],
                     ["export", "--all-tenants"]):
            with self.subTest(args=args):
                r = self.fails(EXIT_INTERNAL, *args, db=f, user="alice")
                self.assertIn("not an Engram", r.err)
        conn = sqlite3.connect(f)
        try:
            tables = [t for (t,) in conn.execute("SELECT name FROM sqlite_schema WHERE type='table'")]
            self.assertEqual(tables, ["recipes"])
            self.assertEqual(conn.execute("SELECT * FROM recipes").fetchall(), [("soup", 30)])
        finally:
            conn.close()

    def test_foreign_sqlite_file_is_not_modified(self):
        f = self.make_foreign_sqlite()
        with open(f, "rb") as fh:
            before = fh.read()
        self.fails(EXIT_INTERNAL, "list", db=f)
        with open(f, "rb") as fh:
            after = fh.read()
        changed = [i for i in range(min(len(before), len(after))) if before[i] != after[i]]
        self.assertEqual(after, before,
                         "refused file was modified (bytes at offsets %s changed; offsets 18-19 "
                         "are the journal mode)" % changed[:10])
        self.assertEqual(sorted(os.listdir(self.dir)), ["foreign.db"])


class MiscTest(EngramTestCase):

    def test_bench_writepath_runs_each_set_on_a_store_of_its_own(self):
        # The sets share case ids (an id is the case's user): the blind case must not see
        # what the development case of the same id stored.
        for name, text, absent in (("dev", "I love hiking in the Alps", "spiders"),
                                   ("frozen", "I really hate spiders", "hiking")):
            os.makedirs(self.path(name))
            case = {"id": "en-new_fact-same-01", "lang": "en", "category": "new_fact",
                    "messages": [{"text": text, "at": "2026-06-15T10:00:00Z"}],
                    "expect": {"active": [{"all": [text.split()[-1] if name == "frozen"
                                                   else "hiking"]}],
                               "absent": [{"all": [absent]}]}}
            with open(os.path.join(self.path(name), "en.jsonl"), "w") as f:
                f.write(json.dumps(case) + "\n")
        out = self.ok_json("bench", "writepath", "--lang", "en", "--fixtures", "",
                           "--data", self.path("dev"), "--set", "frozen",
                           "--frozen-data", self.path("frozen"))
        for report in (out, out["frozen"]):
            self.assertEqual(report["languages"]["en"], {"passed": 1, "total": 1, "rate": 1.0},
                             json.dumps(report["failed"]))

    def test_version_and_help(self):
        r = run_engram(["--version"])
        self.assertEqual(r.code, 0)
        self.assertRegex(r.out, r"^engram \d+\.\d+\.\d+")
        r = run_engram(["--help"])
        self.assertEqual(r.code, 0)
        for word in ("add", "list", "export", "import", "Exit codes"):
            self.assertIn(word, r.out)

    def test_help_lists_the_commands_first_and_is_short(self):
        r = run_engram(["--help"])
        self.assertEqual(r.code, 0, r.describe())
        lines = r.out.splitlines()
        self.assertLess(len(lines), 40, r.out)
        commands = lines.index("Commands:")
        first_option = next(i for i, line in enumerate(lines) if line.lstrip().startswith("-"))
        self.assertLess(commands, first_option, r.out)
        for command in ("add TEXT", "search QUERY", "list", "serve", "mcp", "help"):
            self.assertTrue(any(line.startswith("  " + command) for line in lines), command)
        for option in ("--db", "--user", "--tenant", "--json", "--key-file"):
            self.assertIn(option, r.out)
        for tuning in ("--index-memory-mb", "--item-cache-mb", "--huge-pages", "--half-life",
                       "--archive-below", "--merge-above", "--embed-url", "--llm-model", "--pii"):
            self.assertNotIn(tuning, r.out)
        self.assertIn("engram help flags", r.out)
        self.assertEqual(run_engram(["help"]).out, r.out)
        self.assertEqual(run_engram(["-h"]).out, r.out)

    def test_help_flags_lists_every_global_option(self):
        r = run_engram(["help", "flags"])
        self.assertEqual(r.code, 0, r.describe())
        for option in ("--db", "--user", "--tenant", "--json", "--key-file", "--agent",
                       "--session", "--config", "--version", "--max-content-bytes",
                       "--busy-timeout-ms", "--index-memory-mb", "--item-cache-mb",
                       "--huge-pages", "--half-life", "--retention-weight",
                       "--critical-importance", "--archive-below", "--purge-after-days",
                       "--merge-above", "--summarize-at-least", "--promote-heat", "--embedder",
                       "--embed-dim", "--embed-url", "--embed-model", "--embed-key-env",
                       "--extractor", "--llm-url", "--llm-model", "--llm-key-env",
                       "--llm-timeout-ms", "--pii", "--pii-key-env", "--keep-turns",
                       "--duplicate-similarity", "--duplicate-overlap"):
            self.assertRegex(r.out, r"(?m)^  (-\w,)?%s\b" % re.escape(option))
        self.assertIn("ENGRAM_INDEX_MEMORY_MB", r.out)
        self.assertIn("Exit codes", r.out)

    def test_help_of_a_command(self):
        r = run_engram(["help", "add"])
        self.assertEqual(r.code, 0, r.describe())
        self.assertEqual(r.out, run_engram(["add", "--help"]).out)
        self.assertIn("--no-infer", r.out)
        self.assertIn('Example: engram add "', r.out)
        r = run_engram(["help", "bench", "locomo"])
        self.assertEqual(r.code, 0, r.describe())
        self.assertIn("--data", r.out)
        self.assertIn("https://github.com/snap-research/LoCoMo", r.out)
        r = run_engram(["serve", "--help"])  # serve keeps its own options
        for option in ("--host", "--port", "--threads", "--rate-limit", "--upstream-url"):
            self.assertIn(option, r.out)
        r = run_engram(["help", "all"])
        self.assertEqual(r.code, 0, r.describe())
        for text in ("--no-infer", "--budget", "--port", "--new-key-file"):
            self.assertIn(text, r.out)
        commands = re.findall(r"(?m)^([a-z]+)$", r.out)  # `help all`'s top-level commands
        self.assertIn("recall", commands)
        for command in commands:  # each has its example (src/cli/command_help.h)
            self.assertIn("Example: engram", run_engram(["help", command]).out, command)
        r = run_engram(["help", "no-such-command"])
        self.assertEqual(r.code, EXIT_USAGE, r.describe())
        self.assertIn("no-such-command", r.err)

    def test_tuning_flags_work_as_before(self):
        # Moved in the help only: names, ranges, environment and config file are unchanged.
        self.ok("--index-memory-mb", "128", "--item-cache-mb", "0", "--no-huge-pages",
                "--half-life", "fact=10", "--archive-below", "0.1", "add", "--no-infer", "x")
        self.fails(EXIT_USAGE, "--index-memory-mb", "10", "list")
        self.fails(EXIT_USAGE, "list", env={"ENGRAM_INDEX_MEMORY_MB": "10"})
        config = self.path("engram.toml")
        with open(config, "w") as f:
            f.write("index-memory-mb = 10\n")
        self.fails(EXIT_USAGE, "--config", config, "list")
        with open(config, "w") as f:
            f.write("index-memory-mb = 128\nitem-cache-mb = 0\n")
        self.assertEqual(self.list_contents("--config", config), ["x"])

    def test_missing_arguments_are_shown_with_an_example(self):
        cases = [
            (["recall"], "turns", 'engram recall "I\'m going hiking tomorrow" -u alice'),
            (["add"], "text", "engram add \""),
            (["search"], "query", "engram search \""),
            (["context"], "query", "engram context \""),
            (["get"], "id", "engram get <id>"),
            (["import"], "file", "engram --db other.db import alice.jsonl"),
            (["keygen"], "file", "engram keygen engram.key"),
            (["keys", "revoke"], "id", "engram keys revoke"),
            (["bench", "locomo"], "--data", "engram bench locomo --data locomo10.json"),
            (["bench"], "which command?", "engram bench writepath"),
            (["list", "--limit"], "--limit", "engram list -u alice"),
            (["add", "I", "live", "here"], "not expected", "engram add \""),
        ]
        for args, missing, example in cases:
            r = self.fails(EXIT_USAGE, *args)
            self.assertIn(missing, r.err, r.describe())
            self.assertIn("e.g. " + example, r.err, r.describe())
            self.assertIn("engram help " + args[0], r.err, r.describe())
            msg = self.fails_json(EXIT_USAGE, "invalid_argument", *args)
            self.assertIn("(e.g. " + example, msg)
        # Missing arguments the commands check themselves, --user first.
        for args, missing, example in [(["list"], "--user", "engram list -u alice"),
                                       (["add", "x"], "--user", "engram add \""),
                                       (["rekey"], "--new-key-file", "engram rekey "),
                                       (["export"], "--all", "engram export -u alice")]:
            r = self.fails(EXIT_USAGE, *args, user=None)
            self.assertIn(missing, r.err, r.describe())
            self.assertIn("e.g. " + example, r.err, r.describe())
        r = self.fails(EXIT_USAGE, user=None, db=self.db)  # no command at all
        self.assertIn("engram help", r.err)

    def test_benchmarks_say_which_data_they_need(self):
        for args, names in [
                (["bench", "locomo", "--data", self.path("locomo10.json")],
                 ["LoCoMo", "https://github.com/snap-research/LoCoMo"]),
                (["bench", "madial", "--data", self.dir],
                 ["MADial-Bench", "https://github.com/hejunqing/MADial-Bench"]),
                (["bench", "extraction", "--data", self.dir],
                 ["memory_extraction", "https://github.com/MemPalace/mempalace"])]:
            r = self.fails(EXIT_NOT_FOUND, *args, user=None)
            for name in names + ["needs", "--data"]:
                self.assertIn(name, r.err, r.describe())

    def test_default_database_path_from_environment(self):
        r = run_engram(["add", "--no-infer", "env db", "--user", "alice"],
                       env={"ENGRAM_DB": self.db})
        self.assertEqual(r.code, 0, r.describe())
        self.assertTrue(os.path.isfile(self.db))
        self.assertEqual(self.list_contents(), ["env db"])


class TourTest(unittest.TestCase):
    """`make tour` (scripts/tour.sh) runs to the end, and every step prints something other
    than an empty result."""

    def test_tour_runs_and_every_step_shows_something(self):
        script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts",
                              "tour.sh")
        with tempfile.TemporaryDirectory(prefix="engram-tour-") as cwd:
            env = {k: v for k, v in os.environ.items() if not k.startswith("ENGRAM_")
                   or k == "ENGRAM_CHECK_STORAGE"}
            proc = subprocess.run([script, ENGRAM], cwd=cwd, capture_output=True, env=env,
                                  timeout=300)
        out = proc.stdout.decode("utf-8", "replace")
        self.assertEqual(proc.returncode, 0, "%s\nstderr: %s" % (out[-3000:], proc.stderr[-3000:]))
        self.assertNotIn("\033[", out, "no terminal escapes when not on a terminal")
        steps, current = [], None
        for line in out.splitlines():
            if line.startswith("$ engram"):
                current = [line, []]
                steps.append(current)
            elif line.startswith("# ") or not line.strip():
                current = None
            elif current is not None:
                current[1].append(line.strip())
        self.assertGreater(len(steps), 20, out)
        for command, output in steps:
            self.assertNotEqual(output, [], "%s printed nothing" % command)
            for empty in ("(no memories)", "(no results)", "(nothing worth raising)"):
                self.assertNotEqual(output, [empty], "%s printed only %s" % (command, empty))
        self.assertIn("Done.", out)


def main():
    global ENGRAM
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--engram", required=True)
    parser.add_argument("--crash-writer")
    args, rest = parser.parse_known_args()
    ENGRAM = os.path.abspath(args.engram)
    unittest.main(argv=[sys.argv[0]] + rest, verbosity=2)


# ------------------------------------------------------------------------------------------
# verified purges: a user, a tenant
# ------------------------------------------------------------------------------------------

class VerifiedPurgeTest(EngramTestCase):
    """`purge --all-memories --yes --verify` and `purge --tenant-all --yes --verify`: the data
    goes, a byte scan of every file proves it (exit 0, no TRACE), other tenants keep theirs."""

    def file_holding(self, needle):
        for root, _, names in os.walk(self.dir):
            for name in names:
                with open(os.path.join(root, name), "rb") as f:
                    if needle.encode("utf-8") in f.read():
                        return name
        return None

    def test_user_and_tenant_purges_are_verified(self):
        self.add("Zorblax lives in Quillfeather Lane", user="ann", tenant="acme")
        self.add("安娜的猫叫雪球七号", user="ann", tenant="acme")
        self.add("Ben plays the theremin at Vexholm", user="ben", tenant="acme")
        self.add("Cat grows Ulmbrook pears", user="cat", tenant="beta")
        self.add("Dan keeps Pyrrhic bees", user="dan", tenant="acme")
        for needle in ("Quillfeather", "雪球七号", "Vexholm", "Ulmbrook", "Pyrrhic"):
            self.assertIsNotNone(self.file_holding(needle), needle)

        self.fails(EXIT_USAGE, "purge", "--all-memories", "--verify", user="dan", tenant="acme")
        r = self.ok_json("purge", "--all-memories", "--yes", "--verify", user="dan",
                         tenant="acme")
        self.assertEqual((r["purged"], r["verified"], r["traces"]), (1, True, []))
        self.assertIsNone(self.file_holding("Pyrrhic"))

        self.fails(EXIT_USAGE, "purge", "--tenant-all", user=None, tenant="acme")
        self.fails(EXIT_USAGE, "purge", "--tenant-all", "--yes", "some-id", user=None,
                   tenant="acme")
        r = self.ok_json("purge", "--tenant-all", "--yes", "--verify", user=None, tenant="acme")
        self.assertEqual((r["tenant"], r["users"], r["purged"], r["verified"], r["traces"]),
                         ("acme", 2, 3, True, []))
        self.assertGreater(r["needles"], 3)
        for needle in ("Quillfeather", "雪球七号", "Vexholm"):
            self.assertIsNone(self.file_holding(needle), needle)
        self.assertEqual(self.list_contents(user="ann", tenant="acme"), [])
        self.assertEqual(self.list_contents(user="cat", tenant="beta"),
                         ["Cat grows Ulmbrook pears"])
        text = self.ok("purge", "--tenant-all", "--yes", "--verify", user=None,
                       tenant="acme").out
        self.assertIn("purged 0 memories of 0 users of tenant acme", text)
        self.assertIn("verified: no trace", text)


# ------------------------------------------------------------------------------------------
# encryption at rest
# ------------------------------------------------------------------------------------------

class EncryptionTest(EngramTestCase):
    """keygen, --key-file / ENGRAM_KEY_FILE / ENGRAM_KEY, and rekey from plain to sealed, to
    another key and back; no stored word in any file while sealed; clear errors for a missing,
    wrong or unneeded key."""

    MARKER = "marker-z9 loves quince paste 榅桲酱"

    def files_holding(self, needle):
        found = []
        for root, _, names in os.walk(self.dir):
            for name in names:
                with open(os.path.join(root, name), "rb") as f:
                    if needle.encode("utf-8") in f.read():
                        found.append(name)
        return found

    def keygen(self, name):
        path = self.path(name)
        r = self.ok_json("keygen", path, user=None)
        self.assertRegex(r["key_id"], r"^[0-9a-f]{16}$")
        self.assertEqual(os.stat(path).st_mode & 0o777, 0o600)
        with open(path) as f:
            self.assertRegex(f.read(), r"^[0-9a-f]{64}\n$")
        return path, r["key_id"]

    def test_a_sealed_database_from_keygen_to_rekey(self):
        key, key_id = self.keygen("a.key")
        # keygen never overwrites a key.
        self.fails(EXIT_CONFLICT, "keygen", key, user=None)
        item = self.add(self.MARKER, "--key-file", key)
        self.assertEqual(self.get(item["id"], env={"ENGRAM_KEY_FILE": key})["content"],
                         self.MARKER)
        with open(key) as f:
            hex_key = f.read().strip()
        hits = self.ok_json("search", "quince", env={"ENGRAM_KEY": hex_key})["results"]
        self.assertEqual([h["id"] for h in hits], [item["id"]])
        for needle in ("quince", "榅桲", "marker-z9"):
            self.assertEqual(self.files_holding(needle), [], needle)

        msg = self.fails_json(EXIT_USAGE, "invalid_argument", "get", item["id"])
        self.assertIn("encrypted (key id %s)" % key_id, msg)
        other, other_id = self.keygen("b.key")
        msg = self.fails_json(EXIT_USAGE, "permission_denied", "get", item["id"],
                              "--key-file", other)
        self.assertIn("wrong key", msg)
        self.assertIn(other_id, msg)
        self.fails(EXIT_NOT_FOUND, "get", item["id"], "--key-file", self.path("missing.key"))
        self.fails(EXIT_USAGE, "get", item["id"], env={"ENGRAM_KEY": "not-hex"})

        # Rotate to the other key: the old one stops working, every memory stays.
        r = self.ok_json("rekey", "--new-key-file", other, "--key-file", key, user=None)
        self.assertEqual((r["from_key_id"], r["to_key_id"]), (key_id, other_id))
        self.fails(EXIT_USAGE, "get", item["id"], "--key-file", key)
        self.assertEqual(self.get(item["id"], env={"ENGRAM_KEY_FILE": other})["content"],
                         self.MARKER)
        self.assertEqual(self.files_holding("quince"), [])
        self.fails(EXIT_USAGE, "rekey", "--key-file", other, user=None)  # neither flag

        # Back to plain: readable without a key, and a key is now refused.
        r = self.ok_json("rekey", "--decrypt", "--key-file", other, user=None)
        self.assertEqual(r["to_key_id"], "")
        self.assertEqual(self.get(item["id"])["content"], self.MARKER)
        self.assertNotEqual(self.files_holding("quince"), [])
        msg = self.fails_json(EXIT_USAGE, "invalid_argument", "get", item["id"],
                              "--key-file", other)
        self.assertIn("not encrypted", msg)

    def test_a_plain_database_is_encrypted_in_place(self):
        items = [self.add("plain note %d about quince" % i) for i in range(20)]
        key, key_id = self.keygen("k.key")
        r = self.ok_json("rekey", "--new-key-file", key, user=None)
        self.assertEqual((r["from_key_id"], r["to_key_id"]), ("", key_id))
        self.assertEqual(self.files_holding("quince"), [])
        self.assertEqual(sorted(self.list_contents(env={"ENGRAM_KEY_FILE": key})),
                         sorted(i["content"] for i in items))
        # The sealed database takes writes and keeps them sealed.
        self.add("another quince remark", "--key-file", key)
        self.assertEqual(self.files_holding("quince"), [])


if __name__ == "__main__":
    main()
