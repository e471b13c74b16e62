#include "server/rate_limiter.h"

#include <algorithm>
#include <cstdlib>

#include "shared/redis.h"

namespace engram::server {
namespace {

// One bucket per key, in a hash that expires once it would be full again anyway. The time is
// Redis's own, so replicas whose clocks differ share one timeline. The wait comes back as a
// string: a Lua number would be cut to an integer.
constexpr char kBucketScript[] = R"(
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1000000
local rate = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local b = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = tonumber(b[1]) or burst
local at = tonumber(b[2]) or now
tokens = math.min(burst, tokens + math.max(0, now - at) * rate)
local wait = 0
if tokens >= 1 then tokens = tokens - 1 else wait = (1 - tokens) / rate end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', tostring(now))
redis.call('PEXPIRE', KEYS[1], math.ceil(burst / rate * 1000) + 1000)
return tostring(wait)
)";

}  // namespace

RateLimiter::RateLimiter(double rate, double burst)
    : rate_(rate), burst_(burst >= 1 ? burst : std::max(1.0, rate)) {}

double RateLimiter::Acquire(const std::string& key, double now_s) {
  if (rate_ <= 0) return 0;
  if (redis_ != nullptr) {
    auto wait = redis_->Eval(kBucketScript, {"engram:ratelimit:" + key},
                             {std::to_string(rate_), std::to_string(burst_)});
    if (wait.ok()) return std::strtod(wait->str.c_str(), nullptr);
    // Redis is down (logged once by the client): this replica's bucket decides meanwhile.
  }
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
