#include "index/scan_index.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <set>
#include <vector>

namespace engram {
namespace {

float Dot(const std::vector<float>& a, const std::vector<float>& b) {
  float sum = 0;
  for (size_t i = 0; i < a.size(); ++i) sum += a[i] * b[i];
  return sum;
}

void Normalize(std::vector<float>* v) {
  float n = std::sqrt(Dot(*v, *v));
  if (n > 0) {
    for (float& x : *v) x /= n;
  }
}

std::vector<float> Dense(std::mt19937& rng, int dim) {
  std::normal_distribution<float> normal;
  std::vector<float> v(static_cast<size_t>(dim));
  for (float& x : v) x = normal(rng);
  Normalize(&v);
  return v;
}

// Like the hash embedder's: a few dozen non-zero coordinates, most of them from a small shared
// vocabulary (so neighbours overlap), the rest zero.
std::vector<float> Sparse(std::mt19937& rng, int dim) {
  std::vector<float> v(static_cast<size_t>(dim), 0.0f);
  std::uniform_int_distribution<int> common(0, dim / 6), any(0, dim - 1), count(6, 30);
  std::normal_distribution<float> normal;
  const int n = count(rng);
  for (int i = 0; i < n; ++i)
    v[static_cast<size_t>(i % 3 ? common(rng) : any(rng))] += std::fabs(normal(rng));
  Normalize(&v);
  return v;
}

std::vector<VectorHit> BruteForce(const std::map<int64_t, std::vector<float>>& vectors,
                                  const std::vector<float>& query, size_t k,
                                  const KeyFilter& filter = {}) {
  std::vector<VectorHit> all;
  for (const auto& [key, v] : vectors) {
    if (filter && !filter(key)) continue;
    all.push_back({key, Dot(query, v)});
  }
  std::sort(all.begin(), all.end(), [](const VectorHit& a, const VectorHit& b) {
    return a.score != b.score ? a.score > b.score : a.key < b.key;
  });
  if (all.size() > k) all.resize(k);
  return all;
}

// Fraction of `want`'s keys found in `got`.
double Recall(const std::vector<VectorHit>& got, const std::vector<VectorHit>& want) {
  std::set<int64_t> keys;
  for (const VectorHit& h : got) keys.insert(h.key);
  size_t found = 0;
  for (const VectorHit& h : want) found += keys.count(h.key);
  return want.empty() ? 1.0 : static_cast<double>(found) / static_cast<double>(want.size());
}

TEST(SignRotationTest, PreservesInnerProductsAndPadsToSixtyFour) {
  for (int dim : {16, 96, 384, 1000}) {
    SignRotation rotation(dim);
    const size_t padded = rotation.padded_dimension();
    EXPECT_EQ(padded % 64, 0u) << dim;
    EXPECT_GE(padded, static_cast<size_t>(dim));
    EXPECT_LT(padded, static_cast<size_t>(dim) + 64);
    std::mt19937 rng(static_cast<unsigned>(dim));
    for (int trial = 0; trial < 20; ++trial) {
      std::vector<float> a = Dense(rng, dim), b = Dense(rng, dim);
      std::vector<float> ra(padded), rb(padded);
      rotation.Apply(a.data(), ra.data());
      rotation.Apply(b.data(), rb.data());
      EXPECT_NEAR(Dot(ra, rb), Dot(a, b), 1e-4) << dim;
      EXPECT_NEAR(Dot(ra, ra), 1.0f, 1e-4) << dim;
    }
  }
}

TEST(SignRotationTest, SpreadsASparseVectorOverEveryBlock) {
  SignRotation rotation(384);
  std::vector<float> one_hot(384, 0.0f);
  one_hot[5] = 1.0f;
  std::vector<float> out(rotation.padded_dimension());
  rotation.Apply(one_hot.data(), out.data());
  size_t nonzero = 0;
  for (float x : out) nonzero += std::fabs(x) > 1e-6f;
  EXPECT_GT(nonzero, out.size() * 9 / 10);
}

// Packs per-row patterns in the documented layout and checks every kernel the CPU can run
// against the sums computed from the patterns directly; 1,024 groups (a 4,096-dimension code)
// crosses the kernels' flush of their 16-bit lanes (256 pairs, or 256 quads), and 18 and 98
// groups end in a pair (the AVX-512 kernel's masked last load).
TEST(ScanCodesTest, EveryKernelSumsTheTableEntriesOfEachRow) {
  const auto kernels = ScanKernels();
  ASSERT_FALSE(kernels.empty());
  EXPECT_EQ(kernels.front().first, "portable");
  std::mt19937 rng(7);
  for (size_t groups : {2u, 16u, 18u, 96u, 98u, 1024u, 2050u}) {
    for (size_t blocks : {1u, 3u}) {
      std::vector<std::vector<uint8_t>> patterns(blocks * 32, std::vector<uint8_t>(groups));
      for (auto& row : patterns) {
        for (uint8_t& p : row) p = static_cast<uint8_t>(rng() % 16);
      }
      std::vector<uint8_t> codes(blocks * groups * 16, 0);
      for (size_t row = 0; row < patterns.size(); ++row) {
        const size_t b = row / 32, slot = row % 32;
        for (size_t g = 0; g < groups; ++g) {
          uint8_t& byte = codes[b * groups * 16 + g * 16 + slot % 16];
          byte |= static_cast<uint8_t>(slot < 16 ? patterns[row][g] : patterns[row][g] << 4);
        }
      }
      std::vector<uint8_t> lut(groups * 16);
      for (uint8_t& x : lut) x = static_cast<uint8_t>(rng() % 256);
      lut[0] = 255;  // the largest entries too
      std::vector<uint32_t> want(blocks * 32, 0);
      for (size_t row = 0; row < patterns.size(); ++row) {
        for (size_t g = 0; g < groups; ++g) want[row] += lut[g * 16 + patterns[row][g]];
      }
      std::vector<uint32_t> dispatched(blocks * 32);
      ScanCodes(codes.data(), blocks, lut.data(), groups, dispatched.data());
      EXPECT_EQ(dispatched, want) << "groups " << groups << " blocks " << blocks;
      for (const auto& [name, kernel] : kernels) {
        std::vector<uint32_t> got(blocks * 32, 12345);  // every sum written, none added to
        kernel(codes.data(), blocks, lut.data(), groups, got.data());
        EXPECT_EQ(got, want) << name << ", groups " << groups << " blocks " << blocks;
      }
    }
  }
  // All patterns 15 with all entries 255: the largest possible sums.
  for (size_t groups : {1024u, 2050u}) {
    std::vector<uint8_t> codes(groups * 16, 0xFF), lut(groups * 16, 255);
    for (const auto& [name, kernel] : kernels) {
      std::vector<uint32_t> out(32);
      kernel(codes.data(), 1, lut.data(), groups, out.data());
      for (uint32_t sum : out) EXPECT_EQ(sum, 255u * groups) << name << ", groups " << groups;
    }
  }
}

// Every length around the 16-value steps, thresholds at, between and beyond the values, NaNs.
TEST(RowsAtLeastTest, ListsTheRowsReachingTheThresholdInOrder) {
  std::mt19937 rng(11);
  for (size_t n : {0u, 1u, 15u, 16u, 17u, 31u, 32u, 33u, 100u, 10'000u}) {
    std::vector<float> values(n);
    for (float& v : values) v = static_cast<float>(rng() % 1000) / 10.0f;
    if (n > 3) values[3] = std::nanf("");
    for (float threshold : {-1.0f, 0.0f, 50.0f, 99.9f, 100.0f}) {
      std::vector<uint32_t> want;
      for (size_t r = 0; r < n; ++r) {
        if (values[r] >= threshold) want.push_back(static_cast<uint32_t>(r));
      }
      std::vector<uint32_t> out(n + 16);
      out.resize(RowsAtLeast(values.data(), n, threshold, out.data()));
      EXPECT_EQ(out, want) << "n " << n << " threshold " << threshold;
    }
  }
}

TEST(ScanIndexTest, BelowTheExactThresholdResultsAreExact) {
  std::mt19937 rng(1);
  auto index = MakeScanIndex(96, {.exact_below = 1000});
  std::map<int64_t, std::vector<float>> truth;
  for (int64_t key = 0; key < 800; ++key) {
    truth[key] = Dense(rng, 96);
    ASSERT_TRUE(index->Upsert(key, truth[key].data()).ok());
  }
  for (int q = 0; q < 20; ++q) {
    std::vector<float> query = Dense(rng, 96);
    std::vector<VectorHit> got = index->Search(query.data(), 10, {});
    std::vector<VectorHit> want = BruteForce(truth, query, 10);
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i) {
      EXPECT_EQ(got[i].key, want[i].key);
      EXPECT_NEAR(got[i].score, want[i].score, 1e-5);
    }
  }
  EXPECT_EQ(index->Search(truth[3].data(), 5000, {}).size(), 800u);  // k past the size: all
  EXPECT_TRUE(index->Search(truth[3].data(), 0, {}).empty());
}

// The case the rotation exists for: sparse vectors, whose own signs would be mostly ties at zero.
TEST(ScanIndexTest, SparseVectorsKeepHighRecallWithExactScores) {
  std::mt19937 rng(2);
  const int dim = 384;
  auto index = MakeScanIndex(dim, {.exact_below = 0});
  std::map<int64_t, std::vector<float>> truth;
  for (int64_t key = 0; key < 6000; ++key) {
    truth[key * 3] = Sparse(rng, dim);
    ASSERT_TRUE(index->Upsert(key * 3, truth[key * 3].data()).ok());
  }
  double recall10 = 0, recall40 = 0;
  const int queries = 60;
  for (int q = 0; q < queries; ++q) {
    std::vector<float> query = Sparse(rng, dim);
    std::vector<VectorHit> got = index->Search(query.data(), 40, {});
    ASSERT_EQ(got.size(), 40u);
    for (size_t i = 0; i < got.size(); ++i) {
      EXPECT_NEAR(got[i].score, Dot(query, truth.at(got[i].key)), 1e-5);  // exact scores
      if (i > 0) {
        EXPECT_GE(got[i - 1].score, got[i].score);
      }
    }
    recall40 += Recall(got, BruteForce(truth, query, 40));
    recall10 += Recall(index->Search(query.data(), 10, {}), BruteForce(truth, query, 10));
  }
  EXPECT_GE(recall10 / queries, 0.95);
  EXPECT_GE(recall40 / queries, 0.92);
}

// Replacing and removing rows moves codes between block slots; every survivor must still be
// found by its own vector and keep its own floats.
TEST(ScanIndexTest, UpsertsAndRemovesKeepCodesWithTheirRows) {
  std::mt19937 rng(3);
  const int dim = 64;
  auto index = MakeScanIndex(dim, {.exact_below = 0, .rerank_min = 16, .rerank_factor = 2});
  std::map<int64_t, std::vector<float>> truth;
  std::uniform_int_distribution<int64_t> pick(0, 2999);
  for (int step = 0; step < 12000; ++step) {
    const int64_t key = pick(rng);
    if (step % 3 == 2) {
      ASSERT_TRUE(index->Remove(key).ok());
      truth.erase(key);
    } else {
      truth[key] = Dense(rng, dim);
      ASSERT_TRUE(index->Upsert(key, truth[key].data()).ok());
    }
  }
  ASSERT_EQ(index->size(), truth.size());
  ASSERT_GT(truth.size(), 500u);
  std::vector<float> got;
  for (const auto& [key, v] : truth) {
    ASSERT_TRUE(index->Get(key, &got));
    EXPECT_EQ(got, v);
    const float* in_place = index->Peek(key);
    ASSERT_NE(in_place, nullptr);
    EXPECT_EQ(std::vector<float>(in_place, in_place + dim), v);
    std::vector<VectorHit> hits = index->Search(v.data(), 1, {});
    ASSERT_EQ(hits.size(), 1u);
    EXPECT_EQ(hits[0].key, key);
    EXPECT_NEAR(hits[0].score, 1.0f, 1e-5);
  }
  EXPECT_FALSE(index->Get(-5, &got));
  EXPECT_EQ(index->Peek(-5), nullptr);
  for (const auto& [key, v] : std::map<int64_t, std::vector<float>>(truth)) {
    ASSERT_TRUE(index->Remove(key).ok());
  }
  EXPECT_EQ(index->size(), 0u);
  EXPECT_TRUE(index->Search(truth.begin()->second.data(), 3, {}).empty());
}

TEST(ScanIndexTest, OnlyKeysPassingTheFilterAreReturned) {
  std::mt19937 rng(4);
  const int dim = 128;
  auto index = MakeScanIndex(dim, {.exact_below = 0});
  std::map<int64_t, std::vector<float>> truth;
  for (int64_t key = 0; key < 4000; ++key) {
    truth[key] = Sparse(rng, dim);
    ASSERT_TRUE(index->Upsert(key, truth[key].data()).ok());
  }
  KeyFilter tenth = [](int64_t key) { return key % 10 == 7; };
  double recall = 0;
  for (int q = 0; q < 30; ++q) {
    std::vector<float> query = Sparse(rng, dim);
    std::vector<VectorHit> got = index->Search(query.data(), 10, tenth);
    ASSERT_EQ(got.size(), 10u);
    for (const VectorHit& h : got) EXPECT_EQ(h.key % 10, 7);
    recall += Recall(got, BruteForce(truth, query, 10, tenth));
  }
  EXPECT_GE(recall / 30, 0.95);
  // A filter passing fewer keys than k: all of them.
  std::vector<VectorHit> few =
      index->Search(truth[0].data(), 10, [](int64_t key) { return key == 5 || key == 3999; });
  EXPECT_EQ(few.size(), 2u);
}

TEST(ScanIndexTest, MemoryGrowsWithTheRows) {
  auto index = MakeScanIndex(384);
  const size_t empty = index->MemoryBytes();
  std::vector<float> v(384, 0.0f);
  v[0] = 1.0f;
  for (int64_t key = 0; key < 1000; ++key) ASSERT_TRUE(index->Upsert(key, v.data()).ok());
  // floats (1,536 bytes) and codes (48 bytes) per row at least
  EXPECT_GE(index->MemoryBytes() - empty, 1000u * (1536 + 48));
}

// At 4,096 dimensions a chunk holds 128 rows of floats, 512 int8 rows and 128 blocks of codes
// (4,096 rows): 4,200 vectors put rows of every array past its chunk boundaries, and removals
// move rows back across them.
TEST(ScanIndexTest, FindsRowsInEveryChunkAndAfterTheyMoveAcrossChunks) {
  constexpr int kDim = 4096;
  constexpr int64_t kCount = 4200;
  std::mt19937 rng(11);
  auto index = MakeScanIndex(kDim);
  std::map<int64_t, std::vector<float>> vectors;
  for (int64_t key = 1; key <= kCount; ++key) {
    vectors[key] = Dense(rng, kDim);
    ASSERT_TRUE(index->Upsert(key, vectors[key].data()).ok());
  }
  auto finds_itself = [&](int64_t key) {
    const auto hits = index->Search(vectors.at(key).data(), 3, {});
    return !hits.empty() && hits[0].key == key &&
           std::fabs(hits[0].score - Dot(vectors.at(key), vectors.at(key))) < 1e-4f;
  };
  for (int64_t key : {1, 127, 128, 129, 513, 2048, 4096, 4097, 4150, 4199, 4200}) {
    EXPECT_TRUE(finds_itself(key)) << key;
  }
  // Each removal moves the last row (in the codes' second chunk) to the hole (in the first).
  for (int64_t key : {1, 200, 3000, 4100}) {
    ASSERT_TRUE(index->Remove(key).ok());
    vectors.erase(key);
  }
  EXPECT_EQ(index->size(), static_cast<size_t>(kCount - 4));
  for (int64_t key : {2, 4150, 4196, 4197, 4198, 4199, 4200}) EXPECT_TRUE(finds_itself(key)) << key;
  const auto hits = index->Search(vectors.at(4200).data(), 10, {});
  const auto exact = BruteForce(vectors, vectors.at(4200), 10);
  ASSERT_EQ(hits.size(), exact.size());
  EXPECT_EQ(hits[0].key, exact[0].key);
}

}  // namespace
}  // namespace engram
