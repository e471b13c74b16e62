#include "api/requests.h"

#include <algorithm>

#include "codec/field_names.h"
#include "codec/field_reader.h"
#include "codec/item_validation.h"
#include "core/status_macros.h"
#include "text/utf8.h"

namespace engram::api {
namespace {

using json = nlohmann::json;

// The deepest nesting of arrays and objects in `body`, stopping early past `limit`.
int NestingDepth(std::string_view body, int limit) {
  int depth = 0, deepest = 0;
  bool in_string = false, escaped = false;
  for (char c : body) {
    if (in_string) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        in_string = false;
      continue;
    }
    if (c == '"')
      in_string = true;
    else if (c == '[' || c == '{')
      deepest = std::max(deepest, ++depth);
    else if (c == ']' || c == '}')
      --depth;
    if (deepest > limit) break;
  }
  return deepest;
}

// Every request's identifiers are held to the store's rules before anything else runs (an
// add that turns out to be chit-chat, or an async one, would otherwise answer 2xx to an id the
// store refuses): UTF-8, no control characters, at most 256 bytes (codec/item_validation.h).
void ReadScope(FieldReader& r, const std::string& tenant, Scope* scope) {
  scope->tenant = tenant;
  r.String("user_id", &scope->user_id, /*required=*/true);
  r.String("agent_id", &scope->agent_id);
  r.String("session_id", &scope->session_id);
  if (r.status().ok()) r.Absorb(ValidateScope(*scope));
}

Result<MetadataValue> ScalarValue(const json& v, const std::string& key) {
  if (v.is_null()) return MetadataValue(nullptr);
  if (v.is_boolean()) return MetadataValue(v.get<bool>());
  if (v.is_number_integer() && !v.is_number_unsigned()) return MetadataValue(v.get<int64_t>());
  if (v.is_number_unsigned()) {
    if (v.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX)) {
      return Status::InvalidArgument("filters.metadata '" + key + "' is out of range");
    }
    return MetadataValue(static_cast<int64_t>(v.get<uint64_t>()));
  }
  if (v.is_number()) return MetadataValue(v.get<double>());
  if (v.is_string()) return MetadataValue(v.get<std::string>());
  return Status::InvalidArgument("filters.metadata '" + key +
                                 "' must be a scalar or {\"in\": [scalars]}");
}

Status DecodeMetadataFilter(const json& md, SearchFilters* f) {
  if (!md.is_object()) return Status::InvalidArgument("filters field 'metadata' must be an object");
  for (const auto& [key, v] : md.items()) {
    if (!v.is_object()) {
      ENGRAM_ASSIGN_OR_RETURN(MetadataValue value, ScalarValue(v, key));
      f->metadata.push_back({key, std::move(value)});
      continue;
    }
    if (v.size() != 1 || !v.contains("in") || !v.at("in").is_array()) {
      return Status::InvalidArgument("filters.metadata '" + key +
                                     "' must be a scalar or {\"in\": [scalars]}");
    }
    SearchFilters::MetadataIn in{key, {}};
    for (const json& e : v.at("in")) {
      if (e.is_structured()) {
        return Status::InvalidArgument("filters.metadata '" + key + "' in-list holds a non-scalar");
      }
      ENGRAM_ASSIGN_OR_RETURN(MetadataValue value, ScalarValue(e, key));
      in.values.push_back(std::move(value));
    }
    f->metadata_in.push_back(std::move(in));
  }
  return Status::Ok();
}

// The fields of one memory to store, shared by add and batch entries ("text": the
// deprecated alias of "content").
const std::set<std::string> kMemoryFields = {
    "content",    "text",       "messages",   "type",     "tier", "metadata", "importance",
    "confidence", "created_at", "valid_from", "valid_to", "tags", "entities", "expires_at"};

void NoteDeprecated(std::vector<Deprecation>* warnings, const std::string& field,
                    const std::string& replacement) {
  for (const Deprecation& d : *warnings) {
    if (d.field == field) return;  // a batch names it once, however many entries use it
  }
  warnings->push_back({field, replacement,
                       "field '" + field +
                           "' is deprecated and will be removed in the next "
                           "version: use '" +
                           replacement + "'"});
}

bool HasContent(const FieldReader& r) { return r.Has("content") || r.Has("text"); }

// A memory's text: `content`, or the deprecated alias `text`. Both may be given only when
// they agree, so that no client's two spellings silently lose one of them.
void ReadContent(FieldReader& r, std::string* out, std::vector<Deprecation>* warnings) {
  const bool has_content = r.Has("content");
  if (has_content) r.String("content", out);
  if (!r.Has("text")) return;
  std::string text;
  r.String("text", &text);
  if (!r.status().ok()) return;
  if (has_content && text != *out) {
    return r.Fail("text",
                  "(deprecated alias of 'content') differs from 'content': send "
                  "'content' only");
  }
  *out = std::move(text);
  NoteDeprecated(warnings, "text", "content");
}

Status DecodeMemories(const json& body, std::string_view what, std::vector<NewMemory>* out,
                      std::vector<Deprecation>* warnings) {
  FieldReader r(body, what);
  NewMemory base;
  if (r.Has("type")) r.Enum("type", &base.type.emplace(), &ParseMemoryType);
  if (r.Has("tier")) r.Enum("tier", &base.tier.emplace(), &ParseTier);
  if (const json* md = r.Child("metadata")) {
    if (!md->is_object())
      r.Fail("metadata", "must be a JSON object");
    else
      base.metadata = md->dump();
  }
  r.OptNumber("importance", &base.importance);
  r.OptNumber("confidence", &base.confidence);
  r.OptTime("created_at", &base.created_at);
  r.OptTime("valid_from", &base.valid_from);
  r.OptTime("valid_to", &base.valid_to);
  r.OptTime("expires_at", &base.expires_at);
  r.StringList("tags", &base.tags);
  r.StringList("entities", &base.entities);
  ENGRAM_RETURN_IF_ERROR(r.status());
  base.source.extractor = "api";

  const bool has_content = HasContent(r), has_messages = r.Has("messages");
  if (has_content == has_messages) r.Fail("", "needs exactly one of 'content' and 'messages'");
  if (has_content) {
    NewMemory m = base;
    ReadContent(r, &m.content, warnings);
    out->push_back(std::move(m));
  }
  if (has_messages) {
    const json& messages = *r.Child("messages");
    if (!messages.is_array() || messages.empty()) {
      r.Fail("messages", "must be a non-empty array of {role, content}");
    }
    for (const json& msg : messages.is_array() ? messages : json::array()) {
      FieldReader mr(msg, "message");
      mr.CheckKnown({"role", "content"});
      NewMemory m = base;
      std::string role;
      mr.String("role", &role, /*required=*/true);
      mr.String("content", &m.content, /*required=*/true);
      if (!mr.status().ok()) return mr.status();
      if (!m.type) m.type = MemoryType::kMessage;
      json md = json::parse(m.metadata);
      md["role"] = role;
      m.metadata = md.dump();
      out->push_back(std::move(m));
    }
  }
  return r.status();
}

Status CheckBatchSize(size_t n, const Limits& limits) {
  if (n > limits.max_batch_items) {
    return Status::InvalidArgument("a request may hold at most " +
                                   std::to_string(limits.max_batch_items) + " memories, got " +
                                   std::to_string(n));
  }
  return Status::Ok();
}

Status ReadAsync(FieldReader& r, AddRequest* req) {
  r.Bool("async", &req->async);
  if (req->async && !req->infer) r.Fail("async", "applies only with infer=true");
  return r.status();
}

// One turn list of a message: {role, content} plus, where `with_ids`, created_at and id.
Status DecodeTurnList(const json& messages, std::string_view what, bool with_ids,
                      TimestampMs default_at, std::vector<Turn>* out) {
  if (!messages.is_array() || messages.empty()) {
    return Status::InvalidArgument(std::string(what) +
                                   ": 'messages' must be a non-empty array of {role, content}");
  }
  for (size_t i = 0; i < messages.size(); ++i) {
    // FieldReader keeps a view of its name: the string must outlive it.
    const std::string name = std::string(what) + ".messages[" + std::to_string(i) + "]";
    FieldReader mr(messages[i], name);
    if (with_ids)
      mr.CheckKnown({"role", "content", "created_at", "id"});
    else
      mr.CheckKnown({"role", "content"});
    Turn t;
    t.at = default_at;
    mr.String("role", &t.role, /*required=*/true);
    mr.String("content", &t.content, /*required=*/true);
    if (with_ids) {
      std::optional<TimestampMs> at;
      mr.OptTime("created_at", &at);
      if (at) t.at = *at;
      mr.String("id", &t.id);
    }
    ENGRAM_RETURN_IF_ERROR(mr.status());
    out->push_back(std::move(t));
  }
  return Status::Ok();
}

void ReadRememberOptions(FieldReader& r, RememberOptions* o) {
  r.StringList("tags", &o->tags);
  if (const json* md = r.Child("metadata")) {
    if (!md->is_object())
      r.Fail("metadata", "must be a JSON object");
    else
      o->metadata = md->dump();
  }
  r.OptNumber("importance", &o->importance);
}

// infer=true: the turns to extract from. Fields the extractor decides are refused rather
// than silently ignored.
Status DecodeInferItem(const json& body, std::string_view what, const Limits& limits,
                       InferItem* item, std::vector<Deprecation>* warnings) {
  FieldReader r(body, what);
  for (const char* field :
       {"type", "tier", "confidence", "valid_from", "valid_to", "entities", "expires_at"}) {
    if (r.Has(field)) {
      r.Fail(field, "is decided by extraction; send it with infer=false to store as given");
    }
  }
  ReadRememberOptions(r, &item->options);
  std::optional<TimestampMs> at;
  r.OptTime("created_at", &at);
  const bool has_content = HasContent(r), has_messages = r.Has("messages");
  if (has_content == has_messages) r.Fail("", "needs exactly one of 'content' and 'messages'");
  std::string text;
  if (has_content) ReadContent(r, &text, warnings);
  ENGRAM_RETURN_IF_ERROR(r.status());
  if (has_content) {
    item->turns.push_back(Turn{"user", std::move(text), at.value_or(0), ""});
  } else {
    ENGRAM_RETURN_IF_ERROR(DecodeTurnList(*r.Child("messages"), what, /*with_ids=*/false,
                                          at.value_or(0), &item->turns));
  }
  return CheckBatchSize(item->turns.size(), limits);
}

void ReadQueryOptions(FieldReader& r, const Limits& limits, SearchQuery* q) {
  r.String("query", &q->text, /*required=*/true);
  r.Int("k", &q->k);
  if (q->k < 1 || q->k > limits.max_k) {
    r.Fail("k", "must be between 1 and " + std::to_string(limits.max_k));
  }
  r.OptNumber("min_score", &q->min_score);
  r.Bool("graph", &q->graph);
  r.StringList("recent_turns", &q->recent_turns);
  if (q->recent_turns.size() > limits.max_recent_turns) {
    r.Fail("recent_turns",
           "may hold at most " + std::to_string(limits.max_recent_turns) + " turns");
  }
  if (const json* f = r.Child("filters")) {
    auto filters = DecodeFilters(*f);
    if (filters.ok())
      q->filters = std::move(filters).value();
    else
      r.Absorb(filters.status());
  }
}

Result<std::vector<std::string>> ParamList(const Params& params, const std::string& key) {
  std::vector<std::string> out;
  auto [lo, hi] = params.equal_range(key);
  for (auto it = lo; it != hi; ++it) {
    std::string_view v = it->second;
    while (!v.empty()) {
      size_t comma = v.find(',');
      std::string_view part = v.substr(0, comma);
      if (!part.empty()) out.emplace_back(part);
      if (comma == std::string_view::npos) break;
      v.remove_prefix(comma + 1);
    }
  }
  return out;
}

// The single value of `key`, or "" when absent; InvalidArgument when repeated.
Result<std::string> ParamOne(const Params& params, const std::string& key) {
  if (params.count(key) > 1) {
    return Status::InvalidArgument("query parameter '" + key + "' is given more than once");
  }
  auto it = params.find(key);
  return it == params.end() ? std::string() : it->second;
}

Status CheckKnownParams(const Params& params, const std::set<std::string>& known) {
  for (const auto& [key, value] : params) {
    if (!known.count(key)) {
      return Status::InvalidArgument("query parameter '" + key + "' is not known here" +
                                     DidYouMean(key, known));
    }
  }
  return Status::Ok();
}

template <typename E>
Result<std::vector<E>> ParamEnums(const Params& params, const std::string& key,
                                  Result<E> (*parse)(std::string_view)) {
  ENGRAM_ASSIGN_OR_RETURN(auto names, ParamList(params, key));
  std::vector<E> out;
  for (const std::string& n : names) {
    auto e = parse(n);
    if (!e.ok())
      return Status::InvalidArgument("query parameter '" + key + "': " + e.status().message());
    out.push_back(*e);
  }
  return out;
}

Result<std::optional<TimestampMs>> ParamTime(const Params& params, const std::string& key) {
  ENGRAM_ASSIGN_OR_RETURN(std::string text, ParamOne(params, key));
  if (text.empty()) return std::optional<TimestampMs>();
  auto t = ParseTimestamp(text);
  if (!t.ok())
    return Status::InvalidArgument("query parameter '" + key + "': " + t.status().message());
  return std::optional<TimestampMs>(*t);
}

// `limit`: absent → `fallback`; else an integer in 1..limits.max_list_limit.
Result<int> ParamLimit(const Params& params, int fallback, const Limits& limits) {
  ENGRAM_ASSIGN_OR_RETURN(std::string limit, ParamOne(params, "limit"));
  if (limit.empty()) return fallback;
  size_t used = 0;
  int n = 0;
  try {
    n = std::stoi(limit, &used);
  } catch (...) {
    used = 0;
  }
  if (used != limit.size() || n < 1 || n > limits.max_list_limit) {
    return Status::InvalidArgument("query parameter 'limit' must be an integer between 1 and " +
                                   std::to_string(limits.max_list_limit));
  }
  return n;
}

Result<Scope> ScopeFromParams(const Params& params, const std::string& tenant) {
  Scope scope;
  scope.tenant = tenant;
  ENGRAM_ASSIGN_OR_RETURN(scope.user_id, ParamOne(params, "user_id"));
  if (scope.user_id.empty()) {
    return Status::InvalidArgument("query parameter 'user_id' is required");
  }
  ENGRAM_ASSIGN_OR_RETURN(scope.agent_id, ParamOne(params, "agent_id"));
  ENGRAM_ASSIGN_OR_RETURN(scope.session_id, ParamOne(params, "session_id"));
  ENGRAM_RETURN_IF_ERROR(ValidateScope(scope));
  return scope;
}

}  // namespace

Result<json> ParseBody(std::string_view body, const Limits& limits) {
  if (body.empty()) return Status::InvalidArgument("the request needs a JSON body");
  if (NestingDepth(body, limits.max_json_depth) > limits.max_json_depth) {
    return Status::InvalidArgument("the JSON body is nested deeper than " +
                                   std::to_string(limits.max_json_depth) + " levels");
  }
  json j = json::parse(body.begin(), body.end(), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return Status::InvalidArgument("the body is not valid JSON (UTF-8)");
  if (!j.is_object()) return Status::InvalidArgument("the body must be a JSON object");
  return j;
}

Result<AddRequest> DecodeAdd(const json& body, const std::string& tenant, const Limits& limits) {
  std::set<std::string> known = kMemoryFields;
  known.insert({"user_id", "agent_id", "session_id", "infer", "async"});
  FieldReader r(body, "request");
  r.CheckKnown(known);
  AddRequest req;
  ReadScope(r, tenant, &req.scope);
  r.Bool("infer", &req.infer);
  ENGRAM_RETURN_IF_ERROR(ReadAsync(r, &req));
  if (req.infer) {
    ENGRAM_RETURN_IF_ERROR(
        DecodeInferItem(body, "request", limits, &req.infer_items.emplace_back(), &req.warnings));
    return req;
  }
  ENGRAM_RETURN_IF_ERROR(DecodeMemories(body, "request", &req.memories, &req.warnings));
  ENGRAM_RETURN_IF_ERROR(CheckBatchSize(req.memories.size(), limits));
  return req;
}

Result<AddRequest> DecodeBatch(const json& body, const std::string& tenant, const Limits& limits) {
  FieldReader r(body, "request");
  r.CheckKnown({"user_id", "agent_id", "session_id", "infer", "async", "memories"});
  AddRequest req;
  ReadScope(r, tenant, &req.scope);
  r.Bool("infer", &req.infer);
  ENGRAM_RETURN_IF_ERROR(ReadAsync(r, &req));
  const json* list = r.Child("memories");
  if (!list || !list->is_array() || list->empty()) {
    r.Fail("memories", "must be a non-empty array");
  }
  ENGRAM_RETURN_IF_ERROR(r.status());
  ENGRAM_RETURN_IF_ERROR(CheckBatchSize(list->size(), limits));
  for (size_t i = 0; i < list->size(); ++i) {
    const json& entry = list->at(i);
    const std::string what = "memories[" + std::to_string(i) + "]";
    FieldReader er(entry, what);
    er.CheckKnown(kMemoryFields);
    ENGRAM_RETURN_IF_ERROR(er.status());
    if (req.infer) {
      ENGRAM_RETURN_IF_ERROR(
          DecodeInferItem(entry, what, limits, &req.infer_items.emplace_back(), &req.warnings));
      continue;
    }
    ENGRAM_RETURN_IF_ERROR(DecodeMemories(entry, what, &req.memories, &req.warnings));
  }
  ENGRAM_RETURN_IF_ERROR(CheckBatchSize(req.memories.size(), limits));
  return req;
}

Result<ListRequest> DecodeList(const Params& params, const std::string& tenant,
                               const Limits& limits) {
  ENGRAM_RETURN_IF_ERROR(
      CheckKnownParams(params, {"user_id", "agent_id", "session_id", "type", "tier", "status",
                                "tag", "after", "before", "as_of", "slot", "limit", "cursor"}));
  ListRequest req;
  ENGRAM_ASSIGN_OR_RETURN(req.scope, ScopeFromParams(params, tenant));
  ListQuery& q = req.query;
  q.limit = std::min(q.limit, limits.max_list_limit);  // the default page stays within the cap
  ENGRAM_ASSIGN_OR_RETURN(q.types, ParamEnums(params, "type", &ParseMemoryType));
  ENGRAM_ASSIGN_OR_RETURN(q.tiers, ParamEnums(params, "tier", &ParseTier));
  ENGRAM_ASSIGN_OR_RETURN(auto statuses, ParamList(params, "status"));
  if (statuses.size() == 1 && statuses[0] == "all") {
    q.statuses.clear();
  } else if (!statuses.empty()) {
    ENGRAM_ASSIGN_OR_RETURN(q.statuses, ParamEnums(params, "status", &ParseItemStatus));
  }
  ENGRAM_ASSIGN_OR_RETURN(q.tags, ParamList(params, "tag"));
  ENGRAM_ASSIGN_OR_RETURN(q.created_after, ParamTime(params, "after"));
  ENGRAM_ASSIGN_OR_RETURN(q.created_before, ParamTime(params, "before"));
  ENGRAM_ASSIGN_OR_RETURN(q.as_of, ParamTime(params, "as_of"));
  ENGRAM_ASSIGN_OR_RETURN(q.slot, ParamOne(params, "slot"));
  ENGRAM_ASSIGN_OR_RETURN(q.limit, ParamLimit(params, q.limit, limits));
  ENGRAM_ASSIGN_OR_RETURN(q.cursor, ParamOne(params, "cursor"));
  return req;
}

Result<Scope> DecodeItemScope(const Params& params, const std::string& tenant,
                              const std::set<std::string>& allowed) {
  std::set<std::string> known = allowed;
  known.insert({"user_id", "agent_id"});
  ENGRAM_RETURN_IF_ERROR(CheckKnownParams(params, known));
  return ScopeFromParams(params, tenant);
}

Result<SessionMessagesRequest> DecodeSessionMessages(const json& body,
                                                     const std::string& session_id,
                                                     const std::string& tenant,
                                                     const Limits& limits) {
  FieldReader r(body, "request");
  r.CheckKnown({"user_id", "agent_id", "messages", "infer", "tags", "metadata", "importance"});
  SessionMessagesRequest req;
  req.scope.tenant = tenant;
  r.String("user_id", &req.scope.user_id, /*required=*/true);
  r.String("agent_id", &req.scope.agent_id);
  req.scope.session_id = session_id;
  if (r.status().ok()) r.Absorb(ValidateScope(req.scope));
  r.Bool("infer", &req.infer);
  ReadRememberOptions(r, &req.options);
  const json* messages = r.Child("messages");
  if (!messages) r.Fail("messages", "is required");
  ENGRAM_RETURN_IF_ERROR(r.status());
  ENGRAM_RETURN_IF_ERROR(DecodeTurnList(*messages, "request", /*with_ids=*/true, 0, &req.turns));
  ENGRAM_RETURN_IF_ERROR(CheckBatchSize(req.turns.size(), limits));
  return req;
}

Result<Scope> DecodeSessionClose(const json& body, const std::string& session_id,
                                 const std::string& tenant) {
  FieldReader r(body, "request");
  r.CheckKnown({"user_id", "agent_id"});
  Scope scope;
  scope.tenant = tenant;
  r.String("user_id", &scope.user_id, /*required=*/true);
  r.String("agent_id", &scope.agent_id);
  scope.session_id = session_id;
  if (r.status().ok()) r.Absorb(ValidateScope(scope));
  ENGRAM_RETURN_IF_ERROR(r.status());
  return scope;
}

std::string EncodeRememberJob(const AddRequest& request) {
  json items = json::array();
  for (const InferItem& item : request.infer_items) {
    json turns = json::array();
    for (const Turn& t : item.turns) {
      turns.push_back({{"role", t.role}, {"content", t.content}, {"at", t.at}, {"id", t.id}});
    }
    json j{{"turns", std::move(turns)},
           {"tags", item.options.tags},
           {"metadata", json::parse(item.options.metadata, nullptr, false)}};
    if (item.options.importance) j["importance"] = *item.options.importance;
    items.push_back(std::move(j));
  }
  return json{{"user_id", request.scope.user_id},
              {"agent_id", request.scope.agent_id},
              {"session_id", request.scope.session_id},
              {"items", std::move(items)}}
      .dump();
}

Result<AddRequest> DecodeRememberJob(std::string_view payload, const std::string& tenant) {
  json j = json::parse(payload.begin(), payload.end(), nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return Status::InvalidArgument("job payload is not a JSON object");
  FieldReader r(j, "job");
  r.CheckKnown({"user_id", "agent_id", "session_id", "items"});
  AddRequest req;
  ReadScope(r, tenant, &req.scope);
  const json* items = r.Child("items");
  if (!items || !items->is_array()) r.Fail("items", "must be an array");
  ENGRAM_RETURN_IF_ERROR(r.status());
  for (const json& entry : *items) {
    FieldReader er(entry, "job item");
    er.CheckKnown({"turns", "tags", "metadata", "importance"});
    InferItem item;
    ReadRememberOptions(er, &item.options);
    const json* turns = er.Child("turns");
    if (!turns || !turns->is_array()) er.Fail("turns", "must be an array");
    ENGRAM_RETURN_IF_ERROR(er.status());
    for (const json& t : *turns) {
      FieldReader tr(t, "job turn");
      Turn turn;
      tr.String("role", &turn.role, true);
      tr.String("content", &turn.content, true);
      tr.Integer("at", &turn.at);
      tr.String("id", &turn.id);
      ENGRAM_RETURN_IF_ERROR(tr.status());
      item.turns.push_back(std::move(turn));
    }
    req.infer_items.push_back(std::move(item));
  }
  return req;
}

Result<Scope> DecodeUserScope(const Params& params, const std::string& tenant) {
  ENGRAM_RETURN_IF_ERROR(CheckKnownParams(params, {"user_id"}));
  return ScopeFromParams(params, tenant);
}

Result<PageRequest> DecodeUserList(const Params& params, const Limits& limits) {
  ENGRAM_RETURN_IF_ERROR(CheckKnownParams(params, {"limit", "cursor"}));
  PageRequest page;
  ENGRAM_ASSIGN_OR_RETURN(page.limit,
                          ParamLimit(params, std::min(page.limit, limits.max_list_limit), limits));
  ENGRAM_ASSIGN_OR_RETURN(page.cursor, ParamOne(params, "cursor"));
  return page;
}

Result<SessionListRequest> DecodeSessionList(const Params& params, const std::string& tenant,
                                             const Limits& limits) {
  ENGRAM_RETURN_IF_ERROR(CheckKnownParams(params, {"user_id", "agent_id", "limit", "cursor"}));
  SessionListRequest req;
  ENGRAM_ASSIGN_OR_RETURN(req.scope, ScopeFromParams(params, tenant));
  ENGRAM_ASSIGN_OR_RETURN(
      req.page.limit, ParamLimit(params, std::min(req.page.limit, limits.max_list_limit), limits));
  ENGRAM_ASSIGN_OR_RETURN(req.page.cursor, ParamOne(params, "cursor"));
  return req;
}

Result<std::string> DecodeKeyListTenant(const Params& params) {
  ENGRAM_RETURN_IF_ERROR(CheckKnownParams(params, {"tenant"}));
  return ParamOne(params, "tenant");
}

Result<TenantPurgeRequest> DecodeTenantPurge(const std::string& tenant, const Params& params) {
  ENGRAM_RETURN_IF_ERROR(CheckKnownParams(params, {"verify"}));
  TenantPurgeRequest req;
  if (tenant.empty() || tenant.size() > 128 || !IsValidUtf8(tenant)) {
    return Status::InvalidArgument("tenant must be 1..128 bytes of UTF-8");
  }
  for (unsigned char c : tenant) {
    if (c < 0x20 || c == 0x7f) {
      return Status::InvalidArgument("tenant must not hold control characters");
    }
  }
  req.tenant = tenant;
  ENGRAM_ASSIGN_OR_RETURN(req.verify, ParamBool(params, "verify", false));
  return req;
}

Result<MemoryPatch> DecodePatch(const json& body) {
  FieldReader r(body, "request");
  r.CheckKnown({"content", "type", "tier", "tags", "entities", "metadata", "importance",
                "confidence", "valid_from", "valid_to", "status", "reason", "expires_at"});
  MemoryPatch p;
  if (r.Has("content")) r.String("content", &p.content.emplace());
  if (r.Has("type")) r.Enum("type", &p.type.emplace(), &ParseMemoryType);
  if (r.Has("tier")) r.Enum("tier", &p.tier.emplace(), &ParseTier);
  if (r.Has("tags")) r.StringList("tags", &p.tags.emplace());
  if (r.Has("entities")) r.StringList("entities", &p.entities.emplace());
  if (const json* md = r.Child("metadata")) {
    if (!md->is_object())
      r.Fail("metadata", "must be a JSON object");
    else
      p.metadata = md->dump();
  }
  r.OptNumber("importance", &p.importance);
  r.OptNumber("confidence", &p.confidence);
  r.OptTime("valid_from", &p.valid_from);
  if (body.is_object() && body.contains("valid_to") && body.at("valid_to").is_null()) {
    p.clear_valid_to = true;
  } else {
    r.OptTime("valid_to", &p.valid_to);
  }
  if (body.is_object() && body.contains("expires_at") && body.at("expires_at").is_null()) {
    p.clear_expires_at = true;
  } else {
    r.OptTime("expires_at", &p.expires_at);
  }
  if (r.Has("status")) r.Enum("status", &p.status.emplace(), &ParseItemStatus);
  r.String("reason", &p.reason);
  ENGRAM_RETURN_IF_ERROR(r.status());
  if (!p.content && !p.type && !p.tier && !p.tags && !p.entities && !p.metadata && !p.importance &&
      !p.confidence && !p.valid_from && !p.valid_to && !p.clear_valid_to && !p.status &&
      !p.expires_at && !p.clear_expires_at) {
    return Status::InvalidArgument("request changes nothing: name at least one field to change");
  }
  return p;
}

Result<SearchFilters> DecodeFilters(const json& filters) {
  FieldReader r(filters, "filters");
  r.CheckKnown({"types", "tiers", "statuses", "created_after", "created_before", "as_of", "tags",
                "entities", "metadata", "include_expired"});
  SearchFilters f;
  r.EnumList("types", &f.types, &ParseMemoryType);
  r.Bool("include_expired", &f.include_expired);
  r.EnumList("tiers", &f.tiers, &ParseTier);
  if (const json* s = r.Child("statuses"); s && s->is_string() && s->get<std::string>() == "all") {
    f.statuses.clear();
  } else {
    r.EnumList("statuses", &f.statuses, &ParseItemStatus);
  }
  r.OptTime("created_after", &f.created_after);
  r.OptTime("created_before", &f.created_before);
  r.OptTime("as_of", &f.as_of);
  r.StringList("tags", &f.tags);
  r.StringList("entities", &f.entities);
  ENGRAM_RETURN_IF_ERROR(r.status());
  if (const json* md = r.Child("metadata")) ENGRAM_RETURN_IF_ERROR(DecodeMetadataFilter(*md, &f));
  return f;
}

// "sources": which sides a search or context draws on; both when absent, one or both named.
void ReadSources(FieldReader& r, bool* memories, bool* knowledge) {
  if (!r.Has("sources")) return;
  std::vector<std::string> sources;
  r.StringList("sources", &sources);
  if (!r.status().ok()) return;
  *memories = *knowledge = false;
  for (const std::string& s : sources) {
    if (s == "memories") {
      *memories = true;
    } else if (s == "knowledge") {
      *knowledge = true;
    } else {
      r.Fail("sources", "entries must be memories or knowledge, not '" + s + "'");
    }
  }
  if (r.status().ok() && !*memories && !*knowledge) {
    r.Fail("sources", "must name memories, knowledge or both");
  }
}

void ReadKnowledgeK(FieldReader& r, int* k) {
  r.Int("knowledge_k", k);
  if (r.status().ok() && (*k < 1 || *k > 50)) r.Fail("knowledge_k", "must be 1..50");
}

Result<SearchRequest> DecodeSearch(const json& body, const std::string& tenant,
                                   const Limits& limits) {
  FieldReader r(body, "request");
  r.CheckKnown({"user_id", "agent_id", "session_id", "query", "k", "filters", "min_score",
                "explain", "fusion", "recent_turns", "diversify", "graph", "sources",
                "knowledge_k"});
  SearchRequest req;
  ReadSources(r, &req.memories, &req.knowledge);
  ReadKnowledgeK(r, &req.knowledge_k);
  ReadScope(r, tenant, &req.scope);
  req.query.k = std::min(req.query.k, limits.max_k);  // a default above --max-k refuses all
  ReadQueryOptions(r, limits, &req.query);
  r.Bool("explain", &req.query.explain);
  r.Bool("diversify", &req.query.diversify);
  std::string fusion;
  r.String("fusion", &fusion);
  if (fusion == "rrf")
    req.query.fusion = FusionMode::kReciprocalRank;
  else if (!fusion.empty() && fusion != "weighted")
    r.Fail("fusion", "must be weighted or rrf");
  ENGRAM_RETURN_IF_ERROR(r.status());
  return req;
}

Result<ContextApiRequest> DecodeContext(const json& body, const std::string& tenant,
                                        const Limits& limits) {
  FieldReader r(body, "request");
  r.CheckKnown({"user_id", "agent_id", "session_id", "query", "k", "filters", "min_score",
                "recent_turns", "graph", "token_budget", "profile", "profile_share", "sources",
                "knowledge_k", "knowledge_share"});
  ContextApiRequest req;
  ReadSources(r, &req.request.memories, &req.request.knowledge);
  ReadKnowledgeK(r, &req.request.knowledge_k);
  r.Number("knowledge_share", &req.request.knowledge_share);
  if (r.status().ok() && !(req.request.knowledge_share >= 0 && req.request.knowledge_share <= 1)) {
    r.Fail("knowledge_share", "must be 0..1");
  }
  r.Bool("profile", &req.profile);
  r.Number("profile_share", &req.profile_share);
  if (r.status().ok() && !(req.profile_share > 0 && req.profile_share <= 1)) {
    r.Fail("profile_share", "must be above 0 and at most 1");
  }
  ReadScope(r, tenant, &req.scope);
  // More candidates than a search (the budget decides what fits), within the server's cap:
  // a default above --max-k would refuse every request that leaves k out.
  req.request.search.k = std::min(20, limits.max_k);
  ReadQueryOptions(r, limits, &req.request.search);
  req.request.token_budget = std::min(req.request.token_budget, limits.max_token_budget);
  r.Int("token_budget", &req.request.token_budget);
  if (req.request.token_budget < 16 || req.request.token_budget > limits.max_token_budget) {
    r.Fail("token_budget", "must be between 16 and " + std::to_string(limits.max_token_budget));
  }
  ENGRAM_RETURN_IF_ERROR(r.status());
  return req;
}

Result<bool> ParamBool(const Params& params, const std::string& key, bool fallback) {
  ENGRAM_ASSIGN_OR_RETURN(std::string v, ParamOne(params, key));
  if (v.empty()) return fallback;
  if (v == "true" || v == "1") return true;
  if (v == "false" || v == "0") return false;
  return Status::InvalidArgument("query parameter '" + key + "' must be true or false");
}

Result<RecallApiRequest> DecodeRecall(const json& body, const std::string& tenant) {
  FieldReader r(body, "request");
  r.CheckKnown({"user_id", "agent_id", "messages", "k", "min_score"});
  RecallApiRequest req;
  ReadScope(r, tenant, &req.scope);
  r.Int("k", &req.request.k);
  r.Number("min_score", &req.request.min_score);
  if (r.status().ok() && (req.request.k < 1 || req.request.k > 20)) r.Fail("k", "must be 1..20");
  if (r.status().ok() && !(req.request.min_score >= 0 && req.request.min_score <= 1)) {
    r.Fail("min_score", "must be between 0 and 1");
  }
  if (!r.Has("messages")) r.Fail("messages", "is required: the latest turns, oldest first");
  ENGRAM_RETURN_IF_ERROR(r.status());
  std::vector<Turn> turns;
  ENGRAM_RETURN_IF_ERROR(
      DecodeTurnList(*r.Child("messages"), "request", /*with_ids=*/false, 0, &turns));
  if (turns.size() > 64) return Status::InvalidArgument("request: at most 64 messages");
  for (const Turn& t : turns) req.request.turns.push_back(t.content);
  return req;
}

}  // namespace engram::api
