#!/usr/bin/env bash
# Makes the npm workspace ready for the JavaScript tests (scripts/clients_test.sh,
# scripts/console_test.sh): checks node >= 18 and npm, then installs the packages of
# package-lock.json with npm ci — unless node_modules already holds them, so it also runs
# offline. Run from anywhere; works on the repository it is in.
set -euo pipefail
cd "$(dirname "$0")/.."

command -v node >/dev/null && command -v npm >/dev/null ||
  { echo "npm_install: node and npm are needed (apt-get install nodejs npm)" >&2; exit 1; }
node -e 'process.exit(Number(process.versions.node.split(".")[0]) >= 18 ? 0 : 1)' ||
  { echo "npm_install: node $(node --version) is too old: 18 or later is needed" >&2; exit 1; }

# The tests that call this may run at once (ctest -j): one installs, the others wait for it
# and then find node_modules current.
if command -v flock >/dev/null; then
  exec 9>"${TMPDIR:-/tmp}/engram-npm-install-$(pwd | cksum | cut -d' ' -f1).lock"
  flock 9
fi

# npm writes node_modules/.package-lock.json at the end of an install: newer than the
# lockfile means node_modules holds what the lockfile says, and npm ci (which deletes
# node_modules first, and needs the registry or its cache) can be skipped.
if [ -f node_modules/.package-lock.json ] && [ node_modules/.package-lock.json -nt package-lock.json ]; then
  echo "node_modules is current with package-lock.json: kept"
else
  npm ci --no-audit --no-fund --prefer-offline
fi
