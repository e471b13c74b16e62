// The user profile: the stable facts and preferences about a user, grouped by kind, each line
// citing the memories it comes from (the MemoryOS idea, made inspectable).
//
// Built from the user's active extracted memories on every call (so it is regenerated whenever
// its inputs change, and never stale): facts, preferences, goals, skills, opinions and
// decisions, without kept conversation turns, events, summaries, or anything that expires
// (a wish for today is not who someone is). Each memory is placed by its slot (user/allergy →
// health, user/employer → work, someone else's slot → family and people) or, without one, by
// its type (preference → likes, or dislikes when it says so; goal → goals; skill → work).
// Within a section, the most important first, then the most recently confirmed.
#pragma once

#include <string>
#include <vector>

#include "engram/engine.h"

namespace engram {

// Sections in the order they are listed; names as in the API.
// identity, work, family, health, likes, dislikes, goals, habits, other
struct ProfileLine {
  std::string text;                   // the memory's content
  std::vector<std::string> item_ids;  // the memories it comes from
  std::string slot;
  MemoryType type = MemoryType::kFact;
  double importance = 0;
  TimestampMs updated_at = 0;
};

struct ProfileSection {
  std::string kind;
  std::vector<ProfileLine> lines;
};

struct Profile {
  std::vector<ProfileSection> sections;  // only non-empty ones, in the order above
  int64_t items = 0;                     // memories cited
  // The latest change among the memories it is built from (0 when none): a client can keep a
  // profile until this moves.
  TimestampMs inputs_updated_at = 0;
};

struct ProfileOptions {
  int max_lines_per_section = 12;  // 1..100
  double min_confidence = 0.5;     // memories below are left out
};

// The profile of scope's (tenant, user), narrowed to scope.agent_id when set.
Result<Profile> BuildProfile(Engine& engine, const Scope& scope,
                             const ProfileOptions& options = {});

// The profile as text for a prompt: "User profile:\n- health: …\n" with one line per memory,
// at most `token_budget` tokens (lines that do not fit are left out, the most important kept).
std::string ProfileText(const Profile& profile, int token_budget);

}  // namespace engram
