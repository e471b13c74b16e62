// Retention (include/engram/lifecycle.h): pure functions of an item's type, importance, uses
// and time, shared by search ranking and maintenance so that both judge an item alike.
#include <algorithm>
#include <cmath>

#include "engram/lifecycle.h"

namespace engram {
namespace {

constexpr double kMsPerDay = 86'400'000.0;

double Strength(const RetentionInputs& in) {
  return 0.5 + 0.5 * std::clamp(in.importance, 0.0, 1.0);
}

}  // namespace

std::string_view ToString(MaintenanceAction action) {
  switch (action) {
    case MaintenanceAction::kExpire:
      return "expire";
    case MaintenanceAction::kPurge:
      return "purge";
    case MaintenanceAction::kMerge:
      return "merge";
    case MaintenanceAction::kSummarize:
      return "summarize";
    case MaintenanceAction::kPromote:
      return "promote";
    case MaintenanceAction::kProfile:
      return "profile";
    case MaintenanceAction::kArchive:
      break;
  }
  return "archive";
}

Result<MaintenanceAction> ParseMaintenanceAction(std::string_view s) {
  for (MaintenanceAction a :
       {MaintenanceAction::kArchive, MaintenanceAction::kExpire, MaintenanceAction::kPurge,
        MaintenanceAction::kMerge, MaintenanceAction::kSummarize, MaintenanceAction::kPromote,
        MaintenanceAction::kProfile}) {
    if (s == ToString(a)) return a;
  }
  return Status::InvalidArgument("unknown maintenance action '" + std::string(s) +
                                 "' (archive, expire, purge, merge, summarize, promote, profile)");
}

bool IsCritical(const MemoryItem& item, const RetentionPolicy& policy) {
  if (item.importance >= policy.critical_importance) return true;
  return std::find(item.tags.begin(), item.tags.end(), kCriticalTag) != item.tags.end();
}

RetentionInputs RetentionInputsOf(const MemoryItem& item, const RetentionPolicy& policy) {
  RetentionInputs in;
  in.type = item.type;
  in.importance = item.importance;
  in.last_used = std::max({item.created_at, item.updated_at, item.last_accessed.value_or(0)});
  in.access_count = item.access_count;
  in.critical = IsCritical(item, policy);
  return in;
}

double EffectiveHalfLifeDays(const RetentionInputs& in, const RetentionPolicy& policy) {
  auto it = policy.half_life_days.find(in.type);
  const double base =
      it != policy.half_life_days.end() ? it->second : policy.default_half_life_days;
  if (base <= 0) return 0;
  const double uses = static_cast<double>(std::max<int64_t>(0, in.access_count));
  const double reinforcement =
      std::clamp(1.0 + std::log1p(uses), 1.0, std::max(1.0, policy.max_reinforcement));
  return base * reinforcement;
}

double Retention(const RetentionInputs& in, const RetentionPolicy& policy, TimestampMs now) {
  const double strength = Strength(in);
  const double half_life = EffectiveHalfLifeDays(in, policy);
  double r = strength;
  if (half_life > 0) {
    const double age_days = std::max(0.0, static_cast<double>(now - in.last_used) / kMsPerDay);
    r = strength * std::pow(0.5, age_days / half_life);
  }
  if (in.critical) r = std::max(r, std::min(policy.critical_floor, strength));
  return std::clamp(r, 0.0, 1.0);
}

std::optional<TimestampMs> RetentionFallsBelow(const RetentionInputs& in,
                                               const RetentionPolicy& policy, double threshold) {
  if (threshold <= 0 || in.critical) return std::nullopt;
  const double half_life = EffectiveHalfLifeDays(in, policy);
  const double strength = Strength(in);
  if (strength < threshold) return in.last_used;
  if (half_life <= 0) return std::nullopt;
  // strength · 0.5^(d / h) = threshold  ⇔  d = h · log2(strength / threshold)
  const double days = half_life * std::log2(strength / threshold);
  const double ms = std::ceil(days * kMsPerDay);
  if (ms > 1e15) return std::nullopt;  // far beyond any real date: never
  return in.last_used + static_cast<TimestampMs>(ms);
}

double RetentionRankFactor(double retention, const RetentionPolicy& policy) {
  const double w = std::clamp(policy.ranking_weight, 0.0, 1.0);
  return 1.0 - w * (1.0 - std::clamp(retention, 0.0, 1.0));
}

}  // namespace engram
