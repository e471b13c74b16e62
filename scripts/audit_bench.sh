#!/usr/bin/env bash
# Search throughput with and without the audit log (same database, alternating runs).
set -e
HERE=$(cd "$(dirname "$0")/.." && pwd)
ENGRAM=${1:-$HERE/build/engram}
D=$(mktemp -d)
$ENGRAM --db $D/e.db serve --port 18600 --access-log '' > $D/s.out 2>&1 &
PID=$!; sleep 1.5
python3 - <<'PY'
import json, urllib.request, random
random.seed(3)
words="hiking coffee jazz python tokyo cooking running cats movies tennis garden chess sister peanuts berlin violin salmon".split()
for u in range(20):
    mems=[{"content":"note %d: likes %s and %s, visited %s"%(i,random.choice(words),random.choice(words),random.choice(words))} for i in range(1000)]
    req=urllib.request.Request("http://127.0.0.1:18600/v1/memories/batch",data=json.dumps({"user_id":"user%d"%u,"infer":False,"memories":mems}).encode(),headers={"Content-Type":"application/json"})
    urllib.request.urlopen(req).read()
PY
kill $PID; wait $PID || true
printf "what do I like\nhiking with my sister\ncoffee in berlin\nsalmon recipes\nchess club\n" > $D/q.txt
export ENGRAM_BENCH_DIR=$HERE/bench/server ENGRAM_QUERIES=$D/q.txt ENGRAM_USERS=20
for round in 1 2; do
  for mode in audit no-audit; do
    extra=""; [ $mode = no-audit ] && extra="--no-audit"
    $ENGRAM --db $D/e.db serve --port 18600 --access-log '' $extra > $D/s.out 2>&1 &
    PID=$!; sleep 1.5
    wrk -t1 -c32 -d3 -s $HERE/bench/server/search.lua http://127.0.0.1:18600 > /dev/null 2>&1  # warm-up
    r=$(wrk -t1 -c32 -d10 -s $HERE/bench/server/search.lua http://127.0.0.1:18600 | grep RESULT)
    echo "round $round $mode search $r"
    kill $PID; wait $PID || true
  done
done
rm -rf $D
