#include "server/routes.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "api/graph_messages.h"
#include "api/knowledge_api.h"
#include "api/responses.h"
#include "codec/field_reader.h"
#include "codec/item_json.h"
#include "codec/item_validation.h"
#include "engram/profile.h"
#include "engram/transfer.h"
#include "server/audit_trail.h"
#include "server/chat_proxy.h"
#include "shared/redis.h"

namespace engram::server {

JobHandler RememberJobHandler(MemoryWriter* writer) {
  return [writer](const Scope& scope, const std::string& payload,
                  bool last_attempt) -> Result<std::string> {
    auto req = api::DecodeRememberJob(payload, scope.tenant);
    if (!req.ok()) return req.status();
    if (req->scope.user_id != scope.user_id) {
      return Status::InvalidArgument("job payload names another user");
    }
    // A provider failure is retried by the queue; the last attempt keeps the raw turns
    // instead, so an accepted message is never lost.
    for (api::InferItem& item : req->infer_items) item.options.keep_raw_on_failure = last_attempt;
    auto remembered = writer->RememberEach(req->scope, req->infer_items);
    if (!remembered.ok()) return remembered.status();
    return api::RememberedToJson(*remembered).dump();
  };
}

namespace {

using json = nlohmann::json;

// Decodes the body (or returns the 400 it earned) and hands it on.
template <typename Fn>
Reply WithBody(const Call& call, const api::Limits& limits, Fn&& fn) {
  auto body = api::ParseBody(call.body, limits);
  if (!body.ok()) return ErrorReply(body.status());
  return fn(*body);
}

template <typename T>
Reply Respond(const Result<T>& result, json (*encode)(const T&)) {
  if (!result.ok()) return ErrorReply(result.status());
  return JsonReply(encode(*result));
}

template <typename T>
Reply RespondText(const Result<T>& result, std::string (*encode)(const T&)) {
  if (!result.ok()) return ErrorReply(result.status());
  return JsonTextReply(encode(*result));
}

// A reply to a request that used deprecated names: they are listed in the body's `warnings`
// and in Warning headers (code 299, "miscellaneous persistent warning"), so that both a
// client reading bodies and a proxy or log reading headers can see the name is going.
Reply WithWarnings(Reply r, const std::vector<api::Deprecation>& warnings) {
  if (warnings.empty()) return r;
  json body = json::parse(r.body, nullptr, /*allow_exceptions=*/false);
  if (body.is_object()) {
    body["warnings"] = api::WarningsToJson(warnings);
    r.body = DumpJson(body);
  }
  for (const api::Deprecation& d : warnings) {
    r.headers.emplace_back("Warning", "299 engram \"" + d.message + "\"");
  }
  return r;
}

// Runs a decoded add: as a job (async), through the write path (infer) or as given.
Reply StoreMemories(const Services& s, const api::AddRequest& req) {
  if (req.async) {
    auto id = s.jobs->Submit(req.scope, kRememberJob, api::EncodeRememberJob(req));
    if (!id.ok()) return ErrorReply(id.status());
    return JsonReply(api::JobAcceptedToJson(*id), 202);
  }
  if (req.infer) {
    auto remembered = s.writer->RememberEach(req.scope, req.infer_items);
    if (!remembered.ok()) return ErrorReply(remembered.status());
    // 200 when nothing was stored (chit-chat): the body's `skipped` says why.
    bool stored = false;
    for (const RememberResult& x : *remembered) stored = stored || !x.writes.empty();
    Reply r = JsonReply(api::RememberedToJson(*remembered), stored ? 201 : 200);
    for (const RememberResult& x : *remembered) {
      if (!x.extraction_error.empty()) r.log_detail = "extraction failed: " + x.extraction_error;
    }
    return r;
  }
  auto added = s.writer->AddAsGiven(req.scope, req.memories);
  if (!added.ok()) return ErrorReply(added.status());
  return JsonTextReply(api::AddedJsonText(*added), 201);
}

Reply AddMemories(const Services& s, const Call& call, bool batch) {
  return WithBody(call, s.limits, [&](const json& body) {
    auto req = batch ? api::DecodeBatch(body, call.tenant, s.limits)
                     : api::DecodeAdd(body, call.tenant, s.limits);
    if (!req.ok()) return ErrorReply(req.status());
    return WithWarnings(StoreMemories(s, *req), req->warnings);
  });
}

Reply SessionMessages(const Services& s, const Call& call) {
  return WithBody(call, s.limits, [&](const json& body) {
    auto req = api::DecodeSessionMessages(body, call.path_params.at("id"), call.tenant, s.limits);
    if (!req.ok()) return ErrorReply(req.status());
    auto appended = s.sessions->Append(req->scope, req->turns, req->infer, req->options);
    if (!appended.ok()) return ErrorReply(appended.status());
    json out = api::RememberedToJson({appended->remembered});
    json turns = json::array();
    for (const StoredTurn& t : appended->turns) turns.push_back(api::TurnToJson(t));
    out["session_id"] = req->scope.session_id;
    out["turns"] = std::move(turns);
    out["summary"] = appended->summary ? ItemToJson(*appended->summary) : json(nullptr);
    if (!appended->summary_error.empty()) out["summary_error"] = appended->summary_error;
    Reply r = JsonReply(out, 201);
    if (!appended->remembered.extraction_error.empty()) {
      r.log_detail = "extraction failed: " + appended->remembered.extraction_error;
    }
    if (!appended->summary_error.empty()) {
      r.log_detail += (r.log_detail.empty() ? "" : "; ") + std::string("summary not written: ") +
                      appended->summary_error;
    }
    return r;
  });
}

Reply GetSession(const Services& s, const Call& call) {
  auto scope = api::DecodeItemScope(call.params, call.tenant);
  if (!scope.ok()) return ErrorReply(scope.status());
  scope->session_id = call.path_params.at("id");
  return Respond<WorkingMemory>(s.sessions->Working(*scope), &api::WorkingMemoryToJson);
}

Reply CloseSession(const Services& s, const Call& call) {
  return WithBody(call, s.limits, [&](const json& body) {
    auto scope = api::DecodeSessionClose(body, call.path_params.at("id"), call.tenant);
    if (!scope.ok()) return ErrorReply(scope.status());
    auto summary = s.sessions->Close(*scope);
    if (!summary.ok()) return ErrorReply(summary.status());
    return JsonReply(json{{"session_id", scope->session_id},
                          {"closed", true},
                          {"summary", *summary ? ItemToJson(**summary) : json(nullptr)}});
  });
}

Reply GetJob(const Services& s, const Call& call) {
  auto scope = api::DecodeItemScope(call.params, call.tenant);
  if (!scope.ok()) return ErrorReply(scope.status());
  return Respond<JobInfo>(s.jobs->Get(*scope, call.path_params.at("id")), &api::JobToJson);
}

Reply ListMemories(const Services& s, const Call& call) {
  auto req = api::DecodeList(call.params, call.tenant, s.limits);
  if (!req.ok()) return ErrorReply(req.status());
  return RespondText<ListPage>(s.engine->List(req->scope, req->query), &api::PageJsonText);
}

Reply ListUsers(const Services& s, const Call& call) {
  auto page = api::DecodeUserList(call.params, s.limits);
  if (!page.ok()) return ErrorReply(page.status());
  return Respond<UserPage>(s.engine->ListUsers(call.tenant, *page), &api::UserPageToJson);
}

Reply ListSessions(const Services& s, const Call& call) {
  auto req = api::DecodeSessionList(call.params, call.tenant, s.limits);
  if (!req.ok()) return ErrorReply(req.status());
  return Respond<SessionPage>(s.engine->ListSessions(req->scope, req->page),
                              &api::SessionPageToJson);
}

Reply GetMemory(const Services& s, const Call& call) {
  auto scope = api::DecodeItemScope(call.params, call.tenant);
  if (!scope.ok()) return ErrorReply(scope.status());
  return RespondText<MemoryItem>(s.engine->Get(*scope, call.path_params.at("id")), &ItemJsonText);
}

Reply PatchMemory(const Services& s, const Call& call) {
  auto scope = api::DecodeItemScope(call.params, call.tenant);
  if (!scope.ok()) return ErrorReply(scope.status());
  return WithBody(call, s.limits, [&](const json& body) {
    auto patch = api::DecodePatch(body);
    if (!patch.ok()) return ErrorReply(patch.status());
    return RespondText<MemoryItem>(s.engine->Update(*scope, call.path_params.at("id"), *patch),
                                   &ItemJsonText);
  });
}

Reply DeleteMemory(const Services& s, const Call& call) {
  auto scope = api::DecodeItemScope(call.params, call.tenant, {"hard", "reason", "source_turns"});
  if (!scope.ok()) return ErrorReply(scope.status());
  auto hard = api::ParamBool(call.params, "hard", false);
  if (!hard.ok()) return ErrorReply(hard.status());
  auto source_turns = api::ParamBool(call.params, "source_turns", PurgeOptions{}.source_turns);
  if (!source_turns.ok()) return ErrorReply(source_turns.status());
  if (!*hard && call.params.count("source_turns")) {
    return ErrorReply(Status::InvalidArgument("source_turns applies to hard=true only"));
  }
  const std::string& id = call.path_params.at("id");
  if (*hard) {
    auto purged = s.engine->Purge(*scope, id, PurgeOptions{.source_turns = *source_turns});
    if (!purged.ok()) return ErrorReply(purged.status());
    return JsonReply(api::PurgeToJson(id, *purged));
  }
  auto reason = call.params.find("reason");
  Status st = s.engine->Delete(*scope, id, reason == call.params.end() ? "" : reason->second);
  if (!st.ok()) return ErrorReply(st);
  return JsonReply(json{{"id", id}, {"deleted", true}, {"hard", false}});
}

Reply DeleteUserMemories(const Services& s, const Call& call) {
  auto scope = api::DecodeUserScope(call.params, call.tenant);
  if (!scope.ok()) return ErrorReply(scope.status());
  auto purged = s.engine->PurgeScope(*scope);
  if (!purged.ok()) return ErrorReply(purged.status());
  return JsonReply(json{{"user_id", scope->user_id}, {"deleted", *purged}});
}

Reply MemoryHistory(const Services& s, const Call& call) {
  auto scope = api::DecodeItemScope(call.params, call.tenant);
  if (!scope.ok()) return ErrorReply(scope.status());
  return Respond<std::vector<HistoryEntry>>(s.engine->History(*scope, call.path_params.at("id")),
                                            &api::HistoryListToJson);
}

// The entity graph (issue 39): a user's entities with counts, one with its edges, its
// neighbourhood within a few hops.
Reply ListEntities(const Services& s, const Call& call) {
  auto req = api::DecodeEntityList(call.params, call.tenant);
  if (!req.ok()) return ErrorReply(req.status());
  return Respond<EntityPage>(s.engine->ListEntities(req->scope, req->query),
                             &api::EntityPageToJson);
}

Reply GetEntity(const Services& s, const Call& call) {
  auto scope = api::DecodeItemScope(call.params, call.tenant);
  if (!scope.ok()) return ErrorReply(scope.status());
  return Respond<EntityDetail>(s.engine->GetEntity(*scope, call.path_params.at("id")),
                               &api::EntityDetailToJson);
}

Reply EntityNeighbours(const Services& s, const Call& call) {
  auto req = api::DecodeNeighbours(call.params, call.tenant);
  if (!req.ok()) return ErrorReply(req.status());
  return Respond<Neighbourhood>(
      s.engine->EntityNeighbours(req->scope, call.path_params.at("id"), req->walk),
      &api::NeighbourhoodToJson);
}

Reply Search(const Services& s, const Call& call) {
  return WithBody(call, s.limits, [&](const json& body) {
    auto req = api::DecodeSearch(body, call.tenant, s.limits);
    if (!req.ok()) return ErrorReply(req.status());
    std::vector<SearchHit> hits;
    if (req->memories) {
      auto found = s.engine->Search(req->scope, req->query);
      if (!found.ok()) return ErrorReply(found.status());
      hits = std::move(found).value();
    }
    std::vector<KnowledgeHit> chunks;
    if (req->knowledge) {
      KnowledgeQuery q{
          .text = req->query.text, .k = req->knowledge_k, .min_score = req->query.min_score};
      auto found =
          s.engine->SearchKnowledge(KnowledgeScope{req->scope.tenant, req->scope.agent_id}, q);
      if (!found.ok()) return ErrorReply(found.status());
      chunks = std::move(found).value();
    }
    std::string text = api::HitsJsonText(hits, req->query.explain);
    // Only with chunks found: a scope without documents answers exactly as before.
    if (!chunks.empty() && !text.empty() && text.back() == '}') {
      text.pop_back();
      text += ",\"knowledge\":" + DumpJson(api::KnowledgeHitsToJson(chunks)) + "}";
    }
    return JsonTextReply(std::move(text));
  });
}

// The file `path` names, read when the server allows paths (Services::knowledge_dir) and the
// file lies under that directory once resolved.
Result<std::string> ReadAllowedFile(const Services& s, const std::string& path) {
  if (s.knowledge_dir.empty()) {
    return Status::PermissionDenied(
        "this server reads no files for ingestion: upload the content, or start engram serve "
        "with --knowledge-dir DIR to allow paths under DIR");
  }
  std::error_code ec;
  const auto root = std::filesystem::canonical(s.knowledge_dir, ec);
  if (ec) return Status::Unavailable("--knowledge-dir " + s.knowledge_dir + " cannot be read");
  const std::filesystem::path asked(path);
  const auto file = std::filesystem::canonical(asked.is_absolute() ? asked : root / asked, ec);
  const std::string prefix = root.string() + "/";
  if (ec || !file.string().starts_with(prefix)) {
    return Status::PermissionDenied("path '" + path +
                                    "' is not a file under the server's "
                                    "--knowledge-dir");
  }
  if (!std::filesystem::is_regular_file(file, ec)) {
    return Status::NotFound("path '" + path + "' is not a regular file");
  }
  std::ifstream in(file, std::ios::binary);
  std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (!in.good() && !in.eof()) return Status::IOError("cannot read '" + path + "'");
  return data;
}

// POST /v1/knowledge: a document uploaded (content, content_base64) or named by path.
Reply IngestKnowledge(const Services& s, const Call& call) {
  return WithBody(call, s.limits, [&](const json& body) {
    auto req = api::DecodeIngest(body, call.tenant);
    if (!req.ok()) return ErrorReply(req.status());
    if (!req->path.empty()) {  // whether the path may be read comes first
      auto data = ReadAllowedFile(s, req->path);
      if (!data.ok()) return ErrorReply(data.status());
      req->document.content = std::move(data).value();
    }
    if (!req->unsupported_format.empty()) {
      return DocumentErrorReply(Status::InvalidArgument(req->unsupported_format),
                                DocumentProblem::kUnsupportedFormat);
    }
    DocumentProblem problem = DocumentProblem::kNone;
    auto result = s.engine->IngestDocument(req->scope, req->document, &problem);
    if (!result.ok()) return DocumentErrorReply(result.status(), problem);
    return JsonReply(api::IngestResultToJson(*result), result->replaced ? 200 : 201);
  });
}

// GET /v1/knowledge?agent_id=: the scope's documents with their chunk counts.
Reply ListKnowledge(const Services& s, const Call& call) {
  auto target = api::DecodeKnowledgeParams(call.params, call.tenant, false);
  if (!target.ok()) return ErrorReply(target.status());
  return Respond<std::vector<KnowledgeDocument>>(s.engine->ListDocuments(target->scope),
                                                 &api::DocumentListToJson);
}

// GET /v1/knowledge/{id}?agent_id=: the document with its chunks.
Reply GetKnowledge(const Services& s, const Call& call) {
  auto target = api::DecodeKnowledgeParams(call.params, call.tenant, false);
  if (!target.ok()) return ErrorReply(target.status());
  return Respond<DocumentDetail>(s.engine->GetDocument(target->scope, call.path_params.at("id")),
                                 &api::DocumentDetailToJson);
}

// DELETE /v1/knowledge/{id}?agent_id=&verify=: hard delete, optionally proven by a file scan.
Reply DeleteKnowledge(const Services& s, const Call& call) {
  auto target = api::DecodeKnowledgeParams(call.params, call.tenant, true);
  if (!target.ok()) return ErrorReply(target.status());
  const std::string& doc = call.path_params.at("id");
  auto deleted = s.engine->DeleteDocument(target->scope, doc, target->verify);
  if (!deleted.ok()) return ErrorReply(deleted.status());
  return JsonReply(api::DocumentDeletionToJson(doc, *deleted));
}

Reply Context(const Services& s, const Call& call) {
  return WithBody(call, s.limits, [&](const json& body) {
    auto req = api::DecodeContext(body, call.tenant, s.limits);
    if (!req.ok()) return ErrorReply(req.status());
    Scope search_scope = req->scope;
    if (!req->scope.session_id.empty()) {
      // The session's working memory joins the context; memories come from every session.
      search_scope.session_id.clear();
      auto working = s.sessions->Working(req->scope);
      if (!working.ok() && working.status().code() != StatusCode::kNotFound) {
        return ErrorReply(working.status());
      }
      if (working.ok()) {
        for (const StoredTurn& t : working->turns) {
          req->request.session_turns.push_back({t.role, t.content});
        }
        if (working->summary) req->request.session_summary = working->summary->content;
      }
    }
    if (req->profile) {
      auto profile = s.engine->GetProfile(search_scope);
      if (!profile.ok()) return ErrorReply(profile.status());
      req->request.profile =
          ProfileText(*profile, static_cast<int>(req->request.token_budget * req->profile_share));
    }
    return Respond<ContextResult>(s.engine->BuildContext(search_scope, req->request),
                                  &api::ContextToJson);
  });
}

Reply Export(const Services& s, const Call& call) {
  auto scope = api::DecodeUserScope(call.params, call.tenant);
  if (!scope.ok()) return ErrorReply(scope.status());
  std::ostringstream out;
  auto stats = ExportJsonl(*s.engine, {*scope}, out);
  if (!stats.ok()) return ErrorReply(stats.status());
  Reply r;
  r.body = std::move(out).str();
  r.content_type = "application/x-ndjson";
  r.headers.emplace_back("Content-Disposition", "attachment; filename=\"engram-export.jsonl\"");
  return r;
}

// POST /v1/recall: what is worth raising unasked, given the latest turns.
Reply RecallMemories(const Services& s, const Call& call) {
  return WithBody(call, s.limits, [&](const json& body) {
    auto req = api::DecodeRecall(body, call.tenant);
    if (!req.ok()) return ErrorReply(req.status());
    return Respond<std::vector<RecallHit>>(Recall(*s.engine, req->scope, req->request),
                                           &api::RecallToJson);
  });
}

// GET /v1/profile?user_id=…
Reply GetProfile(const Services& s, const Call& call) {
  auto scope = api::DecodeItemScope(call.params, call.tenant);
  if (!scope.ok()) return ErrorReply(scope.status());
  auto profile = s.engine->GetProfile(*scope);
  if (!profile.ok()) return ErrorReply(profile.status());
  return JsonReply(api::ProfileToJson(*profile, ProfileText(*profile, 1 << 20)));
}

// POST /v1/maintenance: one run over the caller's tenant (or one of its users).
Reply Maintain(const Services& s, const Call& call) {
  return WithBody(call, s.limits, [&](const json& body) {
    FieldReader r(body, "request");
    r.CheckKnown({"user_id", "dry_run", "full", "limit"});
    MaintenanceRequest req;
    req.tenant = call.tenant;
    r.String("user_id", &req.user_id);
    r.Bool("dry_run", &req.dry_run);
    r.Bool("full", &req.full);
    int64_t limit = 1000;
    r.Integer("limit", &limit);
    if (r.status().ok() && (limit < 0 || limit > 100'000)) r.Fail("limit", "must be 0..100000");
    if (r.status().ok() && !req.user_id.empty()) {
      r.Absorb(ValidateScope(Scope{req.tenant, req.user_id, "", ""}));
    }
    if (!r.status().ok()) return ErrorReply(r.status());
    req.max_actions_listed = static_cast<size_t>(limit);
    return Respond<MaintenanceReport>(s.engine->Maintain(req), &api::MaintenanceReportToJson);
  });
}

// GET /v1/maintenance/log?user_id=…&limit=…
Reply MaintenanceLog(const Services& s, const Call& call) {
  auto scope = api::DecodeItemScope(call.params, call.tenant, {"limit"});
  if (!scope.ok()) return ErrorReply(scope.status());
  int limit = 1000;
  if (auto it = call.params.find("limit"); it != call.params.end()) {
    char* end = nullptr;
    const long v = std::strtol(it->second.c_str(), &end, 10);
    if (it->second.empty() || *end != '\0' || v < 1 || v > 100'000) {
      return ErrorReply(Status::InvalidArgument("limit must be an integer 1..100000"));
    }
    limit = static_cast<int>(v);
  }
  return Respond<std::vector<MaintenanceLogEntry>>(s.engine->MaintenanceLog(*scope, limit),
                                                   &api::MaintenanceLogToJson);
}

Reply CreateKey(const Services& s, const Call& call) {
  return WithBody(call, s.limits, [&](const json& body) {
    FieldReader r(body, "request");
    r.CheckKnown({"tenant", "name", "role"});
    std::string tenant, name, role = "tenant";
    r.String("tenant", &tenant, /*required=*/true);
    r.String("name", &name);
    r.String("role", &role);
    if (role != "tenant" && role != "admin") r.Fail("role", "must be tenant or admin");
    if (!r.status().ok()) return ErrorReply(r.status());
    auto key = s.keys->Create(tenant, name, role == "admin" ? KeyRole::kAdmin : KeyRole::kTenant);
    if (!key.ok()) return ErrorReply(key.status());
    json j = api::KeyToJson(key->info);
    j["secret"] = key->secret;
    return JsonReply(j, 201);
  });
}

// GET /v1/admin/audit?tenant=&user_id=&since=&limit=&cursor=: the audit log, newest first.
Reply ListAudit(const Services& s, const Call& call) {
  if (!s.audit) {
    return ErrorReply(Status::NotFound("the audit log is off (engram serve --no-audit)"));
  }
  for (const auto& [name, value] : call.params) {
    if (name != "tenant" && name != "user_id" && name != "since" && name != "limit" &&
        name != "cursor") {
      return ErrorReply(Status::InvalidArgument("query parameter '" + name +
                                                "' is not known here (tenant, user_id, since, "
                                                "limit, cursor)"));
    }
  }
  AuditQuery q;
  auto one = [&](const char* name) -> std::string {
    auto it = call.params.find(name);
    return it == call.params.end() ? "" : it->second;
  };
  q.tenant = one("tenant");
  q.user_id = one("user_id");
  if (!one("since").empty()) {
    auto since = ParseTimestamp(one("since"));
    if (!since.ok()) return ErrorReply(since.status().WithContext("since"));
    q.since = *since;
  }
  for (const char* name : {"limit", "cursor"}) {
    const std::string v = one(name);
    if (v.empty()) continue;
    char* end = nullptr;
    const long long n = std::strtoll(v.c_str(), &end, 10);
    if (*end != '\0' || n < 1 || (name == std::string("limit") && n > 10000)) {
      return ErrorReply(
          Status::InvalidArgument(std::string(name) + " must be a positive integer" +
                                  (name == std::string("limit") ? " up to 10000" : "")));
    }
    if (name == std::string("limit")) {
      q.limit = static_cast<int>(n);
    } else {
      q.before_seq = n;
    }
  }
  s.audit->Flush();  // what was just done is listed
  auto rows = s.audit->store()->List(q);
  if (!rows.ok()) return ErrorReply(rows.status());
  json results = json::array();
  for (const AuditEntry& e : *rows) results.push_back(AuditEntryToJson(e));
  json next = nullptr;
  if (static_cast<int>(rows->size()) == q.limit && !rows->empty()) {
    next = std::to_string(rows->back().seq);
  }
  return JsonReply(json{{"results", std::move(results)}, {"next_cursor", next}});
}

// DELETE /v1/admin/tenants/{id}?verify=: erases every user of the tenant (Engine::PurgeTenant).
Reply PurgeTenant(const Services& s, const Call& call) {
  auto req = api::DecodeTenantPurge(call.path_params.at("id"), call.params);
  if (!req.ok()) return ErrorReply(req.status());
  int64_t users = 0;
  auto purged = s.engine->PurgeTenant(req->tenant, req->verify, &users);
  if (!purged.ok()) return ErrorReply(purged.status());
  json out{{"tenant", req->tenant},
           {"users", users},
           {"purged", purged->removed},
           {"purge_ms", purged->purge_ms}};
  if (req->verify) {
    const TraceReport& scan = purged->scan;
    out["verified"] = scan.traces.empty();
    out["traces"] = scan.traces;
    out["needles"] = scan.needles;
    out["shared"] = scan.shared;
    out["files"] = scan.files;
    out["scan_ms"] = purged->scan_ms;
  }
  return JsonReply(out);
}

Reply ListKeys(const Services& s, const Call& call) {
  auto tenant = api::DecodeKeyListTenant(call.params);
  if (!tenant.ok()) return ErrorReply(tenant.status());
  auto keys = s.keys->List(*tenant);
  if (!keys.ok()) return ErrorReply(keys.status());
  json results = json::array();
  for (const ApiKeyInfo& k : *keys) results.push_back(api::KeyToJson(k));
  return JsonReply(json{{"results", std::move(results)}});
}

Reply RevokeKey(const Services& s, const Call& call) {
  Status st = s.keys->Revoke(call.path_params.at("id"));
  if (!st.ok()) return ErrorReply(st);
  return JsonReply(json{{"id", call.path_params.at("id")}, {"revoked", true}});
}

Reply Healthz(const Call&) { return JsonReply(json{{"status", "ok"}}); }

// POST /v1/chat/completions: the chat proxy (server/chat_proxy.h), when an upstream is set.
Reply ChatCompletions(const Services& s, const Call& call) {
  if (!s.chat) {
    return OpenAiError(404, "invalid_request_error", "proxy_not_enabled",
                       "the chat proxy is not enabled on this server: start engram serve with "
                       "--upstream-url (an OpenAI-compatible base URL)");
  }
  return s.chat->Handle(call.tenant, call.body, call.headers, call.reply_later);
}

// How long GET /readyz waits for the write lock when it tries a write (writes failing only).
constexpr int kReadyzProbeWaitMs = 250;

Reply Readyz(const Services& s, const Call&) {
  ListQuery probe;
  probe.limit = 1;
  auto page = s.engine->List(Scope{"__readyz__", "__readyz__", "", ""}, probe);
  if (!page.ok()) {
    Reply r = ProtocolError(503, "unavailable", "the database is not usable");
    r.log_detail = page.status().ToString();
    return r;
  }
  // Reads can work while writes do not (a lock held elsewhere, a full disk): ready means both.
  const Engine::WriteHealth writes = s.engine->CheckWrites(kReadyzProbeWaitMs);
  if (!writes.ok) {
    return ProtocolError(503, "unavailable", "writes are failing: " + writes.cause);
  }
  json ready = {{"status", "ready"}};
  // Without Redis every request still succeeds: the replica is ready, and says in what way it
  // is degraded (a load balancer keeps sending it traffic; an operator sees why).
  if (s.redis != nullptr) {
    // Down, it is tried again here (no sooner than its retry interval), so readiness shows
    // its return even when no request has needed it since.
    if (!s.redis->health().up) (void)s.redis->Command({"PING"});
    const shared::Redis::Health h = s.redis->health();
    if (!h.up) {
      ready["degraded"] = json::array(
          {"redis unreachable (" + h.cause +
           "): rate limits and session summary counts are this replica's own until it is back"});
    }
  }
  return JsonReply(ready);
}

Reply Metrics(const Services& s, const Call&) {
  Reply r;
  r.body = s.metrics ? s.metrics() : "";
  r.content_type = "text/plain; version=0.0.4";
  return r;
}

Reply OpenApi(const Services& s, const Call&) {
  Reply r;
  r.body = s.openapi_json;
  return r;
}

}  // namespace

std::vector<Route> MakeRoutes(const Services& services) {
  const Services* s = &services;
  auto bind = [s](Reply (*fn)(const Services&, const Call&)) {
    return [s, fn](const Call& call) { return fn(*s, call); };
  };
  const Blocking reads = s->reads_block ? Blocking::kYes : Blocking::kNo;
  constexpr Blocking kWrites = Blocking::kYes;  // group commits wait for a disk sync
  return {
      {"POST", "/v1/memories", Access::kTenant,
       [s](const Call& c) { return AddMemories(*s, c, false); }, kWrites},
      {"POST", "/v1/memories/batch", Access::kTenant,
       [s](const Call& c) { return AddMemories(*s, c, true); }, kWrites},
      {"GET", "/v1/memories", Access::kTenant, bind(&ListMemories)},
      // Counts every listed user's items and sessions: long for users with many.
      {"GET", "/v1/users", Access::kTenant, bind(&ListUsers), Blocking::kYes},
      {"GET", "/v1/sessions", Access::kTenant, bind(&ListSessions)},
      {"POST", "/v1/sessions/{id}/messages", Access::kTenant, bind(&SessionMessages), kWrites},
      {"GET", "/v1/sessions/{id}", Access::kTenant, bind(&GetSession)},
      {"POST", "/v1/sessions/{id}/close", Access::kTenant, bind(&CloseSession), kWrites},
      {"GET", "/v1/jobs/{id}", Access::kTenant, bind(&GetJob)},
      {"DELETE", "/v1/memories", Access::kTenant, bind(&DeleteUserMemories), kWrites},
      {"GET", "/v1/memories/{id}", Access::kTenant, bind(&GetMemory)},
      {"PATCH", "/v1/memories/{id}", Access::kTenant, bind(&PatchMemory), kWrites},
      {"DELETE", "/v1/memories/{id}", Access::kTenant, bind(&DeleteMemory), kWrites},
      {"GET", "/v1/memories/{id}/history", Access::kTenant, bind(&MemoryHistory)},
      {"GET", "/v1/entities", Access::kTenant, bind(&ListEntities), reads},
      {"GET", "/v1/entities/{id}", Access::kTenant, bind(&GetEntity), reads},
      // A walk of up to 1,000 entities, each a few indexed reads.
      {"GET", "/v1/entities/{id}/neighbours", Access::kTenant, bind(&EntityNeighbours),
       Blocking::kYes},
      {"POST", "/v1/search", Access::kTenant, bind(&Search), reads},
      {"POST", "/v1/context", Access::kTenant, bind(&Context), reads},
      // Reading a PDF runs pdftotext; embedding and the commit take long for big documents.
      {"POST", "/v1/knowledge", Access::kTenant, bind(&IngestKnowledge), Blocking::kYes},
      {"GET", "/v1/knowledge", Access::kTenant, bind(&ListKnowledge)},
      // A document of thousands of chunks is a long read and a large reply.
      {"GET", "/v1/knowledge/{id}", Access::kTenant, bind(&GetKnowledge), Blocking::kYes},
      {"DELETE", "/v1/knowledge/{id}", Access::kTenant, bind(&DeleteKnowledge), kWrites},
      // A user's whole store: long enough to stall an event loop's other connections.
      {"GET", "/v1/export", Access::kTenant, bind(&Export), Blocking::kYes},
      // A run over a whole tenant reads and writes for seconds or more.
      {"POST", "/v1/maintenance", Access::kTenant, bind(&Maintain), Blocking::kYes},
      {"GET", "/v1/maintenance/log", Access::kTenant, bind(&MaintenanceLog)},
      // Lists every active memory of the user: long for users with many.
      {"GET", "/v1/profile", Access::kTenant, bind(&GetProfile), Blocking::kYes},
      {"POST", "/v1/recall", Access::kTenant, bind(&RecallMemories), Blocking::kYes},
      // Prepares on a worker, answers once the upstream's status is in (chat_proxy.h).
      {"POST", "/v1/chat/completions", Access::kTenant, bind(&ChatCompletions), Blocking::kDeferred,
       /*any_key_when_keyless=*/true},
      {"POST", "/v1/admin/keys", Access::kAdmin, bind(&CreateKey), kWrites},
      {"GET", "/v1/admin/keys", Access::kAdmin, bind(&ListKeys)},
      {"GET", "/v1/admin/audit", Access::kAdmin, bind(&ListAudit), Blocking::kYes},
      {"DELETE", "/v1/admin/tenants/{id}", Access::kAdmin, bind(&PurgeTenant), kWrites},
      {"DELETE", "/v1/admin/keys/{id}", Access::kAdmin, bind(&RevokeKey), kWrites},
      {"GET", "/healthz", Access::kPublic, &Healthz},
      // While writes fail, a readiness check tries one (CheckWrites), which may wait briefly.
      {"GET", "/readyz", Access::kPublic, bind(&Readyz), Blocking::kYes},
      // Every 5 s the counts scan the items table.
      {"GET", "/metrics", Access::kPublic, bind(&Metrics), Blocking::kYes},
      {"GET", "/openapi.json", Access::kPublic, bind(&OpenApi)},
  };
}

}  // namespace engram::server
