#!/usr/bin/env bash
# `make run`: a short, real tour of the engram CLI on a fresh database, so a newcomer sees what
# Engram stores. Uses ./engram-data/tour.db (recreated each run; nothing else is touched).
set -euo pipefail
ENGRAM=${1:-build/engram}
DB=./engram-data/tour.db
rm -f "$DB" "$DB-wal" "$DB-shm"
export ENGRAM_DB=$DB ENGRAM_USER=alice

step() { printf '\n\033[1m$ %s\033[0m\n' "$*"; "$@"; }
quiet_id() { "$@" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])'; }

echo "Engram CLI tour — database: $DB (user alice)"
step "$ENGRAM" add "I live in Beijing" --type fact --tag home --entity Beijing
printf '\n\033[1m$ %s\033[0m\n' "$ENGRAM add \"I work as a nurse at Peking Union hospital\" --type fact --tag work --json"
HOME_ID=$(quiet_id "$ENGRAM" add "I work as a nurse at Peking Union hospital" --type fact --tag work)
echo "added $HOME_ID"
step "$ENGRAM" add "我喜欢喝绿茶，不喜欢咖啡" --type preference --tag drinks --importance 0.8
step "$ENGRAM" add "Ran a half marathon in 1h58" --type event --created-at 2026-10-12T09:00:00Z \
  --meta source=strava
step "$ENGRAM" list
CITY_ID=$("$ENGRAM" list --tag home --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["memories"][0]["id"])')
step "$ENGRAM" update "$CITY_ID" --content "I live in Shanghai" --reason "moved in November"
step "$ENGRAM" history "$CITY_ID"
step "$ENGRAM" delete "$HOME_ID" --reason "user asked to forget the job"
step "$ENGRAM" list --status all --type fact
step "$ENGRAM" get "$CITY_ID"
step "$ENGRAM" search "where do I live now" --explain
step "$ENGRAM" search "喝什么茶"
step "$ENGRAM" context "what should I know before planning a run with alice" --budget 120
step "$ENGRAM" --user bob list
step "$ENGRAM" export --out ./engram-data/tour-export.jsonl
echo
echo "First exported record (one JSON line per memory, with its history):"
sed -n 2p ./engram-data/tour-export.jsonl | python3 -m json.tool --no-ensure-ascii | head -40
echo
echo "Done. Try: $ENGRAM --db $DB --help"
