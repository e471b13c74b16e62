// The user profile: the stable facts and preferences about a user, grouped by kind, each line
// citing the memories it comes from (the MemoryOS idea, made inspectable).
//
// Its lines are built from the user's active extracted memories on every call (so they are
// regenerated whenever their inputs change, and never stale): facts, preferences, goals, skills,
// opinions and decisions, without kept conversation turns, events, summaries, or anything that
// expires (a wish for today is not who someone is). Each memory is placed by its slot (user/allergy
// → health, user/employer → work, someone else's slot → family and people) or, without one, by its
// type (preference → likes, or dislikes when it says so; goal → goals; skill → work). Within a
// section, the most important first, then the most recently confirmed.
//
// With an LLM configured (EngineOptions::summarizer), maintenance also writes a short summary of
// the profile (prompts/profile-v1.txt), stored with a fingerprint of the lines it was written
// from and rewritten by the next run after they change. A reply that is not the contract (not
// JSON, cut off, empty, citing memories that are not in the profile) is never stored: the
// summary written before stays. The engine builds a profile (Engine::GetProfile); the functions
// here are pure.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "engram/memory.h"
#include "engram/status.h"

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

// The LLM's summary of a profile, as stored by maintenance.
struct ProfileSummary {
  std::string text;
  std::vector<std::string> item_ids;  // the memories it cites (all of them lines of the profile)
  std::string fingerprint;            // ProfileFingerprint of the profile it was written from
  std::string model;
  std::string prompt_version;
  TimestampMs generated_at = 0;
  // The profile's lines are still those it was written from (false: they changed since; the
  // next maintenance run rewrites it).
  bool current = false;
};

struct Profile {
  std::vector<ProfileSection> sections;  // only non-empty ones, in the order above
  int64_t items = 0;                     // memories cited
  // The latest change among the memories it is built from (0 when none): a client can keep a
  // profile until this moves.
  TimestampMs inputs_updated_at = 0;
  std::optional<ProfileSummary> summary;  // when maintenance has written one
};

struct ProfileOptions {
  int max_lines_per_section = 12;  // 1..100
  double min_confidence = 0.5;     // memories below are left out
};

Status ValidateProfileOptions(const ProfileOptions& options);

// Collects a user's memories (in any order, called once per page of them) into a profile.
class ProfileBuilder {
 public:
  explicit ProfileBuilder(ProfileOptions options) : options_(options) {}
  void Add(const MemoryItem& item);  // left out unless eligible (see the file comment)
  Profile Finish();

 private:
  ProfileOptions options_;
  std::vector<std::vector<ProfileLine>> by_section_;
  TimestampMs inputs_updated_at_ = 0;
};

// Identifies the profile's lines (ids, versions and texts): equal fingerprints, same lines.
std::string ProfileFingerprint(const Profile& profile);

// The profile as text for a prompt: "User profile:\n- health: …\n" with one line per memory,
// at most `token_budget` tokens (lines that do not fit are left out, the most important kept).
// A current summary, when it fits, comes first ("Summary: …").
std::string ProfileText(const Profile& profile, int token_budget);

}  // namespace engram
