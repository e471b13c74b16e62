#!/usr/bin/env bash
# Fails (exit 1) when a C++ source or header is not formatted as .clang-format says, naming the
# files; `clang-format -i <file>` fixes one. Run by ctest as lint.format (`make test`, `.ci/run`).
# Without git (a tarball), the source folders are listed with find instead.
#   scripts/check-format.sh [source-dir]
set -euo pipefail
ROOT=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$ROOT"
command -v clang-format >/dev/null || { echo "clang-format is not installed (scripts/install-deps.sh)" >&2; exit 1; }
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  mapfile -t files < <(git ls-files -co --exclude-standard '*.cc' '*.h')
else
  dirs=(); for d in src include bench fuzz tests; do [ -d "$d" ] && dirs+=("$d"); done
  mapfile -t files < <(find "${dirs[@]}" \( -name '*.cc' -o -name '*.h' \) | sort)
fi
[ ${#files[@]} -gt 0 ] || { echo "no sources found under $ROOT" >&2; exit 1; }
existing=()
for f in "${files[@]}"; do [ -f "$f" ] && existing+=("$f"); done  # deleted, not yet staged
# One clang-format process for every file (seconds); each formatting difference is an error
# line "file:line:col: error: code should be clang-formatted".
out=$(clang-format --dry-run -Werror "${existing[@]}" 2>&1) && status=0 || status=$?
mapfile -t bad < <(grep -oE '^[^:]+:[0-9]+:[0-9]+: error' <<<"$out" | cut -d: -f1 | sort -u)
if [ "$status" -ne 0 ] && [ ${#bad[@]} -eq 0 ]; then
  echo "$out" >&2  # clang-format failed for another reason
  exit 1
fi
if [ ${#bad[@]} -gt 0 ]; then
  echo "not formatted (clang-format -i to fix):" >&2
  printf '  %s\n' "${bad[@]}" >&2
  exit 1
fi
echo "formatted: ${#files[@]} files"
