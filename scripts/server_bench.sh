#!/usr/bin/env bash
# Server load benchmark (issue 4): USERS users × PER_USER memories on the embedded database,
# then wrk with keep-alive against POST /v1/search and POST /v1/memories. Writes a table with
# the machine to bench/results/<date>-server/run-NN.md (UTC date, the first free NN from 01:
# recorded results are never overwritten).
# Every write here stores its text as given ("infer": false in bench/server/load.py, add.lua and
# bench/http_load.cc, like `engram add --no-infer`): extraction is the default for
# POST /v1/memories, and these targets are about the store, not the extractor.
#   scripts/server_bench.sh [build-dir]
# Every run measures the same data: the first run loads USERS × PER_USER memories into a base
# database (~1-4 min) and keeps it; each run then works on a fresh copy of it, so the memories an
# earlier add run stored are not searched by the next one.
# Before the measured runs, a WARMUP-long search run (not recorded) fills SQLite's page caches
# and the item cache, so that the first measured run is not slower than the next ones.
# Then latency at fixed request rates: engram_http_load (bench/http_load.cc) sends requests on
# a schedule over OPEN_CONNECTIONS keep-alive connections and measures each from the time it
# was due, so a stall counts for every request it delays (wrk measures at saturation, where the
# mean latency is connections / throughput).
# Verdict on issue 4's targets (≥ 5,000 search and ≥ 2,000 add req/s, p99 ≤ 20 ms): the rate
# from wrk at saturation, the p99 at the target rate from the fixed-rate run (both rates are in
# the default SEARCH_RATES and ADD_RATES). wrk's p99 is recorded, not judged: it is the queue
# of CONNECTIONS requests always outstanding, at whatever rate the server reaches.
# Env: USERS (100), PER_USER (10000), CONNECTIONS (32), DURATION (30s), WARMUP (10s; 0 for
#      none), WRK_THREADS (1), SERVE_FLAGS (extra `engram serve` flags, none),
#      SEARCH_RATES ("1000 2500 5000"), ADD_RATES ("1000 2000"), OPEN_CONNECTIONS (64),
#      OPEN_SECONDS (15), SETTLE (10: seconds without load before each fixed-rate run, so that
#      it measures its own rate and not the tail of the run before: after a saturated run the
#      server still writes up to 100,000 access counts), OPEN_WARMUP (3: seconds each fixed-rate
#      run sends at its rate before it records: the first requests after an idle spell are slower),
#      BENCH_DIR (/var/tmp/engram-server-bench: base-<USERS>x<PER_USER>.db is kept, run.db is
#      the copy a run uses; delete the base to reload),
#      HUGE_PAGES (3072: huge pages of 2 MiB reserved for the run with scripts/huge-pages.sh and
#      given back after it, and the server started the way the README's operator recipe says:
#      `--huge-pages` with GLIBC_TUNABLES=glibc.malloc.hugetlb=2, so index rows and glibc's
#      arenas live there; 100 × 10k takes ~1,700 at the start and ~2,200 once the adds have
#      grown every user's arrays. 0: the server's defaults, ordinary memory, the pool untouched).
set -euo pipefail
BUILD=${1:-build}
USERS=${USERS:-100}
PER_USER=${PER_USER:-10000}
CONNECTIONS=${CONNECTIONS:-32}
DURATION=${DURATION:-30s}
WARMUP=${WARMUP:-10s}
WRK_THREADS=${WRK_THREADS:-1}
SERVE_FLAGS=${SERVE_FLAGS:-}
SEARCH_RATES=${SEARCH_RATES:-1000 2500 5000}
ADD_RATES=${ADD_RATES:-1000 2000}
OPEN_CONNECTIONS=${OPEN_CONNECTIONS:-64}
OPEN_SECONDS=${OPEN_SECONDS:-15}
SETTLE=${SETTLE:-10}
OPEN_WARMUP=${OPEN_WARMUP:-3}
BENCH_DIR=${BENCH_DIR:-/var/tmp/engram-server-bench}
HUGE_PAGES=${HUGE_PAGES:-3072}
BASE_DB="$BENCH_DIR/base-${USERS}x${PER_USER}.db"
RUN_DB="$BENCH_DIR/run.db"
HERE=$(cd "$(dirname "$0")/.." && pwd)
export ENGRAM_BENCH_DIR="$HERE/bench/server" ENGRAM_USERS="$USERS"

command -v wrk >/dev/null || { apt-get install -y -q wrk >/dev/null || apt-get update -q && apt-get install -y -q wrk; }
mkdir -p "$BENCH_DIR"
WORK=$(mktemp -d)
SERVER=
POOL_BEFORE=$(cat /proc/sys/vm/nr_hugepages)
restore_pool() {  # gives back the huge pages this run reserved
  if [ "$(cat /proc/sys/vm/nr_hugepages)" != "$POOL_BEFORE" ]; then
    echo "$POOL_BEFORE" > /proc/sys/vm/nr_hugepages || true
  fi
}
trap 'if [ -n "$SERVER" ]; then kill -TERM $SERVER 2>/dev/null || true; wait $SERVER 2>/dev/null || true; fi; restore_pool; rm -rf "$WORK"' EXIT
[ "$HUGE_PAGES" = 0 ] || "$HERE/scripts/huge-pages.sh" "$HUGE_PAGES"

start_server() {  # database
  rm -f "$WORK/url"
  # shellcheck disable=SC2086  # SERVE_FLAGS is a list of flags
  local huge=() tunables=${GLIBC_TUNABLES:-}
  if [ "$HUGE_PAGES" != 0 ]; then
    huge=(--huge-pages)
    tunables=${tunables:+$tunables:}glibc.malloc.hugetlb=2
  fi
  GLIBC_TUNABLES=$tunables "$BUILD/engram" --db "$1" serve --port 0 "${huge[@]}" $SERVE_FLAGS \
    --access-log "$WORK/access.log" > "$WORK/url" 2> "$WORK/server.log" &
  SERVER=$!
  for _ in $(seq 100); do [ -s "$WORK/url" ] && break; sleep 0.1; done
  [ -s "$WORK/url" ] || { cat "$WORK/server.log" >&2; exit 1; }
  URL=$(head -1 "$WORK/url")
  echo "server at $URL (database $1)"
}
stop_server() {  # SIGTERM: the server closes the database cleanly (no WAL left behind)
  kill -TERM "$SERVER"; wait "$SERVER" || true; SERVER=
}

if [ ! -f "$BASE_DB" ]; then
  rm -f "$BASE_DB.loading" "$BASE_DB.loading-wal" "$BASE_DB.loading-shm"
  start_server "$BASE_DB.loading"
  python3 "$HERE/bench/server/load.py" --url "$URL" --users "$USERS" --per-user "$PER_USER" \
    --per-user-hint "$PER_USER"
  stop_server
  [ ! -e "$BASE_DB.loading-wal" ] || { echo "the load left a WAL behind" >&2; exit 1; }
  mv "$BASE_DB.loading" "$BASE_DB"
fi
echo "copying $BASE_DB to $RUN_DB"
rm -f "$RUN_DB" "$RUN_DB-wal" "$RUN_DB-shm"
cp "$BASE_DB" "$RUN_DB"
start_server "$RUN_DB"
python3 "$HERE/bench/server/load.py" --url "$URL" --users "$USERS" --per-user 0 \
  --per-user-hint "$PER_USER"

python3 - "$WORK" <<'PY'
import sys
sys.path.insert(0, "bench/server")
from corpus import Corpus
c = Corpus(seed=99)
open(sys.argv[1] + "/queries", "w").write("\n".join(c.query() for _ in range(5000)) + "\n")
open(sys.argv[1] + "/texts", "w").write("\n".join(c.memory() for _ in range(5000)) + "\n")
PY
export ENGRAM_QUERIES="$WORK/queries" ENGRAM_TEXTS="$WORK/texts"
# How many memories the copy holds (USERS × PER_USER unless the base was loaded otherwise).
python3 - "$URL" > "$WORK/stored" <<'PY'
import sys, urllib.request
for line in urllib.request.urlopen(sys.argv[1] + "/metrics").read().decode().splitlines():
    if line.startswith('engram_memories{status="active"}'):
        print(int(float(line.split()[1])))
PY

run() {  # name script
  echo "== $1: wrk -t$WRK_THREADS -c$CONNECTIONS -d$DURATION"
  wrk -t"$WRK_THREADS" -c"$CONNECTIONS" -d"$DURATION" -s "$HERE/bench/server/$2" "$URL" \
    | tee "$WORK/$1.out"
}
if [ "$WARMUP" != 0 ]; then
  echo "== warm-up (not recorded): wrk -t$WRK_THREADS -c$CONNECTIONS -d$WARMUP"
  wrk -t"$WRK_THREADS" -c"$CONNECTIONS" -d"$WARMUP" -s "$HERE/bench/server/search.lua" "$URL" \
    > /dev/null
fi
open_run() {  # kind rate lines-file
  echo "== $1 at $2 req/s: engram_http_load, $OPEN_CONNECTIONS connections, $OPEN_SECONDS s after a $OPEN_WARMUP s warm-up (after $SETTLE s idle)"
  sleep "$SETTLE"
  "$BUILD/engram_http_load" --url "$URL" --kind "$1" --rate "$2" --duration "$OPEN_SECONDS" \
    --warmup "$OPEN_WARMUP" --connections "$OPEN_CONNECTIONS" --users "$USERS" --lines "$3" \
    | tee "$WORK/open-$1-$2.out"
}
run search search.lua
for r in $SEARCH_RATES; do open_run search "$r" "$WORK/queries"; done
run add add.lua
for r in $ADD_RATES; do open_run add "$r" "$WORK/texts"; done
# The server's memory at the end: ordinary (RssAnon) and in huge pages (HugetlbPages), kB.
grep -E '^(RssAnon|HugetlbPages):' "/proc/$SERVER/status" > "$WORK/memory" || true
echo "huge pages reserved: $(cat /proc/sys/vm/nr_hugepages)" >> "$WORK/memory"

OUT_DIR="$HERE/bench/results/$(date -u +%Y-%m-%d)-server"
mkdir -p "$OUT_DIR"
n=1
while [ -e "$OUT_DIR/$(printf 'run-%02d.md' "$n")" ]; do n=$((n + 1)); done
OUT="$OUT_DIR/$(printf 'run-%02d.md' "$n")"
python3 - "$WORK" "$OUT" "$USERS" "$PER_USER" "$CONNECTIONS" \
          "$DURATION" "$WRK_THREADS" "$WARMUP" "$SERVE_FLAGS" "$SEARCH_RATES" "$ADD_RATES" \
          "$OPEN_CONNECTIONS" "$OPEN_SECONDS" "$SETTLE" "$OPEN_WARMUP" <<'PY'
import json, os, platform, sys
(work, out, users, per_user, conns, duration, threads, warmup, flags, search_rates, add_rates,
 open_conns, open_seconds, settle, open_warmup) = sys.argv[1:]
stored = int(open(f"{work}/stored").read() or 0)
memory = {l.split(":")[0]: l.split(":", 1)[1].split()[0] for l in open(f"{work}/memory")}
def mib(field):
    return f"{int(memory.get(field, 0)) // 1024:,} MiB"
cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
ram = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") // 2**30
rows = []
capacity, at_rate = {}, {}
targets = {"search": (5000, "≥ 5,000 req/s"), "add": (2000, "≥ 2,000 req/s")}
for name in ("search", "add"):
    line = next(l for l in open(f"{work}/{name}.out") if l.startswith("RESULT "))
    r = json.loads(line[len("RESULT "):])
    rps = r["requests"] / (r["duration_us"] / 1e6)
    errors = r["non2xx"] + r["connect"] + r["read"] + r["write"] + r["timeout"]
    goal, goal_text = targets[name]
    capacity[name] = rps >= goal and errors == 0
    rows.append(f"| {name} | {rps:,.0f} | {r['p50_us']/1000:.2f} | {r['p90_us']/1000:.2f} | "
                f"{r['p99_us']/1000:.2f} | {r['max_us']/1000:.1f} | {errors} | "
                f"{goal_text}: {'met' if capacity[name] else 'NOT met'} |")
# The issue's latency target is judged where the issue puts it: at the target rate, open loop
# (every request timed from when it was due). At saturation wrk keeps its connections' requests
# always outstanding, so its p99 measures that queue, at whatever rate the server reaches.
open_rows = []
for name, rates in (("search", search_rates), ("add", add_rates)):
    for rate in rates.split():
        line = next(l for l in open(f"{work}/open-{name}-{rate}.out") if l.startswith("RESULT "))
        r = json.loads(line[len("RESULT "):])
        done = r["requests"] / (r["duration_us"] / 1e6)
        errors = r["non2xx"] + r["timeout"]
        verdict = ""
        if int(rate) == targets[name][0]:
            at_rate[name] = done >= 0.99 * int(rate) and r["p99_us"] <= 20000 and errors == 0
            verdict = f"p99 ≤ 20 ms at {int(rate):,} req/s: {'met' if at_rate[name] else 'NOT met'}"
        open_rows.append(f"| {name} | {int(rate):,} | {done:,.0f} | {r['p50_us']/1000:.2f} | "
                         f"{r['p90_us']/1000:.2f} | {r['p99_us']/1000:.2f} | "
                         f"{r['p999_us']/1000:.2f} | {r['max_us']/1000:.1f} | {errors} | {verdict} |")
def overall(name):
    if name not in at_rate:
        return "latency at the target rate not measured (add it to the fixed rates)"
    return "met" if capacity[name] and at_rate[name] else "NOT met"
text = f"""# Server benchmark, {__import__('datetime').date.today()}

Machine: {os.cpu_count()} cores ({cpu}), {ram} GiB RAM, {platform.system()} {platform.release()}.
The load generator (wrk, {threads} thread) runs on the same machine and takes CPU from the server.
Data: {int(users)} users × {int(per_user):,} memories ({stored:,} stored at the start of the run: a
fresh copy of the loaded database), hash embedder, embedded SQLite,
synchronous=FULL, access log written to a file, {f"server flags `{flags}`" if flags else "default server flags"};
wrk with keep-alive, {conns} connections, {duration} per run, random user and query per request;
{"no warm-up run" if warmup == "0" else f"a {warmup} search run first, not recorded (warm caches)"}.
Huge pages: {memory.get("huge pages reserved", "?")} reserved (vm.nr_hugepages); at the end the
server held {mib("HugetlbPages")} in them and {mib("RssAnon")} of ordinary memory.

| route | req/s | p50 ms | p90 ms | p99 ms | max ms | errors | target rate |
|---|---|---|---|---|---|---|---|
""" + "\n".join(rows) + f"""

Latency at fixed request rates (bench/http_load.cc: requests sent on a schedule over
{open_conns} keep-alive connections for {open_seconds} s each, after {settle} s without load and
a {open_warmup} s warm-up at the same rate, not recorded; latency measured from the time a
request was due, so waiting for a busy connection counts):

| route | offered req/s | done req/s | p50 ms | p90 ms | p99 ms | p99.9 ms | max ms | errors | target |
|---|---|---|---|---|---|---|---|---|---|
""" + "\n".join(open_rows) + f"""

Issue 4's targets (≥ 5,000 search and ≥ 2,000 single-add req/s with keep-alive, p99 ≤ 20 ms):
the rate from wrk at saturation, the p99 at that rate from the fixed-rate run.
Search: {overall("search")}. Add: {overall("add")}.

Command: `scripts/server_bench.sh build` (defaults as above; the loaded database is kept in
/var/tmp/engram-server-bench, and each run starts from a copy of it).
"""
open(out, "w").write(text)
print(text)
print(f"written to {out}")
PY
