// A Redis connection for the state that several `engram serve` replicas share (rate-limit
// buckets, session counters): hiredis underneath, a small pool of connections, and a health
// state that turns an outage into fast failures.
//
// Redis is never the store of record: every caller has a per-process fallback and uses it
// while this answers Unavailable. So a call never waits on a dead Redis longer than the
// command timeout once, and after a failure the client does not try again for `retry_ms`:
// calls fail at once (Unavailable) until then, instead of each paying the timeout. The outage
// and the return are logged once each (to stderr, by default), not per call.
//
// Threads: safe to share; each command runs on a pooled connection of its own.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "engram/status.h"

struct redisContext;

namespace engram::shared {

struct RedisOptions {
  int connect_timeout_ms = 200;
  int command_timeout_ms = 200;
  int retry_ms = 1000;  // after a failure, calls fail fast for this long
  size_t max_idle = 8;  // connections kept open between calls
  // Where the outage and the return are reported; default: a line on stderr.
  std::function<void(const std::string&)> log;
};

// A parsed reply: what the callers here need of RESP.
struct RedisReply {
  enum class Type { kNil, kInteger, kString, kArray, kStatus };
  Type type = Type::kNil;
  int64_t integer = 0;
  std::string str;  // kString, kStatus
  std::vector<RedisReply> elements;
};

// redis://[[USER]:PASSWORD@]HOST[:PORT][/DB]; InvalidArgument names what is wrong.
struct RedisAddress {
  std::string host;
  int port = 6379;
  std::string user;
  std::string password;
  int db = 0;
  std::string Redacted() const;  // redis://HOST:PORT/DB, without the password
};
Result<RedisAddress> ParseRedisUrl(const std::string& url);

class Redis {
 public:
  // Does not connect: an unreachable Redis at start is an outage like any later one.
  static Result<std::unique_ptr<Redis>> Open(const std::string& url, RedisOptions options = {});
  ~Redis();
  Redis(const Redis&) = delete;
  Redis& operator=(const Redis&) = delete;

  // Runs one command. Unavailable while Redis cannot be reached (or within retry_ms of the
  // last failure); Internal for an error reply (a script's error, a wrong type).
  Result<RedisReply> Command(const std::vector<std::string>& argv);
  // EVALSHA of `script`, loading it on NOSCRIPT (a restarted Redis forgets its scripts).
  Result<RedisReply> Eval(const std::string& script, const std::vector<std::string>& keys,
                          const std::vector<std::string>& args);

  struct Health {
    bool up = true;
    std::string cause;   // why it is down
    int64_t errors = 0;  // failed commands since start
  };
  Health health() const;
  const RedisAddress& address() const { return address_; }

 private:
  Redis(RedisAddress address, RedisOptions options);
  struct ContextDeleter {
    void operator()(redisContext* c) const;
  };
  using Context = std::unique_ptr<redisContext, ContextDeleter>;
  Result<Context> Connect();
  void Release(Context c);
  void MarkDown(const std::string& cause);
  void MarkUp();

  const RedisAddress address_;
  const RedisOptions options_;
  mutable std::mutex mu_;
  std::vector<Context> idle_;                    // guarded by mu_
  bool up_ = true;                               // guarded by mu_
  std::string cause_;                            // guarded by mu_
  std::chrono::steady_clock::time_point retry_;  // guarded by mu_: no attempt before this
  std::atomic<int64_t> errors_{0};
};

}  // namespace engram::shared
