#include "engine/validation.h"

#include <cmath>

#include "core/status_macros.h"

namespace engram {
namespace {

Status Invalid(std::string_view field, std::string_view why) {
  return Status::InvalidArgument(std::string(field) + " " + std::string(why));
}

bool IsMetadataKey(std::string_view key) {
  if (key.empty() || key.size() > 128) return false;
  for (char c : key) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}

Status ValidateMetadataConditions(const std::vector<MetadataCondition>& conditions) {
  for (const MetadataCondition& c : conditions) {
    if (!IsMetadataKey(c.key)) {
      return Invalid("metadata filter key",
                     "'" + c.key + "' must be 1-128 characters of A-Z a-z 0-9 _ -");
    }
    if (const auto* s = std::get_if<std::string>(&c.value)) {
      ENGRAM_RETURN_IF_ERROR(ValidateText("metadata filter value", *s, kMaxListEntryBytes));
    }
    if (const auto* d = std::get_if<double>(&c.value); d && !std::isfinite(*d)) {
      return Invalid("metadata filter value", "must be a finite number");
    }
  }
  return Status::Ok();
}

Status ValidateFilters(const SearchFilters& f) {
  if (f.created_after && f.created_before && *f.created_after >= *f.created_before) {
    return Invalid("time range",
                   "is empty or inverted: created_after must be before created_before");
  }
  ENGRAM_RETURN_IF_ERROR(ValidateStringList("tags filter", f.tags));
  ENGRAM_RETURN_IF_ERROR(ValidateStringList("entities filter", f.entities));
  ENGRAM_RETURN_IF_ERROR(ValidateMetadataConditions(f.metadata));
  for (const SearchFilters::MetadataIn& in : f.metadata_in) {
    if (in.values.empty()) return Invalid("metadata 'in' filter", "needs at least one value");
    std::vector<MetadataCondition> each;
    for (const MetadataValue& v : in.values) each.push_back({in.key, v});
    ENGRAM_RETURN_IF_ERROR(ValidateMetadataConditions(each));
  }
  return Status::Ok();
}

Status ValidateWeight(std::string_view name, double w) {
  if (!std::isfinite(w) || w < 0 || w > 1) return Invalid(name, "must be between 0 and 1");
  return Status::Ok();
}

}  // namespace

Status ValidateListQuery(const ListQuery& q) {
  if (q.limit < 1 || q.limit > kMaxListLimit) {
    return Invalid("limit", "must be between 1 and " + std::to_string(kMaxListLimit) + ", got " +
                                std::to_string(q.limit));
  }
  if (q.created_after && q.created_before && *q.created_after >= *q.created_before) {
    return Invalid("time range",
                   "is empty or inverted: created_after must be before created_before");
  }
  ENGRAM_RETURN_IF_ERROR(ValidateStringList("tags filter", q.tags));
  ENGRAM_RETURN_IF_ERROR(ValidateText("slot filter", q.slot, kMaxListEntryBytes));
  ENGRAM_RETURN_IF_ERROR(ValidateText("slot family filter", q.slot_family, kMaxListEntryBytes));
  return ValidateMetadataConditions(q.metadata);
}

Status ValidateSearchQuery(const SearchQuery& q, size_t max_text_bytes) {
  ENGRAM_RETURN_IF_ERROR(ValidateText("query", q.text, max_text_bytes));
  if (q.text.find_first_not_of(" \t\r\n") == std::string::npos) {
    return Invalid("query", "must not be empty");
  }
  if (q.recent_turns.size() > 64) return Invalid("recent_turns", "at most 64 turns");
  for (const std::string& t : q.recent_turns) {
    ENGRAM_RETURN_IF_ERROR(ValidateText("recent turn", t, max_text_bytes));
  }
  if (q.k < 1 || q.k > 100)
    return Invalid("k", "must be between 1 and 100, got " + std::to_string(q.k));
  if (q.min_score) ENGRAM_RETURN_IF_ERROR(ValidateWeight("min_score", *q.min_score));
  ENGRAM_RETURN_IF_ERROR(ValidateWeight("relevance_weight", q.relevance_weight));
  ENGRAM_RETURN_IF_ERROR(ValidateWeight("importance_weight", q.importance_weight));
  ENGRAM_RETURN_IF_ERROR(ValidateWeight("recency_weight", q.recency_weight));
  ENGRAM_RETURN_IF_ERROR(ValidateWeight("keyword_weight", q.keyword_weight));
  ENGRAM_RETURN_IF_ERROR(ValidateWeight("mmr_lambda", q.mmr_lambda));
  ENGRAM_RETURN_IF_ERROR(ValidateWeight("context_weight", q.context_weight));
  ENGRAM_RETURN_IF_ERROR(ValidateWeight("session_weight", q.session_weight));
  ENGRAM_RETURN_IF_ERROR(ValidateWeight("turn_weight", q.turn_weight));
  ENGRAM_RETURN_IF_ERROR(ValidateWeight("time_weight", q.time_weight));
  ENGRAM_RETURN_IF_ERROR(ValidateWeight("cjk_character_weight", q.cjk_character_weight));
  ENGRAM_RETURN_IF_ERROR(ValidateWeight("recent_turn_weight", q.recent_turn_weight));
  ENGRAM_RETURN_IF_ERROR(ValidateWeight("mmr_similarity_floor", q.mmr_similarity_floor));
  ENGRAM_RETURN_IF_ERROR(ValidateWeight("graph_weight", q.graph_weight));
  if (q.graph_hops < 1 || q.graph_hops > 3) {
    return Invalid("graph_hops", "must be between 1 and 3, got " + std::to_string(q.graph_hops));
  }
  if (q.graph_max_nodes < 1 || q.graph_max_nodes > 1000) {
    return Invalid("graph_max_nodes",
                   "must be between 1 and 1000, got " + std::to_string(q.graph_max_nodes));
  }
  double sum = q.relevance_weight + q.importance_weight + q.recency_weight;
  if (std::fabs(sum - 1.0) > 1e-6) {
    return Invalid("weights",
                   "relevance, importance and recency must sum to 1, got " + std::to_string(sum));
  }
  if (!std::isfinite(q.recency_half_life_days) || q.recency_half_life_days <= 0) {
    return Invalid("recency_half_life_days", "must be positive");
  }
  return ValidateFilters(q.filters);
}

}  // namespace engram
