"""Two `engram serve` replicas on one PostgreSQL sharing a Redis (both started here on
loopback, scripts/pg_server.sh and scripts/redis_server.sh): an API key's rate limit holds
across the replicas, a session's summary comes every N turns whichever replica took them, and
with Redis stopped nothing fails: /readyz stays 200 and names the degradation, /metrics shows
it, the log says it once, and all of it recovers by itself when Redis returns.

    python3 tests/blackbox/redis_test.py --engram build/engram
"""

import os
import time
import unittest

import server_harness as h
from postgres_test import PostgresServer
from server_harness import ServerTestCase

class RedisServer(h.ThrowawayService):
    """A throwaway Redis that a test may stop and start again on the same port."""

    def __init__(self):
        super().__init__("redis_server.sh", "engram-redis-")


class RedisTest(ServerTestCase):
    def setUp(self):
        super().setUp()
        self.pg = PostgresServer()
        self.addCleanup(self.pg.close)
        self.redis = RedisServer()
        self.addCleanup(self.redis.close)

    def replicas(self, *args):
        common = ("--redis", self.redis.url) + args
        return (self.start_server(*common, db=self.pg.url, name="a"),
                self.start_server(*common, db=self.pg.url, name="b"))

    def test_a_keys_rate_limit_holds_across_replicas(self):
        key = h.create_key(self.pg.url, "acme")["secret"]
        # 0.5 a second with 4 at once: each replica alone would take 4 each, 8 in all.
        a, b = self.replicas("--rate-limit", "0.5", "--rate-burst", "4")
        ca, cb = a.client(key=key), b.client(key=key)
        statuses = []
        for i in range(8):
            r = (ca if i % 2 == 0 else cb).request(
                "GET", "/v1/memories", params={"user_id": "alice"})
            statuses.append(r.status)
            if r.status == 429:
                self.assert_error_body(r, 429, code="rate_limited")
                self.assertGreaterEqual(int(r.header("Retry-After")), 1)
        self.assertEqual(statuses[:4], [200] * 4, statuses)
        # The bucket refills at 0.5/s: over a few milliseconds, at most one more token.
        self.assertLessEqual(statuses.count(200), 5, statuses)
        self.assertGreaterEqual(statuses.count(429), 3, statuses)
        self.assertIn(429, statuses[4::2], statuses)  # on a as on b
        self.assertIn(429, statuses[5::2], statuses)

    def test_the_session_summary_comes_every_n_turns_across_replicas(self):
        a, b = self.replicas("--summarize-every", "4")
        ca, cb = a.client(), b.client()

        def turns(*texts):
            return {"user_id": "alice", "infer": False, "messages": [
                {"role": "user" if i % 2 == 0 else "assistant", "content": t}
                for i, t in enumerate(texts)]}

        first = self.ok(ca, "POST", "/v1/sessions/s1/messages",
                        turns("I moved to Lisbon in May.", "Nice city!"), expect=201)
        self.assertIsNone(first["summary"])
        second = self.ok(cb, "POST", "/v1/sessions/s1/messages",
                         turns("I work at a bakery there.", "Sounds fun."), expect=201)
        self.assertIsNotNone(second["summary"], second)  # the session's 4th turn, on b
        self.assertIn("Lisbon", second["summary"]["content"])
        # a's working memory holds b's turns.
        session = self.ok(ca, "GET", "/v1/sessions/s1", params={"user_id": "alice"})
        contents = [t["content"] for t in session["working"]["turns"]]
        self.assertIn("I work at a bakery there.", contents, session)

    def test_without_redis_nothing_fails_and_it_says_so_until_redis_is_back(self):
        a, b = self.replicas("--rate-limit", "100")
        ca = a.client()
        self.assertEqual(self.ok(ca, "GET", "/readyz"), {"status": "ready"})
        self.redis.stop()
        for i in range(5):
            self.ok(ca, "POST", "/v1/memories",
                    {"user_id": "alice", "content": "fact %d while Redis is down" % i,
                     "infer": False}, expect=201)
            self.ok(ca, "POST", "/v1/sessions/s1/messages",
                    {"user_id": "alice", "infer": False,
                     "messages": [{"role": "user", "content": "turn %d" % i}]}, expect=201)
        ready = self.ok(ca, "GET", "/readyz")
        self.assertEqual(ready["status"], "ready")
        self.assertEqual(len(ready["degraded"]), 1, ready)
        self.assertIn("redis", ready["degraded"][0])
        metrics = ca.request("GET", "/metrics").text()
        self.assertIn("engram_redis_up 0", metrics)
        log = a.stderr()
        self.assertEqual(log.count("is unreachable"), 1, log)  # once, not per request
        self.assertNotIn("redis://:", log)  # never a password (none here, but the form)

        self.redis.start()
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            ready = self.ok(ca, "GET", "/readyz")
            if "degraded" not in ready:
                break
            time.sleep(0.2)
        self.assertEqual(ready, {"status": "ready"})
        self.assertIn("engram_redis_up 1", ca.request("GET", "/metrics").text())
        self.assertEqual(a.stderr().count("is back"), 1, a.stderr())
        # Every write made meanwhile is there, on the other replica too.
        listed = self.ok(b.client(), "GET", "/v1/memories",
                         params={"user_id": "alice", "limit": 100})
        self.assertEqual(sum("while Redis is down" in m["content"] for m in listed["results"]), 5)

    def test_a_bad_redis_url_is_a_usage_error_naming_it(self):
        r = h.run_engram(self.pg.url, "serve", "--port", "0", "--redis", "http://nope:1")
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("redis://", r.stderr.decode() if isinstance(r.stderr, bytes) else r.stderr)


if __name__ == "__main__":
    h.main()
