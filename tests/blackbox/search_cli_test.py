"""Black-box tests of `engram search`, `context`, `reembed` and `bench` on the real binary."""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import unittest

ARGS = None
FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures")


def run(*args, db=None, check=True, stdin=None):
    cmd = [ARGS.engram] + (["--db", db] if db else []) + list(args)
    p = subprocess.run(cmd, capture_output=True, text=True, input=stdin, timeout=120)
    if check and p.returncode != 0:
        raise AssertionError(f"{cmd} exited {p.returncode}: {p.stderr}")
    return p


class SearchCliTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.db = os.path.join(self.tmp.name, "e.db")
        self.ids = {}
        for text, kind in [("I live in Beijing", "fact"), ("我喜欢喝绿茶，不喜欢咖啡", "preference"),
                           ("My daughter Emma plays the violin", "fact"),
                           ("I am allergic to peanuts", "fact"), ("Ran a half marathon", "event")]:
            out = run("add", "--no-infer", text, "-u", "alice", "-t", kind, "--json", db=self.db)
            self.ids[text] = json.loads(out.stdout)["id"]
        run("add", "--no-infer", "Bob likes violin music too", "-u", "bob", db=self.db)

    def tearDown(self):
        self.tmp.cleanup()

    def search(self, *args, user="alice"):
        out = run("search", *args, "-u", user, "--json", db=self.db)
        return json.loads(out.stdout)["results"]

    def test_finds_the_right_memory_in_english_and_chinese(self):
        self.assertEqual(self.search("where do I live")[0]["id"], self.ids["I live in Beijing"])
        self.assertEqual(self.search("绿茶")[0]["id"], self.ids["我喜欢喝绿茶，不喜欢咖啡"])
        self.assertEqual(self.search("what instrument does my kid play")[0]["id"],
                         self.ids["My daughter Emma plays the violin"])

    def test_results_never_cross_users(self):
        for r in self.search("violin music"):
            self.assertEqual(r["memory"]["user_id"], "alice")
        bob = self.search("violin", user="bob")
        self.assertEqual([r["memory"]["content"] for r in bob], ["Bob likes violin music too"])

    def test_filters_explain_and_deleted_items(self):
        results = self.search("peanuts", "--type", "event")
        self.assertTrue(all(r["memory"]["type"] == "event" for r in results))
        r = self.search("peanuts", "--explain")[0]
        e = r["explain"]
        self.assertAlmostEqual(r["score"], (0.6 * e["relevance"] + 0.3 * e["importance"]
                                            + 0.1 * e["recency"]) * e["retention_factor"],
                               places=9)
        self.assertAlmostEqual(e["retention_factor"], 1 - 0.1 * (1 - e["retention"]), places=9)
        self.assertGreater(e["keyword"], 0)
        run("delete", self.ids["I am allergic to peanuts"], "-u", "alice", db=self.db)
        self.assertNotIn(self.ids["I am allergic to peanuts"], [r["id"] for r in self.search("peanuts")])
        self.assertIn(self.ids["I am allergic to peanuts"],
                      [r["id"] for r in self.search("peanuts", "--status", "all")])

    def test_access_statistics_are_counted(self):
        first = self.search("Beijing")[0]["memory"]["access_count"]
        second = self.search("Beijing")[0]["memory"]["access_count"]
        self.assertEqual(second, first + 1)

    def test_context_stays_within_the_budget_and_cites_ids(self):
        out = run("context", "喝绿茶还是咖啡", "-u", "alice", "--budget", "40", "--json", db=self.db)
        body = json.loads(out.stdout)
        self.assertLessEqual(body["tokens"], 40)
        self.assertIn("[" + self.ids["我喜欢喝绿茶，不喜欢咖啡"] + "]", body["context"])

    def test_bad_queries_are_usage_errors(self):
        for args in (["search", "", "-u", "alice"], ["search", "x", "-k", "0", "-u", "alice"],
                     ["search", "x", "-k", "101", "-u", "alice"],
                     ["search", "x", "--after", "2026-02-01", "--before", "2026-01-01", "-u", "alice"],
                     ["search", "x", "--meta", "a'b=1", "-u", "alice"],
                     ["context", "x", "--budget", "5", "-u", "alice"],
                     ["search", "x", "--fusion", "magic", "-u", "alice"]):
            p = run(*args, db=self.db, check=False)
            self.assertEqual(p.returncode, 2, args)
            self.assertTrue(p.stderr.strip(), args)

    def test_reembed_switches_model_without_mixing(self):
        run("--embed-dim", "128", "reembed", db=self.db)
        results = json.loads(run("--embed-dim", "128", "search", "Beijing", "-u", "alice", "--json",
                                 db=self.db).stdout)["results"]
        self.assertEqual(results[0]["id"], self.ids["I live in Beijing"])
        self.assertEqual(results[0]["memory"]["embedding_model"], "hash-v1-128")


class BenchCliTest(unittest.TestCase):
    def test_locomo_harness_on_a_fixture(self):
        out = run("bench", "locomo", "--data", os.path.join(FIXTURES, "locomo-mini.json"), "--json")
        report = json.loads(out.stdout)
        overall = [r for r in report["rows"] if r["category"] == "overall"][0]
        self.assertEqual(overall["n"], 5)  # the question with malformed evidence is skipped
        self.assertGreaterEqual(overall["metrics"]["any@10"], 0.8)
        self.assertEqual(report["memories"], 7)

    def test_madial_harness_on_a_fixture(self):
        out = run("bench", "madial", "--data", os.path.join(FIXTURES, "madial-mini"), "--json")
        overall = json.loads(out.stdout)["rows"][0]
        self.assertEqual(overall["n"], 2)
        self.assertEqual(overall["metrics"]["recall@1"], 1.0)

    def test_missing_data_is_reported(self):
        p = run("bench", "locomo", "--data", "/nonexistent.json", check=False)
        self.assertEqual(p.returncode, 3)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--engram", required=True)
    parser.add_argument("--crash-writer")
    ARGS, rest = parser.parse_known_args()
    unittest.main(argv=[sys.argv[0]] + rest)
