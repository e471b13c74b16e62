#!/usr/bin/env python3
"""Two `engram serve` replicas on one PostgreSQL: how long after a write is acknowledged by
one replica a search on the other finds it (the cross-replica visibility delay).

Starts a throwaway PostgreSQL (scripts/pg_server.sh) unless --pg-url is given, two servers on
it, and for each of --writes memories: a search on replica B (so B has the user's index
loaded), a write through replica A, then searches on B every few milliseconds until the new
memory is a hit. Prints the delays' percentiles and writes them as JSON with --out.

    scripts/replica_bench.py build/engram [--writes 200] [--out FILE]
"""
import argparse
import http.client
import json
import os
import socket
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def call(port, method, path, body=None):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    conn.request(method, path, body=json.dumps(body) if body is not None else None,
                 headers={"Content-Type": "application/json"})
    r = conn.getresponse()
    data = r.read()
    conn.close()
    if r.status >= 300:
        raise RuntimeError("%s %s -> %d %s" % (method, path, r.status, data[:300]))
    return json.loads(data)


def start_server(engram, url, work, name):
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("ENGRAM_")}
    log = open(os.path.join(work, name + ".log"), "wb")
    proc = subprocess.Popen([engram, "--db", url, "serve", "--port", str(port)],
                            stdout=log, stderr=subprocess.STDOUT, env=env)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            call(port, "GET", "/readyz")
            return proc, port
        except (OSError, RuntimeError):
            time.sleep(0.05)
    proc.kill()
    raise RuntimeError("%s did not start; see %s" % (name, log.name))


def percentile(values, p):
    s = sorted(values)
    return s[min(len(s) - 1, int(round(p / 100.0 * (len(s) - 1))))]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("engram")
    ap.add_argument("--writes", type=int, default=200)
    ap.add_argument("--pg-url", default="")
    ap.add_argument("--out", default="")
    args = ap.parse_args()
    work = tempfile.mkdtemp(prefix="engram-replicas-")
    pg_dir = os.path.join(work, "pg")
    url = args.pg_url
    if not url:
        url = subprocess.run([os.path.join(HERE, "pg_server.sh"), "start", pg_dir],
                             check=True, capture_output=True, text=True).stdout.strip()
    servers = []
    try:
        a, port_a = start_server(args.engram, url, work, "a")
        servers.append(a)
        b, port_b = start_server(args.engram, url, work, "b")
        servers.append(b)
        user = "bench-%d" % os.getpid()
        delays = []
        for i in range(args.writes):
            token = "marker%06dx" % i
            call(port_b, "POST", "/v1/search", {"user_id": user, "query": "warm up", "k": 1})
            call(port_a, "POST", "/v1/memories",
                 {"user_id": user, "content": "note %d about %s" % (i, token), "infer": False})
            acked = time.monotonic()
            while True:
                hits = call(port_b, "POST", "/v1/search",
                            {"user_id": user, "query": token, "k": 5})["results"]
                if any(token in h["memory"]["content"] for h in hits):
                    delays.append((time.monotonic() - acked) * 1000)
                    break
                if time.monotonic() - acked > 10:
                    raise RuntimeError("write %d never became visible on replica B" % i)
                time.sleep(0.002)
            if (i + 1) % 50 == 0:
                print("  %d/%d writes" % (i + 1, args.writes), file=sys.stderr)
        result = {"writes": len(delays), "p50_ms": percentile(delays, 50),
                  "p90_ms": percentile(delays, 90), "p99_ms": percentile(delays, 99),
                  "max_ms": max(delays)}
        print(json.dumps(result))
        if args.out:
            with open(args.out, "w") as f:
                json.dump({"result": result, "delays_ms": delays}, f, indent=1)
    finally:
        for p in servers:
            p.terminate()
            p.wait(timeout=30)
        if not args.pg_url:
            subprocess.run([os.path.join(HERE, "pg_server.sh"), "stop", pg_dir])


if __name__ == "__main__":
    main()
