#include "server/access_log.h"

#include <cerrno>
#include <chrono>
#include <cstring>
#include <memory>

#include "codec/json_text.h"
#include "engram/clock.h"

namespace engram::server {

Result<std::unique_ptr<AccessLog>> AccessLog::Open(const std::string& target) {
  if (target.empty()) return std::unique_ptr<AccessLog>(new AccessLog(nullptr, false));
  if (target == "-") return std::unique_ptr<AccessLog>(new AccessLog(stdout, false));
  std::FILE* f = std::fopen(target.c_str(), "a");
  if (!f) {
    return Status::IOError("cannot open access log " + target + ": " + std::strerror(errno));
  }
  return std::unique_ptr<AccessLog>(new AccessLog(f, true));
}

namespace {
constexpr size_t kWakeBytes = 256 * 1024;
}  // namespace

AccessLog::AccessLog(std::FILE* out, bool owned) : out_(out), owned_(owned) {
  if (out_) flusher_ = std::thread([this] { FlushLoop(); });
}

AccessLog::~AccessLog() {
  if (flusher_.joinable()) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stopping_ = true;
    }
    wake_.notify_all();
    flusher_.join();
  }
  Flush();
  if (owned_ && out_) std::fclose(out_);
}

void AccessLog::FlushLoop() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!stopping_) {
    wake_.wait_for(lock, std::chrono::milliseconds(kFlushMs),
                   [this] { return stopping_ || pending_.size() >= kWakeBytes; });
    lock.unlock();
    Flush();
    lock.lock();
  }
}

void AccessLog::Flush() {
  if (!out_) return;
  // Taken before the lines are: two flushes write their lines in the order they were logged.
  std::lock_guard<std::mutex> writing(write_mu_);
  std::string lines;
  {
    std::lock_guard<std::mutex> lock(mu_);
    lines.swap(pending_);
  }
  if (lines.empty()) return;
  std::fwrite(lines.data(), 1, lines.size(), out_);
  std::fflush(out_);
}

// Written as JSON text directly: one line per request is on every request's path.
void AccessLog::Write(const AccessRecord& r) {
  if (!out_) return;
  std::string text;
  text.reserve(320);
  json_text::Object o(&text);
  json_text::AppendTimestamp(o.Key("ts"), SystemClock::Default()->NowMs());
  json_text::AppendString(o.Key("request_id"), r.request_id);
  json_text::AppendString(o.Key("method"), r.method);
  json_text::AppendString(o.Key("route"), r.route);
  json_text::AppendString(o.Key("path"), r.path);
  json_text::AppendInt(o.Key("status"), r.status);
  json_text::AppendDouble(o.Key("duration_ms"), r.duration_ms);
  json_text::AppendInt(o.Key("bytes_in"), static_cast<int64_t>(r.bytes_in));
  json_text::AppendInt(o.Key("bytes_out"), static_cast<int64_t>(r.bytes_out));
  json_text::AppendString(o.Key("key_id"), r.key_id);
  json_text::AppendString(o.Key("tenant"), r.tenant);
  json_text::AppendString(o.Key("remote"), r.remote);
  o.Close();
  text += '\n';
  bool wake = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    pending_ += text;
    wake = pending_.size() >= kWakeBytes;
  }
  if (wake) wake_.notify_one();
}

}  // namespace engram::server
