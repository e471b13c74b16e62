#include "index/bm25_index.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

namespace engram {
namespace {

constexpr double kK1 = 1.2;
constexpr double kB = 0.75;

// idf = ln(1 + (N − df + 0.5) / (df + 0.5))
double Idf(double n, double df) { return std::log(1.0 + (n - df + 0.5) / (df + 0.5)); }

// tf·(k1+1) / (tf + k1·(1 − b + b·dl/avgdl))
double TfPart(double tf, double dl, double avgdl) {
  return tf * (kK1 + 1.0) / (tf + kK1 * (1.0 - kB + kB * dl / avgdl));
}

std::vector<int64_t> Keys(const std::vector<Bm25Hit>& hits) {
  std::vector<int64_t> keys;
  for (const Bm25Hit& h : hits) keys.push_back(h.key);
  return keys;
}

// Three documents:
//   1: apple banana apple          (dl 3)
//   2: banana cherry               (dl 2)
//   3: cherry date elder fig       (dl 4)
// N = 3, avgdl = 9 / 3 = 3.
class Bm25Test : public ::testing::Test {
 protected:
  void SetUp() override {
    index_.Add(1, {"apple", "banana", "apple"});
    index_.Add(2, {"banana", "cherry"});
    index_.Add(3, {"cherry", "date", "elder", "fig"});
  }
  Bm25Index index_{Bm25Params{kK1, kB}};
};

TEST_F(Bm25Test, ScoresMatchTheFormulaComputedByHand) {
  // df(apple) = 1: idf = ln(1 + (3 − 1 + 0.5)/(1 + 0.5)) = ln(1 + 2.5/1.5) = ln(8/3) ≈ 0.98083
  // df(cherry) = 2: idf = ln(1 + (3 − 2 + 0.5)/(2 + 0.5)) = ln(1.6) ≈ 0.47000
  const double idf_apple = std::log(8.0 / 3.0);
  const double idf_cherry = std::log(1.6);
  EXPECT_NEAR(idf_apple, Idf(3, 1), 1e-12);
  EXPECT_NEAR(idf_cherry, Idf(3, 2), 1e-12);
  // doc 1: apple tf 2, dl 3: 2·2.2 / (2 + 1.2·(0.25 + 0.75·3/3)) = 4.4 / 3.2 = 1.375
  const double s1 = idf_apple * (4.4 / 3.2);
  // doc 2: cherry tf 1, dl 2: 2.2 / (1 + 1.2·(0.25 + 0.75·2/3)) = 2.2 / 1.9
  const double s2 = idf_cherry * (2.2 / 1.9);
  // doc 3: cherry tf 1, dl 4: 2.2 / (1 + 1.2·(0.25 + 0.75·4/3)) = 2.2 / 2.5 = 0.88
  const double s3 = idf_cherry * 0.88;
  EXPECT_NEAR(s1, Idf(3, 1) * TfPart(2, 3, 3), 1e-12);
  EXPECT_NEAR(s2, Idf(3, 2) * TfPart(1, 2, 3), 1e-12);
  EXPECT_NEAR(s3, Idf(3, 2) * TfPart(1, 4, 3), 1e-12);

  auto hits = index_.Search({"apple", "cherry"}, 10, nullptr);
  ASSERT_EQ(hits.size(), 3u);
  EXPECT_EQ(Keys(hits), (std::vector<int64_t>{1, 2, 3}));
  EXPECT_NEAR(hits[0].score, s1, 1e-9);
  EXPECT_NEAR(hits[1].score, s2, 1e-9);
  EXPECT_NEAR(hits[2].score, s3, 1e-9);
  EXPECT_EQ(index_.size(), 3u);
}

TEST_F(Bm25Test, IdfValues) {
  EXPECT_NEAR(index_.Idf("apple"), std::log(1.0 + 2.5 / 1.5), 1e-12);
  EXPECT_NEAR(index_.Idf("banana"), std::log(1.0 + 1.5 / 2.5), 1e-12);
  EXPECT_NEAR(index_.Idf("cherry"), std::log(1.6), 1e-12);
  EXPECT_NEAR(index_.Idf("fig"), std::log(8.0 / 3.0), 1e-12);
  // Unknown term: df = 0, idf = ln(1 + 3.5/0.5) = ln(8).
  EXPECT_NEAR(index_.Idf("zucchini"), std::log(8.0), 1e-12);
  // Rarer terms weigh more.
  EXPECT_GT(index_.Idf("apple"), index_.Idf("cherry"));
}

TEST_F(Bm25Test, RepeatedQueryTermsWeighUp) {
  auto once = index_.Search({"apple"}, 10, nullptr);
  auto twice = index_.Search({"apple", "apple"}, 10, nullptr);
  ASSERT_EQ(once.size(), 1u);
  ASSERT_EQ(twice.size(), 1u);
  EXPECT_NEAR(twice[0].score, 2 * once[0].score, 1e-12);
  // Term frequency in the document counts with saturation: doc 1 has apple twice.
  EXPECT_NEAR(once[0].score, std::log(8.0 / 3.0) * 1.375, 1e-9);
}

TEST_F(Bm25Test, RemoveUpdatesCountsAndLengths) {
  index_.Remove(3);
  EXPECT_EQ(index_.size(), 2u);
  // Now N = 2, avgdl = (3 + 2) / 2 = 2.5, df(apple) = 1, df(cherry) = 1.
  // idf = ln(1 + (2 − 1 + 0.5)/(1 + 0.5)) = ln(2) for both.
  EXPECT_NEAR(index_.Idf("apple"), std::log(2.0), 1e-12);
  EXPECT_NEAR(index_.Idf("cherry"), std::log(2.0), 1e-12);
  // fig is gone: df = 0, idf = ln(1 + 2.5/0.5) = ln(6).
  EXPECT_NEAR(index_.Idf("fig"), std::log(6.0), 1e-12);
  // doc 1: apple tf 2, dl 3: 4.4 / (2 + 1.2·(0.25 + 0.75·3/2.5)) = 4.4 / 3.38
  const double s1 = std::log(2.0) * (4.4 / 3.38);
  // doc 2: cherry tf 1, dl 2: 2.2 / (1 + 1.2·(0.25 + 0.75·2/2.5)) = 2.2 / 2.02
  const double s2 = std::log(2.0) * (2.2 / 2.02);
  auto hits = index_.Search({"apple", "cherry"}, 10, nullptr);
  ASSERT_EQ(hits.size(), 2u);
  EXPECT_EQ(Keys(hits), (std::vector<int64_t>{1, 2}));
  EXPECT_NEAR(hits[0].score, s1, 1e-9);
  EXPECT_NEAR(hits[1].score, s2, 1e-9);
  EXPECT_TRUE(index_.Search({"fig"}, 10, nullptr).empty());

  // Removing an absent key changes nothing.
  index_.Remove(3);
  index_.Remove(99);
  EXPECT_EQ(index_.size(), 2u);
  EXPECT_NEAR(index_.Search({"apple"}, 10, nullptr)[0].score, std::log(2.0) * (4.4 / 3.38), 1e-9);
}

TEST_F(Bm25Test, RemovingEverythingLeavesAnEmptyIndex) {
  index_.Remove(1);
  index_.Remove(2);
  index_.Remove(3);
  EXPECT_EQ(index_.size(), 0u);
  EXPECT_TRUE(index_.Search({"apple", "cherry", "banana"}, 10, nullptr).empty());
  index_.Add(7, {"apple"});
  auto hits = index_.Search({"apple"}, 10, nullptr);
  ASSERT_EQ(hits.size(), 1u);
  EXPECT_EQ(hits[0].key, 7);
  // N = 1, df = 1, dl = avgdl = 1: ln(1 + 0.5/1.5) · 2.2/2.2
  EXPECT_NEAR(hits[0].score, std::log(1.0 + 0.5 / 1.5), 1e-9);
}

TEST_F(Bm25Test, ReAddReplacesTheDocument) {
  index_.Add(1, {"cherry"});
  EXPECT_EQ(index_.size(), 3u);
  EXPECT_TRUE(index_.Search({"apple"}, 10, nullptr).empty());
  // N = 3, total length 1 + 2 + 4 = 7, avgdl = 7/3; df(cherry) = 3:
  // idf = ln(1 + (3 − 3 + 0.5)/(3 + 0.5)) = ln(8/7).
  const double idf = std::log(8.0 / 7.0);
  const double avgdl = 7.0 / 3.0;
  EXPECT_NEAR(index_.Idf("cherry"), idf, 1e-12);
  EXPECT_NEAR(index_.Idf("banana"), std::log(1.0 + 2.5 / 1.5), 1e-12);  // df 2 → 1
  // doc 1: dl 1 → 2.2 / (1 + 1.2·(0.25 + 0.75·1/(7/3))); doc 2: dl 2; doc 3: dl 4.
  const double s1 = idf * 2.2 / (1 + 1.2 * (0.25 + 0.75 * 1 / avgdl));
  const double s2 = idf * 2.2 / (1 + 1.2 * (0.25 + 0.75 * 2 / avgdl));
  const double s3 = idf * 2.2 / (1 + 1.2 * (0.25 + 0.75 * 4 / avgdl));
  auto hits = index_.Search({"cherry"}, 10, nullptr);
  ASSERT_EQ(hits.size(), 3u);
  EXPECT_EQ(Keys(hits), (std::vector<int64_t>{1, 2, 3}));  // shorter documents first
  EXPECT_NEAR(hits[0].score, s1, 1e-9);
  EXPECT_NEAR(hits[1].score, s2, 1e-9);
  EXPECT_NEAR(hits[2].score, s3, 1e-9);
}

TEST_F(Bm25Test, FilterIsRespected) {
  auto hits = index_.Search({"apple", "cherry"}, 10, [](int64_t key) { return key != 1; });
  EXPECT_EQ(Keys(hits), (std::vector<int64_t>{2, 3}));
  // Filtering does not change the statistics: same scores as without the filter.
  EXPECT_NEAR(hits[0].score, std::log(1.6) * (2.2 / 1.9), 1e-9);
  EXPECT_TRUE(index_.Search({"apple"}, 10, [](int64_t) { return false; }).empty());
}

TEST_F(Bm25Test, KLimitsResults) {
  EXPECT_EQ(Keys(index_.Search({"apple", "cherry"}, 1, nullptr)), (std::vector<int64_t>{1}));
  EXPECT_EQ(Keys(index_.Search({"apple", "cherry"}, 2, nullptr)), (std::vector<int64_t>{1, 2}));
  EXPECT_TRUE(index_.Search({"apple", "cherry"}, 0, nullptr).empty());
  // k applies after the filter: the best passing documents, not the best overall.
  EXPECT_EQ(Keys(index_.Search({"apple", "cherry"}, 1, [](int64_t key) { return key == 3; })),
            (std::vector<int64_t>{3}));
}

TEST_F(Bm25Test, UnknownTermsReturnNothing) {
  EXPECT_TRUE(index_.Search({"zucchini"}, 10, nullptr).empty());
  EXPECT_TRUE(index_.Search({}, 10, nullptr).empty());
  // Unknown terms add nothing to known ones.
  auto hits = index_.Search({"zucchini", "fig"}, 10, nullptr);
  ASSERT_EQ(hits.size(), 1u);
  EXPECT_EQ(hits[0].key, 3);
  EXPECT_NEAR(hits[0].score, std::log(8.0 / 3.0) * 0.88, 1e-9);
}

TEST(Bm25EmptyTest, EmptyIndexReturnsNothing) {
  Bm25Index index;
  EXPECT_EQ(index.size(), 0u);
  EXPECT_TRUE(index.Search({"a"}, 5, nullptr).empty());
  index.Add(1, {});  // a document without terms counts but never matches
  EXPECT_EQ(index.size(), 1u);
  EXPECT_TRUE(index.Search({"a"}, 5, nullptr).empty());
}

TEST(Bm25CompactionTest, ResultsStayRightAfterCompaction) {
  Bm25Index index;
  auto terms_of = [](int i) {
    std::vector<std::string> t = {"common", "t" + std::to_string(i)};
    for (int r = 0; r < i % 4; ++r) t.push_back(i % 2 ? "odd" : "even");
    return t;
  };
  for (int i = 0; i < 3000; ++i) index.Add(i, terms_of(i));
  for (int i = 0; i < 2500; ++i) index.Remove(i);  // compacts once dead > 1024 and > live
  EXPECT_EQ(index.size(), 500u);

  // The reference: a fresh index holding only the survivors.
  Bm25Index fresh;
  for (int i = 2500; i < 3000; ++i) fresh.Add(i, terms_of(i));

  for (const std::vector<std::string>& q :
       {std::vector<std::string>{"common"}, {"odd"}, {"even", "t2600"}, {"t2999"}, {"t7"}}) {
    auto got = index.Search(q, 1000, nullptr);
    auto want = fresh.Search(q, 1000, nullptr);
    ASSERT_EQ(got.size(), want.size()) << q[0];
    for (size_t i = 0; i < got.size(); ++i) {
      EXPECT_EQ(got[i].key, want[i].key);
      EXPECT_NEAR(got[i].score, want[i].score, 1e-9);
    }
  }
  EXPECT_EQ(index.Search({"common"}, 1000, nullptr).size(), 500u);
  for (const Bm25Hit& h : index.Search({"common"}, 1000, nullptr)) EXPECT_GE(h.key, 2500);
  EXPECT_TRUE(index.Search({"t100"}, 10, nullptr).empty());
  EXPECT_NEAR(index.Idf("common"), fresh.Idf("common"), 1e-12);
  EXPECT_NEAR(index.Idf("t5"), fresh.Idf("t5"), 1e-12);

  // By hand: "t2600" has df 1 among N = 500; doc 2600 has terms common, t2600 (2600 % 4 = 0),
  // dl 2; avgdl = (125·2 + 125·3 + 125·4 + 125·5) / 500 = 3.5.
  auto one = index.Search({"t2600"}, 10, nullptr);
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0].key, 2600);
  EXPECT_NEAR(one[0].score,
              std::log(1.0 + (500 - 1 + 0.5) / 1.5) * 2.2 / (1 + 1.2 * (0.25 + 0.75 * 2 / 3.5)),
              1e-9);

  // The index keeps working after compaction: removed keys can come back, live ones go.
  index.Add(5, {"common", "revived"});
  index.Remove(2999);
  auto revived = index.Search({"revived"}, 10, nullptr);
  ASSERT_EQ(revived.size(), 1u);
  EXPECT_EQ(revived[0].key, 5);
  EXPECT_TRUE(index.Search({"t2999"}, 10, nullptr).empty());
  EXPECT_EQ(index.size(), 500u);

  // Remove the rest, which goes through another compaction.
  for (int i = 2500; i < 2999; ++i) index.Remove(i);
  EXPECT_EQ(index.size(), 1u);
  auto last = index.Search({"common"}, 10, nullptr);
  ASSERT_EQ(last.size(), 1u);
  EXPECT_EQ(last[0].key, 5);
}

// ---------------------------------------------------------------------------------------------
// Pruning: SearchWeighted must return exactly what SearchExhaustive returns (keys, order and
// score bits) on data where it does prune: Zipf-distributed words, so a few words are in most
// documents, and queries mixing rare and common words.

std::vector<std::string> ZipfWords(std::mt19937& rng, const std::vector<double>& cdf, int n) {
  std::vector<std::string> words;
  for (int i = 0; i < n; ++i) {
    const double u = std::uniform_real_distribution<double>(0, 1)(rng);
    words.push_back("w" +
                    std::to_string(std::lower_bound(cdf.begin(), cdf.end(), u) - cdf.begin()));
  }
  return words;
}

void ExpectSameHits(const std::vector<Bm25Hit>& got, const std::vector<Bm25Hit>& want,
                    const std::string& context) {
  ASSERT_EQ(got.size(), want.size()) << context;
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i].key, want[i].key) << context << " rank " << i;
    EXPECT_EQ(got[i].score, want[i].score) << context << " rank " << i;  // same bits
  }
}

TEST(Bm25PruningTest, PrunedTopKEqualsExhaustiveOnRandomData) {
  constexpr int kVocabulary = 2000;
  std::vector<double> cdf;
  double sum = 0;
  for (int i = 1; i <= kVocabulary; ++i) cdf.push_back(sum += 1.0 / i);
  for (double& c : cdf) c /= sum;
  std::mt19937 rng(7);
  Bm25Index index;
  for (int64_t key = 0; key < 20'000; ++key) {
    index.Add(key, ZipfWords(rng, cdf, 3 + static_cast<int>(rng() % 20)));
  }
  // Removals and replacements leave dead postings and loose per-term bounds behind.
  for (int64_t key = 0; key < 20'000; key += 7) index.Remove(key);
  for (int64_t key = 3; key < 20'000; key += 11) index.Add(key, ZipfWords(rng, cdf, 5));
  size_t pruned = 0, scored = 0, scored_exhaustive = 0;
  for (int q = 0; q < 300; ++q) {
    std::vector<WeightedTerm> terms;
    for (const std::string& w : ZipfWords(rng, cdf, 1 + static_cast<int>(rng() % 6))) {
      terms.push_back({w, 1.0});
    }
    if (q % 3 == 0) terms.push_back({"w" + std::to_string(rng() % kVocabulary), 0.4});
    if (q % 5 == 0) terms.push_back({"w0", 1.0});  // the commonest word, repeated
    if (q % 7 == 0) terms.push_back({"absent", 1.0});
    for (size_t k : {1, 10, 75, 500}) {
      const std::string context = "query " + std::to_string(q) + " k " + std::to_string(k);
      Bm25SearchStats with, without;
      ExpectSameHits(index.SearchWeighted(terms, k, nullptr, &with),
                     index.SearchExhaustive(terms, k, nullptr, &without), context);
      EXPECT_EQ(without.terms_looked_up, 0u);
      pruned += with.terms_looked_up > 0;
      scored += with.postings_scored;
      scored_exhaustive += without.postings_scored;
    }
  }
  // The comparison means something only if pruning happened, and often.
  EXPECT_GT(pruned, 300u);  // of 1,200 searches
  EXPECT_LT(scored, scored_exhaustive / 2);
}

// Equal scores at the k-th place: the tie-break (larger key first) must survive pruning.
TEST(Bm25PruningTest, TiesAtTheKthPlaceMatchExhaustive) {
  Bm25Index index;
  for (int64_t key = 0; key < 3000; ++key) {
    std::vector<std::string> terms = {"common", "filler"};
    if (key % 100 == 0) terms.push_back("rare");
    if (key % 3 == 0) terms.push_back("middle");
    index.Add(key, terms);
  }
  const std::vector<WeightedTerm> terms = {{"rare", 1}, {"middle", 1}, {"common", 1}};
  for (size_t k : {1, 5, 30, 31, 100}) {
    ExpectSameHits(index.SearchWeighted(terms, k, nullptr),
                   index.SearchExhaustive(terms, k, nullptr), "k " + std::to_string(k));
  }
}

// With a filter or a non-positive weight there is no pruning, and the results still agree.
TEST(Bm25PruningTest, FilterAndNonPositiveWeightsFallBackToExhaustive) {
  Bm25Index index;
  std::mt19937 rng(3);
  std::vector<double> cdf;
  double sum = 0;
  for (int i = 1; i <= 300; ++i) cdf.push_back(sum += 1.0 / i);
  for (double& c : cdf) c /= sum;
  for (int64_t key = 0; key < 5000; ++key) index.Add(key, ZipfWords(rng, cdf, 10));
  const KeyFilter odd = [](int64_t key) { return key % 2 == 1; };
  const std::vector<WeightedTerm> terms = {{"w250", 1}, {"w0", 1}, {"w1", 1}};
  ExpectSameHits(index.SearchWeighted(terms, 20, odd), index.SearchExhaustive(terms, 20, odd),
                 "filter");
  for (const Bm25Hit& h : index.SearchWeighted(terms, 20, odd)) EXPECT_EQ(h.key % 2, 1);
  const std::vector<WeightedTerm> negative = {{"w250", 1}, {"w0", -0.5}, {"w1", 1}};
  ExpectSameHits(index.SearchWeighted(negative, 20, nullptr),
                 index.SearchExhaustive(negative, 20, nullptr), "negative weight");
}

}  // namespace
}  // namespace engram
