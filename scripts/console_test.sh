#!/usr/bin/env bash
# Tests the web console (console/) end to end: installs the npm workspace's packages (as
# scripts/clients_test.sh does), checks that the committed console/dist is what console/src
# builds to (rebuilt in memory and compared: a change to src/ without `npm run build -w console`
# fails here), then runs the Playwright tests in headless Chromium against a real engram serve
# (console/test/*.test.mjs: the pages, both languages, markup in memories drawn as text, two
# tenants' keys kept apart, the chat page's streaming, 10,000 memories; screenshots and
# console-metrics.json go to $ENGRAM_ARTIFACTS/console or build/console-artifacts).
#   scripts/console_test.sh ENGRAM_BINARY
# Exits non-zero if anything fails. Needs node >= 18 with npm, and Debian's chromium
# (scripts/install-deps.sh installs it; CHROMIUM=/path/to/chromium for another).
set -euo pipefail
if [ $# -ne 1 ] || [ ! -x "$1" ]; then
  echo "usage: $0 ENGRAM_BINARY (an executable engram)" >&2
  exit 2
fi
ENGRAM=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
cd "$(dirname "$0")/.."

step() { echo; echo "== $*"; }

CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
if [ ! -x "$CHROMIUM" ]; then
  echo "console_test: no Chromium at $CHROMIUM: apt-get install -y chromium (scripts/install-deps.sh does)" >&2
  exit 1
fi
export CHROMIUM

step "npm packages"
scripts/npm_install.sh

step "console/dist is current with console/src"
node console/scripts/build.mjs --check

step "end-to-end tests in headless Chromium"
node console/test/run.mjs --engram "$ENGRAM"
echo "console_test: all passed"
