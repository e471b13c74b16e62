// What a verified purge looks for (memory_store.h, "Verified purge"): the words and vectors a
// scope holds, and whether words found on disk after a purge belong to data that stays.
#include <set>

#include "core/status_macros.h"
#include "storage/memory_store.h"
#include "storage/memory_store_internal.h"
#include "text/normalizer.h"

namespace engram {
namespace {

// The bytes a needle keeps: a long text's first 48 bytes are as telling as the whole, and a
// value SQLite spills across overflow pages is contiguous only at its start.
constexpr size_t kNeedlePrefix = 48;

void AddText(std::set<std::string>* out, const std::string& text) {
  if (text.empty()) return;
  out->insert(text.substr(0, kNeedlePrefix));
  const std::string normalized = NormalizeForMatching(text);
  if (normalized != text) out->insert(normalized.substr(0, kNeedlePrefix));
}

// A vector's most telling 64 bytes (16 floats): of the windows that start with a non-zero float
// (the scan indexes a needle by its first 8 bytes, and zeroed pages are all zeros), the one
// holding the most non-zero floats; none when no window holds two (too little to be telling).
std::string VectorNeedle(const std::string& blob) {
  constexpr size_t kFloats = 16;
  const size_t n = blob.size() / 4;
  auto nonzero = [&](size_t f) {
    return blob[4 * f] != 0 || blob[4 * f + 1] != 0 || blob[4 * f + 2] != 0 || blob[4 * f + 3] != 0;
  };
  size_t best = n, best_count = 1;
  for (size_t at = 0; at + kFloats <= n; ++at) {
    if (!nonzero(at)) continue;
    size_t count = 0;
    for (size_t f = at; f < at + kFloats; ++f) count += nonzero(f);
    if (count > best_count) {
      best = at;
      best_count = count;
    }
  }
  return best < n ? blob.substr(4 * best, 4 * kFloats) : "";
}

}  // namespace

Result<ScopeTraces> MemoryStore::TracesOf(const Scope& scope) {
  const Scope whole{scope.tenant, scope.user_id, "", ""};
  ENGRAM_ASSIGN_OR_RETURN(ReaderLease lease, AcquireReader());
  Database* db = lease.db();
  ScopeTraces out;
  ENGRAM_ASSIGN_OR_RETURN(auto scope_id, FindScopeId(db, whole));
  if (!scope_id) return out;
  std::set<std::string> texts, vectors;
  const char* const kTexts[] = {
      "SELECT content FROM items WHERE scope_id = ?1",
      "SELECT h.old_content FROM item_history h JOIN items i ON i.seq = h.item_seq "
      "WHERE i.scope_id = ?1 AND h.old_content IS NOT NULL",
      "SELECT t.content FROM turns t JOIN sessions s ON s.seq = t.session_seq "
      "WHERE s.scope_id = ?1",
      "SELECT summary FROM profiles WHERE scope_id = ?1",
      // The entity graph holds names from the texts, and their normalized forms. Not the
      // user's own entity: it is named by the user id, which the audit log keeps on purpose.
      "SELECT name FROM graph_entities WHERE scope_id = ?1 AND kind <> 'user'",
      "SELECT alias FROM graph_aliases WHERE scope_id = ?1"};
  for (const char* sql : kTexts) {
    ENGRAM_ASSIGN_OR_RETURN(ScopedStatement st, db->Prepare(sql));
    st->Bind(1, *scope_id);
    while (true) {
      ENGRAM_ASSIGN_OR_RETURN(bool row, st->Step());
      if (!row) break;
      AddText(&texts, st->String(0));
    }
  }
  ENGRAM_ASSIGN_OR_RETURN(ScopedStatement st,
                          db->Prepare("SELECT e.vector FROM embeddings e JOIN items i ON "
                                      "i.seq = e.item_seq WHERE i.scope_id = ?"));
  st->Bind(1, *scope_id);
  while (true) {
    ENGRAM_ASSIGN_OR_RETURN(bool row, st->Step());
    if (!row) break;
    const char* data = static_cast<const char*>(st->Blob(0));
    const std::string blob = data ? std::string(data, static_cast<size_t>(st->BlobSize(0))) : "";
    const std::string needle = VectorNeedle(blob);
    if (!needle.empty()) vectors.insert(needle);
  }
  out.texts.assign(texts.begin(), texts.end());
  out.vectors.assign(vectors.begin(), vectors.end());
  return out;
}

Status MemoryStore::ScanLiveData(
    const std::function<void(std::string_view data, bool vector)>& visit) {
  ENGRAM_ASSIGN_OR_RETURN(ReaderLease lease, AcquireReader());
  Database* db = lease.db();
  ENGRAM_RETURN_IF_ERROR(db->BindAllTenants());
  // One read transaction, so every table is seen at one moment.
  ReadTransaction read(db);
  ENGRAM_RETURN_IF_ERROR(read.Begin());
  const std::pair<const char*, bool> kColumns[] = {
      {"SELECT content FROM items", false},
      {"SELECT content FROM turns", false},
      {"SELECT old_content FROM item_history WHERE old_content IS NOT NULL", false},
      {"SELECT payload FROM jobs", false},
      {"SELECT summary FROM profiles", false},
      {"SELECT content FROM knowledge_chunks", false},
      {"SELECT name FROM graph_entities", false},
      {"SELECT norm FROM graph_entities", false},
      {"SELECT alias FROM graph_aliases", false},
      {"SELECT norm FROM graph_aliases", false},
      {"SELECT vector FROM embeddings", true},
      {"SELECT vector FROM knowledge_chunks", true}};
  for (const auto& [sql, vector] : kColumns) {
    ENGRAM_ASSIGN_OR_RETURN(ScopedStatement st, db->Prepare(sql));
    while (true) {
      ENGRAM_ASSIGN_OR_RETURN(bool row, st->Step());
      if (!row) break;
      if (vector) {
        const char* data = static_cast<const char*>(st->Blob(0));
        if (data) visit(std::string_view(data, static_cast<size_t>(st->BlobSize(0))), true);
      } else {
        visit(st->Text(0), false);
      }
    }
  }
  return Status::Ok();
}

Result<ScopeTraces> MemoryStore::DocumentTraces(const KnowledgeScope& scope,
                                                std::string_view doc_id) {
  ENGRAM_ASSIGN_OR_RETURN(ReaderLease lease, AcquireReader());
  Database* db = lease.db();
  ENGRAM_RETURN_IF_ERROR(db->BindTenant(scope.tenant));
  ENGRAM_ASSIGN_OR_RETURN(
      ScopedStatement st,
      db->Prepare("SELECT c.content, c.vector FROM knowledge_chunks c JOIN knowledge_docs d ON "
                  "d.seq = c.doc_seq WHERE d.tenant = ? AND d.agent_id = ? AND d.doc_id = ?"));
  st->Bind(1, scope.tenant).Bind(2, scope.agent_id).Bind(3, doc_id);
  std::set<std::string> texts, vectors;
  while (true) {
    ENGRAM_ASSIGN_OR_RETURN(bool row, st->Step());
    if (!row) break;
    AddText(&texts, st->String(0));
    const char* data = static_cast<const char*>(st->Blob(1));
    const std::string blob = data ? std::string(data, static_cast<size_t>(st->BlobSize(1))) : "";
    const std::string needle = VectorNeedle(blob);
    if (!needle.empty()) vectors.insert(needle);
  }
  ScopeTraces out;
  out.texts.assign(texts.begin(), texts.end());
  out.vectors.assign(vectors.begin(), vectors.end());
  return out;
}

}  // namespace engram
