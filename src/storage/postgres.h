// The PostgreSQL backend of storage/sqlite.h's Database interface, over libpq (Debian's
// libpq-dev, PostgreSQL 15). Engram's statements are portable SQL with SQLite's `?` and `?NNN`
// parameters; a statement is translated once ($NNN), prepared on the server on first use per
// combination of parameter types, and its result is read whole (text format) when it runs.
//
// PostgreSQL's errors are mapped to SQLite's result codes (a lost connection is I/O, a lock
// or statement timeout and a serialization failure are BUSY, an integrity violation is
// CONSTRAINT), so write health, retries and metrics work as they do on SQLite.
//
// Thread safety: as Database, one thread at a time per connection.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "storage/sqlite.h"

namespace engram {

// Whether `path` names a PostgreSQL server (postgres:// or postgresql://, libpq's URI form).
bool IsPostgresUrl(std::string_view path);

// The URL with its password, if any, replaced by "***": for messages and logs.
std::string RedactedUrl(std::string_view url);

// The URL with libpq's network timeouts added where it sets none: connect_timeout=5 (s),
// tcp_user_timeout=10000 (ms: data the server has not acknowledged for that long ends the
// connection) and TCP keepalives (idle 10 s, every 5 s, 3 probes). Without them a server that
// vanished from the network (not one that refuses) holds a request, or the change listener,
// for the kernel's retransmission time, many minutes; with them it fails within seconds and
// the request gets its 503. A parameter the URL gives is kept as given.
std::string WithNetworkTimeouts(std::string_view url);

// Connects to the server at `url` (with WithNetworkTimeouts). options.busy_timeout_ms becomes the
// lock timeout (a lock waited for longer is BUSY, as SQLite's busy timeout); read_only opens
// read-only transactions. A wrong host, port, password or database is an error naming the URL
// (without its password).
Result<std::unique_ptr<Database>> OpenPostgres(const std::string& url,
                                               const DatabaseOptions& options);

// Hears, on a connection of its own, which scopes other processes changed (the NOTIFY that
// PostgreSQL sends at each commit that changed items: storage/pg_migrations.cc), and tells
// `changed` on its own thread, within milliseconds of the commit. `own` says whether a
// notifying server process is one of this process's writers (their changes are known already).
// A lost connection is reopened; since changes may have gone unheard meanwhile, `lost` is
// called once it listens again (and for a change whose scope is unknown).
class PgChangeListener {
 public:
  struct Callbacks {
    std::function<void(const std::string& tenant, const std::string& user_id)> changed;
    std::function<void()> lost;
    std::function<bool(int backend_pid)> own;
  };
  PgChangeListener(std::string url, Callbacks callbacks);
  ~PgChangeListener();  // stops listening and joins the thread
  PgChangeListener(const PgChangeListener&) = delete;
  PgChangeListener& operator=(const PgChangeListener&) = delete;
  // Whether it listens now (tests, readiness).
  bool connected() const { return connected_.load(); }

 private:
  void Run();

  const std::string url_;
  const Callbacks callbacks_;
  std::atomic<bool> stop_{false};
  std::atomic<bool> connected_{false};
  std::thread thread_;
};

// Opens either backend: PostgreSQL for a postgres:// URL, else the SQLite file.
Result<std::unique_ptr<Database>> OpenAnyDatabase(const std::string& path,
                                                  const DatabaseOptions& options);

// `?` and `?NNN` parameters as `$NNN` (outside quoted strings and identifiers); `count` gets
// the highest parameter number. Exposed for tests.
std::string TranslateParameters(std::string_view sql, int* count);

}  // namespace engram
