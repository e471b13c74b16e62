#!/usr/bin/env bash
# `make run-pg`: Engram's server on PostgreSQL and Redis, both started here on loopback, for
# trying the scaled-out set-up on one machine. The PostgreSQL cluster keeps its data with
# PostgreSQL's durable defaults in PG_DIR (./engram-data/pg), so a second run finds the
# memories of the first; Redis (REDIS_DIR, ./engram-data/redis) keeps nothing, which is all
# Engram needs of it. Engram connects as an ordinary role, `engram_app`, owning the database
# `engram_app`, so row-level security applies as it would in production (a superuser is never
# held to it). Ctrl-C stops the server, then PostgreSQL and Redis.
#
# With ENGRAM_DB set to a postgres:// URL, that database is used instead and no PostgreSQL is
# started; with ENGRAM_REDIS set, that Redis.
#
#   scripts/run_pg.sh [build-dir]      Env: PORT (8420), PG_DIR, REDIS_DIR
set -euo pipefail
BUILD=${1:-build}
PORT=${PORT:-8420}
HERE=$(cd "$(dirname "$0")" && pwd)
PG_DIR=${PG_DIR:-./engram-data/pg}
REDIS_DIR=${REDIS_DIR:-./engram-data/redis}

started_pg="" started_redis=""
stop_all() {
  [ -n "$started_redis" ] && "$HERE/redis_server.sh" stop "$REDIS_DIR" || true
  [ -n "$started_pg" ] && "$HERE/pg_server.sh" stop "$PG_DIR" && echo "run-pg: PostgreSQL stopped" || true
}
trap stop_all EXIT

db=${ENGRAM_DB:-}
case "$db" in
  postgres://* | postgresql://*) echo "run-pg: using ENGRAM_DB" ;;
  *)
    mkdir -p "$PG_DIR"
    admin=$(PG_DURABLE=1 "$HERE/pg_server.sh" start "$PG_DIR")
    started_pg=1
    psql "$admin" -qAt -v ON_ERROR_STOP=1 >/dev/null <<'SQL'
SELECT 'CREATE ROLE engram_app LOGIN NOSUPERUSER NOBYPASSRLS'
  WHERE NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'engram_app') \gexec
SELECT 'CREATE DATABASE engram_app OWNER engram_app'
  WHERE NOT EXISTS (SELECT 1 FROM pg_database WHERE datname = 'engram_app') \gexec
SQL
    db=${admin/:\/\/engram@/:\/\/engram_app@}
    db=${db%/engram}/engram_app
    echo "run-pg: PostgreSQL at $db (data in $PG_DIR)"
    ;;
esac
redis=${ENGRAM_REDIS:-}
if [ -z "$redis" ]; then
  redis=$("$HERE/redis_server.sh" start "$REDIS_DIR")
  started_redis=1
  echo "run-pg: Redis at $redis"
fi
# Not exec: the trap stops PostgreSQL and Redis once the server has exited.
env -u ENGRAM_DB -u ENGRAM_REDIS "$BUILD/engram" --db "$db" serve --port "$PORT" --redis "$redis"
