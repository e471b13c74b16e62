#!/usr/bin/env bash
# Tests the client SDKs against a real server: installs the npm workspace's packages (npm ci,
# or the node_modules already installed from the same lockfile, so it also runs offline),
# builds the TypeScript client (types regenerated from docs/openapi.json must match, then tsc
# and the compile-time type tests), and runs the TypeScript tests (client, LangChain.js and
# Vercel AI SDK integrations), the examples, and the Python client's tests.
#   scripts/clients_test.sh ENGRAM_BINARY
# Exits non-zero if anything fails. Needs node >= 18 with npm, and python3 >= 3.9.
set -euo pipefail
if [ $# -ne 1 ] || [ ! -x "$1" ]; then
  echo "usage: $0 ENGRAM_BINARY (an executable engram)" >&2
  exit 2
fi
ENGRAM=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
cd "$(dirname "$0")/.."

step() { echo; echo "== $*"; }

step "npm packages"
scripts/npm_install.sh

step "build the TypeScript client"
npm run --silent build -w clients/typescript

failed=()
step "TypeScript tests, integrations and examples"
node clients/typescript/test/run.mjs --engram "$ENGRAM" \
  clients/typescript/test/*.test.mjs examples/test/*.test.mjs || failed+=(typescript)

step "Python tests"
python3 clients/python/tests/run.py --engram "$ENGRAM" || failed+=(python)

echo
if [ ${#failed[@]} -gt 0 ]; then
  echo "clients_test: FAILED: ${failed[*]}" >&2
  exit 1
fi
echo "clients_test: all passed"
