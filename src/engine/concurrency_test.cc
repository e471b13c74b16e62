// One Engine shared by writer and reader threads: exact final counts, no read errors, and a
// write acknowledged on one thread is visible to reads on every other.
#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <future>
#include <mutex>
#include <thread>

#include "engine/engine_internal.h"
#include "testing/test_support.h"

namespace engram {
namespace {

// testing::OpenEngine with test hooks installed.
std::unique_ptr<Engine> OpenEngineWithHooks(const std::string& path, EngineOptions options,
                                            const EngineHooks& hooks) {
  options.path = path;
  options.synchronous = "NORMAL";
  auto engine = engram::OpenEngineWithHooks(options, hooks);
  EXPECT_TRUE(engine.ok()) << engine.status().ToString();
  return engine.ok() ? std::move(engine).value() : nullptr;
}

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

// Concurrent single adds are group-committed: each one acknowledged is in the search index at
// once (the group's leader updates the indexes before waking its callers), in its own scope.
TEST(ConcurrencyTest, ConcurrentSingleAddsAreSearchableOnReturn) {
  testing::TempDir dir;
  auto engine = testing::OpenEngine(dir.File("g.db"));
  ASSERT_NE(engine, nullptr);
  constexpr int kThreads = 8, kAdds = 40;
  std::atomic<int> misses{0}, foreign{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      Scope scope{"default", "user" + std::to_string(t % 3), "", ""};
      for (int i = 0; i < kAdds; ++i) {
        // A word no other memory has, so the search can only find this one.
        const std::string word = "zq" + std::to_string(t) + "x" + std::to_string(i) + "k";
        auto added = engine->Add(scope, testing::Text("note " + word));
        ASSERT_TRUE(added.ok()) << added.status().ToString();
        SearchQuery q;
        q.text = word;
        q.k = 3;
        q.record_access = false;
        auto hits = engine->Search(scope, q);
        ASSERT_TRUE(hits.ok()) << hits.status().ToString();
        if (hits->empty() || (*hits)[0].item.id != added->id) misses.fetch_add(1);
        for (const SearchHit& h : *hits) foreign += h.item.scope.user_id != scope.user_id;
      }
    });
  }
  for (std::thread& th : threads) th.join();
  EXPECT_EQ(misses.load(), 0);
  EXPECT_EQ(foreign.load(), 0);
  int64_t total = 0;
  for (int u = 0; u < 3; ++u) {
    ListQuery q;
    q.limit = 1000;
    auto page = engine->List(Scope{"default", "user" + std::to_string(u), "", ""}, q);
    ASSERT_TRUE(page.ok());
    total += static_cast<int64_t>(page->items.size());
  }
  EXPECT_EQ(total, kThreads * kAdds);
}

// Searches count their reads while the background flusher writes them: after a final flush,
// the stored count is exactly the number of reads, and no search ever returns a count below
// what it had already seen before (a flush committing mid-search is not missed).
TEST(ConcurrencyTest, AccessCountsAreExactWhileFlushingInTheBackground) {
  testing::TempDir dir;
  EngineOptions options;
  options.access_flush_items = 1000;  // flushes of 250-item chunks
  auto engine = testing::OpenEngine(dir.File("a.db"), nullptr, options);
  ASSERT_NE(engine, nullptr);
  Scope scope{"default", "alice", "", ""};
  // Over a thousand distinct items returned, so the flusher is woken repeatedly mid-run.
  std::vector<NewMemory> batch;
  for (int i = 0; i < 1500; ++i) batch.push_back(testing::Text("tea note " + std::to_string(i)));
  auto added = engine->AddBatch(scope, batch);
  ASSERT_TRUE(added.ok());
  auto target = engine->Add(scope, testing::Text("oolong oolong oolong"));
  ASSERT_TRUE(target.ok());

  SearchQuery oolong;
  oolong.text = "oolong";
  oolong.k = 1;
  constexpr int kThreads = 4, kSearches = 150;
  std::atomic<int> regressions{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      int64_t seen = 0;
      for (int i = 0; i < kSearches; ++i) {
        auto hits = engine->Search(scope, oolong);
        ASSERT_TRUE(hits.ok());
        ASSERT_EQ(hits->size(), 1u);
        if ((*hits)[0].item.access_count <= seen) regressions.fetch_add(1);
        seen = (*hits)[0].item.access_count;
        // Other items' reads fill the pending set past the flush threshold.
        SearchQuery others;
        others.text = "tea note " + std::to_string((t * kSearches + i) % 1500);
        others.k = 10;
        ASSERT_TRUE(engine->Search(scope, others).ok());
      }
    });
  }
  for (std::thread& th : threads) th.join();
  EXPECT_EQ(regressions.load(), 0);
  ASSERT_TRUE(engine->FlushAccessStats().ok());
  auto stored = engine->Get(scope, target->id);
  ASSERT_TRUE(stored.ok());
  EXPECT_EQ(stored->access_count, kThreads * kSearches);
  // A search's hit (served from the item cache by now) counts every read once, itself included.
  auto again = engine->Search(scope, oolong);
  ASSERT_TRUE(again.ok());
  ASSERT_EQ(again->size(), 1u);
  EXPECT_EQ((*again)[0].item.access_count, kThreads * kSearches + 1);
}

// The background flusher pauses between chunks (three times as long as a chunk took), so it
// never holds a core for long; an engine being destroyed stops pausing and still writes
// every count.
TEST(ConcurrencyTest, TheBackgroundFlushPausesBetweenChunksButNotAtShutdown) {
  testing::TempDir dir;
  constexpr auto kChunkTime = std::chrono::milliseconds(30);
  std::mutex mu;
  std::condition_variable cv;
  std::vector<std::chrono::steady_clock::time_point> commits;
  EngineOptions options;
  options.access_flush_items = 4;  // one-item chunks; twelve counts wake the flusher at once
  EngineHooks hooks;
  hooks.on_access_commit = [&] {
    std::this_thread::sleep_for(kChunkTime);
    std::lock_guard<std::mutex> lock(mu);
    commits.push_back(std::chrono::steady_clock::now());
    cv.notify_all();
  };
  const std::string path = dir.File("a.db");
  auto engine = OpenEngineWithHooks(path, options, hooks);
  ASSERT_NE(engine, nullptr);
  Scope scope{"default", "alice", "", ""};
  for (int i = 0; i < 12; ++i) {
    ASSERT_TRUE(engine->Add(scope, testing::Text("oolong note " + std::to_string(i))).ok());
  }
  SearchQuery oolong;
  oolong.text = "oolong";
  oolong.k = 12;
  auto hits = engine->Search(scope, oolong);  // twelve counts, pending together
  ASSERT_TRUE(hits.ok());
  ASSERT_EQ(hits->size(), 12u);
  {
    std::unique_lock<std::mutex> lock(mu);
    ASSERT_TRUE(cv.wait_for(lock, std::chrono::seconds(30), [&] { return commits.size() >= 3; }));
    // Each chunk took at least kChunkTime, so the next began at least 3 × kChunkTime later.
    for (size_t i = 1; i < commits.size(); ++i) {
      EXPECT_GE(commits[i] - commits[i - 1], 3 * kChunkTime + kChunkTime);
    }
  }
  const auto stopping = std::chrono::steady_clock::now();
  engine.reset();  // nine or fewer chunks left: ~0.3 s unpaced, over 1.2 s paced
  EXPECT_LT(std::chrono::steady_clock::now() - stopping, std::chrono::milliseconds(1000));
  auto reopened = testing::OpenEngine(path);
  ASSERT_NE(reopened, nullptr);
  ListQuery all;
  all.limit = 100;
  auto page = reopened->List(scope, all);
  ASSERT_TRUE(page.ok());
  ASSERT_EQ(page->items.size(), 12u);
  for (const MemoryItem& item : page->items) EXPECT_EQ(item.access_count, 1) << item.content;
}

// A search of an item whose count is being committed does not wait for the commit, and counts
// every read once: during the commit hook SQLite already holds the chunk's counts while they
// are still in flight and the item cache does not have them yet. Served from the item cache
// (the first search put the row there) and, with no cache, from SQLite (whose snapshot's
// access epoch says it holds the chunk).
class AccessCommitTest : public ::testing::TestWithParam<size_t> {};

TEST_P(AccessCommitTest, ASearchDoesNotWaitForTheCommitOfItsItemsCounts) {
  testing::TempDir dir;
  std::mutex mu;
  std::condition_variable cv;
  bool armed = false, in_commit = false, released = false;
  EngineOptions options;
  options.item_cache_bytes = GetParam();
  EngineHooks hooks;
  hooks.on_access_commit = [&] {
    std::unique_lock<std::mutex> lock(mu);
    if (!armed) return;
    in_commit = true;
    cv.notify_all();
    cv.wait(lock, [&] { return released; });
  };
  const std::string path = dir.File("a.db");
  auto engine = OpenEngineWithHooks(path, options, hooks);
  ASSERT_NE(engine, nullptr);
  Scope scope{"default", "alice", "", ""};
  ASSERT_TRUE(engine->Add(scope, testing::Text("oolong oolong")).ok());
  SearchQuery oolong;
  oolong.text = "oolong";
  oolong.k = 1;
  auto first = engine->Search(scope, oolong);
  ASSERT_TRUE(first.ok());
  ASSERT_EQ((*first)[0].item.access_count, 1);
  {
    std::lock_guard<std::mutex> lock(mu);
    armed = true;
  }
  auto flush = std::async(std::launch::async, [&] { return engine->FlushAccessStats(); });
  {
    std::unique_lock<std::mutex> lock(mu);
    cv.wait(lock, [&] { return in_commit; });
  }
  // The count of the first search is committed but not yet published nor forgotten.
  for (int64_t want = 2; want <= 4; ++want) {
    auto during = std::async(std::launch::async, [&] { return engine->Search(scope, oolong); });
    ASSERT_EQ(during.wait_for(std::chrono::seconds(10)), std::future_status::ready);
    auto hits = during.get();
    ASSERT_TRUE(hits.ok());
    ASSERT_EQ(hits->size(), 1u);
    EXPECT_EQ((*hits)[0].item.access_count, want);
  }
  EXPECT_EQ(flush.wait_for(std::chrono::milliseconds(0)), std::future_status::timeout);
  {
    std::lock_guard<std::mutex> lock(mu);
    released = true;
    armed = false;
  }
  cv.notify_all();
  ASSERT_TRUE(flush.get().ok());
  auto after = engine->Search(scope, oolong);
  ASSERT_TRUE(after.ok());
  ASSERT_EQ(after->size(), 1u);
  EXPECT_EQ((*after)[0].item.access_count, 5);
  ASSERT_TRUE(engine->FlushAccessStats().ok());
  engine.reset();
  // Every count written once, and counted right after a restart.
  auto reopened = testing::OpenEngine(path, nullptr, options);
  ASSERT_NE(reopened, nullptr);
  auto stored = reopened->Search(scope, oolong);
  ASSERT_TRUE(stored.ok());
  ASSERT_EQ(stored->size(), 1u);
  EXPECT_EQ((*stored)[0].item.access_count, 6);
  ASSERT_TRUE(reopened->FlushAccessStats().ok());
  auto again = reopened->Search(scope, oolong);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ((*again)[0].item.access_count, 7);
}

INSTANTIATE_TEST_SUITE_P(CachedAndNot, AccessCommitTest,
                         ::testing::Values(size_t{64} << 20, size_t{0}),
                         [](const ::testing::TestParamInfo<size_t>& info) {
                           return info.param ? std::string("Cached") : std::string("Uncached");
                         });

// Searches never return an item older than the last update acknowledged before they started,
// though their hits are served from the item cache while a writer keeps changing the item.
TEST(ConcurrencyTest, SearchHitsAreNeverOlderThanAnAcknowledgedUpdate) {
  testing::TempDir dir;
  auto engine = testing::OpenEngine(dir.File("fresh.db"));
  ASSERT_NE(engine, nullptr);
  Scope scope{"default", "alice", "", ""};
  auto target = engine->Add(scope, testing::Text("jasmine tea version 0"));
  ASSERT_TRUE(target.ok());
  for (int i = 0; i < 50; ++i)
    ASSERT_TRUE(engine->Add(scope, testing::Text("other note " + std::to_string(i))).ok());

  constexpr int kUpdates = 300, kReaders = 3;
  std::atomic<int> acknowledged{0};
  std::atomic<bool> done{false};
  std::atomic<int> stale{0}, searches{0};
  auto version_of = [](const std::string& content) {
    return std::stoi(content.substr(content.rfind(' ') + 1));
  };
  std::vector<std::thread> threads;
  threads.emplace_back([&] {
    for (int v = 1; v <= kUpdates; ++v) {
      MemoryPatch p;
      p.content = "jasmine tea version " + std::to_string(v);
      p.importance = 0.5 + (v % 2) * 0.1;
      ASSERT_TRUE(engine->Update(scope, target->id, p).ok());
      acknowledged.store(v);
    }
    done.store(true);
  });
  for (int r = 0; r < kReaders; ++r) {
    threads.emplace_back([&, r] {
      while (!done.load()) {
        const int floor = acknowledged.load();
        SearchQuery q;
        q.text = "jasmine tea";
        q.k = 3;
        q.record_access = r != 0;  // one reader leaves the statistics alone
        auto hits = engine->Search(scope, q);
        ASSERT_TRUE(hits.ok()) << hits.status().ToString();
        searches.fetch_add(1);
        for (const SearchHit& h : *hits) {
          if (h.item.id != target->id) continue;
          const int v = version_of(h.item.content);
          if (v < floor) stale.fetch_add(1);
          EXPECT_DOUBLE_EQ(h.item.importance, 0.5 + (v % 2) * 0.1)
              << "a torn item: " << h.item.content;
        }
      }
    });
  }
  for (std::thread& th : threads) th.join();
  EXPECT_EQ(stale.load(), 0);
  EXPECT_GT(searches.load(), 0);
  SearchQuery q;
  q.text = "jasmine tea";
  q.k = 1;
  auto last = engine->Search(scope, q);
  ASSERT_TRUE(last.ok());
  ASSERT_FALSE(last->empty());
  EXPECT_EQ((*last)[0].item.content, "jasmine tea version " + std::to_string(kUpdates));
}

// More items read than one flush transaction takes (250 here): the flush writes them in
// several commits, and every item's stored count is exact.
TEST(ConcurrencyTest, AFlushOfManyItemsWritesEveryCount) {
  testing::TempDir dir;
  EngineOptions options;
  options.access_flush_items = 1000;
  auto engine = testing::OpenEngine(dir.File("f.db"), nullptr, options);
  ASSERT_NE(engine, nullptr);
  Scope scope{"default", "alice", "", ""};
  constexpr int kItems = 2600;
  std::vector<NewMemory> batch;
  for (int i = 0; i < kItems; ++i)
    batch.push_back(testing::Text("note marker" + std::to_string(i)));
  auto added = engine->AddBatch(scope, batch);
  ASSERT_TRUE(added.ok());
  for (int round = 0; round < 2; ++round) {
    for (int i = 0; i < kItems; ++i) {
      SearchQuery q;
      q.text = "marker" + std::to_string(i);
      q.k = 1;
      auto hits = engine->Search(scope, q);
      ASSERT_TRUE(hits.ok());
      ASSERT_EQ(hits->size(), 1u);
      ASSERT_EQ((*hits)[0].item.id, (*added)[i].id);
      ASSERT_EQ((*hits)[0].item.access_count, round + 1) << i;
    }
  }
  ASSERT_TRUE(engine->FlushAccessStats().ok());
  for (const MemoryItem& m : *added) {
    auto stored = engine->Get(scope, m.id);
    ASSERT_TRUE(stored.ok());
    EXPECT_EQ(stored->access_count, 2) << m.content;
  }
}

}  // namespace
}  // namespace engram
