// MemoryStore: conversation sessions and their turns (tables `sessions`, `turns`).
#include "core/status_macros.h"
#include "storage/memory_store.h"
#include "storage/memory_store_internal.h"

namespace engram {

Result<int64_t> MemoryStore::AppendTurns(const Scope& scope, const std::vector<StoredTurn>& turns,
                                         TimestampMs now) {
  WriterCall call(this);
  Transaction txn(writer_.get());
  ENGRAM_RETURN_IF_ERROR(txn.Begin());
  ENGRAM_ASSIGN_OR_RETURN(int64_t scope_id, EnsureScopeId(scope));
  ENGRAM_ASSIGN_OR_RETURN(
      ScopedStatement ins,
      writer_->Prepare("INSERT INTO sessions(scope_id, session_id, agent_id, started_at) "
                       "VALUES (?, ?, ?, ?) " +
                       UpsertOn(writer_.get(), "scope_id, session_id") + " DO NOTHING"));
  ENGRAM_RETURN_IF_ERROR(
      ins->Bind(1, scope_id).Bind(2, scope.session_id).Bind(3, scope.agent_id).Bind(4, now).Run());
  ENGRAM_ASSIGN_OR_RETURN(
      ScopedStatement find,
      writer_->Prepare(
          "SELECT seq, closed_at FROM sessions WHERE scope_id = ? AND session_id = ?"));
  find->Bind(1, scope_id).Bind(2, scope.session_id);
  ENGRAM_ASSIGN_OR_RETURN(bool row, find->Step());
  if (!row) return Status::Internal("session row missing after insert");
  const int64_t session_seq = find->Int(0);
  const bool closed = find->OptionalInt(1).has_value();
  find->Reset();
  if (closed) return Status::Conflict("session '" + scope.session_id + "' is closed");
  TimestampMs last = 0;
  int64_t last_seq = 0;
  for (const StoredTurn& t : turns) {
    ENGRAM_ASSIGN_OR_RETURN(
        ScopedStatement st,
        writer_->Prepare("INSERT INTO turns(session_seq, message_id, role, content, created_at) "
                         "VALUES (?, ?, ?, ?, ?) RETURNING seq"));
    st->Bind(1, session_seq).Bind(2, t.message_id).Bind(3, t.role).Bind(4, t.content).Bind(5, t.at);
    Result<bool> row = st->Step();
    if (row.status().code() == StatusCode::kConflict) {
      return Status::Conflict("message id '" + t.message_id + "' is already in session '" +
                              scope.session_id + "'");
    }
    ENGRAM_RETURN_IF_ERROR(row.status());
    if (!*row) return Status::Internal("turn insert returned no seq");
    last_seq = st->Int(0);
    st->Reset();
    last = std::max(last, t.at);
  }
  ENGRAM_ASSIGN_OR_RETURN(
      ScopedStatement up,
      writer_->Prepare("UPDATE sessions SET last_turn_at = max(coalesce(last_turn_at, 0), ?) "
                       "WHERE seq = ?"));
  ENGRAM_RETURN_IF_ERROR(up->Bind(1, last).Bind(2, session_seq).Run());
  ENGRAM_RETURN_IF_ERROR(txn.Commit());
  return last_seq;
}

Result<SessionInfo> MemoryStore::GetSession(const Scope& scope, int recent) {
  ENGRAM_ASSIGN_OR_RETURN(ReaderLease lease, AcquireReader());
  Database* db = lease.db();
  ENGRAM_ASSIGN_OR_RETURN(auto scope_id, FindScopeId(db, scope));
  auto not_found = Status::NotFound("session '" + scope.session_id + "' not found");
  if (!scope_id) return not_found;
  ENGRAM_ASSIGN_OR_RETURN(
      ScopedStatement st,
      db->Prepare("SELECT seq, agent_id, started_at, last_turn_at, closed_at, summary_id, "
                  "(SELECT count(*) FROM turns WHERE session_seq = sessions.seq), "
                  "(SELECT coalesce(max(seq), 0) FROM turns WHERE session_seq = sessions.seq) "
                  "FROM sessions WHERE scope_id = ? AND session_id = ?"));
  st->Bind(1, *scope_id).Bind(2, scope.session_id);
  ENGRAM_ASSIGN_OR_RETURN(bool row, st->Step());
  if (!row) return not_found;
  SessionInfo info;
  const int64_t session_seq = st->Int(0);
  info.session_id = scope.session_id;
  info.agent_id = st->String(1);
  info.started_at = st->Int(2);
  info.last_turn_at = st->OptionalInt(3);
  info.closed_at = st->OptionalInt(4);
  info.summary_id = st->String(5);
  info.turn_count = st->Int(6);
  info.last_turn_seq = st->Int(7);
  st->Reset();
  if (recent > 0) {
    ENGRAM_ASSIGN_OR_RETURN(ScopedStatement turns,
                            db->Prepare("SELECT message_id, role, content, created_at FROM turns "
                                        "WHERE session_seq = ? ORDER BY seq DESC LIMIT ?"));
    turns->Bind(1, session_seq).Bind(2, int64_t{recent});
    while (true) {
      ENGRAM_ASSIGN_OR_RETURN(bool more, turns->Step());
      if (!more) break;
      info.recent.push_back(
          StoredTurn{turns->String(0), turns->String(1), turns->String(2), turns->Int(3)});
    }
    std::reverse(info.recent.begin(), info.recent.end());
  }
  return info;
}

Status MemoryStore::SetSessionSummary(const Scope& scope, const std::string& summary_id,
                                      std::optional<TimestampMs> closed_at) {
  WriterCall call(this);
  Transaction txn(writer_.get());
  ENGRAM_RETURN_IF_ERROR(txn.Begin());
  ENGRAM_ASSIGN_OR_RETURN(auto scope_id, FindScopeId(writer_.get(), scope));
  if (!scope_id) return Status::NotFound("session '" + scope.session_id + "' not found");
  ENGRAM_ASSIGN_OR_RETURN(
      ScopedStatement st,
      writer_->Prepare("UPDATE sessions SET summary_id = ?, "
                       "closed_at = coalesce(closed_at, ?) WHERE scope_id = ? AND session_id = ?"));
  ENGRAM_RETURN_IF_ERROR(st->Bind(1, summary_id)
                             .Bind(2, closed_at)
                             .Bind(3, *scope_id)
                             .Bind(4, scope.session_id)
                             .Run());
  if (writer_->Changes() == 0) {
    return Status::NotFound("session '" + scope.session_id + "' not found");
  }
  return txn.Commit();
}

Result<UserExtras> MemoryStore::ReadUserExtras(const Scope& scope) {
  const Scope whole{scope.tenant, scope.user_id, "", ""};
  UserExtras out;
  {
    ENGRAM_ASSIGN_OR_RETURN(ReaderLease lease, AcquireReader());
    Database* db = lease.db();
    ReadTransaction read(db);
    ENGRAM_RETURN_IF_ERROR(read.Begin());
    ENGRAM_ASSIGN_OR_RETURN(auto scope_id, FindScopeId(db, whole));
    if (!scope_id) return out;
    ENGRAM_ASSIGN_OR_RETURN(
        ScopedStatement sessions,
        db->Prepare("SELECT seq, session_id, agent_id, started_at, last_turn_at, closed_at, "
                    "summary_id FROM sessions WHERE scope_id = ? ORDER BY seq"));
    ENGRAM_ASSIGN_OR_RETURN(ScopedStatement turns,
                            db->Prepare("SELECT message_id, role, content, created_at FROM turns "
                                        "WHERE session_seq = ? ORDER BY seq"));
    sessions->Bind(1, *scope_id);
    while (true) {
      ENGRAM_ASSIGN_OR_RETURN(bool row, sessions->Step());
      if (!row) break;
      SessionInfo s;
      s.session_id = sessions->String(1);
      s.agent_id = sessions->String(2);
      s.started_at = sessions->Int(3);
      s.last_turn_at = sessions->OptionalInt(4);
      s.closed_at = sessions->OptionalInt(5);
      s.summary_id = sessions->String(6);
      turns->Reset();
      turns->Bind(1, sessions->Int(0));
      while (true) {
        ENGRAM_ASSIGN_OR_RETURN(bool more, turns->Step());
        if (!more) break;
        s.recent.push_back(
            StoredTurn{turns->String(0), turns->String(1), turns->String(2), turns->Int(3)});
      }
      s.turn_count = static_cast<int64_t>(s.recent.size());
      out.sessions.push_back(std::move(s));
    }
  }
  ENGRAM_ASSIGN_OR_RETURN(out.profile, GetProfileSummary(whole));
  ENGRAM_ASSIGN_OR_RETURN(out.maintenance_log, LifecycleLog(whole, 1'000'000'000));
  return out;
}

Result<ExtrasImportStats> MemoryStore::WriteUserExtras(const Scope& scope, const UserExtras& extras,
                                                       OnConflict on_conflict) {
  const Scope whole{scope.tenant, scope.user_id, "", ""};
  ExtrasImportStats stats;
  WriterCall call(this);
  Transaction txn(writer_.get());
  ENGRAM_RETURN_IF_ERROR(txn.Begin());
  ENGRAM_ASSIGN_OR_RETURN(int64_t scope_id, EnsureScopeId(whole));
  ENGRAM_ASSIGN_OR_RETURN(
      ScopedStatement session,
      writer_->Prepare("INSERT INTO sessions(scope_id, session_id, agent_id, started_at, "
                       "last_turn_at, closed_at, summary_id) VALUES (?, ?, ?, ?, ?, ?, ?) " +
                       UpsertOn(writer_.get(), "scope_id, session_id") +
                       " DO NOTHING RETURNING seq"));
  ENGRAM_ASSIGN_OR_RETURN(
      ScopedStatement turn,
      writer_->Prepare("INSERT INTO turns(session_seq, message_id, role, content, created_at) "
                       "VALUES (?, ?, ?, ?, ?)"));
  for (const SessionInfo& s : extras.sessions) {
    session->Reset();
    session->Bind(1, scope_id)
        .Bind(2, s.session_id)
        .Bind(3, s.agent_id)
        .Bind(4, s.started_at)
        .Bind(5, s.last_turn_at)
        .Bind(6, s.closed_at)
        .Bind(7, s.summary_id);
    ENGRAM_ASSIGN_OR_RETURN(bool inserted, session->Step());
    if (!inserted) {
      if (on_conflict == OnConflict::kSkip) {
        ++stats.skipped_sessions;
        continue;
      }
      return Status::Conflict("session '" + s.session_id + "' exists already");
    }
    const int64_t session_seq = session->Int(0);
    session->Reset();
    ++stats.sessions;
    for (const StoredTurn& t : s.recent) {
      turn->Reset();
      ENGRAM_RETURN_IF_ERROR(turn->Bind(1, session_seq)
                                 .Bind(2, t.message_id)
                                 .Bind(3, t.role)
                                 .Bind(4, t.content)
                                 .Bind(5, t.at)
                                 .Run());
      ++stats.turns;
    }
  }
  if (extras.profile) {
    const ProfileSummary& p = *extras.profile;
    std::string ids;
    for (const std::string& id : p.item_ids) ids += (ids.empty() ? "" : " ") + id;
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
    ENGRAM_RETURN_IF_ERROR(put->Bind(1, scope_id)
                               .Bind(2, p.text)
                               .Bind(3, ids)
                               .Bind(4, p.fingerprint)
                               .Bind(5, p.model)
                               .Bind(6, p.prompt_version)
                               .Bind(7, p.generated_at)
                               .Run());
    ++stats.profiles;
  }
  ENGRAM_ASSIGN_OR_RETURN(
      ScopedStatement log,
      writer_->Prepare("INSERT INTO lifecycle_log (scope_id, item_id, action, reason, at) "
                       "VALUES (?, ?, ?, ?, ?)"));
  for (const MaintenanceLogEntry& e : extras.maintenance_log) {
    log->Reset();
    ENGRAM_RETURN_IF_ERROR(log->Bind(1, scope_id)
                               .Bind(2, e.item_id)
                               .Bind(3, ToString(e.action))
                               .Bind(4, e.reason)
                               .Bind(5, e.at)
                               .Run());
    ++stats.log_entries;
  }
  ENGRAM_RETURN_IF_ERROR(txn.Commit());
  return stats;
}

}  // namespace engram
