// The memory lifecycle: how long an item stays worth recalling (retention), and what
// maintenance does about the ones that stopped being (archive, expire, purge).
//
// Retention of an item at time t, 0..1:
//   strength · 0.5^((t − last use) / half-life)
// where
//   strength  = 0.5 + 0.5 · importance (an important item starts higher),
//   last use  = the latest of created_at, updated_at and last_accessed (a search that returns
//               it, a restatement (NOOP) or a confirmation all count as use),
//   half-life = the type's half-life · reinforcement, with
//               reinforcement = min(1 + ln(1 + access_count), max_reinforcement):
//               each use lengthens the half-life, with diminishing and bounded returns, so no
//               item grows without limit.
// A critical item (IsCritical) never falls below critical_floor and is never archived or purged
// by maintenance. A half-life of 0 means the type never decays (retention = strength).
//
// Retention enters search ranking as a bounded factor (never a filter):
//   score · (1 − ranking_weight · (1 − retention))
// and is shown in explain (ScoreExplain::retention).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engram/memory.h"
#include "engram/status.h"

namespace engram {

// The tag that marks an item critical (health and safety facts, "remember this"): extraction
// sets it, and callers may too.
inline constexpr std::string_view kCriticalTag = "critical";

struct RetentionPolicy {
  // Half-life in days per type; a type missing here uses default_half_life_days.
  // 0: never decays. Defaults: a kept conversation turn 30, an event 60, a commitment 30, a
  // goal 90, an opinion 120, a preference 180, a decision 180, a fact 365, a summary 365, a
  // skill 365; knowledge and profile items 0.
  std::map<MemoryType, double> half_life_days = {
      {MemoryType::kMessage, 30},   {MemoryType::kEvent, 60},    {MemoryType::kCommitment, 30},
      {MemoryType::kGoal, 90},      {MemoryType::kOpinion, 120}, {MemoryType::kPreference, 180},
      {MemoryType::kDecision, 180}, {MemoryType::kFact, 365},    {MemoryType::kSummary, 365},
      {MemoryType::kSkill, 365},    {MemoryType::kKnowledge, 0}, {MemoryType::kProfile, 0}};
  double default_half_life_days = 180;
  double max_reinforcement = 4;  // the most uses can lengthen a half-life, as a factor
  // An item is critical when it carries kCriticalTag or its importance is at least this.
  double critical_importance = 0.9;
  double critical_floor = 0.5;  // retention of a critical item never goes below this
  // Share of a search score retention can take away (0: retention does not affect ranking).
  double ranking_weight = 0.1;
};

// What retention needs to know about an item.
struct RetentionInputs {
  MemoryType type = MemoryType::kFact;
  double importance = 0.5;
  TimestampMs last_used = 0;
  int64_t access_count = 0;
  bool critical = false;
};

RetentionInputs RetentionInputsOf(const MemoryItem& item, const RetentionPolicy& policy);
bool IsCritical(const MemoryItem& item, const RetentionPolicy& policy);
// The type's half-life in days after reinforcement; 0: never decays.
double EffectiveHalfLifeDays(const RetentionInputs& in, const RetentionPolicy& policy);
double Retention(const RetentionInputs& in, const RetentionPolicy& policy, TimestampMs now);
// When retention falls below `threshold` (nullopt: never, e.g. critical or not decaying; at or
// before last_used when it already starts below).
std::optional<TimestampMs> RetentionFallsBelow(const RetentionInputs& in,
                                               const RetentionPolicy& policy, double threshold);
// The search ranking factor for a retention (see the file comment).
double RetentionRankFactor(double retention, const RetentionPolicy& policy);

// What a maintenance run does.
struct MaintenancePolicy {
  // Archive active items whose retention is below this (critical items never are). 0: never.
  double archive_below = 0.05;
  // Purge (hard-delete) archived items this many days after they were archived (their
  // updated_at). 0: never. Critical items are never purged by maintenance.
  double purge_after_days = 90;
  // Merge near-duplicates: two active memories of one type (kept turns aside) that say the same
  // words (case, spacing and punctuation aside), or whose vectors have at least this cosine
  // similarity, become one: the newer is archived into the older, which takes its sources,
  // entities, tags and uses (a MERGE history row on both). Same words: among the memories a run
  // examines. By vector: each memory an incremental run examines (new, changed or due) against
  // the whole scope, when the scope's search index is loaded (an active user); a scope's first
  // or a full run compares words only (a vector search per memory, or loading every index,
  // would take minutes at scale). 0: never merge.
  double merge_above = 0.95;
  // Kept conversation turns that fade below archive_below together, of one session (or, outside
  // sessions, one day), become one summary memory (type summary, episodic) when there are at
  // least this many: their words, linked to them (source.turn_ids); the turns are archived into
  // it (superseded_by) and never purged, so the summary can be drilled into. 0: no summaries.
  int summarize_at_least = 2;
  // Promotion (the MemoryOS idea): a conversation's heat is
  //   visits + 0.5 · turns + 2 · 0.5^(days since its last turn / 7)
  // where visits counts the reads of its turns and of the memories extracted from it (search
  // hits, restatements) and turns its kept turns. A session at least this hot is distilled once:
  // its extracted memories move to the semantic tier and are reinforced like a restatement
  // (importance + 0.1 · (1 − importance)), each with an UPDATE history row giving the heat.
  // 0: no promotion.
  double promote_heat = 10;
};

struct MaintenanceRequest {
  std::string tenant;    // empty: every tenant
  std::string user_id;   // empty: every user (of `tenant`)
  bool dry_run = false;  // decide and report, change nothing (not even the schedule)
  // true: look at every item; false (incremental): only the items due for review and those
  // changed since the last run.
  bool full = false;
  size_t max_actions_listed = 1000;  // actions kept in the report's list (counts are complete)
};

// kProfile: the profile's summary was (re)written (its log row's item_id is "profile").
enum class MaintenanceAction { kArchive, kExpire, kPurge, kMerge, kSummarize, kPromote, kProfile };
std::string_view ToString(MaintenanceAction action);
Result<MaintenanceAction> ParseMaintenanceAction(std::string_view s);

// One row of the maintenance log: an action a run took on an item, and why. Kept after the
// item is purged (its id only); a hard delete the user asks for removes it too.
struct MaintenanceLogEntry {
  std::string item_id;
  MaintenanceAction action = MaintenanceAction::kArchive;
  std::string reason;
  TimestampMs at = 0;
};

struct MaintenanceActionRecord {
  std::string tenant;
  std::string user_id;
  std::string item_id;
  MaintenanceAction action = MaintenanceAction::kArchive;
  std::string reason;
  std::string content;  // the item's content (for a dry run's listing)
};

struct MaintenanceUserCounts {
  std::string tenant;
  std::string user_id;
  int64_t examined = 0;
  int64_t archived = 0;
  int64_t expired = 0;
  int64_t purged = 0;
  int64_t merged = 0;
  int64_t summarized = 0;  // turns archived into a summary (counted in archived too)
  int64_t summaries = 0;   // summary memories written
  int64_t promoted = 0;    // memories promoted from hot conversations
  int64_t profiles = 0;    // profile summaries (re)written (0 or 1)
};

struct MaintenanceReport {
  bool dry_run = false;
  bool full = false;
  TimestampMs at = 0;
  int64_t examined = 0;  // items looked at
  int64_t archived = 0, expired = 0, purged = 0, merged = 0;
  int64_t summarized = 0;  // turns archived into a summary (counted in archived too)
  int64_t summaries = 0;   // summary memories written
  int64_t promoted = 0;    // memories promoted from hot conversations
  int64_t profiles = 0;    // profile summaries (re)written, with an LLM configured
  std::vector<MaintenanceUserCounts> users;      // users with at least one item examined
  std::vector<MaintenanceActionRecord> actions;  // the first max_actions_listed
  // What could not be done and was left for the next run ("alice: session s1: summary reply
  // unusable (cut off) …").
  std::vector<std::string> problems;
  int64_t duration_ms = 0;
};

}  // namespace engram
