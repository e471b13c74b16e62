#include "codec/item_json.h"

#include <openssl/evp.h>

#include <cstring>
#include <set>

#include "codec/field_reader.h"
#include "core/status_macros.h"
#include "engram/clock.h"

namespace engram {
namespace {

using json = nlohmann::json;

json OptionalTime(const std::optional<TimestampMs>& t) {
  return t ? json(FormatTimestamp(*t)) : json(nullptr);
}

json EmptyAsNull(const std::string& s) { return s.empty() ? json(nullptr) : json(s); }

const std::set<std::string> kItemFields = {
    "id", "tenant", "user_id", "agent_id", "session_id", "tier", "type", "content",
    "entities", "tags", "metadata", "importance", "confidence", "source", "created_at",
    "updated_at", "valid_from", "valid_to", "last_accessed", "access_count", "status",
    "supersedes", "superseded_by", "embedding_model", "slot"};

}  // namespace

json SourceToJson(const Source& s) {
  return json{{"message_ids", s.message_ids},
              {"session_id", s.session_id},
              {"extractor", s.extractor},
              {"prompt_version", s.prompt_version}};
}

Result<Source> SourceFromJson(const json& j) {
  FieldReader r(j, "source");
  r.CheckKnown({"message_ids", "session_id", "extractor", "prompt_version"});
  Source s;
  r.StringList("message_ids", &s.message_ids);
  r.String("session_id", &s.session_id);
  r.String("extractor", &s.extractor);
  r.String("prompt_version", &s.prompt_version);
  if (!r.status().ok()) return r.status();
  return s;
}

json ItemToJson(const MemoryItem& m) {
  json metadata = json::parse(m.metadata, nullptr, /*allow_exceptions=*/false);
  if (metadata.is_discarded()) metadata = json::object();
  return json{{"id", m.id},
              {"tenant", m.scope.tenant},
              {"user_id", m.scope.user_id},
              {"agent_id", m.scope.agent_id},
              {"session_id", m.scope.session_id},
              {"tier", ToString(m.tier)},
              {"type", ToString(m.type)},
              {"content", m.content},
              {"entities", m.entities},
              {"tags", m.tags},
              {"metadata", std::move(metadata)},
              {"importance", m.importance},
              {"confidence", m.confidence},
              {"source", SourceToJson(m.source)},
              {"created_at", FormatTimestamp(m.created_at)},
              {"updated_at", FormatTimestamp(m.updated_at)},
              {"valid_from", FormatTimestamp(m.valid_from)},
              {"valid_to", OptionalTime(m.valid_to)},
              {"last_accessed", OptionalTime(m.last_accessed)},
              {"access_count", m.access_count},
              {"status", ToString(m.status)},
              {"supersedes", EmptyAsNull(m.supersedes)},
              {"superseded_by", EmptyAsNull(m.superseded_by)},
              {"embedding_model", m.embedding_model},
              {"slot", m.slot}};
}

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
    if (!md->is_object()) r.Fail("metadata", "must be a JSON object");
    else m.metadata = md->dump();
  }
  r.Number("importance", &m.importance);
  r.Number("confidence", &m.confidence);
  if (const json* src = r.Child("source")) {
    auto s = SourceFromJson(*src);
    if (s.ok()) m.source = std::move(s).value();
    else r.Absorb(s.status().WithContext("memory"));
  }
  r.Time("created_at", &m.created_at);
  m.updated_at = m.created_at;
  m.valid_from = m.created_at;
  r.Time("updated_at", &m.updated_at);
  r.Time("valid_from", &m.valid_from);
  r.OptTime("valid_to", &m.valid_to);
  r.OptTime("last_accessed", &m.last_accessed);
  r.Integer("access_count", &m.access_count);
  r.Enum("status", &m.status, &ParseItemStatus);
  r.String("supersedes", &m.supersedes);
  r.String("superseded_by", &m.superseded_by);
  r.String("embedding_model", &m.embedding_model);
  r.String("slot", &m.slot);
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
  r.CheckKnown({"seq", "item_id", "event", "old_content", "new_content", "previous", "reason",
                "at"});
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
    if (item.ok()) h.previous = std::move(item).value();
    else r.Absorb(item.status().WithContext("history entry 'previous'"));
  }
  r.String("reason", &h.reason);
  if (!r.Has("at")) r.Fail("at", "is required");
  r.Time("at", &h.at);
  if (!r.status().ok()) return r.status();
  return h;
}

namespace {
// Appends `s` as a JSON string literal. Written by hand because this runs for every stored
// item on the write path, where building an nlohmann::json value per field cost ~2 µs per item;
// the output is parsed back with nlohmann, and item_json_test checks the round trip.
void AppendJsonString(std::string* out, std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  out->push_back('"');
  for (char c : s) {
    switch (c) {
      case '"': out->append("\\\""); break;
      case '\\': out->append("\\\\"); break;
      case '\n': out->append("\\n"); break;
      case '\r': out->append("\\r"); break;
      case '\t': out->append("\\t"); break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          out->append("\\u00");
          out->push_back(kHex[(c >> 4) & 0xF]);
          out->push_back(kHex[c & 0xF]);
        } else {
          out->push_back(c);
        }
    }
  }
  out->push_back('"');
}

void AppendJsonStringList(std::string* out, const std::vector<std::string>& list) {
  out->push_back('[');
  for (size_t i = 0; i < list.size(); ++i) {
    if (i) out->push_back(',');
    AppendJsonString(out, list[i]);
  }
  out->push_back(']');
}
}  // namespace

std::string StringListToJsonText(const std::vector<std::string>& list) {
  if (list.empty()) return "[]";
  std::string out;
  AppendJsonStringList(&out, list);
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
  if (b64.size() % 4 != 0) return Status::InvalidArgument("vector base64 length is not a multiple of 4");
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
    for (int b = 0; b < 4; ++b) bits |= uint32_t{static_cast<unsigned char>(raw[i * 4 + b])} << (8 * b);
    std::memcpy(&v[i], &bits, sizeof bits);
  }
  return v;
}

}  // namespace engram
