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

command -v node >/dev/null && command -v npm >/dev/null ||
  { echo "clients_test: node and npm are needed (apt-get install nodejs npm)" >&2; exit 1; }
node -e 'process.exit(Number(process.versions.node.split(".")[0]) >= 18 ? 0 : 1)' ||
  { echo "clients_test: node $(node --version) is too old: 18 or later is needed" >&2; exit 1; }

step() { echo; echo "== $*"; }

# npm writes node_modules/.package-lock.json at the end of an install: newer than the
# lockfile means node_modules holds what the lockfile says, and npm ci (which deletes
# node_modules first, and needs the registry or its cache) can be skipped.
step "npm packages"
if [ -f node_modules/.package-lock.json ] && [ node_modules/.package-lock.json -nt package-lock.json ]; then
  echo "node_modules is current with package-lock.json: kept"
else
  npm ci --no-audit --no-fund --prefer-offline
fi

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
