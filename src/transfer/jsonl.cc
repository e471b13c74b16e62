#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "codec/field_names.h"
#include "codec/field_reader.h"
#include "codec/item_json.h"
#include "codec/item_validation.h"
#include "core/status_macros.h"
#include "engram/clock.h"
#include "engram/transfer.h"
#include "text/utf8.h"

namespace engram {
namespace {

using json = nlohmann::json;

json RecordToJson(const MemoryRecord& r) {
  json history = json::array();
  for (const HistoryEntry& h : r.history) history.push_back(HistoryToJson(h));
  json vectors = json::array();
  for (const StoredVector& v : r.vectors) {
    vectors.push_back({{"model", v.model},
                       {"dim", v.values.size()},
                       {"values_b64", EncodeVectorBase64(v.values)}});
  }
  return json{{"kind", "memory"},
              {"memory", ItemToJson(r.item)},
              {"history", std::move(history)},
              {"vectors", std::move(vectors)}};
}

Result<StoredVector> VectorFromJson(const json& j) {
  if (!j.is_object() || !j.contains("model") || !j["model"].is_string() || !j.contains("dim") ||
      !j["dim"].is_number_unsigned() || !j.contains("values_b64") || !j["values_b64"].is_string()) {
    return Status::InvalidArgument(
        "vector needs string 'model', integer 'dim', string 'values_b64'");
  }
  StoredVector v{.model = j["model"].get<std::string>()};
  ENGRAM_ASSIGN_OR_RETURN(v.values, DecodeVectorBase64(j["values_b64"].get<std::string>()));
  if (v.values.size() != j["dim"].get<size_t>()) {
    return Status::InvalidArgument("vector 'dim' does not match its values");
  }
  return v;
}

Result<MemoryRecord> RecordFromJson(const json& j, const EngineOptions& options) {
  static const std::set<std::string> kRecordFields = {"kind", "memory", "history", "vectors"};
  for (const auto& [key, value] : j.items()) {
    if (!kRecordFields.count(key)) {
      return Status::InvalidArgument("unknown field '" + key + "'" +
                                     DidYouMean(key, kRecordFields));
    }
  }
  if (!j.contains("memory")) return Status::InvalidArgument("field 'memory' is required");
  MemoryRecord r;
  ENGRAM_ASSIGN_OR_RETURN(r.item, ItemFromJson(j["memory"]));
  if (j.contains("history")) {
    if (!j["history"].is_array()) return Status::InvalidArgument("'history' must be an array");
    for (const json& h : j["history"]) {
      ENGRAM_ASSIGN_OR_RETURN(HistoryEntry entry, HistoryFromJson(h));
      if (entry.item_id != r.item.id) {
        return Status::InvalidArgument("history entry belongs to another item ('" + entry.item_id +
                                       "')");
      }
      r.history.push_back(std::move(entry));
    }
  }
  if (j.contains("vectors")) {
    if (!j["vectors"].is_array()) return Status::InvalidArgument("'vectors' must be an array");
    for (const json& v : j["vectors"]) {
      ENGRAM_ASSIGN_OR_RETURN(StoredVector vec, VectorFromJson(v));
      r.vectors.push_back(std::move(vec));
    }
  }
  ENGRAM_RETURN_IF_ERROR(ValidateItem(r.item, {.max_content_bytes = options.max_content_bytes,
                                               .max_metadata_bytes = options.max_metadata_bytes}));
  return r;
}

json OptTime(const std::optional<TimestampMs>& t) {
  return t ? json(FormatTimestamp(*t)) : json(nullptr);
}

// The lines of what a user has besides memories (format version 2): one per session, one for
// the profile summary, one for the maintenance log.
void WriteExtras(const Scope& scope, const UserExtras& x, std::ostream& out, ExportStats* stats) {
  for (const SessionInfo& s : x.sessions) {
    json turns = json::array();
    for (const StoredTurn& t : s.recent) {
      turns.push_back({{"message_id", t.message_id},
                       {"role", t.role},
                       {"content", t.content},
                       {"at", FormatTimestamp(t.at)}});
    }
    out << json{{"kind", "session"},
                {"tenant", scope.tenant},
                {"user_id", scope.user_id},
                {"session_id", s.session_id},
                {"agent_id", s.agent_id},
                {"started_at", FormatTimestamp(s.started_at)},
                {"last_turn_at", OptTime(s.last_turn_at)},
                {"closed_at", OptTime(s.closed_at)},
                {"summary_id", s.summary_id},
                {"turns", std::move(turns)}}
               .dump()
        << '\n';
    ++stats->sessions;
    stats->turns += static_cast<int64_t>(s.recent.size());
  }
  if (x.profile) {
    const ProfileSummary& p = *x.profile;
    out << json{{"kind", "profile"},
                {"tenant", scope.tenant},
                {"user_id", scope.user_id},
                {"summary",
                 {{"text", p.text},
                  {"memory_ids", p.item_ids},
                  {"fingerprint", p.fingerprint},
                  {"model", p.model},
                  {"prompt_version", p.prompt_version},
                  {"generated_at", FormatTimestamp(p.generated_at)}}}}
               .dump()
        << '\n';
    ++stats->profiles;
  }
  if (!x.maintenance_log.empty()) {
    json entries = json::array();
    for (const MaintenanceLogEntry& e : x.maintenance_log) {
      entries.push_back({{"item_id", e.item_id},
                         {"action", std::string(ToString(e.action))},
                         {"reason", e.reason},
                         {"at", FormatTimestamp(e.at)}});
    }
    out << json{{"kind", "maintenance_log"},
                {"tenant", scope.tenant},
                {"user_id", scope.user_id},
                {"entries", std::move(entries)}}
               .dump()
        << '\n';
    stats->log_entries += static_cast<int64_t>(x.maintenance_log.size());
  }
}

// One extras line into `x` (appended to what the user's earlier lines gave).
Status ReadExtras(const json& j, const std::string& kind, Scope* scope, UserExtras* x) {
  FieldReader r(j, kind);
  if (kind == "session") {
    r.CheckKnown({"kind", "tenant", "user_id", "session_id", "agent_id", "started_at",
                  "last_turn_at", "closed_at", "summary_id", "turns"});
  } else if (kind == "profile") {
    r.CheckKnown({"kind", "tenant", "user_id", "summary"});
  } else {
    r.CheckKnown({"kind", "tenant", "user_id", "entries"});
  }
  r.String("tenant", &scope->tenant, /*required=*/true);
  r.String("user_id", &scope->user_id, /*required=*/true);
  if (kind == "session") {
    SessionInfo s;
    r.String("session_id", &s.session_id, /*required=*/true);
    r.String("agent_id", &s.agent_id);
    r.Time("started_at", &s.started_at);
    r.OptTime("last_turn_at", &s.last_turn_at);
    r.OptTime("closed_at", &s.closed_at);
    r.String("summary_id", &s.summary_id);
    const json* turns = r.Child("turns");
    if (turns && !turns->is_array()) r.Fail("turns", "must be an array");
    ENGRAM_RETURN_IF_ERROR(r.status());
    if (turns) {
      for (size_t i = 0; i < turns->size(); ++i) {
        const std::string what = "turns[" + std::to_string(i) + "]";  // outlives the reader
        FieldReader t(turns->at(i), what);
        t.CheckKnown({"message_id", "role", "content", "at"});
        StoredTurn turn;
        t.String("message_id", &turn.message_id, /*required=*/true);
        t.String("role", &turn.role, /*required=*/true);
        t.String("content", &turn.content, /*required=*/true);
        t.Time("at", &turn.at);
        ENGRAM_RETURN_IF_ERROR(t.status());
        s.recent.push_back(std::move(turn));
      }
    }
    s.turn_count = static_cast<int64_t>(s.recent.size());
    x->sessions.push_back(std::move(s));
    return Status::Ok();
  }
  if (kind == "profile") {
    const json* summary = r.Child("summary");
    if (!summary) r.Fail("summary", "is required");
    ENGRAM_RETURN_IF_ERROR(r.status());
    FieldReader p(*summary, "summary");
    p.CheckKnown({"text", "memory_ids", "fingerprint", "model", "prompt_version", "generated_at"});
    ProfileSummary out;
    p.String("text", &out.text, /*required=*/true);
    p.StringList("memory_ids", &out.item_ids);
    p.String("fingerprint", &out.fingerprint);
    p.String("model", &out.model);
    p.String("prompt_version", &out.prompt_version);
    p.Time("generated_at", &out.generated_at);
    ENGRAM_RETURN_IF_ERROR(p.status());
    x->profile = std::move(out);
    return Status::Ok();
  }
  const json* entries = r.Child("entries");
  if (!entries || !entries->is_array()) r.Fail("entries", "must be an array");
  ENGRAM_RETURN_IF_ERROR(r.status());
  for (size_t i = 0; i < entries->size(); ++i) {
    const std::string what = "entries[" + std::to_string(i) + "]";  // outlives the reader
    FieldReader e(entries->at(i), what);
    e.CheckKnown({"item_id", "action", "reason", "at"});
    MaintenanceLogEntry entry;
    e.String("item_id", &entry.item_id, /*required=*/true);
    e.Enum("action", &entry.action, &ParseMaintenanceAction);
    e.String("reason", &entry.reason);
    e.Time("at", &entry.at);
    ENGRAM_RETURN_IF_ERROR(e.status());
    x->maintenance_log.push_back(std::move(entry));
  }
  return Status::Ok();
}

// Parses one non-blank line: a record, or (is_header) the export header.
Result<MemoryRecord> ParseLine(const std::string& line, const EngineOptions& options,
                               bool* is_header,
                               std::map<std::pair<std::string, std::string>, UserExtras>* extras,
                               bool* is_extras) {
  *is_header = false;
  *is_extras = false;
  size_t bad = 0;
  if (!IsValidUtf8(line, &bad)) {
    return Status::InvalidArgument("invalid UTF-8 at byte " + std::to_string(bad));
  }
  json j = json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return Status::InvalidArgument("not valid JSON");
  if (!j.is_object()) return Status::InvalidArgument("a line must be a JSON object");
  std::string kind =
      j.contains("kind") && j["kind"].is_string() ? j["kind"].get<std::string>() : "memory";
  if (kind == "engram-export") {
    *is_header = true;
    if (!j.contains("version") || !j["version"].is_number_integer() ||
        j["version"].get<int>() > kExportFormatVersion || j["version"].get<int>() < 1) {
      return Status::InvalidArgument("unsupported export format version (this Engram reads 1.." +
                                     std::to_string(kExportFormatVersion) + ")");
    }
    return MemoryRecord{};
  }
  if (kind == "session" || kind == "profile" || kind == "maintenance_log") {
    *is_extras = true;
    Scope scope;
    UserExtras x;
    ENGRAM_RETURN_IF_ERROR(ReadExtras(j, kind, &scope, &x));
    UserExtras& into = (*extras)[{scope.tenant, scope.user_id}];
    for (SessionInfo& s : x.sessions) into.sessions.push_back(std::move(s));
    if (x.profile) into.profile = std::move(x.profile);
    for (MaintenanceLogEntry& e : x.maintenance_log) into.maintenance_log.push_back(std::move(e));
    return MemoryRecord{};
  }
  if (kind != "memory") return Status::InvalidArgument("unknown line kind '" + kind + "'");
  return RecordFromJson(j, options);
}

struct PendingBatch {
  std::vector<MemoryRecord> records;
  int64_t first_line = 0;
  int64_t last_line = 0;
  bool has_error = false;
};

void FlushBatch(Engine& engine, const ImportOptions& options, PendingBatch* batch,
                ImportReport* report) {
  const int64_t count = static_cast<int64_t>(batch->records.size());
  if (batch->has_error) {
    report->rejected += count;
  } else if (count > 0) {
    auto stats = engine.Import(batch->records, options.on_conflict);
    if (stats.ok()) {
      report->imported += stats->imported;
      report->skipped += stats->skipped;
    } else {
      report->rejected += count;
      report->errors.push_back({batch->first_line, "lines " + std::to_string(batch->first_line) +
                                                       "-" + std::to_string(batch->last_line) +
                                                       " rejected: " + stats.status().ToString()});
    }
  }
  *batch = PendingBatch{};
}

}  // namespace

Result<ExportStats> ExportJsonl(Engine& engine, const std::vector<Scope>& scopes,
                                std::ostream& out) {
  ExportStats stats;
  out << json{{"kind", "engram-export"},
              {"version", kExportFormatVersion},
              {"exported_at", FormatTimestamp(engine.options().clock->NowMs())}}
             .dump()
      << '\n';
  for (const Scope& scope : scopes) {
    ENGRAM_RETURN_IF_ERROR(engine.Export(scope, [&](const MemoryRecord& r) {
      out << RecordToJson(r).dump() << '\n';
      ++stats.memories;
      return out ? Status::Ok() : Status::IOError("writing the export failed");
    }));
    ENGRAM_ASSIGN_OR_RETURN(UserExtras extras, engine.ExportUserExtras(scope));
    WriteExtras(Scope{scope.tenant, scope.user_id, "", ""}, extras, out, &stats);
  }
  out.flush();
  if (!out) return Status::IOError("writing the export failed");
  return stats;
}

Result<ImportReport> ImportJsonl(Engine& engine, std::istream& in, const ImportOptions& options) {
  ImportReport report;
  PendingBatch batch;
  std::map<std::pair<std::string, std::string>, UserExtras> extras;  // by (tenant, user)
  bool extras_error = false;
  std::string line;
  int64_t line_no = 0;
  int64_t bytes = 0;
  const size_t batch_size = std::max<size_t>(1, options.batch_size);
  while (std::getline(in, line)) {
    ++line_no;
    bytes += static_cast<int64_t>(line.size()) + 1;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find_first_not_of(" \t") == std::string::npos) continue;
    ++report.lines;
    bool is_header = false, is_extras = false;
    auto record = ParseLine(line, engine.options(), &is_header, &extras, &is_extras);
    if (!record.ok()) {
      report.errors.push_back(
          {line_no, "line " + std::to_string(line_no) + ": " + record.status().message()});
      if (is_extras) {
        extras_error = true;
        continue;
      }
      batch.has_error = true;
    }
    if (is_header) continue;
    if (is_extras) continue;
    if (batch.records.empty()) batch.first_line = line_no;
    batch.last_line = line_no;
    batch.records.push_back(record.ok() ? std::move(record).value() : MemoryRecord{});
    if (batch.records.size() >= batch_size) {
      FlushBatch(engine, options, &batch, &report);
      if (options.progress) options.progress(bytes);
    }
  }
  if (in.bad()) return Status::IOError("reading the import stream failed");
  FlushBatch(engine, options, &batch, &report);
  // Sessions, profile summaries and maintenance logs, after every memory (a session names its
  // summary memory), a user at a time; none when one of their lines was malformed.
  for (const auto& [who, x] : extras) {
    if (extras_error) break;
    const Scope scope{who.first, who.second, "", ""};
    auto stats = engine.ImportUserExtras(scope, x, options.on_conflict);
    if (!stats.ok()) {
      report.errors.push_back({line_no, "sessions, profile and log of " + who.first + "/" +
                                            who.second +
                                            " rejected: " + stats.status().ToString()});
      continue;
    }
    report.sessions += stats->sessions;
    report.turns += stats->turns;
    report.profiles += stats->profiles;
    report.log_entries += stats->log_entries;
    report.skipped += stats->skipped_sessions;
  }
  if (options.progress) options.progress(bytes);
  return report;
}

}  // namespace engram
