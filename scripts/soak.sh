#!/usr/bin/env bash
# Long randomized soak of `engram serve` (tests/blackbox/soak_test.py, SoakTest): client threads
# send random requests over every /v1 route on a fresh database, then again at once after a
# restart on it; every reply is checked and every acknowledged write read back. Prints one
# summary line: requests (total, per second, per route), status classes, tolerated oddities,
# acknowledged writes checked, lost writes, seed and duration. Exit status: the test's.
#   scripts/soak.sh [engram-binary] [seconds] [extra soak_test.py options, e.g. --seed 42]
# Defaults: build/engram, 300 s of soak (split over the two soak phases). The per-phase figures
# and the first failures are in the JSON summary (SUMMARY, default a temporary file, removed).
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
ENGRAM=${1:-$ROOT/build/engram}
SECONDS_=${2:-300}
shift $(($# < 2 ? $# : 2))
SUMMARY=${SUMMARY:-}
KEEP=1
if [[ -z $SUMMARY ]]; then
  SUMMARY=$(mktemp /tmp/engram-soak-XXXXXX.json)
  KEEP=0
fi

python3 "$ROOT/tests/blackbox/soak_test.py" --engram "$ENGRAM" --seconds "$SECONDS_" \
  --summary-json "$SUMMARY" "$@" SoakTest
status=$?

python3 - "$SUMMARY" <<'EOF'
import json, sys
try:
    with open(sys.argv[1]) as f:
        s = json.load(f)
except (OSError, ValueError):
    sys.exit("soak: no summary written")
soak_n = sum(p["soak_requests"] for p in s["phases"])
soak_s = sum(p["soak_s"] for p in s["phases"]) or 1
routes = ", ".join("%s %d" % kv for kv in sorted(s["routes"].items(), key=lambda kv: -kv[1]))
classes = " ".join("%s=%d" % kv for kv in sorted(s["status_classes"].items()))
tolerated = "; ".join("%s: %d" % kv for kv in s["tolerated"].items()) or "none"
print("SOAK requests=%d (soak %d at %.0f/s) %s acked_writes_checked=%d lost_writes=%d "
      "failures=%d tolerated=[%s] seed=%d duration=%.1fs threads=%d routes=[%s]" % (
          s["requests"], soak_n, soak_n / soak_s, classes, s["acked_writes_checked"],
          s["lost_writes"], s["failures"], tolerated, s["seed"], s["duration_s"], s["threads"],
          routes))
for failure in s["first_failures"]:
    print("FAILURE " + failure[:2000])
EOF
[[ $KEEP == 0 ]] && rm -f "$SUMMARY"
exit $status
