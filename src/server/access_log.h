// The JSON-lines access log: one line per request with route, status, timing, sizes and the
// caller's key id — never a body, a query string, memory content or a key's secret.
// Thread-safe; each line is written whole.
#pragma once

#include <cstdio>
#include <memory>
#include <mutex>
#include <string>

#include "engram/status.h"

namespace engram::server {

struct AccessRecord {
  std::string request_id;
  std::string method;
  std::string route;  // the route template, or "unmatched"
  std::string path;   // without the query string
  int status = 0;
  double duration_ms = 0;
  size_t bytes_in = 0;
  size_t bytes_out = 0;
  std::string key_id;  // "" when no key was used
  std::string tenant;
  std::string remote;
};

class AccessLog {
 public:
  // `target`: a file path (appended to), "-" for standard output, "" for no log.
  static Result<std::unique_ptr<AccessLog>> Open(const std::string& target);
  ~AccessLog();
  void Write(const AccessRecord& record);

 private:
  explicit AccessLog(std::FILE* out, bool owned) : out_(out), owned_(owned) {}
  std::mutex mu_;
  std::FILE* out_;  // guarded by mu_; null: logging off
  bool owned_;
};

}  // namespace engram::server
