#include "storage/memory_store.h"

#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <map>
#include <thread>

#include "testing/record_support.h"

namespace engram {
namespace {

using testing::TempDir;

MemoryItem Item(const std::string& id, const Scope& scope, const std::string& content) {
  MemoryItem m;
  m.id = id;
  m.scope = scope;
  m.content = content;
  m.created_at = m.updated_at = m.valid_from = 1000;
  return m;
}

class MemoryStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto store = MemoryStore::Open(
        StoreOptions{.path = dir_.File("s.db"), .reader_connections = 1, .synchronous = "NORMAL"},
        1000);
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    store_ = std::move(store).value();
  }

  Status InsertAll(std::vector<PendingItem> items) { return store_->Insert(alice_, items, 1000); }

  TempDir dir_;
  std::unique_ptr<MemoryStore> store_;
  Scope alice_{"default", "alice", "", ""};
};

TEST_F(MemoryStoreTest, InsertRefusesItemsOfAnotherScope) {
  Scope bob{"default", "bob", "", ""};
  Status st = InsertAll({{Item("a1", alice_, "mine"), ""}, {Item("b1", bob, "smuggled"), ""}});
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(store_->Get(alice_, "a1").status().code(), StatusCode::kNotFound);
  EXPECT_EQ(store_->Get(bob, "b1").status().code(), StatusCode::kNotFound);
}

TEST_F(MemoryStoreTest, DuplicateIdIsAConflictAndRollsBackTheBatch) {
  ASSERT_TRUE(InsertAll({{Item("a1", alice_, "first"), ""}}).ok());
  Status st = InsertAll({{Item("a2", alice_, "second"), ""}, {Item("a1", alice_, "dup"), ""}});
  EXPECT_EQ(st.code(), StatusCode::kConflict);
  EXPECT_EQ(store_->Get(alice_, "a2").status().code(), StatusCode::kNotFound);
  EXPECT_EQ(store_->Get(alice_, "a1")->content, "first");
}

// Loading a scope (Scan) fills the item cache's free room, so the first search's hits are
// served from memory; what did not fit is read from the database and cached then. Another
// user's scan does not make alice's items readable by that user.
TEST_F(MemoryStoreTest, ScanFillsTheItemCacheAsFarAsItHasRoom) {
  for (int i = 0; i < 5; ++i) {
    const std::string n = std::to_string(i);
    ASSERT_TRUE(InsertAll({{Item("a" + n, alice_, "memory " + n), ""}}).ok());
  }
  const size_t footprint = ItemCache::Footprint(Item("a0", alice_, "memory 0"));
  auto run = [&](size_t room_for, int64_t want_hits) {
    SCOPED_TRACE(room_for);
    auto store = MemoryStore::Open(
        StoreOptions{.path = dir_.File("s.db"), .item_cache_bytes = room_for * footprint}, 1000);
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    std::vector<int64_t> seqs;
    ASSERT_TRUE((*store)
                    ->Scan(alice_, "", false,
                           [&](ScannedItem&& s) {
                             seqs.push_back(s.seq);
                             return Status::Ok();
                           })
                    .ok());
    ASSERT_EQ(seqs.size(), 5u);
    EXPECT_EQ((*store)->item_cache().size(), std::min<size_t>(room_for, 5));
    auto bob = (*store)->GetBySeqs(Scope{"default", "bob", "", ""}, seqs);
    ASSERT_TRUE(bob.ok());
    EXPECT_TRUE(bob->empty());
    const uint64_t misses_before = (*store)->item_cache().misses();
    auto rows = (*store)->GetBySeqs(alice_, seqs);
    ASSERT_TRUE(rows.ok());
    ASSERT_EQ(rows->size(), 5u);
    for (const ScannedItem& row : *rows) EXPECT_EQ(row.item.scope.user_id, "alice");
    EXPECT_EQ((*store)->item_cache().hits(), static_cast<uint64_t>(want_hits));
    EXPECT_EQ((*store)->item_cache().misses() - misses_before,
              static_cast<uint64_t>(5 - want_hits));
  };
  run(10, 5);
  run(2, 2);
}

// Access counts for more items than one statement takes on PostgreSQL (batches of 2,000 there;
// one statement per item on SQLite) all land, each on its own item and added to what was
// there; a count for an item purged meanwhile, or for a seq that never was, is dropped. Read
// back through a second store with no item cache, so the rows are what the database holds.
TEST_F(MemoryStoreTest, AccessCountsOfThousandsOfItemsLandEachOnItsItem) {
  constexpr int kItems = 4100;
  std::vector<PendingItem> batch;
  for (int i = 0; i < kItems; ++i) {
    batch.push_back({Item("a" + std::to_string(i), alice_, "memory " + std::to_string(i)), ""});
  }
  ASSERT_TRUE(InsertAll(std::move(batch)).ok());
  std::map<std::string, int64_t> seq_of;
  ASSERT_TRUE(store_
                  ->Scan(alice_, "", false,
                         [&](ScannedItem&& s) {
                           seq_of[s.item.id] = s.seq;
                           return Status::Ok();
                         })
                  .ok());
  ASSERT_EQ(seq_of.size(), static_cast<size_t>(kItems));
  ASSERT_TRUE(store_->Purge(alice_, "a7", {}, 2000).ok());
  std::vector<AccessDelta> deltas;
  for (int i = 0; i < kItems; ++i) {
    deltas.push_back({seq_of["a" + std::to_string(i)], i % 5 + 1, 5000 + i});
  }
  deltas.push_back({seq_of["a" + std::to_string(kItems - 1)] + 100000, 3, 9000});  // never was
  ASSERT_TRUE(store_->RecordAccess(deltas).ok());
  // Again for a few: added to the stored counts, the later read time kept.
  ASSERT_TRUE(store_->RecordAccess({{seq_of["a0"], 10, 4000}, {seq_of["a4099"], 2, 99999}}).ok());

  auto fresh =
      MemoryStore::Open(StoreOptions{.path = dir_.File("s.db"), .item_cache_bytes = 0}, 1000);
  ASSERT_TRUE(fresh.ok()) << fresh.status().ToString();
  std::vector<int64_t> seqs;
  for (const auto& [id, seq] : seq_of) seqs.push_back(seq);
  auto rows = (*fresh)->GetBySeqs(alice_, seqs);
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  ASSERT_EQ(rows->size(), static_cast<size_t>(kItems - 1));  // a7 purged
  for (const ScannedItem& row : *rows) {
    const int i = std::stoi(row.item.id.substr(1));
    SCOPED_TRACE(row.item.id);
    int64_t want_count = i % 5 + 1;
    TimestampMs want_last = 5000 + i;
    if (i == 0) want_count += 10;  // 4000 is earlier: 5000 stays
    if (i == kItems - 1) want_count += 2, want_last = 99999;
    ASSERT_EQ(row.item.access_count, want_count);
    ASSERT_EQ(row.item.last_accessed.value_or(-1), want_last);
  }
}

// A store whose WAL only its owner checkpoints (background_checkpoints), as the engine's is.
class MemoryStoreCheckpointTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto store = MemoryStore::Open(
        StoreOptions{.path = path_, .synchronous = "NORMAL", .background_checkpoints = true}, 1000);
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    store_ = std::move(store).value();
  }

  // Batch `b`: `n` items of 2,000 bytes, ids i<b*n> … i<b*n+n-1>, content the letter of b.
  std::vector<PendingItem> Batch(int b, int n) {
    std::vector<PendingItem> items;
    for (int i = 0; i < n; ++i) {
      items.push_back({Item("i" + std::to_string(b * n + i), alice_, Content(b)), ""});
    }
    return items;
  }
  static std::string Content(int b) { return std::string(2000, static_cast<char>('a' + b % 26)); }

  TempDir dir_;
  const std::string path_ = dir_.File("c.db");
  std::unique_ptr<MemoryStore> store_;
  Scope alice_{"default", "alice", "", ""};
};

TEST_F(MemoryStoreCheckpointTest, BackgroundCheckpointsLeaveCommitsAlone) {
  // About 6 MB of rows: past SQLite's 1,000-page automatic checkpoint, which must not run.
  for (int b = 0; b < 30; ++b) {
    auto items = Batch(b, 100);
    ASSERT_TRUE(store_->Insert(alice_, items, 1000).ok());
  }
  const auto wal = std::filesystem::file_size(path_ + "-wal");
  EXPECT_GT(wal, 5u << 20) << "the WAL was checkpointed (and reused) by a commit";
  ASSERT_TRUE(store_->Checkpoint().ok());
  // Checkpointed frames are in the database file: a copy of it alone (no WAL), taken while
  // the store is still open, has every row.
  std::filesystem::copy_file(path_, dir_.File("copy.db"));
  store_.reset();
  auto copy = MemoryStore::Open(StoreOptions{.path = dir_.File("copy.db")}, 1000);
  ASSERT_TRUE(copy.ok()) << copy.status().ToString();
  auto last = (*copy)->Get(alice_, "i2999");
  ASSERT_TRUE(last.ok()) << last.status().ToString();
  EXPECT_EQ(last->content, Content(29));
}

// Under a steady stream of commits a passive checkpoint never copies the whole WAL (new
// frames arrive while it copies), so SQLite never starts the WAL over and the file only grows;
// each commit's sync then also commits the file system's journal. Checkpoint() finishes a
// long WAL with no commit running, so the next one starts it over.
TEST_F(MemoryStoreCheckpointTest, TheWalStartsOverUnderAStreamOfCommits) {
  constexpr int kBatches = 1500;  // ~30 MB of rows, in small transactions
  std::atomic<bool> done{false};
  Status write_status;
  std::thread writer([&] {
    for (int b = 0; b < kBatches && write_status.ok(); ++b) {
      auto items = Batch(b, 10);
      write_status = store_->Insert(alice_, items, 1000);
    }
    done = true;
  });
  uintmax_t largest_wal = 0;
  int checkpoints = 0;
  Status checkpoint_status;
  while (!done && checkpoint_status.ok()) {  // no ASSERT while the writer runs: it is joined
    checkpoint_status = store_->Checkpoint(/*restart_frames=*/256);
    ++checkpoints;
    std::error_code ec;
    largest_wal = std::max(largest_wal, std::filesystem::file_size(path_ + "-wal", ec));
  }
  writer.join();
  ASSERT_TRUE(checkpoint_status.ok()) << checkpoint_status.ToString();
  ASSERT_TRUE(write_status.ok()) << write_status.ToString();
  ASSERT_GT(checkpoints, 10);
  const uintmax_t database = std::filesystem::file_size(path_);
  EXPECT_GT(database, 30u << 20);
  // A WAL that never started over would hold every page written, more than the database; one
  // that starts over stays well below it even when the checkpointing thread gets little CPU.
  EXPECT_LT(largest_wal, database / 2) << "the WAL kept growing: " << largest_wal << " bytes";
  EXPECT_EQ(store_->Get(alice_, "i" + std::to_string(kBatches * 10 - 1))->content,
            Content(kBatches - 1));
}

TEST_F(MemoryStoreTest, InsertGroupRollsBackOnlyTheFailingRequest) {
  ASSERT_TRUE(InsertAll({{Item("a1", alice_, "first"), ""}}).ok());
  Scope bob{"default", "bob", "", ""};
  Scope carol{"t2", "carol", "", ""};  // a scope with no row yet: created in the group
  std::vector<PendingItem> ok1{{Item("a2", alice_, "second"), ""},
                               {Item("a3", alice_, "third"), ""}};
  std::vector<PendingItem> dup{{Item("b1", bob, "bob's"), ""}, {Item("a1", bob, "dup id"), ""}};
  std::vector<PendingItem> smuggled{{Item("x1", alice_, "not carol's"), ""}};
  std::vector<PendingItem> ok2{{Item("c1", carol, "carol's"), ""}};
  std::vector<MemoryStore::InsertRequest> group{{&alice_, &ok1, 2000, Status::Ok()},
                                                {&bob, &dup, 2000, Status::Ok()},
                                                {&carol, &smuggled, 2000, Status::Ok()},
                                                {&carol, &ok2, 2000, Status::Ok()}};
  store_->InsertGroup(group);
  EXPECT_TRUE(group[0].status.ok()) << group[0].status.ToString();
  EXPECT_EQ(group[1].status.code(), StatusCode::kConflict);
  EXPECT_EQ(group[2].status.code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(group[3].status.ok()) << group[3].status.ToString();
  EXPECT_EQ(store_->Get(alice_, "a2")->content, "second");
  EXPECT_EQ(store_->Get(alice_, "a3")->content, "third");
  EXPECT_EQ(store_->Get(carol, "c1")->content, "carol's");
  EXPECT_GT(ok2[0].seq, ok1[1].seq);
  // The failing request left nothing: not its first item, nor a history row.
  EXPECT_EQ(store_->Get(bob, "b1").status().code(), StatusCode::kNotFound);
  EXPECT_EQ(store_->Get(alice_, "a1")->content, "first");
  EXPECT_EQ(store_->Get(alice_, "x1").status().code(), StatusCode::kNotFound);
  auto history = store_->History(alice_, "a2");
  ASSERT_TRUE(history.ok());
  EXPECT_EQ(history->size(), 1u);
}

// With a single pooled reader, every read reuses one connection: a read must not pin a stale
// snapshot that hides later commits.
TEST_F(MemoryStoreTest, ReaderConnectionSeesEveryCommittedWrite) {
  ASSERT_TRUE(InsertAll({{Item("a1", alice_, "v1"), ""}}).ok());
  for (int i = 2; i <= 5; ++i) {
    ASSERT_EQ(store_->Get(alice_, "a1")->content, "v" + std::to_string(i - 1));
    auto changed = store_->Mutate(alice_, "a1", HistoryEvent::kUpdate, "", 1000 + i,
                                  [&](MemoryItem& m) -> Result<bool> {
                                    m.content = "v" + std::to_string(i);
                                    return true;
                                  });
    ASSERT_TRUE(changed.ok());
  }
  EXPECT_EQ(store_->Get(alice_, "a1")->content, "v5");
  EXPECT_EQ(store_->History(alice_, "a1")->size(), 5u);
}

TEST_F(MemoryStoreTest, MutationErrorWritesNothing) {
  ASSERT_TRUE(InsertAll({{Item("a1", alice_, "v1"), ""}}).ok());
  auto r = store_->Mutate(alice_, "a1", HistoryEvent::kUpdate, "", 2000,
                          [](MemoryItem& m) -> Result<bool> {
                            m.content = "half-done";
                            return Status::Conflict("refused");
                          });
  EXPECT_EQ(r.status().code(), StatusCode::kConflict);
  EXPECT_EQ(store_->Get(alice_, "a1")->content, "v1");
  EXPECT_EQ(store_->History(alice_, "a1")->size(), 1u);
}

}  // namespace
}  // namespace engram
