// Request metrics in Prometheus text format (exposition format 0.0.4). Thread-safe: counters
// are kept per (route, status) under a mutex held for a few hundred nanoseconds per request.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "engram/engine.h"

namespace engram::server {

class Metrics {
 public:
  // Latency histogram bucket bounds, seconds.
  static constexpr std::array<double, 12> kBuckets = {0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025,
                                                      0.05,   0.1,   0.25,   0.5,   1.0,  2.5};

  // `route` is the route's template ("POST /v1/search") or "unmatched".
  void Observe(const std::string& route, int status, double seconds);
  void NoteRateLimited() { ++rate_limited_; }
  // A phase of the chat proxy's work ("prepare": from the request to the upstream's request;
  // "chunk": a streamed chunk's wait in the server), in finer buckets than requests.
  static constexpr std::array<double, 13> kPhaseBuckets = {
      0.0001, 0.00025, 0.0005, 0.001, 0.002, 0.003, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1.0};
  void ObservePhase(const std::string& phase, double seconds);

  // Every series, with the engine's counts appended when `stats` is given.
  std::string Render(const Engine::Stats* stats) const;

 private:
  struct Histogram {
    std::array<uint64_t, kBuckets.size()> buckets{};
    uint64_t count = 0;
    double sum = 0;
  };
  mutable std::mutex mu_;
  std::map<std::pair<std::string, int>, uint64_t> requests_;  // guarded by mu_
  std::map<std::string, Histogram> latency_;                  // guarded by mu_
  struct PhaseHistogram {
    std::array<uint64_t, kPhaseBuckets.size()> buckets{};
    uint64_t count = 0;
    double sum = 0;
  };
  std::map<std::string, PhaseHistogram> phases_;  // guarded by mu_
  std::atomic<uint64_t> rate_limited_{0};
};

// The storage series: SQLite errors by primary result code (every connection of the process),
// whether writes work now, writes failed for the database's reasons, writer connections
// replaced. Cheap: rendered fresh for every scrape.
std::string RenderStorageMetrics(const Engine::WriteHealth& writes,
                                 const std::vector<std::pair<std::string, int64_t>>& errors);

// Redis (shared state of the replicas): whether it answers, and the commands that failed.
std::string RenderRedisMetrics(bool up, int64_t errors);

}  // namespace engram::server
