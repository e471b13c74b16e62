// A thin RAII layer over the SQLite C API that reports errors as Status values.
//
// Hand-written rather than a packaged wrapper (SQLiteCpp) because those throw exceptions and
// Engram's core reports failure as Status; the layer is small: a connection, prepared
// statements cached per connection, and a scoped transaction.
//
// Thread safety: a Database (and its statements) must be used by one thread at a time.
// Engram keeps one writer connection and a pool of reader connections (see MemoryStore).
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "engram/encryption.h"
#include "engram/status.h"

namespace engram {

// Maps an SQLite result code (and the connection's message) to a Status.
Status SqliteStatus(int rc, sqlite3* db, std::string_view context);

class Database;

// The kinds of failure that are the database's, not the request's: a lock held elsewhere, I/O,
// a full disk, a read-only or damaged file. A write that meets one says nothing about its input.
bool IsDatabaseFailure(int rc);

// Errors met since the process started, by SQLite primary result code ("busy", "ioerr", ...):
// every Status made from an SQLite code counts once (for /metrics).
struct SqliteErrorCount {
  std::string code;
  int64_t count = 0;
};
std::vector<SqliteErrorCount> SqliteErrorCounts();

// A prepared statement of either backend (SqliteStatement, PgStatement in storage/postgres.h).
class Statement {
 public:
  virtual ~Statement() = default;
  Statement() = default;
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  // Parameter indexes are 1-based, as in SQLite; an unbound parameter is NULL.
  virtual Statement& Bind(int index, int64_t value) = 0;
  virtual Statement& Bind(int index, double value) = 0;
  virtual Statement& Bind(int index, std::string_view text) = 0;
  Statement& Bind(int index, const std::optional<int64_t>& value) {
    return value ? Bind(index, *value) : BindNull(index);
  }
  virtual Statement& BindBlob(int index, const void* data, size_t size) = 0;
  virtual Statement& BindNull(int index) = 0;

  // Advances: true when a row is available, false when done; an error otherwise.
  // A bind error recorded earlier is reported by the next Step.
  virtual Result<bool> Step() = 0;
  // Steps to completion, expecting no rows to matter.
  Status Run();
  // Resets the statement and clears bindings so it can be reused.
  virtual void Reset() = 0;

  // Column indexes are 0-based, as in SQLite.
  virtual int64_t Int(int col) const = 0;
  virtual double Double(int col) const = 0;
  virtual std::string_view Text(int col) const = 0;
  std::string String(int col) const { return std::string(Text(col)); }
  std::optional<int64_t> OptionalInt(int col) const;
  virtual bool IsNull(int col) const = 0;
  virtual const void* Blob(int col) const = 0;
  virtual int BlobSize(int col) const = 0;
};

class SqliteDatabase;

class SqliteStatement final : public Statement {
 public:
  SqliteStatement(SqliteDatabase* owner, sqlite3_stmt* stmt);
  ~SqliteStatement() override { sqlite3_finalize(stmt_); }

  using Statement::Bind;
  Statement& Bind(int index, int64_t value) override;
  Statement& Bind(int index, double value) override;
  Statement& Bind(int index, std::string_view text) override;
  Statement& BindBlob(int index, const void* data, size_t size) override;
  Statement& BindNull(int index) override;
  Result<bool> Step() override;
  void Reset() override;
  int64_t Int(int col) const override { return sqlite3_column_int64(stmt_, col); }
  double Double(int col) const override { return sqlite3_column_double(stmt_, col); }
  std::string_view Text(int col) const override;
  bool IsNull(int col) const override { return sqlite3_column_type(stmt_, col) == SQLITE_NULL; }
  const void* Blob(int col) const override { return sqlite3_column_blob(stmt_, col); }
  int BlobSize(int col) const override { return sqlite3_column_bytes(stmt_, col); }

 private:
  void NoteBind(int rc, int index);

  SqliteDatabase* owner_;
  sqlite3_stmt* stmt_;
  int bind_error_ = SQLITE_OK;
  int bind_error_index_ = 0;
};

// A cached statement lent to one call: reset when the handle goes out of scope, on every path,
// so no statement is left on a row after its call. A statement left on a row keeps its read
// transaction (and snapshot) open; once another connection commits, that snapshot is stale and
// every BEGIN IMMEDIATE on the connection fails with SQLITE_BUSY_SNAPSHOT without waiting.
// Move-only; converts to the Statement* that helpers take.
class ScopedStatement {
 public:
  explicit ScopedStatement(Statement* statement) : statement_(statement) {}
  ScopedStatement(ScopedStatement&& other) noexcept
      : statement_(std::exchange(other.statement_, nullptr)) {}
  ScopedStatement& operator=(ScopedStatement&&) = delete;
  ScopedStatement(const ScopedStatement&) = delete;
  ~ScopedStatement() {
    if (statement_) statement_->Reset();
  }
  Statement* operator->() const { return statement_; }
  Statement& operator*() const { return *statement_; }
  operator Statement*() const { return statement_; }  // NOLINT: implicit by design

 private:
  Statement* statement_;
};

// The WAL's size after it starts over (PRAGMA journal_size_limit).
inline constexpr int64_t kWalSizeLimitBytes = 64 << 20;

struct DatabaseOptions {
  bool read_only = false;
  int busy_timeout_ms = 5000;
  // "FULL" (default: a commit survives power loss) or "NORMAL" (survives a process crash).
  std::string synchronous = "FULL";
  // Pages of WAL after which a commit also checkpoints (SQLite's default 1000); 0 leaves
  // checkpoints to whoever calls `PRAGMA wal_checkpoint` (the engine's background thread).
  int wal_autocheckpoint = 1000;
  // Set: the file, its WAL and journal are sealed with this key (storage/sealed_vfs.h); a
  // new file is created sealed. A sealed file needs it, a plain one must not get one.
  std::shared_ptr<const EncryptionKey> key;
  // Lets `VACUUM INTO 'file:...?vfs=...'` name another VFS (the rekey).
  bool uri_filenames = false;
};

// Which SQL a connection speaks. Engram's statements are written in the part of SQL both share
// (upserts, RETURNING, savepoints); PostgreSQL gets SQLite's scalar functions that Engram uses
// (instr, json_quote, two-argument max, ...) from its schema (storage/postgres.cc), and the
// few statements that differ are chosen by dialect where they are built.
enum class SqlDialect { kSqlite, kPostgres };

// A connection of either backend: SQLite (the embedded default) or PostgreSQL. Errors are
// reported in SQLite's result codes whatever the backend (PostgreSQL's SQLSTATEs are mapped:
// storage/postgres.cc), so write health, retries and metrics read one vocabulary.
class Database {
 public:
  virtual ~Database() = default;
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;

  // Opens (creating unless read_only) the SQLite file at `path` with foreign keys and
  // secure_delete on. Changes nothing in the file: the caller switches it to WAL (EnableWal)
  // once it knows the file is its own. A postgres:// URL connects to that server instead
  // (storage/postgres.h OpenPostgres).
  static Result<std::unique_ptr<Database>> Open(const std::string& path,
                                                const DatabaseOptions& options);

  virtual SqlDialect dialect() const = 0;
  virtual Status Exec(std::string_view sql) = 0;
  // SQLite only (no-ops elsewhere): switches the file to write-ahead logging (persistent:
  // recorded in the file header).
  virtual Status EnableWal() { return Status::Ok(); }
  // A PASSIVE checkpoint (never waits for readers or writers): copies what it can of the WAL
  // into the database file. Returns the frames in the WAL and how many of them are now in the
  // database file; equal means a writer that starts now begins the WAL afresh. `busy` when
  // another connection held a lock it needs (a checkpoint, or a commit writing the WAL's
  // header): nothing was copied, try again later. SQLite only: elsewhere nothing to copy.
  struct WalProgress {
    int log_frames = 0;
    int checkpointed_frames = 0;
    bool busy = false;
  };
  virtual Result<WalProgress> CheckpointPassive() { return WalProgress{}; }
  // Syncs the database file (not the WAL) through SQLite's file layer. A checkpoint syncs it
  // only when it has copied the whole WAL; pages copied by earlier passes are synced then.
  virtual Status SyncDatabaseFile() { return Status::Ok(); }
  // A cached prepared statement for `sql`, reset and with bindings cleared, lent until the
  // handle goes out of scope (then reset again). Do not use the same statement twice at once.
  Result<ScopedStatement> Prepare(const std::string& sql);
  // A one-off statement (not cached), for SQL built at run time.
  virtual Result<std::unique_ptr<Statement>> PrepareUncached(const std::string& sql) = 0;

  // Resets every statement still mid-result. A statement left on a row keeps its read
  // transaction (and snapshot) open; call this before a connection is reused or committed.
  virtual void ResetActiveStatements() = 0;

  // What a storage call must leave behind (ConnectionCall checks it): no statement mid-result
  // and no transaction open. Empty when clean; else what is left, for a message.
  virtual std::string Leftovers() const = 0;
  // Puts the connection back in that state: resets every statement, rolls back an open
  // transaction. False when it is still not clean afterwards (the connection is unusable).
  virtual bool Clean() = 0;
  // False when the connection can no longer be used (a PostgreSQL connection the server
  // closed): it is replaced, and that is no call's leftover.
  virtual bool Usable() const { return true; }

  // The last error on this connection (an SQLite extended result code, mapped for other
  // backends; SQLITE_OK if none yet) and how many there have been: what a call met, even when
  // it went on or rolled back.
  void NoteError(int rc, const std::string& message);
  int last_error_rc() const { return last_error_rc_; }
  const std::string& last_error_message() const { return last_error_message_; }
  int64_t error_count() const { return error_count_; }
  int64_t commit_count() const { return commit_count_; }
  int busy_timeout_ms() const { return busy_timeout_ms_; }
  // How long a statement waits for a lock held elsewhere before failing with SQLITE_BUSY.
  virtual void SetBusyTimeout(int ms) = 0;
  void NoteCommit() { ++commit_count_; }

  // Rows changed by the last statement that ran to completion.
  virtual int64_t Changes() const = 0;
  // SQLite only; portable statements read the key with RETURNING.
  virtual int64_t LastInsertRowid() const { return 0; }
  int64_t LastInsertRowId() const { return LastInsertRowid(); }
  // The SQLite handle; nullptr for other backends.
  virtual sqlite3* raw() const { return nullptr; }
  // The tenant whose rows the next statements work on (PostgreSQL: the connection's
  // engram.tenant, which row-level security checks and which a tenant-owned row inserted without
  // its tenant takes: storage/pg_migrations.cc, migrations 3 and 4). BindAllTenants is for work
  // that spans tenants (job claiming, maintenance's work list, access counts, metrics). Until
  // one is called a connection sees no tenant's rows. Cheap when the binding does not change;
  // a rolled-back transaction undoes a binding made in it, and the next call binds again.
  // No-ops on SQLite, whose store filters every statement by scope itself.
  virtual Status BindTenant(std::string_view /*tenant*/) { return Status::Ok(); }
  virtual Status BindAllTenants() { return Status::Ok(); }
  // The server process serving this connection (PostgreSQL's backend pid); 0 for SQLite.
  virtual int BackendPid() const { return 0; }
  // The file, or the server's URL without its password.
  const std::string& path() const { return path_; }

 protected:
  explicit Database(std::string path) : path_(std::move(path)) {}

  std::string path_;
  std::unordered_map<std::string, std::unique_ptr<Statement>> cache_;
  int last_error_rc_ = SQLITE_OK;
  std::string last_error_message_;
  int64_t error_count_ = 0;
  int64_t commit_count_ = 0;
  int busy_timeout_ms_ = 0;
};

class SqliteDatabase final : public Database {
 public:
  ~SqliteDatabase() override;

  SqlDialect dialect() const override { return SqlDialect::kSqlite; }
  Status Exec(std::string_view sql) override;
  // A sealed file: a new one gets kSealReserveBytes per page; an existing one must have them.
  Status ReserveSealBytes();
  Status EnableWal() override;
  Result<WalProgress> CheckpointPassive() override;
  Status SyncDatabaseFile() override;
  Result<std::unique_ptr<Statement>> PrepareUncached(const std::string& sql) override;
  void ResetActiveStatements() override;
  std::string Leftovers() const override;
  bool Clean() override;
  void SetBusyTimeout(int ms) override;
  int64_t Changes() const override { return sqlite3_changes64(db_); }
  int64_t LastInsertRowid() const override { return sqlite3_last_insert_rowid(db_); }
  sqlite3* raw() const override { return db_; }

 private:
  friend class Database;
  SqliteDatabase(sqlite3* db, std::string path) : Database(std::move(path)), db_(db) {}

  sqlite3* db_;
  bool registered_ = false;  // counted in lock_safe_reads.h's registry of open connections
};

// Counts an error by its SQLite primary result code (SqliteErrorCounts): for backends whose
// errors are mapped to those codes.
void CountStorageError(int rc);
// The Status for an SQLite result code with a message already written.
Status StatusForCode(int rc, std::string message);

// BEGIN IMMEDIATE on construction (Begin()), ROLLBACK on destruction unless Commit() succeeded.
// Begin retries a BUSY that SQLite returned without waiting (a stale snapshot, a deadlock it
// refused to wait on) until the connection's busy timeout has passed; a BUSY after SQLite's own
// wait is returned as it is.
class Transaction {
 public:
  explicit Transaction(Database* db) : db_(db) {}
  ~Transaction();
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;

  Status Begin();
  Status Commit();

 private:
  Database* db_;
  bool open_ = false;
};

// A read transaction (BEGIN; COMMIT on destruction): one snapshot for several statements, and
// SQLite's file and WAL read locks taken once rather than by every statement. Those locks are
// process-wide mutexes, so per-statement transactions would make concurrent searches, which
// run about a dozen statements each, wait on each other.
class ReadTransaction {
 public:
  explicit ReadTransaction(Database* db) : db_(db) {}
  ~ReadTransaction();
  ReadTransaction(const ReadTransaction&) = delete;
  ReadTransaction& operator=(const ReadTransaction&) = delete;

  Status Begin();

 private:
  Database* db_;
  bool open_ = false;
};

// One storage call's use of a connection: construct it first in the call, so it ends last.
// When the call ends the connection must be clean (Database::Leftovers empty). With checks on
// (debug builds; ENGRAM_CHECK_STORAGE=1, which the test suite sets) a call that leaves a
// statement mid-result or a transaction open is reported to the check handler, which aborts the
// process naming the call unless a test installed its own; either way the connection is put
// right (Database::Clean) before the next call uses it.
class ConnectionCall {
 public:
  ConnectionCall(Database* db, std::string_view call) : db_(db), call_(call) {}
  ~ConnectionCall() { End(); }
  ConnectionCall(const ConnectionCall&) = delete;
  ConnectionCall& operator=(const ConnectionCall&) = delete;

  // Ends the call early (the destructor then does nothing): for guards that look at the
  // connection after it is clean. False when it could not be made clean.
  bool End();

 private:
  Database* db_;
  std::string_view call_;
  bool ended_ = false;
};

// Whether ConnectionCall checks (see above).
bool ConnectionChecksOn();
// Receives each check failure (the call's name and what it left). The default aborts the
// process after printing it; tests install one that records. Returns the previous handler.
using ConnectionCheckHandler = void (*)(std::string_view call, const std::string& leftovers);
ConnectionCheckHandler SetConnectionCheckHandler(ConnectionCheckHandler handler);
// Forces checks on or off (tests); otherwise they follow the build and ENGRAM_CHECK_STORAGE.
void SetConnectionChecksForTesting(bool on);

}  // namespace engram
