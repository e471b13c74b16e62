#!/usr/bin/env python3
"""Cold start of a replica on PostgreSQL holding many memories, and the sizing figures that come
with it (issue 36): how long a fresh `engram serve` takes to be ready and to answer its first
search, what loading one more user's index costs, the database's bytes per memory, and the
replica's memory per loaded memory.

Starts a throwaway PostgreSQL (scripts/pg_server.sh) in --pg-dir and fills it through the API
with --users x --per-user synthetic memories (bench/server/load.py, progress on stderr) unless
that directory already holds a loaded database (a marker file records the figures it was
loaded with, so a second run measures again without reloading). Then, --runs times: start
`engram serve`, time /readyz, the first search of one user, and the first search of each of
--probe other users (each loads that user's index from the database); read the server's
resident memory after loading --ram-users users' indexes. Prints a Markdown report; --out
writes it too. The database stays in --pg-dir (delete the directory to reclaim the space).

    scripts/pg_coldstart.py build/engram --pg-dir /var/tmp/engram-1m [--users 1000 --per-user 1000]
"""
import argparse
import http.client
import json
import os
import platform
import random
import statistics
import subprocess
import sys
import time

from replica_bench import free_port

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def call(port, method, path, body=None):
    """The reply's status and body (replica_bench.call raises on a non-2xx: /readyz's 503
    is an answer here)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    conn.request(method, path, body=json.dumps(body) if body is not None else None,
                 headers={"Content-Type": "application/json"})
    r = conn.getresponse()
    data = r.read()
    conn.close()
    return r.status, data


def psql(url, sql):
    return subprocess.run(["psql", url, "-Atc", sql], check=True, capture_output=True,
                          text=True).stdout.strip()


class Server:
    def __init__(self, engram, db):
        self.port = free_port()
        env = dict(os.environ)
        env.pop("ENGRAM_DB", None)
        self.t0 = time.monotonic()
        self.proc = subprocess.Popen([engram, "--db", db, "serve", "--port", str(self.port)],
                                     env=env, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.PIPE, text=True)

    def wait_ready(self, within=120):
        while time.monotonic() - self.t0 < within:
            if self.proc.poll() is not None:
                sys.exit("engram serve exited: " + self.proc.stderr.read())
            try:
                if call(self.port, "GET", "/readyz")[0] == 200:
                    return time.monotonic() - self.t0
            except OSError:
                pass
            time.sleep(0.005)
        sys.exit("engram serve never ready")

    def search(self, user):
        t = time.monotonic()
        status, data = call(self.port, "POST", "/v1/search",
                            {"user_id": user, "query": "what do I like to eat", "k": 5})
        if status != 200:
            sys.exit("search: HTTP %d %s" % (status, data[:200]))
        return time.monotonic() - t

    def rss_mib(self):
        with open("/proc/%d/status" % self.proc.pid) as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
        return 0.0

    def stop(self):
        self.proc.terminate()
        self.proc.wait(timeout=60)


def load(args, url):
    marker = os.path.join(args.pg_dir, "engram-loaded.json")
    if os.path.exists(marker):
        with open(marker) as f:
            loaded = json.load(f)
        if loaded == {"users": args.users, "per_user": args.per_user}:
            print("== database already loaded: %s" % loaded, file=sys.stderr)
            return
        sys.exit("%s holds %s, not the asked size: use another --pg-dir" % (args.pg_dir, loaded))
    server = Server(args.engram, url)
    server.wait_ready()
    print("== loading %d users x %d memories" % (args.users, args.per_user), file=sys.stderr)
    t = time.monotonic()
    subprocess.run([sys.executable, os.path.join(ROOT, "bench/server/load.py"),
                    "--url", "http://127.0.0.1:%d" % server.port, "--users", str(args.users),
                    "--per-user", str(args.per_user), "--per-user-hint", str(args.per_user),
                    "--batch", "1000"], check=True, cwd=os.path.join(ROOT, "bench/server"))
    print("== loaded in %.0f s" % (time.monotonic() - t), file=sys.stderr)
    server.stop()
    with open(marker, "w") as f:
        json.dump({"users": args.users, "per_user": args.per_user}, f)


def measure(args, url):
    rng = random.Random(5)
    runs = []
    for run in range(args.runs):
        server = Server(args.engram, url)
        ready = server.wait_ready()
        first_user = "user%d" % rng.randrange(args.users)
        first = server.search(first_user)
        total_first = time.monotonic() - server.t0
        probes = [server.search("user%d" % u)
                  for u in rng.sample(range(args.users), args.probe)]
        warm = statistics.median(server.search(first_user) for _ in range(20))
        runs.append({"ready_s": ready, "first_search_s": first, "start_to_first_answer_s":
                     total_first, "index_load_p50_s": statistics.median(probes),
                     "index_load_max_s": max(probes), "warm_search_s": warm})
        print("== run %d: ready %.3f s, first answer %.3f s after start" %
              (run + 1, ready, total_first), file=sys.stderr)
        if run == args.runs - 1:
            rss_idle = server.rss_mib()
            users = rng.sample(range(args.users), args.ram_users)
            for u in users:
                server.search("user%d" % u)
            rss_loaded = server.rss_mib()
            runs[-1]["rss_start_mib"] = rss_idle
            runs[-1]["rss_loaded_mib"] = rss_loaded
        server.stop()
    return runs


def sizes(url):
    items = int(psql(url, "SELECT count(*) FROM items"))
    db = int(psql(url, "SELECT pg_database_size(current_database())"))
    tables = psql(url, "SELECT c.relname, pg_total_relation_size(c.oid) FROM pg_class c "
                  "JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public' "
                  "AND c.relkind IN ('r', 'p') ORDER BY 2 DESC LIMIT 6")
    return items, db, [line.split("|") for line in tables.splitlines()]


def report(args, runs, items, db, tables):
    med = lambda k: statistics.median(r[k] for r in runs)
    last = runs[-1]
    per_memory_ram = (last["rss_loaded_mib"] - last["rss_start_mib"]) * 2**20 / (
        args.ram_users * args.per_user)
    lines = [
        "# Cold start of a replica on PostgreSQL (%s)" % time.strftime("%Y-%m-%d"),
        "",
        "Machine: %d cores, %s; PostgreSQL on the same machine (scripts/pg_server.sh, loopback, "
        "fsync off). Command: `scripts/pg_coldstart.py %s --users %d --per-user %d --runs %d`." %
        (os.cpu_count(), platform.machine(), os.path.relpath(args.engram, ROOT), args.users,
         args.per_user, args.runs),
        "",
        "%s memories in %d users. Medians of %d starts (a new process each time; PostgreSQL's own "
        "cache stays warm between them):" % (f"{items:,}", args.users, args.runs),
        "",
        "| | seconds |",
        "|---|---|",
        "| start to `/readyz` 200 | %.3f |" % med("ready_s"),
        "| first search after ready (loads that user's %d memories) | %.3f |" %
        (args.per_user, med("first_search_s")),
        "| start to first answered search | %.3f |" % med("start_to_first_answer_s"),
        "| first search of another user (index load), p50 of %d | %.3f |" %
        (args.probe, med("index_load_p50_s")),
        "| same, slowest | %.3f |" % max(r["index_load_max_s"] for r in runs),
        "| a search of a loaded user, p50 | %.4f |" % med("warm_search_s"),
        "",
        "Sizing:",
        "",
        "| | |",
        "|---|---|",
        "| database size | %.0f MiB (%s bytes per memory, indexes included) |" %
        (db / 2**20, f"{db // max(items, 1):,}"),
        "| replica memory at start | %.0f MiB |" % last["rss_start_mib"],
        "| replica memory with %d users' indexes loaded (%s memories) | %.0f MiB (%s bytes per "
        "loaded memory) |" % (args.ram_users, f"{args.ram_users * args.per_user:,}",
                              last["rss_loaded_mib"], f"{per_memory_ram:,.0f}"),
        "",
        "Largest tables (bytes with indexes and TOAST):",
        "",
        "| table | MiB |",
        "|---|---|",
    ]
    lines += ["| %s | %.0f |" % (name, int(size) / 2**20) for name, size in tables]
    lines += ["", "Raw figures:", "", "```json", json.dumps(runs, indent=1), "```", ""]
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("engram")
    ap.add_argument("--pg-dir", required=True, help="PostgreSQL data directory (kept)")
    ap.add_argument("--users", type=int, default=1000)
    ap.add_argument("--per-user", type=int, default=1000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--probe", type=int, default=20, help="other users searched per run")
    ap.add_argument("--ram-users", type=int, default=100, help="users loaded for the RAM figure")
    ap.add_argument("--out")
    args = ap.parse_args()
    args.engram = os.path.abspath(args.engram)
    args.ram_users = min(args.ram_users, args.users)
    args.probe = min(args.probe, args.users)
    url = subprocess.run([os.path.join(HERE, "pg_server.sh"), "start", args.pg_dir], check=True,
                         capture_output=True, text=True).stdout.strip()
    try:
        load(args, url)
        runs = measure(args, url)
        items, db, tables = sizes(url)
    finally:
        subprocess.run([os.path.join(HERE, "pg_server.sh"), "stop", args.pg_dir], check=False)
    text = report(args, runs, items, db, tables)
    print(text)
    if args.out:
        os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
        with open(args.out, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
