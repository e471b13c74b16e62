#include "api/responses.h"

#include "codec/item_json.h"
#include "codec/json_text.h"
#include "engram/clock.h"

namespace engram::api {

using json = nlohmann::json;

std::string AddedJsonText(const std::vector<MemoryItem>& items) {
  std::string out;
  out.reserve(64 + items.size() * 1024);
  json_text::Object o(&out);
  json_text::AppendArray(o.Key("results"), items, [](std::string* to, const MemoryItem& item) {
    json_text::Object entry(to);
    json_text::AppendString(entry.Key("event"), "ADD");
    json_text::AppendString(entry.Key("id"), item.id);
    AppendItemJson(entry.Key("memory"), item);
    entry.Close();
  });
  o.Close();
  return out;
}

json AddedToJson(const std::vector<MemoryItem>& items) { return json::parse(AddedJsonText(items)); }

json RememberedToJson(const std::vector<RememberResult>& results) {
  json out = json::array();
  json errors = json::array();
  json skipped = json::array();
  std::string extractor;
  for (size_t i = 0; i < results.size(); ++i) {
    const RememberResult& r = results[i];
    if (extractor.empty() || r.extractor != "raw") extractor = r.extractor;
    if (!r.extraction_error.empty()) errors.push_back(r.extraction_error);
    for (const WriteOutcome& w : r.writes) {
      json entry{{"id", w.memory.id},
                 {"event", ToString(w.decision)},
                 {"kind", w.turn ? "turn" : "memory"},
                 {"memory", ItemToJson(w.memory)}};
      if (w.decision == WriteDecision::kSupersede) entry["replaced"] = ItemToJson(w.replaced);
      out.push_back(std::move(entry));
    }
    for (const SkippedTurn& t : r.skipped) {
      json entry{{"message", t.turn}, {"reason", t.reason}};
      if (results.size() > 1) entry["memory_index"] = i;
      skipped.push_back(std::move(entry));
    }
  }
  return json{{"results", std::move(out)},
              {"skipped", std::move(skipped)},
              {"extractor", extractor},
              {"extraction_errors", std::move(errors)}};
}

json WarningsToJson(const std::vector<Deprecation>& warnings) {
  json out = json::array();
  for (const Deprecation& d : warnings) {
    out.push_back({{"code", "deprecated_field"},
                   {"field", d.field},
                   {"replacement", d.replacement},
                   {"message", d.message}});
  }
  return out;
}

namespace {

json CursorJson(const std::string& cursor) { return cursor.empty() ? json(nullptr) : json(cursor); }

json OptTimeJson(const std::optional<TimestampMs>& t) {
  return t ? json(FormatTimestamp(*t)) : json(nullptr);
}

}  // namespace

json UserPageToJson(const UserPage& page) {
  json results = json::array();
  for (const UserSummary& u : page.users) {
    results.push_back({{"user_id", u.user_id}, {"items", u.items}, {"sessions", u.sessions}});
  }
  return json{{"results", std::move(results)}, {"next_cursor", CursorJson(page.next_cursor)}};
}

json SessionPageToJson(const SessionPage& page) {
  json results = json::array();
  for (const SessionSummary& s : page.sessions) {
    results.push_back({{"session_id", s.session_id},
                       {"agent_id", s.agent_id},
                       {"started_at", FormatTimestamp(s.started_at)},
                       {"last_turn_at", OptTimeJson(s.last_turn_at)},
                       {"closed_at", OptTimeJson(s.closed_at)},
                       {"summary_id", s.summary_id.empty() ? json(nullptr) : json(s.summary_id)},
                       {"turn_count", s.turn_count}});
  }
  return json{{"results", std::move(results)}, {"next_cursor", CursorJson(page.next_cursor)}};
}

json JobAcceptedToJson(const std::string& job_id) {
  return json{{"job_id", job_id}, {"state", "queued"}};
}

json JobToJson(const JobInfo& job) {
  json result = nullptr;
  if (!job.result.empty()) {
    result = json::parse(job.result, nullptr, /*allow_exceptions=*/false);
    if (result.is_discarded()) result = job.result;
  }
  return json{{"id", job.id},
              {"kind", job.kind},
              {"state", ToString(job.state)},
              {"attempts", job.attempts},
              {"result", std::move(result)},
              {"error", job.error.empty() ? json(nullptr) : json(job.error)},
              {"created_at", FormatTimestamp(job.created_at)},
              {"updated_at", FormatTimestamp(job.updated_at)}};
}

json TurnToJson(const StoredTurn& t) {
  return json{{"id", t.message_id},
              {"role", t.role},
              {"content", t.content},
              {"created_at", FormatTimestamp(t.at)}};
}

json WorkingMemoryToJson(const WorkingMemory& w) {
  json turns = json::array();
  for (const StoredTurn& t : w.turns) turns.push_back(TurnToJson(t));
  auto opt = [](const std::optional<TimestampMs>& t) {
    return t ? json(FormatTimestamp(*t)) : json(nullptr);
  };
  return json{{"session_id", w.session.session_id},
              {"agent_id", w.session.agent_id},
              {"started_at", FormatTimestamp(w.session.started_at)},
              {"last_turn_at", opt(w.session.last_turn_at)},
              {"closed_at", opt(w.session.closed_at)},
              {"turn_count", w.session.turn_count},
              {"working", {{"turns", std::move(turns)}, {"tokens", w.tokens}}},
              {"summary", w.summary ? ItemToJson(*w.summary) : json(nullptr)}};
}

std::string PageJsonText(const ListPage& page) {
  std::string out;
  out.reserve(64 + page.items.size() * 1024);
  json_text::Object o(&out);
  std::string* cursor = o.Key("next_cursor");
  if (page.next_cursor.empty())
    cursor->append("null");
  else
    json_text::AppendString(cursor, page.next_cursor);
  json_text::AppendArray(o.Key("results"), page.items, &AppendItemJson);
  o.Close();
  return out;
}

json PageToJson(const ListPage& page) { return json::parse(PageJsonText(page)); }

json HistoryListToJson(const std::vector<HistoryEntry>& history) {
  json results = json::array();
  for (const HistoryEntry& h : history) results.push_back(HistoryToJson(h));
  return json{{"results", std::move(results)}};
}

namespace {

// Keys in alphabetical order, as nlohmann::json keeps them.
void AppendExplain(std::string* out, const ScoreExplain& e) {
  json_text::Object o(out);
  json_text::AppendDouble(o.Key("context"), e.context);
  if (!e.demoted_by.empty()) {  // only when a newer memory outranked it
    json_text::AppendString(o.Key("demoted_by"), e.demoted_by);
    json_text::AppendString(o.Key("demotion"), e.demotion);
  }
  json_text::AppendDouble(o.Key("graph"), e.graph);
  if (!e.graph_via.empty()) {  // only when the graph channel reached it
    json_text::AppendInt(o.Key("graph_hops"), e.graph_hops);
  }
  json_text::AppendInt(o.Key("graph_rank"), e.graph_rank);
  if (!e.graph_via.empty()) json_text::AppendString(o.Key("graph_via"), e.graph_via);
  json_text::AppendDouble(o.Key("importance"), e.importance);
  json_text::AppendDouble(o.Key("keyword"), e.keyword);
  json_text::AppendInt(o.Key("keyword_rank"), e.keyword_rank);
  json_text::AppendDouble(o.Key("recency"), e.recency);
  json_text::AppendDouble(o.Key("relevance"), e.relevance);
  json_text::AppendDouble(o.Key("retention"), e.retention);
  json_text::AppendDouble(o.Key("retention_factor"), e.retention_factor);
  json_text::AppendDouble(o.Key("session"), e.session);
  json_text::AppendDouble(o.Key("time"), e.time);
  json_text::AppendDouble(o.Key("vector"), e.vector);
  json_text::AppendInt(o.Key("vector_rank"), e.vector_rank);
  o.Close();
}

void AppendHit(std::string* out, const SearchHit& hit, bool explain) {
  json_text::Object o(out);
  if (explain) AppendExplain(o.Key("explain"), hit.explain);
  json_text::AppendString(o.Key("id"), hit.item.id);
  AppendItemJson(o.Key("memory"), hit.item);
  json_text::AppendDouble(o.Key("score"), hit.score);
  o.Close();
}

void AppendHits(std::string* out, const std::vector<SearchHit>& hits, bool explain) {
  json_text::AppendArray(
      out, hits, [explain](std::string* to, const SearchHit& hit) { AppendHit(to, hit, explain); });
}

}  // namespace

std::string HitsJsonText(const std::vector<SearchHit>& hits, bool explain) {
  std::string out;
  out.reserve(64 + hits.size() * 1024);
  json_text::Object o(&out);
  AppendHits(o.Key("results"), hits, explain);
  o.Close();
  return out;
}

json HitsToJson(const std::vector<SearchHit>& hits, bool explain) {
  return json::parse(HitsJsonText(hits, explain));
}

json KnowledgeHitsToJson(const std::vector<KnowledgeHit>& hits) {
  json out = json::array();
  for (const KnowledgeHit& h : hits) {
    out.push_back({{"doc_id", h.doc_id},
                   {"agent_id", h.agent_id},
                   {"title", h.title},
                   {"title_path", h.title_path},
                   {"ordinal", h.ordinal},
                   {"char_start", h.char_start},
                   {"char_end", h.char_end},
                   {"text", h.text},
                   {"score", h.score},
                   {"citation", KnowledgeCitation(h)}});
  }
  return out;
}

json ContextToJson(const ContextResult& context) {
  std::string memories;
  AppendHits(&memories, context.memories, /*explain=*/false);
  json out{{"context", context.text},
           {"memories", json::parse(memories)},
           {"tokens", context.tokens},
           {"session", {{"turns", context.session_turns}, {"summary", context.session_summary}}},
           {"profile", context.profile}};
  // Only with chunks: a scope without documents answers exactly as before the knowledge tier.
  if (!context.knowledge.empty()) out["knowledge"] = KnowledgeHitsToJson(context.knowledge);
  return out;
}

json KeyToJson(const ApiKeyInfo& k) {
  return json{{"id", k.id},
              {"tenant", k.tenant},
              {"name", k.name},
              {"role", ToString(k.role)},
              {"prefix", k.prefix},
              {"created_at", FormatTimestamp(k.created_at)},
              {"revoked_at", k.revoked_at ? json(FormatTimestamp(*k.revoked_at)) : json()}};
}

json ErrorToJson(const Status& status) {
  return json{{"error", {{"code", StatusCodeName(status.code())}, {"message", status.message()}}}};
}

json MaintenanceReportToJson(const MaintenanceReport& r) {
  json users = json::array();
  for (const MaintenanceUserCounts& u : r.users) {
    users.push_back({{"tenant", u.tenant},
                     {"user_id", u.user_id},
                     {"examined", u.examined},
                     {"archived", u.archived},
                     {"expired", u.expired},
                     {"purged", u.purged},
                     {"merged", u.merged},
                     {"summarized", u.summarized},
                     {"summaries", u.summaries},
                     {"promoted", u.promoted},
                     {"profiles", u.profiles}});
  }
  json actions = json::array();
  for (const MaintenanceActionRecord& a : r.actions) {
    actions.push_back({{"tenant", a.tenant},
                       {"user_id", a.user_id},
                       {"id", a.item_id},
                       {"action", std::string(ToString(a.action))},
                       {"reason", a.reason},
                       {"content", a.content}});
  }
  return json{
      {"dry_run", r.dry_run},         {"full", r.full},         {"at", FormatTimestamp(r.at)},
      {"examined", r.examined},       {"archived", r.archived}, {"expired", r.expired},
      {"purged", r.purged},           {"merged", r.merged},     {"summarized", r.summarized},
      {"summaries", r.summaries},     {"promoted", r.promoted}, {"profiles", r.profiles},
      {"duration_ms", r.duration_ms}, {"problems", r.problems}, {"users", std::move(users)},
      {"actions", std::move(actions)}};
}

json MaintenanceLogToJson(const std::vector<MaintenanceLogEntry>& log) {
  json results = json::array();
  for (const MaintenanceLogEntry& e : log) {
    results.push_back({{"id", e.item_id},
                       {"action", std::string(ToString(e.action))},
                       {"reason", e.reason},
                       {"at", FormatTimestamp(e.at)}});
  }
  return json{{"results", std::move(results)}};
}

json PurgeToJson(const std::string& id, const PurgeResult& purged) {
  return json{{"id", id},
              {"deleted", true},
              {"hard", true},
              {"purged", purged.ids},
              {"session_turns", purged.session_turns},
              {"jobs", purged.jobs}};
}

json ProfileToJson(const Profile& profile, const std::string& text) {
  json sections = json::array();
  for (const ProfileSection& section : profile.sections) {
    json lines = json::array();
    for (const ProfileLine& l : section.lines) {
      lines.push_back({{"text", l.text},
                       {"memory_ids", l.item_ids},
                       {"type", std::string(ToString(l.type))},
                       {"slot", l.slot},
                       {"importance", l.importance}});
    }
    sections.push_back({{"kind", section.kind}, {"lines", std::move(lines)}});
  }
  json summary = nullptr;
  if (profile.summary) {
    const ProfileSummary& s = *profile.summary;
    summary = {{"text", s.text},       {"memory_ids", s.item_ids},
               {"current", s.current}, {"generated_at", FormatTimestamp(s.generated_at)},
               {"model", s.model},     {"prompt_version", s.prompt_version}};
  }
  return json{{"sections", std::move(sections)},
              {"memories", profile.items},
              {"updated_at", profile.inputs_updated_at > 0
                                 ? json(FormatTimestamp(profile.inputs_updated_at))
                                 : json(nullptr)},
              {"summary", std::move(summary)},
              {"text", text}};
}

json RecallToJson(const std::vector<RecallHit>& hits) {
  json results = json::array();
  for (const RecallHit& h : hits) {
    results.push_back({{"id", h.item.id},
                       {"memory", ItemToJson(h.item)},
                       {"score", h.score},
                       {"reason", h.reason}});
  }
  return json{{"results", std::move(results)}};
}

}  // namespace engram::api
