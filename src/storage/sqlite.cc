#include "storage/sqlite.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <thread>

#include "core/status_macros.h"
#include "storage/lock_safe_reads.h"
#include "storage/postgres.h"
#include "storage/sealed_vfs.h"

namespace engram {
namespace {

std::array<std::atomic<int64_t>, 256> g_error_counts{};

void CountError(int rc) { g_error_counts[rc & 0xFF].fetch_add(1, std::memory_order_relaxed); }

}  // namespace

bool IsDatabaseFailure(int rc) {
  switch (rc & 0xFF) {
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
    case SQLITE_IOERR:
    case SQLITE_FULL:
    case SQLITE_READONLY:
    case SQLITE_CANTOPEN:
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB:
    case SQLITE_PROTOCOL:
    case SQLITE_NOMEM:
      return true;
    default:
      return false;
  }
}

std::vector<SqliteErrorCount> SqliteErrorCounts() {
  std::vector<SqliteErrorCount> out;
  for (int rc = 1; rc < 256; ++rc) {
    const int64_t n = g_error_counts[rc].load(std::memory_order_relaxed);
    if (n == 0 || rc == SQLITE_ROW || rc == SQLITE_DONE) continue;
    // sqlite3_errstr gives prose ("database is locked"); metrics want a stable short name.
    static const std::array<const char*, 27> kNames = {
        "ok",       "error",    "internal",  "perm",   "abort",   "busy",       "locked",
        "nomem",    "readonly", "interrupt", "ioerr",  "corrupt", "notfound",   "full",
        "cantopen", "protocol", "empty",     "schema", "toobig",  "constraint", "mismatch",
        "misuse",   "nolfs",    "auth",      "format", "range",   "notadb"};
    out.push_back({rc < static_cast<int>(kNames.size()) ? kNames[rc] : std::to_string(rc), n});
  }
  return out;
}

void CountStorageError(int rc) { CountError(rc); }

Status StatusForCode(int rc, std::string msg) {
  switch (rc & 0xFF) {
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      return Status::Unavailable(std::move(msg));
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB:
      return Status::Corruption(std::move(msg));
    case SQLITE_IOERR:
    case SQLITE_FULL:
    case SQLITE_CANTOPEN:
    case SQLITE_READONLY:
      return Status::IOError(std::move(msg));
    case SQLITE_CONSTRAINT:
      return Status::Conflict(std::move(msg));
    case SQLITE_PERM:
    case SQLITE_AUTH:
      return Status::PermissionDenied(std::move(msg));
    default:
      return Status::Internal(std::move(msg));
  }
}

Status SqliteStatus(int rc, sqlite3* db, std::string_view context) {
  if (rc == SQLITE_OK || rc == SQLITE_DONE || rc == SQLITE_ROW) return Status::Ok();
  CountError(rc);
  std::string msg(context);
  msg += ": ";
  msg += db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
  return StatusForCode(rc, std::move(msg));
}

Status Statement::Run() {
  while (true) {
    ENGRAM_ASSIGN_OR_RETURN(bool row, Step());
    if (!row) return Status::Ok();
  }
}

std::optional<int64_t> Statement::OptionalInt(int col) const {
  if (IsNull(col)) return std::nullopt;
  return Int(col);
}

SqliteStatement::SqliteStatement(SqliteDatabase* owner, sqlite3_stmt* stmt)
    : owner_(owner), stmt_(stmt) {}

void SqliteStatement::NoteBind(int rc, int index) {
  if (rc != SQLITE_OK && bind_error_ == SQLITE_OK) {
    bind_error_ = rc;
    bind_error_index_ = index;
  }
}

Statement& SqliteStatement::Bind(int index, int64_t value) {
  NoteBind(sqlite3_bind_int64(stmt_, index, value), index);
  return *this;
}

Statement& SqliteStatement::Bind(int index, double value) {
  NoteBind(sqlite3_bind_double(stmt_, index, value), index);
  return *this;
}

Statement& SqliteStatement::Bind(int index, std::string_view text) {
  NoteBind(
      sqlite3_bind_text64(stmt_, index, text.data(), text.size(), SQLITE_TRANSIENT, SQLITE_UTF8),
      index);
  return *this;
}

Statement& SqliteStatement::BindBlob(int index, const void* data, size_t size) {
  NoteBind(sqlite3_bind_blob64(stmt_, index, data, size, SQLITE_TRANSIENT), index);
  return *this;
}

Statement& SqliteStatement::BindNull(int index) {
  NoteBind(sqlite3_bind_null(stmt_, index), index);
  return *this;
}

Result<bool> SqliteStatement::Step() {
  if (bind_error_ != SQLITE_OK) {
    return SqliteStatus(bind_error_, owner_->raw(),
                        "binding parameter " + std::to_string(bind_error_index_));
  }
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  Status st = SqliteStatus(rc, owner_->raw(), "executing statement");
  owner_->NoteError(rc, st.message());
  sqlite3_reset(stmt_);
  return st;
}

void SqliteStatement::Reset() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
  bind_error_ = SQLITE_OK;
  bind_error_index_ = 0;
}

std::string_view SqliteStatement::Text(int col) const {
  const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, col));
  if (!p) return {};
  return std::string_view(p, static_cast<size_t>(sqlite3_column_bytes(stmt_, col)));
}

SqliteDatabase::~SqliteDatabase() {
  cache_.clear();  // finalize statements before closing
  sqlite3_close_v2(db_);
  if (registered_) NoteConnectionClosed(path_);
}

namespace {
// Process-wide SQLite settings, applied once before the library initializes: no global memory
// statistics (they take a global mutex on every allocation).
void ConfigureSqliteOnce() {
  static const bool configured = [] {
    sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
    return true;
  }();
  (void)configured;
}
}  // namespace

Result<std::unique_ptr<Database>> Database::Open(const std::string& path,
                                                 const DatabaseOptions& options) {
  if (IsPostgresUrl(path)) return OpenPostgres(path, options);
  ConfigureSqliteOnce();
  sqlite3* raw = nullptr;
  // Readers open read-write with query_only on: a SQLITE_OPEN_READONLY connection to a WAL
  // database cannot always create the shared-memory index it needs.
  int flags = SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_READWRITE |
              (options.read_only ? 0 : SQLITE_OPEN_CREATE) |
              (options.uri_filenames ? SQLITE_OPEN_URI : 0);
  // A wrong or missing key is named here, before SQLite would call the file damaged.
  ENGRAM_RETURN_IF_ERROR(CheckDatabaseKey(path, options.key.get()));
  const std::string vfs = options.key ? SealedVfsName(*options.key) : std::string();
  int rc = sqlite3_open_v2(path.c_str(), &raw, flags, vfs.empty() ? nullptr : vfs.c_str());
  if (rc != SQLITE_OK) {
    Status st = SqliteStatus(rc, raw, "opening database " + path);
    sqlite3_close_v2(raw);
    return st;
  }
  std::unique_ptr<SqliteDatabase> db(new SqliteDatabase(raw, path));
  sqlite3_extended_result_codes(raw, 1);
  db->SetBusyTimeout(options.busy_timeout_ms);
  if (options.synchronous != "FULL" && options.synchronous != "NORMAL") {
    return Status::InvalidArgument("synchronous must be FULL or NORMAL, got '" +
                                   options.synchronous + "'");
  }
  // Check the file is a database at all before changing anything (NOTADB surfaces here).
  ENGRAM_RETURN_IF_ERROR(db->Exec("SELECT count(*) FROM sqlite_schema").WithContext(path));
  // The file exists now (a new one is created by the first read): counted from here on, so
  // reads beside SQLite keep their descriptors while this connection is open.
  NoteConnectionOpened(path);
  db->registered_ = true;
  if (options.key) ENGRAM_RETURN_IF_ERROR(db->ReserveSealBytes());
  if (options.read_only) ENGRAM_RETURN_IF_ERROR(db->Exec("PRAGMA query_only=ON"));
  ENGRAM_RETURN_IF_ERROR(db->Exec("PRAGMA synchronous=" + options.synchronous));
  ENGRAM_RETURN_IF_ERROR(db->Exec("PRAGMA foreign_keys=ON"));
  // Deleted content is overwritten, so a purge leaves no readable trace in the file.
  ENGRAM_RETURN_IF_ERROR(db->Exec("PRAGMA secure_delete=ON"));
  ENGRAM_RETURN_IF_ERROR(db->Exec("PRAGMA temp_store=MEMORY"));
  ENGRAM_RETURN_IF_ERROR(db->Exec("PRAGMA cache_size=-32768"));  // 32 MiB
  ENGRAM_RETURN_IF_ERROR(db->Exec("PRAGMA wal_autocheckpoint=" +
                                  std::to_string(std::max(0, options.wal_autocheckpoint))));
  // When a commit starts the WAL over, a longer file is cut to this size: the space a burst
  // of writes took is given back, and a file of this size is rewritten in place.
  ENGRAM_RETURN_IF_ERROR(
      db->Exec("PRAGMA journal_size_limit=" + std::to_string(kWalSizeLimitBytes)));
  return std::unique_ptr<Database>(std::move(db));
}

Status SqliteDatabase::ReserveSealBytes() {
  ENGRAM_ASSIGN_OR_RETURN(auto pages, PrepareUncached("PRAGMA page_count"));
  ENGRAM_ASSIGN_OR_RETURN(bool row, pages->Step());
  const bool fresh = row && pages->Int(0) == 0;
  ENGRAM_ASSIGN_OR_RETURN(auto size, PrepareUncached("PRAGMA page_size"));
  ENGRAM_ASSIGN_OR_RETURN(row, size->Step());
  if (!row || size->Int(0) != kSealedPageSize) {
    return Status::InvalidArgument(path_ + ": an encrypted database has pages of " +
                                   std::to_string(kSealedPageSize) + " bytes");
  }
  // -1 reads the reserve; a value sets it, which SQLite honours until the first page is written.
  int reserve = fresh ? kSealReserveBytes : -1;
  int rc = sqlite3_file_control(db_, "main", SQLITE_FCNTL_RESERVE_BYTES, &reserve);
  if (rc != SQLITE_OK) return SqliteStatus(rc, db_, "reserving bytes for sealing");
  if (!fresh && reserve < kSealReserveBytes) {
    return Status::Corruption(path_ + ": an encrypted database without room for its seals");
  }
  return Status::Ok();
}

Status SqliteDatabase::Exec(std::string_view sql) {
  std::string s(sql);
  int rc = sqlite3_exec(db_, s.c_str(), nullptr, nullptr, nullptr);
  if (rc == SQLITE_OK) return Status::Ok();
  Status st = SqliteStatus(rc, db_, "executing SQL");
  NoteError(rc, st.message());
  return st;
}

void SqliteDatabase::SetBusyTimeout(int ms) {
  sqlite3_busy_timeout(db_, ms);
  busy_timeout_ms_ = ms;
}

void Database::NoteError(int rc, const std::string& message) {
  last_error_rc_ = rc;
  last_error_message_ = message;
  ++error_count_;
}

std::string SqliteDatabase::Leftovers() const {
  std::string out;
  for (sqlite3_stmt* st = sqlite3_next_stmt(db_, nullptr); st; st = sqlite3_next_stmt(db_, st)) {
    if (!sqlite3_stmt_busy(st)) continue;
    const char* sql = sqlite3_sql(st);
    out += std::string(out.empty() ? "" : "; ") + "statement left on a row: " + (sql ? sql : "?");
  }
  if (!sqlite3_get_autocommit(db_))
    out += std::string(out.empty() ? "" : "; ") + "transaction open";
  return out;
}

bool SqliteDatabase::Clean() {
  ResetActiveStatements();
  if (!sqlite3_get_autocommit(db_)) (void)Exec("ROLLBACK");
  return Leftovers().empty();
}

Status SqliteDatabase::EnableWal() {
  ENGRAM_ASSIGN_OR_RETURN(auto st, PrepareUncached("PRAGMA journal_mode=WAL"));
  ENGRAM_ASSIGN_OR_RETURN(bool row, st->Step());
  if (!row || st->Text(0) != "wal") {
    return Status::IOError(path_ + ": cannot switch to WAL journal mode");
  }
  return Status::Ok();
}

Result<Database::WalProgress> SqliteDatabase::CheckpointPassive() {
  WalProgress p;
  int rc = sqlite3_wal_checkpoint_v2(db_, nullptr, SQLITE_CHECKPOINT_PASSIVE, &p.log_frames,
                                     &p.checkpointed_frames);
  if ((rc & 0xff) == SQLITE_BUSY) return WalProgress{.busy = true};
  if (rc != SQLITE_OK) return SqliteStatus(rc, db_, "checkpointing the WAL");
  return p;
}

Status SqliteDatabase::SyncDatabaseFile() {
  sqlite3_file* file = nullptr;
  int rc = sqlite3_file_control(db_, "main", SQLITE_FCNTL_FILE_POINTER, &file);
  if (rc != SQLITE_OK) return SqliteStatus(rc, db_, "finding the database file");
  if (file == nullptr || file->pMethods == nullptr) return Status::Ok();  // not open yet
  rc = file->pMethods->xSync(file, SQLITE_SYNC_NORMAL);
  if (rc != SQLITE_OK) return SqliteStatus(rc, db_, "syncing the database file");
  return Status::Ok();
}

void SqliteDatabase::ResetActiveStatements() {
  for (sqlite3_stmt* st = sqlite3_next_stmt(db_, nullptr); st; st = sqlite3_next_stmt(db_, st)) {
    if (sqlite3_stmt_busy(st)) sqlite3_reset(st);
  }
}

Result<ScopedStatement> Database::Prepare(const std::string& sql) {
  auto it = cache_.find(sql);
  if (it != cache_.end()) {
    it->second->Reset();
    return ScopedStatement(it->second.get());
  }
  ENGRAM_ASSIGN_OR_RETURN(auto stmt, PrepareUncached(sql));
  Statement* p = stmt.get();
  cache_.emplace(sql, std::move(stmt));
  return ScopedStatement(p);
}

Result<std::unique_ptr<Statement>> SqliteDatabase::PrepareUncached(const std::string& sql) {
  sqlite3_stmt* stmt = nullptr;
  int rc = sqlite3_prepare_v3(db_, sql.c_str(), static_cast<int>(sql.size()),
                              SQLITE_PREPARE_PERSISTENT, &stmt, nullptr);
  if (rc != SQLITE_OK) {
    Status st = SqliteStatus(rc, db_, "preparing statement");
    NoteError(rc, st.message());
    return st;
  }
  return std::unique_ptr<Statement>(new SqliteStatement(this, stmt));
}

Transaction::~Transaction() {
  if (!open_) return;
  db_->ResetActiveStatements();
  (void)db_->Exec("ROLLBACK");
}

Status Transaction::Begin() {
  using Clock = std::chrono::steady_clock;
  const auto deadline = Clock::now() + std::chrono::milliseconds(db_->busy_timeout_ms());
  auto pause = std::chrono::milliseconds(1);
  while (true) {
    Status st = db_->Exec(db_->dialect() == SqlDialect::kSqlite ? "BEGIN IMMEDIATE" : "BEGIN");
    if (st.ok()) break;
    // SQLite waited out the busy timeout already, or the error is not a lock: give up.
    if ((db_->last_error_rc() & 0xFF) != SQLITE_BUSY || Clock::now() + pause >= deadline) {
      return st;
    }
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::milliseconds(50));
  }
  open_ = true;
  return Status::Ok();
}

Status Transaction::Commit() {
  db_->ResetActiveStatements();
  Status st = db_->Exec("COMMIT");
  if (st.ok()) {
    open_ = false;
    db_->NoteCommit();
  }
  return st;
}

namespace {

std::atomic<int> g_checks_forced{-1};  // -1: by the build and the environment

void AbortOnLeftovers(std::string_view call, const std::string& leftovers) {
  std::cerr << "engram: storage check failed: " << call << " ended with " << leftovers << std::endl;
  std::abort();
}

std::atomic<ConnectionCheckHandler> g_check_handler{&AbortOnLeftovers};

}  // namespace

bool ConnectionChecksOn() {
  const int forced = g_checks_forced.load(std::memory_order_relaxed);
  if (forced >= 0) return forced == 1;
#ifndef NDEBUG
  return true;
#else
  static const bool from_env = [] {
    const char* v = std::getenv("ENGRAM_CHECK_STORAGE");
    return v != nullptr && *v != '\0' && std::strcmp(v, "0") != 0;
  }();
  return from_env;
#endif
}

ConnectionCheckHandler SetConnectionCheckHandler(ConnectionCheckHandler handler) {
  return g_check_handler.exchange(handler ? handler : &AbortOnLeftovers);
}

void SetConnectionChecksForTesting(bool on) { g_checks_forced.store(on ? 1 : 0); }

bool ConnectionCall::End() {
  if (ended_) return true;
  ended_ = true;
  const std::string leftovers = db_->Leftovers();
  if (leftovers.empty()) return db_->Usable();
  if (ConnectionChecksOn()) g_check_handler.load()(call_, leftovers);
  return db_->Clean();
}

ReadTransaction::~ReadTransaction() {
  if (!open_) return;
  db_->ResetActiveStatements();
  auto commit = db_->Prepare("COMMIT");
  if (commit.ok()) (void)(*commit)->Run();
}

Status ReadTransaction::Begin() {
  ENGRAM_ASSIGN_OR_RETURN(ScopedStatement begin, db_->Prepare("BEGIN"));
  ENGRAM_RETURN_IF_ERROR(begin->Run());
  open_ = true;
  return Status::Ok();
}

}  // namespace engram
