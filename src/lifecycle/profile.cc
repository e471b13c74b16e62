// The user profile (include/engram/profile.h): the user's active extracted memories, placed in
// sections by slot or type, each line citing its memory.
#include "engram/profile.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <string_view>

#include "text/find.h"
#include "text/token_counter.h"

namespace engram {
namespace {

constexpr std::array<std::string_view, 9> kSections = {
    "identity", "work", "family", "health", "likes", "dislikes", "goals", "habits", "other"};

bool StartsWithAny(std::string_view s, std::initializer_list<std::string_view> prefixes) {
  for (std::string_view p : prefixes) {
    if (s.starts_with(p)) return true;
  }
  return false;
}

bool ContainsAny(std::string_view s, std::initializer_list<std::string_view> parts) {
  for (std::string_view p : parts) {
    if (ContainsText(s, p)) return true;
  }
  return false;
}

// A preference that says what the user does not want.
bool Negative(std::string_view content) {
  std::string low(content);
  for (char& c : low) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return ContainsAny(low, {"dislike", "hate", "doesn't like", "does not like", "don't like",
                           "can't stand", "cannot stand", "avoid", "not a fan"}) ||
         ContainsAny(content, {"不喜欢", "讨厌", "不爱", "受不了", "不吃", "不喝", "反感"});
}

// The section of a memory, or "" to leave it out.
std::string_view SectionOf(const MemoryItem& m) {
  const std::string& slot = m.slot;
  if (ContainsAny(slot, {"/allergy", "/health", "/medication", "/blood_type", "/diet"})) {
    return "health";
  }
  if (StartsWithAny(slot, {"user/name", "user/age", "user/birthday", "user/hometown",
                           "user/location", "user/language", "user/nationality", "user/contact",
                           "user/passport", "user/email", "user/phone", "user/gender"})) {
    return "identity";
  }
  if (StartsWithAny(slot, {"user/job", "user/employer", "user/work", "user/school", "user/major",
                           "user/grade", "user/skill"})) {
    return "work";
  }
  if (StartsWithAny(slot, {"user/family", "user/partner", "user/children", "user/pet",
                           "user/marital_status"})) {
    return "family";
  }
  if (StartsWithAny(slot, {"user/schedule", "user/routine", "user/habit"})) return "habits";
  if (StartsWithAny(slot, {"user/goal", "user/plan"})) return "goals";
  if (StartsWithAny(slot, {"user/likes", "user/favorite"})) {
    return Negative(m.content) ? "dislikes" : "likes";
  }
  // Someone else's slot ("女儿/name", "kevin/job"): the people in the user's life.
  if (!slot.empty() && !slot.starts_with("user/")) return "family";
  switch (m.type) {
    case MemoryType::kPreference:
      return Negative(m.content) ? "dislikes" : "likes";
    case MemoryType::kGoal:
      return "goals";
    case MemoryType::kSkill:
      return "work";
    case MemoryType::kFact:
    case MemoryType::kOpinion:
    case MemoryType::kDecision:
      return "other";
    default:
      return "";
  }
}

bool Eligible(const MemoryItem& m, const ProfileOptions& options) {
  if (IsKeptTurn(m) || m.expires_at || m.confidence < options.min_confidence) return false;
  switch (m.type) {
    case MemoryType::kFact:
    case MemoryType::kPreference:
    case MemoryType::kGoal:
    case MemoryType::kSkill:
    case MemoryType::kOpinion:
    case MemoryType::kDecision:
      return true;
    default:
      return false;
  }
}

}  // namespace

Status ValidateProfileOptions(const ProfileOptions& options) {
  if (options.max_lines_per_section < 1 || options.max_lines_per_section > 100) {
    return Status::InvalidArgument("max_lines_per_section must be 1..100");
  }
  if (!(options.min_confidence >= 0 && options.min_confidence <= 1)) {
    return Status::InvalidArgument("min_confidence must be 0..1");
  }
  return Status::Ok();
}

void ProfileBuilder::Add(const MemoryItem& m) {
  if (!Eligible(m, options_)) return;
  const std::string_view section = SectionOf(m);
  if (section.empty()) return;
  if (by_section_.empty()) by_section_.resize(kSections.size());
  const size_t k = static_cast<size_t>(std::find(kSections.begin(), kSections.end(), section) -
                                       kSections.begin());
  by_section_[k].push_back(
      ProfileLine{m.content, {m.id}, m.slot, m.type, m.importance, m.updated_at});
  inputs_updated_at_ = std::max(inputs_updated_at_, m.updated_at);
}

Profile ProfileBuilder::Finish() {
  Profile profile;
  profile.inputs_updated_at = inputs_updated_at_;
  for (size_t k = 0; k < by_section_.size(); ++k) {
    std::vector<ProfileLine>& lines = by_section_[k];
    if (lines.empty()) continue;
    // Ties (same importance and time) by id, so that one set of memories gives one profile
    // whatever order they were listed in (its fingerprint depends on it).
    std::sort(lines.begin(), lines.end(), [](const ProfileLine& a, const ProfileLine& b) {
      if (a.importance != b.importance) return a.importance > b.importance;
      if (a.updated_at != b.updated_at) return a.updated_at > b.updated_at;
      return a.item_ids < b.item_ids;
    });
    if (lines.size() > static_cast<size_t>(options_.max_lines_per_section)) {
      lines.resize(static_cast<size_t>(options_.max_lines_per_section));
    }
    profile.items += static_cast<int64_t>(lines.size());
    profile.sections.push_back(ProfileSection{std::string(kSections[k]), std::move(lines)});
  }
  by_section_.clear();
  inputs_updated_at_ = 0;
  return profile;
}

std::string ProfileFingerprint(const Profile& profile) {
  // FNV-1a over every line's section, ids, version and text: it only tells "the same lines" from
  // "changed", so it need not resist anyone crafting a collision (the worst a collision does is
  // keep a summary one run longer).
  uint64_t h = 1469598103934665603ull;
  auto mix = [&h](std::string_view s) {
    for (unsigned char c : s) {
      h ^= c;
      h *= 1099511628211ull;
    }
    h ^= 0xff;  // a separator no UTF-8 text contains
    h *= 1099511628211ull;
  };
  for (const ProfileSection& section : profile.sections) {
    mix(section.kind);
    for (const ProfileLine& line : section.lines) {
      for (const std::string& id : line.item_ids) mix(id);
      mix(std::to_string(line.updated_at));
      mix(line.text);
    }
  }
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
  return hex;
}

std::string ProfileText(const Profile& profile, int token_budget) {
  std::string header = "User profile:\n";
  if (profile.sections.empty() || CountTokens(header) >= token_budget) return "";
  if (profile.summary && profile.summary->current) {
    std::string summary = "Summary: " + profile.summary->text;
    std::replace(summary.begin(), summary.end(), '\n', ' ');
    // The summary only when it leaves room for lines: they are what it cites.
    if (CountTokens(header + summary + "\n") * 2 <= token_budget) header += summary + "\n";
  }
  // The most important lines first across sections, then printed in section order.
  struct Pick {
    size_t section, line;
    double importance;
  };
  std::vector<Pick> picks;
  for (size_t s = 0; s < profile.sections.size(); ++s) {
    for (size_t l = 0; l < profile.sections[s].lines.size(); ++l) {
      picks.push_back({s, l, profile.sections[s].lines[l].importance});
    }
  }
  std::stable_sort(picks.begin(), picks.end(),
                   [](const Pick& a, const Pick& b) { return a.importance > b.importance; });
  std::vector<std::vector<bool>> chosen(profile.sections.size());
  for (size_t s = 0; s < profile.sections.size(); ++s) {
    chosen[s].assign(profile.sections[s].lines.size(), false);
  }
  auto line_of = [&](size_t s, size_t l) {
    std::string text = profile.sections[s].lines[l].text;
    std::replace(text.begin(), text.end(), '\n', ' ');
    return "- " + profile.sections[s].kind + ": " + text + "\n";
  };
  int used = CountTokens(header);
  for (const Pick& p : picks) {
    const int cost = CountTokens(line_of(p.section, p.line));
    if (used + cost > token_budget) continue;
    used += cost;
    chosen[p.section][p.line] = true;
  }
  std::string out;
  for (size_t s = 0; s < profile.sections.size(); ++s) {
    for (size_t l = 0; l < chosen[s].size(); ++l) {
      if (chosen[s][l]) out += line_of(s, l);
    }
  }
  if (out.empty()) return "";
  out = header + out;
  // Token counts of parts need not add up exactly: drop the last lines until the whole fits.
  while (!out.empty() && CountTokens(out) > token_budget) {
    const size_t cut = out.rfind('\n', out.size() - 2);
    if (cut == std::string::npos || cut + 1 <= header.size()) return "";
    out.resize(cut + 1);
  }
  return out;
}

}  // namespace engram
