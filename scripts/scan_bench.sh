#!/usr/bin/env bash
# The vector index comparison for mid-size scopes (bench/scan_bench.cc) on the server
# benchmark's texts: writes 100k memories and 1,000 queries with bench/server/corpus.py, then
# runs build/engram_scan_bench and prints its markdown table.
#   scripts/scan_bench.sh [build-dir]    Env: ENGRAM_SCAN_SIZES (5000,10000,20000,50000,100000)
set -euo pipefail
BUILD=${1:-build}
HERE=$(cd "$(dirname "$0")/.." && pwd)
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
python3 - "$WORK" "$HERE/bench/server" <<'PY'
import sys
sys.path.insert(0, sys.argv[2])
from corpus import Corpus
memories, queries = Corpus(seed=7), Corpus(seed=99)
open(sys.argv[1] + "/memories", "w").write("\n".join(memories.memory() for _ in range(100000)) + "\n")
open(sys.argv[1] + "/queries", "w").write("\n".join(queries.query() for _ in range(1000)) + "\n")
PY
ENGRAM_SCAN_MEMORIES="$WORK/memories" ENGRAM_SCAN_QUERIES="$WORK/queries" "$BUILD/engram_scan_bench"
