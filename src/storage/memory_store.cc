// MemoryStore: opening, scopes, the reader pool and every write. Reads: memory_store_read.cc.
#include "storage/memory_store.h"

#include <bit>
#include <cstring>
#include <iostream>

#include "codec/item_json.h"
#include "core/status_macros.h"
#include "engram/extraction.h"
#include "storage/memory_store_internal.h"
#include "storage/migrations.h"
#include "storage/postgres.h"
#include "storage/row_codec.h"

namespace engram {

static_assert(std::endian::native == std::endian::little,
              "vectors are stored as little-endian float32");

MemoryStore::ReaderLease::~ReaderLease() {
  if (!db_) return;
  if (!ConnectionCall(db_.get(), call_).End()) {
    std::lock_guard<std::mutex> lock(store_->pool_mu_);  // closed, not lent again
    --store_->open_readers_;
    store_->pool_cv_.notify_one();
    return;
  }
  store_->ReleaseReader(std::move(db_));
}

Result<std::unique_ptr<MemoryStore>> MemoryStore::Open(const StoreOptions& options,
                                                       TimestampMs now) {
  std::unique_ptr<MemoryStore> store(new MemoryStore(options));
  DatabaseOptions db_options{.read_only = false,
                             .busy_timeout_ms = options.busy_timeout_ms,
                             .synchronous = options.synchronous,
                             .wal_autocheckpoint = options.background_checkpoints ? 0 : 1000,
                             .key = options.key};
  ENGRAM_ASSIGN_OR_RETURN(store->writer_, OpenEngramDatabase(options.path, db_options, now));
  store->writer_options_ = db_options;
  store->writer_pid_.store(store->writer_->BackendPid());
  if (options.background_checkpoints) {
    if (store->writer_->dialect() == SqlDialect::kSqlite) {
      ENGRAM_ASSIGN_OR_RETURN(store->checkpointer_, Database::Open(options.path, db_options));
    }
  }
  return store;
}

Status MemoryStore::Checkpoint(int restart_frames) {
  std::lock_guard<std::mutex> lock(checkpoint_mu_);
  if (!checkpointer_) return Status::Ok();
  ENGRAM_ASSIGN_OR_RETURN(Database::WalProgress bulk, checkpointer_->CheckpointPassive());
  if (bulk.busy) return Status::Ok();  // next time
  if (bulk.checkpointed_frames > 0 && bulk.checkpointed_frames != synced_frames_) {
    // SQLite syncs the copied pages only once it has copied the whole WAL; synced here, a
    // little at a time, they never become one long write that commits' syncs queue behind.
    ENGRAM_RETURN_IF_ERROR(checkpointer_->SyncDatabaseFile());
    synced_frames_ = bulk.checkpointed_frames;
  }
  if (bulk.log_frames < restart_frames) return Status::Ok();
  // The frames committed since the bulk pass began, with no commit running or starting.
  std::lock_guard<GatedMutex> no_commits(write_mu_);
  synced_frames_ = -1;  // the next commit may start the WAL over, and its frame numbers
  return checkpointer_->CheckpointPassive().status();
}

MemoryStore::~MemoryStore() = default;

Result<MemoryStore::ReaderLease> MemoryStore::AcquireReader(const char* call) {
  std::unique_lock<std::mutex> lock(pool_mu_);
  pool_cv_.wait(
      lock, [&] { return !idle_readers_.empty() || open_readers_ < options_.reader_connections; });
  if (!idle_readers_.empty()) {
    auto db = std::move(idle_readers_.back());
    idle_readers_.pop_back();
    return ReaderLease(this, std::move(db), call);
  }
  ++open_readers_;
  lock.unlock();
  DatabaseOptions db_options{.read_only = true,
                             .busy_timeout_ms = options_.busy_timeout_ms,
                             .synchronous = options_.synchronous,
                             .key = options_.key};
  auto db = OpenAnyDatabase(options_.path, db_options);
  if (!db.ok()) {
    std::lock_guard<std::mutex> relock(pool_mu_);
    --open_readers_;
    pool_cv_.notify_one();
    return db.status();
  }
  return ReaderLease(this, std::move(db).value(), call);
}

void MemoryStore::ReleaseReader(std::unique_ptr<Database> db) {
  std::lock_guard<std::mutex> lock(pool_mu_);
  idle_readers_.push_back(std::move(db));
  pool_cv_.notify_one();
}

void MemoryStore::Log(const std::string& line) const {
  if (options_.log) {
    options_.log(line);
  } else {
    std::cerr << line << std::endl;
  }
}

void MemoryStore::AfterWrite(const char* call, int64_t errors_before, int64_t commits_before) {
  const bool clean = ConnectionCall(writer_.get(), call).End();
  const bool was_ok = GetWriteHealth().ok;
  const int rc = writer_->last_error_rc();
  const bool failed = writer_->error_count() > errors_before && IsDatabaseFailure(rc);
  if (!clean || failed) {
    const std::string cause =
        failed ? writer_->last_error_message() : "the connection could not be cleaned";
    // A lock held elsewhere is the database's state, not the connection's; anything else (an
    // I/O error, a file the handle no longer sees as writable, a transaction it cannot end)
    // may be the handle's, and a fresh one costs little.
    const int primary = rc & 0xFF;
    if (!clean || (primary != SQLITE_BUSY && primary != SQLITE_LOCKED)) {
      Status reopened = ReopenWriter();
      // Logged when writes start failing, not again for each write while they fail (a
      // database server that is down fails every one).
      if (was_ok || reopened.ok())
        Log("engram: storage: writer connection " +
            std::string(reopened.ok() ? "reopened"
                                      : "could not be reopened (" + reopened.ToString() + ")") +
            " after MemoryStore::" + call + " failed: " + cause);
    }
    NoteWriteHealth(false, cause);
  } else if (writer_->commit_count() > commits_before) {
    NoteWriteHealth(true, "");
  }
}

Status MemoryStore::ReopenWriter() {
  ENGRAM_ASSIGN_OR_RETURN(auto fresh, OpenAnyDatabase(options_.path, writer_options_));
  writer_ = std::move(fresh);
  writer_pid_.store(writer_->BackendPid());
  std::lock_guard<std::mutex> lock(health_mu_);
  ++health_.reopened;
  return Status::Ok();
}

void MemoryStore::NoteWriteHealth(bool ok, const std::string& cause) {
  std::string line;
  {
    std::lock_guard<std::mutex> lock(health_mu_);
    if (!ok) ++health_.failures;
    if (ok == health_.ok) {
      if (!ok) health_.cause = cause;
      return;
    }
    health_.ok = ok;
    health_.cause = cause;
    line = ok ? "engram: storage: writes work again" : "engram: storage: writes failing: " + cause;
  }
  Log(line);  // once per change, not once per failed write
}

void MemoryStore::ForgetCachedItems() {
  if (!cache_.enabled()) return;
  std::lock_guard<GatedMutex> lock(write_mu_);  // windows are opened under it
  ItemCache::WriteWindow window(&cache_);
  cache_.Clear();
}

void MemoryStore::ForgetCachedItems(const Scope& scope) {
  if (!cache_.enabled()) return;
  std::lock_guard<GatedMutex> lock(write_mu_);
  ItemCache::WriteWindow window(&cache_);
  cache_.ForgetScope(scope.tenant, scope.user_id);
}

WriteHealth MemoryStore::GetWriteHealth() const {
  std::lock_guard<std::mutex> lock(health_mu_);
  return health_;
}

WriteHealth MemoryStore::ProbeWrites(int wait_ms) {
  {
    WriterCall call(this);
    Database* db = writer_.get();
    db->SetBusyTimeout(wait_ms);
    Transaction txn(db);
    // Rewrites one row with its own value: a commit that reaches the disk, and changes nothing.
    Status st = txn.Begin();
    if (st.ok()) st = db->Exec("UPDATE access_epoch SET flushes = flushes WHERE id = 1");
    if (st.ok()) st = txn.Commit();
    db->SetBusyTimeout(writer_options_.busy_timeout_ms);
  }
  return GetWriteHealth();
}

// Not cached: a scope row created inside a transaction that rolls back, or removed by
// PurgeScope, would leave a cached id pointing at nothing or, worse, at a later scope. The
// lookup is one probe of the (tenant, user_id) unique index.
Result<std::optional<int64_t>> MemoryStore::FindScopeId(Database* db, const Scope& scope) {
  // Every scoped call resolves its scope here first: the connection's statements from now on
  // are the tenant's (PostgreSQL's row-level security, and the tenant of the rows it inserts).
  ENGRAM_RETURN_IF_ERROR(db->BindTenant(scope.tenant));
  ENGRAM_ASSIGN_OR_RETURN(ScopedStatement st,
                          db->Prepare("SELECT id FROM scopes WHERE tenant = ? AND user_id = ?"));
  st->Bind(1, scope.tenant).Bind(2, scope.user_id);
  ENGRAM_ASSIGN_OR_RETURN(bool row, st->Step());
  if (!row) return std::optional<int64_t>();
  return std::optional<int64_t>(st->Int(0));
}

Result<int64_t> MemoryStore::EnsureScopeId(const Scope& scope) {
  ENGRAM_ASSIGN_OR_RETURN(auto found, FindScopeId(writer_.get(), scope));
  if (found) return *found;
  // Another process sharing the database (a replica on PostgreSQL) may insert the same scope
  // at the same moment: then this insert waits for it and adds nothing, and the row is its.
  ENGRAM_ASSIGN_OR_RETURN(
      ScopedStatement st,
      writer_->Prepare("INSERT INTO scopes(tenant, user_id) VALUES (?, ?) "
                       "ON CONFLICT (tenant, user_id) DO NOTHING RETURNING id"));
  st->Bind(1, scope.tenant).Bind(2, scope.user_id);
  ENGRAM_ASSIGN_OR_RETURN(bool row, st->Step());
  if (row) return st->Int(0);
  ENGRAM_ASSIGN_OR_RETURN(auto theirs, FindScopeId(writer_.get(), scope));
  if (!theirs) return Status::Internal("a scope row neither inserted nor found");
  return *theirs;
}

Result<ScopeFilter> MemoryStore::ResolveForRead(Database* db, const Scope& scope) {
  ENGRAM_ASSIGN_OR_RETURN(auto id, FindScopeId(db, scope));
  return ScopeFilter{id.value_or(-1), scope.agent_id, scope.session_id};
}

Status MemoryStore::InsertRow(int64_t scope_id, const MemoryItem& item, int64_t* seq) {
  static const std::string kSqlFixed = [] {
    std::string s =
        "INSERT INTO items(id, scope_id, " + std::string(kItemMutableColumns) + ") VALUES (?, ?";
    for (int i = 0; i < kItemMutableColumnCount; ++i) s += ", ?";
    return s + ") RETURNING seq";
  }();
  ENGRAM_ASSIGN_OR_RETURN(ScopedStatement st, writer_->Prepare(kSqlFixed));
  st->Bind(1, item.id).Bind(2, scope_id);
  BindMutableColumns(st, item, 3);
  Result<bool> row = st->Step();
  if (row.status().code() == StatusCode::kConflict) {
    return Status::Conflict("memory id '" + item.id + "' already exists");
  }
  ENGRAM_RETURN_IF_ERROR(row.status());
  if (!*row) return Status::Internal("inserting an item returned no seq");
  *seq = st->Int(0);
  return Status::Ok();
}

Status MemoryStore::InsertHistory(int64_t item_seq, const HistoryEntry& h, bool keep_seq) {
  ENGRAM_ASSIGN_OR_RETURN(
      ScopedStatement st,
      writer_->Prepare("INSERT INTO item_history(item_seq, event, old_content, new_content, "
                       "previous, reason, at, seq) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"));
  keep_seq ? st->Bind(8, h.seq) : st->BindNull(8);
  st->Bind(1, item_seq).Bind(2, ToString(h.event));
  h.old_content ? st->Bind(3, *h.old_content) : st->BindNull(3);
  h.new_content ? st->Bind(4, *h.new_content) : st->BindNull(4);
  h.previous ? st->Bind(5, ItemJsonText(*h.previous)) : st->BindNull(5);
  st->Bind(6, h.reason).Bind(7, h.at);
  return st->Run();
}

Status MemoryStore::InsertVector(int64_t item_seq, const StoredVector& v, TimestampMs now) {
  ENGRAM_ASSIGN_OR_RETURN(
      ScopedStatement st,
      writer_->Prepare("INSERT INTO embeddings(item_seq, model, dim, vector, created_at) "
                       "VALUES (?, ?, ?, ?, ?) " +
                       UpsertOn(writer_.get(), "item_seq, model") +
                       " DO UPDATE SET dim = excluded.dim, vector = excluded.vector, "
                       "created_at = excluded.created_at"));
  st->Bind(1, item_seq).Bind(2, v.model).Bind(3, static_cast<int64_t>(v.values.size()));
  st->BindBlob(4, v.values.data(), v.values.size() * sizeof(float)).Bind(5, now);
  return st->Run();
}

Status MemoryStore::Insert(const Scope& scope, std::vector<PendingItem>& items, TimestampMs now) {
  WriterCall call(this);
  Transaction txn(writer_.get());
  ENGRAM_RETURN_IF_ERROR(txn.Begin());
  ENGRAM_RETURN_IF_ERROR(InsertItemsLocked(scope, items, now));
  return txn.Commit();
}

Status MemoryStore::InsertItemsLocked(const Scope& scope, std::vector<PendingItem>& items,
                                      TimestampMs now) {
  for (const PendingItem& p : items) {
    if (p.item.scope.tenant != scope.tenant || p.item.scope.user_id != scope.user_id) {
      return Status::InvalidArgument("item " + p.item.id + " belongs to another scope");
    }
  }
  ENGRAM_ASSIGN_OR_RETURN(int64_t scope_id, EnsureScopeId(scope));
  for (PendingItem& p : items) ENGRAM_RETURN_IF_ERROR(InsertLocked(scope_id, p, now));
  return Status::Ok();
}

void MemoryStore::InsertGroup(std::vector<InsertRequest>& requests) {
  if (requests.size() == 1) {
    InsertRequest& r = requests.front();
    r.status = Insert(*r.scope, *r.items, r.now);
    return;
  }
  WriterCall call(this);
  Transaction txn(writer_.get());
  Status begun = txn.Begin();
  if (!begun.ok()) {
    for (InsertRequest& r : requests) r.status = begun;
    return;
  }
  for (InsertRequest& r : requests) {
    r.status = [&]() -> Status {
      ENGRAM_RETURN_IF_ERROR(writer_->Exec("SAVEPOINT engram_insert"));
      Status s = InsertItemsLocked(*r.scope, *r.items, r.now);
      writer_->ResetActiveStatements();
      if (!s.ok()) (void)writer_->Exec("ROLLBACK TO engram_insert");
      Status released = writer_->Exec("RELEASE engram_insert");
      return s.ok() ? released : s;
    }();
  }
  Status committed = txn.Commit();
  if (!committed.ok()) {
    for (InsertRequest& r : requests) r.status = committed;
  }
}

Status MemoryStore::InsertLocked(int64_t scope_id, PendingItem& p, TimestampMs now) {
  ENGRAM_RETURN_IF_ERROR(InsertRow(scope_id, p.item, &p.seq));
  HistoryEntry h{
      .event = HistoryEvent::kAdd, .new_content = p.item.content, .reason = p.reason, .at = now};
  ENGRAM_RETURN_IF_ERROR(InsertHistory(p.seq, h, /*keep_seq=*/false));
  if (p.vector) ENGRAM_RETURN_IF_ERROR(InsertVector(p.seq, *p.vector, now));
  ENGRAM_RETURN_IF_ERROR(WriteGraphLocked(scope_id, p.seq, p.item, p.graph, now));
  if (p.item.status == ItemStatus::kSuperseded || p.item.status == ItemStatus::kDeleted) {
    // An imported item that no longer holds: what it states is history from the start.
    ENGRAM_RETURN_IF_ERROR(EndEdgesLocked(p.seq, p.item, now));
  }
  return Status::Ok();
}

Status MemoryStore::Apply(const Scope& scope, std::vector<StoreOp>& ops, TimestampMs now) {
  for (const StoreOp& op : ops) {
    if (op.insert && (op.insert->item.scope.tenant != scope.tenant ||
                      op.insert->item.scope.user_id != scope.user_id)) {
      return Status::InvalidArgument("item " + op.insert->item.id + " belongs to another scope");
    }
  }
  WriterCall call(this);
  ItemCache::WriteWindow window(&cache_);  // closes after the commit (declared before txn)
  Transaction txn(writer_.get());
  ENGRAM_RETURN_IF_ERROR(txn.Begin());
  ENGRAM_ASSIGN_OR_RETURN(int64_t scope_id, EnsureScopeId(scope));
  // A write in one session may update, supersede or restate a memory of another session of the
  // user (the write path looks for neighbours across sessions): changes find their item in the
  // whole user's scope; new items keep their session.
  Scope targets = scope;
  targets.session_id.clear();
  for (StoreOp& op : ops) {
    if (op.insert) {
      ENGRAM_RETURN_IF_ERROR(InsertLocked(scope_id, *op.insert, now));
      op.seq = op.insert->seq;
      op.result = op.insert->item;
      continue;
    }
    auto changed = MutateLocked(targets, op.id, op.event, op.record_history, op.reason, now,
                                op.mutation, op.vector ? &*op.vector : nullptr, &op.seq);
    if (!changed.ok() && op.skip_missing && changed.status().code() == StatusCode::kNotFound) {
      op.seq = 0;
      continue;
    }
    ENGRAM_ASSIGN_OR_RETURN(op.result, std::move(changed));
    if (!op.graph.empty()) {
      ENGRAM_RETURN_IF_ERROR(WriteGraphLocked(scope_id, op.seq, op.result, op.graph, now));
    }
  }
  return txn.Commit();
}

Result<MemoryItem> MemoryStore::Mutate(const Scope& scope, std::string_view id, HistoryEvent event,
                                       const std::string& reason, TimestampMs now,
                                       const ItemMutation& mutation, const StoredVector* vector,
                                       int64_t* seq_out) {
  WriterCall call(this);
  ItemCache::WriteWindow window(&cache_);
  Transaction txn(writer_.get());
  ENGRAM_RETURN_IF_ERROR(txn.Begin());
  ENGRAM_ASSIGN_OR_RETURN(MemoryItem item, MutateLocked(scope, id, event, /*record_history=*/true,
                                                        reason, now, mutation, vector, seq_out));
  ENGRAM_RETURN_IF_ERROR(txn.Commit());
  return item;
}

Result<MemoryItem> MemoryStore::MutateLocked(const Scope& scope, std::string_view id,
                                             HistoryEvent event, bool record_history,
                                             const std::string& reason, TimestampMs now,
                                             const ItemMutation& mutation,
                                             const StoredVector* vector, int64_t* seq_out) {
  ENGRAM_ASSIGN_OR_RETURN(ScopeFilter filter, ResolveForRead(writer_.get(), scope));
  int64_t seq = 0;
  ENGRAM_ASSIGN_OR_RETURN(MemoryItem item, GetOn(writer_.get(), filter, scope, id, &seq));
  const MemoryItem previous = item;
  if (seq_out) *seq_out = seq;
  ENGRAM_ASSIGN_OR_RETURN(bool changed, mutation(item));
  if (!changed) return previous;
  if (vector) item.embedding_model = vector->model;
  item.id = previous.id;
  item.scope.tenant = previous.scope.tenant;
  item.scope.user_id = previous.scope.user_id;
  item.updated_at = now;
  static const std::string kSql = [] {
    return "UPDATE items SET (" + std::string(kItemMutableColumns) + ") = (" + [] {
      std::string q = "?";
      for (int i = 1; i < kItemMutableColumnCount; ++i) q += ", ?";
      return q;
    }() + ") WHERE seq = ?";
  }();
  ENGRAM_ASSIGN_OR_RETURN(ScopedStatement st, writer_->Prepare(kSql));
  BindMutableColumns(st, item, 1);
  st->Bind(kItemMutableColumnCount + 1, seq);
  cache_.Erase(seq);  // the caller's write window is open
  ENGRAM_RETURN_IF_ERROR(st->Run());
  // The item was read with its counted reads added in, and the row now holds them.
  ENGRAM_ASSIGN_OR_RETURN(ScopedStatement folded,
                          writer_->Prepare("DELETE FROM item_access WHERE item_seq = ?"));
  ENGRAM_RETURN_IF_ERROR(folded->Bind(1, seq).Run());
  if (vector) ENGRAM_RETURN_IF_ERROR(InsertVector(seq, *vector, now));
  if (previous.status == ItemStatus::kActive &&
      (item.status == ItemStatus::kSuperseded || item.status == ItemStatus::kDeleted)) {
    // "a superseded fact ends its edges": in the same transaction as the fact.
    ENGRAM_RETURN_IF_ERROR(EndEdgesLocked(seq, item, now));
  }
  if (!record_history) return item;
  HistoryEntry h{.event = event,
                 .old_content = previous.content,
                 .previous = previous,
                 .reason = reason,
                 .at = now};
  if (event != HistoryEvent::kDelete) h.new_content = item.content;
  ENGRAM_RETURN_IF_ERROR(InsertHistory(seq, h, /*keep_seq=*/false));
  return item;
}

Result<int64_t> MemoryStore::SeqForWrite(const Scope& scope, std::string_view id) {
  ENGRAM_ASSIGN_OR_RETURN(ScopeFilter filter, ResolveForRead(writer_.get(), scope));
  int64_t seq = 0;
  ENGRAM_RETURN_IF_ERROR(GetOn(writer_.get(), filter, scope, id, &seq).status());
  return seq;
}

Result<PurgeResult> MemoryStore::Purge(const Scope& scope, std::string_view id,
                                       const PurgeOptions& options, TimestampMs now) {
  WriterCall call(this);
  PurgeResult out;
  {
    ItemCache::WriteWindow window(&cache_);
    Transaction txn(writer_.get());
    ENGRAM_RETURN_IF_ERROR(txn.Begin());
    ENGRAM_ASSIGN_OR_RETURN(ScopeFilter filter, ResolveForRead(writer_.get(), scope));
    int64_t seq = 0;
    ENGRAM_ASSIGN_OR_RETURN(MemoryItem item, GetOn(writer_.get(), filter, scope, id, &seq));
    const int64_t scope_id = filter.scope_id;
    out.ids.push_back(item.id);
    out.seqs.push_back(seq);
    auto add = [&out](const std::string& found_id, int64_t found_seq) {
      if (std::find(out.seqs.begin(), out.seqs.end(), found_seq) != out.seqs.end()) return;
      out.ids.push_back(found_id);
      out.seqs.push_back(found_seq);
    };
    if (options.source_turns) {
      // The conversation: the kept turns it came from, their session turns, and the summaries
      // written from either (they may repeat the words).
      const Scope whole{scope.tenant, scope.user_id, "", ""};
      ScopeFilter all;
      all.scope_id = scope_id;
      // Message ids name turns of one session each: the item's own in its session, and each
      // kept turn's in the turn's session (a fact said outside a session may be repeated, and
      // linked to a turn, in one).
      auto session_of = [](const MemoryItem& m) {
        return !m.source.session_id.empty() ? m.source.session_id : m.scope.session_id;
      };
      std::vector<std::pair<std::string, std::string>> messages;  // (message id, session)
      for (const std::string& m : item.source.message_ids)
        messages.emplace_back(m, session_of(item));
      std::vector<std::string> turn_ids;
      for (const std::string& turn_id : item.source.turn_ids) {
        int64_t turn_seq = 0;
        auto turn = GetOn(writer_.get(), all, whole, turn_id, &turn_seq);
        if (!turn.ok()) {
          if (turn.status().code() == StatusCode::kNotFound) continue;  // purged before
          return turn.status();
        }
        add(turn->id, turn_seq);
        turn_ids.push_back(turn->id);
        for (const std::string& m : turn->source.message_ids) {
          messages.emplace_back(m, session_of(*turn));
        }
      }
      ENGRAM_ASSIGN_OR_RETURN(
          ScopedStatement turns,
          writer_->Prepare("DELETE FROM turns WHERE message_id = ? AND session_seq = "
                           "(SELECT seq FROM sessions WHERE scope_id = ? AND session_id = ?)"));
      ENGRAM_ASSIGN_OR_RETURN(
          ScopedStatement by_message,
          writer_->Prepare("SELECT seq, id FROM items WHERE scope_id = ? AND type = 'summary' "
                           "AND (session_id = ?2 OR source_session = ?2) "
                           "AND instr(source_messages, json_quote(?3)) > 0"));
      for (const auto& [m, session] : messages) {
        if (session.empty()) continue;  // said outside a session: no session turn
        turns->Reset();
        ENGRAM_RETURN_IF_ERROR(turns->Bind(1, m).Bind(2, scope_id).Bind(3, session).Run());
        out.session_turns += writer_->Changes();
        by_message->Reset();
        by_message->Bind(1, scope_id).Bind(2, session).Bind(3, m);
        while (true) {
          ENGRAM_ASSIGN_OR_RETURN(bool row, by_message->Step());
          if (!row) break;
          add(by_message->String(1), by_message->Int(0));
        }
      }
      ENGRAM_ASSIGN_OR_RETURN(
          ScopedStatement by_turn,
          writer_->Prepare("SELECT seq, id FROM items WHERE scope_id = ? AND type = 'summary' "
                           "AND instr(source_turns, json_quote(?)) > 0"));
      for (const std::string& t : turn_ids) {
        by_turn->Reset();
        by_turn->Bind(1, scope_id).Bind(2, t);
        while (true) {
          ENGRAM_ASSIGN_OR_RETURN(bool row, by_turn->Step());
          if (!row) break;
          add(by_turn->String(1), by_turn->Int(0));
        }
      }
    }
    // Other memories' history may quote a purged one (a decision's reason: 'new value replaces
    // "…"', an update's previous text): those fields are blanked, the rows (the fact that
    // something changed) stay.
    ENGRAM_ASSIGN_OR_RETURN(ScopedStatement texts,
                            writer_->Prepare("SELECT content FROM items WHERE seq = ?"));
    ENGRAM_ASSIGN_OR_RETURN(
        ScopedStatement blank,
        writer_->Prepare(
            "UPDATE item_history SET "
            "reason = CASE WHEN instr(reason, ?2) > 0 THEN ?3 ELSE reason END, "
            "old_content = CASE WHEN instr(old_content, ?2) > 0 THEN NULL ELSE old_content END, "
            "new_content = CASE WHEN instr(new_content, ?2) > 0 THEN NULL ELSE new_content END, "
            "previous = CASE WHEN instr(previous, ?2) > 0 THEN NULL ELSE previous END "
            "WHERE item_seq IN (SELECT seq FROM items WHERE scope_id = ?1) AND "
            "(instr(reason, ?2) > 0 OR instr(old_content, ?2) > 0 OR "
            "instr(new_content, ?2) > 0 OR instr(previous, ?2) > 0)"));
    for (size_t k = 0; k < out.seqs.size(); ++k) {
      texts->Reset();
      texts->Bind(1, out.seqs[k]);
      ENGRAM_ASSIGN_OR_RETURN(bool row, texts->Step());
      if (!row) continue;
      // A long text is quoted whole or cut: its first 48 bytes find both (at a character
      // boundary).
      std::string quoted = texts->String(0).substr(0, 48);
      while (!quoted.empty() && (static_cast<unsigned char>(quoted.back()) & 0xC0) == 0x80) {
        quoted.pop_back();
      }
      if (!quoted.empty() && static_cast<unsigned char>(quoted.back()) >= 0xC0) quoted.pop_back();
      if (quoted.empty()) continue;
      blank->Reset();
      ENGRAM_RETURN_IF_ERROR(blank->Bind(1, scope_id)
                                 .Bind(2, quoted)
                                 .Bind(3, "(erased: it named a memory purged since)")
                                 .Run());
    }
    texts->Reset();
    ENGRAM_ASSIGN_OR_RETURN(ScopedStatement del,
                            writer_->Prepare("DELETE FROM items WHERE seq = ?"));
    // A hard delete leaves no trace: the maintenance log's rows about the item go too, and so
    // do the asynchronous jobs whose result carries it (their payload holds the words said).
    ENGRAM_ASSIGN_OR_RETURN(
        ScopedStatement log,
        writer_->Prepare("DELETE FROM lifecycle_log WHERE scope_id = ? AND item_id = ?"));
    // What stays is the fact of the deletion: one maintenance-log row per erased id, with no
    // content (GET /v1/maintenance/log shows it).
    ENGRAM_ASSIGN_OR_RETURN(
        ScopedStatement tombstone,
        writer_->Prepare("INSERT INTO lifecycle_log (scope_id, item_id, action, reason, at) "
                         "VALUES (?, ?, 'purge', ?, ?)"));
    ENGRAM_ASSIGN_OR_RETURN(ScopedStatement jobs,
                            writer_->Prepare("DELETE FROM jobs WHERE scope_id = ? AND "
                                             "instr(coalesce(result, ''), json_quote(?)) > 0"));
    ENGRAM_ASSIGN_OR_RETURN(
        ScopedStatement unlink,
        writer_->Prepare("UPDATE sessions SET summary_id = '' WHERE scope_id = ? AND "
                         "summary_id = ?"));
    for (size_t k = 0; k < out.seqs.size(); ++k) {
      cache_.Erase(out.seqs[k]);
      del->Reset();
      ENGRAM_RETURN_IF_ERROR(del->Bind(1, out.seqs[k]).Run());  // history and vectors cascade
      log->Reset();
      ENGRAM_RETURN_IF_ERROR(log->Bind(1, scope_id).Bind(2, out.ids[k]).Run());
      tombstone->Reset();
      ENGRAM_RETURN_IF_ERROR(tombstone->Bind(1, scope_id)
                                 .Bind(2, out.ids[k])
                                 .Bind(3, out.ids[k] == id ? std::string("hard delete asked for")
                                                           : "hard delete of " + std::string(id) +
                                                                 ": part of its conversation")
                                 .Bind(4, now)
                                 .Run());
      jobs->Reset();
      ENGRAM_RETURN_IF_ERROR(jobs->Bind(1, scope_id).Bind(2, out.ids[k]).Run());
      out.jobs += writer_->Changes();
      unlink->Reset();
      ENGRAM_RETURN_IF_ERROR(unlink->Bind(1, scope_id).Bind(2, out.ids[k]).Run());
    }
    // So does the profile summary, which may have been written from it (cited or not): the
    // next maintenance run writes another from what is left.
    ENGRAM_ASSIGN_OR_RETURN(ScopedStatement profile,
                            writer_->Prepare("DELETE FROM profiles WHERE scope_id = ?"));
    ENGRAM_RETURN_IF_ERROR(profile->Bind(1, scope_id).Run());
    if (writer_->Changes() > 0) {
      // Nothing left in the history says the scope changed: forget its maintenance mark, so
      // that the next run looks at the whole scope and writes the summary again.
      ENGRAM_ASSIGN_OR_RETURN(ScopedStatement unmark,
                              writer_->Prepare("DELETE FROM lifecycle_scopes WHERE scope_id = ?"));
      ENGRAM_RETURN_IF_ERROR(unmark->Bind(1, scope_id).Run());
    }
    ENGRAM_RETURN_IF_ERROR(txn.Commit());
  }
  CheckpointAfterPurge(writer_.get());
  return out;
}

Result<int64_t> MemoryStore::PurgeScope(const Scope& scope) {
  WriterCall call(this);
  int64_t removed = 0;
  {
    ItemCache::WriteWindow window(&cache_);
    Transaction txn(writer_.get());
    ENGRAM_RETURN_IF_ERROR(txn.Begin());
    ENGRAM_ASSIGN_OR_RETURN(auto scope_id, FindScopeId(writer_.get(), scope));
    if (!scope_id) return int64_t{0};
    cache_.Clear();  // rare: every scope's entries go, not only this one's
    const char* const kDeletes[] = {
        "DELETE FROM items WHERE scope_id = ?", "DELETE FROM sessions WHERE scope_id = ?",
        "DELETE FROM jobs WHERE scope_id = ?", "DELETE FROM lifecycle_log WHERE scope_id = ?",
        "DELETE FROM lifecycle_scopes WHERE scope_id = ?",
        "DELETE FROM profiles WHERE scope_id = ?",
        // The items' cascades and the graph's triggers have
        // emptied it; these are for rows no item linked.
        "DELETE FROM graph_edges WHERE scope_id = ?",
        "DELETE FROM graph_entities WHERE scope_id = ?", "DELETE FROM scopes WHERE id = ?"};
    for (const char* sql : kDeletes) {
      ENGRAM_ASSIGN_OR_RETURN(ScopedStatement st, writer_->Prepare(sql));
      ENGRAM_RETURN_IF_ERROR(st->Bind(1, *scope_id).Run());
      if (sql == kDeletes[0]) removed = writer_->Changes();  // history and vectors cascade
    }
    ENGRAM_RETURN_IF_ERROR(txn.Commit());
  }
  CheckpointAfterPurge(writer_.get());
  return removed;
}

Status MemoryStore::PutVector(const Scope& scope, std::string_view id, const StoredVector& vector,
                              TimestampMs now) {
  WriterCall call(this);
  ItemCache::WriteWindow window(&cache_);
  Transaction txn(writer_.get());
  ENGRAM_RETURN_IF_ERROR(txn.Begin());
  ENGRAM_ASSIGN_OR_RETURN(int64_t seq, SeqForWrite(scope, id));
  cache_.Erase(seq);
  ENGRAM_RETURN_IF_ERROR(InsertVector(seq, vector, now));
  ENGRAM_ASSIGN_OR_RETURN(ScopedStatement up,
                          writer_->Prepare("UPDATE items SET embedding_model = ? WHERE seq = ?"));
  ENGRAM_RETURN_IF_ERROR(up->Bind(1, vector.model).Bind(2, seq).Run());
  return txn.Commit();
}

// Imported history keeps its seq numbers when all of them are positive, increasing and unused
// (always so in an empty database); otherwise the whole item's history is renumbered, in order.
Result<bool> MemoryStore::HistorySeqsAreFree(const std::vector<HistoryEntry>& history) {
  int64_t last = 0;
  for (const HistoryEntry& h : history) {
    if (h.seq <= last) return false;
    last = h.seq;
    ENGRAM_ASSIGN_OR_RETURN(ScopedStatement taken,
                            writer_->Prepare("SELECT 1 FROM item_history WHERE seq = ?"));
    taken->Bind(1, h.seq);
    ENGRAM_ASSIGN_OR_RETURN(bool row, taken->Step());
    taken->Reset();
    if (row) return false;
  }
  return true;
}

Status MemoryStore::ImportOne(const MemoryRecord& record, OnConflict on_conflict,
                              ImportStats* stats) {
  const MemoryItem& item = record.item;
  ENGRAM_RETURN_IF_ERROR(writer_->BindTenant(item.scope.tenant));
  ENGRAM_ASSIGN_OR_RETURN(ScopedStatement exists,
                          writer_->Prepare("SELECT 1 FROM items WHERE id = ?"));
  exists->Bind(1, item.id);
  ENGRAM_ASSIGN_OR_RETURN(bool present, exists->Step());
  exists->Reset();
  if (present) {
    if (on_conflict == OnConflict::kSkip) {
      ++stats->skipped;
      return Status::Ok();
    }
    return Status::Conflict("memory id '" + item.id + "' already exists");
  }
  ENGRAM_ASSIGN_OR_RETURN(int64_t scope_id, EnsureScopeId(item.scope));
  int64_t seq;
  ENGRAM_RETURN_IF_ERROR(InsertRow(scope_id, item, &seq));
  ENGRAM_ASSIGN_OR_RETURN(bool keep_seqs, HistorySeqsAreFree(record.history));
  for (const HistoryEntry& h : record.history) {
    ENGRAM_RETURN_IF_ERROR(InsertHistory(seq, h, keep_seqs));
  }
  for (const StoredVector& v : record.vectors) {
    ENGRAM_RETURN_IF_ERROR(InsertVector(seq, v, item.updated_at));
  }
  // The entity graph is rebuilt, not carried: an export holds the items, and the graph is what
  // the rules read from them (dated as when Engram first learnt each item). A memory that no
  // longer holds states only ended relations.
  if (item.type != MemoryType::kSummary) {
    ENGRAM_RETURN_IF_ERROR(
        WriteGraphLocked(scope_id, seq, item, ExtractGraph(item.content), item.created_at));
    if (item.status == ItemStatus::kSuperseded || item.status == ItemStatus::kDeleted) {
      ENGRAM_RETURN_IF_ERROR(EndEdgesLocked(seq, item, item.updated_at));
    }
  }
  ++stats->imported;
  return Status::Ok();
}

Result<ImportStats> MemoryStore::Import(const std::vector<MemoryRecord>& records,
                                        OnConflict on_conflict) {
  WriterCall call(this);
  Transaction txn(writer_.get());
  ENGRAM_RETURN_IF_ERROR(txn.Begin());
  ImportStats stats;
  for (const MemoryRecord& r : records) {
    ENGRAM_RETURN_IF_ERROR(ImportOne(r, on_conflict, &stats));
  }
  ENGRAM_RETURN_IF_ERROR(txn.Commit());
  return stats;
}

Status MemoryStore::UpsertAccessBatches(const std::vector<AccessDelta>& deltas,
                                        const std::string& sql) {
  constexpr size_t kBatch = 2000;
  ENGRAM_ASSIGN_OR_RETURN(ScopedStatement add, writer_->Prepare(sql));
  for (size_t begin = 0; begin < deltas.size(); begin += kBatch) {
    const size_t end = std::min(deltas.size(), begin + kBatch);
    std::string seqs = "{", reads = "{", last = "{";
    for (size_t k = begin; k < end; ++k) {
      const char* sep = k + 1 < end ? "," : "}";
      seqs += std::to_string(deltas[k].seq) + sep;
      reads += std::to_string(deltas[k].count) + sep;
      last += std::to_string(deltas[k].last_accessed) + sep;
    }
    add->Reset();
    ENGRAM_RETURN_IF_ERROR(add->Bind(1, seqs).Bind(2, reads).Bind(3, last).Run());
  }
  return Status::Ok();
}

Status MemoryStore::RecordAccess(const std::vector<AccessDelta>& deltas,
                                 const CommitWrapper& around_commit) {
  if (deltas.empty()) return Status::Ok();
  WriterCall call(this);
  // Statistics, not acknowledged writes: committed without waiting for the disk (in WAL mode
  // the next synchronous commit or checkpoint makes them durable; a power cut may lose the
  // last seconds of counts), so whoever waits on this commit waits for no fsync.
  const bool relax = options_.synchronous != "NORMAL" && writer_->dialect() == SqlDialect::kSqlite;
  if (relax) ENGRAM_RETURN_IF_ERROR(writer_->Exec("PRAGMA synchronous=NORMAL"));
  struct RestoreSynchronous {
    Database* db;
    bool relaxed;
    const std::string& mode;
    ~RestoreSynchronous() {
      if (relaxed) (void)db->Exec("PRAGMA synchronous=" + mode);
    }
  } restore{writer_.get(), relax, options_.synchronous};
  ItemCache::WriteWindow window(&cache_);
  // The counts are of many tenants' items.
  ENGRAM_RETURN_IF_ERROR(writer_->BindAllTenants());
  Transaction txn(writer_.get());
  ENGRAM_RETURN_IF_ERROR(txn.Begin());
  // One upsert per item: a row is added for an item that still exists (a count for one
  // deleted meanwhile is dropped), or the counts are added to its row. One statement, so that
  // two processes counting the same item (replicas on PostgreSQL) never both insert it. On
  // PostgreSQL the row names its tenant, the item's (no one tenant is bound here).
  static const std::string kSqlite =
      "INSERT INTO item_access (item_seq, reads, last_read) "
      "SELECT ?1, ?2, ?3 WHERE EXISTS (SELECT 1 FROM items WHERE seq = ?1) "
      "ON CONFLICT (item_seq) DO UPDATE SET ";
  // On PostgreSQL a statement is a round trip to the server, so the counts go in batches, as
  // arrays (a flush during a search load holds a thousand or more items). The deltas' seqs are
  // distinct (AccessCounts keys them by seq): ON CONFLICT may touch a row once per statement.
  static const std::string kPostgresBatch =
      "INSERT INTO item_access (tenant, item_seq, reads, last_read) "
      "SELECT i.tenant, i.seq, d.reads, d.last_read FROM unnest(?1::bigint[], ?2::bigint[], "
      "?3::bigint[]) AS d(seq, reads, last_read) JOIN items i ON i.seq = d.seq "
      "ON CONFLICT (tenant, item_seq) DO UPDATE SET ";
  static const std::string kUpdate =
      "reads = item_access.reads + excluded.reads, "
      "last_read = max(item_access.last_read, excluded.last_read)";
  if (writer_->dialect() == SqlDialect::kPostgres) {
    ENGRAM_RETURN_IF_ERROR(UpsertAccessBatches(deltas, kPostgresBatch + kUpdate));
  } else {
    ENGRAM_ASSIGN_OR_RETURN(ScopedStatement add, writer_->Prepare(kSqlite + kUpdate));
    for (const AccessDelta& d : deltas) {
      add->Reset();
      ENGRAM_RETURN_IF_ERROR(add->Bind(1, d.seq).Bind(2, d.count).Bind(3, d.last_accessed).Run());
    }
  }
  ENGRAM_ASSIGN_OR_RETURN(
      ScopedStatement mark,
      writer_->Prepare("UPDATE access_epoch SET flushes = flushes + 1 WHERE id = 1 "
                       "RETURNING flushes"));
  ENGRAM_ASSIGN_OR_RETURN(bool marked, mark->Step());
  if (!marked) return Status::Corruption("access_epoch has no row");
  const int64_t epoch = mark->Int(0);
  mark->Reset();
  // Cached entries take the counts after the commit, inside the write window (see engine.h).
  auto commit = [&] { return txn.Commit(); };
  auto publish = [&] {
    for (const AccessDelta& d : deltas) cache_.AddAccess(d.seq, d.count, d.last_accessed);
  };
  if (around_commit) return around_commit(epoch, commit, publish);
  ENGRAM_RETURN_IF_ERROR(commit());
  publish();
  return Status::Ok();
}

}  // namespace engram
