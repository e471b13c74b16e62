#!/usr/bin/env bash
# lint.format_selftest: check-format.sh passes a formatted tree and fails an unformatted one,
# naming the file (a check that always passed would let any style through).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
cp "$HERE/../.clang-format" "$T/"
mkdir -p "$T/src"
printf 'int Add(int a, int b) { return a + b; }\n' > "$T/src/good.cc"
"$HERE/check-format.sh" "$T" >/dev/null || { echo "FAIL: a formatted tree was refused" >&2; exit 1; }
printf 'int  Sub( int a,int b ){return a-b;}\n' > "$T/src/bad.cc"
if out=$("$HERE/check-format.sh" "$T" 2>&1); then echo "FAIL: unformatted code passed" >&2; exit 1; fi
grep -q "src/bad.cc" <<<"$out" || { echo "FAIL: the bad file is not named: $out" >&2; exit 1; }
grep -q "src/good.cc" <<<"$out" && { echo "FAIL: the good file is named: $out" >&2; exit 1; }
echo "ok"
