// The v1 API's requests as native structs, and their strict decoders from JSON bodies and
// query strings. Both front ends that speak JSON (the HTTP server and the MCP server) decode
// here, so a field means the same in both and the core never sees JSON.
//
// Every decoder is total: any input yields a value or InvalidArgument naming the field and
// the problem (unknown fields included); none throws. The tenant never comes from the input:
// the caller passes the one its credentials map to.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "engram/engine.h"
#include "engram/listings.h"
#include "engram/recall.h"
#include "engram/search.h"
#include "engram/status.h"
#include "engram/write_path.h"

namespace engram::api {

// Caps on what one request may ask for. The engine has its own (content size, k ≤ 100);
// these are the server's, usually tighter, set by `engram serve` flags.
struct Limits {
  size_t max_batch_items = 1000;  // memories in one add or batch request
  int max_k = 100;
  int max_token_budget = 32768;
  int max_list_limit = 1000;
  size_t max_recent_turns = 64;
  int max_json_depth = 32;  // nesting of a request body
};

// Query-string parameters as the HTTP layer hands them over (a key may repeat).
using Params = std::multimap<std::string, std::string>;

// Parses a request body: InvalidArgument for empty, malformed or too deeply nested JSON
// (deep nesting is refused before parsing, so no input can exhaust the stack).
Result<nlohmann::json> ParseBody(std::string_view body, const Limits& limits);

// A name a request used that still works but will go: what the response's `warnings` (and
// over HTTP a Warning header) tell the caller.
struct Deprecation {
  std::string field;        // the deprecated name, e.g. "text"
  std::string replacement;  // the name to use instead, e.g. "content"
  std::string message;
};

// POST /v1/memories. `content` becomes one memory (`text` is its deprecated alias: the name
// this route used before `content`, as PATCH and messages call it, became the one name; both
// given and different is InvalidArgument); `messages` one memory per message
// (type message, metadata.role = the role). infer: whether to run extraction (the write
// path, the default): `text` is one user turn, `messages` the turns; type, tier, confidence,
// entities and valid times are then the extractor's and refused here; tags, metadata and
// importance apply to what is extracted, created_at is when the turns were said.
// infer=false stores memories as given. async (only with infer): 202 and a job id.
using InferItem = RememberItem;
struct AddRequest {
  Scope scope;
  bool infer = true;
  bool async = false;
  std::vector<NewMemory> memories;     // infer=false
  std::vector<InferItem> infer_items;  // infer=true: one per request (batch: per entry)
  std::vector<Deprecation> warnings;   // deprecated names the request used, each once
};
Result<AddRequest> DecodeAdd(const nlohmann::json& body, const std::string& tenant,
                             const Limits& limits);

// POST /v1/memories/batch: one scope, many memories, stored all or nothing.
// {user_id, agent_id?, session_id?, infer?, memories: [{content | messages, type?, ...}]}
Result<AddRequest> DecodeBatch(const nlohmann::json& body, const std::string& tenant,
                               const Limits& limits);

// GET /v1/memories?user_id=…&type=…&tier=…&status=…&tag=…&after=…&before=…&limit=…&cursor=…
struct ListRequest {
  Scope scope;
  ListQuery query;
};
Result<ListRequest> DecodeList(const Params& params, const std::string& tenant,
                               const Limits& limits);

// The scope of a request naming one memory (GET/PATCH/DELETE /v1/memories/{id}, history):
// ?user_id=…&agent_id=…. `allowed` lists further parameters the route accepts.
Result<Scope> DecodeItemScope(const Params& params, const std::string& tenant,
                              const std::set<std::string>& allowed = {});
// DELETE /v1/memories?user_id=… (hard delete of a user's memories).
Result<Scope> DecodeUserScope(const Params& params, const std::string& tenant);

// POST /v1/sessions/{id}/messages: {user_id, agent_id?, messages: [{role, content,
// created_at?, id?}], infer? (default true), tags?, metadata?, importance?}.
struct SessionMessagesRequest {
  Scope scope;  // session_id from the path
  std::vector<Turn> turns;
  bool infer = true;
  RememberOptions options;
};
Result<SessionMessagesRequest> DecodeSessionMessages(const nlohmann::json& body,
                                                     const std::string& session_id,
                                                     const std::string& tenant,
                                                     const Limits& limits);
// POST /v1/sessions/{id}/close: {user_id, agent_id?}.
Result<Scope> DecodeSessionClose(const nlohmann::json& body, const std::string& session_id,
                                 const std::string& tenant);

// The persisted payload of an asynchronous add (a job): the scope and the infer items.
std::string EncodeRememberJob(const AddRequest& request);
Result<AddRequest> DecodeRememberJob(std::string_view payload, const std::string& tenant);

// GET /v1/users?limit=…&cursor=…: the page of the caller's tenant's users to read.
Result<PageRequest> DecodeUserList(const Params& params, const Limits& limits);
// GET /v1/sessions?user_id=…&agent_id=…&limit=…&cursor=…: a user's sessions.
struct SessionListRequest {
  Scope scope;
  PageRequest page;
};
Result<SessionListRequest> DecodeSessionList(const Params& params, const std::string& tenant,
                                             const Limits& limits);

// GET /v1/admin/keys?tenant=…: the tenant whose keys to list, "" for every tenant.
Result<std::string> DecodeKeyListTenant(const Params& params);
// DELETE /v1/admin/tenants/{tenant}?verify=…: the tenant to erase (1..128 bytes of UTF-8
// without control characters) and whether to prove it by the byte scan (default false).
struct TenantPurgeRequest {
  std::string tenant;
  bool verify = false;
};
Result<TenantPurgeRequest> DecodeTenantPurge(const std::string& tenant, const Params& params);

// PATCH /v1/memories/{id}: the fields to change (content, type, tier, tags, entities,
// metadata, importance, confidence, valid_from, valid_to (null clears it), expires_at (null
// clears it), status, reason).
Result<MemoryPatch> DecodePatch(const nlohmann::json& body);

// POST /v1/search
struct SearchRequest {
  Scope scope;
  SearchQuery query;
  // "sources": ["memories", "knowledge"] (the default: both). Knowledge hits are the chunks of
  // the tenant's shared documents and the agent's (Engine::SearchKnowledge), at most
  // knowledge_k ("knowledge_k", 1..50, default 5).
  bool memories = true;
  bool knowledge = true;
  int knowledge_k = 5;
};
Result<SearchRequest> DecodeSearch(const nlohmann::json& body, const std::string& tenant,
                                   const Limits& limits);

// POST /v1/context
struct ContextApiRequest {
  Scope scope;
  ContextRequest request;
  // "profile": true: the user's profile leads the block, in at most profile_share of the
  // budget (the route builds it: include/engram/profile.h).
  bool profile = false;
  double profile_share = 0.3;
};
Result<ContextApiRequest> DecodeContext(const nlohmann::json& body, const std::string& tenant,
                                        const Limits& limits);

// POST /v1/recall: {user_id, agent_id?, messages: [{role, content}] (the latest turns, oldest
// first), k? (1..20, default 3), min_score? (0..1, default 0.6)}.
struct RecallApiRequest {
  Scope scope;
  RecallRequest request;
};
Result<RecallApiRequest> DecodeRecall(const nlohmann::json& body, const std::string& tenant);

// Decodes the `filters` object shared by search and context.
Result<SearchFilters> DecodeFilters(const nlohmann::json& filters);

// A query-string flag: "true"/"1" or "false"/"0"; absent → `fallback`.
Result<bool> ParamBool(const Params& params, const std::string& key, bool fallback);

}  // namespace engram::api
