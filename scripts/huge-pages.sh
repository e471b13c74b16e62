#!/usr/bin/env bash
# Reserves at least N huge pages of 2 MiB (sysctl vm.nr_hugepages) for Engram's index rows and
# allocator (src/index/huge_pages.h); never lowers a larger reservation. Needs root (or sudo).
#   scripts/huge-pages.sh N
# Prints the reservation before and after. The kernel may grant fewer pages than asked when
# memory is fragmented; the script says so and exits 1.
set -euo pipefail
want=${1:?usage: scripts/huge-pages.sh N}
file=/proc/sys/vm/nr_hugepages
have=$(cat "$file")
if [ "$have" -ge "$want" ]; then
  echo "huge pages: $have reserved (at least $want wanted)"
  exit 0
fi
if [ "$(id -u)" -eq 0 ]; then
  echo "$want" > "$file"
elif command -v sudo >/dev/null; then
  echo "$want" | sudo tee "$file" >/dev/null
else
  echo "huge pages: $have reserved, $want wanted; need root or sudo to reserve them" >&2
  exit 1
fi
now=$(cat "$file")
echo "huge pages: $now reserved (was $have)"
[ "$now" -ge "$want" ] || { echo "huge pages: the kernel granted $now of $want" >&2; exit 1; }
