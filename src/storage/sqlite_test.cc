#include "storage/sqlite.h"

#include <gtest/gtest.h>

#include "testing/record_support.h"

namespace engram {
namespace {

std::unique_ptr<Database> Open(const std::string& path, bool read_only) {
  auto db = Database::Open(path, DatabaseOptions{.read_only = read_only});
  EXPECT_TRUE(db.ok()) << db.status().ToString();
  return std::move(db).value();
}

int64_t Count(Database* db) {
  auto st = db->Prepare("SELECT count(*) FROM t");
  EXPECT_TRUE(st.ok());
  auto row = (*st)->Step();
  EXPECT_TRUE(row.ok() && *row);
  const int64_t n = (*st)->Int(0);
  (*st)->Reset();
  return n;
}

TEST(ReadTransactionTest, StatementsShareOneSnapshotAndTheEndReleasesIt) {
  testing::TempDir dir;
  const std::string path = dir.path() + "/t.db";
  auto writer = Open(path, false);
  ASSERT_TRUE(writer->EnableWal().ok());
  ASSERT_TRUE(writer->Exec("CREATE TABLE t(x); INSERT INTO t VALUES (1)").ok());
  auto reader = Open(path, true);
  {
    ReadTransaction read(reader.get());
    ASSERT_TRUE(read.Begin().ok());
    EXPECT_EQ(Count(reader.get()), 1);
    ASSERT_TRUE(writer->Exec("INSERT INTO t VALUES (2)").ok());
    EXPECT_EQ(Count(reader.get()), 1);  // the snapshot taken by the first statement
    // A statement left on a row must not keep the transaction open past the end.
    auto rows = reader->Prepare("SELECT x FROM t");
    ASSERT_TRUE(rows.ok());
    auto row = (*rows)->Step();
    ASSERT_TRUE(row.ok() && *row);
    EXPECT_FALSE(sqlite3_get_autocommit(reader->raw()));
  }
  EXPECT_TRUE(sqlite3_get_autocommit(reader->raw()));
  EXPECT_EQ(Count(reader.get()), 2);
}

TEST(ReadTransactionTest, WithoutBeginNothingIsCommitted) {
  testing::TempDir dir;
  auto db = Open(dir.path() + "/t.db", false);
  ASSERT_TRUE(db->Exec("CREATE TABLE t(x)").ok());
  ASSERT_TRUE(db->Exec("BEGIN IMMEDIATE; INSERT INTO t VALUES (1)").ok());
  { ReadTransaction never_begun(db.get()); }
  // The caller's open transaction is untouched, and can still be rolled back.
  EXPECT_FALSE(sqlite3_get_autocommit(db->raw()));
  ASSERT_TRUE(db->Exec("ROLLBACK").ok());
  EXPECT_EQ(Count(db.get()), 0);
}

// A passive checkpoint copies what no reader still needs, and says how far it got: the next
// writer starts the WAL over only once everything is copied.
TEST(CheckpointPassiveTest, ReportsTheFramesCopiedAndStopsAtAReadersSnapshot) {
  testing::TempDir dir;
  const std::string path = dir.path() + "/t.db";
  auto writer = Open(path, false);
  ASSERT_TRUE(writer->EnableWal().ok());
  ASSERT_TRUE(writer->Exec("PRAGMA wal_autocheckpoint=0; CREATE TABLE t(x)").ok());
  auto checkpointer = Open(path, false);
  auto reader = Open(path, true);
  ASSERT_TRUE(writer->Exec("INSERT INTO t VALUES (randomblob(3000))").ok());
  {
    ReadTransaction read(reader.get());
    ASSERT_TRUE(read.Begin().ok());
    EXPECT_EQ(Count(reader.get()), 1);  // a snapshot of the WAL as it is now
    ASSERT_TRUE(writer->Exec("INSERT INTO t VALUES (randomblob(3000))").ok());
    auto held = checkpointer->CheckpointPassive();
    ASSERT_TRUE(held.ok()) << held.status().ToString();
    EXPECT_GT(held->checkpointed_frames, 0);                 // up to the snapshot
    EXPECT_LT(held->checkpointed_frames, held->log_frames);  // not the second insert
  }
  auto all = checkpointer->CheckpointPassive();
  ASSERT_TRUE(all.ok());
  EXPECT_GT(all->log_frames, 0);
  EXPECT_EQ(all->checkpointed_frames, all->log_frames);
  EXPECT_TRUE(checkpointer->SyncDatabaseFile().ok());
  // Fully copied: the next commit writes the WAL from its start.
  ASSERT_TRUE(writer->Exec("INSERT INTO t VALUES (1)").ok());
  auto restarted = checkpointer->CheckpointPassive();
  ASSERT_TRUE(restarted.ok());
  EXPECT_LT(restarted->log_frames, all->log_frames);
  EXPECT_EQ(Count(writer.get()), 3);
}

}  // namespace
}  // namespace engram
