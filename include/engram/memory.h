// The memory model: scopes, tiers, types, items and their history (see docs/architecture.md).
//
// These are plain value types with no behaviour beyond string conversion; they are safe to copy
// between threads. Times are milliseconds since the Unix epoch, UTC (TimestampMs).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "engram/status.h"

namespace engram {

using TimestampMs = int64_t;

// Who a memory belongs to. tenant + user_id is the isolation boundary: no operation scoped to
// one (tenant, user_id) pair can read or change another pair's rows. agent_id and session_id
// are recorded on every item and, when set on a read scope, narrow results to that agent or
// session within the user.
struct Scope {
  std::string tenant = "default";
  std::string user_id;
  std::string agent_id;    // empty: any agent
  std::string session_id;  // empty: any session

  bool operator==(const Scope&) const = default;
};

// Where a memory lives (product.md, "Memory tiers").
enum class Tier { kWorking, kEpisodic, kSemantic, kKnowledge };

// opinion: what the user thinks of something; decision: a choice made ("we chose B-trees");
// commitment: something promised or undertaken ("I'll send it by Friday"). Appended after
// kMessage so the numbering of the earlier types never changes.
enum class MemoryType {
  kFact,
  kPreference,
  kGoal,
  kEvent,
  kSummary,
  kSkill,
  kKnowledge,
  kProfile,
  kMessage,
  kOpinion,
  kDecision,
  kCommitment
};

enum class ItemStatus { kActive, kSuperseded, kArchived, kDeleted };

enum class HistoryEvent { kAdd, kUpdate, kSupersede, kDelete, kMerge };

std::string_view ToString(Tier tier);
std::string_view ToString(MemoryType type);
std::string_view ToString(ItemStatus status);
std::string_view ToString(HistoryEvent event);

// Parse the lower-case names above ("semantic", "preference", "superseded"; history events
// also accept upper case "ADD"). InvalidArgument lists the accepted names.
Result<Tier> ParseTier(std::string_view s);
Result<MemoryType> ParseMemoryType(std::string_view s);
Result<ItemStatus> ParseItemStatus(std::string_view s);
Result<HistoryEvent> ParseHistoryEvent(std::string_view s);

// The tier a type settles in when the caller does not name one.
Tier DefaultTierFor(MemoryType type);

// What produced a memory: the messages it came from and the extractor that read them.
struct Source {
  std::vector<std::string> message_ids;
  std::string session_id;
  std::string extractor;       // e.g. "manual", "rules-v2", "llm:gpt-4o-mini", "turn"
  std::string prompt_version;  // empty unless an LLM prompt produced the item
  // Who said it ("user", or a speaker's name): set on kept conversation turns.
  std::string role;
  // The kept conversation turns (their item ids) an extracted item came from; a repeat of a
  // known fact adds the repeating turn. Empty for items not extracted from kept turns.
  std::vector<std::string> turn_ids;

  bool operator==(const Source&) const = default;
};

struct MemoryItem {
  std::string id;
  Scope scope;
  Tier tier = Tier::kSemantic;
  MemoryType type = MemoryType::kFact;
  std::string content;
  std::vector<std::string> entities;
  std::vector<std::string> tags;
  std::string metadata = "{}";  // a JSON object, serialized compactly
  double importance = 0.5;      // 0..1
  double confidence = 1.0;      // 0..1
  Source source;
  TimestampMs created_at = 0;
  TimestampMs updated_at = 0;
  TimestampMs valid_from = 0;                // when the fact began to hold in the world
  std::optional<TimestampMs> valid_to;       // when it stopped holding; empty while it holds
  std::optional<TimestampMs> last_accessed;  // empty until first returned by a read
  int64_t access_count = 0;
  ItemStatus status = ItemStatus::kActive;
  std::string supersedes;       // id of the item this one replaced, or empty
  std::string superseded_by;    // id of the item that replaced this one, or empty
  std::string embedding_model;  // model of the stored vector, or empty when none
  // Subject + attribute the item states a value of ("user/location"), set by extraction;
  // the write path compares a new candidate with the active items of the same slot. Empty
  // for items that fill no slot (events, free text, items added as given).
  std::string slot;
  // A kept conversation turn (IsKeptTurn): the items extracted from it, or reinforced or
  // replaced by what it said, in the order written. Empty on every other item.
  std::vector<std::string> derived_ids;
  // When the item stops being worth recalling ("today I want noodles": the end of that day);
  // empty: never. An expired item leaves search at once; maintenance archives it.
  std::optional<TimestampMs> expires_at;

  bool operator==(const MemoryItem&) const = default;
};

// The extractor name of conversation turns the write path keeps as episodic items.
inline constexpr std::string_view kTurnExtractor = "turn";
// True for a conversation turn kept by the write path (an episodic `message` item whose source
// extractor is kTurnExtractor), as opposed to a memory extracted from it or stored as given.
inline bool IsKeptTurn(const MemoryItem& item) {
  return item.type == MemoryType::kMessage && item.source.extractor == kTurnExtractor;
}

// One recorded change of an item. `previous` is the full item as it was before the change
// (absent for ADD); new_content is the content after the change (absent for DELETE).
struct HistoryEntry {
  int64_t seq = 0;  // increasing per database; orders the history
  std::string item_id;
  HistoryEvent event = HistoryEvent::kAdd;
  std::optional<std::string> old_content;
  std::optional<std::string> new_content;
  std::optional<MemoryItem> previous;
  std::string reason;
  TimestampMs at = 0;

  bool operator==(const HistoryEntry&) const = default;
};

// A JSON scalar to compare a metadata value with (filters of List and Search).
using MetadataValue = std::variant<std::nullptr_t, bool, int64_t, double, std::string>;

struct MetadataCondition {
  std::string key;  // a top-level metadata key: letters, digits, '_', '-'
  MetadataValue value;
};

}  // namespace engram
