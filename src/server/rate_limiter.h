// Per-key token buckets: each key may make `rate` requests a second on average and `burst`
// at once. Thread-safe.
#pragma once

#include <mutex>
#include <string>
#include <unordered_map>

namespace engram::server {

class RateLimiter {
 public:
  // rate <= 0 turns limiting off; burst < 1 is taken as max(1, rate).
  RateLimiter(double rate, double burst);

  // Takes a token for `key` at time `now_s` (seconds, monotonic). Returns 0 when the request
  // may go ahead, otherwise the seconds until a token will be available (> 0).
  double Acquire(const std::string& key, double now_s);
  bool enabled() const { return rate_ > 0; }

 private:
  struct Bucket {
    double tokens;
    double updated_s;
  };
  const double rate_;
  const double burst_;
  std::mutex mu_;
  std::unordered_map<std::string, Bucket> buckets_;  // guarded by mu_
};

}  // namespace engram::server
