// Pieces of MemoryStore shared by its two source files; not for use elsewhere.
#pragma once

#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "storage/memory_store.h"
#include "storage/row_codec.h"
#include "storage/sqlite.h"

namespace engram {

// A reader connection borrowed from the pool; returned when the lease is destroyed.
// At its end the connection is checked and cleaned (storage/sqlite.h ConnectionCall) before it
// goes back to the pool; one that cannot be cleaned is closed instead.
class MemoryStore::ReaderLease {
 public:
  ReaderLease(MemoryStore* store, std::unique_ptr<Database> db, const char* call)
      : store_(store), db_(std::move(db)), call_(call) {}
  ReaderLease(ReaderLease&&) noexcept = default;
  ReaderLease& operator=(ReaderLease&&) = delete;
  ~ReaderLease();
  Database* db() const { return db_.get(); }

 private:
  MemoryStore* store_;
  std::unique_ptr<Database> db_;
  const char* call_;
};

// One call's use of the writer connection: holds write_mu_ for the call (construct it first,
// so it ends last) and, when the call ends, checks and cleans the connection
// (storage/sqlite.h ConnectionCall) and records whether writes work (MemoryStore::AfterWrite).
class MemoryStore::WriterCall {
 public:
  explicit WriterCall(MemoryStore* store, const char* call = __builtin_FUNCTION())
      : store_(store),
        lock_(store->write_mu_),
        call_(call),
        errors_before_(store->writer_->error_count()),
        commits_before_(store->writer_->commit_count()) {}
  ~WriterCall() { store_->AfterWrite(call_, errors_before_, commits_before_); }
  WriterCall(const WriterCall&) = delete;
  WriterCall& operator=(const WriterCall&) = delete;

 private:
  MemoryStore* store_;
  std::lock_guard<GatedMutex> lock_;
  const char* call_;
  int64_t errors_before_;
  int64_t commits_before_;
};

// The SQL condition selecting one scope's rows of `items`. scope_id -1 (a scope never
// written) matches nothing. agent_id / session_id narrow the rows when non-empty.
struct ScopeFilter {
  int64_t scope_id = -1;
  std::string agent_id;
  std::string session_id;

  // "scope_id = ? [AND agent_id = ?] [AND session_id = ?]"
  std::string Sql() const {
    std::string sql = "scope_id = ?";
    if (!agent_id.empty()) sql += " AND agent_id = ?";
    if (!session_id.empty()) sql += " AND session_id = ?";
    return sql;
  }
  // Binds from parameter `first`; returns the next free parameter index.
  int Bind(Statement* st, int first) const {
    st->Bind(first++, scope_id);
    if (!agent_id.empty()) st->Bind(first++, agent_id);
    if (!session_id.empty()) st->Bind(first++, session_id);
    return first;
  }
};

// An upsert's "ON CONFLICT (columns)". On PostgreSQL the unique keys lead with the tenant
// (storage/pg_migrations.cc, migration 3: a table partitioned by tenant can only enforce keys
// that hold it) and ON CONFLICT must name a unique key exactly, so the tenant comes first
// there; SQLite's keys have no tenant. The only way the store's SQL differs for the tenant: the
// rows' tenant column fills itself from the tenant bound to the connection.
inline std::string UpsertOn(const Database* db, std::string_view columns) {
  const bool pg = db->dialect() == SqlDialect::kPostgres;
  return std::string(pg ? "ON CONFLICT (tenant, " : "ON CONFLICT (") + std::string(columns) + ")";
}

// "SELECT <every item column> FROM items LEFT JOIN item_access …": append the WHERE clause.
inline const std::string& SelectItemsSql() {
  static const std::string sql =
      "SELECT " + std::string(kItemSelectColumns) + std::string(kItemSelectFrom);
  return sql;
}

// Moves WAL content into the main file and truncates the WAL, so purged rows do not linger in
// old page images. A reader mid-transaction (a search, the access-count flusher) makes the
// checkpoint report busy, without an error, once SQLite's busy handler has waited: it is tried
// again for up to ~5 s more rather than left with the purged text still in the WAL.
inline void CheckpointAfterPurge(Database* db) {
  if (db->dialect() != SqlDialect::kSqlite) return;  // no WAL of Engram's to truncate
  for (int attempt = 0; attempt < 250; ++attempt) {
    auto st = db->PrepareUncached("PRAGMA wal_checkpoint(TRUNCATE)");
    if (!st.ok()) return;
    auto row = (*st)->Step();
    if (!row.ok() || !*row || (*st)->Int(0) == 0) return;  // done (or an error to not loop on)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

}  // namespace engram
