#!/usr/bin/env bash
# `make run`: a short, real tour of the engram CLI on a fresh database, so a newcomer sees what
# Engram stores. Uses ./engram-data/tour.db (recreated each run; nothing else is touched).
set -euo pipefail
ENGRAM=${1:-build/engram}
DB=./engram-data/tour.db
rm -f "$DB" "$DB-wal" "$DB-shm"
export ENGRAM_DB=$DB ENGRAM_USER=alice

step() { printf '\n\033[1m$ %s\033[0m\n' "$*"; "$@"; }
note() { printf '\n# %s\n' "$*"; }
# Runs an `add` like step and keeps in $LAST_ID the id of the first memory it wrote (not the
# kept turn): "ADD <id> ...", "SUPERSEDE <id> ...  (replaces <old id>)" or, with --no-infer,
# "added <id>"; $REPLACED_ID is the memory a SUPERSEDE replaced (else empty).
add_keeping_id() {
  printf '\n\033[1m$ %s\033[0m\n' "$*"
  local out
  out=$("$@")
  printf '%s\n' "$out"
  LAST_ID=$(printf '%s\n' "$out" | awk '$1 != "TURN" && $1 != "not" { print $2; exit }')
  [ -n "$LAST_ID" ] || { echo "tour: no memory was written" >&2; exit 1; }
  REPLACED_ID=$(printf '%s\n' "$out" | sed -n 's/.*(replaces \(.*\))$/\1/p' | head -1)
}

echo "Engram CLI tour — database: $DB (user alice)"
note "What the user says is kept (TURN) and the memories in it are extracted (ADD)."
step "$ENGRAM" add "I live in Beijing"
add_keeping_id "$ENGRAM" add "I work as a nurse at Peking Union hospital"
JOB_ID=$LAST_ID
step "$ENGRAM" add "我喜欢喝绿茶，不喜欢咖啡"
step "$ENGRAM" add "I ran a half marathon in 1h58 last Sunday" --created-at 2026-10-12T09:00:00Z \
  --meta source=strava
note "Chit-chat is not kept."
step "$ENGRAM" add "thanks!"
note "A newer value replaces the old one (SUPERSEDE); the old one stays, marked superseded."
add_keeping_id "$ENGRAM" add "I moved to Shanghai"
CITY_ID=$LAST_ID
step "$ENGRAM" list
step "$ENGRAM" history "$REPLACED_ID"

note "--no-infer stores the text exactly as given, with the type, tags and entities you choose."
add_keeping_id "$ENGRAM" add --no-infer "Prefers appointments after 3 pm" \
  --type preference --tag schedule --entity appointments --importance 0.8
NOTE_ID=$LAST_ID
step "$ENGRAM" update "$NOTE_ID" --content "Prefers appointments after 4 pm" \
  --reason "changed her shifts in November"
step "$ENGRAM" history "$NOTE_ID"
step "$ENGRAM" delete "$JOB_ID" --reason "user asked to forget the job"
step "$ENGRAM" list --status all --type fact
step "$ENGRAM" get "$CITY_ID"
step "$ENGRAM" search "where do I live now" --explain
step "$ENGRAM" search "喝什么茶"
step "$ENGRAM" context "what should I know before planning a run with alice" --budget 120
step "$ENGRAM" --user bob list
step "$ENGRAM" export --out ./engram-data/tour-export.jsonl
echo
echo "The exported record of $CITY_ID (one JSON line per memory, with its history and vectors;"
echo "source.turn_ids: the turn it was extracted from; supersedes: the value it replaced):"
python3 - "$CITY_ID" ./engram-data/tour-export.jsonl <<'PY'
import json, sys
for line in open(sys.argv[2], encoding="utf-8"):
    record = json.loads(line)
    if record.get("kind") == "memory" and record["memory"]["id"] == sys.argv[1]:
        for v in record["vectors"]:
            v["values_b64"] = v["values_b64"][:24] + "..."
        print(json.dumps(record, indent=2, ensure_ascii=False))
PY
echo
echo "Done. Try: $ENGRAM --db $DB --help"
