// SessionIndex: BM25 over sessions as documents, updated per memory.
#include "retrieval/session_index.h"

#include <gtest/gtest.h>

#include <cmath>

namespace engram {
namespace {

std::vector<WeightedTerm> Terms(std::initializer_list<const char*> words) {
  std::vector<WeightedTerm> out;
  for (const char* w : words) out.push_back({w, 1.0});
  return out;
}

TEST(SessionIndexTest, ScoresSessionsByTheirConcatenatedMemories) {
  SessionIndex index;
  // Session a talks about the trip over two turns; no single turn has both words.
  index.Add(1, "a", {"trip", "plan"});
  index.Add(2, "a", {"paris", "flight"});
  index.Add(3, "b", {"paris", "museum"});
  index.Add(4, "c", {"dinner", "pasta"});
  EXPECT_EQ(index.sessions(), 3u);

  auto scores = index.Search(Terms({"paris", "trip"}), 10);
  ASSERT_EQ(scores.size(), 2u);           // c matches no term
  EXPECT_DOUBLE_EQ(scores.at("a"), 1.0);  // relative to the best session
  EXPECT_GT(scores.at("b"), 0.0);
  EXPECT_LT(scores.at("b"), 1.0);
  EXPECT_EQ(scores.count("c"), 0u);
}

TEST(SessionIndexTest, LimitKeepsTheBestSessions) {
  SessionIndex index;
  index.Add(1, "a", {"tea", "tea", "green"});
  index.Add(2, "b", {"tea", "coffee", "milk", "sugar"});
  index.Add(3, "c", {"tea", "cake", "plate", "fork", "knife", "spoon"});
  auto scores = index.Search(Terms({"tea"}), 1);
  ASSERT_EQ(scores.size(), 1u);
  EXPECT_DOUBLE_EQ(scores.at("a"), 1.0);  // highest term frequency, shortest session
  EXPECT_TRUE(index.Search(Terms({"tea"}), 0).empty());
  EXPECT_TRUE(index.Search(Terms({"unknown"}), 5).empty());
}

TEST(SessionIndexTest, QueryTermWeightsAddUp) {
  SessionIndex index;
  index.Add(1, "a", {"tea"});
  index.Add(2, "b", {"cake"});
  index.Add(3, "c", {"other"});
  // Equal document statistics: the heavier query term's session wins.
  auto scores = index.Search({{"tea", 1.0}, {"cake", 0.5}}, 10);
  EXPECT_DOUBLE_EQ(scores.at("a"), 1.0);
  EXPECT_NEAR(scores.at("b"), 0.5, 1e-12);
  auto summed = index.Search({{"cake", 0.5}, {"cake", 0.5}, {"tea", 0.5}}, 10);
  EXPECT_DOUBLE_EQ(summed.at("b"), 1.0);
  EXPECT_NEAR(summed.at("a"), 0.5, 1e-12);
}

TEST(SessionIndexTest, RemoveAndReplaceUpdateTheCounts) {
  SessionIndex index;
  index.Add(1, "a", {"paris"});
  index.Add(2, "a", {"london"});
  index.Add(3, "b", {"rome"});
  index.Remove(1);
  EXPECT_TRUE(index.Search(Terms({"paris"}), 10).empty());
  EXPECT_EQ(index.Search(Terms({"london"}), 10).count("a"), 1u);
  // Re-adding a memory replaces its terms and may move it to another session.
  index.Add(2, "b", {"berlin"});
  EXPECT_TRUE(index.Search(Terms({"london"}), 10).empty());
  EXPECT_EQ(index.sessions(), 1u);  // a has no members left
  auto b = index.Search(Terms({"berlin", "rome"}), 10);
  ASSERT_EQ(b.size(), 1u);
  EXPECT_DOUBLE_EQ(b.at("b"), 1.0);
  index.Remove(2);
  index.Remove(3);
  index.Remove(42);  // unknown: no-op
  EXPECT_EQ(index.sessions(), 0u);
  EXPECT_TRUE(index.Search(Terms({"rome"}), 10).empty());
}

TEST(SessionIndexTest, MatchesBm25OverTheConcatenation) {
  Bm25Params params;
  SessionIndex index(params);
  index.Add(1, "a", {"x", "y"});
  index.Add(2, "a", {"x"});
  index.Add(3, "b", {"y", "z", "w"});
  // Two sessions: a = {x, x, y} (length 3), b = {y, z, w} (length 3), average length 3.
  auto bm25 = [&](double tf, double df) {
    double idf = std::log(1.0 + (2.0 - df + 0.5) / (df + 0.5));
    return idf * tf * (params.k1 + 1) / (tf + params.k1);
  };
  const double a = bm25(2, 1) + bm25(1, 2);
  const double b = bm25(1, 2);
  auto scores = index.Search(Terms({"x", "y"}), 10);
  EXPECT_DOUBLE_EQ(scores.at("a"), 1.0);
  EXPECT_NEAR(scores.at("b"), b / a, 1e-12);
}

}  // namespace
}  // namespace engram
