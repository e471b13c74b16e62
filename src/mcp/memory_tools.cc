#include "mcp/memory_tools.h"

#include <algorithm>
#include <array>

#include "api/graph_messages.h"
#include "api/knowledge_api.h"
#include "api/responses.h"
#include "codec/field_reader.h"
#include "codec/item_json.h"
#include "core/status_macros.h"

namespace engram::mcp {
namespace {

using json = nlohmann::json;

// The arguments with user_id filled in from the server's default user when absent.
Result<json> WithUser(const ToolEnv& env, const json& arguments) {
  json args = arguments;
  if (args.contains("user_id") && !args.at("user_id").is_null()) return args;
  if (env.default_user.empty()) {
    return Status::InvalidArgument(
        "argument 'user_id' is required: pass it, or start `engram mcp` with --user "
        "(or ENGRAM_USER)");
  }
  args["user_id"] = env.default_user;
  return args;
}

// The HTTP API takes the list filters and the scope of a one-memory call from the query
// string; a tool gets them as JSON arguments. Rendering those as query parameters lets both
// go through the same decoder (a string list becomes a repeated parameter).
Result<api::Params> AsParams(const json& args) {
  api::Params params;
  for (const auto& [key, v] : args.items()) {
    if (v.is_null()) continue;
    if (v.is_string()) {
      params.emplace(key, v.get<std::string>());
    } else if (v.is_boolean()) {
      params.emplace(key, v.get<bool>() ? "true" : "false");
    } else if (v.is_number()) {
      params.emplace(key, v.dump());
    } else if (v.is_array()) {
      for (const json& e : v) {
        if (!e.is_string()) {
          return Status::InvalidArgument("argument '" + key + "' must be an array of strings");
        }
        params.emplace(key, e.get<std::string>());
      }
    } else {
      return Status::InvalidArgument("argument '" + key +
                                     "' must be a string, a number, a boolean or a list");
    }
  }
  return params;
}

// A tool naming one memory: its id, and the remaining arguments.
struct ItemCall {
  std::string id;
  json rest;
};

Result<ItemCall> SplitId(const json& args) {
  FieldReader r(args, "arguments");
  ItemCall call;
  r.String("id", &call.id, /*required=*/true);
  ENGRAM_RETURN_IF_ERROR(r.status());
  call.rest = args;
  call.rest.erase("id");
  return call;
}

// A result with the deprecated names the arguments used, as the HTTP body lists them.
json WithWarnings(json result, const std::vector<api::Deprecation>& warnings) {
  if (!warnings.empty()) result["warnings"] = api::WarningsToJson(warnings);
  return result;
}

Result<json> AddMemory(const ToolEnv& env, const json& args) {
  // infer defaults to true, as over HTTP and in the CLI: the text goes through the write path.
  ENGRAM_ASSIGN_OR_RETURN(api::AddRequest req, api::DecodeAdd(args, env.tenant, env.limits));
  if (req.async) return Status::InvalidArgument("async is not available over MCP");
  if (req.infer) {
    if (!env.writer) return Status::InvalidArgument("infer is not available in this server");
    ENGRAM_ASSIGN_OR_RETURN(auto results, env.writer->RememberEach(req.scope, req.infer_items));
    return WithWarnings(api::RememberedToJson(results), req.warnings);
  }
  ENGRAM_ASSIGN_OR_RETURN(auto added, env.writer ? env.writer->AddAsGiven(req.scope, req.memories)
                                                 : env.engine->AddBatch(req.scope, req.memories));
  return WithWarnings(api::AddedToJson(added), req.warnings);
}

Result<json> SearchMemories(const ToolEnv& env, const json& args) {
  ENGRAM_ASSIGN_OR_RETURN(api::SearchRequest req, api::DecodeSearch(args, env.tenant, env.limits));
  std::vector<SearchHit> hits;
  if (req.memories) {
    ENGRAM_ASSIGN_OR_RETURN(hits, env.engine->Search(req.scope, req.query));
  }
  json out = api::HitsToJson(hits, req.query.explain);
  if (req.knowledge) {
    KnowledgeQuery q{
        .text = req.query.text, .k = req.knowledge_k, .min_score = req.query.min_score};
    ENGRAM_ASSIGN_OR_RETURN(
        auto chunks,
        env.engine->SearchKnowledge(KnowledgeScope{req.scope.tenant, req.scope.agent_id}, q));
    if (!chunks.empty()) out["knowledge"] = api::KnowledgeHitsToJson(chunks);
  }
  return out;
}

// The knowledge tools act on the tenant's (or an agent's) documents, not a user's; a user_id a
// client adds to every call is ignored.
json WithoutUser(const json& args) {
  json out = args;
  out.erase("user_id");
  return out;
}

Result<std::string> AgentOf(const json& args) {
  FieldReader r(args, "arguments");
  std::string agent;
  r.String("agent_id", &agent);
  ENGRAM_RETURN_IF_ERROR(r.status());
  return agent;
}

Result<json> SearchKnowledge(const ToolEnv& env, const json& arguments) {
  const json args = WithoutUser(arguments);
  FieldReader r(args, "arguments");
  r.CheckKnown({"agent_id", "query", "k", "min_score"});
  KnowledgeScope scope{env.tenant, ""};
  KnowledgeQuery q;
  r.String("agent_id", &scope.agent_id);
  r.String("query", &q.text, /*required=*/true);
  r.Int("k", &q.k);
  r.OptNumber("min_score", &q.min_score);
  ENGRAM_RETURN_IF_ERROR(r.status());
  ENGRAM_ASSIGN_OR_RETURN(auto hits, env.engine->SearchKnowledge(scope, q));
  return json{{"results", api::KnowledgeHitsToJson(hits)}};
}

Result<json> IngestDocument(const ToolEnv& env, const json& arguments) {
  const json args = WithoutUser(arguments);
  if (args.contains("path")) {
    return Status::InvalidArgument(
        "argument 'path': the MCP server reads no files; give content "
        "or content_base64");
  }
  ENGRAM_ASSIGN_OR_RETURN(api::IngestApiRequest req, api::DecodeIngest(args, env.tenant));
  if (!req.unsupported_format.empty()) {
    return Status::InvalidArgument("unsupported_format: " + req.unsupported_format);
  }
  DocumentProblem problem = DocumentProblem::kNone;
  auto result = env.engine->IngestDocument(req.scope, req.document, &problem);
  if (!result.ok()) {
    return problem == DocumentProblem::kNone
               ? result.status()
               : Status::InvalidArgument(std::string(ToString(problem)) + ": " +
                                         result.status().message());
  }
  return api::IngestResultToJson(*result);
}

Result<json> ListDocuments(const ToolEnv& env, const json& arguments) {
  const json args = WithoutUser(arguments);
  FieldReader r(args, "arguments");
  r.CheckKnown({"agent_id"});
  ENGRAM_RETURN_IF_ERROR(r.status());
  ENGRAM_ASSIGN_OR_RETURN(std::string agent, AgentOf(args));
  ENGRAM_ASSIGN_OR_RETURN(auto docs, env.engine->ListDocuments(KnowledgeScope{env.tenant, agent}));
  return api::DocumentListToJson(docs);
}

Result<json> DeleteDocument(const ToolEnv& env, const json& arguments) {
  const json args = WithoutUser(arguments);
  FieldReader r(args, "arguments");
  r.CheckKnown({"agent_id", "doc_id"});
  std::string doc_id;
  r.String("doc_id", &doc_id, /*required=*/true);
  ENGRAM_RETURN_IF_ERROR(r.status());
  ENGRAM_ASSIGN_OR_RETURN(std::string agent, AgentOf(args));
  ENGRAM_ASSIGN_OR_RETURN(auto deleted,
                          env.engine->DeleteDocument(KnowledgeScope{env.tenant, agent}, doc_id));
  return api::DocumentDeletionToJson(doc_id, deleted);
}

Result<json> GetContext(const ToolEnv& env, const json& args) {
  ENGRAM_ASSIGN_OR_RETURN(api::ContextApiRequest req,
                          api::DecodeContext(args, env.tenant, env.limits));
  if (req.profile) {
    ENGRAM_ASSIGN_OR_RETURN(Profile profile, env.engine->GetProfile(req.scope));
    req.request.profile =
        ProfileText(profile, static_cast<int>(req.request.token_budget * req.profile_share));
  }
  ENGRAM_ASSIGN_OR_RETURN(ContextResult context, env.engine->BuildContext(req.scope, req.request));
  return api::ContextToJson(context);
}

Result<json> GetProfile(const ToolEnv& env, const json& args) {
  ENGRAM_ASSIGN_OR_RETURN(api::Params params, AsParams(args));
  ENGRAM_ASSIGN_OR_RETURN(Scope scope, api::DecodeItemScope(params, env.tenant));
  ENGRAM_ASSIGN_OR_RETURN(Profile profile, env.engine->GetProfile(scope));
  return api::ProfileToJson(profile, ProfileText(profile, 1 << 20));
}

Result<json> RecallMemories(const ToolEnv& env, const json& args) {
  ENGRAM_ASSIGN_OR_RETURN(api::RecallApiRequest req, api::DecodeRecall(args, env.tenant));
  ENGRAM_ASSIGN_OR_RETURN(std::vector<RecallHit> hits, Recall(*env.engine, req.scope, req.request));
  return api::RecallToJson(hits);
}

Result<json> ListMemories(const ToolEnv& env, const json& args) {
  ENGRAM_ASSIGN_OR_RETURN(api::Params params, AsParams(args));
  ENGRAM_ASSIGN_OR_RETURN(api::ListRequest req, api::DecodeList(params, env.tenant, env.limits));
  ENGRAM_ASSIGN_OR_RETURN(ListPage page, env.engine->List(req.scope, req.query));
  return api::PageToJson(page);
}

Result<json> GetMemory(const ToolEnv& env, const json& args) {
  ENGRAM_ASSIGN_OR_RETURN(ItemCall call, SplitId(args));
  ENGRAM_ASSIGN_OR_RETURN(api::Params params, AsParams(call.rest));
  ENGRAM_ASSIGN_OR_RETURN(Scope scope, api::DecodeItemScope(params, env.tenant));
  ENGRAM_ASSIGN_OR_RETURN(MemoryItem item, env.engine->Get(scope, call.id));
  return ItemToJson(item);
}

Result<json> UpdateMemory(const ToolEnv& env, const json& args) {
  ENGRAM_ASSIGN_OR_RETURN(ItemCall call, SplitId(args));
  // The scope fields go the way of the route's query string, the rest is the PATCH body.
  json scope_args = json::object();
  for (const char* key : {"user_id", "agent_id"}) {
    if (call.rest.contains(key)) {
      scope_args[key] = call.rest.at(key);
      call.rest.erase(key);
    }
  }
  ENGRAM_ASSIGN_OR_RETURN(api::Params params, AsParams(scope_args));
  ENGRAM_ASSIGN_OR_RETURN(Scope scope, api::DecodeItemScope(params, env.tenant));
  ENGRAM_ASSIGN_OR_RETURN(MemoryPatch patch, api::DecodePatch(call.rest));
  ENGRAM_ASSIGN_OR_RETURN(MemoryItem item, env.engine->Update(scope, call.id, patch));
  return ItemToJson(item);
}

Result<json> DeleteMemory(const ToolEnv& env, const json& args) {
  ENGRAM_ASSIGN_OR_RETURN(ItemCall call, SplitId(args));
  ENGRAM_ASSIGN_OR_RETURN(api::Params params, AsParams(call.rest));
  ENGRAM_ASSIGN_OR_RETURN(
      Scope scope, api::DecodeItemScope(params, env.tenant, {"hard", "reason", "source_turns"}));
  ENGRAM_ASSIGN_OR_RETURN(bool hard, api::ParamBool(params, "hard", false));
  ENGRAM_ASSIGN_OR_RETURN(bool source_turns,
                          api::ParamBool(params, "source_turns", PurgeOptions{}.source_turns));
  if (!hard && params.count("source_turns")) {
    return Status::InvalidArgument("source_turns applies to hard=true only");
  }
  if (hard) {
    ENGRAM_ASSIGN_OR_RETURN(PurgeResult purged,
                            env.engine->Purge(scope, call.id, {.source_turns = source_turns}));
    return api::PurgeToJson(call.id, purged);
  }
  auto reason = params.find("reason");
  ENGRAM_RETURN_IF_ERROR(
      env.engine->Delete(scope, call.id, reason == params.end() ? "" : reason->second));
  return json{{"id", call.id}, {"deleted", true}, {"hard", false}};
}

Result<json> MemoryHistory(const ToolEnv& env, const json& args) {
  ENGRAM_ASSIGN_OR_RETURN(ItemCall call, SplitId(args));
  ENGRAM_ASSIGN_OR_RETURN(api::Params params, AsParams(call.rest));
  ENGRAM_ASSIGN_OR_RETURN(Scope scope, api::DecodeItemScope(params, env.tenant));
  ENGRAM_ASSIGN_OR_RETURN(auto history, env.engine->History(scope, call.id));
  return api::HistoryListToJson(history);
}

Result<json> ListEntities(const ToolEnv& env, const json& args) {
  ENGRAM_ASSIGN_OR_RETURN(api::Params params, AsParams(args));
  ENGRAM_ASSIGN_OR_RETURN(api::EntityListRequest req, api::DecodeEntityList(params, env.tenant));
  ENGRAM_ASSIGN_OR_RETURN(EntityPage page, env.engine->ListEntities(req.scope, req.query));
  return api::EntityPageToJson(page);
}

// By id, or by a name: the entity named exactly so (or by that alias); an ambiguous or unknown
// name is an error naming the candidates, never a guess.
Result<json> EntityGraph(const ToolEnv& env, const json& args) {
  json rest = args;
  std::string id, name;
  if (rest.contains("id")) {
    if (!rest["id"].is_string()) return Status::InvalidArgument("'id' must be a string");
    id = rest["id"].get<std::string>();
    rest.erase("id");
  }
  if (rest.contains("name")) {
    if (!rest["name"].is_string()) return Status::InvalidArgument("'name' must be a string");
    name = rest["name"].get<std::string>();
    rest.erase("name");
  }
  if (id.empty() == name.empty()) return Status::InvalidArgument("give either 'id' or 'name'");
  ENGRAM_ASSIGN_OR_RETURN(api::Params params, AsParams(rest));
  ENGRAM_ASSIGN_OR_RETURN(api::NeighboursRequest req, api::DecodeNeighbours(params, env.tenant));
  if (id.empty()) {
    EntityQuery q;
    q.name = name;
    q.limit = 50;
    ENGRAM_ASSIGN_OR_RETURN(EntityPage page, env.engine->ListEntities(req.scope, q));
    std::vector<const EntityRecord*> exact;
    for (const EntityRecord& e : page.entities) {
      const bool alias = std::find(e.aliases.begin(), e.aliases.end(), name) != e.aliases.end();
      if (e.name == name || alias) exact.push_back(&e);
    }
    if (exact.size() != 1) {
      std::string names;
      for (const EntityRecord& e : page.entities) names += (names.empty() ? "" : ", ") + e.name;
      return exact.empty()
                 ? Status::NotFound("no entity named '" + name + "'" +
                                    (names.empty() ? "" : "; close: " + names))
                 : Status::InvalidArgument("'" + name + "' names " + std::to_string(exact.size()) +
                                           " entities; give the id");
    }
    id = exact.front()->id;
  }
  ENGRAM_ASSIGN_OR_RETURN(Neighbourhood n, env.engine->EntityNeighbours(req.scope, id, req.walk));
  return api::NeighbourhoodToJson(n);
}

struct ToolEntry {
  std::string_view name;
  Result<json> (*run)(const ToolEnv&, const json&);
};

// Names as in ToolDefinitions (the unit tests check that the two lists agree).
constexpr std::array<ToolEntry, 16> kTools = {{
    {"add_memory", &AddMemory},
    {"search_memories", &SearchMemories},
    {"get_context", &GetContext},
    {"list_memories", &ListMemories},
    {"get_memory", &GetMemory},
    {"update_memory", &UpdateMemory},
    {"delete_memory", &DeleteMemory},
    {"memory_history", &MemoryHistory},
    {"get_profile", &GetProfile},
    {"recall_memories", &RecallMemories},
    {"search_knowledge", &SearchKnowledge},
    {"ingest_document", &IngestDocument},
    {"list_documents", &ListDocuments},
    {"delete_document", &DeleteDocument},
    {"list_entities", &ListEntities},
    {"entity_graph", &EntityGraph},
}};

const ToolEntry* FindTool(std::string_view name) {
  for (const ToolEntry& t : kTools) {
    if (t.name == name) return &t;
  }
  return nullptr;
}

}  // namespace

bool IsKnownTool(std::string_view name) { return FindTool(name) != nullptr; }

Result<json> RunTool(const ToolEnv& env, std::string_view name, const json& arguments) {
  const ToolEntry* tool = FindTool(name);
  if (!tool) return Status::InvalidArgument("unknown tool '" + std::string(name) + "'");
  if (!arguments.is_object()) return Status::InvalidArgument("arguments must be a JSON object");
  // The knowledge tools belong to no user: they get the arguments as given.
  if (name == "search_knowledge" || name == "ingest_document" || name == "list_documents" ||
      name == "delete_document") {
    return tool->run(env, arguments);
  }
  ENGRAM_ASSIGN_OR_RETURN(json args, WithUser(env, arguments));
  return tool->run(env, args);
}

}  // namespace engram::mcp
