#include "server/rate_limiter.h"

#include <algorithm>

namespace engram::server {

RateLimiter::RateLimiter(double rate, double burst)
    : rate_(rate), burst_(burst >= 1 ? burst : std::max(1.0, rate)) {}

double RateLimiter::Acquire(const std::string& key, double now_s) {
  if (rate_ <= 0) return 0;
  std::lock_guard<std::mutex> lock(mu_);
  auto [it, inserted] = buckets_.try_emplace(key, Bucket{burst_, now_s});
  Bucket& b = it->second;
  b.tokens = std::min(burst_, b.tokens + std::max(0.0, now_s - b.updated_s) * rate_);
  b.updated_s = now_s;
  if (b.tokens >= 1) {
    b.tokens -= 1;
    return 0;
  }
  return (1 - b.tokens) / rate_;
}

}  // namespace engram::server
