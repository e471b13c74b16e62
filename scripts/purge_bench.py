#!/usr/bin/env python3
"""The verified purge of one user, timed (issue: a user with 10,000 memories and their turns
purged and verified trace-free in <= 2 s).

Fills a fresh database through a real `engram serve` on loopback: the user gets --items
memories (batches of 100, stored as given) and --turns conversation turns in sessions (through
the write path, so kept turns, extracted memories and session turns), and another user the same
number of memories, some of them the same words (which must stay). Then stops the server and
runs `engram purge --all-memories --yes --verify --json`, printing its report and the wall time.

  scripts/purge_bench.py --engram build/engram [--items 10000] [--turns 2000] [--runs 3]
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request


def post(port, path, body):
    req = urllib.request.Request("http://127.0.0.1:%d%s" % (port, path), method="POST",
                                 data=json.dumps(body).encode(),
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=60) as r:
            return json.loads(r.read())
    except urllib.error.HTTPError as e:
        sys.exit("%s %s -> %d %s" % (path, json.dumps(body)[:200], e.code, e.read()[:300]))


def fill(engram, db, items, turns, port):
    server = subprocess.Popen([engram, "--db", db, "serve", "--port", str(port),
                               "--max-batch", "100"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(100):
            try:
                urllib.request.urlopen("http://127.0.0.1:%d/healthz" % port, timeout=1)
                break
            except OSError:
                time.sleep(0.1)
        for user in ("big", "other"):
            for start in range(0, items, 100):
                post(port, "/v1/memories/batch", {
                    "user_id": user, "infer": False,
                    "memories": [{"content": "Note %d of %s: the parcel code is %s-%06d"
                                  % (i, "someone" if i % 10 else "everyone", user if i % 10 else
                                     "shared", i)} for i in range(start, min(items, start + 100))]})
                done = start + 100
                if done % 2000 == 0:
                    print("  %s: %d/%d memories" % (user, done, items), file=sys.stderr)
        for i in range(turns):
            post(port, "/v1/sessions/s%d/messages" % (i // 20), {
                "user_id": "big", "infer": True,
                "messages": [{"role": "user", "content": "I visited Quetzal market stall %d today"
                              " and I like jasmine tea number %d." % (i, i)}]})
            if (i + 1) % 500 == 0:
                print("  big: %d/%d turns" % (i + 1, turns), file=sys.stderr)
    finally:
        server.terminate()
        server.wait(timeout=600)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--engram", required=True)
    ap.add_argument("--items", type=int, default=10000)
    ap.add_argument("--turns", type=int, default=2000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--port", type=int, default=18791)
    ap.add_argument("--template", help="a database filled before (kept by --keep): copied "
                    "instead of filling again")
    ap.add_argument("--keep", help="copy the filled database here before purging")
    args = ap.parse_args()
    for run in range(args.runs):
        with tempfile.TemporaryDirectory() as d:
            db = os.path.join(d, "bench.db")
            if args.template:
                shutil.copy(args.template, db)
            else:
                print("run %d: filling %s" % (run + 1, db), file=sys.stderr)
                fill(args.engram, db, args.items, args.turns, args.port)
                if args.keep:
                    shutil.copy(db, args.keep)
            started = time.monotonic()
            r = subprocess.run([args.engram, "--db", db, "--user", "big", "--json", "purge",
                                "--all-memories", "--yes", "--verify"], capture_output=True)
            wall = time.monotonic() - started
            report = json.loads(r.stdout)
            for t in report["traces"][:5]:
                print("  trace: " + t, file=sys.stderr)
            report["traces"] = len(report["traces"])
            report.update(run=run + 1, exit=r.returncode, wall_s=round(wall, 3),
                          db_bytes=report["bytes"])
            print(json.dumps(report))


if __name__ == "__main__":
    main()
