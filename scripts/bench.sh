#!/usr/bin/env bash
# `make bench`: runs the storage benchmarks and writes the raw Google Benchmark JSON and a
# Markdown table (with the machine described) to bench/results/<date>-store/run-NN.json and
# run-NN.md (UTC date, the first NN free for both: recorded results are never overwritten).
set -euo pipefail
BUILD=${1:-build}
OUT=bench/results/$(date -u +%Y-%m-%d)-store
mkdir -p "$OUT"
n=1
while [ -e "$OUT/$(printf 'run-%02d' "$n").json" ] || [ -e "$OUT/$(printf 'run-%02d' "$n").md" ]; do
  n=$((n + 1))
done
RUN="$OUT/$(printf 'run-%02d' "$n")"
JSON="$RUN.json"
"$BUILD/engram_bench" --benchmark_out="$JSON" --benchmark_out_format=json "${@:2}"
python3 - "$JSON" "$RUN.md" <<'PY'
import json, sys, platform, os, subprocess
data = json.load(open(sys.argv[1]))
ctx = data["context"]
cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
lines = [f"# Storage benchmarks, {ctx['date']}", "",
         f"Machine: {ctx['num_cpus']} cores ({cpu}), {os.sysconf('SC_PAGE_SIZE') * os.sysconf('SC_PHYS_PAGES') // 2**30} GiB RAM, "
         f"{platform.system()} {platform.release()}; library build: {ctx.get('library_build_type', '?')}.", "",
         "| benchmark | time/op | CPU/op | iterations | counters |", "|---|---|---|---|---|"]
for b in data["benchmarks"]:
    counters = {k: v for k, v in b.items() if k in ("items_per_second", "items_per_call")}
    c = ", ".join(f"{k}={v:,.0f}" for k, v in counters.items())
    lines.append(f"| {b['name']} | {b['real_time']:.1f} {b['time_unit']} | {b['cpu_time']:.1f} {b['time_unit']} | {b['iterations']} | {c} {b.get('label', '')} |")
open(sys.argv[2], "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
PY
