#include "shared/redis.h"

#include <hiredis/hiredis.h>
#include <sys/time.h>

#include <charconv>
#include <iostream>
#include <map>

#include "core/status_macros.h"

namespace engram::shared {
namespace {

timeval Millis(int ms) {
  timeval tv;
  tv.tv_sec = ms / 1000;
  tv.tv_usec = (ms % 1000) * 1000;
  return tv;
}

RedisReply Convert(const redisReply* r) {
  RedisReply out;
  switch (r->type) {
    case REDIS_REPLY_INTEGER:
      out.type = RedisReply::Type::kInteger;
      out.integer = r->integer;
      break;
    case REDIS_REPLY_STRING:
      out.type = RedisReply::Type::kString;
      out.str.assign(r->str, r->len);
      break;
    case REDIS_REPLY_STATUS:
      out.type = RedisReply::Type::kStatus;
      out.str.assign(r->str, r->len);
      break;
    case REDIS_REPLY_ARRAY:
      out.type = RedisReply::Type::kArray;
      for (size_t i = 0; i < r->elements; ++i) out.elements.push_back(Convert(r->element[i]));
      break;
    default:
      out.type = RedisReply::Type::kNil;
  }
  return out;
}

struct ReplyDeleter {
  void operator()(redisReply* r) const { freeReplyObject(r); }
};
using ReplyPtr = std::unique_ptr<redisReply, ReplyDeleter>;

// One command on `c`; null when the connection failed (c->errstr says why).
ReplyPtr Run(redisContext* c, const std::vector<std::string>& argv) {
  std::vector<const char*> ptrs;
  std::vector<size_t> lens;
  ptrs.reserve(argv.size());
  lens.reserve(argv.size());
  for (const std::string& a : argv) {
    ptrs.push_back(a.data());
    lens.push_back(a.size());
  }
  return ReplyPtr(static_cast<redisReply*>(
      redisCommandArgv(c, static_cast<int>(argv.size()), ptrs.data(), lens.data())));
}

bool ParseInt(std::string_view s, int* out) {
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && p == s.data() + s.size();
}

}  // namespace

Result<RedisAddress> ParseRedisUrl(const std::string& url) {
  constexpr std::string_view kScheme = "redis://";
  if (url.rfind(kScheme, 0) != 0) {
    return Status::InvalidArgument("a Redis URL starts with redis://, as in redis://HOST:6379");
  }
  std::string rest = url.substr(kScheme.size());
  RedisAddress a;
  const size_t at = rest.rfind('@');
  if (at != std::string::npos) {
    const std::string auth = rest.substr(0, at);
    rest = rest.substr(at + 1);
    const size_t colon = auth.find(':');
    if (colon == std::string::npos) {
      a.password = auth;  // redis://secret@host, as redis-cli -u reads it
    } else {
      a.user = auth.substr(0, colon);
      a.password = auth.substr(colon + 1);
    }
  }
  const size_t slash = rest.find('/');
  if (slash != std::string::npos) {
    const std::string db = rest.substr(slash + 1);
    if (!db.empty() && (!ParseInt(db, &a.db) || a.db < 0)) {
      return Status::InvalidArgument("Redis URL: the database after '/' must be a number, got '" +
                                     db + "'");
    }
    rest = rest.substr(0, slash);
  }
  const size_t colon = rest.rfind(':');
  if (colon != std::string::npos && rest.find(']') == std::string::npos) {
    if (!ParseInt(rest.substr(colon + 1), &a.port) || a.port <= 0 || a.port > 65535) {
      return Status::InvalidArgument("Redis URL: bad port '" + rest.substr(colon + 1) + "'");
    }
    rest = rest.substr(0, colon);
  }
  if (rest.empty()) return Status::InvalidArgument("Redis URL: no host");
  a.host = rest;
  return a;
}

std::string RedisAddress::Redacted() const {
  return "redis://" + host + ":" + std::to_string(port) + "/" + std::to_string(db);
}

void Redis::ContextDeleter::operator()(redisContext* c) const { redisFree(c); }

Result<std::unique_ptr<Redis>> Redis::Open(const std::string& url, RedisOptions options) {
  ENGRAM_ASSIGN_OR_RETURN(RedisAddress address, ParseRedisUrl(url));
  if (!options.log) {
    options.log = [](const std::string& line) { std::cerr << "engram: " << line << std::endl; };
  }
  return std::unique_ptr<Redis>(new Redis(std::move(address), std::move(options)));
}

Redis::Redis(RedisAddress address, RedisOptions options)
    : address_(std::move(address)), options_(std::move(options)) {}

Redis::~Redis() = default;

Result<Redis::Context> Redis::Connect() {
  Context c(redisConnectWithTimeout(address_.host.c_str(), address_.port,
                                    Millis(options_.connect_timeout_ms)));
  if (!c) return Status::Unavailable("redis: out of memory for a connection");
  if (c->err) return Status::Unavailable(std::string("redis: ") + c->errstr);
  redisSetTimeout(c.get(), Millis(options_.command_timeout_ms));
  auto run = [&](std::vector<std::string> argv) -> Status {
    ReplyPtr r = Run(c.get(), argv);
    if (!r) return Status::Unavailable(std::string("redis: ") + c->errstr);
    if (r->type == REDIS_REPLY_ERROR) {
      // A wrong password is a configuration error, but it is reported the same way as an
      // outage: the replica goes on without Redis and says why in /readyz and the log.
      return Status::Unavailable("redis: " + argv[0] + ": " + std::string(r->str, r->len));
    }
    return Status::Ok();
  };
  if (!address_.password.empty()) {
    std::vector<std::string> auth = {"AUTH"};
    if (!address_.user.empty()) auth.push_back(address_.user);
    auth.push_back(address_.password);
    ENGRAM_RETURN_IF_ERROR(run(auth));
  }
  if (address_.db != 0) ENGRAM_RETURN_IF_ERROR(run({"SELECT", std::to_string(address_.db)}));
  return c;
}

void Redis::Release(Context c) {
  std::lock_guard<std::mutex> lock(mu_);
  if (idle_.size() < options_.max_idle) idle_.push_back(std::move(c));
}

void Redis::MarkDown(const std::string& cause) {
  errors_.fetch_add(1, std::memory_order_relaxed);
  bool was_up;
  {
    std::lock_guard<std::mutex> lock(mu_);
    was_up = up_;
    up_ = false;
    cause_ = cause;
    retry_ = std::chrono::steady_clock::now() + std::chrono::milliseconds(options_.retry_ms);
    idle_.clear();  // a broken server's connections are not worth keeping
  }
  if (was_up) {
    options_.log("redis at " + address_.Redacted() + " is unreachable (" + cause +
                 "): rate limits and session counters are per replica until it answers again");
  }
}

void Redis::MarkUp() {
  bool was_down;
  {
    std::lock_guard<std::mutex> lock(mu_);
    was_down = !up_;
    up_ = true;
    cause_.clear();
  }
  if (was_down) options_.log("redis at " + address_.Redacted() + " is back");
}

Result<RedisReply> Redis::Command(const std::vector<std::string>& argv) {
  // A pooled connection may have died with a Redis restart since it was used: the command
  // is tried once more on a fresh one before Redis counts as down.
  for (int attempt = 0;; ++attempt) {
    Context c;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (!up_ && std::chrono::steady_clock::now() < retry_) {
        return Status::Unavailable("redis is down: " + cause_);
      }
      if (attempt == 0 && !idle_.empty()) {
        c = std::move(idle_.back());
        idle_.pop_back();
      }
    }
    const bool pooled = static_cast<bool>(c);
    if (!c) {
      auto fresh = Connect();
      if (!fresh.ok()) {
        MarkDown(fresh.status().message());
        return fresh.status();
      }
      c = std::move(fresh).value();
    }
    ReplyPtr r = Run(c.get(), argv);
    if (!r) {
      // The connection is broken (timeout, reset): dropped with `c`, never reused.
      if (pooled) continue;
      const std::string cause = std::string("redis: ") + (c->errstr[0] ? c->errstr : "no reply");
      MarkDown(cause);
      return Status::Unavailable(cause);
    }
    MarkUp();
    if (r->type == REDIS_REPLY_ERROR) {
      std::string message(r->str, r->len);
      // A password Redis wants and was not given (or refuses) makes every command fail: an
      // outage to the callers, reported once, not an error per call.
      if (message.starts_with("NOAUTH") || message.starts_with("WRONGPASS")) {
        MarkDown("redis: " + message);
        return Status::Unavailable("redis: " + message);
      }
      Release(std::move(c));
      errors_.fetch_add(1, std::memory_order_relaxed);
      return Status::Internal("redis: " + message);
    }
    RedisReply out = Convert(r.get());
    Release(std::move(c));
    return out;
  }
}

Result<RedisReply> Redis::Eval(const std::string& script, const std::vector<std::string>& keys,
                               const std::vector<std::string>& args) {
  static std::mutex sha_mu;
  static std::map<std::string, std::string> shas;  // script -> its SHA1 in Redis
  std::string sha;
  {
    std::lock_guard<std::mutex> lock(sha_mu);
    auto it = shas.find(script);
    if (it != shas.end()) sha = it->second;
  }
  for (int attempt = 0; attempt < 2; ++attempt) {
    if (sha.empty()) {
      ENGRAM_ASSIGN_OR_RETURN(RedisReply loaded, Command({"SCRIPT", "LOAD", script}));
      sha = loaded.str;
      std::lock_guard<std::mutex> lock(sha_mu);
      shas[script] = sha;
    }
    std::vector<std::string> argv = {"EVALSHA", sha, std::to_string(keys.size())};
    argv.insert(argv.end(), keys.begin(), keys.end());
    argv.insert(argv.end(), args.begin(), args.end());
    auto reply = Command(argv);
    if (reply.ok() || reply.status().message().find("NOSCRIPT") == std::string::npos) {
      return reply;
    }
    sha.clear();  // Redis restarted (or flushed its scripts): load it again
  }
  return Status::Internal("redis: the script could not be loaded");
}

Redis::Health Redis::health() const {
  Health h;
  {
    std::lock_guard<std::mutex> lock(mu_);
    h.up = up_;
    h.cause = cause_;
  }
  h.errors = errors_.load(std::memory_order_relaxed);
  return h;
}

}  // namespace engram::shared
