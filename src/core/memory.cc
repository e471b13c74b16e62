#include "engram/memory.h"

#include <array>
#include <cctype>
#include <utility>

namespace engram {
namespace {

template <typename E, size_t N>
using NameTable = std::array<std::pair<E, std::string_view>, N>;

constexpr NameTable<Tier, 4> kTierNames{{{Tier::kWorking, "working"},
                                         {Tier::kEpisodic, "episodic"},
                                         {Tier::kSemantic, "semantic"},
                                         {Tier::kKnowledge, "knowledge"}}};

constexpr NameTable<MemoryType, 12> kTypeNames{{{MemoryType::kFact, "fact"},
                                                {MemoryType::kPreference, "preference"},
                                                {MemoryType::kGoal, "goal"},
                                                {MemoryType::kEvent, "event"},
                                                {MemoryType::kSummary, "summary"},
                                                {MemoryType::kSkill, "skill"},
                                                {MemoryType::kKnowledge, "knowledge"},
                                                {MemoryType::kProfile, "profile"},
                                                {MemoryType::kMessage, "message"},
                                                {MemoryType::kOpinion, "opinion"},
                                                {MemoryType::kDecision, "decision"},
                                                {MemoryType::kCommitment, "commitment"}}};

constexpr NameTable<ItemStatus, 4> kStatusNames{{{ItemStatus::kActive, "active"},
                                                 {ItemStatus::kSuperseded, "superseded"},
                                                 {ItemStatus::kArchived, "archived"},
                                                 {ItemStatus::kDeleted, "deleted"}}};

constexpr NameTable<HistoryEvent, 5> kEventNames{{{HistoryEvent::kAdd, "ADD"},
                                                  {HistoryEvent::kUpdate, "UPDATE"},
                                                  {HistoryEvent::kSupersede, "SUPERSEDE"},
                                                  {HistoryEvent::kDelete, "DELETE"},
                                                  {HistoryEvent::kMerge, "MERGE"}}};

template <typename E, size_t N>
std::string_view NameOf(const NameTable<E, N>& table, E value) {
  for (const auto& [e, name] : table) {
    if (e == value) return name;
  }
  return "unknown";
}

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i]))) {
      return false;
    }
  }
  return true;
}

template <typename E, size_t N>
Result<E> ParseName(const NameTable<E, N>& table, std::string_view s, std::string_view what) {
  std::string accepted;
  for (const auto& [e, name] : table) {
    if (EqualsIgnoreCase(name, s)) return e;
    if (!accepted.empty()) accepted += ", ";
    accepted += name;
  }
  return Status::InvalidArgument("unknown " + std::string(what) + " '" + std::string(s) +
                                 "' (expected one of: " + accepted + ")");
}

}  // namespace

std::string_view ToString(Tier tier) { return NameOf(kTierNames, tier); }
std::string_view ToString(MemoryType type) { return NameOf(kTypeNames, type); }
std::string_view ToString(ItemStatus status) { return NameOf(kStatusNames, status); }
std::string_view ToString(HistoryEvent event) { return NameOf(kEventNames, event); }

Result<Tier> ParseTier(std::string_view s) { return ParseName(kTierNames, s, "tier"); }
Result<MemoryType> ParseMemoryType(std::string_view s) { return ParseName(kTypeNames, s, "type"); }
Result<ItemStatus> ParseItemStatus(std::string_view s) {
  return ParseName(kStatusNames, s, "status");
}
Result<HistoryEvent> ParseHistoryEvent(std::string_view s) {
  return ParseName(kEventNames, s, "history event");
}

Tier DefaultTierFor(MemoryType type) {
  switch (type) {
    case MemoryType::kEvent:
    case MemoryType::kSummary:
    case MemoryType::kMessage:
      return Tier::kEpisodic;
    case MemoryType::kKnowledge:
      return Tier::kKnowledge;
    default:
      return Tier::kSemantic;
  }
}

}  // namespace engram
