// Input checks for Engine calls. Every failure is InvalidArgument with a message that names the
// field and the rule, so a CLI or HTTP caller can show it as is.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "engram/engine.h"
#include "engram/memory.h"
#include "engram/status.h"

namespace engram {

inline constexpr size_t kMaxScopeFieldBytes = 256;
inline constexpr size_t kMaxListEntries = 64;
inline constexpr size_t kMaxListEntryBytes = 256;
inline constexpr int kMaxListLimit = 1000;

// tenant and user_id non-empty; all four fields UTF-8, no control characters, ≤ 256 bytes.
Status ValidateScope(const Scope& scope);
// Well-formed UTF-8 and at most max_bytes; `field` names it in the error.
Status ValidateText(std::string_view field, std::string_view text, size_t max_bytes);
// Entities / tags: at most 64 non-empty UTF-8 strings of at most 256 bytes.
Status ValidateStringList(std::string_view field, const std::vector<std::string>& list);
// A finite number in [0, 1].
Status ValidateUnit(std::string_view field, double value);
// Parses `text` as a JSON object (UTF-8, ≤ max_bytes) and returns its compact form.
Result<std::string> CanonicalMetadata(std::string_view text, size_t max_bytes);
Status ValidateId(std::string_view id);
Status ValidateListQuery(const ListQuery& query);
// Text, k (1..100), weights, min_score, half-life and every filter.
Status ValidateSearchQuery(const SearchQuery& query, size_t max_text_bytes);
// Every field of a stored item (for import): the rules above plus consistent times.
Status ValidateItem(const MemoryItem& item, const EngineOptions& options);

}  // namespace engram
