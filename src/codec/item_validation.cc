#include "codec/item_validation.h"

#include <cmath>
#include <nlohmann/json.hpp>

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

}  // namespace

Status ValidateText(std::string_view field, std::string_view text, size_t max_bytes) {
  size_t bad = 0;
  if (!IsValidUtf8(text, &bad)) {
    return Invalid(field,
                   "is not valid UTF-8 (first bad byte at offset " + std::to_string(bad) + ")");
  }
  if (text.size() > max_bytes) {
    return Invalid(field, "is " + std::to_string(text.size()) + " bytes, over the limit of " +
                              std::to_string(max_bytes));
  }
  return Status::Ok();
}

Status ValidateScope(const Scope& scope) {
  const std::pair<std::string_view, const std::string*> fields[] = {
      {"tenant", &scope.tenant},
      {"user_id", &scope.user_id},
      {"agent_id", &scope.agent_id},
      {"session_id", &scope.session_id}};
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
  for (const auto& [key, value] : j.items()) {
    if (key.empty() || key.size() > kMaxListEntryBytes) {
      return Invalid("metadata", "key '" + key.substr(0, 64) + (key.size() > 64 ? "…" : "") +
                                     "' must be 1.." + std::to_string(kMaxListEntryBytes) +
                                     " bytes");
    }
  }
  return j.dump();
}

Status ValidateId(std::string_view id) {
  if (!IsValidId(id)) {
    return Invalid("id",
                   "'" + std::string(id.substr(0, 64)) +
                       "' is not a valid memory id (1-128 characters of A-Z a-z 0-9 - _ . :)");
  }
  return Status::Ok();
}

Status ValidateItem(const MemoryItem& m, const ItemLimits& limits) {
  ENGRAM_RETURN_IF_ERROR(ValidateId(m.id));
  ENGRAM_RETURN_IF_ERROR(ValidateScope(m.scope));
  ENGRAM_RETURN_IF_ERROR(ValidateText("content", m.content, limits.max_content_bytes));
  if (m.content.empty()) return Invalid("content", "must not be empty");
  ENGRAM_RETURN_IF_ERROR(ValidateStringList("entities", m.entities));
  ENGRAM_RETURN_IF_ERROR(ValidateStringList("tags", m.tags));
  ENGRAM_RETURN_IF_ERROR(CanonicalMetadata(m.metadata, limits.max_metadata_bytes).status());
  ENGRAM_RETURN_IF_ERROR(ValidateUnit("importance", m.importance));
  ENGRAM_RETURN_IF_ERROR(ValidateUnit("confidence", m.confidence));
  ENGRAM_RETURN_IF_ERROR(ValidateStringList("source.message_ids", m.source.message_ids));
  for (const std::string* s :
       {&m.source.session_id, &m.source.extractor, &m.source.prompt_version, &m.embedding_model}) {
    ENGRAM_RETURN_IF_ERROR(ValidateText("source", *s, kMaxListEntryBytes));
  }
  ENGRAM_RETURN_IF_ERROR(ValidateText("slot", m.slot, kMaxListEntryBytes));
  if (!m.supersedes.empty()) ENGRAM_RETURN_IF_ERROR(ValidateId(m.supersedes));
  if (!m.superseded_by.empty()) ENGRAM_RETURN_IF_ERROR(ValidateId(m.superseded_by));
  if (m.access_count < 0) return Invalid("access_count", "must not be negative");
  if (m.valid_to && *m.valid_to < m.valid_from) {
    return Invalid("valid_to", "must not be before valid_from");
  }
  if (m.expires_at && *m.expires_at <= m.created_at) {
    return Invalid("expires_at", "must be after created_at");
  }
  return Status::Ok();
}

}  // namespace engram
