#include "engine/access_counts.h"

#include <gtest/gtest.h>

#include "engine/background.h"
#include "storage/memory_store.h"
#include "testing/record_support.h"

namespace engram {
namespace {

constexpr TimestampMs kMarch2026 = 1'772'323'200'000;  // 2026-03-01T00:00:00Z

class AccessCountsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto store = MemoryStore::Open(StoreOptions{.path = dir_.File("a.db"),
                                                .reader_connections = 1,
                                                .synchronous = "NORMAL",
                                                .item_cache_bytes = size_t{1} << 20},
                                   clock_.NowMs());
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    store_ = std::move(store).value();
    std::vector<PendingItem> items;
    for (const char* id : {"m1", "m2", "m3"}) {
      MemoryItem m;
      m.id = id;
      m.scope = alice_;
      m.content = std::string("note ") + id;
      m.created_at = m.updated_at = m.valid_from = clock_.NowMs();
      items.push_back({m, ""});
    }
    ASSERT_TRUE(store_->Insert(alice_, items, clock_.NowMs()).ok());
    for (const PendingItem& p : items) seqs_.push_back(p.seq);
  }

  // The item's access count as stored, read past the counts waiting in memory.
  int64_t Stored(int64_t seq) {
    auto rows = store_->GetBySeqs(alice_, {seq});
    EXPECT_TRUE(rows.ok());
    return rows.ok() && rows->size() == 1 ? (*rows)[0].item.access_count : -1;
  }

  ManualClock clock_{kMarch2026};
  testing::TempDir dir_;
  std::unique_ptr<MemoryStore> store_;
  Scope alice_{"default", "alice", "", ""};
  std::vector<int64_t> seqs_;
};

TEST_F(AccessCountsTest, AFlushIsDueWhenTheOldestCountIsFiveSecondsOld) {
  AccessCounts counts(store_.get(), {.flush_items = 100, .clock = &clock_});
  EXPECT_FALSE(counts.Due(clock_.NowMs()));  // nothing pending
  EXPECT_FALSE(counts.Note({seqs_[0]}, clock_.NowMs()));
  EXPECT_FALSE(counts.Due(clock_.NowMs() + AccessCounts::kFlushIntervalMs - 1));
  EXPECT_TRUE(counts.Due(clock_.NowMs() + AccessCounts::kFlushIntervalMs));
}

TEST_F(AccessCountsTest, ReachingFlushItemsAsksForAFlushOnce) {
  AccessCounts counts(store_.get(), {.flush_items = 2, .clock = &clock_});
  EXPECT_FALSE(counts.Note({seqs_[0]}, clock_.NowMs()));
  EXPECT_TRUE(counts.Note({seqs_[1]}, clock_.NowMs()));   // the caller wakes the flusher
  EXPECT_FALSE(counts.Note({seqs_[2]}, clock_.NowMs()));  // already asked
  EXPECT_TRUE(counts.Due(clock_.NowMs()));
  ASSERT_TRUE(counts.Flush().ok());
  EXPECT_FALSE(counts.Due(clock_.NowMs()));
}

TEST_F(AccessCountsTest, SearchRowsIncludeUnwrittenCountsAndAFlushWritesThemOnce) {
  AccessCounts counts(store_.get(), {.flush_items = 100, .clock = &clock_});
  counts.Note({seqs_[0], seqs_[1]}, clock_.NowMs());
  counts.Note({seqs_[0]}, clock_.NowMs() + 10);
  auto rows = counts.ReadHitRows(alice_, {seqs_[0]}, /*record_access=*/true);
  ASSERT_TRUE(rows.ok());
  ASSERT_EQ(rows->size(), 1u);
  EXPECT_EQ((*rows)[0].item.access_count, 2);
  EXPECT_EQ((*rows)[0].item.last_accessed, clock_.NowMs() + 10);
  EXPECT_EQ(Stored(seqs_[0]), 0);
  // Paced: the pause is asked for between chunks only.
  int pauses = 0;
  ASSERT_TRUE(counts.Flush([&](std::chrono::nanoseconds) { ++pauses; }).ok());
  EXPECT_EQ(pauses, 0);  // two items fit in one chunk (at most flush_items / 4 = 25)
  EXPECT_EQ(Stored(seqs_[0]), 2);
  EXPECT_EQ(Stored(seqs_[1]), 1);
  ASSERT_TRUE(counts.Flush().ok());  // nothing pending: nothing added twice
  auto after = counts.ReadHitRows(alice_, {seqs_[0]}, /*record_access=*/true);
  ASSERT_TRUE(after.ok());
  EXPECT_EQ((*after)[0].item.access_count, 2);
}

TEST_F(AccessCountsTest, APacedFlushPausesBetweenChunks) {
  AccessCounts counts(store_.get(), {.flush_items = 4, .clock = &clock_});  // one-item chunks
  counts.Note(seqs_, clock_.NowMs());
  int pauses = 0;
  ASSERT_TRUE(counts.Flush([&](std::chrono::nanoseconds) { ++pauses; }).ok());
  EXPECT_EQ(pauses, 2);  // three chunks
  for (int64_t seq : seqs_) EXPECT_EQ(Stored(seq), 1);
}

// Wired as the engine wires it: stopping the background work writes what searches counted,
// though no flush was due yet.
TEST_F(AccessCountsTest, StoppingTheBackgroundWritesThePendingCounts) {
  AccessCounts counts(store_.get(), {.flush_items = 100, .clock = &clock_});
  Background bg(BackgroundOptions{.clock = &clock_});
  bg.Register({.name = "access-counts",
               .interval = std::chrono::milliseconds(100),
               .run =
                   [&] {
                     if (counts.Due(clock_.NowMs())) (void)counts.Flush();
                   },
               .at_stop = [&] { (void)counts.Flush(); }});
  bg.Start();
  counts.Note({seqs_[0], seqs_[2]}, clock_.NowMs());
  bg.Stop();
  EXPECT_EQ(Stored(seqs_[0]), 1);
  EXPECT_EQ(Stored(seqs_[1]), 0);
  EXPECT_EQ(Stored(seqs_[2]), 1);
}

}  // namespace
}  // namespace engram
