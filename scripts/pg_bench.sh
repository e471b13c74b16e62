#!/usr/bin/env bash
# One `engram serve` on PostgreSQL against one on the embedded SQLite database, same machine,
# same data (issue 36's targets: search throughput on PostgreSQL ≥ 80 % of SQLite's, single
# adds ≥ 1,000 req/s). Loads USERS × PER_USER memories into each (bench/server/load.py), then
# per backend: a search warm-up (not recorded), wrk on POST /v1/search, wrk on POST /v1/memories
# (stored as given), each DURATION long with CONNECTIONS keep-alive connections. PostgreSQL is a
# throwaway server on loopback (scripts/pg_server.sh) with its default durability settings
# except what pg_server.sh turns off for tests (fsync): see the note it writes.
# Writes bench/results/<date>-postgres/run-NN.md (first free NN).
#   scripts/pg_bench.sh [build-dir]
# Env: USERS (20), PER_USER (2000), CONNECTIONS (32), DURATION (15s), WARMUP (5s)
set -euo pipefail
BUILD=${1:-build}
USERS=${USERS:-20}
PER_USER=${PER_USER:-2000}
CONNECTIONS=${CONNECTIONS:-32}
DURATION=${DURATION:-15s}
WARMUP=${WARMUP:-5s}
HERE=$(cd "$(dirname "$0")/.." && pwd)
ENGRAM=$(cd "$BUILD" && pwd)/engram
command -v wrk >/dev/null || { echo "pg_bench: needs wrk (apt-get install wrk)" >&2; exit 1; }

WORK=$(mktemp -d)
SERVER_PID=""
cleanup() {
  [ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null && wait "$SERVER_PID" 2>/dev/null
  "$HERE/scripts/pg_server.sh" stop "$WORK/pg" || true
  rm -rf "$WORK"
}
trap cleanup EXIT

PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
URL="http://127.0.0.1:$PORT"
start_server() {  # db
  env -u ENGRAM_DB "$ENGRAM" --db "$1" serve --port "$PORT" >"$WORK/serve.log" 2>&1 &
  SERVER_PID=$!
  for _ in $(seq 200); do curl -sf "$URL/readyz" >/dev/null && return 0; sleep 0.1; done
  cat "$WORK/serve.log" >&2
  exit 1
}
stop_server() {
  kill "$SERVER_PID"
  wait "$SERVER_PID" || true
  SERVER_PID=""
}

python3 - "$WORK" <<'PY'
import sys
sys.path.insert(0, "bench/server")
from corpus import Corpus
c = Corpus(seed=99)
open(sys.argv[1] + "/queries", "w").write("\n".join(c.query() for _ in range(5000)) + "\n")
open(sys.argv[1] + "/texts", "w").write("\n".join(c.memory() for _ in range(5000)) + "\n")
PY
export ENGRAM_QUERIES="$WORK/queries" ENGRAM_TEXTS="$WORK/texts" ENGRAM_BENCH_DIR="$HERE/bench/server"
export ENGRAM_USERS=$USERS

PG_URL=$("$HERE/scripts/pg_server.sh" start "$WORK/pg")
declare -A SEARCH ADD LOAD
for backend in sqlite postgres; do
  if [ "$backend" = sqlite ]; then db="$WORK/engram.db"; else db="$PG_URL"; fi
  start_server "$db"
  echo "== $backend: loading $USERS × $PER_USER memories"
  t0=$(date +%s.%N)
  (cd "$HERE" && python3 bench/server/load.py --url "$URL" --users "$USERS" --per-user "$PER_USER" \
    --per-user-hint "$PER_USER")
  LOAD[$backend]=$(python3 -c "print(round($USERS*$PER_USER/($(date +%s.%N)-$t0)))")
  echo "== $backend: warm-up $WARMUP (not recorded)"
  wrk -t1 -c"$CONNECTIONS" -d"$WARMUP" -s "$HERE/bench/server/search.lua" "$URL" >/dev/null
  echo "== $backend: search, wrk -c$CONNECTIONS -d$DURATION"
  wrk -t1 -c"$CONNECTIONS" -d"$DURATION" -s "$HERE/bench/server/search.lua" "$URL" | tee "$WORK/$backend-search.out"
  SEARCH[$backend]=$(awk '/Requests\/sec/ {print int($2)}' "$WORK/$backend-search.out")
  echo "== $backend: add, wrk -c$CONNECTIONS -d$DURATION"
  wrk -t1 -c"$CONNECTIONS" -d"$DURATION" -s "$HERE/bench/server/add.lua" "$URL" | tee "$WORK/$backend-add.out"
  ADD[$backend]=$(awk '/Requests\/sec/ {print int($2)}' "$WORK/$backend-add.out")
  grep -E "Non-2xx|Socket errors" "$WORK/$backend-add.out" "$WORK/$backend-search.out" && {
    echo "pg_bench: errors in a run" >&2; exit 1; } || true
  stop_server
done

DAY=$(date -u +%F)
OUT_DIR="$HERE/bench/results/$DAY-postgres"
mkdir -p "$OUT_DIR"
n=1
while [ -e "$OUT_DIR/$(printf 'run-%02d.md' $n)" ]; do n=$((n + 1)); done
OUT="$OUT_DIR/$(printf 'run-%02d.md' $n)"
ratio=$(python3 -c "print(round(100*${SEARCH[postgres]}/max(1,${SEARCH[sqlite]})))")
{
  echo "# PostgreSQL against SQLite, one server ($DAY)"
  echo
  echo "Machine: $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)), $(free -g | awk '/Mem:/ {print $2}') GiB;"
  echo "PostgreSQL $(psql --version | awk '{print $3}') on the same machine (loopback, fsync off: a"
  echo "test server); $USERS users × $PER_USER memories; wrk -t1 -c$CONNECTIONS -d$DURATION after a $WARMUP search warm-up."
  echo "Command: \`USERS=$USERS PER_USER=$PER_USER scripts/pg_bench.sh\`"
  echo
  echo "| | SQLite | PostgreSQL | PostgreSQL / SQLite |"
  echo "|---|---|---|---|"
  echo "| load (memories/s, batches of load.py) | ${LOAD[sqlite]} | ${LOAD[postgres]} | |"
  echo "| search (req/s) | ${SEARCH[sqlite]} | ${SEARCH[postgres]} | $ratio % (target ≥ 80 %) |"
  echo "| single add (req/s) | ${ADD[sqlite]} | ${ADD[postgres]} | (target ≥ 1,000 on PostgreSQL) |"
  echo
  echo '```'
  for f in sqlite-search sqlite-add postgres-search postgres-add; do echo "== $f"; cat "$WORK/$f.out"; done
  echo '```'
} >"$OUT"
echo "wrote $OUT"
cat "$OUT" | head -16
