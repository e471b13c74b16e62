// libFuzzer target over everything that decodes outside JSON or query strings into native
// structs: the v1 API's request decoders (src/api/requests.h) and the import decoders of
// memory items and history entries (src/codec/item_json.h). README.md beside this file says
// how to run it.
//
// Input: the first byte picks the decoder (its low 7 bits modulo kDecoderCount; its high bit
// picks tight limits, so the limit checks are reached with small inputs). The rest is a
// request body, or for the query-string decoders "key=value&key=value" (no percent-decoding:
// the HTTP layer hands decoders arbitrary bytes already). Seeds start with an ASCII digit
// ('0' = 48 selects decoder 0).
//
// Beyond "no crash, no sanitizer report", every result is checked: an error is InvalidArgument
// with a message the server can encode; a value agrees with the input it came from and stays
// within the limits. Decoders promise never to throw, so exceptions are left to escape: libFuzzer
// reports them as crashes.
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <string_view>

#include "api/requests.h"
#include "api/responses.h"
#include "codec/item_json.h"
#include "engram/clock.h"
#include "engram/memory.h"
#include "server/request_head.h"

namespace engram::api {
namespace {

using json = nlohmann::json;

const std::string kTenant = "fuzz-tenant";

[[noreturn]] void Violated(const char* check, int line, const std::string& detail) {
  std::fprintf(stderr, "request_decoders_fuzzer:%d: invariant '%s' does not hold: %s\n", line,
               check, detail.c_str());
  std::abort();
}

#define FUZZ_CHECK(cond, detail)                      \
  do {                                                \
    if (!(cond)) Violated(#cond, __LINE__, (detail)); \
  } while (0)

Limits PickLimits(bool tight) {
  if (!tight) return Limits{};
  Limits l;
  l.max_batch_items = 3;
  l.max_k = 5;
  l.max_token_budget = 64;
  l.max_list_limit = 10;
  l.max_recent_turns = 2;
  l.max_json_depth = 4;
  return l;
}

// Every decoder error becomes a 400 whose body the server can always encode.
void CheckError(const Status& st) {
  FUZZ_CHECK(st.code() == StatusCode::kInvalidArgument, st.ToString());
  FUZZ_CHECK(!st.message().empty(), st.ToString());
  // As server::DumpJson encodes it: must not throw, even for invalid UTF-8 in the message.
  (void)ErrorToJson(st).dump(-1, ' ', false, json::error_handler_t::replace);
}

template <typename T>
bool CheckResult(const Result<T>& r) {
  if (!r.ok()) CheckError(r.status());
  return r.ok();
}

const json* Field(const json& obj, const char* key) {
  if (!obj.is_object() || !obj.contains(key) || obj.at(key).is_null()) return nullptr;
  return &obj.at(key);
}

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// A decoded enum must name exactly what the input said.
template <typename E>
void CheckEnumField(const std::optional<E>& value, const json& obj, const char* key) {
  const json* given = Field(obj, key);
  FUZZ_CHECK(value.has_value() == (given != nullptr), key);
  if (value) {  // names are accepted in any case
    FUZZ_CHECK(given->is_string() && Lower(given->get<std::string>()) == ToString(*value), key);
  }
}

void CheckMetadataText(const std::string& text) {
  json md = json::parse(text, nullptr, /*allow_exceptions=*/false);
  FUZZ_CHECK(md.is_object(), text);
}

void CheckScope(const Scope& scope, const json& body) {
  FUZZ_CHECK(scope.tenant == kTenant, scope.tenant);
  const json* user = Field(body, "user_id");
  FUZZ_CHECK(user && user->is_string() && user->get<std::string>() == scope.user_id, scope.user_id);
}

void CheckNewMemory(const NewMemory& m, const json& entry) {
  CheckMetadataText(m.metadata);
  if (Field(entry, "messages")) {
    json md = json::parse(m.metadata);
    FUZZ_CHECK(md.contains("role") && md["role"].is_string(), m.metadata);
    if (Field(entry, "type"))
      CheckEnumField(m.type, entry, "type");
    else
      FUZZ_CHECK(m.type == MemoryType::kMessage, "message type");
  } else {
    CheckEnumField(m.type, entry, "type");
    // `content`, or its deprecated alias `text` (both given must agree).
    const json* text = Field(entry, "content");
    if (!text) text = Field(entry, "text");
    FUZZ_CHECK(text && text->is_string() && text->get<std::string>() == m.content, m.content);
  }
  CheckEnumField(m.tier, entry, "tier");
  if (const json* imp = Field(entry, "importance")) {
    FUZZ_CHECK(m.importance && *m.importance == imp->get<double>(), "importance");
  }
}

void CheckFilters(const SearchFilters& f, const json& given) {
  auto count = [&](const char* key) {
    const json* v = Field(given, key);
    return v && v->is_array() ? v->size() : size_t{0};
  };
  FUZZ_CHECK(f.types.size() == count("types"), "types");
  FUZZ_CHECK(f.tiers.size() == count("tiers"), "tiers");
  FUZZ_CHECK(f.tags.size() == count("tags"), "tags");
  const json* statuses = Field(given, "statuses");
  if (!statuses)
    FUZZ_CHECK(f.statuses == std::vector{ItemStatus::kActive}, "default statuses");
  else if (statuses->is_string())
    FUZZ_CHECK(f.statuses.empty(), "statuses all");
  else
    FUZZ_CHECK(f.statuses.size() == statuses->size(), "statuses");
  const json* md = Field(given, "metadata");
  FUZZ_CHECK(f.metadata.size() + f.metadata_in.size() == (md ? md->size() : 0), "metadata");
}

void CheckQuery(const SearchQuery& q, const json& body, const Limits& limits) {
  FUZZ_CHECK(q.k >= 1 && q.k <= limits.max_k, std::to_string(q.k));
  if (const json* k = Field(body, "k")) FUZZ_CHECK(k->get<int64_t>() == q.k, "k");
  FUZZ_CHECK(q.recent_turns.size() <= limits.max_recent_turns, "recent_turns");
  const json* text = Field(body, "query");
  FUZZ_CHECK(text && text->get<std::string>() == q.text, q.text);
  CheckFilters(q.filters, Field(body, "filters") ? body.at("filters") : json::object());
}

// ---- body decoders ----

template <typename Decode>
void CheckOptionalFieldsOmittable(const json& body, const std::set<std::string>& optional,
                                  Decode decode);

void FuzzAdd(const json& body, const Limits& limits, bool batch) {
  auto decode = [&](const json& b) {
    return batch ? DecodeBatch(b, kTenant, limits) : DecodeAdd(b, kTenant, limits);
  };
  auto r = decode(body);
  if (!CheckResult(r)) return;
  // "infer" is not omittable: its default (true) refuses fields that infer=false allows.
  if (batch) {
    CheckOptionalFieldsOmittable(body, {"agent_id", "session_id", "async"}, decode);
  } else {
    CheckOptionalFieldsOmittable(
        body, {"agent_id", "session_id", "async", "metadata", "importance", "created_at", "tags"},
        decode);
  }
  CheckScope(r->scope, body);
  FUZZ_CHECK(!r->async || r->infer, "async only with infer");
  if (r->infer) {
    // Extraction input: one item per request (per entry in a batch), each with its turns.
    FUZZ_CHECK(r->memories.empty(), "infer stores nothing as given");
    const size_t expected = batch ? body.at("memories").size() : 1;
    FUZZ_CHECK(r->infer_items.size() == expected, std::to_string(r->infer_items.size()));
    for (const InferItem& item : r->infer_items) {
      FUZZ_CHECK(!item.turns.empty() && item.turns.size() <= limits.max_batch_items,
                 std::to_string(item.turns.size()));
      CheckMetadataText(item.options.metadata);
    }
    return;
  }
  FUZZ_CHECK(r->infer_items.empty(), "infer=false extracts nothing");
  FUZZ_CHECK(!r->memories.empty() && r->memories.size() <= limits.max_batch_items,
             std::to_string(r->memories.size()));
  if (batch) {
    FUZZ_CHECK(r->memories.size() >= body.at("memories").size(), "one memory per entry at least");
    if (r->memories.size() == body.at("memories").size()) {
      for (size_t i = 0; i < r->memories.size(); ++i) {
        CheckNewMemory(r->memories[i], body.at("memories").at(i));
      }
    }
  } else {
    for (const NewMemory& m : r->memories) CheckNewMemory(m, body);
  }
}

void FuzzPatch(const json& body) {
  auto r = DecodePatch(body);
  if (!CheckResult(r)) return;
  const MemoryPatch& p = *r;
  CheckEnumField(p.type, body, "type");
  CheckEnumField(p.tier, body, "tier");
  CheckEnumField(p.status, body, "status");
  if (p.metadata) CheckMetadataText(*p.metadata);
  FUZZ_CHECK(p.clear_valid_to == (body.contains("valid_to") && body.at("valid_to").is_null()),
             "valid_to");
  FUZZ_CHECK(p.content || p.type || p.tier || p.tags || p.entities || p.metadata || p.importance ||
                 p.confidence || p.valid_from || p.valid_to || p.clear_valid_to || p.status,
             "a patch changes something");
}

// Leaving an optional field out of a valid request keeps it valid: its default must lie within
// the limits too (a default k above --max-k would refuse every request without k).
template <typename Decode>
void CheckOptionalFieldsOmittable(const json& body, const std::set<std::string>& optional,
                                  Decode decode) {
  for (const auto& [key, value] : body.items()) {
    if (!optional.count(key)) continue;
    json without = body;
    without.erase(key);
    auto r = decode(without);
    FUZZ_CHECK(r.ok(), "without '" + key + "': " + r.status().ToString());
  }
}

void FuzzSearch(const json& body, const Limits& limits) {
  auto decode = [&](const json& b) { return DecodeSearch(b, kTenant, limits); };
  auto r = decode(body);
  if (!CheckResult(r)) return;
  CheckScope(r->scope, body);
  CheckQuery(r->query, body, limits);
  CheckOptionalFieldsOmittable(body,
                               {"agent_id", "session_id", "k", "filters", "min_score", "explain",
                                "fusion", "recent_turns", "diversify"},
                               decode);
}

void FuzzContext(const json& body, const Limits& limits) {
  auto decode = [&](const json& b) { return DecodeContext(b, kTenant, limits); };
  auto r = decode(body);
  if (!CheckResult(r)) return;
  CheckScope(r->scope, body);
  CheckQuery(r->request.search, body, limits);
  FUZZ_CHECK(r->request.token_budget >= 16 && r->request.token_budget <= limits.max_token_budget,
             std::to_string(r->request.token_budget));
  CheckOptionalFieldsOmittable(
      body, {"agent_id", "session_id", "k", "filters", "min_score", "recent_turns", "token_budget"},
      decode);
}

void FuzzFilters(const json& body) {
  auto r = DecodeFilters(body);
  if (CheckResult(r)) CheckFilters(*r, body);
}

// Import reads lines with plain nlohmann parsing (no nesting limit), like transfer/jsonl.cc.
// What decodes must survive export (to text) and import again unchanged.
template <typename T>
void FuzzExportable(std::string_view text, Result<T> (*decode)(const json&),
                    json (*encode)(const T&)) {
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return;
  auto value = decode(j);
  if (!CheckResult(value)) return;
  const std::string exported = encode(*value).dump();
  auto again = decode(json::parse(exported));
  FUZZ_CHECK(again.ok(), again.status().ToString() + " for " + exported);
  FUZZ_CHECK(encode(*again).dump() == exported, exported);
}

void FuzzItem(std::string_view text) { FuzzExportable(text, &ItemFromJson, &ItemToJson); }
void FuzzHistory(std::string_view text) { FuzzExportable(text, &HistoryFromJson, &HistoryToJson); }

// ---- query-string decoders ----

Params SplitParams(std::string_view text) {
  Params params;
  while (!text.empty()) {
    size_t amp = text.find('&');
    std::string_view pair = text.substr(0, amp);
    size_t eq = pair.find('=');
    if (eq == std::string_view::npos)
      params.emplace(std::string(pair), "");
    else
      params.emplace(std::string(pair.substr(0, eq)), std::string(pair.substr(eq + 1)));
    if (amp == std::string_view::npos) break;
    text.remove_prefix(amp + 1);
  }
  return params;
}

void CheckParamScope(const Scope& scope, const Params& params) {
  FUZZ_CHECK(scope.tenant == kTenant, scope.tenant);
  FUZZ_CHECK(!scope.user_id.empty() && params.count("user_id") == 1 &&
                 params.find("user_id")->second == scope.user_id,
             scope.user_id);
}

void FuzzList(const Params& params, const Limits& limits) {
  auto r = DecodeList(params, kTenant, limits);
  if (!CheckResult(r)) return;
  CheckParamScope(r->scope, params);
  FUZZ_CHECK(r->query.limit >= 1 && r->query.limit <= limits.max_list_limit,
             std::to_string(r->query.limit));
  if (!params.count("status")) {
    FUZZ_CHECK(r->query.statuses == std::vector{ItemStatus::kActive}, "default statuses");
  }
  Params without = params;
  without.erase("limit");
  auto defaulted = DecodeList(without, kTenant, limits);
  FUZZ_CHECK(defaulted.ok(), "without 'limit': " + defaulted.status().ToString());
}

void FuzzItemScope(const Params& params) {
  auto r = DecodeItemScope(params, kTenant, {"hard", "reason"});
  if (CheckResult(r)) CheckParamScope(*r, params);
  auto hard = ParamBool(params, "hard", /*fallback=*/false);
  if (CheckResult(hard) && !params.count("hard")) FUZZ_CHECK(!*hard, "fallback");
}

void FuzzUserScope(const Params& params) {
  auto r = DecodeUserScope(params, kTenant);
  if (CheckResult(r)) CheckParamScope(*r, params);
}

void FuzzParamBool(const Params& params) {
  auto r = ParamBool(params, "hard", /*fallback=*/true);
  if (!CheckResult(r)) return;
  auto it = params.find("hard");
  if (it == params.end() || it->second.empty())
    FUZZ_CHECK(*r, "fallback");
  else
    FUZZ_CHECK(*r == (it->second == "true" || it->second == "1"), it->second);
}

// The gate's check of a raw request head (src/server/request_head.h): a refusal is one of the
// statuses it documents and its answer is a well-formed response whose body is the JSON error;
// an accepted head ends with a blank line, starts with "METHOD /", and names HTTP/1.0 or 1.1.
void FuzzRawHead(std::string_view data, bool tight) {
  engram::server::HeadLimits limits;
  if (tight) limits = {.max_uri_bytes = 16, .max_head_bytes = 64};
  const auto v = engram::server::CheckRequestHead(data, limits);
  if (v.status != 0) {
    static const std::set<int> kStatuses = {400, 414, 431, 505};
    FUZZ_CHECK(kStatuses.count(v.status) == 1, std::to_string(v.status));
    FUZZ_CHECK(!v.code.empty() && !v.message.empty(), v.code);
    const std::string reply = engram::server::JsonErrorResponse(v.status, v.code, v.message);
    const size_t end = reply.find("\r\n\r\n");
    FUZZ_CHECK(end != std::string::npos, "a response head");
    FUZZ_CHECK(reply.rfind("HTTP/1.1 " + std::to_string(v.status) + " ", 0) == 0, reply);
    const json body = json::parse(reply.substr(end + 4), nullptr, false);
    FUZZ_CHECK(body.is_object() && body["error"]["code"] == v.code, reply);
    return;
  }
  if (!v.complete) return;
  FUZZ_CHECK(
      data.find("\n\n") != std::string_view::npos || data.find("\n\r\n") != std::string_view::npos,
      "accepted without a blank line");
  const size_t sp = data.find(' ');
  FUZZ_CHECK(sp != std::string_view::npos && sp > 0 && data.size() > sp + 1 && data[sp + 1] == '/',
             "accepted without 'METHOD /'");
  const std::string_view line = data.substr(0, data.find('\n'));
  FUZZ_CHECK(line.find("HTTP/1.1") != std::string_view::npos ||
                 line.find("HTTP/1.0") != std::string_view::npos,
             std::string(line));
  const std::string_view target = line.substr(sp + 1, line.find(' ', sp + 1) - sp - 1);
  FUZZ_CHECK(!engram::server::PathHasControlCharacter(target), std::string(target));
  FUZZ_CHECK(target.size() <= limits.max_uri_bytes, "target over the limit");
}

// The same bytes as a connection's request stream (RequestFramer): what it passes on does not
// depend on how the bytes are cut (whole, or a byte at a time), is never more than came in, and
// is itself a stream the framer passes on unchanged when nothing was refused.
void FuzzFraming(std::string_view data, bool tight) {
  engram::server::HeadLimits limits;
  if (tight) limits = {.max_uri_bytes = 16, .max_head_bytes = 64};
  engram::server::RequestFramer whole(limits), bytewise(limits);
  std::string out_whole, out_bytewise;
  whole.Feed(data, &out_whole);
  for (size_t i = 0; i < data.size(); ++i) {
    if (!bytewise.Feed(data.substr(i, 1), &out_bytewise)) break;
  }
  FUZZ_CHECK(out_whole == out_bytewise, "the output depends on the cut");
  FUZZ_CHECK(whole.requests() == bytewise.requests(), "the request count depends on the cut");
  FUZZ_CHECK(whole.error().status == bytewise.error().status, whole.error().code);
  FUZZ_CHECK(out_whole.size() <= data.size(), "more out than in");
  if (whole.error().status == 0 && !whole.in_request()) {
    engram::server::RequestFramer again(limits);
    std::string out_again;
    FUZZ_CHECK(again.Feed(out_whole, &out_again) && out_again == out_whole,
               "a passed stream does not pass again unchanged");
    FUZZ_CHECK(again.requests() == whole.requests(), "a passed stream counts differently");
  }
}

// The newer routes' decoders: sessions (messages, close, listing), users, key listing, recall,
// tenant purge.
void FuzzNewRoutes(int which, std::string_view text, const Limits& limits) {
  if (which >= 3) {
    const Params params = SplitParams(text);
    if (which == 3) {
      auto r = DecodeUserList(params, limits);
      if (CheckResult(r)) FUZZ_CHECK(r->limit >= 1 && r->limit <= limits.max_list_limit, "limit");
    } else if (which == 6) {
      // The tenant comes from the path: the part before the first '&' plays it.
      const size_t amp = text.find('&');
      const std::string tenant(text.substr(0, amp));
      auto r = DecodeTenantPurge(
          tenant,
          SplitParams(amp == std::string_view::npos ? std::string_view() : text.substr(amp + 1)));
      if (CheckResult(r)) FUZZ_CHECK(r->tenant == tenant && !tenant.empty(), tenant);
    } else if (which == 4) {
      auto r = DecodeSessionList(params, kTenant, limits);
      if (CheckResult(r)) FUZZ_CHECK(r->scope.tenant == kTenant && !r->scope.user_id.empty(), "");
    } else {
      CheckResult(DecodeKeyListTenant(params));
    }
    return;
  }
  auto body = ParseBody(text, limits);
  if (!CheckResult(body)) return;
  if (which == 0) {
    auto r = DecodeSessionMessages(*body, "fuzz-session", kTenant, limits);
    if (CheckResult(r)) {
      FUZZ_CHECK(r->scope.tenant == kTenant && r->scope.session_id == "fuzz-session", "scope");
      FUZZ_CHECK(!r->turns.empty(), "messages");
    }
  } else if (which == 1) {
    auto r = DecodeSessionClose(*body, "fuzz-session", kTenant);
    if (CheckResult(r)) FUZZ_CHECK(r->session_id == "fuzz-session", "scope");
  } else {
    auto r = DecodeRecall(*body, kTenant);
    if (CheckResult(r)) FUZZ_CHECK(r->scope.tenant == kTenant && !r->scope.user_id.empty(), "");
  }
}

enum Decoder : int {
  kAdd,
  kBatch,
  kPatch,
  kSearch,
  kContext,
  kFilters,
  kItem,
  kHistory,
  kList,
  kItemScope,
  kUserScope,
  kParamBool,
  kRawHead,
  kSessionMessages,
  kSessionClose,
  kRecall,
  kUserList,
  kSessionList,
  kKeyListTenant,
  kTenantPurge,
  kDecoderCount
};

void FuzzBody(Decoder decoder, std::string_view text, const Limits& limits) {
  auto body = ParseBody(text, limits);
  if (!CheckResult(body)) return;
  FUZZ_CHECK(body->is_object(), "ParseBody returns an object");
  switch (decoder) {
    case kAdd:
      return FuzzAdd(*body, limits, /*batch=*/false);
    case kBatch:
      return FuzzAdd(*body, limits, /*batch=*/true);
    case kPatch:
      return FuzzPatch(*body);
    case kSearch:
      return FuzzSearch(*body, limits);
    case kContext:
      return FuzzContext(*body, limits);
    case kFilters:
      return FuzzFilters(*body);
    default:
      return;
  }
}

}  // namespace
}  // namespace engram::api

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace engram::api;
  if (size == 0) return 0;
  const auto decoder = static_cast<Decoder>((data[0] & 0x7F) % kDecoderCount);
  const Limits limits = PickLimits((data[0] & 0x80) != 0);
  const std::string_view rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch (decoder) {
    case kItem:
      FuzzItem(rest);
      break;
    case kHistory:
      FuzzHistory(rest);
      break;
    case kList:
      FuzzList(SplitParams(rest), limits);
      break;
    case kItemScope:
      FuzzItemScope(SplitParams(rest));
      break;
    case kUserScope:
      FuzzUserScope(SplitParams(rest));
      break;
    case kParamBool:
      FuzzParamBool(SplitParams(rest));
      break;
    case kRawHead:
      FuzzRawHead(rest, (data[0] & 0x80) != 0);
      FuzzFraming(rest, (data[0] & 0x80) != 0);
      break;
    case kSessionMessages:
    case kSessionClose:
    case kRecall:
    case kUserList:
    case kSessionList:
    case kKeyListTenant:
    case kTenantPurge:
      FuzzNewRoutes(decoder - kSessionMessages, rest, limits);
      break;
    default:
      FuzzBody(decoder, rest, limits);
      break;
  }
  return 0;
}
