// AuditStore: the `audit_log` table (docs/storage-format.md, version 11) on its own connection:
// who read, changed, exported, purged or administered which user's data, and when. Holds no
// content, query or secret: ids, names of routes and statuses only. Thread-safe.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "engram/clock.h"
#include "engram/encryption.h"
#include "engram/status.h"
#include "storage/sqlite.h"

namespace engram {

struct AuditEntry {
  int64_t seq = 0;  // set when stored
  TimestampMs at = 0;
  std::string request_id;
  std::string tenant;
  std::string key_id;  // "" for a keyless (loopback, no keys) server
  // read, write, delete, purge, export, maintain, admin
  std::string action;
  std::string method;
  std::string route;    // the route template ("DELETE /v1/memories/{id}" is method + route)
  std::string user_id;  // the user whose data it was, when the request named one
  std::string target;   // the {id} of the route (a memory, session, job or key), if any
  int status = 0;
  std::string remote;  // the client's address
};

struct AuditQuery {
  std::string tenant;   // "": every tenant
  std::string user_id;  // "": every user
  std::optional<TimestampMs> since;
  int limit = 100;         // 1..10000
  int64_t before_seq = 0;  // cursor: only rows older than this seq (0: from the newest)
};

class AuditStore {
 public:
  static Result<std::unique_ptr<AuditStore>> Open(
      const std::string& path, TimestampMs now, std::shared_ptr<const EncryptionKey> key = nullptr);
  // Appends the entries in one transaction.
  Status Append(const std::vector<AuditEntry>& entries);
  // Newest first.
  Result<std::vector<AuditEntry>> List(const AuditQuery& query);
  // Deletes rows older than `before`; returns how many.
  Result<int64_t> DeleteBefore(TimestampMs before);

 private:
  explicit AuditStore(std::unique_ptr<Database> db) : db_(std::move(db)) {}
  std::mutex mu_;
  std::unique_ptr<Database> db_;  // guarded by mu_
};

}  // namespace engram
