// MemoryStore's part of the lifecycle: what maintenance reads (the items due for review and
// those changed since the last run) and writes (archives, purges, review times and the
// maintenance log, one transaction per batch). Policy lives in the engine
// (src/engine/engine_maintain.cc); this file only stores and finds.
#include <algorithm>

#include "core/status_macros.h"
#include "storage/memory_store.h"
#include "storage/memory_store_internal.h"

namespace engram {

Result<int64_t> MemoryStore::LatestHistorySeq() {
  ENGRAM_ASSIGN_OR_RETURN(ReaderLease lease, AcquireReader());
  ENGRAM_RETURN_IF_ERROR(lease.db()->BindAllTenants());
  ENGRAM_ASSIGN_OR_RETURN(ScopedStatement st,
                          lease.db()->Prepare("SELECT coalesce(max(seq), 0) FROM item_history"));
  ENGRAM_ASSIGN_OR_RETURN(bool row, st->Step());
  const int64_t seq = row ? st->Int(0) : 0;
  st->Reset();
  return seq;
}

Result<std::vector<MaintainedScope>> MemoryStore::MaintenanceScopes(const std::string& tenant,
                                                                    const std::string& user_id) {
  ENGRAM_ASSIGN_OR_RETURN(ReaderLease lease, AcquireReader());
  ENGRAM_RETURN_IF_ERROR(tenant.empty() ? lease.db()->BindAllTenants()
                                        : lease.db()->BindTenant(tenant));
  ENGRAM_ASSIGN_OR_RETURN(
      ScopedStatement st,
      lease.db()->Prepare("SELECT scopes.tenant, user_id, history_seq FROM scopes "
                          "LEFT JOIN lifecycle_scopes ON scope_id = id "
                          "WHERE (?1 = '' OR scopes.tenant = ?1) AND (?2 = '' OR user_id = ?2) "
                          "ORDER BY id"));
  st->Bind(1, tenant).Bind(2, user_id);
  std::vector<MaintainedScope> out;
  while (true) {
    ENGRAM_ASSIGN_OR_RETURN(bool row, st->Step());
    if (!row) break;
    out.push_back(MaintainedScope{Scope{st->String(0), st->String(1), "", ""}, st->OptionalInt(2)});
  }
  return out;
}

Status MemoryStore::MarkMaintained(const std::vector<Scope>& scopes, int64_t history_seq,
                                   TimestampMs at) {
  if (scopes.empty()) return Status::Ok();
  WriterCall call(this);
  Transaction txn(writer_.get());
  ENGRAM_RETURN_IF_ERROR(txn.Begin());
  ENGRAM_ASSIGN_OR_RETURN(
      ScopedStatement st,
      writer_->Prepare("INSERT INTO lifecycle_scopes (scope_id, history_seq, last_run_at) "
                       "SELECT id, ?3, ?4 FROM scopes WHERE tenant = ?1 AND user_id = ?2 " +
                       UpsertOn(writer_.get(), "scope_id") +
                       " DO UPDATE SET "
                       "history_seq = max(lifecycle_scopes.history_seq, excluded.history_seq), "
                       "last_run_at = excluded.last_run_at"));
  for (const Scope& scope : scopes) {
    st->Reset();
    ENGRAM_RETURN_IF_ERROR(writer_->BindTenant(scope.tenant));
    ENGRAM_RETURN_IF_ERROR(
        st->Bind(1, scope.tenant).Bind(2, scope.user_id).Bind(3, history_seq).Bind(4, at).Run());
  }
  return txn.Commit();
}

Result<std::vector<ReviewWork>> MemoryStore::ReviewWorkList(const std::string& tenant,
                                                            const std::string& user_id,
                                                            TimestampMs now,
                                                            int64_t min_history_seq) {
  ENGRAM_ASSIGN_OR_RETURN(ReaderLease lease, AcquireReader());
  ENGRAM_RETURN_IF_ERROR(tenant.empty() ? lease.db()->BindAllTenants()
                                        : lease.db()->BindTenant(tenant));
  // Both arms use an index: items_review for the due items, the history's primary key for
  // the changed ones.
  ENGRAM_ASSIGN_OR_RETURN(
      ScopedStatement st,
      lease.db()->Prepare(
          "SELECT s.tenant, s.user_id, w.seq FROM ("
          "SELECT scope_id, seq FROM items WHERE review_at IS NOT NULL AND review_at <= ?3 "
          "UNION SELECT items.scope_id, items.seq FROM item_history "
          "JOIN items ON items.seq = item_history.item_seq "
          "LEFT JOIN lifecycle_scopes AS ls ON ls.scope_id = items.scope_id "
          "WHERE item_history.seq > ?4 AND item_history.seq > coalesce(ls.history_seq, 0) "
          // Maintenance's own changes need no second look: it scheduled their next review
          // in the same transaction.
          "AND item_history.reason NOT LIKE 'maintenance: %'"
          ") AS w JOIN scopes AS s ON s.id = w.scope_id "
          "WHERE (?1 = '' OR s.tenant = ?1) AND (?2 = '' OR s.user_id = ?2) "
          "ORDER BY w.scope_id, w.seq"));
  st->Bind(1, tenant).Bind(2, user_id).Bind(3, now).Bind(4, min_history_seq);
  std::vector<ReviewWork> out;
  while (true) {
    ENGRAM_ASSIGN_OR_RETURN(bool row, st->Step());
    if (!row) break;
    if (out.empty() || out.back().scope.tenant != st->Text(0) ||
        out.back().scope.user_id != st->Text(1)) {
      out.push_back(ReviewWork{Scope{st->String(0), st->String(1), "", ""}, {}});
    }
    out.back().seqs.push_back(st->Int(2));
  }
  return out;
}

Result<std::vector<ScannedItem>> MemoryStore::ReviewItems(const Scope& scope,
                                                          const std::vector<int64_t>* seqs) {
  const Scope whole{scope.tenant, scope.user_id, "", ""};
  ENGRAM_ASSIGN_OR_RETURN(ReaderLease lease, AcquireReader());
  Database* db = lease.db();
  ReadTransaction read(db);
  ENGRAM_RETURN_IF_ERROR(read.Begin());
  ENGRAM_ASSIGN_OR_RETURN(ScopeFilter filter, ResolveForRead(db, whole));
  std::vector<ScannedItem> out;
  if (filter.scope_id < 0) return out;
  auto read_rows = [&](Statement* st) -> Status {
    while (true) {
      ENGRAM_ASSIGN_OR_RETURN(bool row, st->Step());
      if (!row) break;
      ScannedItem scanned;
      ENGRAM_ASSIGN_OR_RETURN(scanned.item, ReadItemRow(*st, whole, &scanned.seq));
      if (scanned.item.status == ItemStatus::kActive ||
          scanned.item.status == ItemStatus::kArchived) {
        out.push_back(std::move(scanned));
      }
    }
    st->Reset();
    return Status::Ok();
  };
  if (seqs == nullptr) {
    ENGRAM_ASSIGN_OR_RETURN(ScopedStatement st,
                            db->Prepare(SelectItemsSql() + "WHERE scope_id = ? AND status IN "
                                                           "('active', 'archived') ORDER BY seq"));
    st->Bind(1, filter.scope_id);
    ENGRAM_RETURN_IF_ERROR(read_rows(st));
    return out;
  }
  ENGRAM_ASSIGN_OR_RETURN(ScopedStatement st,
                          db->Prepare(SelectItemsSql() + "WHERE seq = ? AND scope_id = ?"));
  for (int64_t seq : *seqs) {
    st->Reset();
    st->Bind(1, seq).Bind(2, filter.scope_id);
    ENGRAM_RETURN_IF_ERROR(read_rows(st));
  }
  return out;
}

Status MemoryStore::ApplyMaintenance(const Scope& scope, MaintenanceBatch& batch, TimestampMs now) {
  const Scope whole{scope.tenant, scope.user_id, "", ""};
  batch.purged_seqs.clear();
  {
    WriterCall call(this);
    ItemCache::WriteWindow window(&cache_);  // closes after the commit (declared before txn)
    Transaction txn(writer_.get());
    ENGRAM_RETURN_IF_ERROR(txn.Begin());
    ENGRAM_ASSIGN_OR_RETURN(auto scope_id, FindScopeId(writer_.get(), whole));
    if (!scope_id) return Status::Ok();  // purged meanwhile: nothing left to maintain
    for (StoreOp& op : batch.changes) {
      if (op.insert) {  // a summary maintenance writes
        ENGRAM_RETURN_IF_ERROR(InsertLocked(*scope_id, *op.insert, now));
        op.seq = op.insert->seq;
        op.result = op.insert->item;
        continue;
      }
      auto changed = MutateLocked(whole, op.id, op.event, op.record_history, op.reason, now,
                                  op.mutation, nullptr, &op.seq);
      if (!changed.ok() && changed.status().code() == StatusCode::kNotFound) {
        op.seq = 0;  // purged since it was read
        continue;
      }
      ENGRAM_ASSIGN_OR_RETURN(op.result, std::move(changed));
    }
    ENGRAM_ASSIGN_OR_RETURN(ScopedStatement del,
                            writer_->Prepare("DELETE FROM items WHERE seq = ? AND scope_id = ?"));
    ENGRAM_ASSIGN_OR_RETURN(ScopedStatement profile,
                            writer_->Prepare("DELETE FROM profiles WHERE scope_id = ? AND "
                                             "instr(' ' || item_ids || ' ', ?) > 0"));
    for (const std::string& id : batch.purge_ids) {
      auto seq = SeqForWrite(whole, id);
      if (!seq.ok()) {
        if (seq.status().code() == StatusCode::kNotFound) continue;
        return seq.status();
      }
      cache_.Erase(*seq);
      del->Reset();
      ENGRAM_RETURN_IF_ERROR(del->Bind(1, *seq).Bind(2, *scope_id).Run());
      batch.purged_seqs.push_back(*seq);
      // A profile summary citing a purged memory goes with it (maintenance purges archived
      // memories, which left the profile's lines when archived; a summary still citing one is
      // one the LLM could not rewrite since).
      profile->Reset();
      ENGRAM_RETURN_IF_ERROR(profile->Bind(1, *scope_id).Bind(2, " " + id + " ").Run());
    }
    ENGRAM_ASSIGN_OR_RETURN(
        ScopedStatement review,
        writer_->Prepare("UPDATE items SET review_at = ? WHERE seq = ? AND scope_id = ?"));
    for (const auto& [seq, at] : batch.review_at) {
      review->Reset();
      ENGRAM_RETURN_IF_ERROR(review->Bind(1, at).Bind(2, seq).Bind(3, *scope_id).Run());
    }
    ENGRAM_ASSIGN_OR_RETURN(
        ScopedStatement log,
        writer_->Prepare("INSERT INTO lifecycle_log (scope_id, item_id, action, reason, at) "
                         "VALUES (?, ?, ?, ?, ?)"));
    for (const MaintenanceLogEntry& e : batch.log) {
      log->Reset();
      ENGRAM_RETURN_IF_ERROR(log->Bind(1, *scope_id)
                                 .Bind(2, e.item_id)
                                 .Bind(3, ToString(e.action))
                                 .Bind(4, e.reason)
                                 .Bind(5, e.at)
                                 .Run());
    }
    ENGRAM_RETURN_IF_ERROR(txn.Commit());
  }
  if (!batch.purged_seqs.empty()) {
    WriterCall call(this);
    CheckpointAfterPurge(writer_.get());
  }
  return Status::Ok();
}

Result<std::vector<MaintenanceLogEntry>> MemoryStore::LifecycleLog(const Scope& scope, int limit) {
  const Scope whole{scope.tenant, scope.user_id, "", ""};
  ENGRAM_ASSIGN_OR_RETURN(ReaderLease lease, AcquireReader());
  Database* db = lease.db();
  ENGRAM_ASSIGN_OR_RETURN(auto scope_id, FindScopeId(db, whole));
  std::vector<MaintenanceLogEntry> out;
  if (!scope_id) return out;
  ENGRAM_ASSIGN_OR_RETURN(ScopedStatement st,
                          db->Prepare("SELECT item_id, action, reason, at FROM lifecycle_log "
                                      "WHERE scope_id = ? ORDER BY seq LIMIT ?"));
  st->Bind(1, *scope_id).Bind(2, int64_t{limit});
  while (true) {
    ENGRAM_ASSIGN_OR_RETURN(bool row, st->Step());
    if (!row) break;
    MaintenanceLogEntry e;
    e.item_id = st->String(0);
    auto action = ParseMaintenanceAction(st->Text(1));
    if (!action.ok()) return Status::Corruption("stored " + action.status().message());
    e.action = *action;
    e.reason = st->String(2);
    e.at = st->Int(3);
    out.push_back(std::move(e));
  }
  return out;
}

Result<std::optional<ProfileSummary>> MemoryStore::GetProfileSummary(const Scope& scope) {
  const Scope whole{scope.tenant, scope.user_id, "", ""};
  ENGRAM_ASSIGN_OR_RETURN(ReaderLease lease, AcquireReader());
  Database* db = lease.db();
  ENGRAM_ASSIGN_OR_RETURN(auto scope_id, FindScopeId(db, whole));
  if (!scope_id) return std::optional<ProfileSummary>();
  ENGRAM_ASSIGN_OR_RETURN(ScopedStatement st,
                          db->Prepare("SELECT summary, item_ids, fingerprint, model, "
                                      "prompt_version, generated_at FROM profiles "
                                      "WHERE scope_id = ?"));
  st->Bind(1, *scope_id);
  ENGRAM_ASSIGN_OR_RETURN(bool row, st->Step());
  if (!row) return std::optional<ProfileSummary>();
  ProfileSummary s;
  s.text = st->String(0);
  const std::string ids = st->String(1);
  for (size_t at = 0; at < ids.size();) {
    const size_t end = std::min(ids.find(' ', at), ids.size());
    if (end > at) s.item_ids.push_back(ids.substr(at, end - at));
    at = end + 1;
  }
  s.fingerprint = st->String(2);
  s.model = st->String(3);
  s.prompt_version = st->String(4);
  s.generated_at = st->Int(5);
  st->Reset();
  return std::optional<ProfileSummary>(std::move(s));
}

Status MemoryStore::PutProfileSummary(const Scope& scope, const ProfileSummary& summary,
                                      const MaintenanceLogEntry& log) {
  const Scope whole{scope.tenant, scope.user_id, "", ""};
  std::string ids;
  for (const std::string& id : summary.item_ids) ids += (ids.empty() ? "" : " ") + id;
  WriterCall call(this);
  Transaction txn(writer_.get());
  ENGRAM_RETURN_IF_ERROR(txn.Begin());
  ENGRAM_ASSIGN_OR_RETURN(auto scope_id, FindScopeId(writer_.get(), whole));
  if (!scope_id) return Status::Ok();  // purged meanwhile
  ENGRAM_ASSIGN_OR_RETURN(
      ScopedStatement put,
      writer_->Prepare("INSERT INTO profiles (scope_id, summary, item_ids, "
                       "fingerprint, model, prompt_version, generated_at) "
                       "VALUES (?, ?, ?, ?, ?, ?, ?) " +
                       UpsertOn(writer_.get(), "scope_id") +
                       " DO UPDATE SET "
                       "summary = excluded.summary, item_ids = excluded.item_ids, "
                       "fingerprint = excluded.fingerprint, model = excluded.model, "
                       "prompt_version = excluded.prompt_version, "
                       "generated_at = excluded.generated_at"));
  ENGRAM_RETURN_IF_ERROR(put->Bind(1, *scope_id)
                             .Bind(2, summary.text)
                             .Bind(3, ids)
                             .Bind(4, summary.fingerprint)
                             .Bind(5, summary.model)
                             .Bind(6, summary.prompt_version)
                             .Bind(7, summary.generated_at)
                             .Run());
  ENGRAM_ASSIGN_OR_RETURN(
      ScopedStatement row,
      writer_->Prepare("INSERT INTO lifecycle_log (scope_id, item_id, action, reason, at) "
                       "VALUES (?, ?, ?, ?, ?)"));
  ENGRAM_RETURN_IF_ERROR(row->Bind(1, *scope_id)
                             .Bind(2, log.item_id)
                             .Bind(3, ToString(log.action))
                             .Bind(4, log.reason)
                             .Bind(5, log.at)
                             .Run());
  return txn.Commit();
}

Result<bool> MemoryStore::HasLogEntry(const Scope& scope, const std::string& item_id,
                                      MaintenanceAction action) {
  const Scope whole{scope.tenant, scope.user_id, "", ""};
  ENGRAM_ASSIGN_OR_RETURN(ReaderLease lease, AcquireReader());
  Database* db = lease.db();
  ENGRAM_ASSIGN_OR_RETURN(auto scope_id, FindScopeId(db, whole));
  if (!scope_id) return false;
  ENGRAM_ASSIGN_OR_RETURN(ScopedStatement st,
                          db->Prepare("SELECT 1 FROM lifecycle_log WHERE scope_id = ? AND "
                                      "item_id = ? AND action = ? LIMIT 1"));
  st->Bind(1, *scope_id).Bind(2, item_id).Bind(3, ToString(action));
  ENGRAM_ASSIGN_OR_RETURN(bool row, st->Step());
  st->Reset();
  return row;
}

}  // namespace engram
