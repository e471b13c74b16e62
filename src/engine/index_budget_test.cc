// The index memory budget: least recently used scope indexes are evicted (their changed graphs
// saved first) and reloaded on demand, with identical search results.
#include <gtest/gtest.h>

#include <filesystem>

#include "index/huge_pages.h"
#include "testing/test_support.h"

namespace engram {
namespace {

class IndexBudgetTest : public ::testing::Test {
 protected:
  std::unique_ptr<Engine> Open(size_t budget) {
    EngineOptions options;
    options.hnsw_threshold = 60;
    options.index_memory_budget = budget;
    return testing::OpenEngine(dir_.File("b.db"), &clock_, options);
  }

  void Fill(Engine& engine, const Scope& scope, int count) {
    std::vector<NewMemory> batch;
    for (int i = 0; i < count; ++i) {
      batch.push_back(testing::Text(scope.user_id + " memory " + std::to_string(i) +
                                    " about topic" + std::to_string(i % 5)));
    }
    ASSERT_TRUE(engine.AddBatch(scope, batch).ok());
  }

  // (id, score) of a fixed query, for comparing runs.
  std::vector<std::pair<std::string, double>> Results(Engine& engine, const Scope& scope) {
    SearchQuery q;
    q.text = "memory about topic3";
    q.record_access = false;
    auto hits = engine.Search(scope, q);
    std::vector<std::pair<std::string, double>> out;
    EXPECT_TRUE(hits.ok());
    if (!hits.ok()) return out;
    for (const SearchHit& h : *hits) out.emplace_back(h.item.id, h.score);
    return out;
  }

  int64_t Loaded(Engine& engine) { return engine.GetStats().value().loaded_indexes; }

  testing::TempDir dir_;
  ManualClock clock_{1'800'000'000'000};
  const Scope alice_{"default", "alice", "", ""};
  const Scope bob_{"default", "bob", "", ""};
  const Scope carol_{"default", "carol", "", ""};
};

TEST_F(IndexBudgetTest, WithoutPressureEveryIndexStaysLoaded) {
  auto engine = Open(size_t{2} << 30);
  for (const Scope& s : {alice_, bob_, carol_}) Fill(*engine, s, 30);
  for (const Scope& s : {alice_, bob_, carol_}) EXPECT_FALSE(Results(*engine, s).empty());
  EXPECT_EQ(Loaded(*engine), 3);
}

TEST_F(IndexBudgetTest, LeastRecentlyUsedIndexesAreEvictedAndReloadedIdentically) {
  auto engine = Open(1);  // every index but the one in use is over budget
  for (const Scope& s : {alice_, bob_, carol_}) Fill(*engine, s, 30);
  auto alice = Results(*engine, alice_);
  auto bob = Results(*engine, bob_);
  auto carol = Results(*engine, carol_);
  ASSERT_FALSE(alice.empty());
  EXPECT_EQ(Loaded(*engine), 1);               // only carol's, the last used
  EXPECT_EQ(Results(*engine, alice_), alice);  // reloaded from the database
  EXPECT_EQ(Results(*engine, bob_), bob);
  EXPECT_EQ(Loaded(*engine), 1);
  // Writes to an evicted scope reach the database; the reloaded index sees them.
  ASSERT_TRUE(engine->Add(alice_, testing::Text("alice memory new about topic3 topic3")).ok());
  auto after = Results(*engine, alice_);
  EXPECT_EQ(after.size(), alice.size());
  EXPECT_NE(after, alice);
  EXPECT_EQ(Results(*engine, carol_), carol);
}

TEST_F(IndexBudgetTest, AnEvictedGraphIsSavedAndReloadedFromItsSnapshot) {
  auto engine = Open(1);
  Fill(*engine, alice_, 100);  // past hnsw_threshold (60)
  Fill(*engine, bob_, 10);
  ASSERT_TRUE(engine->DescribeIndex(alice_).ok());
  engine->WaitForIndexBuilds();
  auto info = engine->DescribeIndex(alice_);
  ASSERT_TRUE(info->approximate);
  EXPECT_FALSE(info->from_snapshot);
  auto alice = Results(*engine, alice_);
  ASSERT_FALSE(std::filesystem::exists(dir_.path() + "/b.db.indexes/scope-1.hnsw"));
  EXPECT_FALSE(Results(*engine, bob_).empty());  // loads bob: alice is evicted and saved
  EXPECT_EQ(Loaded(*engine), 1);
  EXPECT_TRUE(std::filesystem::exists(dir_.path() + "/b.db.indexes/scope-1.hnsw"));
  info = engine->DescribeIndex(alice_);
  EXPECT_TRUE(info->from_snapshot) << info->snapshot_status;
  EXPECT_TRUE(info->approximate);
  EXPECT_EQ(info->vectors, 100);
  EXPECT_EQ(Results(*engine, alice_), alice);
}

// Vector rows of large enough scopes go to huge pages when asked and the pool has room, are
// counted in the stats, and are given back with their index; without room they stay in ordinary
// memory and the answers are the same.
TEST_F(IndexBudgetTest, LargeScopesKeepTheirVectorRowsInHugePagesWhenAsked) {
  const bool pool = FreeHugePagesInPool() >= 8;
  std::vector<std::pair<std::string, double>> first;  // (content, score): ids differ by run
  for (const bool huge : {false, true}) {
    SCOPED_TRACE(huge ? "huge pages" : "ordinary memory");
    testing::TempDir dir;
    EngineOptions options;
    options.huge_pages = huge;
    auto engine = testing::OpenEngine(dir.File("h.db"), &clock_, options);
    Fill(*engine, alice_, 2'000);  // 3 MB of floats: past a huge page
    SearchQuery q;
    q.text = "memory 1234 about topic4";
    q.record_access = false;
    auto found = engine->Search(alice_, q);
    ASSERT_TRUE(found.ok());
    std::vector<std::pair<std::string, double>> hits;
    for (const SearchHit& h : *found) hits.emplace_back(h.item.content, h.score);
    ASSERT_FALSE(hits.empty());
    EXPECT_EQ(hits.front().first, "alice memory 1234 about topic4");
    if (first.empty()) first = hits;
    EXPECT_EQ(hits.front(), first.front()) << "the same best hit from either memory";
    const int64_t in_huge = engine->GetStats().value().huge_page_bytes;
    if (huge && pool) {
      EXPECT_GE(in_huge, static_cast<int64_t>(2 * kHugePageBytes));
    } else {
      EXPECT_EQ(in_huge, 0);
    }
    engine.reset();
    EXPECT_EQ(HugePageBytesInUse(), 0u);
  }
}

// Nobody asked: an engine opened with default options keeps every row in ordinary memory even
// when the system's pool has free pages.
TEST_F(IndexBudgetTest, HugePagesAreOffByDefault) {
  EXPECT_FALSE(EngineOptions{}.huge_pages);
  testing::TempDir dir;
  auto engine = testing::OpenEngine(dir.File("d.db"), &clock_, EngineOptions{});
  Fill(*engine, alice_, 2'000);
  SearchQuery q;
  q.text = "memory 7 about topic7";
  q.record_access = false;
  ASSERT_TRUE(engine->Search(alice_, q).ok());  // builds the scope's index
  const auto stats = engine->GetStats().value();
  EXPECT_EQ(stats.indexed_vectors, 2'000);
  EXPECT_EQ(stats.huge_page_bytes, 0);
  EXPECT_EQ(HugePageBytesInUse(), 0u);
}

}  // namespace
}  // namespace engram
