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

class Statement {
 public:
  Statement(Database* owner, sqlite3_stmt* stmt);
  ~Statement() { sqlite3_finalize(stmt_); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  // Parameter indexes are 1-based, as in SQLite.
  Statement& Bind(int index, int64_t value);
  Statement& Bind(int index, double value);
  Statement& Bind(int index, std::string_view text);
  Statement& Bind(int index, const std::optional<int64_t>& value);
  Statement& BindBlob(int index, const void* data, size_t size);
  Statement& BindNull(int index);

  // Advances: true when a row is available, false when done; an error otherwise.
  // A bind error recorded earlier is reported by the next Step.
  Result<bool> Step();
  // Steps to completion, expecting no rows to matter.
  Status Run();
  // Resets the statement and clears bindings so it can be reused.
  void Reset();

  // Column indexes are 0-based, as in SQLite.
  int64_t Int(int col) const { return sqlite3_column_int64(stmt_, col); }
  double Double(int col) const { return sqlite3_column_double(stmt_, col); }
  std::string_view Text(int col) const;
  std::string String(int col) const { return std::string(Text(col)); }
  std::optional<int64_t> OptionalInt(int col) const;
  bool IsNull(int col) const { return sqlite3_column_type(stmt_, col) == SQLITE_NULL; }
  const void* Blob(int col) const { return sqlite3_column_blob(stmt_, col); }
  int BlobSize(int col) const { return sqlite3_column_bytes(stmt_, col); }

 private:
  void NoteBind(int rc, int index);

  Database* owner_;
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

class Database {
 public:
  ~Database();
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;

  // Opens (creating unless read_only) the file at `path` with foreign keys and secure_delete
  // on. Changes nothing in the file: the caller switches it to WAL (EnableWal) once it knows
  // the file is its own.
  static Result<std::unique_ptr<Database>> Open(const std::string& path,
                                                const DatabaseOptions& options);

  Status Exec(std::string_view sql);
  // A sealed file: a new one gets kSealReserveBytes per page; an existing one must have them.
  Status ReserveSealBytes();
  // Switches the file to write-ahead logging (persistent: recorded in the file header).
  Status EnableWal();
  // A PASSIVE checkpoint (never waits for readers or writers): copies what it can of the WAL
  // into the database file. Returns the frames in the WAL and how many of them are now in the
  // database file; equal means a writer that starts now begins the WAL afresh. `busy` when
  // another connection held a lock it needs (a checkpoint, or a commit writing the WAL's
  // header): nothing was copied, try again later.
  struct WalProgress {
    int log_frames = 0;
    int checkpointed_frames = 0;
    bool busy = false;
  };
  Result<WalProgress> CheckpointPassive();
  // Syncs the database file (not the WAL) through SQLite's file layer. A checkpoint syncs it
  // only when it has copied the whole WAL; pages copied by earlier passes are synced then.
  Status SyncDatabaseFile();
  // A cached prepared statement for `sql`, reset and with bindings cleared, lent until the
  // handle goes out of scope (then reset again). Do not use the same statement twice at once.
  Result<ScopedStatement> Prepare(const std::string& sql);
  // A one-off statement (not cached), for SQL built at run time.
  Result<std::unique_ptr<Statement>> PrepareUncached(const std::string& sql);

  // Resets every statement still mid-result. A statement left on a row keeps its read
  // transaction (and snapshot) open; call this before a connection is reused or committed.
  void ResetActiveStatements();

  // What a storage call must leave behind (ConnectionCall checks it): no statement mid-result
  // and no transaction open. Empty when clean; else what is left, for a message.
  std::string Leftovers() const;
  // Puts the connection back in that state: resets every statement, rolls back an open
  // transaction. False when it is still not clean afterwards (the connection is unusable).
  bool Clean();

  // The last SQLite error on this connection (its extended result code; SQLITE_OK if none yet)
  // and how many there have been: what a call met, even when it went on or rolled back.
  void NoteError(int rc, const std::string& message);
  int last_error_rc() const { return last_error_rc_; }
  const std::string& last_error_message() const { return last_error_message_; }
  int64_t error_count() const { return error_count_; }
  int64_t commit_count() const { return commit_count_; }
  int busy_timeout_ms() const { return busy_timeout_ms_; }
  // How long a statement waits for a lock held elsewhere before failing with SQLITE_BUSY.
  void SetBusyTimeout(int ms);
  void NoteCommit() { ++commit_count_; }

  int64_t LastInsertRowid() const { return sqlite3_last_insert_rowid(db_); }
  int64_t Changes() const { return sqlite3_changes64(db_); }
  int64_t LastInsertRowId() const { return sqlite3_last_insert_rowid(db_); }
  sqlite3* raw() const { return db_; }
  const std::string& path() const { return path_; }

 private:
  Database(sqlite3* db, std::string path) : db_(db), path_(std::move(path)) {}

  sqlite3* db_;
  std::string path_;
  std::unordered_map<std::string, std::unique_ptr<Statement>> cache_;
  int last_error_rc_ = SQLITE_OK;
  std::string last_error_message_;
  int64_t error_count_ = 0;
  int64_t commit_count_ = 0;
  int busy_timeout_ms_ = 0;
  bool registered_ = false;  // counted in lock_safe_reads.h's registry of open connections
};

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
