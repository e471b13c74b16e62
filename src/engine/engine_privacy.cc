// Verified purges (Engine::PurgeScopeVerified, Engine::FindTraces): a hard delete proven by a
// byte scan of every file the engine writes.
#include <chrono>
#include <filesystem>
#include <map>

#include "core/status_macros.h"
#include "engine/engine_impl.h"
#include "engine/validation.h"
#include "storage/memory_store.h"
#include "storage/postgres.h"
#include "storage/reseal.h"
#include "storage/trace_scan.h"

namespace engram {
namespace {

int64_t MsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() -
                                                               start)
      .count();
}

// The first bytes of a found text, printable (a cut UTF-8 sequence is left out).
std::string Shown(const std::string& text) {
  std::string out = text.substr(0, 24);
  while (!out.empty() && (static_cast<unsigned char>(out.back()) & 0xC0) == 0x80) out.pop_back();
  if (!out.empty() && static_cast<unsigned char>(out.back()) >= 0xC0) out.pop_back();
  for (char& c : out) {
    if (static_cast<unsigned char>(c) < 0x20) c = ' ';
  }
  return out + (out.size() < text.size() ? "…" : "");
}

// A byte scan reads the database's files; a PostgreSQL server's are not Engram's to read (and
// hold deleted rows until its VACUUM): refused before anything is purged, not reported clean.
Status RequireOwnFiles(const std::string& path) {
  if (!IsPostgresUrl(path)) return Status::Ok();
  return Status::InvalidArgument(
      "a verified purge scans the embedded database's files; on PostgreSQL purge without "
      "verify and let the server's VACUUM reclaim the rows (docs/deploy.md)");
}

}  // namespace

Result<TraceReport> Engine::Impl::FindTraces(const std::vector<std::string>& texts,
                                             const std::vector<std::string>& vectors) {
  ENGRAM_RETURN_IF_ERROR(RequireOwnFiles(options_.path));
  std::vector<std::string> needles = texts;
  needles.insert(needles.end(), vectors.begin(), vectors.end());
  TraceReport report;
  for (const std::string& n : needles) report.needles += n.size() >= kMinNeedleBytes ? 1 : 0;
  const std::vector<std::string> files = EngramFiles(options_.path);
  report.files = static_cast<int64_t>(files.size());
  ENGRAM_ASSIGN_OR_RETURN(std::vector<TraceHit> hits,
                          ScanForNeedles(files, needles, &report.bytes));
  if (hits.empty()) return report;
  // Found needles that data still stored also holds (another user said the same words) are
  // shared, not traces: one pass over what is stored decides for all of them.
  std::vector<std::string> found_texts, found_vectors;
  std::map<size_t, std::pair<bool, size_t>> found;  // needle → (vector, index in its list)
  for (const TraceHit& hit : hits) {
    if (found.count(hit.needle)) continue;
    const bool vector = hit.needle >= texts.size();
    std::vector<std::string>& list = vector ? found_vectors : found_texts;
    found[hit.needle] = {vector, list.size()};
    list.push_back(needles[hit.needle]);
  }
  const NeedleSet text_set(found_texts), vector_set(found_vectors);
  std::vector<bool> text_held(found_texts.size()), vector_held(found_vectors.size());
  ENGRAM_RETURN_IF_ERROR(store_->ScanLiveData([&](std::string_view data, bool vector) {
    (vector ? vector_set : text_set).Scan(data, [&](size_t needle, size_t) {
      (vector ? vector_held : text_held)[needle] = true;
    });
  }));
  for (const auto& [needle, where] : found) {
    if ((where.first ? vector_held : text_held)[where.second]) ++report.shared;
  }
  for (const TraceHit& hit : hits) {
    const auto& [vector, index] = found[hit.needle];
    if ((vector ? vector_held : text_held)[index]) continue;
    report.traces.push_back(
        hit.file + " at byte " + std::to_string(hit.offset) + ": " +
        (vector ? std::string("vector bytes") : "text '" + Shown(needles[hit.needle]) + "'"));
  }
  return report;
}

Result<VerifiedPurge> Engine::Impl::PurgeScopeVerified(const Scope& scope) {
  ENGRAM_RETURN_IF_ERROR(ValidateScope(scope));
  ENGRAM_RETURN_IF_ERROR(RequireOwnFiles(options_.path));
  const auto started = std::chrono::steady_clock::now();
  ENGRAM_ASSIGN_OR_RETURN(ScopeTraces traces, store_->TracesOf(scope));
  VerifiedPurge out;
  ENGRAM_ASSIGN_OR_RETURN(out.removed, PurgeScope(scope));
  out.purge_ms = MsSince(started);
  const auto scan_started = std::chrono::steady_clock::now();
  ENGRAM_ASSIGN_OR_RETURN(out.scan, FindTraces(traces.texts, traces.vectors));
  out.scan_ms = MsSince(scan_started);
  return out;
}

Result<VerifiedPurge> Engine::Impl::PurgeTenant(std::string_view tenant, bool verify,
                                                int64_t* users) {
  if (verify) ENGRAM_RETURN_IF_ERROR(RequireOwnFiles(options_.path));
  const auto started = std::chrono::steady_clock::now();
  // Every user first (a page at a time), so the purge does not move the listing under it.
  std::vector<std::string> ids;
  PageRequest page{.limit = 1000};
  do {
    ENGRAM_ASSIGN_OR_RETURN(UserPage listed, ListUsers(tenant, page));
    for (const UserSummary& u : listed.users) ids.push_back(u.user_id);
    page.cursor = listed.next_cursor;
  } while (!page.cursor.empty());
  std::vector<std::string> texts, vectors;
  VerifiedPurge out;
  for (const std::string& id : ids) {
    const Scope scope{std::string(tenant), id, "", ""};
    if (verify) {
      ENGRAM_ASSIGN_OR_RETURN(ScopeTraces traces, store_->TracesOf(scope));
      texts.insert(texts.end(), traces.texts.begin(), traces.texts.end());
      vectors.insert(vectors.end(), traces.vectors.begin(), traces.vectors.end());
    }
    ENGRAM_ASSIGN_OR_RETURN(int64_t removed, PurgeScope(scope));
    out.removed += removed;
  }
  if (users) *users = static_cast<int64_t>(ids.size());
  // The tenant's knowledge documents (shared and every agent's) go with it.
  ENGRAM_RETURN_IF_ERROR(store_->DeleteTenantKnowledge(tenant).status());
  knowledge_indexes_->InvalidateTenant(std::string(tenant));
  out.purge_ms = MsSince(started);
  if (verify) {
    const auto scan_started = std::chrono::steady_clock::now();
    ENGRAM_ASSIGN_OR_RETURN(out.scan, FindTraces(texts, vectors));
    out.scan_ms = MsSince(scan_started);
  }
  return out;
}

Result<UserExtras> Engine::Impl::ExportUserExtras(const Scope& scope) {
  ENGRAM_RETURN_IF_ERROR(ValidateScope(scope));
  return store_->ReadUserExtras(scope);
}

Result<ExtrasImportStats> Engine::Impl::ImportUserExtras(const Scope& scope,
                                                         const UserExtras& extras,
                                                         OnConflict on_conflict) {
  ENGRAM_RETURN_IF_ERROR(ValidateScope(scope));
  for (const SessionInfo& s : extras.sessions) {
    Scope session = scope;
    session.session_id = s.session_id;
    session.agent_id = s.agent_id;
    ENGRAM_RETURN_IF_ERROR(ValidateScope(session).WithContext("session"));
    if (s.session_id.empty()) return Status::InvalidArgument("a session needs its session_id");
    if (!s.summary_id.empty()) ENGRAM_RETURN_IF_ERROR(ValidateId(s.summary_id));
    for (const StoredTurn& t : s.recent) {
      const std::string where = "session '" + s.session_id + "' turn";
      ENGRAM_RETURN_IF_ERROR(
          ValidateText("message_id", t.message_id, kMaxListEntryBytes).WithContext(where));
      ENGRAM_RETURN_IF_ERROR(ValidateText("role", t.role, kMaxListEntryBytes).WithContext(where));
      ENGRAM_RETURN_IF_ERROR(
          ValidateText("content", t.content, options_.max_content_bytes).WithContext(where));
      if (t.message_id.empty() || t.role.empty() || t.content.empty()) {
        return Status::InvalidArgument(where + ": message_id, role and content are required");
      }
    }
  }
  if (extras.profile) {
    ENGRAM_RETURN_IF_ERROR(
        ValidateText("profile summary", extras.profile->text, options_.max_content_bytes));
    for (const std::string& id : extras.profile->item_ids) ENGRAM_RETURN_IF_ERROR(ValidateId(id));
  }
  for (const MaintenanceLogEntry& e : extras.maintenance_log) {
    ENGRAM_RETURN_IF_ERROR(ValidateText("maintenance log item_id", e.item_id, kMaxListEntryBytes));
    ENGRAM_RETURN_IF_ERROR(ValidateText("maintenance log reason", e.reason, SIZE_MAX));
  }
  std::lock_guard<std::mutex> lock(write_mu_);
  auto stats = store_->WriteUserExtras(scope, extras, on_conflict);
  // Imported turns may belong to sessions whose working memory is loaded: it reloads.
  purge_generation_.fetch_add(1, std::memory_order_acq_rel);
  return stats;
}

}  // namespace engram

namespace engram {

Result<RekeyReport> Engine::Rekey(const std::string& path,
                                  std::shared_ptr<const EncryptionKey> old_key,
                                  std::shared_ptr<const EncryptionKey> new_key) {
  ENGRAM_ASSIGN_OR_RETURN(RekeyReport report, ResealDatabase(path, old_key, new_key));
  // The snapshots (Impl::SnapshotPath) were sealed with the old key, or are plain: caches, so
  // they go rather than being rewritten; the next load rebuilds and saves under the new key.
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(path + ".indexes", ec)) {
    if (entry.path().extension() == ".hnsw" && std::filesystem::remove(entry.path(), ec)) {
      ++report.snapshots_removed;
    }
  }
  return report;
}

}  // namespace engram
