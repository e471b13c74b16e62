#!/usr/bin/env bash
# The issue-5 async target: "with a remote LLM, an async add returns in ≤ 5 ms p99".
# Starts a fake OpenAI-compatible LLM on loopback that answers each chat completion after
# LLM_DELAY_MS (default 300) with no memories, runs `engram serve --extractor llm` against it
# on a fresh database, and drives POST /v1/memories {"async": true} with wrk (keep-alive).
# Usage: scripts/async_add_bench.sh [build dir] ; env CONNECTIONS, DURATION, LLM_DELAY_MS.
set -euo pipefail
HERE="$(cd "$(dirname "$0")/.." && pwd)"
BUILD="${1:-$HERE/build}"
CONNECTIONS="${CONNECTIONS:-8}" DURATION="${DURATION:-10s}" LLM_DELAY_MS="${LLM_DELAY_MS:-300}"
command -v wrk >/dev/null || { apt-get install -y -q wrk >/dev/null || apt-get update -q && apt-get install -y -q wrk; }
WORK="$(mktemp -d /tmp/engram-async-bench.XXXXXX)"
cleanup() { kill "${LLM_PID:-}" "${SRV_PID:-}" 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$WORK"; }
trap cleanup EXIT

python3 - "$WORK/llm.port" "$LLM_DELAY_MS" <<'PY' &
import http.server, json, sys, time
port_file, delay = sys.argv[1], int(sys.argv[2]) / 1000
class H(http.server.BaseHTTPRequestHandler):
    def log_message(self, *a): pass
    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))))
        time.sleep(delay)
        out = json.dumps({"choices": [{"index": 0, "finish_reason": "stop", "message": {
            "role": "assistant", "content": json.dumps({"memories": []})}}],
            "model": body.get("model", "")}).encode()
        self.send_response(200); self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(out))); self.end_headers(); self.wfile.write(out)
s = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
open(port_file, "w").write(str(s.server_address[1]))
s.serve_forever()
PY
LLM_PID=$!
for _ in $(seq 50); do [ -s "$WORK/llm.port" ] && break; sleep 0.1; done
LLM_URL="http://127.0.0.1:$(cat "$WORK/llm.port")/v1"

"$BUILD/engram" --db "$WORK/engram.db" --extractor llm --llm-url "$LLM_URL" --llm-model fake \
  serve --port 0 --access-log '' > "$WORK/url" 2> "$WORK/server.log" &
SRV_PID=$!
for _ in $(seq 100); do [ -s "$WORK/url" ] && break; sleep 0.1; done
URL="$(head -1 "$WORK/url")"

python3 -c '
import random
subjects = ["I live in {}", "I work at {}", "I love {}", "I am allergic to {}", "My goal is to visit {}"]
words = ["Lisbon", "Initech", "green tea", "peanuts", "Kyoto", "Berlin", "hiking", "Globex"]
for i in range(500):
    print(random.choice(subjects).format(random.choice(words)) + ".")
' > "$WORK/texts"
export ENGRAM_BENCH_DIR="$HERE/bench/server" ENGRAM_TEXTS="$WORK/texts" ENGRAM_USERS=100
echo "== async adds: wrk -c$CONNECTIONS -d$DURATION, fake LLM ${LLM_DELAY_MS} ms per call"
wrk -t"$(( CONNECTIONS < 2 ? 1 : 2 ))" -c"$CONNECTIONS" -d"$DURATION" --latency -s "$HERE/bench/server/async_add.lua" "$URL" |
  grep -E "RESULT|Requests/sec|Latency|50%|99%"
