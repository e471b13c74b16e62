#include "engine/validation.h"

#include <nlohmann/json.hpp>

#include <cmath>

#include "core/id_generator.h"
#include "core/status_macros.h"
#include "text/utf8.h"

namespace engram {
namespace {

Status Invalid(std::string_view field, std::string_view why) {
  return Status::InvalidArgument(std::string(field) + " " + std::string(why));
}

bool HasControlChar(std::string_view s) {
  for (unsigned char c : s) {
    if (c < 0x20 || c == 0x7F) return true;
  }
  return false;
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

}  // namespace

Status ValidateText(std::string_view field, std::string_view text, size_t max_bytes) {
  size_t bad = 0;
  if (!IsValidUtf8(text, &bad)) {
    return Invalid(field, "is not valid UTF-8 (first bad byte at offset " + std::to_string(bad) + ")");
  }
  if (text.size() > max_bytes) {
    return Invalid(field, "is " + std::to_string(text.size()) + " bytes, over the limit of " +
                              std::to_string(max_bytes));
  }
  return Status::Ok();
}

Status ValidateScope(const Scope& scope) {
  const std::pair<std::string_view, const std::string*> fields[] = {
      {"tenant", &scope.tenant}, {"user_id", &scope.user_id},
      {"agent_id", &scope.agent_id}, {"session_id", &scope.session_id}};
  for (const auto& [name, value] : fields) {
    ENGRAM_RETURN_IF_ERROR(ValidateText(name, *value, kMaxScopeFieldBytes));
    if (HasControlChar(*value)) return Invalid(name, "contains a control character");
  }
  if (scope.tenant.empty()) return Invalid("tenant", "must not be empty");
  if (scope.user_id.empty()) return Invalid("user_id", "must not be empty");
  return Status::Ok();
}

Status ValidateStringList(std::string_view field, const std::vector<std::string>& list) {
  if (list.size() > kMaxListEntries) {
    return Invalid(field, "has " + std::to_string(list.size()) + " entries, over the limit of " +
                              std::to_string(kMaxListEntries));
  }
  for (const std::string& s : list) {
    ENGRAM_RETURN_IF_ERROR(ValidateText(field, s, kMaxListEntryBytes));
    if (s.empty()) return Invalid(field, "must not contain empty strings");
  }
  return Status::Ok();
}

Status ValidateUnit(std::string_view field, double value) {
  if (!std::isfinite(value) || value < 0.0 || value > 1.0) {
    return Invalid(field, "must be between 0 and 1, got " + std::to_string(value));
  }
  return Status::Ok();
}

Result<std::string> CanonicalMetadata(std::string_view text, size_t max_bytes) {
  ENGRAM_RETURN_IF_ERROR(ValidateText("metadata", text, max_bytes));
  if (text.empty() || text == "{}") return std::string("{}");
  auto j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return Invalid("metadata", "is not valid JSON");
  if (!j.is_object()) return Invalid("metadata", "must be a JSON object");
  return j.dump();
}

Status ValidateId(std::string_view id) {
  if (!IsValidId(id)) {
    return Invalid("id", "'" + std::string(id.substr(0, 64)) +
                             "' is not a valid memory id (1-128 characters of A-Z a-z 0-9 - _ . :)");
  }
  return Status::Ok();
}

Status ValidateListQuery(const ListQuery& q) {
  if (q.limit < 1 || q.limit > kMaxListLimit) {
    return Invalid("limit", "must be between 1 and " + std::to_string(kMaxListLimit) + ", got " +
                                std::to_string(q.limit));
  }
  if (q.created_after && q.created_before && *q.created_after >= *q.created_before) {
    return Invalid("time range", "is empty or inverted: created_after must be before created_before");
  }
  ENGRAM_RETURN_IF_ERROR(ValidateStringList("tags filter", q.tags));
  ENGRAM_RETURN_IF_ERROR(ValidateText("slot filter", q.slot, kMaxListEntryBytes));
  ENGRAM_RETURN_IF_ERROR(ValidateText("slot family filter", q.slot_family, kMaxListEntryBytes));
  for (const MetadataCondition& c : q.metadata) {
    if (!IsMetadataKey(c.key)) {
      return Invalid("metadata filter key", "'" + c.key + "' must be 1-128 characters of A-Z a-z 0-9 _ -");
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

Status ValidateItem(const MemoryItem& m, const EngineOptions& options) {
  ENGRAM_RETURN_IF_ERROR(ValidateId(m.id));
  ENGRAM_RETURN_IF_ERROR(ValidateScope(m.scope));
  ENGRAM_RETURN_IF_ERROR(ValidateText("content", m.content, options.max_content_bytes));
  if (m.content.empty()) return Invalid("content", "must not be empty");
  ENGRAM_RETURN_IF_ERROR(ValidateStringList("entities", m.entities));
  ENGRAM_RETURN_IF_ERROR(ValidateStringList("tags", m.tags));
  ENGRAM_RETURN_IF_ERROR(CanonicalMetadata(m.metadata, options.max_metadata_bytes).status());
  ENGRAM_RETURN_IF_ERROR(ValidateUnit("importance", m.importance));
  ENGRAM_RETURN_IF_ERROR(ValidateUnit("confidence", m.confidence));
  ENGRAM_RETURN_IF_ERROR(ValidateStringList("source.message_ids", m.source.message_ids));
  for (const std::string* s : {&m.source.session_id, &m.source.extractor, &m.source.prompt_version,
                               &m.embedding_model}) {
    ENGRAM_RETURN_IF_ERROR(ValidateText("source", *s, kMaxListEntryBytes));
  }
  ENGRAM_RETURN_IF_ERROR(ValidateText("slot", m.slot, kMaxListEntryBytes));
  if (!m.supersedes.empty()) ENGRAM_RETURN_IF_ERROR(ValidateId(m.supersedes));
  if (!m.superseded_by.empty()) ENGRAM_RETURN_IF_ERROR(ValidateId(m.superseded_by));
  if (m.access_count < 0) return Invalid("access_count", "must not be negative");
  if (m.valid_to && *m.valid_to < m.valid_from) {
    return Invalid("valid_to", "must not be before valid_from");
  }
  return Status::Ok();
}

namespace {

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
    return Invalid("time range", "is empty or inverted: created_after must be before created_before");
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

Status ValidateSearchQuery(const SearchQuery& q, size_t max_text_bytes) {
  ENGRAM_RETURN_IF_ERROR(ValidateText("query", q.text, max_text_bytes));
  if (q.text.find_first_not_of(" \t\r\n") == std::string::npos) {
    return Invalid("query", "must not be empty");
  }
  if (q.recent_turns.size() > 64) return Invalid("recent_turns", "at most 64 turns");
  for (const std::string& t : q.recent_turns) {
    ENGRAM_RETURN_IF_ERROR(ValidateText("recent turn", t, max_text_bytes));
  }
  if (q.k < 1 || q.k > 100) return Invalid("k", "must be between 1 and 100, got " + std::to_string(q.k));
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
  double sum = q.relevance_weight + q.importance_weight + q.recency_weight;
  if (std::fabs(sum - 1.0) > 1e-6) {
    return Invalid("weights", "relevance, importance and recency must sum to 1, got " +
                                  std::to_string(sum));
  }
  if (!std::isfinite(q.recency_half_life_days) || q.recency_half_life_days <= 0) {
    return Invalid("recency_half_life_days", "must be positive");
  }
  return ValidateFilters(q.filters);
}

}  // namespace engram
