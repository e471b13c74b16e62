#include "server/access_log.h"

#include <nlohmann/json.hpp>

#include <cerrno>
#include <cstring>
#include <memory>

#include "engram/clock.h"
#include "server/reply.h"

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

AccessLog::~AccessLog() {
  if (owned_ && out_) std::fclose(out_);
}

void AccessLog::Write(const AccessRecord& r) {
  if (!out_) return;
  nlohmann::json line = {{"ts", FormatTimestamp(SystemClock::Default()->NowMs())},
                         {"request_id", r.request_id},
                         {"method", r.method},
                         {"route", r.route},
                         {"path", r.path},
                         {"status", r.status},
                         {"duration_ms", r.duration_ms},
                         {"bytes_in", r.bytes_in},
                         {"bytes_out", r.bytes_out},
                         {"key_id", r.key_id},
                         {"tenant", r.tenant},
                         {"remote", r.remote}};
  std::string text = DumpJson(line);
  text += '\n';
  std::lock_guard<std::mutex> lock(mu_);
  std::fwrite(text.data(), 1, text.size(), out_);
  std::fflush(out_);
}

}  // namespace engram::server
