#!/usr/bin/env bash
# The cost of the plain-HTTP relay (src/server/edge_relay.h): two builds of `engram serve`
# side by side on one database, alternating, ROUNDS times: wrk at saturation (search and
# single adds, 32 keep-alive connections) and engram_http_load at fixed search rates (p99).
#   scripts/edge_bench.sh OLD_BUILD_DIR NEW_BUILD_DIR
# Env: USERS (20), PER_USER (5000), ROUNDS (3), SECONDS_EACH (10), RATES ("2500 5000").
set -euo pipefail
OLD=$1
NEW=$2
USERS=${USERS:-20}
PER_USER=${PER_USER:-5000}
ROUNDS=${ROUNDS:-3}
SECONDS_EACH=${SECONDS_EACH:-10}
RATES=${RATES:-2500 5000}
HERE=$(cd "$(dirname "$0")/.." && pwd)
D=$(mktemp -d)
trap 'rm -rf "$D"' EXIT
PORT=18650
URL=http://127.0.0.1:$PORT
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
"$NEW/engram" --db "$D/base.db" serve --port $PORT --access-log '' > "$D/s.out" 2>&1 &
PID=$!
sleep 1.5
python3 - "$URL" "$USERS" "$PER_USER" <<'PY'
import json, random, sys, urllib.request
url, users, per_user = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
random.seed(3)
words = ("hiking coffee jazz python tokyo cooking running cats movies tennis garden chess "
         "sister peanuts berlin violin salmon").split()
for u in range(users):
    for start in range(0, per_user, 1000):
        mems = [{"content": "note %d: likes %s and %s, visited %s" % (
            i, random.choice(words), random.choice(words), random.choice(words))}
            for i in range(start, min(per_user, start + 1000))]
        body = json.dumps({"user_id": "user%d" % u, "infer": False, "memories": mems}).encode()
        req = urllib.request.Request(url + "/v1/memories/batch", data=body,
                                     headers={"Content-Type": "application/json"})
        urllib.request.urlopen(req).read()
PY
kill $PID
wait $PID || true
printf "what do I like\nhiking with my sister\ncoffee in berlin\nsalmon recipes\nchess club\n" \
  > "$D/queries"
printf "likes tea in the morning\nmoved to Lisbon last spring\nhas a dog named Rex\n" > "$D/texts"
export ENGRAM_BENCH_DIR=$HERE/bench/server ENGRAM_QUERIES=$D/queries ENGRAM_TEXTS=$D/texts \
  ENGRAM_USERS=$USERS
for round in $(seq 1 "$ROUNDS"); do
  for which in old new; do
    build=$OLD
    [ $which = new ] && build=$NEW
    cp "$D/base.db" "$D/run.db"
    "$build/engram" --db "$D/run.db" serve --port $PORT --access-log '' > "$D/s.out" 2>&1 &
    PID=$!
    sleep 1.5
    wrk -t1 -c32 -d3 -s "$HERE/bench/server/search.lua" $URL > /dev/null 2>&1  # warm-up
    for kind in search add; do
      r=$(wrk -t1 -c32 -d"$SECONDS_EACH" -s "$HERE/bench/server/$kind.lua" $URL | grep RESULT)
      echo "round $round $which wrk $kind $r"
    done
    for rate in $RATES; do
      sleep 3
      r=$("$NEW/engram_http_load" --url $URL --kind search --rate "$rate" \
        --duration "$SECONDS_EACH" --warmup 2 --connections 64 --users "$USERS" \
        --lines "$D/queries" | grep RESULT)
      echo "round $round $which search@$rate $r"
    done
    kill $PID
    wait $PID || true
  done
done
