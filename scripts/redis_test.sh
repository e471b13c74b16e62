#!/usr/bin/env bash
# The replicas' shared state against a real Redis: starts a throwaway Redis 7 on loopback
# (scripts/redis_server.sh, files in a temporary directory, stopped at the end) and runs
# engram_redis_tests, which stop and start it to check the fallbacks.
#
#   scripts/redis_test.sh BUILD_DIR [gtest filter]
set -euo pipefail

build=$(cd "${1:?build directory}" && pwd)
filter=${2:-*}
here=$(cd "$(dirname "$0")" && pwd)

work=$(mktemp -d)
cleanup() {
  "$here/redis_server.sh" stop "$work/redis" || true
  rm -rf "$work"
}
trap cleanup EXIT

url=$("$here/redis_server.sh" start "$work/redis")
echo "redis_test: Redis at $url"
cd "$work"
export ENGRAM_TEST_REDIS_URL=$url ENGRAM_TEST_REDIS_DIR=$work/redis \
  ENGRAM_TEST_REDIS_SCRIPT=$here/redis_server.sh ENGRAM_CHECK_STORAGE=1
"$build/engram_redis_tests" --gtest_filter="$filter" --gtest_brief=1
