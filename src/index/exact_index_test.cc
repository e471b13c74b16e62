#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <vector>

#include "index/vector_index.h"

namespace engram {
namespace {

constexpr int kDim = 8;

std::vector<float> RandomVector(std::mt19937& rng) {
  std::normal_distribution<float> normal;
  std::vector<float> v(kDim);
  for (float& x : v) x = normal(rng);
  return v;
}

float Dot(const std::vector<float>& a, const std::vector<float>& b) {
  float sum = 0;
  for (size_t i = 0; i < a.size(); ++i) sum += a[i] * b[i];
  return sum;
}

// The k best (key, score) pairs by a plain loop over every vector.
std::vector<VectorHit> BruteForce(const std::map<int64_t, std::vector<float>>& vectors,
                                  const std::vector<float>& query, size_t k,
                                  const KeyFilter& filter) {
  std::vector<VectorHit> all;
  for (const auto& [key, v] : vectors) {
    if (filter && !filter(key)) continue;
    all.push_back({key, Dot(query, v)});
  }
  std::sort(all.begin(), all.end(),
            [](const VectorHit& a, const VectorHit& b) { return a.score > b.score; });
  if (all.size() > k) all.resize(k);
  return all;
}

void ExpectSameHits(const std::vector<VectorHit>& got, const std::vector<VectorHit>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i].key, want[i].key) << "rank " << i;
    EXPECT_NEAR(got[i].score, want[i].score, 1e-5) << "rank " << i;
  }
}

class ExactIndexTest : public ::testing::Test {
 protected:
  void Put(int64_t key, const std::vector<float>& v) {
    ASSERT_TRUE(index_->Upsert(key, v.data()).ok());
    truth_[key] = v;
  }
  void Drop(int64_t key) {
    ASSERT_TRUE(index_->Remove(key).ok());
    truth_.erase(key);
  }
  // Every stored key returns its own vector.
  void ExpectGetMatchesTruth() {
    EXPECT_EQ(index_->size(), truth_.size());
    for (const auto& [key, v] : truth_) {
      std::vector<float> got;
      ASSERT_TRUE(index_->Get(key, &got)) << key;
      EXPECT_EQ(got, v) << key;
      const float* in_place = index_->Peek(key);
      ASSERT_NE(in_place, nullptr) << key;
      EXPECT_EQ(std::vector<float>(in_place, in_place + kDim), v) << key;
    }
  }

  std::mt19937 rng_{42};
  std::unique_ptr<VectorIndex> index_ = MakeExactIndex(kDim);
  std::map<int64_t, std::vector<float>> truth_;
};

TEST_F(ExactIndexTest, TopKMatchesBruteForce) {
  EXPECT_EQ(index_->dimension(), kDim);
  for (int64_t key = 0; key < 300; ++key) Put(key * 3 + 1, RandomVector(rng_));
  for (int round = 0; round < 20; ++round) {
    std::vector<float> q = RandomVector(rng_);
    for (size_t k : {1u, 5u, 37u}) {
      auto hits = index_->Search(q.data(), k, nullptr);
      ExpectSameHits(hits, BruteForce(truth_, q, k, nullptr));
      for (size_t i = 1; i < hits.size(); ++i) EXPECT_GE(hits[i - 1].score, hits[i].score);
    }
  }
}

TEST_F(ExactIndexTest, UpsertReplacesTheVector) {
  Put(1, {1, 0, 0, 0, 0, 0, 0, 0});
  Put(2, {0, 1, 0, 0, 0, 0, 0, 0});
  const std::vector<float> q = {1, 0, 0, 0, 0, 0, 0, 0};
  EXPECT_EQ(index_->Search(q.data(), 1, nullptr)[0].key, 1);
  Put(1, {0, 0, 1, 0, 0, 0, 0, 0});
  Put(2, {0.5f, 0, 0, 0, 0, 0, 0, 0});
  EXPECT_EQ(index_->size(), 2u);
  auto hits = index_->Search(q.data(), 10, nullptr);
  ASSERT_EQ(hits.size(), 2u);
  EXPECT_EQ(hits[0].key, 2);
  EXPECT_FLOAT_EQ(hits[0].score, 0.5f);
  EXPECT_EQ(hits[1].key, 1);
  EXPECT_FLOAT_EQ(hits[1].score, 0.0f);
  ExpectGetMatchesTruth();
}

TEST_F(ExactIndexTest, RemoveKeepsEveryOtherKeyWithItsOwnVector) {
  for (int64_t key = 10; key < 20; ++key) Put(key, RandomVector(rng_));
  Drop(13);  // a middle row: the last row (key 19) moves into its place
  ExpectGetMatchesTruth();
  std::vector<float> ignored;
  EXPECT_FALSE(index_->Get(13, &ignored));
  EXPECT_EQ(index_->Peek(13), nullptr);
  Drop(19);  // the moved row, now in the middle
  ExpectGetMatchesTruth();
  Drop(18);  // the last row: nothing moves
  ExpectGetMatchesTruth();
  Drop(10);  // the first row
  ExpectGetMatchesTruth();
  EXPECT_TRUE(index_->Remove(10).ok());  // absent: OK, no change
  EXPECT_TRUE(index_->Remove(12345).ok());
  ExpectGetMatchesTruth();

  // Searches see exactly the survivors, scored with their own vectors.
  for (int round = 0; round < 5; ++round) {
    std::vector<float> q = RandomVector(rng_);
    ExpectSameHits(index_->Search(q.data(), 100, nullptr), BruteForce(truth_, q, 100, nullptr));
  }
  // A moved key can still be updated and removed.
  Put(17, RandomVector(rng_));
  ExpectGetMatchesTruth();
  for (int64_t key : {11, 12, 14, 15, 16, 17}) Drop(key);
  EXPECT_EQ(index_->size(), 0u);
  std::vector<float> q = RandomVector(rng_);
  EXPECT_TRUE(index_->Search(q.data(), 5, nullptr).empty());
  Put(99, q);
  ExpectGetMatchesTruth();
}

TEST_F(ExactIndexTest, RandomUpsertsAndRemovesStayConsistent) {
  std::uniform_int_distribution<int64_t> key_of(0, 60);
  for (int op = 0; op < 2000; ++op) {
    int64_t key = key_of(rng_);
    if (rng_() % 3 == 0) {
      Drop(key);
    } else {
      Put(key, RandomVector(rng_));
    }
  }
  ExpectGetMatchesTruth();
  std::vector<float> q = RandomVector(rng_);
  ExpectSameHits(index_->Search(q.data(), 10, nullptr), BruteForce(truth_, q, 10, nullptr));
}

TEST_F(ExactIndexTest, FilterIsRespected) {
  for (int64_t key = 0; key < 100; ++key) Put(key, RandomVector(rng_));
  KeyFilter even = [](int64_t key) { return key % 2 == 0; };
  std::vector<float> q = RandomVector(rng_);
  auto hits = index_->Search(q.data(), 10, even);
  ASSERT_EQ(hits.size(), 10u);
  for (const VectorHit& h : hits) EXPECT_EQ(h.key % 2, 0);
  ExpectSameHits(hits, BruteForce(truth_, q, 10, even));
  EXPECT_TRUE(index_->Search(q.data(), 10, [](int64_t) { return false; }).empty());
}

TEST_F(ExactIndexTest, KLargerThanSizeAndKZero) {
  for (int64_t key = 0; key < 7; ++key) Put(key, RandomVector(rng_));
  std::vector<float> q = RandomVector(rng_);
  auto all = index_->Search(q.data(), 100, nullptr);
  EXPECT_EQ(all.size(), 7u);
  ExpectSameHits(all, BruteForce(truth_, q, 100, nullptr));
  EXPECT_TRUE(index_->Search(q.data(), 0, nullptr).empty());
}

}  // namespace
}  // namespace engram
