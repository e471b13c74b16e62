#include "retrieval/context_packer.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "engram/clock.h"
#include "testing/test_support.h"
#include "text/token_counter.h"
#include "text/utf8.h"

namespace engram {
namespace {

constexpr TimestampMs kT0 = 1'700'000'000'000;  // 2023-11-14T22:13:20Z
const std::string kHeader = "Relevant memories (most relevant first):\n";

SearchHit Hit(const std::string& id, const std::string& content, double score,
              MemoryType type = MemoryType::kFact, TimestampMs valid_from = kT0) {
  SearchHit h;
  h.item.id = id;
  h.item.scope = {"default", "alice", "", ""};
  h.item.content = content;
  h.item.type = type;
  h.item.valid_from = h.item.created_at = valid_from;
  h.score = score;
  return h;
}

std::vector<std::string> Ids(const std::vector<SearchHit>& hits) {
  std::vector<std::string> ids;
  for (const SearchHit& h : hits) ids.push_back(h.item.id);
  return ids;
}

TEST(ContextPackerTest, EmptyInputGivesEmptyText) {
  ContextResult r = PackContext({}, 1000);
  EXPECT_EQ(r.text, "");
  EXPECT_EQ(r.tokens, 0);
  EXPECT_TRUE(r.memories.empty());
}

TEST(ContextPackerTest, BudgetBelowTheHeaderGivesEmptyText) {
  ContextResult r = PackContext({Hit("m1", "x", 0.9)}, CountTokens(kHeader));
  EXPECT_EQ(r.text, "");
  EXPECT_EQ(r.tokens, 0);
  EXPECT_TRUE(r.memories.empty());
}

TEST(ContextPackerTest, LinesCarryDateTypeContentAndCitation) {
  ContextResult r = PackContext(
      {Hit("0193a1f2-aaaa", "Likes green tea", 0.9, MemoryType::kPreference),
       Hit("m-2", "Lives in\nBeijing\twith family", 0.5, MemoryType::kFact, kT0 + 86'400'000)},
      1000);
  EXPECT_EQ(r.text, kHeader +
                        "- [2023-11-14] (preference) Likes green tea [0193a1f2-aaaa]\n"
                        "- [2023-11-15] (fact) Lives in Beijing with family [m-2]\n");
  EXPECT_EQ(r.tokens, CountTokens(r.text));
  EXPECT_EQ(Ids(r.memories), (std::vector<std::string>{"0193a1f2-aaaa", "m-2"}));
  EXPECT_DOUBLE_EQ(r.memories[0].score, 0.9);
}

TEST(ContextPackerTest, KeepsTheRankedOrderHighestScoreFirst) {
  std::vector<SearchHit> ranked = {Hit("a", "first memory", 0.9), Hit("b", "second memory", 0.7),
                                   Hit("c", "third memory", 0.4)};
  ContextResult r = PackContext(ranked, 1000);
  EXPECT_EQ(Ids(r.memories), (std::vector<std::string>{"a", "b", "c"}));
  size_t pa = r.text.find("[a]"), pb = r.text.find("[b]"), pc = r.text.find("[c]");
  ASSERT_NE(pa, std::string::npos);
  ASSERT_NE(pb, std::string::npos);
  ASSERT_NE(pc, std::string::npos);
  EXPECT_LT(pa, pb);
  EXPECT_LT(pb, pc);
}

TEST(ContextPackerTest, SkipsAMemoryThatDoesNotFitButKeepsLaterSmallerOnes) {
  std::string long_content;
  for (int i = 0; i < 200; ++i) long_content += "lengthy ";
  std::vector<SearchHit> ranked = {Hit("a", "short one", 0.9), Hit("b", long_content, 0.8),
                                   Hit("c", "short two", 0.7)};
  ContextResult r = PackContext(ranked, 100);
  EXPECT_EQ(Ids(r.memories), (std::vector<std::string>{"a", "c"}));
  EXPECT_EQ(r.text.find("lengthy"), std::string::npos);
  EXPECT_EQ(r.text.find("…"), std::string::npos);  // only a first memory is ever cut
  EXPECT_LE(r.tokens, 100);
  EXPECT_EQ(r.tokens, CountTokens(r.text));
}

TEST(ContextPackerTest, TruncatesAFirstMemoryThatIsTooLong) {
  std::string long_content;
  for (int i = 0; i < 300; ++i) long_content += "word" + std::to_string(i) + " ";
  ContextResult r = PackContext({Hit("big", long_content, 0.9), Hit("small", "tiny", 0.1)}, 80);
  ASSERT_EQ(r.memories.size(), 1u);
  EXPECT_EQ(r.memories[0].item.id, "big");
  EXPECT_LE(r.tokens, 80);
  EXPECT_EQ(r.tokens, CountTokens(r.text));
  const std::string prefix = kHeader + "- [2023-11-14] (fact) ";
  ASSERT_EQ(r.text.compare(0, prefix.size(), prefix), 0) << r.text;
  const size_t ellipsis = r.text.find("… [big]\n");
  ASSERT_NE(ellipsis, std::string::npos) << r.text;
  EXPECT_EQ(ellipsis + std::string("… [big]\n").size(), r.text.size());
  const std::string kept = r.text.substr(prefix.size(), ellipsis - prefix.size());
  EXPECT_GT(kept.size(), 20u);  // most of the budget is used, not just a word
  EXPECT_EQ(long_content.compare(0, kept.size(), kept), 0);
  // Nearly all of the budget is used.
  EXPECT_GE(r.tokens, 70);
}

TEST(ContextPackerTest, TruncatesChineseOnCharacterBoundaries) {
  std::string zh;
  for (int i = 0; i < 500; ++i) zh += "我喜欢喝绿茶";
  ContextResult r = PackContext({Hit("zh", zh, 0.9, MemoryType::kPreference)}, 60);
  ASSERT_EQ(r.memories.size(), 1u);
  EXPECT_LE(r.tokens, 60);
  EXPECT_EQ(r.tokens, CountTokens(r.text));
  EXPECT_TRUE(IsValidUtf8(r.text, nullptr));
  EXPECT_NE(r.text.find("… [zh]"), std::string::npos);
  EXPECT_NE(r.text.find("我喜欢"), std::string::npos);
}

TEST(ContextPackerTest, NeverExceedsTheBudget) {
  std::mt19937 rng(2026);
  const std::vector<std::string> words = {
      "tea",  "Beijing", "meeting", "project", "a", "extraordinarily", "42", "绿茶", "北京",
      "喜欢", "会议",    "。",      "，",      "!", "co-operate",      "😀"};
  const std::vector<MemoryType> types = {MemoryType::kFact, MemoryType::kPreference,
                                         MemoryType::kEvent, MemoryType::kKnowledge};
  int with_memories = 0, truncated = 0;
  for (int round = 0; round < 300; ++round) {
    std::vector<SearchHit> ranked;
    const int n = static_cast<int>(rng() % 12);
    for (int i = 0; i < n; ++i) {
      std::string content;
      const int len = 1 + static_cast<int>(rng() % (rng() % 4 == 0 ? 600 : 40));
      for (int w = 0; w < len; ++w) {
        content += words[rng() % words.size()];
        if (rng() % 3) content += rng() % 10 ? " " : "\n";
      }
      ranked.push_back(Hit("id-" + std::to_string(round) + "-" + std::to_string(i), content,
                           1.0 - i * 0.01, types[rng() % types.size()],
                           kT0 + static_cast<TimestampMs>(rng() % 1'000'000'000)));
    }
    const int budget = 16 + static_cast<int>(rng() % 1985);
    ContextResult r = PackContext(ranked, budget);
    ASSERT_LE(CountTokens(r.text), budget) << "budget " << budget;
    ASSERT_EQ(r.tokens, CountTokens(r.text));
    ASSERT_TRUE(IsValidUtf8(r.text, nullptr));
    if (r.memories.empty()) {
      EXPECT_EQ(r.text, "");
      continue;
    }
    ++with_memories;
    EXPECT_EQ(r.text.compare(0, kHeader.size(), kHeader), 0);
    // The included memories are a subsequence of the ranking, cited in that order, one line each.
    size_t next_input = 0, pos = 0;
    for (const SearchHit& m : r.memories) {
      while (next_input < ranked.size() && ranked[next_input].item.id != m.item.id) ++next_input;
      ASSERT_LT(next_input, ranked.size()) << "memory out of order or unknown";
      ++next_input;
      size_t at = r.text.find("[" + m.item.id + "]\n", pos);
      ASSERT_NE(at, std::string::npos);
      pos = at;
      EXPECT_NE(r.text.find("(" + std::string(ToString(m.item.type)) + ")"), std::string::npos);
    }
    size_t lines = 0;
    for (char c : r.text) lines += c == '\n';
    EXPECT_EQ(lines, r.memories.size() + 1);
    if (r.text.find("…") != std::string::npos) ++truncated;
  }
  EXPECT_GT(with_memories, 150);
  EXPECT_GT(truncated, 5);
}

class ContextPackEngineTest : public ::testing::Test {
 protected:
  void SetUp() override {
    engine_ = testing::OpenEngine(dir_.File("ctx.db"), &clock_);
    ASSERT_NE(engine_, nullptr);
  }
  testing::TempDir dir_;
  ManualClock clock_{kT0};
  std::unique_ptr<Engine> engine_;
  Scope alice_{"default", "alice", "", ""};
};

TEST_F(ContextPackEngineTest, BuildContextPacksTheSearchResults) {
  NewMemory tea = testing::Text("Favorite drink is green tea");
  tea.type = MemoryType::kPreference;
  auto tea_item = engine_->Add(alice_, tea);
  ASSERT_TRUE(tea_item.ok());
  auto beijing = engine_->Add(alice_, testing::Text("Lives in Beijing"));
  ASSERT_TRUE(beijing.ok());
  for (int i = 0; i < 20; ++i) {
    ASSERT_TRUE(engine_->Add(alice_, testing::Text("tea note number " + std::to_string(i))).ok());
  }

  ContextRequest request;
  request.search.text = "green tea";
  request.token_budget = 120;
  auto r = engine_->BuildContext(alice_, request);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_FALSE(r->memories.empty());
  EXPECT_EQ(r->memories[0].item.id, tea_item->id);
  EXPECT_NE(r->text.find("- [2023-11-14] (preference) Favorite drink is green tea [" +
                         tea_item->id + "]\n"),
            std::string::npos)
      << r->text;
  EXPECT_LE(r->tokens, 120);
  EXPECT_EQ(r->tokens, CountTokens(r->text));
  EXPECT_LT(r->memories.size(), 10u);  // the budget, not k, limits the block
  for (const SearchHit& m : r->memories) {
    EXPECT_NE(r->text.find("[" + m.item.id + "]"), std::string::npos);
  }

  request.token_budget = 4000;
  auto big = engine_->BuildContext(alice_, request);
  ASSERT_TRUE(big.ok());
  EXPECT_EQ(big->memories.size(), 10u);  // k = 10 caps the memories considered
  EXPECT_LE(big->tokens, 4000);

  request.search.text = "Beijing";
  request.token_budget = 16;  // room for the header only
  auto tiny = engine_->BuildContext(alice_, request);
  ASSERT_TRUE(tiny.ok());
  EXPECT_LE(tiny->tokens, 16);
}

TEST_F(ContextPackEngineTest, TokenBudgetIsValidated) {
  ASSERT_TRUE(engine_->Add(alice_, testing::Text("something")).ok());
  ContextRequest request;
  request.search.text = "something";
  for (int budget : {15, 0, -5, 32769, 40000}) {
    request.token_budget = budget;
    auto r = engine_->BuildContext(alice_, request);
    ASSERT_FALSE(r.ok()) << budget;
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(r.status().message().find("token_budget"), std::string::npos) << r.status().message();
  }
  for (int budget : {16, 32768}) {
    request.token_budget = budget;
    EXPECT_TRUE(engine_->BuildContext(alice_, request).ok()) << budget;
  }
  request.token_budget = 500;
  request.search.text = "  ";
  auto bad_query = engine_->BuildContext(alice_, request);
  EXPECT_EQ(bad_query.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(bad_query.status().message().find("query"), std::string::npos);
}

}  // namespace
}  // namespace engram
