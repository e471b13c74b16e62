// Retention (include/engram/lifecycle.h): decay by type, importance, reinforcement with a
// bound, the critical floor, and the time it crosses a threshold.
#include <gtest/gtest.h>

#include <cmath>

#include "engram/lifecycle.h"

namespace engram {
namespace {

constexpr TimestampMs kT0 = 1'780'000'000'000;  // 2026-05-28
constexpr TimestampMs kDay = 86'400'000;

RetentionInputs Inputs(MemoryType type, double importance, int64_t uses = 0,
                       bool critical = false) {
  return RetentionInputs{.type = type,
                         .importance = importance,
                         .last_used = kT0,
                         .access_count = uses,
                         .critical = critical};
}

TEST(RetentionTest, HalvesEveryHalfLifeFromItsStrength) {
  RetentionPolicy p;
  const RetentionInputs turn = Inputs(MemoryType::kMessage, 0.5);
  EXPECT_DOUBLE_EQ(Retention(turn, p, kT0), 0.75);
  EXPECT_NEAR(Retention(turn, p, kT0 + 30 * kDay), 0.375, 1e-9);
  EXPECT_NEAR(Retention(turn, p, kT0 + 60 * kDay), 0.1875, 1e-9);
  // Time before the last use (a clock set back) is not negative age.
  EXPECT_DOUBLE_EQ(Retention(turn, p, kT0 - 5 * kDay), 0.75);
}

TEST(RetentionTest, TypesDecayAtTheirOwnPaceAndSomeNever) {
  RetentionPolicy p;
  const TimestampMs later = kT0 + 90 * kDay;
  const double turn = Retention(Inputs(MemoryType::kMessage, 0.5), p, later);
  const double preference = Retention(Inputs(MemoryType::kPreference, 0.5), p, later);
  const double fact = Retention(Inputs(MemoryType::kFact, 0.5), p, later);
  EXPECT_LT(turn, preference);
  EXPECT_LT(preference, fact);
  EXPECT_DOUBLE_EQ(Retention(Inputs(MemoryType::kKnowledge, 0.5), p, kT0 + 3650 * kDay), 0.75);
  p.half_life_days[MemoryType::kPreference] = 7;  // configured: a passing wish fades in days
  EXPECT_NEAR(Retention(Inputs(MemoryType::kPreference, 0.5), p, kT0 + 7 * kDay), 0.375, 1e-9);
}

TEST(RetentionTest, ImportanceRaisesTheStartingPoint) {
  RetentionPolicy p;
  const TimestampMs later = kT0 + 40 * kDay;
  EXPECT_LT(Retention(Inputs(MemoryType::kEvent, 0.1), p, later),
            Retention(Inputs(MemoryType::kEvent, 0.8), p, later));
}

TEST(RetentionTest, UseLengthensTheHalfLifeWithABound) {
  RetentionPolicy p;
  const double base = EffectiveHalfLifeDays(Inputs(MemoryType::kMessage, 0.5), p);
  const double once = EffectiveHalfLifeDays(Inputs(MemoryType::kMessage, 0.5, 1), p);
  const double often = EffectiveHalfLifeDays(Inputs(MemoryType::kMessage, 0.5, 10), p);
  const double always = EffectiveHalfLifeDays(Inputs(MemoryType::kMessage, 0.5, 1'000'000), p);
  EXPECT_DOUBLE_EQ(base, 30);
  EXPECT_NEAR(once, 30 * (1 + std::log(2.0)), 1e-9);
  EXPECT_GT(often, once);
  EXPECT_DOUBLE_EQ(always, 30 * p.max_reinforcement);  // bounded: no item grows without limit
  // Negative counts (corrupt input) count as none.
  EXPECT_DOUBLE_EQ(EffectiveHalfLifeDays(Inputs(MemoryType::kMessage, 0.5, -5), p), 30);
}

TEST(RetentionTest, CriticalItemsNeverFallBelowTheFloor) {
  RetentionPolicy p;
  const RetentionInputs allergy = Inputs(MemoryType::kFact, 0.5, 0, /*critical=*/true);
  EXPECT_DOUBLE_EQ(Retention(allergy, p, kT0 + 20 * 365 * kDay), p.critical_floor);
  EXPECT_FALSE(RetentionFallsBelow(allergy, p, 0.05).has_value());
  MemoryItem item;
  item.importance = 0.5;
  EXPECT_FALSE(IsCritical(item, p));
  item.tags = {"health", std::string(kCriticalTag)};
  EXPECT_TRUE(IsCritical(item, p));
  item.tags.clear();
  item.importance = 0.95;
  EXPECT_TRUE(IsCritical(item, p));
}

TEST(RetentionTest, CrossingTimeMatchesTheCurve) {
  RetentionPolicy p;
  const RetentionInputs turn = Inputs(MemoryType::kMessage, 0.5, 2);
  auto at = RetentionFallsBelow(turn, p, 0.05);
  ASSERT_TRUE(at.has_value());
  EXPECT_GT(*at, kT0);
  EXPECT_GE(Retention(turn, p, *at - kDay), 0.05);
  EXPECT_LT(Retention(turn, p, *at + 1), 0.05 + 1e-9);
  EXPECT_LE(Retention(turn, p, *at + kDay), 0.05);
  EXPECT_FALSE(RetentionFallsBelow(Inputs(MemoryType::kKnowledge, 0.5), p, 0.05).has_value());
  EXPECT_FALSE(RetentionFallsBelow(turn, p, 0).has_value());  // threshold 0: never archived
  // Starting below the threshold: due at once.
  EXPECT_EQ(RetentionFallsBelow(Inputs(MemoryType::kEvent, 0.0), p, 0.6), kT0);
}

TEST(RetentionTest, RankFactorIsBoundedBySharesWeight) {
  RetentionPolicy p;
  p.ranking_weight = 0.1;
  EXPECT_DOUBLE_EQ(RetentionRankFactor(1.0, p), 1.0);
  EXPECT_DOUBLE_EQ(RetentionRankFactor(0.0, p), 0.9);
  p.ranking_weight = 0;
  EXPECT_DOUBLE_EQ(RetentionRankFactor(0.0, p), 1.0);
}

TEST(RetentionTest, InputsComeFromTheItem) {
  RetentionPolicy p;
  MemoryItem item;
  item.type = MemoryType::kGoal;
  item.importance = 0.4;
  item.created_at = kT0;
  item.updated_at = kT0 + kDay;
  item.last_accessed = kT0 + 3 * kDay;
  item.access_count = 4;
  const RetentionInputs in = RetentionInputsOf(item, p);
  EXPECT_EQ(in.type, MemoryType::kGoal);
  EXPECT_EQ(in.last_used, kT0 + 3 * kDay);
  EXPECT_EQ(in.access_count, 4);
  EXPECT_FALSE(in.critical);
  EXPECT_EQ(ParseMaintenanceAction("purge").value(), MaintenanceAction::kPurge);
  EXPECT_FALSE(ParseMaintenanceAction("forget").ok());
}

}  // namespace
}  // namespace engram
