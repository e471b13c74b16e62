// Background graph builds: the exact index serves while the graph is built, writes made during
// the build reach the graph, and nothing is lost or duplicated.
#include "retrieval/graph_builder.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <random>
#include <set>
#include <thread>

#include "testing/test_support.h"

namespace engram {
namespace {

std::vector<float> UnitVector(std::mt19937& rng, int dim) {
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> v(static_cast<size_t>(dim));
  double norm = 0;
  for (float& x : v) {
    x = normal(rng);
    norm += x * x;
  }
  for (float& x : v) x = static_cast<float>(x / std::sqrt(norm));
  return v;
}

// A distinct made-up sentence per n: texts sharing most of their words (say "memory about
// wordN") give vectors so alike that an HNSW graph of M 16 misses a few exact matches.
std::string Sentence(int n) {
  const char* syllables[] = {"ka", "ri", "to", "mo", "na", "se",
                             "lu", "vi", "de", "po", "ga", "shi"};
  std::mt19937 rng(static_cast<uint32_t>(n) + 1);
  std::string s = "note";
  for (int w = 0; w < 4; ++w) {
    s += ' ';
    for (int j = 0; j < 3; ++j) s += syllables[rng() % std::size(syllables)];
  }
  return s + " n" + std::to_string(n);
}

// Sentence(from) … Sentence(to − 1) as memories.
std::vector<NewMemory> Sentences(int from, int to) {
  std::vector<NewMemory> batch;
  for (int i = from; i < to; ++i) batch.push_back(testing::Text(Sentence(i)));
  return batch;
}

// Adds Sentence(0) … Sentence(n − 1) to `scope`, loads its index and waits for its graph.
void AddAndBuildGraph(Engine& engine, const Scope& scope, int n) {
  ASSERT_TRUE(engine.AddBatch(scope, Sentences(0, n)).ok());
  ASSERT_TRUE(engine.DescribeIndex(scope).ok());
  engine.WaitForIndexBuilds();
  ASSERT_TRUE(engine.DescribeIndex(scope)->approximate);
}

// The content of the best hit for `text` by the vector channel alone ("" if none).
std::string BestByVector(Engine& engine, const Scope& scope, const std::string& text) {
  SearchQuery q;
  q.text = text;
  q.keyword_weight = 0;
  q.context_weight = 0;
  q.record_access = false;
  auto hits = engine.Search(scope, q);
  return hits.ok() && !hits->empty() ? hits->front().item.content : "";
}

MemoryItem Item(int64_t seq) {
  MemoryItem m;
  m.id = "id" + std::to_string(seq);
  m.content = "item " + std::to_string(seq);
  return m;
}

// The build protocol on one ScopeIndex, with writes placed exactly between its steps.
TEST(ScopeIndexGraphBuildTest, ChangesDuringTheBuildReachTheGraph) {
  constexpr int kDim = 16;
  ScopeIndex index(ScopeIndexOptions{.dimension = kDim, .hnsw_threshold = 100});
  std::mt19937 rng(5);
  std::map<int64_t, std::vector<float>> truth;
  auto put = [&](int64_t seq) {
    truth[seq] = UnitVector(rng, kDim);
    index.Upsert(seq, Item(seq), &truth[seq]);
  };
  for (int64_t seq = 1; seq <= 99; ++seq) put(seq);
  EXPECT_FALSE(index.RequestGraph());  // below the threshold
  put(100);
  ASSERT_TRUE(index.RequestGraph());
  EXPECT_FALSE(index.RequestGraph());  // requested once

  VectorSet set = index.BeginGraphBuild();
  ASSERT_EQ(set.keys.size(), 100u);
  EXPECT_TRUE(index.graph_building());
  for (int64_t seq = 101; seq <= 120; ++seq) put(seq);  // added during the build
  for (int64_t seq : {3, 50, 110}) index.Remove(seq), truth.erase(seq);
  for (int64_t seq : {7, 115}) put(seq);  // replaced vectors

  auto graph = HnswIndex::Build(
      HnswOptions{.dimension = kDim},
      HnswBuildInput{.keys = set.keys.data(), .data = set.data.data(), .count = set.keys.size()});
  ASSERT_TRUE(graph.ok()) << graph.status().ToString();
  for (const VectorChange& c : index.TakeVectorChanges()) {
    ASSERT_TRUE(
        (c.vector ? (*graph)->Upsert(c.key, c.vector->data()) : (*graph)->Remove(c.key)).ok());
  }
  EXPECT_TRUE(index.TakeVectorChanges().empty());
  index.EndGraphBuild(std::move(graph).value(), false);

  ASSERT_NE(index.hnsw(), nullptr);
  EXPECT_FALSE(index.graph_building());
  EXPECT_EQ(index.vectors().size(), truth.size());
  std::vector<float> got;
  for (const auto& [seq, v] : truth) {
    ASSERT_TRUE(index.vectors().Get(seq, &got)) << seq;
    EXPECT_EQ(got, v) << seq;
    auto hits = index.vectors().Search(v.data(), 1, {});
    ASSERT_EQ(hits.size(), 1u);
    EXPECT_EQ(hits[0].key, seq);
  }
  for (int64_t seq : {3, 50, 110}) EXPECT_FALSE(index.vectors().Get(seq, &got));
}

// Once the graph is in place, writes go to the exact tail; merges move them into the graph.
TEST(ScopeIndexGraphBuildTest, WritesAfterTheGraphWaitInTheTailUntilMerged) {
  constexpr int kDim = 16;
  ScopeIndex index(ScopeIndexOptions{.dimension = kDim, .hnsw_threshold = 50});
  std::mt19937 rng(9);
  std::map<int64_t, std::vector<float>> truth;
  auto put = [&](int64_t seq) {
    truth[seq] = UnitVector(rng, kDim);
    index.Upsert(seq, Item(seq), &truth[seq]);
  };
  for (int64_t seq = 1; seq <= 60; ++seq) put(seq);
  ASSERT_TRUE(index.RequestGraph());
  VectorSet set = index.BeginGraphBuild();
  auto graph = HnswIndex::Build(
      HnswOptions{.dimension = kDim},
      HnswBuildInput{.keys = set.keys.data(), .data = set.data.data(), .count = set.keys.size()});
  ASSERT_TRUE(graph.ok());
  index.EndGraphBuild(std::move(graph).value(), false);
  ASSERT_NE(index.hnsw(), nullptr);
  EXPECT_EQ(index.tail_size(), 0u);
  EXPECT_FALSE(index.RequestMerge());  // nothing to merge

  for (int64_t seq = 61; seq <= 70; ++seq) put(seq);  // new
  for (int64_t seq : {5, 6}) put(seq);                // replaced: the graph's node is retired
  index.Remove(10), truth.erase(10);                  // from the graph
  index.Remove(65), truth.erase(65);                  // from the tail
  EXPECT_EQ(index.tail_size(), 11u);
  EXPECT_EQ(index.hnsw()->size(), 57u);  // 60 − two replaced − one removed
  EXPECT_EQ(index.vectors().size(), truth.size());

  auto all_found = [&] {
    std::vector<float> got;
    for (const auto& [seq, v] : truth) {
      if (!index.vectors().Get(seq, &got) || got != v)
        return ::testing::AssertionFailure() << "get " << seq;
      auto hits = index.vectors().Search(v.data(), 3, {});
      if (hits.empty() || hits[0].key != seq)
        return ::testing::AssertionFailure() << "search " << seq;
      for (size_t i = 1; i < hits.size(); ++i) {
        if (hits[i].key == hits[0].key) return ::testing::AssertionFailure() << "twice " << seq;
      }
    }
    for (int64_t gone : {10, 65}) {
      if (index.vectors().Get(gone, &got))
        return ::testing::AssertionFailure() << "removed " << gone;
    }
    return ::testing::AssertionSuccess();
  };
  EXPECT_TRUE(all_found());

  ASSERT_TRUE(index.RequestMerge());
  EXPECT_FALSE(index.RequestMerge());  // requested once
  EXPECT_EQ(index.MergeTail(4), 7u);
  EXPECT_EQ(index.tail_size(), 7u);
  EXPECT_TRUE(all_found());  // half merged: still every vector, once
  EXPECT_EQ(index.MergeTail(100), 0u);
  EXPECT_EQ(index.tail_size(), 0u);
  EXPECT_EQ(index.hnsw()->size(), truth.size());
  EXPECT_TRUE(all_found());
  put(71);
  EXPECT_TRUE(index.RequestMerge());  // emptied: a new write asks again
}

TEST(ScopeIndexGraphBuildTest, AFailedBuildKeepsTheExactIndex) {
  ScopeIndex index(ScopeIndexOptions{.dimension = 4, .hnsw_threshold = 2});
  std::vector<float> v{1, 0, 0, 0};
  index.Upsert(1, Item(1), &v);
  index.Upsert(2, Item(2), &v);
  ASSERT_TRUE(index.RequestGraph());
  (void)index.BeginGraphBuild();
  index.EndGraphBuild(nullptr, /*retry_later=*/false);
  EXPECT_EQ(index.hnsw(), nullptr);
  EXPECT_EQ(index.vectors().size(), 2u);
  index.Upsert(3, Item(3), &v);
  EXPECT_FALSE(index.RequestGraph());  // not retried in a loop
}

// The engine: items added past the threshold by several writers while readers search.
TEST(GraphBuilderTest, ConcurrentWritesAcrossTheThresholdLoseNothing) {
  testing::TempDir dir;
  EngineOptions options;
  options.hnsw_threshold = 300;
  auto engine = testing::OpenEngine(dir.File("g.db"), nullptr, options);
  ASSERT_NE(engine, nullptr);
  const Scope scope{"default", "alice", "", ""};
  ASSERT_TRUE(engine->Add(scope, testing::Text(Sentence(0))).ok());
  ASSERT_TRUE(engine->DescribeIndex(scope).ok());  // loaded: later writes update it in place

  constexpr int kWriters = 3, kBatches = 40, kBatchSize = 5;
  std::atomic<bool> done{false};
  std::atomic<int> search_errors{0}, duplicate_hits{0};
  std::vector<std::thread> threads;
  for (int w = 0; w < kWriters; ++w) {
    threads.emplace_back([&, w] {
      for (int b = 0; b < kBatches; ++b) {
        std::vector<NewMemory> batch;
        for (int i = 0; i < kBatchSize; ++i) {
          const int n = 1 + (w * kBatches + b) * kBatchSize + i;
          batch.push_back(testing::Text(Sentence(n)));
        }
        ASSERT_TRUE(engine->AddBatch(scope, batch).ok());
      }
    });
  }
  for (int r = 0; r < 2; ++r) {
    threads.emplace_back([&, r] {
      std::mt19937 rng(r);
      while (!done.load()) {
        SearchQuery q;
        q.text = Sentence(static_cast<int>(rng() % 600));
        q.record_access = false;
        auto hits = engine->Search(scope, q);
        if (!hits.ok()) {
          ++search_errors;
          continue;
        }
        std::set<std::string> ids;
        for (const SearchHit& h : *hits) {
          if (!ids.insert(h.item.id).second) ++duplicate_hits;
        }
      }
    });
  }
  for (int w = 0; w < kWriters; ++w) threads[w].join();
  done = true;
  for (size_t t = kWriters; t < threads.size(); ++t) threads[t].join();
  engine->WaitForIndexBuilds();

  constexpr int kTotal = 1 + kWriters * kBatches * kBatchSize;
  auto info = engine->DescribeIndex(scope);
  ASSERT_TRUE(info.ok());
  EXPECT_TRUE(info->approximate);
  EXPECT_FALSE(info->graph_building);
  EXPECT_EQ(info->items, kTotal);
  EXPECT_EQ(info->vectors, kTotal);
  EXPECT_EQ(search_errors.load(), 0);
  EXPECT_EQ(duplicate_hits.load(), 0);
  // Every item is in the graph: its own text, searched by vector alone, finds it first.
  for (int n = 0; n < kTotal; ++n)
    EXPECT_EQ(BestByVector(*engine, scope, Sentence(n)), Sentence(n));
}

// Adds to a scope with a graph are merged into it in the background; the snapshot taken at
// close holds them, so the next open loads it instead of rebuilding, and finds them.
TEST(GraphBuilderTest, AddsAfterTheGraphAreMergedInTheBackground) {
  testing::TempDir dir;
  EngineOptions options;
  options.hnsw_threshold = 100;
  const Scope scope{"default", "carol", "", ""};
  {
    auto engine = testing::OpenEngine(dir.File("m.db"), nullptr, options);
    ASSERT_NO_FATAL_FAILURE(AddAndBuildGraph(*engine, scope, 120));
    for (int i = 120; i < 160; ++i)
      ASSERT_TRUE(engine->Add(scope, testing::Text(Sentence(i))).ok());
    engine->WaitForIndexBuilds();
    auto info = engine->DescribeIndex(scope);
    ASSERT_TRUE(info.ok());
    EXPECT_EQ(info->unmerged, 0);
    EXPECT_EQ(info->vectors, 160);
  }
  auto engine = testing::OpenEngine(dir.File("m.db"), nullptr, options);
  auto info = engine->DescribeIndex(scope);
  ASSERT_TRUE(info.ok());
  EXPECT_TRUE(info->from_snapshot) << info->snapshot_status;
  EXPECT_EQ(info->vectors, 160);
  for (int n : {0, 119, 120, 159})
    EXPECT_EQ(BestByVector(*engine, scope, Sentence(n)), Sentence(n));
}

// Adds still in the tail at close are merged before the snapshot is written. They stay in the
// tail here because the builder is busy with another scope's graph (a running build is not
// preempted by merges) until the close cancels it.
TEST(GraphBuilderTest, UnmergedAddsAreInTheSnapshot) {
  testing::TempDir dir;
  EngineOptions options;
  options.hnsw_threshold = 100;
  const Scope scope{"default", "dave", "", ""};
  const Scope busy{"default", "erin", "", ""};
  {
    auto engine = testing::OpenEngine(dir.File("s.db"), nullptr, options);
    ASSERT_NO_FATAL_FAILURE(AddAndBuildGraph(*engine, scope, 120));
    ASSERT_TRUE(engine->AddBatch(busy, Sentences(1000, 5000)).ok());
    for (int i = 0; i < 5000 && !engine->DescribeIndex(busy)->graph_building; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    ASSERT_TRUE(engine->DescribeIndex(busy)->graph_building);  // a build of 4,000 vectors runs
    ASSERT_TRUE(engine->AddBatch(scope, Sentences(120, 140)).ok());
    auto info = engine->DescribeIndex(scope);
    ASSERT_TRUE(info.ok());
    EXPECT_EQ(info->unmerged, 20);
  }
  auto engine = testing::OpenEngine(dir.File("s.db"), nullptr, options);
  auto info = engine->DescribeIndex(scope);
  ASSERT_TRUE(info.ok());
  EXPECT_TRUE(info->from_snapshot) << info->snapshot_status;
  EXPECT_EQ(info->vectors, 140);
  EXPECT_EQ(info->unmerged, 0);
}

TEST(GraphBuilderTest, ALoadPastTheThresholdBuildsInTheBackground) {
  testing::TempDir dir;
  EngineOptions options;
  options.hnsw_threshold = 100;
  const Scope scope{"default", "bob", "", ""};
  {
    auto engine = testing::OpenEngine(dir.File("l.db"), nullptr, options);
    std::vector<NewMemory> batch;
    for (int i = 0; i < 150; ++i) batch.push_back(testing::Text("note " + std::to_string(i)));
    ASSERT_TRUE(engine->AddBatch(scope, batch).ok());  // never loaded: no snapshot on close
  }
  auto engine = testing::OpenEngine(dir.File("l.db"), nullptr, options);
  auto hits = engine->Search(scope, SearchQuery{.text = "note 42"});  // served at once
  ASSERT_TRUE(hits.ok());
  ASSERT_FALSE(hits->empty());
  EXPECT_EQ(hits->front().item.content, "note 42");
  engine->WaitForIndexBuilds();
  auto info = engine->DescribeIndex(scope);
  EXPECT_TRUE(info->approximate);
  EXPECT_EQ(info->vectors, 150);
}

}  // namespace
}  // namespace engram
