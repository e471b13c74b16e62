#include "storage/postgres.h"

#include <libpq-fe.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <optional>
#include <vector>

#include "core/status_macros.h"

namespace engram {
namespace {

constexpr Oid kBoolOid = 16;
constexpr Oid kByteaOid = 17;
constexpr Oid kInt8Oid = 20;
constexpr Oid kFloat4Oid = 700;
constexpr Oid kFloat8Oid = 701;
constexpr Oid kNumericOid = 1700;

// SQLSTATE → the SQLite result code whose handling fits (see postgres.h).
int CodeForSqlState(const char* state, bool connection_bad) {
  if (connection_bad || state == nullptr) return connection_bad ? SQLITE_IOERR : SQLITE_ERROR;
  const std::string_view s(state);
  if (s.starts_with("08") || s.starts_with("57P")) return SQLITE_IOERR;  // connection, shutdown
  if (s == "40001" || s == "40P01" || s == "55P03" || s == "57014") return SQLITE_BUSY;
  if (s.starts_with("23")) return SQLITE_CONSTRAINT;
  if (s == "53100") return SQLITE_FULL;
  if (s.starts_with("53")) return SQLITE_NOMEM;
  if (s == "25006") return SQLITE_READONLY;
  if (s.starts_with("28")) return SQLITE_AUTH;
  if (s == "42501") return SQLITE_PERM;
  if (s.starts_with("XX")) return SQLITE_CORRUPT;
  return SQLITE_ERROR;
}

std::string TrimMessage(const char* message) {
  std::string m = message ? message : "";
  while (!m.empty() && (m.back() == '\n' || m.back() == ' ')) m.pop_back();
  return m;
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

bool IsPostgresUrl(std::string_view path) {
  return path.starts_with("postgres://") || path.starts_with("postgresql://");
}

std::string RedactedUrl(std::string_view url) {
  const size_t scheme = url.find("://");
  if (scheme == std::string_view::npos) return std::string(url);
  const size_t at = url.find('@', scheme + 3);
  const size_t slash = url.find('/', scheme + 3);
  if (at == std::string_view::npos || (slash != std::string_view::npos && slash < at)) {
    return std::string(url);
  }
  const size_t colon = url.find(':', scheme + 3);
  if (colon == std::string_view::npos || colon > at) return std::string(url);
  return std::string(url.substr(0, colon + 1)) + "***" + std::string(url.substr(at));
}

std::string WithNetworkTimeouts(std::string_view url) {
  static constexpr std::pair<std::string_view, std::string_view> kDefaults[] = {
      {"connect_timeout", "5"},  {"tcp_user_timeout", "10000"}, {"keepalives", "1"},
      {"keepalives_idle", "10"}, {"keepalives_interval", "5"},  {"keepalives_count", "3"}};
  std::string out(url);
  const size_t query = out.find('?');
  const std::string_view params =
      query == std::string::npos ? std::string_view() : std::string_view(out).substr(query + 1);
  auto has = [&](std::string_view name) {
    for (size_t at = 0; at <= params.size();) {
      const size_t end = std::min(params.find('&', at), params.size());
      const std::string_view item = params.substr(at, end - at);
      if (item.substr(0, item.find('=')) == name) return true;
      at = end + 1;
    }
    return false;
  };
  std::string added;
  for (const auto& [name, value] : kDefaults) {
    if (!has(name))
      added += std::string(added.empty() ? "" : "&") + std::string(name) + "=" + std::string(value);
  }
  if (added.empty()) return out;
  if (query == std::string::npos) return out + "?" + added;
  return out + (out.back() == '?' || out.back() == '&' ? "" : "&") + added;
}

std::string TranslateParameters(std::string_view sql, int* count) {
  std::string out;
  out.reserve(sql.size() + 16);
  int highest = 0;
  char quote = 0;
  for (size_t i = 0; i < sql.size(); ++i) {
    const char c = sql[i];
    if (quote) {
      out += c;
      if (c == quote) quote = 0;  // a doubled quote reopens at once: same result
      continue;
    }
    if (c == '\'' || c == '"') {
      quote = c;
      out += c;
      continue;
    }
    if (c != '?') {
      out += c;
      continue;
    }
    size_t j = i + 1;
    int n = 0;
    while (j < sql.size() && sql[j] >= '0' && sql[j] <= '9') n = n * 10 + (sql[j++] - '0');
    if (j == i + 1) n = highest + 1;  // a bare ?: one past the highest so far, as in SQLite
    highest = std::max(highest, n);
    out += '$';
    out += std::to_string(n);
    i = j - 1;
  }
  if (count) *count = highest;
  return out;
}

class PgDatabase;

class PgStatement final : public Statement {
 public:
  PgStatement(PgDatabase* owner, std::string sql, int params)
      : owner_(owner), sql_(std::move(sql)), params_(static_cast<size_t>(params)) {}
  ~PgStatement() override { Clear(); }

  using Statement::Bind;
  Statement& Bind(int index, int64_t value) override {
    return Set(index, std::to_string(value), kInt8Oid, 0);
  }
  Statement& Bind(int index, double value) override {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.17g", value);
    return Set(index, buf, kFloat8Oid, 0);
  }
  Statement& Bind(int index, std::string_view text) override {
    return Set(index, std::string(text), 0, 0);  // type inferred from where it is used
  }
  Statement& BindBlob(int index, const void* data, size_t size) override {
    return Set(index, std::string(static_cast<const char*>(data), size), kByteaOid, 1);
  }
  Statement& BindNull(int index) override {
    if (!Valid(index)) return *this;
    params_[index - 1] = Param{};
    return *this;
  }

  Result<bool> Step() override;
  void Reset() override {
    Clear();
    for (Param& p : params_) p = Param{};
    bind_error_ = 0;
  }
  // Drops the result, keeping the bindings (sqlite3_reset).
  void Rewind() { Clear(); }
  bool Busy() const { return result_ != nullptr && row_ < rows_; }
  const std::string& sql() const { return sql_; }

  int64_t Int(int col) const override {
    if (IsNull(col)) return 0;
    const char* v = PQgetvalue(result_, row_, col);
    const Oid type = PQftype(result_, col);
    if (type == kBoolOid) return v[0] == 't' ? 1 : 0;
    if (type == kFloat8Oid || type == kFloat4Oid || type == kNumericOid) {
      return static_cast<int64_t>(std::strtod(v, nullptr));
    }
    return std::strtoll(v, nullptr, 10);
  }
  double Double(int col) const override {
    if (IsNull(col)) return 0;
    return std::strtod(PQgetvalue(result_, row_, col), nullptr);
  }
  std::string_view Text(int col) const override {
    if (IsNull(col)) return {};
    return std::string_view(PQgetvalue(result_, row_, col),
                            static_cast<size_t>(PQgetlength(result_, row_, col)));
  }
  bool IsNull(int col) const override {
    return result_ == nullptr || row_ >= rows_ || col >= PQnfields(result_) ||
           PQgetisnull(result_, row_, col);
  }
  const void* Blob(int col) const override {
    const std::string& b = DecodedBlob(col);
    return b.empty() ? nullptr : b.data();
  }
  int BlobSize(int col) const override { return static_cast<int>(DecodedBlob(col).size()); }

 private:
  struct Param {
    std::string value;
    Oid type = 0;
    int format = 0;
    bool null = true;
  };

  bool Valid(int index) {
    if (index >= 1 && static_cast<size_t>(index) <= params_.size()) return true;
    if (bind_error_ == 0) bind_error_ = index;
    return false;
  }
  Statement& Set(int index, std::string value, Oid type, int format) {
    if (!Valid(index)) return *this;
    params_[index - 1] = Param{std::move(value), type, format, false};
    return *this;
  }
  void Clear() {
    if (result_) PQclear(result_);
    result_ = nullptr;
    rows_ = 0;
    row_ = 0;
    blob_row_ = -1;
  }
  const std::string& DecodedBlob(int col) const {
    static const std::string kEmpty;
    if (IsNull(col)) return kEmpty;
    if (blob_row_ != row_) {
      blobs_.assign(static_cast<size_t>(PQnfields(result_)), std::string());
      decoded_.assign(blobs_.size(), false);
      blob_row_ = row_;
    }
    if (!decoded_[col]) {
      // bytea in text format: \x followed by two hex digits a byte
      const char* v = PQgetvalue(result_, row_, col);
      const int n = PQgetlength(result_, row_, col);
      std::string& out = blobs_[col];
      if (PQftype(result_, col) == kByteaOid && n >= 2 && v[0] == '\\' && v[1] == 'x') {
        out.resize(static_cast<size_t>(n - 2) / 2);
        for (size_t i = 0; i < out.size(); ++i) {
          out[i] = static_cast<char>(HexValue(v[2 + 2 * i]) * 16 + HexValue(v[3 + 2 * i]));
        }
      } else {
        out.assign(v, static_cast<size_t>(n));
      }
      decoded_[col] = true;
    }
    return blobs_[col];
  }

  PgDatabase* owner_;
  std::string sql_;
  std::vector<Param> params_;
  int bind_error_ = 0;
  PGresult* result_ = nullptr;
  int rows_ = 0;
  int row_ = 0;
  mutable int blob_row_ = -1;
  mutable std::vector<std::string> blobs_;
  mutable std::vector<bool> decoded_;
};

class PgDatabase final : public Database {
 public:
  PgDatabase(PGconn* conn, std::string redacted) : Database(std::move(redacted)), conn_(conn) {}
  ~PgDatabase() override {
    cache_.clear();
    PQfinish(conn_);
  }

  SqlDialect dialect() const override { return SqlDialect::kPostgres; }

  Status Exec(std::string_view sql) override {
    PGresult* r = PQexec(conn_, std::string(sql).c_str());
    Status st = Check(r, "executing SQL");
    if (st.ok()) NoteChanges(r);
    PQclear(r);
    return st;
  }

  Status BindTenant(std::string_view tenant) override { return Bind(tenant, false); }
  Status BindAllTenants() override { return Bind("", true); }

  Result<std::unique_ptr<Statement>> PrepareUncached(const std::string& sql) override {
    int params = 0;
    std::string translated = TranslateParameters(sql, &params);
    return std::unique_ptr<Statement>(new PgStatement(this, std::move(translated), params));
  }

  void ResetActiveStatements() override {
    for (auto& [sql, st] : cache_) {
      auto* pg = static_cast<PgStatement*>(st.get());
      if (pg->Busy()) pg->Rewind();
    }
  }

  std::string Leftovers() const override {
    std::string out;
    for (const auto& [sql, st] : cache_) {
      const auto* pg = static_cast<const PgStatement*>(st.get());
      if (!pg->Busy()) continue;
      out += std::string(out.empty() ? "" : "; ") + "statement left on a row: " + sql;
    }
    // A lost connection is the server's doing, not a leftover (Usable says so).
    if (PQstatus(conn_) == CONNECTION_OK && PQtransactionStatus(conn_) != PQTRANS_IDLE) {
      out += std::string(out.empty() ? "" : "; ") + "transaction open";
    }
    return out;
  }

  bool Clean() override {
    ResetActiveStatements();
    const PGTransactionStatusType t = PQtransactionStatus(conn_);
    if (t == PQTRANS_INTRANS || t == PQTRANS_INERROR) (void)Exec("ROLLBACK");
    return Leftovers().empty() && Usable();
  }

  bool Usable() const override { return PQstatus(conn_) == CONNECTION_OK; }

  void SetBusyTimeout(int ms) override {
    busy_timeout_ms_ = ms;
    if (PQstatus(conn_) == CONNECTION_OK) {
      (void)Exec("SET lock_timeout = " + std::to_string(std::max(0, ms)));
    }
  }

  int64_t Changes() const override { return changes_; }
  int BackendPid() const override { return PQbackendPID(conn_); }

  // The server-side statement for `sql` with these parameter types, prepared on first use.
  Result<std::string> Prepared(const std::string& sql, const std::vector<Oid>& types) {
    std::string key = sql;
    key += '\0';
    for (Oid t : types) key += std::to_string(t) + ",";
    auto it = prepared_.find(key);
    if (it != prepared_.end()) return it->second;
    std::string name = "e" + std::to_string(prepared_.size() + 1);
    PGresult* r =
        PQprepare(conn_, name.c_str(), sql.c_str(), static_cast<int>(types.size()), types.data());
    Status st = Check(r, "preparing statement");
    PQclear(r);
    if (!st.ok()) return Status(st.code(), st.message() + " [" + sql + "]");
    prepared_.emplace(std::move(key), name);
    return name;
  }

  // Status of a result; an error is noted (last_error_rc) and counted.
  Status Check(const PGresult* r, std::string_view context) {
    const ExecStatusType s = r ? PQresultStatus(r) : PGRES_FATAL_ERROR;
    if (s == PGRES_COMMAND_OK || s == PGRES_TUPLES_OK || s == PGRES_EMPTY_QUERY) {
      return Status::Ok();
    }
    const bool bad = PQstatus(conn_) != CONNECTION_OK;
    const int rc = CodeForSqlState(r ? PQresultErrorField(r, PG_DIAG_SQLSTATE) : nullptr, bad);
    std::string msg(context);
    msg += ": ";
    msg += TrimMessage(r ? PQresultErrorMessage(r) : PQerrorMessage(conn_));
    if (msg.ends_with(": ")) msg += TrimMessage(PQerrorMessage(conn_));
    CountStorageError(rc);
    NoteError(rc, msg);
    // A server gone (stopped, restarting, unreachable) is unavailability, not a failed request:
    // 503, and the store reopens the connection (rc stays I/O for that).
    if (rc == SQLITE_IOERR) return Status::Unavailable(std::move(msg));
    return StatusForCode(rc, std::move(msg));
  }

  // After each command that succeeded.
  void NoteChanges(const PGresult* r) {
    const char* n = PQcmdTuples(const_cast<PGresult*>(r));
    changes_ = (n && *n) ? std::strtoll(n, nullptr, 10) : 0;
    // A rollback (of a transaction or to a savepoint, or a COMMIT of a failed transaction,
    // which rolls back) may undo a tenant bound in it: bound afresh by the next BindTenant.
    if (std::string_view(PQcmdStatus(const_cast<PGresult*>(r))) == "ROLLBACK") bound_.reset();
  }

  PGconn* conn() const { return conn_; }

 private:
  struct Binding {
    std::string tenant;
    bool all = false;
  };

  // Session-level settings (set_config's is_local false): they outlive the transaction, so a
  // pooled connection keeps its binding until the next call changes it.
  Status Bind(std::string_view tenant, bool all) {
    if (bound_ && bound_->all == all && bound_->tenant == tenant) return Status::Ok();
    bound_.reset();
    const std::string value(tenant);
    const char* values[2] = {value.c_str(), all ? "on" : "off"};
    PGresult* r = PQexecParams(conn_,
                               "SELECT set_config('engram.tenant', $1, false), "
                               "set_config('engram.all_tenants', $2, false)",
                               2, nullptr, values, nullptr, nullptr, 0);
    Status st = Check(r, "binding the tenant");
    PQclear(r);
    if (st.ok()) bound_ = Binding{value, all};
    return st;
  }

  PGconn* conn_;
  std::optional<Binding> bound_;  // what the connection's settings hold, when known
  std::map<std::string, std::string> prepared_;
  int64_t changes_ = 0;
};

Result<bool> PgStatement::Step() {
  if (result_ != nullptr) {
    if (row_ < rows_) ++row_;
    return row_ < rows_;
  }
  if (bind_error_ != 0) {
    return Status::InvalidArgument("binding parameter " + std::to_string(bind_error_) +
                                   ": no such parameter in " + sql_);
  }
  std::vector<Oid> types;
  std::vector<const char*> values;
  std::vector<int> lengths;
  std::vector<int> formats;
  for (const Param& p : params_) {
    types.push_back(p.type);
    values.push_back(p.null ? nullptr : p.value.data());
    lengths.push_back(static_cast<int>(p.value.size()));
    formats.push_back(p.format);
  }
  ENGRAM_ASSIGN_OR_RETURN(std::string name, owner_->Prepared(sql_, types));
  PGresult* r = PQexecPrepared(owner_->conn(), name.c_str(), static_cast<int>(values.size()),
                               values.data(), lengths.data(), formats.data(), 0);
  Status st = owner_->Check(r, "executing statement");
  if (!st.ok()) {
    if (r) PQclear(r);
    return st;
  }
  owner_->NoteChanges(r);
  result_ = r;
  rows_ = PQntuples(r);
  row_ = 0;
  return rows_ > 0;
}

Result<std::unique_ptr<Database>> OpenPostgres(const std::string& url,
                                               const DatabaseOptions& options) {
  const std::string shown = RedactedUrl(url);
  PGconn* conn = PQconnectdb(WithNetworkTimeouts(url).c_str());
  if (conn == nullptr) return Status::IOError("connecting to " + shown + ": out of memory");
  if (PQstatus(conn) != CONNECTION_OK) {
    std::string msg = "connecting to " + shown + ": " + TrimMessage(PQerrorMessage(conn));
    PQfinish(conn);
    if (msg.find("password") != std::string::npos ||
        msg.find("authentication") != std::string::npos) {
      return Status::PermissionDenied(std::move(msg));
    }
    return Status::Unavailable(std::move(msg));
  }
  // Notices ("relation already exists, skipping") are not errors and not for the log.
  PQsetNoticeProcessor(
      conn, [](void*, const char*) {}, nullptr);
  std::unique_ptr<PgDatabase> db(new PgDatabase(conn, shown));
  ENGRAM_RETURN_IF_ERROR(db->Exec("SET client_min_messages = warning"));
  ENGRAM_RETURN_IF_ERROR(db->Exec("SET TIME ZONE 'UTC'"));
  if (options.read_only) {
    ENGRAM_RETURN_IF_ERROR(db->Exec("SET default_transaction_read_only = on"));
  }
  db->SetBusyTimeout(options.busy_timeout_ms);
  return std::unique_ptr<Database>(std::move(db));
}

PgChangeListener::PgChangeListener(std::string url, Callbacks callbacks)
    : url_(std::move(url)), callbacks_(std::move(callbacks)) {
  thread_ = std::thread([this] { Run(); });
}

PgChangeListener::~PgChangeListener() {
  stop_.store(true);
  if (thread_.joinable()) thread_.join();
}

void PgChangeListener::Run() {
  // A library thread never takes a process signal (see engine/background.cc).
  sigset_t all;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, nullptr);
  PGconn* conn = nullptr;
  bool listened_before = false;
  while (!stop_.load()) {
    if (conn == nullptr) {
      conn = PQconnectdb(WithNetworkTimeouts(url_).c_str());
      PGresult* r =
          PQstatus(conn) == CONNECTION_OK ? PQexec(conn, "LISTEN engram_changes") : nullptr;
      const bool ok = r != nullptr && PQresultStatus(r) == PGRES_COMMAND_OK;
      if (r) PQclear(r);
      if (!ok) {
        PQfinish(conn);
        conn = nullptr;
        for (int i = 0; i < 10 && !stop_.load(); ++i) {
          std::this_thread::sleep_for(std::chrono::milliseconds(50));
        }
        continue;
      }
      // While no connection listened, changes went unheard: everything may be stale.
      if (listened_before && callbacks_.lost) callbacks_.lost();
      listened_before = true;
      connected_.store(true);
    }
    pollfd fd{PQsocket(conn), POLLIN, 0};
    (void)poll(&fd, 1, 100);
    if (!PQconsumeInput(conn) || PQstatus(conn) != CONNECTION_OK) {
      PQfinish(conn);
      conn = nullptr;
      connected_.store(false);
      continue;
    }
    while (PGnotify* n = PQnotifies(conn)) {
      const std::string_view payload(n->extra ? n->extra : "");
      const int pid = n->be_pid;
      const size_t sep = payload.find('\x1f');
      if (!(callbacks_.own && callbacks_.own(pid))) {
        if (sep == std::string_view::npos) {
          if (callbacks_.lost) callbacks_.lost();  // a change of no known scope: all of them
        } else if (callbacks_.changed) {
          callbacks_.changed(std::string(payload.substr(0, sep)),
                             std::string(payload.substr(sep + 1)));
        }
      }
      PQfreemem(n);
    }
  }
  if (conn) PQfinish(conn);
}

Result<std::unique_ptr<Database>> OpenAnyDatabase(const std::string& path,
                                                  const DatabaseOptions& options) {
  if (IsPostgresUrl(path)) return OpenPostgres(path, options);
  return Database::Open(path, options);
}

}  // namespace engram
