#!/usr/bin/env bash
# A throwaway Redis 7 server on loopback for the tests and benchmarks: no persistence, its
# files in DIR, a password when REDIS_PASSWORD is set.
#
#   scripts/redis_server.sh start DIR     start it on a free port (the same one again after a
#                                         stop) and print its URL (redis://127.0.0.1:PORT)
#   scripts/redis_server.sh stop DIR      stop it; DIR stays
#   scripts/redis_server.sh url DIR       the URL of the server of DIR
#
# Runs as the calling user (root included: Redis does not refuse it). Needs Debian's
# redis-server (scripts/install-deps.sh installs it).
set -euo pipefail

cmd=${1:?start|stop|url}
dir=${2:?directory}

url() {
  local auth=""
  [ -f "$dir/password" ] && auth=":$(cat "$dir/password")@"
  echo "redis://${auth}127.0.0.1:$(cat "$dir/port")"
}

case "$cmd" in
  start)
    mkdir -p "$dir"
    dir=$(realpath "$dir")
    if [ ! -f "$dir/port" ]; then
      python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])' >"$dir/port"
    fi
    [ -n "${REDIS_PASSWORD:-}" ] && printf '%s' "$REDIS_PASSWORD" >"$dir/password"
    port=$(cat "$dir/port")
    args=(--port "$port" --bind 127.0.0.1 --dir "$dir" --save "" --appendonly no
      --daemonize yes --pidfile "$dir/redis.pid" --logfile "$dir/redis.log")
    [ -f "$dir/password" ] && args+=(--requirepass "$(cat "$dir/password")")
    redis-server "${args[@]}"
    # Ready once it answers (a password-protected one answers NOAUTH: up all the same).
    for _ in $(seq 1 100); do
      if redis-cli -p "$port" PING 2>/dev/null | grep -qE 'PONG|NOAUTH'; then url; exit 0; fi
      sleep 0.05
    done
    echo "redis_server: not answering on port $port" >&2
    cat "$dir/redis.log" >&2 || true
    exit 1
    ;;
  stop)
    dir=$(realpath "$dir")
    if [ -f "$dir/redis.pid" ]; then
      pid=$(cat "$dir/redis.pid")
      kill "$pid" 2>/dev/null || true
      for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
      rm -f "$dir/redis.pid"
    fi
    ;;
  url)
    url
    ;;
  *)
    echo "redis_server: unknown command $cmd" >&2
    exit 2
    ;;
esac
