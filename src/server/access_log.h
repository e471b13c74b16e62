// The JSON-lines access log: one line per request with route, status, timing, sizes and the
// caller's key id — never a body, a query string, memory content or a key's secret.
// Thread-safe; each line is written whole.
//
// Lines are buffered in memory and written by a background thread every `kFlushMs` (sooner
// when 256 KiB wait), so no request waits on the log file: a write() per request would be a
// system call on every request and, when the disk stalls, hold every request behind the log's
// lock.
// The destructor writes what is left; a crash (SIGKILL) may lose the last `kFlushMs` of lines.
#pragma once

#include <condition_variable>
#include <cstdio>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

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
  // Writes the buffered lines now (they are otherwise written within kFlushMs).
  void Flush();

  static constexpr int kFlushMs = 100;

 private:
  AccessLog(std::FILE* out, bool owned);
  void FlushLoop();

  std::FILE* const out_;  // null: logging off
  const bool owned_;
  std::mutex mu_;  // guards pending_ and stopping_
  std::condition_variable wake_;
  std::string pending_;  // whole lines not yet written
  bool stopping_ = false;
  std::mutex write_mu_;  // one writer of out_ at a time, in order
  std::thread flusher_;
};

}  // namespace engram::server
