#!/usr/bin/env bash
# A throwaway PostgreSQL 15 server on loopback for the tests and benchmarks: its data in a
# temporary directory, trust authentication for the superuser `engram`, a database `engram`.
#
#   scripts/pg_server.sh start DIR     initdb DIR (when empty), start it on a free port (the same
#                                      one again after a stop) and print its URL
#                                      (postgres://engram@127.0.0.1:PORT/engram)
#   scripts/pg_server.sh stop DIR      stop it (fast shutdown); DIR stays
#   scripts/pg_server.sh url DIR       the URL of the server running in DIR
#
# Runs as the calling user; as root it runs the server as the `postgres` system user (PostgreSQL
# refuses to run as root). Needs Debian's postgresql-15 (scripts/install-deps.sh installs it).
set -euo pipefail

PG_BIN=${PG_BIN:-$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)}
[ -x "$PG_BIN/pg_ctl" ] || { echo "pg_server: no PostgreSQL server binaries (postgresql-15)" >&2; exit 1; }

cmd=${1:?start|stop|url}
dir=${2:?data directory}

as_owner() {
  if [ "$(id -u)" -eq 0 ]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

case "$cmd" in
  start)
    mkdir -p "$dir"
    if [ "$(id -u)" -eq 0 ]; then
      # The server's user must reach DIR: its parent (a mktemp directory, mode 700) gets o+x.
      chmod o+x "$(dirname "$(realpath "$dir")")"
      chown postgres: "$dir"
      runuser -u postgres -- test -x "$dir" || {
        echo "pg_server: the postgres user cannot reach $dir (a parent directory is closed to" \
          "it): choose a directory under /var/tmp or /srv" >&2
        exit 1
      }
    fi
    chmod 700 "$dir"
    if [ ! -f "$dir/PG_VERSION" ]; then
      out=$(as_owner "$PG_BIN/initdb" -D "$dir" -U engram --auth=trust --encoding=UTF8 \
        --locale=C.UTF-8 2>&1) || { echo "$out" >&2; exit 1; }
    fi
    # A restart keeps the port it had, so the URL stays the same (tests stop and start it).
    if [ -f "$dir/engram-port" ]; then port=$(cat "$dir/engram-port"); else port=$(free_port); fi
    echo "$port" >"$dir/engram-port"
    [ "$(id -u)" -eq 0 ] && chown postgres: "$dir/engram-port"
    # Tests want speed over durability of a throwaway cluster: no fsync. PG_DURABLE=1 (make
    # run-pg, whose data is meant to last) keeps PostgreSQL's durable defaults.
    fast="-c fsync=off -c full_page_writes=off -c synchronous_commit=off"
    [ "${PG_DURABLE:-0}" = 1 ] && fast=""
    as_owner "$PG_BIN/pg_ctl" -D "$dir" -l "$dir/server.log" -w -t 60 \
      -o "-p $port -k $dir -c listen_addresses=127.0.0.1 $fast \
-c max_connections=200 -c shared_buffers=64MB" start >/dev/null ||
      { cat "$dir/server.log" >&2; exit 1; }
    "$PG_BIN/createdb" -h 127.0.0.1 -p "$port" -U engram engram 2>/dev/null || true
    echo "postgres://engram@127.0.0.1:$port/engram"
    ;;
  stop)
    if [ -f "$dir/postmaster.pid" ]; then as_owner "$PG_BIN/pg_ctl" -D "$dir" -m fast -w stop >/dev/null; fi
    ;;
  url)
    echo "postgres://engram@127.0.0.1:$(cat "$dir/engram-port")/engram"
    ;;
  *)
    echo "pg_server: unknown command $cmd" >&2
    exit 2
    ;;
esac
