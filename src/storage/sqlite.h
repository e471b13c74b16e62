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
#include <vector>

#include "engram/encryption.h"
#include "engram/status.h"

namespace engram {

// Maps an SQLite result code (and the connection's message) to a Status.
Status SqliteStatus(int rc, sqlite3* db, std::string_view context);

class Statement {
 public:
  Statement(sqlite3* db, sqlite3_stmt* stmt) : db_(db), stmt_(stmt) {}
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

  sqlite3* db_;
  sqlite3_stmt* stmt_;
  int bind_error_ = SQLITE_OK;
  int bind_error_index_ = 0;
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
  // A cached prepared statement for `sql`, reset and with bindings cleared. The pointer stays
  // valid for the connection's life; do not use the same statement twice at once.
  Result<Statement*> Prepare(const std::string& sql);
  // A one-off statement (not cached), for SQL built at run time.
  Result<std::unique_ptr<Statement>> PrepareUncached(const std::string& sql);

  // Resets every statement still mid-result. A statement left on a row keeps its read
  // transaction (and snapshot) open; call this before a connection is reused or committed.
  void ResetActiveStatements();

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
};

// BEGIN IMMEDIATE on construction (Begin()), ROLLBACK on destruction unless Commit() succeeded.
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

// Resets every statement of the connection when a call ends (ResetActiveStatements), so no
// read leaves a transaction (and its snapshot) open between calls: rows another process wrote
// are seen at once, and the connection never blocks a writer.
class EndOfCall {
 public:
  explicit EndOfCall(Database* db) : db_(db) {}
  ~EndOfCall() { db_->ResetActiveStatements(); }
  EndOfCall(const EndOfCall&) = delete;
  EndOfCall& operator=(const EndOfCall&) = delete;

 private:
  Database* db_;
};

}  // namespace engram
