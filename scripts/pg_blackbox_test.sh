#!/usr/bin/env bash
# The black-box API suite (tests/blackbox/server_test.py) again, on PostgreSQL: starts a
# throwaway PostgreSQL 15 on loopback (scripts/pg_server.sh) and runs the suite with
# ENGRAM_BLACKBOX_PG_URL set, so each test's server stores into a fresh database on it
# (tests/blackbox/server_harness.py). ENGRAM_BLACKBOX_SUITE names another suite of
# tests/blackbox built on that harness (knowledge_test.py).
#
#   scripts/pg_blackbox_test.sh ENGRAM_BINARY CRASH_WRITER [test names...]
set -euo pipefail

engram=${1:?engram binary}
crash_writer=${2:?crash_writer binary}
shift 2
here=$(cd "$(dirname "$0")" && pwd)

work=$(mktemp -d)
cleanup() {
  "$here/pg_server.sh" stop "$work/pg" || true
  rm -rf "$work"
}
trap cleanup EXIT

url=$("$here/pg_server.sh" start "$work/pg")
echo "pg_blackbox_test: PostgreSQL at $url"
ENGRAM_BLACKBOX_PG_URL=$url ENGRAM_CHECK_STORAGE=1 \
  python3 "$here/../tests/blackbox/${ENGRAM_BLACKBOX_SUITE:-server_test.py}" --engram "$engram" --crash-writer "$crash_writer" "$@"
