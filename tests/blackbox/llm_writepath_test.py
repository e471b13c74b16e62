#!/usr/bin/env python3
"""The LLM write path end to end on the write-path corpus, against a fake OpenAI-compatible
server (fake_openai.py): `engram --extractor llm bench writepath` must show the plumbing works.

The fake's extraction replies are replayed: what `engram extract --jsonl` (the rules) prints for
each corpus message, served as the model's reply, so the JSON contract is exercised with real
content in both languages. Decisions come from the fake's fixed policy. Some messages are
refused by the provider (HTTP 400) and some first get a reply that breaks the contract. What is
checked:
- every message reaches the fake; the extraction contract round-trips: the LLM path passes
  most of the corpus in each language;
- decisions are asked and applied (SUPERSEDE and NOOP among them);
- a garbled reply is repaired with one more request and loses nothing;
- a refused message keeps its turn, the error is reported, and no memory is made up for it.
No real model is used or claimed.

Usage: llm_writepath_test.py --engram PATH [unittest options]
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import unittest
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fake_openai  # noqa: E402

ENGRAM = None
SOURCE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CORPUS = os.path.join(SOURCE, "bench", "data", "writepath")


def crc(text):
    return zlib.crc32(text.encode("utf-8"))


def refused(text):
    return crc(text) % 23 == 0


def garbled(text):
    return crc(text) % 23 == 1


def run(args, stdin=None, env=None):
    full_env = {k: v for k, v in os.environ.items() if not k.startswith("ENGRAM_")
                or k == "ENGRAM_CHECK_STORAGE"}  # the suite's storage checks stay on
    full_env.update(env or {})
    proc = subprocess.run([ENGRAM] + args, input=stdin, capture_output=True, env=full_env,
                          timeout=600)
    return proc


class LlmWritePathTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.messages = []  # (case id, lang, text, at)
        cls.index = {}  # (case id, text) → the message's index in its case
        for lang in ("en", "zh"):
            with open(os.path.join(CORPUS, lang + ".jsonl"), encoding="utf-8") as f:
                for line in f:
                    if not line.strip():
                        continue
                    case = json.loads(line)
                    for m in case["messages"]:
                        cls.messages.append((case["id"], lang, m["text"], m["at"]))
                        cls.index[(case["id"], m["text"])] = len(
                            [x for x in cls.messages if x[0] == case["id"]]) - 1
        # Record the replies: the rules' reading of each message, at its time.
        lines = "".join(json.dumps({"content": t, "at": at}, ensure_ascii=False) + "\n"
                        for _, _, t, at in cls.messages)
        proc = run(["--json", "extract", "--jsonl"], stdin=lines.encode("utf-8"))
        assert proc.returncode == 0, proc.stderr.decode()
        replies = {}
        out = proc.stdout.decode("utf-8").splitlines()
        assert len(out) == len(cls.messages), (len(out), len(cls.messages))
        for (_, _, text, at), reply in zip(cls.messages, out):
            replies[(text, at[:10])] = json.loads(reply)
        cls.fake = fake_openai.FakeOpenAI(replies, refuse=refused, garble=garbled)
        cls.tmp = tempfile.TemporaryDirectory(prefix="engram-llm-writepath-")
        common = ["--db", os.path.join(cls.tmp.name, "unused.db"), "--json"]
        proc = run(common + ["--extractor", "llm", "--llm-url", cls.fake.url,
                             "--llm-model", "fake-1", "--llm-timeout-ms", "10000",
                             "bench", "writepath", "--data", CORPUS, "--fixtures", ""],
                   env={"OPENAI_API_KEY": "sk-test"})
        assert proc.returncode == 0, proc.stderr.decode()
        cls.llm = json.loads(proc.stdout)
        proc = run(common + ["bench", "writepath", "--data", CORPUS, "--fixtures", ""])
        assert proc.returncode == 0, proc.stderr.decode()
        cls.rules = json.loads(proc.stdout)

    @classmethod
    def tearDownClass(cls):
        cls.fake.close()
        cls.tmp.cleanup()

    def test_every_case_ran_through_the_llm_extractor(self):
        self.assertEqual(self.llm["extractor"], "llm:fake-1")
        self.assertEqual(self.llm["cases"], self.rules["cases"])
        self.assertEqual(self.llm["messages"], len(self.messages))
        # chit-chat never reaches the model; every other message does, and is one it knows
        self.assertGreater(self.fake.counts["extract"], 0.8 * len(self.messages))
        self.assertEqual(self.fake.counts["unknown_turn"], 0)

    def test_the_contract_carries_what_was_extracted(self):
        for lang in ("en", "zh"):
            got = self.llm["languages"][lang]
            rules = self.rules["languages"][lang]
            print("%s: llm path %d/%d, rules %d/%d" % (lang, got["passed"], got["total"],
                                                       rules["passed"], rules["total"]))
            # The replayed replies are the rules' candidates; what is lost on the way is the
            # injected refusals, the fixed decision policy and what the contract has no field
            # for (the rules' bare and elliptical corrections).
            self.assertGreaterEqual(got["rate"], 0.75, lang)

    def test_decisions_are_asked_and_applied(self):
        self.assertGreater(self.fake.counts["decide"], 50)
        self.assertGreater(self.fake.decisions.get("SUPERSEDE", 0), 10, self.fake.decisions)
        self.assertGreater(self.fake.decisions.get("NOOP", 0), 5, self.fake.decisions)
        # the change cases are mostly right: superseded facts where the corpus expects them
        change = self.llm["categories"]["change"]
        for lang in ("en", "zh"):
            self.assertGreaterEqual(change[lang]["rate"], 0.6, (lang, change[lang]))

    def test_a_garbled_reply_is_repaired_once(self):
        expected = sum(1 for _, _, t, _ in self.messages if garbled(t) and not refused(t))
        self.assertGreater(expected, 0, "the corpus has garbled messages")
        self.assertGreaterEqual(self.fake.counts["repair"], 1)
        self.assertLessEqual(self.fake.counts["repair"], expected)
        # the replayed replies are in the user's language: no language repair is asked
        self.assertEqual(self.fake.language_repairs, [])
        failed = set()
        for e in self.llm["extraction_errors"]:
            for x in e["errors"]:
                failed.add((e["id"], int(x.split(":")[0].split()[1])))
        for case_id, _, text, _ in self.messages:
            if garbled(text) and not refused(text):
                self.assertNotIn((case_id, self.index[(case_id, text)]), failed,
                                 "a repaired reply lost nothing: " + text)

    def test_a_refused_message_keeps_its_turn(self):
        refused_cases = {}
        for case_id, _, text, _ in self.messages:
            if refused(text):
                refused_cases.setdefault(case_id, []).append(text)
        self.assertGreater(len(refused_cases), 0, "the corpus has refused messages")
        reported = {e["id"]: e for e in self.llm["extraction_errors"]}
        chit_chat = 0
        for case_id, texts in refused_cases.items():
            if case_id not in reported:
                chit_chat += 1  # never sent: chit-chat is not extracted
                continue
            e = reported[case_id]
            self.assertTrue(any("400" in x or "context length" in x for x in e["errors"]), e)
            self.assertGreaterEqual(e["kept_turns"], len(texts), e)
            turns = [s for s in e["stored"] if s.startswith("active turn")]
            for text in texts:
                self.assertTrue(any(text in s for s in turns), (text, e["stored"]))
        self.assertLess(chit_chat, len(refused_cases))
        # nothing else failed
        self.assertEqual(set(reported), set(refused_cases) & set(reported))


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
