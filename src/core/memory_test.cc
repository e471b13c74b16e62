#include "engram/memory.h"

#include <gtest/gtest.h>

#include "core/id_generator.h"

namespace engram {
namespace {

TEST(MemoryEnumsTest, NamesRoundTrip) {
  for (Tier t : {Tier::kWorking, Tier::kEpisodic, Tier::kSemantic, Tier::kKnowledge}) {
    EXPECT_EQ(*ParseTier(ToString(t)), t);
  }
  for (auto t : {MemoryType::kFact, MemoryType::kPreference, MemoryType::kGoal, MemoryType::kEvent,
                 MemoryType::kSummary, MemoryType::kSkill, MemoryType::kKnowledge,
                 MemoryType::kProfile, MemoryType::kMessage}) {
    EXPECT_EQ(*ParseMemoryType(ToString(t)), t);
  }
  for (auto s : {ItemStatus::kActive, ItemStatus::kSuperseded, ItemStatus::kArchived,
                 ItemStatus::kDeleted}) {
    EXPECT_EQ(*ParseItemStatus(ToString(s)), s);
  }
  EXPECT_EQ(*ParseHistoryEvent("add"), HistoryEvent::kAdd);
  EXPECT_EQ(ToString(HistoryEvent::kSupersede), "SUPERSEDE");
}

TEST(MemoryEnumsTest, UnknownNameListsAcceptedOnes) {
  auto r = ParseMemoryType("rumour");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(r.status().message().find("rumour"), std::string::npos);
  EXPECT_NE(r.status().message().find("preference"), std::string::npos);
  EXPECT_NE(r.status().message().find("commitment"), std::string::npos);
}

TEST(MemoryEnumsTest, OpinionDecisionAndCommitmentRoundTrip) {
  for (MemoryType t : {MemoryType::kOpinion, MemoryType::kDecision, MemoryType::kCommitment}) {
    auto parsed = ParseMemoryType(ToString(t));
    ASSERT_TRUE(parsed.ok()) << ToString(t);
    EXPECT_EQ(*parsed, t);
    EXPECT_EQ(DefaultTierFor(t), Tier::kSemantic);
  }
  EXPECT_EQ(ToString(MemoryType::kDecision), "decision");
}

TEST(MemoryEnumsTest, DefaultTiers) {
  EXPECT_EQ(DefaultTierFor(MemoryType::kEvent), Tier::kEpisodic);
  EXPECT_EQ(DefaultTierFor(MemoryType::kMessage), Tier::kEpisodic);
  EXPECT_EQ(DefaultTierFor(MemoryType::kKnowledge), Tier::kKnowledge);
  EXPECT_EQ(DefaultTierFor(MemoryType::kPreference), Tier::kSemantic);
}

TEST(IdGeneratorTest, IdsAreUuidV7AndTimeOrdered) {
  IdGenerator gen;
  std::string a = gen.Next(1'700'000'000'000);
  std::string b = gen.Next(1'700'000'000'001);
  ASSERT_EQ(a.size(), 36u);
  EXPECT_EQ(a[14], '7');                                                      // version nibble
  EXPECT_TRUE(a[19] == '8' || a[19] == '9' || a[19] == 'a' || a[19] == 'b');  // variant
  EXPECT_LT(a, b);
  EXPECT_TRUE(IsValidId(a));
  std::set<std::string> seen;
  for (int i = 0; i < 10000; ++i) seen.insert(gen.Next(1'700'000'000'000));
  EXPECT_EQ(seen.size(), 10000u);
}

TEST(IdGeneratorTest, ValidIdShapes) {
  EXPECT_TRUE(IsValidId("mem_0001"));
  EXPECT_TRUE(IsValidId("a:b.c-d"));
  EXPECT_FALSE(IsValidId(""));
  EXPECT_FALSE(IsValidId("has space"));
  EXPECT_FALSE(IsValidId("x' OR 1=1"));
  EXPECT_FALSE(IsValidId(std::string(129, 'a')));
}

}  // namespace
}  // namespace engram
