// Input checks for Engine calls: the queries here, the item rules in codec/item_validation.h
// (shared with the JSON Lines import). Every failure is InvalidArgument with a message that names
// the field and the rule, so a CLI or HTTP caller can show it as is.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "codec/item_validation.h"
#include "engram/engine.h"
#include "engram/memory.h"
#include "engram/status.h"

namespace engram {

inline constexpr int kMaxListLimit = 1000;

Status ValidateListQuery(const ListQuery& query);
// Text, k (1..100), weights, min_score, half-life and every filter.
Status ValidateSearchQuery(const SearchQuery& query, size_t max_text_bytes);

// The item limits EngineOptions configures.
inline ItemLimits LimitsOf(const EngineOptions& options) {
  return {.max_content_bytes = options.max_content_bytes,
          .max_metadata_bytes = options.max_metadata_bytes};
}

}  // namespace engram
