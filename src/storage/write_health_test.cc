// The writer connection never wedges: every MemoryStore call leaves it clean (no statement on a
// row, no transaction open), a write that fails for the database's reasons is reported in the
// store's WriteHealth (logged once per change), a connection that cannot write any more is
// replaced, and writes work again once the database lets them.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "storage/memory_store.h"
#include "testing/record_support.h"

namespace engram {
namespace {

using testing::TempDir;

constexpr TimestampMs kNow = 1'796'000'000'000;  // 2026-11-30

class WriteHealthTest : public ::testing::Test {
 protected:
  void SetUp() override { Open(5000); }
  void Open(int busy_timeout_ms) {
    store_.reset();
    StoreOptions options{.path = dir_.File("s.db"),
                         .reader_connections = 1,
                         .busy_timeout_ms = busy_timeout_ms,
                         .synchronous = "NORMAL"};
    options.log = [this](const std::string& line) { log_.push_back(line); };
    auto store = MemoryStore::Open(options, kNow);
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    store_ = std::move(store).value();
  }
  Status Add(const std::string& id) {
    MemoryItem m;
    m.id = id;
    m.scope = alice_;
    m.content = "memory " + id;
    m.created_at = m.updated_at = m.valid_from = kNow;
    std::vector<PendingItem> items{{m, ""}};
    return store_->Insert(alice_, items, kNow);
  }
  // Another connection to the same file, as another process (the CLI, a backup) would hold.
  std::unique_ptr<Database> Other() {
    auto db = Database::Open(dir_.File("s.db"), DatabaseOptions{.busy_timeout_ms = 2000});
    EXPECT_TRUE(db.ok()) << db.status().ToString();
    return std::move(db).value();
  }

  TempDir dir_;
  std::unique_ptr<MemoryStore> store_;
  std::vector<std::string> log_;
  Scope alice_{"default", "alice", "", ""};
  Scope session_{"default", "alice", "", "s1"};
};

// The wedge a new user found: closing a session stored its summary id with a scope lookup left
// on a row, so the writer kept a read snapshot; once another connection committed (the audit
// log's), every later BEGIN IMMEDIATE failed with "database is locked" until a restart.
TEST_F(WriteHealthTest, ASessionSummaryLeavesTheWriterFreeToWriteAfterOthersCommit) {
  ASSERT_TRUE(store_->AppendTurns(session_, {{"m1", "user", "I like jazz", kNow}}, kNow).ok());
  ASSERT_TRUE(store_->SetSessionSummary(session_, "sum-1", kNow + 1000).ok());
  EXPECT_EQ(store_->WriterForTesting()->Leftovers(), "");
  auto other = Other();
  ASSERT_TRUE(other->Exec("CREATE TABLE elsewhere(x); INSERT INTO elsewhere VALUES (1)").ok());
  Status st = Add("after-close");
  EXPECT_TRUE(st.ok()) << st.ToString();
  auto info = store_->GetSession(session_, 1);
  ASSERT_TRUE(info.ok());
  EXPECT_EQ(info->summary_id, "sum-1");
  EXPECT_EQ(info->closed_at, kNow + 1000);
  EXPECT_TRUE(store_->GetWriteHealth().ok);
  EXPECT_TRUE(log_.empty());
}

// Every kind of writer call, one after another, each followed by a commit elsewhere: none
// leaves a snapshot that would refuse the next write.
TEST_F(WriteHealthTest, NoWriterCallLeavesASnapshotBehind) {
  auto other = Other();
  ASSERT_TRUE(other->Exec("CREATE TABLE elsewhere(x)").ok());
  int n = 0;
  auto elsewhere = [&] {
    return other->Exec("INSERT INTO elsewhere VALUES (" + std::to_string(++n) + ")");
  };
  ASSERT_TRUE(Add("a1").ok());
  ASSERT_TRUE(elsewhere().ok());
  ASSERT_TRUE(store_->AppendTurns(session_, {{"m1", "user", "hello", kNow}}, kNow).ok());
  ASSERT_TRUE(elsewhere().ok());
  ASSERT_TRUE(store_->SetSessionSummary(session_, "s", std::nullopt).ok());
  ASSERT_TRUE(elsewhere().ok());
  auto changed = store_->Mutate(alice_, "a1", HistoryEvent::kUpdate, "edit", kNow + 1,
                                [](MemoryItem& m) -> Result<bool> {
                                  m.content = "edited";
                                  return true;
                                });
  ASSERT_TRUE(changed.ok()) << changed.status().ToString();
  ASSERT_TRUE(elsewhere().ok());
  EXPECT_EQ(store_
                ->Mutate(alice_, "missing", HistoryEvent::kUpdate, "", kNow + 2,
                         [](MemoryItem&) -> Result<bool> { return true; })
                .status()
                .code(),
            StatusCode::kNotFound);
  ASSERT_TRUE(elsewhere().ok());
  auto purged = store_->Purge(alice_, "a1", PurgeOptions{}, kNow + 3);
  ASSERT_TRUE(purged.ok()) << purged.status().ToString();
  ASSERT_TRUE(elsewhere().ok());
  Status last = Add("a2");
  EXPECT_TRUE(last.ok()) << last.ToString();
  EXPECT_EQ(store_->WriterForTesting()->Leftovers(), "");
}

// A lock held elsewhere past the busy timeout: the write fails as unavailable, health says so
// (logged once, however many writes fail), the connection is kept (nothing is wrong with it),
// and a probe finds writes working again once the lock is released.
TEST_F(WriteHealthTest, ALockHeldElsewhereFailsWritesUntilItIsReleased) {
  Open(100);
  auto other = Other();
  ASSERT_TRUE(other->Exec("BEGIN IMMEDIATE").ok());
  EXPECT_EQ(Add("a1").code(), StatusCode::kUnavailable);
  EXPECT_EQ(Add("a2").code(), StatusCode::kUnavailable);
  WriteHealth h = store_->GetWriteHealth();
  EXPECT_FALSE(h.ok);
  EXPECT_NE(h.cause.find("database is locked"), std::string::npos) << h.cause;
  EXPECT_EQ(h.failures, 2);
  EXPECT_EQ(h.reopened, 0);
  EXPECT_FALSE(store_->ProbeWrites(20).ok);
  ASSERT_EQ(log_.size(), 1u);
  EXPECT_NE(log_[0].find("writes failing"), std::string::npos) << log_[0];
  ASSERT_TRUE(other->Exec("ROLLBACK").ok());
  EXPECT_TRUE(store_->ProbeWrites(20).ok);
  EXPECT_TRUE(Add("a3").ok());
  ASSERT_EQ(log_.size(), 2u);
  EXPECT_EQ(log_[1], "engram: storage: writes work again");
  EXPECT_EQ(store_->Get(alice_, "a3")->content, "memory a3");
  EXPECT_EQ(store_->Get(alice_, "a1").status().code(), StatusCode::kNotFound);
}

// A writer connection that cannot write any more (here forced read-only, as a fault would
// leave it) is replaced by a fresh one after the failed write, said once in the log; the
// next write works.
TEST_F(WriteHealthTest, AConnectionThatCannotWriteIsReplaced) {
  ASSERT_TRUE(Add("a1").ok());
  ASSERT_TRUE(store_->WriterForTesting()->Exec("PRAGMA query_only=ON").ok());
  Status failed = Add("a2");
  EXPECT_EQ(failed.code(), StatusCode::kIOError) << failed.ToString();
  WriteHealth h = store_->GetWriteHealth();
  EXPECT_FALSE(h.ok);
  EXPECT_EQ(h.reopened, 1);
  ASSERT_EQ(log_.size(), 2u);
  EXPECT_NE(log_[0].find("writer connection reopened after MemoryStore::Insert failed"),
            std::string::npos)
      << log_[0];
  EXPECT_NE(log_[1].find("writes failing"), std::string::npos) << log_[1];
  Status again = Add("a2");
  EXPECT_TRUE(again.ok()) << again.ToString();
  EXPECT_TRUE(store_->GetWriteHealth().ok);
  EXPECT_EQ(store_->Get(alice_, "a2")->content, "memory a2");
  EXPECT_EQ(store_->Get(alice_, "a1")->content, "memory a1");
}

}  // namespace
}  // namespace engram
