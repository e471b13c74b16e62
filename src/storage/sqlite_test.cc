#include "storage/sqlite.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>

#include "storage/lock_safe_reads.h"
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

namespace engram {
namespace {

// What the check handler was told, for tests that leave a connection unclean on purpose.
std::vector<std::string> g_reported;
void Record(std::string_view call, const std::string& leftovers) {
  g_reported.push_back(std::string(call) + ": " + leftovers);
}

class ConnectionCallTest : public ::testing::Test {
 protected:
  void SetUp() override {
    g_reported.clear();
    SetConnectionChecksForTesting(true);
    previous_ = SetConnectionCheckHandler(&Record);
    db_ = Open(dir_.File("t.db"), false);
    ASSERT_TRUE(db_->EnableWal().ok());
    ASSERT_TRUE(db_->Exec("CREATE TABLE t(x); INSERT INTO t VALUES (1), (2)").ok());
  }
  void TearDown() override {
    SetConnectionCheckHandler(previous_);
    SetConnectionChecksForTesting(ConnectionChecksOnByDefault());
  }
  static bool ConnectionChecksOnByDefault() {
#ifndef NDEBUG
    return true;
#else
    const char* v = std::getenv("ENGRAM_CHECK_STORAGE");
    return v != nullptr && *v != '\0' && std::string_view(v) != "0";
#endif
  }

  testing::TempDir dir_;
  std::unique_ptr<Database> db_;
  ConnectionCheckHandler previous_ = nullptr;
};

// A lent statement is reset when its handle goes, on every path: an early return on a row
// leaves nothing open (the leak behind a server whose writes all failed after a session close).
TEST_F(ConnectionCallTest, AScopedStatementIsResetWhenItsHandleGoes) {
  auto first_row = [&]() -> Result<int64_t> {
    auto st = db_->Prepare("SELECT x FROM t ORDER BY x");
    if (!st.ok()) return st.status();
    auto row = (*st)->Step();
    if (!row.ok()) return row.status();
    return (*st)->Int(0);  // returns on the first of two rows
  };
  ASSERT_EQ(*first_row(), 1);
  EXPECT_EQ(db_->Leftovers(), "");
  EXPECT_TRUE(sqlite3_get_autocommit(db_->raw()));
  {
    ConnectionCall call(db_.get(), "clean call");
    ASSERT_EQ(*first_row(), 1);
  }
  EXPECT_TRUE(g_reported.empty());
}

// A statement kept on a row, or a transaction left open, past the end of a call is reported
// with the call's name, and the connection is cleaned for the next call.
TEST_F(ConnectionCallTest, WhatACallLeavesIsReportedAndCleaned) {
  auto kept = db_->PrepareUncached("SELECT x FROM t");
  ASSERT_TRUE(kept.ok());
  {
    ConnectionCall call(db_.get(), "LeakyRead");
    ASSERT_TRUE(*(*kept)->Step());
  }
  ASSERT_EQ(g_reported.size(), 1u);
  EXPECT_EQ(g_reported[0], "LeakyRead: statement left on a row: SELECT x FROM t");
  EXPECT_EQ(db_->Leftovers(), "");
  {
    ConnectionCall call(db_.get(), "LeakyWrite");
    ASSERT_TRUE(db_->Exec("BEGIN IMMEDIATE; INSERT INTO t VALUES (3)").ok());
  }
  ASSERT_EQ(g_reported.size(), 2u);
  EXPECT_EQ(g_reported[1], "LeakyWrite: transaction open");
  EXPECT_TRUE(sqlite3_get_autocommit(db_->raw()));
  EXPECT_EQ(Count(db_.get()), 2);  // rolled back, not committed
}

// Without checks a leftover is cleaned all the same, and nothing is reported.
TEST_F(ConnectionCallTest, WithChecksOffLeftoversAreCleanedSilently) {
  SetConnectionChecksForTesting(false);
  {
    ConnectionCall call(db_.get(), "LeakyWrite");
    ASSERT_TRUE(db_->Exec("BEGIN IMMEDIATE; INSERT INTO t VALUES (3)").ok());
  }
  EXPECT_TRUE(g_reported.empty());
  EXPECT_TRUE(sqlite3_get_autocommit(db_->raw()));
  EXPECT_EQ(Count(db_.get()), 2);
}

// A BUSY that SQLite returns without waiting (here: a stale snapshot held by a statement of
// the same call) is retried until the busy timeout has passed, then returned as unavailable;
// a BUSY after SQLite's own wait is returned at once.
TEST_F(ConnectionCallTest, BeginRetriesABusyUntilTheBusyTimeout) {
  db_->SetBusyTimeout(300);
  auto other = Open(dir_.File("t.db"), false);
  auto kept = db_->PrepareUncached("SELECT x FROM t");
  ASSERT_TRUE(*(*kept)->Step());                              // a read snapshot
  ASSERT_TRUE(other->Exec("INSERT INTO t VALUES (9)").ok());  // now stale
  const auto start = std::chrono::steady_clock::now();
  Transaction txn(db_.get());
  Status st = txn.Begin();
  const auto waited = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(st.code(), StatusCode::kUnavailable) << st.ToString();
  EXPECT_EQ(db_->last_error_rc(), SQLITE_BUSY_SNAPSHOT);
  EXPECT_GE(waited, std::chrono::milliseconds(200));
  (*kept)->Reset();
  EXPECT_TRUE(txn.Begin().ok());  // the snapshot gone, the write lock is free
}

// Errors are counted by SQLite's primary code for /metrics.
TEST_F(ConnectionCallTest, ErrorsAreCountedByCode) {
  auto count = [](const std::string& code) {
    for (const SqliteErrorCount& e : SqliteErrorCounts()) {
      if (e.code == code) return e.count;
    }
    return int64_t{0};
  };
  const int64_t before = count("constraint");
  ASSERT_TRUE(db_->Exec("CREATE UNIQUE INDEX t_x ON t(x)").ok());
  EXPECT_EQ(db_->Exec("INSERT INTO t VALUES (1)").code(), StatusCode::kConflict);
  EXPECT_EQ(count("constraint"), before + 1);
  EXPECT_EQ(db_->last_error_rc() & 0xFF, SQLITE_CONSTRAINT);
  EXPECT_FALSE(IsDatabaseFailure(db_->last_error_rc()));
  EXPECT_TRUE(IsDatabaseFailure(SQLITE_BUSY_SNAPSHOT));
  EXPECT_TRUE(IsDatabaseFailure(SQLITE_IOERR_WRITE));
}

}  // namespace
}  // namespace engram

namespace engram {
namespace {

// Whether another process could take SQLite's EXCLUSIVE lock on the database file (a write lock
// on its shared-lock bytes, where every connection of a WAL database keeps a read lock): asked
// from a child process, since POSIX locks of the asking process never conflict with its own.
bool AnotherProcessCouldLockExclusively(const std::string& path) {
  const pid_t child = fork();
  if (child == 0) {
    const int fd = ::open(path.c_str(), O_RDWR);
    struct flock lock {};
    lock.l_type = F_WRLCK;
    lock.l_whence = SEEK_SET;
    lock.l_start = 0x40000000 + 2;  // SQLite's SHARED_FIRST (PENDING_BYTE + 2)
    lock.l_len = 510;               // SHARED_SIZE
    _exit(fd >= 0 && ::fcntl(fd, F_SETLK, &lock) == 0 ? 0 : 1);
  }
  int status = 0;
  waitpid(child, &status, 0);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

// A connection keeps its lock on the database file while this process reads the file beside
// SQLite (the key check of another connection it opens, the byte scan of a verified purge):
// closing a descriptor of its own would drop every lock the process holds on the file, and
// another process could then checkpoint and delete a WAL this one still writes.
TEST(LockSafeReadsTest, ReadingTheFileBesideAConnectionKeepsItsLocks) {
  testing::TempDir dir;
  const std::string path = dir.File("t.db");
  auto db = Open(path, false);
  ASSERT_TRUE(db->EnableWal().ok());
  ASSERT_TRUE(db->Exec("CREATE TABLE t(x); INSERT INTO t VALUES (1)").ok());
  EXPECT_EQ(Count(db.get()), 1);  // a read: the connection holds its shared lock
  ASSERT_FALSE(AnotherProcessCouldLockExclusively(path));
  char head[100];
  auto got = ReadFileAt(path, 0, head, sizeof head);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(std::string(head, 15), "SQLite format 3");
  EXPECT_FALSE(AnotherProcessCouldLockExclusively(path));
  auto reader = Open(path, true);  // opening checks page 1 for a key
  reader.reset();
  EXPECT_FALSE(AnotherProcessCouldLockExclusively(path));
  db.reset();  // the last connection: nothing holds the file any more
  EXPECT_TRUE(AnotherProcessCouldLockExclusively(path));
}

}  // namespace
}  // namespace engram
