// AuditTrail (audit_trail.h).
#include "server/audit_trail.h"

#include <pthread.h>
#include <signal.h>

#include <chrono>
#include <iostream>

namespace engram::server {

AuditTrail::AuditTrail(std::unique_ptr<AuditStore> store, int64_t retention_ms, const Clock* clock)
    : store_(std::move(store)),
      retention_ms_(retention_ms),
      clock_(clock ? clock : SystemClock::Default()) {
  flusher_ = std::thread([this] { Loop(); });
}

AuditTrail::~AuditTrail() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  wake_.notify_all();
  flusher_.join();
  Flush();
}

void AuditTrail::Record(AuditEntry entry) {
  std::lock_guard<std::mutex> lock(mu_);
  pending_.push_back(std::move(entry));
}

void AuditTrail::Flush() {
  std::vector<AuditEntry> batch;
  {
    std::lock_guard<std::mutex> lock(mu_);
    batch.swap(pending_);
  }
  WriteOut(std::move(batch));
}

void AuditTrail::WriteOut(std::vector<AuditEntry> batch) {
  std::lock_guard<std::mutex> lock(write_mu_);
  if (!batch.empty()) {
    Status st = store_->Append(batch);
    if (!st.ok()) {
      std::cerr << "engram serve: audit log: " << batch.size()
                << " entries not written: " << st.ToString() << std::endl;
    }
  }
  const TimestampMs now = clock_->NowMs();
  if (retention_ms_ > 0 && now - last_retention_ >= 60 * 60 * 1000) {
    last_retention_ = now;
    auto removed = store_->DeleteBefore(now - retention_ms_);
    if (!removed.ok()) {
      std::cerr << "engram serve: audit log retention: " << removed.status().ToString()
                << std::endl;
    }
  }
}

void AuditTrail::Loop() {
  // Signals belong to the thread that waits for them (engram serve's watcher); this thread may
  // start before they are blocked, and would otherwise take a SIGTERM's default action.
  sigset_t all;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, nullptr);
  std::unique_lock<std::mutex> lock(mu_);
  while (!stopping_) {
    wake_.wait_for(lock, std::chrono::milliseconds(kFlushMs));
    std::vector<AuditEntry> batch;
    batch.swap(pending_);
    lock.unlock();
    WriteOut(std::move(batch));
    lock.lock();
  }
}

nlohmann::json AuditEntryToJson(const AuditEntry& e) {
  return nlohmann::json{{"seq", e.seq},
                        {"at", FormatTimestamp(e.at)},
                        {"request_id", e.request_id},
                        {"tenant", e.tenant},
                        {"key_id", e.key_id},
                        {"action", e.action},
                        {"method", e.method},
                        {"route", e.route},
                        {"user_id", e.user_id},
                        {"target", e.target},
                        {"status", e.status},
                        {"remote", e.remote}};
}

std::string AuditAction(const std::string& method, const std::string& route, bool hard) {
  if (route.starts_with("/v1/admin/tenants/")) return "purge";
  if (route.starts_with("/v1/admin/")) return "admin";
  if (route == "/v1/export") return "export";
  if (route == "/v1/maintenance") return method == "GET" ? "read" : "maintain";
  if (method == "GET" || route == "/v1/search" || route == "/v1/context" || route == "/v1/recall") {
    return "read";
  }
  if (method == "DELETE") {
    // A knowledge document's delete is always a hard one.
    return route == "/v1/memories" || route == "/v1/knowledge/{id}" || hard ? "purge" : "delete";
  }
  return "write";
}

}  // namespace engram::server
