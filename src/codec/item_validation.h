// The field rules of a memory item: what the engine checks before it stores one and what an
// import checks for each record it reads. Lives below both (the engine validates calls, the
// JSON Lines import validates files) so neither has to reach into the other. Every failure is
// InvalidArgument with a message that names the field and the rule, so a CLI or HTTP caller can
// show it as is. Stateless and thread-safe.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "engram/memory.h"
#include "engram/status.h"

namespace engram {

inline constexpr size_t kMaxScopeFieldBytes = 256;
inline constexpr size_t kMaxListEntries = 64;
inline constexpr size_t kMaxListEntryBytes = 256;

// The size limits an item is held to (EngineOptions carries the configured values).
struct ItemLimits {
  size_t max_content_bytes = 0;
  size_t max_metadata_bytes = 0;
};

// tenant and user_id non-empty; all four fields UTF-8, no control characters, ≤ 256 bytes.
Status ValidateScope(const Scope& scope);
// Well-formed UTF-8 and at most max_bytes; `field` names it in the error.
Status ValidateText(std::string_view field, std::string_view text, size_t max_bytes);
// Entities / tags: at most 64 non-empty UTF-8 strings of at most 256 bytes.
Status ValidateStringList(std::string_view field, const std::vector<std::string>& list);
// A finite number in [0, 1].
Status ValidateUnit(std::string_view field, double value);
// Parses `text` as a JSON object (UTF-8, ≤ max_bytes, each top-level key 1..256 bytes) and
// returns its compact form.
Result<std::string> CanonicalMetadata(std::string_view text, size_t max_bytes);
Status ValidateId(std::string_view id);
// Every field of a stored item (for import): the rules above plus consistent times.
Status ValidateItem(const MemoryItem& item, const ItemLimits& limits);

}  // namespace engram
