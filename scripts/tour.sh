#!/usr/bin/env bash
# `make tour`: a short, real tour of the engram CLI on a fresh database, so a newcomer sees what
# Engram stores. Uses ./engram-data/tour.db (recreated each run; nothing else is touched). Every
# step prints something; tests/blackbox/cli_test.py (TourTest) runs it and checks that.
set -euo pipefail
ENGRAM=${1:-build/engram}
DB=./engram-data/tour.db
rm -f "$DB" "$DB-wal" "$DB-shm"
export ENGRAM_DB=$DB ENGRAM_USER=alice
if [ -t 1 ]; then BOLD=$'\033[1m' PLAIN=$'\033[0m'; else BOLD="" PLAIN=""; fi

# Prints a command as one would type it: `engram` for the binary, arguments quoted when needed.
show() {
  local line="engram" arg
  shift
  for arg in "$@"; do
    if [[ $arg =~ ^[A-Za-z0-9_./:=@%+,-]+$ ]]; then
      line+=" $arg"
    else
      line+=" \"${arg//\"/\\\"}\""
    fi
  done
  printf '\n%s$ %s%s\n' "$BOLD" "$line" "$PLAIN"
}
step() { show "$@"; "$@"; }
note() { printf '\n'; printf '# %s\n' "$@"; }  # one line per argument
# Runs an `add` like step and keeps in $LAST_ID the id of the first memory it wrote (not the
# kept turn): "ADD <id> ...", "SUPERSEDE <id> ...  (replaces <old id>)" or, with --no-infer,
# "added <id>"; $REPLACED_ID is the memory a SUPERSEDE replaced (else empty).
add_keeping_id() {
  show "$@"
  local out
  out=$("$@")
  printf '%s\n' "$out"
  LAST_ID=$(printf '%s\n' "$out" | awk '$1 != "TURN" && $1 != "not" { print $2; exit }')
  [ -n "$LAST_ID" ] || { echo "tour: no memory was written" >&2; exit 1; }
  REPLACED_ID=$(printf '%s\n' "$out" | sed -n 's/.*(replaces \(.*\))$/\1/p' | head -1)
}

echo "Engram CLI tour: database $DB, user alice (ENGRAM_DB and ENGRAM_USER are set, so the"
echo "commands need no --db or -u; \`engram\` below is $ENGRAM)."
note "What the user says is kept (TURN) and the memories in it are extracted (ADD)."
step "$ENGRAM" add "I live in Beijing and I'm allergic to peanuts"
add_keeping_id "$ENGRAM" add "I work as a nurse at Peking Union hospital"
JOB_ID=$LAST_ID
step "$ENGRAM" add "我喜欢喝绿茶，不喜欢咖啡"
note "Relative dates are resolved from when it was said (--created-at; default now)."
step "$ENGRAM" add "I ran a half marathon in 1h58 last Sunday" --created-at 2026-10-12T09:00:00Z \
  --meta source=strava
note "Chit-chat is not kept, and it says why."
step "$ENGRAM" add "thanks!"
note "A newer value replaces the old one (SUPERSEDE); the old one stays, marked superseded."
add_keeping_id "$ENGRAM" add "I moved to Shanghai"
CITY_ID=$LAST_ID
note "Active memories, newest first: the extracted facts and the kept turns (type message)." \
  "The Beijing fact is no longer listed; the turn that said it still is (what was said is kept)."
step "$ENGRAM" list
note "The Beijing fact's history: added, then superseded by the Shanghai one."
step "$ENGRAM" history "$REPLACED_ID"

note "--no-infer stores the text exactly as given, with the type, tags and entities you choose."
add_keeping_id "$ENGRAM" add --no-infer "Prefers appointments after 3 pm" \
  --type preference --tag schedule --entity appointments --importance 0.8
NOTE_ID=$LAST_ID
step "$ENGRAM" update "$NOTE_ID" --content "Prefers appointments after 4 pm" \
  --reason "changed her shifts in November"
step "$ENGRAM" history "$NOTE_ID"
note "A delete is soft: the memory leaves lists and search, and is kept with its history."
step "$ENGRAM" delete "$JOB_ID" --reason "user asked to forget the job"
note "--status all shows every fact, whatever its status: active, superseded, deleted."
step "$ENGRAM" list --status all --type fact
step "$ENGRAM" get "$CITY_ID"

note "Hybrid search (keywords + vectors); --explain shows each signal. The current home ranks" \
  "first; the turn that said Beijing still matches, lower. A near-duplicate of a better result" \
  "moves down whatever its score (diversification)."
step "$ENGRAM" search "where do I live now" --explain
note "-k: how many results."
step "$ENGRAM" search "喝什么茶" -k 2
note "context packs the best memories into a block for an LLM prompt, within a token budget."
step "$ENGRAM" context "help me plan my next half marathon" --budget 120
note "Proactive recall: given the latest turns and no question, what is worth raising unasked."
step "$ENGRAM" recall "Can you book a table for Friday night?"
note "The profile: the lasting facts and preferences, by kind, each citing its memory."
step "$ENGRAM" profile
note "Users are isolated: bob sees his own memories and none of alice's."
step "$ENGRAM" --user bob add "I live in Paris"
step "$ENGRAM" --user bob list
note "export writes everything about alice as JSON Lines; import reads it back."
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
echo "Done. To go on with this database:"
echo "  export ENGRAM_DB=$DB ENGRAM_USER=alice"
echo "  $ENGRAM help     # the commands (help flags: every option)"
