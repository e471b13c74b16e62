#!/usr/bin/env bash
# Builds the libFuzzer target over the request decoders (clang, ASan + UBSan) in build-fuzz
# and runs it for FUZZ_SECONDS (default 60) on a temporary copy of the seed corpus, so the
# repository is never written to. Fails when the fuzzer finds a crash, a leak, a timeout or a
# broken invariant; the input that did it is kept and printed. See fuzz/README.md.
# Environment: FUZZ_SECONDS, FUZZ_BUILD (default build-fuzz), JOBS (default nproc),
# FUZZ_ARGS (extra libFuzzer flags).
set -euo pipefail
cd "$(dirname "$0")/.."

BUILD=${FUZZ_BUILD:-build-fuzz}
FUZZ_SECONDS=${FUZZ_SECONDS:-60}
JOBS=${JOBS:-$(nproc)}
TARGET=request_decoders_fuzzer

scripts/install-deps.sh
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DENGRAM_FUZZ=ON -DENGRAM_BUILD_TESTS=OFF -DENGRAM_BUILD_BENCH=OFF >/dev/null
cmake --build "$BUILD" -j "$JOBS" --target "$TARGET"

work=$(mktemp -d "${TMPDIR:-/tmp}/engram-fuzz.XXXXXX")
cp -r fuzz/corpus/request_decoders "$work/corpus"
mkdir "$work/artifacts"

echo "fuzzing $TARGET for ${FUZZ_SECONDS}s (work dir $work)"
status=0
# -print_funcs=0: no line per newly covered function; the log is kept whole on failure.
ASAN_OPTIONS=detect_leaks=1:detect_stack_use_after_return=1 \
UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  "$BUILD/$TARGET" -max_total_time="$FUZZ_SECONDS" -max_len=65536 -timeout=10 \
    -dict=fuzz/json.dict -artifact_prefix="$work/artifacts/" -print_final_stats=1 \
    -print_funcs=0 ${FUZZ_ARGS:-} "$work/corpus" >"$work/fuzz.log" 2>&1 || status=$?
grep -E '^(stat::|Done )' "$work/fuzz.log" || true

if [ "$status" -ne 0 ] || [ -n "$(ls -A "$work/artifacts")" ]; then
  tail -n 150 "$work/fuzz.log" >&2
  echo "fuzz: $TARGET failed (exit $status); log and inputs kept in $work:" >&2
  for f in "$work"/artifacts/*; do
    [ -e "$f" ] || continue
    echo "--- $f (first 512 bytes, escaped)" >&2
    head -c 512 "$f" | od -An -c | head -40 >&2
  done
  echo "reproduce: $BUILD/$TARGET <input>" >&2
  exit 1
fi
rm -rf "$work"
echo "fuzz: $TARGET ran ${FUZZ_SECONDS}s without findings"
