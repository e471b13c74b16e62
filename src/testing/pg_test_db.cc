// Fresh PostgreSQL databases for the unit tests (testing/record_support.h, TempDir::File).
#include <libpq-fe.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <string>

#include "testing/record_support.h"

namespace engram::testing {
namespace {

std::string AdminUrl() {
  const char* url = std::getenv("ENGRAM_TEST_PG_URL");
  return url ? url : "";
}

// The server's URL with the database replaced by `db`.
std::string WithDatabase(const std::string& url, const std::string& db) {
  const size_t scheme = url.find("://");
  const size_t slash = url.find('/', scheme == std::string::npos ? 0 : scheme + 3);
  const size_t query = url.find('?', slash == std::string::npos ? 0 : slash);
  std::string base = slash == std::string::npos ? url : url.substr(0, slash);
  return base + "/" + db + (query == std::string::npos ? "" : url.substr(query));
}

bool Run(const std::string& sql) {
  PGconn* conn = PQconnectdb(AdminUrl().c_str());
  bool ok = PQstatus(conn) == CONNECTION_OK;
  if (ok) {
    PGresult* r = PQexec(conn, sql.c_str());
    ok = PQresultStatus(r) == PGRES_COMMAND_OK;
    if (!ok) ADD_FAILURE() << sql << ": " << PQresultErrorMessage(r);
    PQclear(r);
  } else {
    ADD_FAILURE() << "connecting to " << AdminUrl() << ": " << PQerrorMessage(conn);
  }
  PQfinish(conn);
  return ok;
}

// The role the tests' stores connect as: an ordinary one, owner of its databases, so that
// PostgreSQL's row-level security holds for it (a superuser, like the server's `engram`,
// bypasses every policy, and the suite would not see a statement that misses its tenant).
constexpr char kAppRole[] = "engram_app";

// The URL with its user (and password) replaced by `user`.
std::string WithUser(const std::string& url, const std::string& user) {
  const size_t scheme = url.find("://");
  if (scheme == std::string::npos) return url;
  const size_t start = scheme + 3;
  const size_t at = url.find('@', start);
  const size_t slash = url.find('/', start);
  const bool has_user = at != std::string::npos && (slash == std::string::npos || at < slash);
  return url.substr(0, start) + user + "@" + url.substr(has_user ? at + 1 : start);
}

bool EnsureAppRole() {
  static const bool ok = Run(std::string("DO $$ BEGIN CREATE ROLE ") + kAppRole +
                             " LOGIN NOSUPERUSER NOBYPASSRLS; EXCEPTION WHEN duplicate_object "
                             "OR unique_violation THEN NULL; END $$");
  return ok;
}

}  // namespace

std::string PgTestDatabase(const std::string& name) {
  if (AdminUrl().empty()) return "";
  static std::atomic<int> counter{0};
  std::string db = "engram_t" + std::to_string(getpid()) + "_" + std::to_string(++counter);
  for (char c : name) {
    if (std::isalnum(static_cast<unsigned char>(c))) db += static_cast<char>(std::tolower(c));
  }
  if (!EnsureAppRole()) return "";
  if (!Run("CREATE DATABASE " + db + " OWNER " + kAppRole)) return "";
  return WithUser(WithDatabase(AdminUrl(), db), kAppRole);
}

void DropPgTestDatabase(const std::string& url) {
  const size_t slash = url.rfind('/');
  const size_t query = url.find('?', slash);
  Run("DROP DATABASE IF EXISTS " + url.substr(slash + 1, query - slash - 1) + " WITH (FORCE)");
}

}  // namespace engram::testing
