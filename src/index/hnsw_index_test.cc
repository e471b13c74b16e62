#include "index/hnsw_index.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "index/dot_product.h"

namespace engram {
namespace {

// Row-major unit vectors with a fixed seed.
struct Dataset {
  int dim = 0;
  std::vector<float> data;
  const float* row(size_t i) const { return data.data() + i * static_cast<size_t>(dim); }
  size_t size() const { return data.size() / static_cast<size_t>(dim); }
};

Dataset RandomUnitVectors(size_t n, int dim, uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  Dataset d{dim, std::vector<float>(n * static_cast<size_t>(dim))};
  for (size_t i = 0; i < n; ++i) {
    float* v = d.data.data() + i * static_cast<size_t>(dim);
    float norm = 0;
    for (int j = 0; j < dim; ++j) {
      v[j] = normal(rng);
      norm += v[j] * v[j];
    }
    norm = std::sqrt(norm);
    for (int j = 0; j < dim; ++j) v[j] /= norm;
  }
  return d;
}

float InnerProductForTest(const float* a, const float* b, int dim) {
  return InnerProduct(a, b, static_cast<size_t>(dim));
}

float Dot(const float* a, const float* b, int dim) {
  float s = 0;
  for (int i = 0; i < dim; ++i) s += a[i] * b[i];
  return s;
}

// Reference: every row i (key = i) passing `filter`, best first.
std::vector<VectorHit> BruteForce(const Dataset& d, const float* query, size_t k,
                                  const KeyFilter& filter = {}) {
  std::vector<VectorHit> all;
  for (size_t i = 0; i < d.size(); ++i) {
    const auto key = static_cast<int64_t>(i);
    if (!filter || filter(key)) all.push_back({key, Dot(query, d.row(i), d.dim)});
  }
  std::sort(all.begin(), all.end(), [](auto& a, auto& b) { return a.score > b.score; });
  if (all.size() > k) all.resize(k);
  return all;
}

// Fraction of the true top-k keys found.
double Recall(const std::vector<VectorHit>& got, const std::vector<VectorHit>& truth) {
  std::set<int64_t> keys;
  for (const auto& h : got) keys.insert(h.key);
  size_t found = 0;
  for (const auto& h : truth) found += keys.count(h.key);
  return truth.empty() ? 1.0 : static_cast<double>(found) / static_cast<double>(truth.size());
}

std::unique_ptr<HnswIndex> BuildIndex(const Dataset& d, HnswOptions options = {}) {
  options.dimension = d.dim;
  auto index = HnswIndex::Create(options);
  EXPECT_TRUE(index.ok()) << index.status().ToString();
  for (size_t i = 0; i < d.size(); ++i) {
    EXPECT_TRUE((*index)->Upsert(static_cast<int64_t>(i), d.row(i)).ok());
  }
  return std::move(index).value();
}

std::vector<int64_t> Keys(const std::vector<VectorHit>& hits) {
  std::vector<int64_t> keys;
  for (const auto& h : hits) keys.push_back(h.key);
  return keys;
}

TEST(HnswIndexTest, CreateRejectsBadOptions) {
  EXPECT_EQ(HnswIndex::Create({.dimension = 0}).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(HnswIndex::Create({.dimension = 8, .M = 1}).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(HnswIndex::Create({.dimension = 8, .initial_capacity = 0}).status().code(),
            StatusCode::kInvalidArgument);
  auto index = MakeHnswIndex({.dimension = 8});
  ASSERT_TRUE(index.ok());
  EXPECT_EQ((*index)->dimension(), 8);
  EXPECT_EQ((*index)->size(), 0u);
}

TEST(HnswIndexTest, RecallAt10AgainstBruteForce) {
  const Dataset d = RandomUnitVectors(5000, 64, 1);
  const Dataset queries = RandomUnitVectors(100, 64, 2);
  // Uniform random vectors are the hardest case for HNSW. Measured on this data (M 16,
  // ef_construction 100): ef_search 32 → 0.73, 64 → 0.90, 96 → 0.97, 128 → 0.99, 200 → 1.0.
  auto index = BuildIndex(d, {.ef_search = 128});
  ASSERT_EQ(index->size(), 5000u);
  double recall = 0;
  for (size_t q = 0; q < queries.size(); ++q) {
    recall += Recall(index->Search(queries.row(q), 10, {}), BruteForce(d, queries.row(q), 10));
  }
  recall /= static_cast<double>(queries.size());
  EXPECT_GE(recall, 0.95);
}

TEST(HnswIndexTest, ScoresAreInnerProductsBestFirst) {
  const Dataset d = RandomUnitVectors(500, 32, 3);
  auto index = BuildIndex(d);
  const Dataset q = RandomUnitVectors(1, 32, 4);
  const auto hits = index->Search(q.row(0), 20, {});
  ASSERT_EQ(hits.size(), 20u);
  for (size_t i = 0; i < hits.size(); ++i) {
    EXPECT_NEAR(hits[i].score, Dot(q.row(0), d.row(static_cast<size_t>(hits[i].key)), 32), 1e-5);
    if (i > 0) {
      EXPECT_GE(hits[i - 1].score, hits[i].score);
    }
  }
  EXPECT_TRUE(index->Search(q.row(0), 0, {}).empty());
  EXPECT_TRUE(index->Search(nullptr, 10, {}).empty());
}

TEST(HnswIndexTest, EmptyIndexAndSmallIndex) {
  const Dataset d = RandomUnitVectors(5, 16, 5);
  auto index = HnswIndex::Create({.dimension = 16}).value();
  EXPECT_TRUE(index->Search(d.row(0), 10, {}).empty());
  for (size_t i = 0; i < d.size(); ++i) ASSERT_TRUE(index->Upsert(int64_t(i), d.row(i)).ok());
  EXPECT_EQ(Keys(index->Search(d.row(2), 10, {})), Keys(BruteForce(d, d.row(2), 10)));
}

TEST(HnswIndexTest, UpsertReplacesVector) {
  const Dataset d = RandomUnitVectors(1000, 32, 6);
  auto index = BuildIndex(d);
  const Dataset fresh = RandomUnitVectors(1, 32, 7);
  ASSERT_TRUE(index->Upsert(7, fresh.row(0)).ok());
  EXPECT_EQ(index->size(), 1000u);
  auto hits = index->Search(fresh.row(0), 5, {});
  ASSERT_FALSE(hits.empty());
  EXPECT_EQ(hits[0].key, 7);
  EXPECT_NEAR(hits[0].score, 1.0f, 1e-5);
  hits = index->Search(d.row(7), 1, {});  // the old vector no longer matches key 7 exactly
  ASSERT_EQ(hits.size(), 1u);
  EXPECT_LT(hits[0].score, 0.99f);
  std::vector<float> stored;
  ASSERT_TRUE(index->Get(7, &stored));
  EXPECT_EQ(stored, std::vector<float>(fresh.row(0), fresh.row(0) + 32));
}

TEST(HnswIndexTest, UpsertRejectsInvalidInput) {
  const Dataset d = RandomUnitVectors(2, 8, 8);
  auto index = HnswIndex::Create({.dimension = 8}).value();
  EXPECT_EQ(index->Upsert(-1, d.row(0)).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(index->Upsert(1, nullptr).code(), StatusCode::kInvalidArgument);
  std::vector<float> bad(d.row(1), d.row(1) + 8);
  bad[3] = std::numeric_limits<float>::quiet_NaN();
  EXPECT_EQ(index->Upsert(1, bad.data()).code(), StatusCode::kInvalidArgument);
  bad[3] = std::numeric_limits<float>::infinity();
  EXPECT_EQ(index->Upsert(1, bad.data()).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(index->size(), 0u);
  // Keys use the whole non-negative int64 range.
  const int64_t big = std::numeric_limits<int64_t>::max();
  ASSERT_TRUE(index->Upsert(big, d.row(0)).ok());
  const auto hits = index->Search(d.row(0), 1, {});
  ASSERT_EQ(hits.size(), 1u);
  EXPECT_EQ(hits[0].key, big);
}

TEST(HnswIndexTest, RemoveExcludesKeyAndUpsertRestoresIt) {
  const Dataset d = RandomUnitVectors(1000, 32, 9);
  auto index = BuildIndex(d);
  ASSERT_TRUE(index->Remove(42).ok());
  EXPECT_EQ(index->size(), 999u);
  EXPECT_EQ(index->deleted_count(), 1u);
  std::vector<float> out;
  EXPECT_FALSE(index->Get(42, &out));
  for (const auto& h : index->Search(d.row(42), 50, {})) EXPECT_NE(h.key, 42);
  EXPECT_TRUE(index->Remove(42).ok());      // already removed
  EXPECT_TRUE(index->Remove(123456).ok());  // never present
  EXPECT_EQ(index->Remove(-5).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(index->size(), 999u);

  ASSERT_TRUE(index->Upsert(42, d.row(42)).ok());
  EXPECT_EQ(index->size(), 1000u);
  EXPECT_EQ(index->deleted_count(), 0u);
  const auto hits = index->Search(d.row(42), 1, {});
  ASSERT_EQ(hits.size(), 1u);
  EXPECT_EQ(hits[0].key, 42);
}

TEST(HnswIndexTest, FilterReturnsOnlyPassingKeys) {
  const Dataset d = RandomUnitVectors(3000, 32, 10);
  auto index = BuildIndex(d);
  const Dataset queries = RandomUnitVectors(20, 32, 11);
  const KeyFilter even = [](int64_t key) { return key % 2 == 0; };
  double recall = 0;
  for (size_t q = 0; q < queries.size(); ++q) {
    const auto hits = index->Search(queries.row(q), 10, even);
    ASSERT_EQ(hits.size(), 10u);
    for (const auto& h : hits) EXPECT_EQ(h.key % 2, 0);
    recall += Recall(hits, BruteForce(d, queries.row(q), 10, even));
  }
  EXPECT_GE(recall / static_cast<double>(queries.size()), 0.95);
}

TEST(HnswIndexTest, VerySelectiveFilterReturnsEveryPassingKey) {
  const Dataset d = RandomUnitVectors(3000, 32, 12);
  auto index = BuildIndex(d);
  const std::set<int64_t> allowed = {17, 1500, 2999};
  const KeyFilter filter = [&](int64_t key) { return allowed.count(key) > 0; };
  const auto hits = index->Search(d.row(0), 10, filter);
  EXPECT_EQ(Keys(hits), Keys(BruteForce(d, d.row(0), 10, filter)));
  EXPECT_EQ(hits.size(), 3u);
  ASSERT_TRUE(index->Remove(1500).ok());
  const auto after = Keys(index->Search(d.row(0), 10, filter));  // removed keys never return
  EXPECT_EQ(std::set<int64_t>(after.begin(), after.end()), (std::set<int64_t>{17, 2999}));

  // 1%: the graph retries cannot fill k, so the exact scan answers: identical to brute force.
  const KeyFilter one_percent = [](int64_t key) { return key % 100 == 0; };
  EXPECT_EQ(Keys(index->Search(d.row(5), 10, one_percent)),
            Keys(BruteForce(d, d.row(5), 10, one_percent)));
}

TEST(HnswIndexTest, GrowsPastInitialCapacity) {
  const Dataset d = RandomUnitVectors(1000, 16, 13);
  auto index = BuildIndex(d, {.initial_capacity = 16});
  EXPECT_EQ(index->size(), 1000u);
  EXPECT_GE(index->capacity(), 1000u);
  size_t self_found = 0;
  for (size_t i = 0; i < d.size(); ++i) {
    const auto hits = index->Search(d.row(i), 1, {});
    self_found += !hits.empty() && hits[0].key == static_cast<int64_t>(i);
  }
  EXPECT_GE(self_found, 990u);
}

// Memory is counted for the nodes in use: doubling the capacity (pages the kernel has not
// backed yet) adds only the per-slot lock, level and pointer, so one insert past a full graph
// does not make it look twice as large to the index memory budget.
TEST(HnswIndexTest, MemoryBytesFollowUseNotCapacity) {
  const Dataset d = RandomUnitVectors(1001, 64, 17);
  auto index = HnswIndex::Create({.dimension = 64, .initial_capacity = 1000}).value();
  for (size_t i = 0; i < 1000; ++i)
    ASSERT_TRUE(index->Upsert(static_cast<int64_t>(i), d.row(i)).ok());
  ASSERT_EQ(index->capacity(), 1000u);
  const size_t full = index->MemoryBytes();
  ASSERT_TRUE(index->Upsert(1000, d.row(1000)).ok());
  ASSERT_EQ(index->capacity(), 2000u);
  const size_t grown = index->MemoryBytes();
  EXPECT_GT(grown, full);
  EXPECT_LT(grown, full + full / 5) << full << " → " << grown;
  EXPECT_GT(full, 1000u * 64 * sizeof(float));  // the vectors themselves are counted
}

TEST(HnswIndexTest, SetEfSearch) {
  auto index = HnswIndex::Create({.dimension = 4, .ef_search = 10}).value();
  EXPECT_EQ(index->ef_search(), 10u);
  index->set_ef_search(200);
  EXPECT_EQ(index->ef_search(), 200u);
  EXPECT_EQ(index->effective_ef_search(), 200u);
  index->set_ef_search(kAutoEfSearch);
  EXPECT_EQ(index->ef_search(), kAutoEfSearch);
  EXPECT_EQ(index->effective_ef_search(), EfSearchForSize(0));
}

TEST(HnswIndexTest, AutomaticEfSearchGrowsWithTheGraph) {
  EXPECT_EQ(EfSearchForSize(0), 64u);
  EXPECT_EQ(EfSearchForSize(10'000), 64u);
  size_t previous = 64;
  for (size_t n : {20'000, 100'000, 300'000, 1'000'000, 10'000'000}) {
    EXPECT_GE(EfSearchForSize(n), previous) << n;
    previous = EfSearchForSize(n);
  }
  EXPECT_EQ(EfSearchForSize(100'000), 234u);  // the figures docs and results quote
  EXPECT_EQ(EfSearchForSize(1'000'000), 404u);
  const Dataset d = RandomUnitVectors(300, 8, 9);
  auto index = BuildIndex(d);  // default options: automatic
  EXPECT_EQ(index->ef_search(), kAutoEfSearch);
  EXPECT_EQ(index->effective_ef_search(), EfSearchForSize(300));
}

// The graph is traversed with int8 rows; the candidates are re-ranked with the float vectors:
// every returned score is the float inner product, in exact best-first order, and the result
// is the exact top k of the nodes the traversal kept (asking for more shows those nodes).
TEST(HnswIndexTest, ReRankGivesExactScoresAndOrderAmongCandidates) {
  const Dataset d = RandomUnitVectors(3000, 48, 11);
  const Dataset queries = RandomUnitVectors(30, 48, 12);
  auto index = BuildIndex(d, {.ef_search = 40});
  for (size_t q = 0; q < queries.size(); ++q) {
    const auto all = index->Search(queries.row(q), 40, {});  // every node the traversal kept
    ASSERT_EQ(all.size(), 40u);
    std::vector<VectorHit> exact;
    for (const VectorHit& h : all) {
      exact.push_back({h.key, InnerProductForTest(queries.row(q), d.row(h.key), 48)});
      EXPECT_EQ(h.score, exact.back().score) << "key " << h.key;
    }
    std::stable_sort(exact.begin(), exact.end(),
                     [](auto& a, auto& b) { return a.score > b.score; });
    for (size_t i = 0; i < all.size(); ++i) EXPECT_EQ(all[i].score, exact[i].score) << i;
    const auto top10 = index->Search(queries.row(q), 10, {});
    ASSERT_EQ(top10.size(), 10u);
    for (size_t i = 0; i < 10; ++i) EXPECT_EQ(top10[i].score, all[i].score) << i;
  }
}

// Int8 traversal loses little recall against float traversal at the same ef.
TEST(HnswIndexTest, QuantizedTraversalRecallCloseToFloat) {
  const Dataset d = RandomUnitVectors(5000, 64, 13);
  const Dataset queries = RandomUnitVectors(100, 64, 14);
  auto index = BuildIndex(d, {.ef_search = 96});
  double quantized = 0, full = 0;
  for (size_t q = 0; q < queries.size(); ++q) {
    const auto truth = BruteForce(d, queries.row(q), 10);
    index->set_quantized_traversal(true);
    quantized += Recall(index->Search(queries.row(q), 10, {}), truth);
    index->set_quantized_traversal(false);
    full += Recall(index->Search(queries.row(q), 10, {}), truth);
  }
  quantized /= static_cast<double>(queries.size());
  full /= static_cast<double>(queries.size());
  EXPECT_GE(quantized, full - 0.03) << "float " << full;
  EXPECT_GE(quantized, 0.9);
}

// Tombstones are traversed but never returned, and replaced vectors are re-quantized.
TEST(HnswIndexTest, QuantizedRowsFollowUpsertAndRemove) {
  const Dataset d = RandomUnitVectors(2000, 32, 15);
  auto index = BuildIndex(d);
  for (int64_t key = 0; key < 2000; key += 2) ASSERT_TRUE(index->Remove(key).ok());
  for (size_t i = 1; i < 2000; i += 2) {
    const auto hits = index->Search(d.row(i), 5, {});
    ASSERT_FALSE(hits.empty());
    for (const VectorHit& h : hits) EXPECT_EQ(h.key % 2, 1) << h.key;
  }
  // Key 1 takes the vector of row 0: a search for row 0 finds key 1 with score 1.
  ASSERT_TRUE(index->Upsert(1, d.row(0)).ok());
  const auto hits = index->Search(d.row(0), 1, {});
  ASSERT_EQ(hits.size(), 1u);
  EXPECT_EQ(hits[0].key, 1);
  EXPECT_NEAR(hits[0].score, 1.0f, 1e-5);
}

// ---------------------------------------------------------------------------------------------
// Snapshots

class HnswSnapshotTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string dir = ::testing::TempDir() + "/hnsw_snapshot_XXXXXX";
    ASSERT_NE(::mkdtemp(dir.data()), nullptr);
    dir_ = dir;
    path_ = dir_ + "/scope.hnsw";
    data_ = RandomUnitVectors(800, 32, 20);
    index_ = BuildIndex(data_);
    meta_ = {.model = "hash-32",
             .dimension = 32,
             .M = 16,
             .ef_construction = 100,
             .fingerprint = 0xC0FFEE};
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string ReadBytes() const {
    std::ifstream in(path_, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  }
  void WriteBytes(const std::string& bytes) const {
    std::ofstream(path_, std::ios::binary | std::ios::trunc) << bytes;
  }
  size_t HeaderLength() const { return 64 + meta_.model.size(); }
  void SaveOk() { ASSERT_TRUE(SaveHnswSnapshot(*index_, path_, meta_).ok()); }
  // The load status, expected to be Corruption mentioning `what`.
  void ExpectCorruption(const std::string& what) const {
    auto loaded = LoadHnswSnapshot(path_, meta_);
    ASSERT_FALSE(loaded.ok());
    EXPECT_EQ(loaded.status().code(), StatusCode::kCorruption) << loaded.status().ToString();
    EXPECT_NE(loaded.status().message().find(what), std::string::npos)
        << loaded.status().ToString();
  }

  std::string dir_, path_;
  Dataset data_;
  std::unique_ptr<HnswIndex> index_;
  HnswSnapshotMeta meta_;
};

TEST_F(HnswSnapshotTest, RoundTripGivesIdenticalResults) {
  for (int64_t key : {3, 99, 400}) ASSERT_TRUE(index_->Remove(key).ok());
  SaveOk();
  auto loaded = LoadHnswSnapshot(path_, meta_);
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  HnswIndex& copy = **loaded;
  EXPECT_EQ(copy.size(), index_->size());
  EXPECT_EQ(copy.deleted_count(), 3u);
  EXPECT_EQ(copy.dimension(), 32);
  EXPECT_EQ(copy.M(), 16u);
  const Dataset queries = RandomUnitVectors(30, 32, 21);
  const KeyFilter odd = [](int64_t key) { return key % 2 == 1; };
  for (size_t q = 0; q < queries.size(); ++q) {
    for (const KeyFilter& filter : {KeyFilter{}, odd}) {
      const auto a = index_->Search(queries.row(q), 10, filter);
      const auto b = copy.Search(queries.row(q), 10, filter);
      ASSERT_EQ(Keys(a), Keys(b));
      for (size_t i = 0; i < a.size(); ++i) EXPECT_EQ(a[i].score, b[i].score);
    }
  }
  std::vector<float> v;
  EXPECT_FALSE(copy.Get(99, &v));
  ASSERT_TRUE(copy.Get(100, &v));
  EXPECT_EQ(v, std::vector<float>(data_.row(100), data_.row(100) + 32));
}

// Inserts with their own candidate list are found, and leave the graph's ef_construction (which
// the snapshot records and checks) as it was.
TEST_F(HnswSnapshotTest, UpsertWithEfKeepsTheGraphsParameters) {
  const Dataset more = RandomUnitVectors(200, 32, 23);
  for (size_t i = 0; i < more.size(); ++i) {
    ASSERT_TRUE(index_->UpsertWithEf(static_cast<int64_t>(2000 + i), more.row(i), 20).ok());
  }
  EXPECT_EQ(index_->UpsertWithEf(-1, more.row(0), 20).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(index_->ef_construction(), 100u);
  EXPECT_EQ(index_->size(), 1000u);
  for (size_t i = 0; i < more.size(); i += 17) {
    const auto hits = index_->Search(more.row(i), 1, {});
    ASSERT_EQ(hits.size(), 1u);
    EXPECT_EQ(hits[0].key, static_cast<int64_t>(2000 + i));
  }
  SaveOk();
  auto loaded = LoadHnswSnapshot(path_, meta_);
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  EXPECT_EQ((*loaded)->size(), 1000u);
}

TEST_F(HnswSnapshotTest, LoadedIndexKeepsGrowing) {
  SaveOk();
  auto loaded = LoadHnswSnapshot(path_, meta_, /*ef_search=*/80);
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  EXPECT_EQ((*loaded)->ef_search(), 80u);
  const Dataset more = RandomUnitVectors(300, 32, 22);
  for (size_t i = 0; i < more.size(); ++i) {
    ASSERT_TRUE((*loaded)->Upsert(static_cast<int64_t>(1000 + i), more.row(i)).ok());
  }
  EXPECT_EQ((*loaded)->size(), 1100u);
  const auto hits = (*loaded)->Search(more.row(5), 1, {});
  ASSERT_EQ(hits.size(), 1u);
  EXPECT_EQ(hits[0].key, 1005);
}

TEST_F(HnswSnapshotTest, EmptyIndexRoundTrips) {
  index_ = HnswIndex::Create({.dimension = 32}).value();
  SaveOk();
  auto loaded = LoadHnswSnapshot(path_, meta_);
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  EXPECT_EQ((*loaded)->size(), 0u);
  EXPECT_TRUE((*loaded)->Search(data_.row(0), 5, {}).empty());
  ASSERT_TRUE((*loaded)->Upsert(1, data_.row(0)).ok());
  EXPECT_EQ(Keys((*loaded)->Search(data_.row(0), 5, {})), std::vector<int64_t>{1});
}

TEST_F(HnswSnapshotTest, SaveReplacesAtomicallyAndLeavesNoScratchFiles) {
  SaveOk();
  ASSERT_TRUE(index_->Remove(1).ok());
  meta_.fingerprint++;
  SaveOk();  // over an existing snapshot
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(dir_)) {
    names.push_back(e.path().filename().string());
  }
  EXPECT_EQ(names, std::vector<std::string>{"scope.hnsw"});
  auto loaded = LoadHnswSnapshot(path_, meta_);
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  EXPECT_EQ((*loaded)->size(), 799u);
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir_), {}), 1);
}

TEST_F(HnswSnapshotTest, SaveRejectsMetaThatDoesNotDescribeTheIndex) {
  HnswSnapshotMeta wrong = meta_;
  wrong.dimension = 64;
  EXPECT_EQ(SaveHnswSnapshot(*index_, path_, wrong).code(), StatusCode::kInvalidArgument);
  wrong = meta_;
  wrong.M = 32;
  EXPECT_EQ(SaveHnswSnapshot(*index_, path_, wrong).code(), StatusCode::kInvalidArgument);
  EXPECT_FALSE(std::filesystem::exists(path_));
}

TEST_F(HnswSnapshotTest, RemovedVectorIsNotInTheSnapshot) {
  const std::string needle(reinterpret_cast<const char*>(data_.row(250)), 32 * sizeof(float));
  SaveOk();
  ASSERT_NE(ReadBytes().find(needle), std::string::npos);  // the probe works
  ASSERT_TRUE(index_->Remove(250).ok());
  SaveOk();
  EXPECT_EQ(ReadBytes().find(needle), std::string::npos);
}

TEST_F(HnswSnapshotTest, MissingFileIsNotFound) {
  EXPECT_EQ(LoadHnswSnapshot(path_, meta_).status().code(), StatusCode::kNotFound);
}

TEST_F(HnswSnapshotTest, FlippedPayloadByteIsCorruption) {
  SaveOk();
  std::string bytes = ReadBytes();
  bytes[HeaderLength() + (bytes.size() - HeaderLength()) / 2] ^= 0x10;
  WriteBytes(bytes);
  ExpectCorruption("payload checksum mismatch");
}

TEST_F(HnswSnapshotTest, FlippedHeaderByteIsCorruptionNotStale) {
  SaveOk();
  std::string bytes = ReadBytes();
  bytes[36] ^= 0x01;  // inside the fingerprint
  WriteBytes(bytes);
  ExpectCorruption("header checksum mismatch");
}

TEST_F(HnswSnapshotTest, TruncatedFileIsCorruption) {
  SaveOk();
  const std::string bytes = ReadBytes();
  for (size_t keep : {size_t{0}, size_t{12}, HeaderLength() - 1, HeaderLength(),
                      HeaderLength() + 50, bytes.size() - 1}) {
    SCOPED_TRACE(keep);
    WriteBytes(bytes.substr(0, keep));
    ExpectCorruption("truncated");
  }
  WriteBytes(bytes + "x");
  ExpectCorruption("trailing bytes");
}

TEST_F(HnswSnapshotTest, WrongMagicIsCorruption) {
  SaveOk();
  std::string bytes = ReadBytes();
  bytes[0] = 'X';
  WriteBytes(bytes);
  ExpectCorruption("bad magic");
}

TEST_F(HnswSnapshotTest, UnknownVersionIsCorruption) {
  SaveOk();
  std::string bytes = ReadBytes();
  bytes[8] = 99;  // little-endian uint32 at offset 8
  WriteBytes(bytes);
  ExpectCorruption("unsupported format version 99");
}

TEST_F(HnswSnapshotTest, MetaMismatchIsStale) {
  SaveOk();
  struct Case {
    const char* field;
    HnswSnapshotMeta expected;
  };
  std::vector<Case> cases(5, Case{"", meta_});
  cases[0].field = "stale snapshot: fingerprint";
  cases[0].expected.fingerprint++;
  cases[1].field = "stale snapshot: model";
  cases[1].expected.model = "text-embedding-3-small";
  cases[2].field = "stale snapshot: dimension";
  cases[2].expected.dimension = 384;
  cases[3].field = "stale snapshot: M";
  cases[3].expected.M = 32;
  cases[4].field = "stale snapshot: ef_construction";
  cases[4].expected.ef_construction = 200;
  for (const Case& c : cases) {
    auto loaded = LoadHnswSnapshot(path_, c.expected);
    ASSERT_FALSE(loaded.ok());
    EXPECT_EQ(loaded.status().code(), StatusCode::kCorruption);
    EXPECT_EQ(loaded.status().message().rfind(c.field, 0), 0u) << loaded.status().message();
  }
  EXPECT_TRUE(LoadHnswSnapshot(path_, meta_).ok());
}

}  // namespace
}  // namespace engram
