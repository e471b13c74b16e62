#!/usr/bin/env bash
# Builds the libFuzzer targets (clang, ASan + UBSan) in build-fuzz and runs each for
# FUZZ_SECONDS (default 60) on a temporary copy of its seed corpus, so the repository is never
# written to: request_decoders_fuzzer (the API's decoders) and extractor_fuzzer (the offline
# extractor). Fails when a fuzzer finds a crash, a leak, a timeout or a broken invariant; the
# input that did it is kept and printed. See fuzz/README.md.
# Environment: FUZZ_SECONDS, FUZZ_BUILD (default build-fuzz), JOBS (default nproc),
# FUZZ_TARGETS (default both), FUZZ_ARGS (extra libFuzzer flags).
set -euo pipefail
cd "$(dirname "$0")/.."

BUILD=${FUZZ_BUILD:-build-fuzz}
FUZZ_SECONDS=${FUZZ_SECONDS:-60}
JOBS=${JOBS:-$(nproc)}
TARGETS=${FUZZ_TARGETS:-request_decoders_fuzzer extractor_fuzzer}

scripts/install-deps.sh
cmake -S . -B "$BUILD" -G Ninja -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DENGRAM_FUZZ=ON -DENGRAM_BUILD_TESTS=OFF -DENGRAM_BUILD_BENCH=OFF >/dev/null
cmake --build "$BUILD" -j "$JOBS" --target $TARGETS

# One target: its corpus (fuzz/corpus/<name without _fuzzer>), its dictionary, its options.
fuzz_one() {
  local target=$1 corpus=$2 max_len=$3
  shift 3
  local work status=0
  work=$(mktemp -d "${TMPDIR:-/tmp}/engram-fuzz.XXXXXX")
  cp -r "$corpus" "$work/corpus"
  mkdir "$work/artifacts"
  echo "fuzzing $target for ${FUZZ_SECONDS}s (work dir $work)"
  # -print_funcs=0: no line per newly covered function; the log is kept whole on failure.
  ASAN_OPTIONS=detect_leaks=1:detect_stack_use_after_return=1 \
  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    "$BUILD/$target" -max_total_time="$FUZZ_SECONDS" -max_len="$max_len" -timeout=10 \
      -artifact_prefix="$work/artifacts/" -print_final_stats=1 -print_funcs=0 "$@" \
      ${FUZZ_ARGS:-} "$work/corpus" >"$work/fuzz.log" 2>&1 || status=$?
  grep -E '^(stat::|Done )' "$work/fuzz.log" || true
  if [ "$status" -ne 0 ] || [ -n "$(ls -A "$work/artifacts")" ]; then
    tail -n 150 "$work/fuzz.log" >&2
    echo "fuzz: $target failed (exit $status); log and inputs kept in $work:" >&2
    for f in "$work"/artifacts/*; do
      [ -e "$f" ] || continue
      echo "--- $f (first 512 bytes, escaped)" >&2
      head -c 512 "$f" | od -An -c | head -40 >&2
    done
    echo "reproduce: $BUILD/$target <input>" >&2
    exit 1
  fi
  rm -rf "$work"
  echo "fuzz: $target ran ${FUZZ_SECONDS}s without findings"
}

for target in $TARGETS; do
  case "$target" in
    request_decoders_fuzzer)
      fuzz_one "$target" fuzz/corpus/request_decoders 65536 -dict=fuzz/json.dict ;;
    extractor_fuzzer)
      # Messages are short: 4 KB holds several turns of a long one, and keeps each run fast.
      fuzz_one "$target" fuzz/corpus/extractor 4096 -dict=fuzz/extractor.dict ;;
    *) echo "fuzz: unknown target $target" >&2; exit 2 ;;
  esac
done
