// One Engine shared by writer and reader threads: exact final counts, no read errors, and a
// write acknowledged on one thread is visible to reads on every other.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "testing/test_support.h"

namespace engram {
namespace {

TEST(ConcurrencyTest, WritersAndReadersShareOneEngine) {
  testing::TempDir dir;
  EngineOptions options;
  options.reader_connections = 3;
  auto engine = testing::OpenEngine(dir.File("c.db"), nullptr, options);
  ASSERT_NE(engine, nullptr);

  constexpr int kWriters = 4, kReaders = 4, kBatches = 25, kBatchSize = 10;
  std::atomic<bool> writers_done{false};
  std::atomic<int> read_errors{0}, foreign_items{0}, reads{0};

  std::vector<std::thread> threads;
  for (int w = 0; w < kWriters; ++w) {
    threads.emplace_back([&, w] {
      Scope scope{"default", "user" + std::to_string(w), "", ""};
      for (int b = 0; b < kBatches; ++b) {
        std::vector<NewMemory> batch;
        for (int i = 0; i < kBatchSize; ++i) {
          batch.push_back(testing::Text("w" + std::to_string(w) + " b" + std::to_string(b)));
        }
        auto added = engine->AddBatch(scope, batch);
        ASSERT_TRUE(added.ok()) << added.status().ToString();
        // Read-your-writes from this thread, immediately after the acknowledgement.
        auto got = engine->Get(scope, added->back().id);
        ASSERT_TRUE(got.ok()) << got.status().ToString();
        if (b % 5 == 0) {
          MemoryPatch p;
          p.importance = 0.9;
          ASSERT_TRUE(engine->Update(scope, added->front().id, p).ok());
        }
      }
    });
  }
  for (int r = 0; r < kReaders; ++r) {
    threads.emplace_back([&, r] {
      Scope scope{"default", "user" + std::to_string(r % kWriters), "", ""};
      size_t last_count = 0;
      while (!writers_done.load()) {
        ListQuery q;
        q.limit = 1000;
        auto page = engine->List(scope, q);
        reads.fetch_add(1);
        if (!page.ok()) {
          read_errors.fetch_add(1);
          continue;
        }
        for (const auto& m : page->items) {
          if (m.scope.user_id != scope.user_id) foreign_items.fetch_add(1);
        }
        // Counts only grow, in whole batches (a batch is one transaction).
        EXPECT_GE(page->items.size(), last_count);
        EXPECT_EQ(page->items.size() % kBatchSize, 0u);
        last_count = page->items.size();
      }
    });
  }
  for (int w = 0; w < kWriters; ++w) threads[w].join();
  writers_done.store(true);
  for (size_t t = kWriters; t < threads.size(); ++t) threads[t].join();

  EXPECT_EQ(read_errors.load(), 0);
  EXPECT_EQ(foreign_items.load(), 0);
  EXPECT_GT(reads.load(), 0);
  for (int w = 0; w < kWriters; ++w) {
    ListQuery q;
    q.limit = 1000;
    auto page = engine->List(Scope{"default", "user" + std::to_string(w), "", ""}, q);
    ASSERT_TRUE(page.ok());
    EXPECT_EQ(page->items.size(), static_cast<size_t>(kBatches * kBatchSize));
  }
}

}  // namespace
}  // namespace engram
