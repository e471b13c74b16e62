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
import time
import unittest

import server_harness as h
from server_harness import ServerTestCase

class PostgresServer(h.ThrowawayService):
    """A throwaway PostgreSQL that a test may stop and start again on the same port."""

    def __init__(self):
        super().__init__("pg_server.sh", "engram-pg-")


class WriteLoad(h.LoadThreads):
    """Threads that add memories (infer off) through the given ports until stopped; records
    every reply's status and each acknowledged id with the port that acknowledged it."""

    def __init__(self, ports, threads=4):
        super().__init__(threads)
        self.ports = ports
        self.acked = []       # (id, user)
        self.statuses = {}    # status -> count
        self.slowest = 0.0    # seconds, the longest reply
        self.bad_bodies = []  # non-2xx replies that were not the JSON error body
        self.errors = []      # non-2xx replies

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


class PostgresFaultsTest(ServerTestCase):
    # 503s are what these tests provoke: a stopped database, a readiness that follows it.
    ROUTES_ANSWERING_5XX = ("POST /v1/memories", "GET /readyz", "GET /v1/memories/{id}",
                            "GET /v1/memories")

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
        # A user whose index this replica has loaded (searched once) before the database stops.
        loaded = c.request("POST", "/v1/memories", body={
            "user_id": "reader", "content": "My sister Lena lives in Porto", "infer": False})
        self.assertEqual(loaded.status, 201, loaded)
        query = {"user_id": "reader", "query": "where does Lena live"}
        self.assertEqual(c.request("POST", "/v1/search", body=query).status, 200)
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
            # Searches and contexts of a loaded user go on from memory (index and item cache).
            found = c.request("POST", "/v1/search", body=query)
            self.assertEqual(found.status, 200, found)
            self.assertIn("Porto", found.json()["results"][0]["memory"]["content"])
            context = c.request("POST", "/v1/context", body=dict(query, token_budget=200))
            self.assertEqual(context.status, 200, context)
            self.assertIn("Porto", context.text())
            # A listing reads the database: 503 with the cause.
            listing = c.request("GET", "/v1/memories", params={"user_id": "reader"})
            self.assertEqual(listing.status, 503, listing)
            self.assertIn("error", listing.json())
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

    def test_a_newer_schema_or_an_unknown_role_stops_the_start_with_exit_code_2(self):
        r = self.engram("-u", "ana", "add", "I live in Lisbon", db=self.pg.url)
        self.assertEqual(r.returncode, 0, r.stderr)  # the schema exists now
        subprocess.run(["psql", self.pg.url, "-qc", "INSERT INTO schema_version (version, name, "
                        "applied_at) VALUES (999, 'from a later Engram', 0)"], check=True)
        newer = self.engram("serve", "--port", str(h.free_port()), db=self.pg.url)
        self.assertEqual(newer.returncode, 2, newer.stderr)
        self.assertIn("schema version 999 is newer than this Engram supports", newer.stderr)
        ghost = self.pg.url.replace("://engram@", "://ghost:hunter2@", 1)
        unknown = self.engram("serve", "--port", str(h.free_port()), db=ghost)
        self.assertEqual(unknown.returncode, 2, unknown.stderr)
        self.assertIn('role "ghost" does not exist', unknown.stderr)
        self.assertIn("ghost:***@", unknown.stderr)
        self.assertNotIn("hunter2", unknown.stderr)

    def test_bad_arguments_are_usage_errors(self):
        r = self.engram("migrate", "--from", os.path.join(self.dir, "none.db"), "--to",
                        self.pg.url)
        self.assertEqual(r.returncode, 3, r.stderr)
        r = self.engram("migrate", "--from", self.pg.url, "--to", self.pg.url)
        self.assertEqual(r.returncode, 2, r.stderr)


class RunPgTest(ServerTestCase):
    """`make run-pg` (scripts/run_pg.sh): PostgreSQL and Redis started on loopback, the server on
    them; Ctrl-C (SIGINT to the process group, as a terminal sends it) stops all three, and a
    second run finds the first run's memories."""

    def run_pg(self, port, pg_dir, redis_dir):
        env = dict(os.environ, PORT=str(port), PG_DIR=pg_dir, REDIS_DIR=redis_dir)
        env.pop("ENGRAM_DB", None)
        env.pop("ENGRAM_REDIS", None)
        proc = subprocess.Popen([os.path.join(h.ROOT, "scripts", "run_pg.sh"),
                                 os.path.dirname(h.ENGRAM)], env=env, cwd=self.dir,
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                start_new_session=True)
        self.addCleanup(lambda: proc.poll() is None and os.killpg(proc.pid, signal.SIGKILL))
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            client = h.Client(port)  # a fresh one: a refused connection leaves it unusable
            try:
                if client.request("GET", "/readyz").status == 200:
                    return proc, client
            except (OSError, h.http.client.HTTPException):
                pass
            self.assertIsNone(proc.poll(), proc.stdout.read() if proc.poll() is not None else "")
            time.sleep(0.2)
        self.fail("make run-pg never ready")

    def interrupt(self, proc):
        os.killpg(proc.pid, signal.SIGINT)
        out, _ = proc.communicate(timeout=60)
        self.assertIn("PostgreSQL stopped", out)
        return out

    def test_run_pg_serves_on_postgres_and_redis_and_keeps_the_data(self):
        pg_dir, redis_dir = os.path.join(self.dir, "pg"), os.path.join(self.dir, "redis")
        port = h.free_port()
        proc, c = self.run_pg(port, pg_dir, redis_dir)
        ready = c.request("GET", "/readyz").json()
        self.assertNotIn("degraded", ready)  # Redis answers
        added = self.ok(c, "POST", "/v1/memories",
                        {"user_id": "ana", "content": "I moved to Lisbon in May", "infer": False},
                        expect=201)
        out = self.interrupt(proc)
        self.assertIn("postgres://engram_app@127.0.0.1:", out)  # an ordinary role, not a superuser
        self.assertIn("Redis at redis://127.0.0.1:", out)
        # Everything it started is stopped: its PostgreSQL refuses connections.
        self.assertFalse(os.path.exists(os.path.join(pg_dir, "postmaster.pid")))
        proc, c = self.run_pg(port, pg_dir, redis_dir)
        got = self.ok(c, "GET", "/v1/memories/" + added["results"][0]["id"],
                      params={"user_id": "ana"})
        self.assertEqual(got["content"], "I moved to Lisbon in May")
        self.interrupt(proc)


if __name__ == "__main__":
    h.main()
