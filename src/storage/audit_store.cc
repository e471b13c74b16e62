// AuditStore (audit_store.h).
#include "storage/audit_store.h"

#include "core/status_macros.h"
#include "storage/migrations.h"

namespace engram {

Result<std::unique_ptr<AuditStore>> AuditStore::Open(const std::string& path, TimestampMs now,
                                                     std::shared_ptr<const EncryptionKey> key) {
  DatabaseOptions options;
  options.key = std::move(key);
  options.synchronous = "NORMAL";  // an audit batch lost to a power cut costs no user data
  ENGRAM_ASSIGN_OR_RETURN(auto db, OpenEngramDatabase(path, options, now));
  return std::unique_ptr<AuditStore>(new AuditStore(std::move(db)));
}

Status AuditStore::Append(const std::vector<AuditEntry>& entries) {
  if (entries.empty()) return Status::Ok();
  std::lock_guard<std::mutex> lock(mu_);
  ConnectionCall call(db_.get(), "AuditStore::Append");
  Transaction txn(db_.get());
  ENGRAM_RETURN_IF_ERROR(txn.Begin());
  ENGRAM_ASSIGN_OR_RETURN(
      ScopedStatement st,
      db_->Prepare("INSERT INTO audit_log (at, request_id, tenant, key_id, action, method, route, "
                   "user_id, target, status, remote) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"));
  for (const AuditEntry& e : entries) {
    st->Reset();
    ENGRAM_RETURN_IF_ERROR(st->Bind(1, e.at)
                               .Bind(2, e.request_id)
                               .Bind(3, e.tenant)
                               .Bind(4, e.key_id)
                               .Bind(5, e.action)
                               .Bind(6, e.method)
                               .Bind(7, e.route)
                               .Bind(8, e.user_id)
                               .Bind(9, e.target)
                               .Bind(10, int64_t{e.status})
                               .Bind(11, e.remote)
                               .Run());
  }
  return txn.Commit();
}

Result<std::vector<AuditEntry>> AuditStore::List(const AuditQuery& q) {
  if (q.limit < 1 || q.limit > 10000) return Status::InvalidArgument("limit must be 1..10000");
  std::lock_guard<std::mutex> lock(mu_);
  ConnectionCall call(db_.get(), "AuditStore::List");
  ENGRAM_ASSIGN_OR_RETURN(
      ScopedStatement st,
      db_->Prepare("SELECT seq, at, request_id, tenant, key_id, action, method, route, user_id, "
                   "target, status, remote FROM audit_log "
                   "WHERE (?1 = '' OR tenant = ?1) AND (?2 = '' OR user_id = ?2) "
                   "AND (CAST(?3 AS BIGINT) IS NULL OR at >= ?3) AND (?4 = 0 OR seq < ?4) "
                   "ORDER BY seq DESC LIMIT ?5"));
  st->Bind(1, q.tenant)
      .Bind(2, q.user_id)
      .Bind(3, q.since)
      .Bind(4, q.before_seq)
      .Bind(5, int64_t{q.limit});
  std::vector<AuditEntry> out;
  while (true) {
    ENGRAM_ASSIGN_OR_RETURN(bool row, st->Step());
    if (!row) break;
    AuditEntry e;
    e.seq = st->Int(0);
    e.at = st->Int(1);
    e.request_id = st->String(2);
    e.tenant = st->String(3);
    e.key_id = st->String(4);
    e.action = st->String(5);
    e.method = st->String(6);
    e.route = st->String(7);
    e.user_id = st->String(8);
    e.target = st->String(9);
    e.status = static_cast<int>(st->Int(10));
    e.remote = st->String(11);
    out.push_back(std::move(e));
  }
  return out;
}

Result<int64_t> AuditStore::DeleteBefore(TimestampMs before) {
  std::lock_guard<std::mutex> lock(mu_);
  ConnectionCall call(db_.get(), "AuditStore::DeleteBefore");
  ENGRAM_ASSIGN_OR_RETURN(ScopedStatement st, db_->Prepare("DELETE FROM audit_log WHERE at < ?"));
  ENGRAM_RETURN_IF_ERROR(st->Bind(1, before).Run());
  return db_->Changes();
}

}  // namespace engram
