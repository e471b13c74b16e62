#!/usr/bin/env python3
"""Fills an Engram server with USERS × PER_USER synthetic memories over POST /v1/memories/batch,
then warms every user's search index with one search. Progress on stderr."""
import argparse, http.client, json, sys, time, urllib.parse
from corpus import Corpus


def post(conn, path, body, headers):
    conn.request("POST", path, json.dumps(body), headers)
    resp = conn.getresponse()
    data = resp.read()
    if resp.status >= 300:
        sys.exit(f"{path}: HTTP {resp.status}: {data[:300]!r}")
    return json.loads(data)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--url", required=True)
    ap.add_argument("--users", type=int, default=100)
    ap.add_argument("--per-user", type=int, default=10000)
    ap.add_argument("--batch", type=int, default=1000)
    ap.add_argument("--key", default="")
    ap.add_argument("--per-user-hint", type=int, default=10000,
                    help="memories per user already stored (decides whether to wait for graphs)")
    ap.add_argument("--hnsw-threshold", type=int, default=50000,
                    help="the server's hnsw_threshold: scopes this large build HNSW graphs")
    args = ap.parse_args()
    u = urllib.parse.urlparse(args.url)
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=600)
    headers = {"Content-Type": "application/json"}
    if args.key:
        headers["Authorization"] = "Bearer " + args.key
    corpus = Corpus(seed=7)
    total, done, t0 = args.users * args.per_user, 0, time.time()
    for user in range(args.users):
        left = args.per_user
        while left:
            n = min(args.batch, left)
            post(conn, "/v1/memories/batch",
                 {"user_id": f"user{user}", "infer": False,
                  "memories": [{"text": corpus.memory()} for _ in range(n)]}, headers)
            left -= n
            done += n
        rate = done / max(time.time() - t0, 1e-9)
        print(f"\rloaded {done:,}/{total:,} memories ({rate:,.0f}/s)", end="", file=sys.stderr)
    print(file=sys.stderr)
    t1 = time.time()
    for user in range(args.users):
        post(conn, "/v1/search", {"user_id": f"user{user}", "query": "warm up"}, headers)
        print(f"\rwarmed {user + 1}/{args.users} user indexes ({time.time() - t1:.0f} s)",
              end="", file=sys.stderr)
    print(file=sys.stderr)
    # Scopes past the HNSW threshold build their graphs in the background; measure after.
    t2 = time.time()
    while time.time() - t2 < 900:
        try:
            conn.request("GET", "/metrics")
            text = conn.getresponse().read().decode()
        except (http.client.HTTPException, ConnectionError):  # idle keep-alive closed by the server
            conn.close()
            conn = http.client.HTTPConnection(u.hostname, u.port, timeout=600)
            conn.request("GET", "/metrics")
            text = conn.getresponse().read().decode()
        hnsw = next((int(float(l.split()[-1])) for l in text.splitlines()
                     if l.startswith("engram_index_hnsw_scopes ")), 0)
        print(f"\rHNSW graphs ready: {hnsw}/{args.users} ({time.time() - t2:.0f} s)", end="",
              file=sys.stderr)
        if hnsw >= args.users or args.per_user_hint < args.hnsw_threshold:
            break
        time.sleep(5)
    print(file=sys.stderr)


if __name__ == "__main__":
    main()
