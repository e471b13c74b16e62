#!/usr/bin/env bash
# The unit tests again, on PostgreSQL: starts a throwaway PostgreSQL 15 on loopback
# (scripts/pg_server.sh, data in a temporary directory, stopped at the end) and runs
# engram_unit_tests with ENGRAM_TEST_PG_URL set, so every database a test opens by name is a
# fresh PostgreSQL database (src/testing/record_support.h, TempDir::File). The tests that are
# about SQLite's own files are left out (PG_EXCLUDED below, each with its reason); every other
# test of the storage, engine, write path, lifecycle, privacy and server layers runs.
#
# With ENGRAM_PG_PARTITIONS=N (N >= 2) in the environment every test database is created with
# its tenant-owned tables PARTITION BY HASH (tenant), N partitions (storage/pg_migrations.cc,
# migration 3): ctest's unit.postgres_partitioned runs the suite that way once.
#
#   scripts/pg_unit_test.sh BUILD_DIR [gtest filter]
set -euo pipefail

build=${1:?build directory}
filter=${2:-*}
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "$build" && pwd)

# Left out: tests of what only an SQLite file has (WAL and checkpoints, SQLite's statement and
# lock states, its migrations, the sealed file format, the file's lock, bytes on disk after a
# purge); byte-verified purges and index snapshots, which PostgreSQL refuses or does not keep
# (engram_pg_tests checks the refusal); and one test whose premise, SQLite reusing a deleted
# row's seq, cannot arise with PostgreSQL's sequences.
PG_EXCLUDED=(
  'MemoryStoreCheckpointTest.*'
  'JobStoreTest.TheEndOfAnErasedJobNeverLandsOnTheJobThatReusedItsSeq'
  'Sqlite*'
  'SealedVfs*'
  'Encryption*'
  'Reseal*'
  'LockSafeReads*'
  'TraceScan*'
  'Migration*'
  'WriteHealth*'
  'ConnectionCallTest.*'
  'SnapshotTest.*'
  'GraphBuilderTest.AddsAfterTheGraphAreMergedInTheBackground'
  'GraphBuilderTest.UnmergedAddsAreInTheSnapshot'
  'EngineTest.PurgeLeavesNoTraceInTablesOrFile'
  'PurgeTest.APurgedMemoryTakesItsConversationAndLeavesNoByteBehind'
  'PurgeTest.AVerifiedUserPurgeFindsNothingAndSharedWordsAreNotTraces'
  'PurgeTest.ATenantPurgeErasesEveryUserOfItAndNoOtherTenant'
  'KnowledgeTest.AVerifiedDeleteLeavesNoByteOfTheDocument'
  'IndexBudgetTest.AnEvictedGraphIsSavedAndReloadedFromItsSnapshot'
)

work=$(mktemp -d)
cleanup() {
  "$here/pg_server.sh" stop "$work/pg" || true
  rm -rf "$work"
}
trap cleanup EXIT

url=$("$here/pg_server.sh" start "$work/pg")
echo "pg_unit_test: PostgreSQL at $url, tenant tables" \
  "$([ "${ENGRAM_PG_PARTITIONS:-0}" -ge 2 ] 2>/dev/null && echo "in ${ENGRAM_PG_PARTITIONS} hash partitions" || echo "not partitioned")"
negative=$(IFS=:; echo "${PG_EXCLUDED[*]}")
cd "$work"  # a test that writes beside its database writes here
bin=$build
export ENGRAM_TEST_PG_URL=$url ENGRAM_CHECK_STORAGE=1
echo "== the backend's own tests (engram_pg_tests)"
"$bin/engram_pg_tests" --gtest_filter="$filter" --gtest_brief=1
echo "== the unit suite on PostgreSQL (engram_unit_tests)"
"$bin/engram_unit_tests" --gtest_filter="$filter:-$negative" --gtest_brief=1
