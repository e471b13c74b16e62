// Per-key token buckets: each key may make `rate` requests a second on average and `burst`
// at once. With Redis (Share), the buckets are the deployment's, not this replica's: a key
// gets `rate` across all replicas, timed by Redis's clock. While Redis cannot be reached the
// replica's own buckets answer (a key then gets up to `rate` per replica). Thread-safe.
#pragma once

#include <mutex>
#include <string>
#include <unordered_map>

namespace engram::shared {
class Redis;
}

namespace engram::server {

class RateLimiter {
 public:
  // rate <= 0 turns limiting off; burst < 1 is taken as max(1, rate).
  RateLimiter(double rate, double burst);

  // Takes a token for `key` at time `now_s` (seconds, monotonic). Returns 0 when the request
  // may go ahead, otherwise the seconds until a token will be available (> 0).
  double Acquire(const std::string& key, double now_s);
  bool enabled() const { return rate_ > 0; }
  // Keeps the buckets in `redis` (outlives the limiter) from now on.
  void Share(shared::Redis* redis) { redis_ = redis; }

 private:
  struct Bucket {
    double tokens;
    double updated_s;
  };
  const double rate_;
  const double burst_;
  shared::Redis* redis_ = nullptr;
  std::mutex mu_;
  std::unordered_map<std::string, Bucket> buckets_;  // guarded by mu_
};

}  // namespace engram::server
