#include "codec/item_json.h"

#include <openssl/evp.h>

#include <cstring>
#include <set>

#include "codec/field_reader.h"
#include "codec/json_text.h"
#include "core/status_macros.h"
#include "engram/clock.h"

namespace engram {
namespace {

using json = nlohmann::json;

const std::set<std::string> kItemFields = {
    "id",          "tenant",     "user_id",       "agent_id",        "session_id",
    "tier",        "type",       "content",       "entities",        "tags",
    "metadata",    "importance", "confidence",    "source",          "created_at",
    "updated_at",  "valid_from", "valid_to",      "last_accessed",   "access_count",
    "status",      "supersedes", "superseded_by", "embedding_model", "slot",
    "derived_ids", "expires_at"};

}  // namespace

Result<Source> SourceFromJson(const json& j) {
  FieldReader r(j, "source");
  r.CheckKnown({"message_ids", "session_id", "extractor", "prompt_version", "role", "turn_ids"});
  Source s;
  r.StringList("message_ids", &s.message_ids);
  r.String("session_id", &s.session_id);
  r.String("extractor", &s.extractor);
  r.String("prompt_version", &s.prompt_version);
  r.String("role", &s.role);
  r.StringList("turn_ids", &s.turn_ids);
  if (!r.status().ok()) return r.status();
  return s;
}

namespace {

void AppendOptionalTime(std::string* out, const std::optional<TimestampMs>& t) {
  if (t)
    json_text::AppendTimestamp(out, *t);
  else
    out->append("null");
}

void AppendEmptyAsNull(std::string* out, const std::string& s) {
  if (s.empty())
    out->append("null");
  else
    json_text::AppendString(out, s);
}

// Stored metadata is the compact dump of a validated object; anything unreadable shows as {}.
void AppendMetadata(std::string* out, const std::string& text) {
  if (text.empty() || text == "{}") {
    out->append("{}");
    return;
  }
  json metadata = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (metadata.is_discarded()) metadata = json::object();
  out->append(metadata.dump(-1, ' ', false, json::error_handler_t::replace));
}

void AppendSourceJson(std::string* out, const Source& s) {
  json_text::Object o(out);
  json_text::AppendString(o.Key("extractor"), s.extractor);
  json_text::AppendStringList(o.Key("message_ids"), s.message_ids);
  json_text::AppendString(o.Key("prompt_version"), s.prompt_version);
  json_text::AppendString(o.Key("role"), s.role);
  json_text::AppendString(o.Key("session_id"), s.session_id);
  json_text::AppendStringList(o.Key("turn_ids"), s.turn_ids);
  o.Close();
}

}  // namespace

// Keys in alphabetical order, the order nlohmann::json keeps them in.
void AppendItemJson(std::string* out, const MemoryItem& m) {
  using json_text::AppendString;
  json_text::Object o(out);
  json_text::AppendInt(o.Key("access_count"), m.access_count);
  AppendString(o.Key("agent_id"), m.scope.agent_id);
  json_text::AppendDouble(o.Key("confidence"), m.confidence);
  AppendString(o.Key("content"), m.content);
  json_text::AppendTimestamp(o.Key("created_at"), m.created_at);
  json_text::AppendStringList(o.Key("derived_ids"), m.derived_ids);
  AppendString(o.Key("embedding_model"), m.embedding_model);
  json_text::AppendStringList(o.Key("entities"), m.entities);
  AppendOptionalTime(o.Key("expires_at"), m.expires_at);
  AppendString(o.Key("id"), m.id);
  json_text::AppendDouble(o.Key("importance"), m.importance);
  AppendOptionalTime(o.Key("last_accessed"), m.last_accessed);
  AppendMetadata(o.Key("metadata"), m.metadata);
  AppendString(o.Key("session_id"), m.scope.session_id);
  AppendString(o.Key("slot"), m.slot);
  AppendSourceJson(o.Key("source"), m.source);
  AppendString(o.Key("status"), ToString(m.status));
  AppendEmptyAsNull(o.Key("superseded_by"), m.superseded_by);
  AppendEmptyAsNull(o.Key("supersedes"), m.supersedes);
  json_text::AppendStringList(o.Key("tags"), m.tags);
  AppendString(o.Key("tenant"), m.scope.tenant);
  AppendString(o.Key("tier"), ToString(m.tier));
  AppendString(o.Key("type"), ToString(m.type));
  json_text::AppendTimestamp(o.Key("updated_at"), m.updated_at);
  AppendString(o.Key("user_id"), m.scope.user_id);
  json_text::AppendTimestamp(o.Key("valid_from"), m.valid_from);
  AppendOptionalTime(o.Key("valid_to"), m.valid_to);
  o.Close();
}

std::string ItemJsonText(const MemoryItem& item) {
  std::string out;
  out.reserve(512 + item.content.size());
  AppendItemJson(&out, item);
  return out;
}

json ItemToJson(const MemoryItem& item) { return json::parse(ItemJsonText(item)); }

Result<MemoryItem> ItemFromJson(const json& j) {
  FieldReader r(j, "memory");
  r.CheckKnown(kItemFields);
  MemoryItem m;
  r.String("id", &m.id, /*required=*/true);
  r.String("tenant", &m.scope.tenant);
  r.String("user_id", &m.scope.user_id, /*required=*/true);
  r.String("agent_id", &m.scope.agent_id);
  r.String("session_id", &m.scope.session_id);
  r.Enum("type", &m.type, &ParseMemoryType);
  m.tier = DefaultTierFor(m.type);
  r.Enum("tier", &m.tier, &ParseTier);
  r.String("content", &m.content, /*required=*/true);
  r.StringList("entities", &m.entities);
  r.StringList("tags", &m.tags);
  if (const json* md = r.Child("metadata")) {
    if (!md->is_object())
      r.Fail("metadata", "must be a JSON object");
    else
      m.metadata = md->dump();
  }
  r.Number("importance", &m.importance);
  r.Number("confidence", &m.confidence);
  if (const json* src = r.Child("source")) {
    auto s = SourceFromJson(*src);
    if (s.ok())
      m.source = std::move(s).value();
    else
      r.Absorb(s.status().WithContext("memory"));
  }
  r.Time("created_at", &m.created_at);
  m.updated_at = m.created_at;
  m.valid_from = m.created_at;
  r.Time("updated_at", &m.updated_at);
  r.Time("valid_from", &m.valid_from);
  r.OptTime("valid_to", &m.valid_to);
  r.OptTime("expires_at", &m.expires_at);
  r.OptTime("last_accessed", &m.last_accessed);
  r.Integer("access_count", &m.access_count);
  r.Enum("status", &m.status, &ParseItemStatus);
  r.String("supersedes", &m.supersedes);
  r.String("superseded_by", &m.superseded_by);
  r.String("embedding_model", &m.embedding_model);
  r.String("slot", &m.slot);
  r.StringList("derived_ids", &m.derived_ids);
  if (!r.status().ok()) return r.status();
  return m;
}

json HistoryToJson(const HistoryEntry& h) {
  auto opt = [](const std::optional<std::string>& s) { return s ? json(*s) : json(nullptr); };
  return json{{"seq", h.seq},
              {"item_id", h.item_id},
              {"event", ToString(h.event)},
              {"old_content", opt(h.old_content)},
              {"new_content", opt(h.new_content)},
              {"previous", h.previous ? ItemToJson(*h.previous) : json(nullptr)},
              {"reason", h.reason},
              {"at", FormatTimestamp(h.at)}};
}

Result<HistoryEntry> HistoryFromJson(const json& j) {
  FieldReader r(j, "history entry");
  r.CheckKnown(
      {"seq", "item_id", "event", "old_content", "new_content", "previous", "reason", "at"});
  HistoryEntry h;
  r.Integer("seq", &h.seq);
  r.String("item_id", &h.item_id, /*required=*/true);
  if (!r.Has("event")) r.Fail("event", "is required");
  r.Enum("event", &h.event, &ParseHistoryEvent);
  if (r.Has("old_content")) {
    h.old_content.emplace();
    r.String("old_content", &*h.old_content);
  }
  if (r.Has("new_content")) {
    h.new_content.emplace();
    r.String("new_content", &*h.new_content);
  }
  if (const json* prev = r.Child("previous")) {
    auto item = ItemFromJson(*prev);
    if (item.ok())
      h.previous = std::move(item).value();
    else
      r.Absorb(item.status().WithContext("history entry 'previous'"));
  }
  r.String("reason", &h.reason);
  if (!r.Has("at")) r.Fail("at", "is required");
  r.Time("at", &h.at);
  if (!r.status().ok()) return r.status();
  return h;
}

std::string StringListToJsonText(const std::vector<std::string>& list) {
  if (list.empty()) return "[]";
  std::string out;
  json_text::AppendStringList(&out, list);
  return out;
}

namespace {
// Fast path for the common stored form: ["a","b"] with no escapes. Returns false to defer to
// the full JSON parser.
bool ParseSimpleStringList(std::string_view text, std::vector<std::string>* out) {
  if (text.size() < 2 || text.front() != '[' || text.back() != ']') return false;
  if (text.find('\\') != std::string_view::npos) return false;
  size_t i = 1;
  while (i < text.size() - 1) {
    if (text[i] != '"') return false;
    size_t end = text.find('"', i + 1);
    if (end == std::string_view::npos || end >= text.size() - 1) return false;
    out->emplace_back(text.substr(i + 1, end - i - 1));
    i = end + 1;
    if (text[i] == ',') {
      ++i;
    } else if (i != text.size() - 1) {
      return false;
    }
  }
  return true;
}
}  // namespace

Result<std::vector<std::string>> StringListFromJsonText(std::string_view text) {
  if (text == "[]" || text.empty()) return std::vector<std::string>{};
  std::vector<std::string> simple;
  if (ParseSimpleStringList(text, &simple)) return simple;
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!j.is_array()) return Status::Corruption("stored list is not a JSON array");
  std::vector<std::string> out;
  out.reserve(j.size());
  for (const json& e : j) {
    if (!e.is_string()) return Status::Corruption("stored list holds a non-string");
    out.push_back(e.get<std::string>());
  }
  return out;
}

std::string EncodeVectorBase64(const std::vector<float>& v) {
  std::string raw(v.size() * sizeof(float), '\0');
  for (size_t i = 0; i < v.size(); ++i) {
    uint32_t bits;
    std::memcpy(&bits, &v[i], sizeof bits);
    for (int b = 0; b < 4; ++b) raw[i * 4 + b] = static_cast<char>((bits >> (8 * b)) & 0xFF);
  }
  std::string out(4 * ((raw.size() + 2) / 3), '\0');
  int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                          reinterpret_cast<const unsigned char*>(raw.data()),
                          static_cast<int>(raw.size()));
  out.resize(static_cast<size_t>(n));
  return out;
}

Result<std::vector<float>> DecodeVectorBase64(std::string_view b64) {
  if (b64.size() % 4 != 0)
    return Status::InvalidArgument("vector base64 length is not a multiple of 4");
  std::string raw(b64.size() / 4 * 3, '\0');
  int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(raw.data()),
                          reinterpret_cast<const unsigned char*>(b64.data()),
                          static_cast<int>(b64.size()));
  if (n < 0) return Status::InvalidArgument("vector is not valid base64");
  size_t pad = 0;
  if (!b64.empty() && b64.back() == '=') ++pad;
  if (b64.size() >= 2 && b64[b64.size() - 2] == '=') ++pad;
  size_t bytes = static_cast<size_t>(n) - pad;
  if (bytes % 4 != 0) return Status::InvalidArgument("vector byte length is not a multiple of 4");
  std::vector<float> v(bytes / 4);
  for (size_t i = 0; i < v.size(); ++i) {
    uint32_t bits = 0;
    for (int b = 0; b < 4; ++b)
      bits |= uint32_t{static_cast<unsigned char>(raw[i * 4 + b])} << (8 * b);
    std::memcpy(&v[i], &bits, sizeof bits);
  }
  return v;
}

}  // namespace engram
