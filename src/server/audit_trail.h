// The server's audit trail: one AuditEntry (storage/audit_store.h) per /v1 request, buffered and
// written by a background thread every kFlushMs in one transaction, so no request waits on a
// disk sync for it; rows older than the retention are deleted hourly. The destructor writes what
// is left; a crash may lose the last kFlushMs of entries (never a user's data).
#pragma once

#include <condition_variable>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "engram/clock.h"
#include "storage/audit_store.h"

namespace engram::server {

class AuditTrail {
 public:
  // retention_ms: rows older than this are deleted (0: kept forever).
  AuditTrail(std::unique_ptr<AuditStore> store, int64_t retention_ms, const Clock* clock);
  ~AuditTrail();
  void Record(AuditEntry entry);
  void Flush();  // writes what is buffered now
  AuditStore* store() { return store_.get(); }

  static constexpr int kFlushMs = 200;

 private:
  void Loop();
  void WriteOut(std::vector<AuditEntry> batch);

  std::unique_ptr<AuditStore> store_;
  const int64_t retention_ms_;
  const Clock* clock_;
  std::mutex mu_;  // guards pending_, stopping_
  std::condition_variable wake_;
  std::vector<AuditEntry> pending_;
  bool stopping_ = false;
  std::mutex write_mu_;             // one batch written at a time, in order
  TimestampMs last_retention_ = 0;  // guarded by write_mu_
  std::thread flusher_;
};

// An entry as GET /v1/admin/audit and `engram audit --json` show it.
nlohmann::json AuditEntryToJson(const AuditEntry& entry);

// The audit action of a request: read, write, delete, purge, export, maintain or admin.
std::string AuditAction(const std::string& method, const std::string& route, bool hard);

}  // namespace engram::server
