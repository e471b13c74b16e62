"""`engram serve` on a real PostgreSQL 15 (started here on loopback with scripts/pg_server.sh,
its data in a temporary directory): the server stopped and started under a write load, and two
replicas sharing one database, one of them killed under load. Every acknowledged write is read
back afterwards.

    python3 tests/blackbox/postgres_test.py --engram build/engram
"""

import json
import os
import signal
import subprocess
import tempfile
import threading
import time
import unittest

import server_harness as h
from server_harness import ServerTestCase

PG_SERVER = os.path.join(h.ROOT, "scripts", "pg_server.sh")


class PostgresServer:
    """A throwaway PostgreSQL that a test may stop and start again on the same port."""

    def __init__(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="engram-pg-")
        self.dir = os.path.join(self.tmp.name, "pg")
        self.url = self.start()

    def start(self):
        return subprocess.run([PG_SERVER, "start", self.dir], check=True, capture_output=True,
                              text=True, timeout=120).stdout.strip()

    def stop(self):
        subprocess.run([PG_SERVER, "stop", self.dir], check=True, capture_output=True,
                       timeout=120)

    def close(self):
        try:
            self.stop()
        finally:
            self.tmp.cleanup()


class WriteLoad:
    """Threads that add memories (infer off) through the given ports until stopped; records
    every reply's status and each acknowledged id with the port that acknowledged it."""

    def __init__(self, ports, threads=4):
        self.ports = ports
        self.stop_flag = threading.Event()
        self.lock = threading.Lock()
        self.acked = []       # (id, user)
        self.statuses = {}    # status -> count
        self.slowest = 0.0    # seconds, the longest reply
        self.bad_bodies = []  # non-2xx replies that were not the JSON error body
        self.errors = []      # non-2xx replies
        self.threads = [threading.Thread(target=self.run, args=(i,), daemon=True)
                        for i in range(threads)]

    def run(self, n):
        i = 0
        while not self.stop_flag.is_set():
            port = self.ports[(n + i) % len(self.ports)]
            user = "load-%d" % (i % 3)
            i += 1
            client = h.Client(port, timeout=15)
            started = time.monotonic()
            try:
                r = client.request("POST", "/v1/memories", body={
                    "user_id": user, "content": "fact %d-%d said under load" % (n, i),
                    "infer": False})
            except OSError:
                client.close()
                continue  # a killed replica: the connection is gone, nothing was acknowledged
            client.close()
            took = time.monotonic() - started
            with self.lock:
                self.slowest = max(self.slowest, took)
                self.statuses[r.status] = self.statuses.get(r.status, 0) + 1
                if r.status in (200, 201):
                    for res in r.json()["results"]:
                        self.acked.append((res["id"], user))
                else:
                    self.errors.append(r)
                    try:
                        body = r.json()
                        if set(body) != {"error"}:
                            self.bad_bodies.append(r)
                    except ValueError:
                        self.bad_bodies.append(r)
            time.sleep(0.005)

    def __enter__(self):
        for t in self.threads:
            t.start()
        return self

    def __exit__(self, *exc):
        self.stop_flag.set()
        for t in self.threads:
            t.join(30)


class PostgresFaultsTest(ServerTestCase):
    # 503s are what these tests provoke: a stopped database, a readiness that follows it.
    ROUTES_ANSWERING_5XX = ("POST /v1/memories", "GET /readyz", "GET /v1/memories/{id}")

    def setUp(self):
        super().setUp()
        self.pg = PostgresServer()
        self.addCleanup(self.pg.close)

    def wait_ready(self, client, want, within):
        deadline = time.monotonic() + within
        while time.monotonic() < deadline:
            if client.request("GET", "/readyz").status == want:
                return True
            time.sleep(0.1)
        return False

    def read_back(self, client, acked):
        missing = []
        for mid, user in acked:
            r = client.request("GET", "/v1/memories/" + mid, params={"user_id": user})
            if r.status != 200:
                missing.append((mid, r.status))
        return missing

    def test_postgres_stopped_under_load_gives_503s_then_recovers_losing_nothing(self):
        s = self.start_server("--busy-timeout-ms", "2000", db=self.pg.url)
        c = s.client()
        with WriteLoad([s.port]) as load:
            time.sleep(1.5)
            self.pg.stop()
            time.sleep(0.5)
            down = c.request("POST", "/v1/memories",
                             body={"user_id": "probe", "content": "while down", "infer": False})
            self.assertEqual(down.status, 503, down)
            self.assertIn("error", down.json())
            ready = c.request("GET", "/readyz")
            self.assertEqual(ready.status, 503, ready)
            time.sleep(1.5)
            self.pg.start()
            self.assertTrue(self.wait_ready(c, 200, 15), "never ready again: " + s.stderr())
            time.sleep(1.5)
        self.assertGreater(load.statuses.get(201, 0), 20, load.statuses)
        self.assertGreater(load.statuses.get(503, 0), 0, load.statuses)
        self.assertEqual(set(load.statuses) - {201, 503}, set(), load.statuses)  # no 500
        self.assertEqual(load.bad_bodies, [])
        self.assertLess(load.slowest, 10.0)  # never a hang past the request timeout
        after = c.request("POST", "/v1/memories",
                          body={"user_id": "probe", "content": "after", "infer": False})
        self.assertEqual(after.status, 201, after)
        self.assertEqual(self.read_back(c, load.acked), [])
        # Said once each in the log, not once per failed write.
        log = s.stderr()
        self.assertEqual(log.count("writes failing"), 1, log)
        self.assertEqual(log.count("writes work again"), 1, log)

    def test_two_replicas_share_one_database_and_a_killed_one_loses_nothing(self):
        a = self.start_server(db=self.pg.url, name="a")
        b = self.start_server(db=self.pg.url, name="b")
        ca, cb = a.client(), b.client()
        # A write through a is read and found by search through b.
        w = self.ok(ca, "POST", "/v1/memories",
                    {"user_id": "alice", "content": "I keep bees in Lisbon", "infer": False},
                    expect=201)
        mid = w["results"][0]["id"]
        self.assertEqual(self.ok(cb, "GET", "/v1/memories/" + mid,
                                 params={"user_id": "alice"})["content"],
                         "I keep bees in Lisbon")
        hits = self.ok(cb, "POST", "/v1/search", {"user_id": "alice", "query": "bees"})
        self.assertEqual([x["id"] for x in hits["results"]][:1], [mid])
        # Another through b while a has alice's index loaded: a's searches find it too.
        self.ok(ca, "POST", "/v1/search", {"user_id": "alice", "query": "bees"})
        w2 = self.ok(cb, "POST", "/v1/memories",
                     {"user_id": "alice", "content": "The bees make honey", "infer": False},
                     expect=201)
        deadline = time.monotonic() + 1.0
        found = False
        while not found and time.monotonic() < deadline:
            hits = self.ok(ca, "POST", "/v1/search", {"user_id": "alice", "query": "honey"})
            found = w2["results"][0]["id"] in [x["id"] for x in hits["results"]]
            time.sleep(0.02)
        self.assertTrue(found, "a did not find b's write within a second")
        # Tenants stay apart across replicas.
        other = self.ok(cb, "POST", "/v1/search", {"user_id": "bob", "query": "bees"})
        self.assertEqual(other["results"], [])
        # a is killed while both take writes; everything either acknowledged is there.
        with WriteLoad([a.port, b.port]) as load:
            time.sleep(1.5)
            a.proc.send_signal(signal.SIGKILL)
            a.proc.wait(10)
            a.proc = None  # killed on purpose: tearDown does not stop it
            a._stderr.close()
            time.sleep(1.5)
        self.assertGreater(load.statuses.get(201, 0), 20, load.statuses)
        self.assertEqual(set(load.statuses) - {201}, set(), load.errors[:3])
        self.assertEqual(self.read_back(cb, load.acked), [])


class MigrateTest(ServerTestCase):
    """engram migrate --from sqlite:PATH --to postgres://…"""

    def setUp(self):
        super().setUp()
        self.pg = PostgresServer()
        self.addCleanup(self.pg.close)

    def engram(self, *args, db=None):
        cmd = [h.ENGRAM] + (["--db", db] if db else []) + list(args)
        return subprocess.run(cmd, capture_output=True, text=True, env=h.clean_env(), timeout=120)

    def test_a_file_moves_to_postgres_whole_resumably_and_verified(self):
        src = os.path.join(self.dir, "src.db")
        for user, tenant, text in [("alice", "default", "I live in Lisbon and I love jazz"),
                                   ("alice", "default", "My sister Ella is a nurse"),
                                   ("bob", "acme", "我家狗叫可乐，五岁了")]:
            r = self.engram("--tenant", tenant, "-u", user, "add", text, db=src)
            self.assertEqual(r.returncode, 0, r.stderr)
        key = h.create_key(src, "acme")
        first = self.engram("--json", "migrate", "--from", "sqlite:" + src, "--to", self.pg.url)
        self.assertEqual(first.returncode, 0, first.stderr)
        report = json.loads(first.stdout)
        self.assertTrue(report["verified"])
        self.assertEqual(report["users"], 2)
        self.assertGreater(report["imported"], 3)
        self.assertEqual(report["imported"], report["memories"])
        self.assertIn("100%", first.stderr)  # progress
        # Run again: nothing left to copy, still verified (the state file says who is done).
        again = self.engram("--json", "migrate", "--from", src, "--to", self.pg.url)
        self.assertEqual(again.returncode, 0, again.stderr)
        self.assertEqual(json.loads(again.stdout)["imported"], 0)
        # The source changes afterwards: verification names the user that differs.
        self.assertEqual(self.engram("-u", "alice", "add", "--no-infer", "I moved to Porto",
                                     db=src).returncode, 0)
        stale = self.engram("migrate", "--verify-only", "--from", src, "--to", self.pg.url)
        self.assertEqual(stale.returncode, 1, stale.stdout + stale.stderr)
        self.assertIn("differs: default/alice", stale.stderr)
        # Without the state file alice is copied again: what is there is skipped, the new
        # memory added, and both sides are equal.
        os.remove(src + ".migrate-state")
        fixed = self.engram("--json", "migrate", "--from", src, "--to", self.pg.url)
        self.assertEqual(fixed.returncode, 0, fixed.stderr)
        self.assertTrue(json.loads(fixed.stdout)["verified"])
        # The server on PostgreSQL serves the migrated data with the migrated key.
        s = self.start_server(db=self.pg.url)
        c = s.client(key=key["secret"])
        hits = self.ok(c, "POST", "/v1/search", {"user_id": "bob", "query": "可乐"})
        self.assertTrue(any("可乐" in x["memory"]["content"] for x in hits["results"]), hits)

    def test_bad_arguments_are_usage_errors(self):
        r = self.engram("migrate", "--from", os.path.join(self.dir, "none.db"), "--to",
                        self.pg.url)
        self.assertEqual(r.returncode, 3, r.stderr)
        r = self.engram("migrate", "--from", self.pg.url, "--to", self.pg.url)
        self.assertEqual(r.returncode, 2, r.stderr)


if __name__ == "__main__":
    h.main()
